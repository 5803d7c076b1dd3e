"""
``ToolDescriptor``: a model-visible ``Tool`` plus its ``ToolContract`` (side effect, idempotency, approval,
timeout, output validation, retries, resource version, compensation, heartbeat, capabilities, output
ceilings). A contract that cannot be honoured is refused when it is made (``DefinitionError``), and a
descriptor a provider cannot honour is refused when the provider is registered (``check_capabilities``).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from attrs import evolve, field, frozen

from llm_wire import contract as _contract
from llm_wire import schema as _schema
from llm_wire import tool as _tool
from llm_wire.agent._outcome import ErrorCategory, check_types
from llm_wire.codec import Codec
from llm_wire.contract import Contract
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import DefinitionError
from llm_wire.tool import Tool, ToolError
from llm_wire.value import Value

__all__ = [
    "DESCRIPTOR_FORMAT",
    "MIN_OUTPUT_BYTES",
    "MIN_OUTPUT_TOKENS",
    "Approval",
    "Capability",
    "Compensation",
    "HeartbeatPolicy",
    "Idempotency",
    "OutputCeilings",
    "OutputValidation",
    "ProviderCapabilities",
    "ResourceVersion",
    "ToolRetryPolicy",
    "Risk",
    "SideEffect",
    "ToolContract",
    "ToolDescriptor",
    "check_capabilities",
    "describe",
    "descriptor_from_json_schema",
]

#: The ``format`` of ``ToolDescriptor.to_json``.
DESCRIPTOR_FORMAT = "llm_wire.tool_descriptor.v1"
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


def _capabilities(value: Iterable[Capability]) -> tuple[Capability, ...]:
    return tuple(value)


def _names(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


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


def _output_schema(value: Contract | Codec[Any] | None) -> Contract | None:
    if value is None or isinstance(value, Contract):
        return value
    if isinstance(value, Codec):
        if value.schema is None:
            raise DefinitionError("ToolContract.output_schema: the codec has no schema")
        match _contract.from_schema(value.schema):
            case Err(error):
                raise DefinitionError(f"ToolContract.output_schema: {error.describe()}")
            case Ok(compiled):
                return compiled
    raise TypeError(f"output_schema must be a Contract, a Codec or None, not {type(value).__name__}")


@frozen
class ToolContract:
    """
    How the runner treats calls to one tool. The defaults run a call once, with no deadline of its own,
    no approval, and strict output validation when an output schema is set. Invalid combinations raise
    ``DefinitionError`` here: above all, retries on a tool that is neither idempotent nor compensated.
    """

    version: str = field(default="1", validator=_text)
    #: Checked against ``ToolOutcome.data`` after ``prepare_tool_result`` (a codec is compiled here).
    output_schema: Contract | None = field(default=None, converter=_output_schema)
    side_effect: SideEffect = SideEffect.NONE
    idempotency: Idempotency = Idempotency.UNKNOWN
    approval: Approval = Approval.NEVER
    #: Seconds for the whole call, all attempts and backoffs included; ``None`` for none of its own.
    timeout: float | None = field(default=None, validator=_seconds)
    output_validation: OutputValidation = OutputValidation.STRICT
    retry: ToolRetryPolicy = ToolRetryPolicy()
    resource_version: ResourceVersion = ResourceVersion()
    compensation: Compensation = Compensation()
    heartbeat: HeartbeatPolicy = HeartbeatPolicy()
    capabilities: tuple[Capability, ...] = field(default=(), converter=_capabilities)
    #: Argument members whose values approval requests show as ``"[redacted]"`` (besides schema marks:
    #: ``writeOnly: true`` or ``x-secret: true`` on a property).
    secrets: frozenset[str] = field(default=frozenset(), converter=_names)
    output_ceilings: OutputCeilings = OutputCeilings()
    metadata: Mapping[str, str] = field(factory=dict, converter=_strings, eq=False, hash=False)

    def __attrs_post_init__(self) -> None:
        check_types(self, _CONTRACT_TYPES)
        if not all(isinstance(capability, Capability) for capability in self.capabilities):
            raise TypeError("ToolContract.capabilities must hold Capability records")
        if not self.version:
            raise DefinitionError("ToolContract.version must not be empty")
        if self.timeout == 0:
            raise DefinitionError("ToolContract.timeout must be positive (None for no deadline of its own)")
        # Keyed retries: ``check_capabilities`` refuses a provider that does not consume the key.
        safe = self.is_repeatable(consumes_key=True) or self.compensation.enabled
        if self.retry.max_attempts > 1 and not safe:
            raise DefinitionError(
                "ToolContract: retries of a tool that is not idempotent require compensation "
                "(set idempotency, or enable compensation, or use max_attempts=1)"
            )
        names = [capability.name for capability in self.capabilities]
        if len(set(names)) != len(names):
            raise DefinitionError("ToolContract.capabilities: capability names must be unique")

    def is_repeatable(self, *, consumes_key: bool) -> bool:
        """
        Whether running a call again cannot repeat its effect: the tool is idempotent, or idempotent with
        a key that its provider consumes (``consumes_key``).
        """
        idempotency = self.idempotency
        return idempotency is Idempotency.IDEMPOTENT or (
            idempotency is Idempotency.IDEMPOTENT_WITH_KEY and consumes_key
        )

    def needs(self) -> ProviderCapabilities:
        """The provider capabilities this contract relies on."""
        keyed = self.idempotency is Idempotency.IDEMPOTENT_WITH_KEY and self.retry.max_attempts > 1
        return ProviderCapabilities(
            idempotency_key=keyed, heartbeat=self.heartbeat.enabled, compensation=self.compensation.enabled
        )


_CONTRACT_TYPES: Mapping[str, type | tuple[type, ...]] = {
    "side_effect": SideEffect,
    "idempotency": Idempotency,
    "approval": Approval,
    "output_validation": OutputValidation,
    "retry": ToolRetryPolicy,
    "resource_version": ResourceVersion,
    "compensation": Compensation,
    "heartbeat": HeartbeatPolicy,
    "output_ceilings": OutputCeilings,
}


@frozen
class ProviderCapabilities:
    """
    What a provider does with a tool's invocation beyond running it: consumes the idempotency key, reports
    heartbeats, compensates failures. Declared explicitly; never inferred.
    """

    idempotency_key: bool = False
    heartbeat: bool = False
    compensation: bool = False

    def __attrs_post_init__(self) -> None:
        check_types(self, {"idempotency_key": bool, "heartbeat": bool, "compensation": bool})


@frozen
class ToolDescriptor:
    """
    A tool as the runner sees it: the model-visible ``tool`` (name, description, input schema and its
    compiled contract) and its ``contract``.
    """

    tool: Tool
    contract: ToolContract = ToolContract()

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.tool, Tool):
            raise TypeError(f"tool must be a Tool, not {type(self.tool).__name__}")
        if not isinstance(self.contract, ToolContract):
            raise TypeError(f"contract must be a ToolContract, not {type(self.contract).__name__}")

    @property
    def name(self) -> str:
        """The tool name, which the model calls and providers dispatch on."""
        return self.tool.name

    def with_contract(self, contract: ToolContract) -> ToolDescriptor:
        """A copy with ``contract`` instead (the argument class and schema are unchanged)."""
        return evolve(self, contract=contract)

    def to_json(self) -> Value:
        """The descriptor as a stable JSON document (tagged ``DESCRIPTOR_FORMAT``)."""
        c = self.contract
        retry = c.retry
        secrets: list[Value] = [*sorted(c.secrets)]
        categories: list[Value] = [*sorted(category.value for category in retry.retryable_categories)]
        output = None if c.output_schema is None else _schema.to_value(c.output_schema.schema)
        return {
            "format": DESCRIPTOR_FORMAT,
            "name": self.name,
            "version": c.version,
            "description": self.tool.description,
            "input_schema": _schema.to_value(self.tool.schema),
            "output_schema": output,
            "side_effect": c.side_effect.value,
            "idempotency": c.idempotency.value,
            "approval": c.approval.value,
            "output_validation": c.output_validation.value,
            "timeout": _number(c.timeout),
            "retry": {
                "max_attempts": retry.max_attempts,
                "initial_backoff": _number(retry.initial_backoff),
                "maximum_backoff": _number(retry.maximum_backoff),
                "backoff_multiplier": _number(retry.backoff_multiplier),
                "jitter": _number(retry.jitter),
                "retryable_categories": categories,
            },
            "resource_version": {
                "require_expected": c.resource_version.require_expected,
                "argument_pointer": c.resource_version.argument_pointer,
                "outcome_pointer": c.resource_version.outcome_pointer,
            },
            "compensation": {
                "enabled": c.compensation.enabled,
                "timeout": _number(c.compensation.timeout),
                "max_attempts": c.compensation.max_attempts,
            },
            "heartbeat": {
                "timeout": _number(c.heartbeat.timeout),
                "minimum_interval": _number(c.heartbeat.minimum_interval),
            },
            "capabilities": [
                {
                    "name": capability.name,
                    "risk": capability.risk.value,
                    "summary": capability.summary,
                    "resources": list(capability.resources),
                    "metadata": dict(capability.metadata),
                }
                for capability in c.capabilities
            ],
            "output_ceilings": {
                "max_bytes": c.output_ceilings.max_bytes,
                "max_tokens": c.output_ceilings.max_tokens,
            },
            "secrets": secrets,
            "metadata": dict(c.metadata),
        }


def _number(seconds: float | None) -> Value:
    return None if seconds is None else Decimal(repr(float(seconds)))


def describe(tool: Tool, contract: ToolContract | None = None) -> ToolDescriptor:
    """The descriptor of ``tool`` under ``contract`` (the default contract when ``None``)."""
    return ToolDescriptor(tool, ToolContract() if contract is None else contract)


def descriptor_from_json_schema(
    name: str, description: str, input_schema: Value | str | bytes, contract: ToolContract | None = None
) -> Result[ToolDescriptor, ToolError]:
    """
    A descriptor for a tool whose input schema arrives at runtime (a document, or its JSON text), such as
    an MCP ``inputSchema``: loaded fail-closed, it must describe an object; ``Err(ToolError)`` otherwise.
    """
    match _tool.from_json_schema(name, description, input_schema):
        case Err(error):
            return Err(error)
        case Ok(declared):
            return Ok(describe(declared, contract))


def check_capabilities(descriptor: ToolDescriptor, declared: ProviderCapabilities | None) -> None:
    """
    Raise ``DefinitionError`` naming the tool when its contract relies on a capability the provider does
    not declare (``declared``; ``None`` declares none).
    """
    needs = descriptor.contract.needs()
    has = declared or ProviderCapabilities()
    missing = [
        words
        for need, have, words in (
            (
                needs.idempotency_key,
                has.idempotency_key,
                "keyed retries need a provider that consumes the key",
            ),
            (needs.heartbeat, has.heartbeat, "heartbeats need a provider that reports them"),
            (needs.compensation, has.compensation, "compensation needs a provider with a compensate handler"),
        )
        if need and not have
    ]
    if missing:
        raise DefinitionError(f"tool {descriptor.name!r}: {'; '.join(missing)}")
