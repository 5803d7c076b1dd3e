"""
The parts of a ``ToolContract`` and the rule each states: what a call may change (``SideEffect``), whether
repeating it is safe (``Idempotency``), who approves it, how its output is checked, its retries
(``ToolRetryPolicy``: which failures and how long to wait), its resource version (``ResourceVersion``: the
version a call expects and the one it leaves), compensation, heartbeats, capabilities and output ceilings.
Pure: no I/O and no clock.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from typing import Any

from attrs import evolve, field, frozen

from llm_wire.agent._tool_outcome import ErrorCategory, ErrorCode, ToolFailure, ToolOutcome, check_types
from llm_wire.schema import DefinitionError
from llm_wire.value import Value, render

__all__ = [
    "MIN_OUTPUT_BYTES",
    "MIN_OUTPUT_TOKENS",
    "Approval",
    "Capability",
    "Compensation",
    "HeartbeatPolicy",
    "Idempotency",
    "OutputCeilings",
    "OutputValidation",
    "ResourceVersion",
    "Risk",
    "SideEffect",
    "ToolRetryPolicy",
    "pointer_parts",
]

#: The smallest model-visible output ceilings a contract may set.
MIN_OUTPUT_BYTES = 256
MIN_OUTPUT_TOKENS = 64


class SideEffect(enum.Enum):
    """What a call may change (shown to approvers and in the descriptor JSON)."""

    NONE = "none"
    READ = "read"
    WRITE = "write"
    DESTRUCTIVE = "destructive"


class Idempotency(enum.Enum):
    """Whether repeating a call is safe: it decides whether a failed call may be retried."""

    UNKNOWN = "unknown"
    IDEMPOTENT = "idempotent"
    #: Safe to repeat with the same ``idempotency_key`` (the provider must declare it consumes keys).
    IDEMPOTENT_WITH_KEY = "idempotent_with_key"
    NON_IDEMPOTENT = "non_idempotent"


class Approval(enum.Enum):
    """Who must agree before a call runs."""

    NEVER = "never"
    #: The runner's policy callback decides; it may allow, deny, or escalate to the approver.
    POLICY = "policy"
    #: The approver is asked every time.
    ALWAYS = "always"


class OutputValidation(enum.Enum):
    """What an output that breaks the output schema does: fail the call, be recorded, or nothing."""

    STRICT = "strict"
    WARN = "warn"
    DISABLED = "disabled"


class Risk(enum.Enum):
    """How much harm a capability can do."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


def _strings(value: Mapping[str, str]) -> dict[str, str]:
    return dict(value)


def _categories(value: Iterable[ErrorCategory]) -> frozenset[ErrorCategory]:
    return frozenset(value)


def _resources(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _seconds(instance: object, attribute: Any, value: Any) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise DefinitionError(f"{type(instance).__name__}.{attribute.name} must be a finite number >= 0")


def _count(instance: object, attribute: Any, value: Any) -> None:
    if type(value) is not int or value < 1:
        raise DefinitionError(f"{type(instance).__name__}.{attribute.name} must be an int >= 1")


@frozen
class ToolRetryPolicy:
    """
    How many attempts a call gets and the wait between them (seconds): ``initial_backoff`` times
    ``backoff_multiplier`` per attempt, capped at ``maximum_backoff``, times a jitter factor drawn from
    ``[1 - jitter, 1 + jitter]``. ``retryable_categories``, when set, replaces the tool's own hint.

    Not ``transport.RetryPolicy``, which retries a model request: its jitter only shortens a wait (a share of
    it, all by default), it draws from its own seeded generator and stops at its own ``deadline``. Here the
    declared schedule is the mean wait (jitter both ways, ±10 % by default, never past
    ``maximum_backoff``), the draw is the runner's ``draw``, the bound is the contract's ``timeout``, and a
    failure is retried only when repeating the call is safe by the contract (``ToolContract.retry_delay``).
    The fields are the ``retry`` member of the descriptor document (``DESCRIPTOR_FORMAT``).
    """

    max_attempts: int = field(default=1, validator=_count)
    initial_backoff: float = field(default=0.1, validator=_seconds)
    maximum_backoff: float = field(default=5.0, validator=_seconds)
    backoff_multiplier: float = 2.0
    jitter: float = 0.1
    retryable_categories: frozenset[ErrorCategory] = field(default=frozenset(), converter=_categories)

    def __attrs_post_init__(self) -> None:
        if self.initial_backoff > self.maximum_backoff:
            raise DefinitionError("ToolRetryPolicy.initial_backoff must not exceed maximum_backoff")
        multiplier = self.backoff_multiplier
        if isinstance(multiplier, bool) or not isinstance(multiplier, int | float) or not multiplier >= 1:
            raise DefinitionError("ToolRetryPolicy.backoff_multiplier must be a finite number >= 1")
        if not math.isfinite(multiplier):
            raise DefinitionError("ToolRetryPolicy.backoff_multiplier must be a finite number >= 1")
        jitter = self.jitter
        if isinstance(jitter, bool) or not isinstance(jitter, int | float) or not 0 <= jitter <= 1:
            raise DefinitionError("ToolRetryPolicy.jitter must be a number in [0, 1]")

    def backoff(self, attempt: int, draw: float) -> float:
        """
        The wait after failed attempt ``attempt`` (from 1), with ``draw`` in [0, 1) choosing the jitter.
        """
        delay = self.initial_backoff
        for _ in range(attempt - 1):
            delay = min(delay * self.backoff_multiplier, self.maximum_backoff)
        delay *= 1 - self.jitter + 2 * self.jitter * draw
        return min(max(delay, 0.0), self.maximum_backoff)

    def delay(self, failure: ToolFailure, attempt: int, draw: float) -> float | None:
        """
        Seconds to wait before attempt ``attempt + 1`` by this policy alone, or ``None``: the attempts are
        used up, or the failure is not retryable (by ``retryable_categories`` when set, else by the tool's
        hint). A finite ``retry_after`` the tool reported is honoured.
        """
        if attempt >= self.max_attempts:
            return None
        if self.retryable_categories:
            retryable = failure.category in self.retryable_categories
        else:
            retryable = failure.retryable
        if not retryable:
            return None
        delay = self.backoff(attempt, draw)
        after = failure.retry_after
        if after is not None and math.isfinite(after):
            delay = max(delay, after)
        return delay


def _pointer(instance: object, attribute: Any, value: Any) -> None:
    if not isinstance(value, str):
        raise DefinitionError(f"ResourceVersion.{attribute.name} must be a str")
    if value and (not value.startswith("/") or any(_bad_escape(part) for part in value.split("/")[1:])):
        raise DefinitionError(f"ResourceVersion.{attribute.name} must be a JSON Pointer such as /version")


def _bad_escape(part: str) -> bool:
    return "~" in part.replace("~0", "").replace("~1", "")


def pointer_parts(pointer: str) -> tuple[str, ...]:
    """The unescaped members of a JSON Pointer (``/a~1b/c`` is ``("a/b", "c")``)."""
    return tuple(part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:])


@frozen
class ResourceVersion:
    """
    Optimistic concurrency: the version a call expects is read from its arguments at ``argument_pointer``
    (required when ``require_expected``), and the version after it from its data at ``outcome_pointer``.
    """

    require_expected: bool = False
    argument_pointer: str = field(default="/resource_version", validator=_pointer)
    outcome_pointer: str = field(default="/resource_version", validator=_pointer)

    def __attrs_post_init__(self) -> None:
        if self.require_expected and not self.argument_pointer:
            raise DefinitionError("ResourceVersion.require_expected needs an argument_pointer")

    def expected_version(self, tool: str, arguments: Value) -> str | ToolOutcome | None:
        """
        The version a call to ``tool`` expects (read from its arguments when ``require_expected``), ``None``
        when none is required, or the ``invalid_input`` outcome when it is missing or not a scalar.
        """
        if not self.require_expected:
            return None
        found, value = _at(arguments, self.argument_pointer)
        if not found:
            message = f"tool {tool} requires the expected resource version in its arguments"
            return ToolOutcome.failed(
                ErrorCategory.INVALID_INPUT, ErrorCode.PRECONDITION_MISSING, message, retryable=False
            )
        if value is None or isinstance(value, list | dict):
            message = f"tool {tool}: the expected resource version must be a string, number or boolean"
            return ToolOutcome.failed(
                ErrorCategory.INVALID_INPUT, ErrorCode.PRECONDITION_NOT_SCALAR, message, retryable=False
            )
        return _scalar_text(value)

    def extract_version(self, outcome: ToolOutcome) -> ToolOutcome:
        """The outcome with ``resource_version`` read from its data at ``outcome_pointer``, when unset."""
        if outcome.resource_version is not None or not self.outcome_pointer or outcome.data is None:
            return outcome
        found, value = _at(outcome.data, self.outcome_pointer)
        if not found or value is None or isinstance(value, list | dict):
            return outcome
        return evolve(outcome, resource_version=_scalar_text(value))


def _at(document: Value, pointer: str) -> tuple[bool, Value]:
    here = document
    for part in pointer_parts(pointer):
        if isinstance(here, dict) and part in here:
            here = here[part]
        elif isinstance(here, list) and part.isdigit() and int(part) < len(here):
            here = here[int(part)]
        else:
            return False, None
    return True, here


def _scalar_text(value: Value) -> str:
    return value if isinstance(value, str) else render(value)


@frozen
class Compensation:
    """Undoing a failed call's partial effect (which makes retrying a non-idempotent call safe)."""

    enabled: bool = False
    #: Seconds each compensation attempt may take; ``None`` for no bound of its own.
    timeout: float | None = field(default=None, validator=_seconds)
    max_attempts: int = field(default=1, validator=_count)


@frozen
class HeartbeatPolicy:
    """
    Liveness: a call that reports no heartbeat for ``timeout`` seconds is abandoned; heartbeats closer than
    ``minimum_interval`` are not emitted as events (they still count as liveness).
    """

    timeout: float | None = field(default=None, validator=_seconds)
    minimum_interval: float = field(default=0.25, validator=_seconds)

    @property
    def enabled(self) -> bool:
        """Whether the call must report heartbeats."""
        return bool(self.timeout)


def _text(instance: object, attribute: Any, value: Any) -> None:
    if not isinstance(value, str):
        raise DefinitionError(f"{type(instance).__name__}.{attribute.name} must be a str")


@frozen
class Capability:
    """Something a tool can do that an approver should know about (``filesystem.write`` on ``/srv``)."""

    name: str = field(validator=_text)
    risk: Risk = Risk.LOW
    summary: str = ""
    resources: tuple[str, ...] = field(default=(), converter=_resources)
    metadata: Mapping[str, str] = field(factory=dict, converter=_strings, eq=False, hash=False)

    def __attrs_post_init__(self) -> None:
        check_types(self, {"risk": Risk, "summary": str})
        if not self.name:
            raise DefinitionError("Capability.name must not be empty")


def _ceiling(minimum: int) -> Any:
    def check(instance: object, attribute: Any, value: Any) -> None:
        if value is not None and (type(value) is not int or value < minimum):
            raise DefinitionError(f"OutputCeilings.{attribute.name} must be an int >= {minimum}")

    return check


@frozen
class OutputCeilings:
    """Per-tool ceilings on the model-visible output; they can only tighten the run's ceilings."""

    max_bytes: int | None = field(default=None, validator=_ceiling(MIN_OUTPUT_BYTES))
    max_tokens: int | None = field(default=None, validator=_ceiling(MIN_OUTPUT_TOKENS))

    def tighten(self, max_bytes: int, max_tokens: int) -> tuple[int, int]:
        """The run's ceilings ``(max_bytes, max_tokens)`` tightened by these (never widened)."""
        return (
            max_bytes if self.max_bytes is None else min(max_bytes, self.max_bytes),
            max_tokens if self.max_tokens is None else min(max_tokens, self.max_tokens),
        )
