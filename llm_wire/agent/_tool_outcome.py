"""
``ToolOutcome``: what one tool call produced, and the canonical JSON the model sees of it.

A success carries text (``content``), structured ``data`` and ``artifacts``; a failure carries a
``ToolFailure`` with a semantic ``ErrorCategory``, a stable string code, a message written for the model, a
retry hint and bounded ``details``. ``metadata`` is for logs and callbacks and never reaches the model.
The outcomes the agent layer writes itself are ``ToolOutcome``'s constructors: refused arguments with their
bounded issues, unknown tools, an exception a tool raised, and what every runner says of a call it
abandoned or whose outcome is unknown; ``tool_outcome_of`` turns a tool's return value into one.
"""

from __future__ import annotations

import dataclasses
import enum
import errno
import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import attrs
from attrs import field, frozen

from llm_wire import _public
from llm_wire import codec as _codec
from llm_wire._described import Described
from llm_wire._fast import Lean
from llm_wire.admission import DecodeRejected, SchemaRejected, ToolChoiceViolation, ValueFailure
from llm_wire.agent._face import FACE as _FACE
from llm_wire.codec import Codec
from llm_wire.reasons import InvalidJson
from llm_wire.result import Err, Ok
from llm_wire.schema import DefinitionError
from llm_wire.value import NotJson, Value, render
from llm_wire.value._render import render_redacted

__all__ = [
    "MAX_ISSUES",
    "MAX_ISSUE_BYTES",
    "MAX_LISTED",
    "ErrorCategory",
    "ErrorCode",
    "ToolFailure",
    "ToolOutcome",
    "argument_issues",
    "canonical",
    "check_types",
    "no_compensation",
    "tool_outcome_of",
    "unknown_outcome_message",
]

#: At most this many ``{path, message}`` issues reach the model for one call, within ``MAX_ISSUE_BYTES``.
MAX_ISSUES = 5
MAX_ISSUE_BYTES = 1024
#: How many tool names an unknown-tool message lists.
MAX_LISTED = 20


class ErrorCategory(enum.Enum):
    """What kind of failure a tool call met; the key a model (and a retry policy) acts on."""

    INVALID_INPUT = "invalid_input"
    NOT_FOUND = "not_found"
    PERMISSION_DENIED = "permission_denied"
    CONFLICT = "conflict"
    RATE_LIMITED = "rate_limited"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    UNAVAILABLE = "unavailable"
    INTERNAL = "internal"

    @classmethod
    def for_status(cls, status: int) -> ErrorCategory:
        """
        The category of an HTTP status a tool met: 400/422 ``invalid_input``, 401/403 ``permission_denied``,
        404/410 ``not_found``, 408/504 ``timeout``, 409/412 ``conflict``, 429 ``rate_limited``, other 5xx
        ``unavailable``, anything else ``internal``.
        """
        if type(status) is not int:
            raise TypeError(f"status must be an int, not {type(status).__name__}")
        return _STATUSES.get(status) or (cls.UNAVAILABLE if 500 <= status < 600 else cls.INTERNAL)

    @classmethod
    def for_exception(cls, exc: BaseException) -> ErrorCategory:
        """
        The category of an exception raised by a tool: timeouts, missing and existing files, permissions,
        temporary unavailability and HTTP statuses by their meaning, an ``OSError`` by its errno, and
        anything else (a bug in the tool) ``internal``.
        """
        status = _status_of(exc)
        if status is not None:
            return cls.for_status(status)
        for kind, category in _EXCEPTIONS:
            if isinstance(exc, kind):
                return category
        if isinstance(exc, OSError) and exc.errno is not None:
            return _ERRNOS.get(exc.errno, cls.INTERNAL)
        return cls.INTERNAL


class ErrorCode(enum.StrEnum):
    """The runner's own stable failure codes (a provider may use its own strings beside them)."""

    INVALID_ARGUMENTS = "invalid_arguments"
    UNKNOWN_TOOL = "unknown_tool"
    NOT_ACTIVATED = "not_activated"
    #: The call breaks the request's tool choice (``admission.ToolChoiceViolation``).
    TOOL_CHOICE_VIOLATION = "tool_choice_violation"
    DENIED = "denied"
    APPROVAL_DENIED = "approval_denied"
    TIMEOUT = "timeout"
    HEARTBEAT_TIMEOUT = "heartbeat_timeout"
    RETRY_DEADLINE = "retry_deadline"
    #: The call started and may have taken effect, and repeating it is not safe (see
    #: ``ToolContract.retry_advice``).
    OUTCOME_UNKNOWN = "outcome_unknown"
    CANCELLED = "cancelled"
    CAPACITY_EXHAUSTED = "capacity_exhausted"
    TOOL_CRASHED = "tool_crashed"
    NOT_JSON = "result_not_json"
    OUTPUT_SCHEMA = "output_schema"
    NO_STRUCTURED_DATA = "no_structured_data"
    NO_COMPENSATION = "no_compensation"
    PRECONDITION_MISSING = "precondition_missing"
    PRECONDITION_NOT_SCALAR = "precondition_not_scalar"
    RESULT_REJECTED = "result_rejected"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    PERMISSION_DENIED = "permission_denied"
    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"
    INVALID_INPUT = "invalid_input"
    INTERNAL = "internal"


def check_types(instance: object, table: Mapping[str, type | tuple[type, ...]]) -> None:
    """``TypeError`` naming the first field of ``instance`` whose value is not of its type in ``table``."""
    for name, kind in table.items():
        value = getattr(instance, name)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            owner = type(instance).__name__
            raise TypeError(f"{owner}.{name} must be a {_kind_name(kind)}, not {type(value).__name__}")


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join("None" if k is type(None) else k.__name__ for k in kinds)


def _as_code(value: str) -> str:
    return str(value) if isinstance(value, str) else value


def _code(instance: object, attribute: object, value: Any) -> None:
    if not isinstance(value, str) or not value:
        raise TypeError("ToolFailure.code must be a non-empty str")


@frozen
class ToolFailure(Described):
    """
    Why a tool call failed, as the model sees it: ``category``, ``code``, ``message``, ``retryable`` and
    ``details`` (a JSON value, such as the ``{path, message}`` issues of refused arguments).
    """

    category: ErrorCategory
    code: str = field(converter=_as_code, validator=_code)
    message: str
    retryable: bool = False
    details: Value = field(default=None, eq=False, hash=False)
    #: Seconds the tool asks to wait before a retry (HTTP ``Retry-After``); the backoff honours it.
    retry_after: float | None = None

    def __attrs_post_init__(self) -> None:
        check_types(
            self,
            {
                "category": ErrorCategory,
                "message": str,
                "retryable": bool,
                "retry_after": (int, float, type(None)),
            },
        )

    def describe(self) -> str:
        """``timeout (timeout): the tool did not finish in time``."""
        return f"{self.category.value} ({self.code}): {self.message}"


def _metadata(value: Mapping[str, str]) -> Mapping[str, str]:
    return dict(value)


@frozen
class ToolOutcome(Lean):
    """
    One tool call's result: a success (``failure is None``) with ``content``, ``data`` and ``artifacts``,
    or a failure. Make one with ``ToolOutcome.success`` or ``ToolOutcome.failed``, or one of the runner's
    own failures (``unknown_tool``, ``invalid_arguments``, ``from_exception``, ``unknown``, ``abandoned``).
    """

    content: str = ""
    #: Structured result (a JSON value); ``None`` when the tool returned none.
    data: Value = field(default=None, eq=False, hash=False)
    failure: ToolFailure | None = None
    artifacts: tuple[str, ...] = ()
    #: The resource version after the call (read from ``data`` by the contract's pointer when unset).
    resource_version: str | None = None
    #: The call may have left a partial effect: compensate before any retry.
    compensation_required: bool = False
    compensation_token: str = ""
    #: Diagnostics for logs and callbacks; never shown to the model.
    metadata: Mapping[str, str] = field(factory=dict, converter=_metadata, eq=False, hash=False)

    def __attrs_post_init__(self) -> None:
        check_types(
            self,
            {
                "content": str,
                "failure": (ToolFailure, type(None)),
                "artifacts": tuple,
                "resource_version": (str, type(None)),
                "compensation_required": bool,
                "compensation_token": str,
            },
        )
        if not all(isinstance(artifact, str) for artifact in self.artifacts):
            raise TypeError("ToolOutcome.artifacts must hold str references")

    @classmethod
    def success(
        cls, content: str = "", data: Value = None, *, artifacts: tuple[str, ...] = ()
    ) -> ToolOutcome:
        """A success with text, structured data and artifact references."""
        return cls(content, data, None, tuple(artifacts))

    @classmethod
    def failed(
        cls,
        category: ErrorCategory,
        code: str,
        message: str,
        *,
        retryable: bool | None = None,
        details: Value = None,
        retry_after: float | None = None,
        compensation_required: bool = False,
        compensation_token: str = "",
    ) -> ToolOutcome:
        """
        A failure; ``retryable`` defaults to the category's (timeouts, rate limits, unavailability retry).
        """
        hint = category in _RETRYABLE if retryable is None else retryable
        failure = ToolFailure(category, code, message, hint, details, retry_after)
        return cls(
            message,
            None,
            failure,
            compensation_required=compensation_required,
            compensation_token=compensation_token,
        )

    @classmethod
    def from_exception(cls, exc: BaseException, tool: str) -> ToolOutcome:
        """
        The failure for an exception ``tool`` raised: its category from ``ErrorCategory.for_exception`` and
        a sanitized message naming the tool and the exception type, never the exception's own text (which
        may hold secrets or paths; the runner logs it only by option).
        """
        category = ErrorCategory.for_exception(exc)
        code = ErrorCode.TOOL_CRASHED if category is ErrorCategory.INTERNAL else ErrorCode(category.value)
        status = _status_of(exc)
        kind = type(exc).__name__
        if status is not None:
            message = f"tool {tool} failed: its service answered HTTP {status}"
        elif category is ErrorCategory.INTERNAL:
            message = f"tool {tool} failed unexpectedly ({kind}); the failure is not caused by the arguments"
        else:
            message = f"tool {tool} failed: {category.value.replace('_', ' ')} ({kind})"
        outcome = cls.failed(category, code, message, retry_after=_retry_after(exc))
        return outcome.with_metadata(tool_exception=kind)

    @classmethod
    def invalid_arguments(
        cls, tool: str, failure: ValueFailure | None, problem: str | None = None
    ) -> ToolOutcome:
        """
        The ``invalid_input`` outcome for refused arguments: what to fix, with the issues in ``details``
        (``problem`` says it when there is no ``failure``).
        """
        details: Value = None if failure is None else argument_issues(failure)
        reason = problem if failure is None else failure.describe()
        message = (
            f"the arguments for tool {tool} were refused: {reason}. Correct them and call the tool again."
        )
        return cls.failed(
            ErrorCategory.INVALID_INPUT,
            ErrorCode.INVALID_ARGUMENTS,
            message,
            retryable=False,
            details=details,
        )

    @classmethod
    def unknown_tool(cls, available: Sequence[str], *, scope: bool = False) -> ToolOutcome:
        """
        The ``not_found`` outcome for a call to a tool that does not exist (or, with ``scope``, is outside a
        scope: ``permission_denied``): it lists the available tools and never repeats the name the model used.
        """
        listed = ", ".join(available[:MAX_LISTED])
        if len(available) > MAX_LISTED:
            listed += f" (and {len(available) - MAX_LISTED} more)"
        tools = f"Call one of the available tools: {listed}." if available else "No tools are available."
        if scope:
            message = f"that tool is not activated for this scope. {tools}"
            code, category = ErrorCode.NOT_ACTIVATED, ErrorCategory.PERMISSION_DENIED
        else:
            message = f"no tool with that name exists. {tools}"
            code, category = ErrorCode.UNKNOWN_TOOL, ErrorCategory.NOT_FOUND
        details: Value = {"available": list(available[:MAX_LISTED])}
        return cls.failed(category, code, message, retryable=False, details=details)

    @classmethod
    def choice_violation(cls, violation: ToolChoiceViolation) -> ToolOutcome:
        """
        The ``permission_denied`` outcome for a call the request's tool choice does not allow: it lists the
        tools allowed in this turn and never repeats the name the model used.
        """
        details: Value = {"allowed": list(violation.allowed[:MAX_LISTED])}
        return cls.failed(
            ErrorCategory.PERMISSION_DENIED,
            ErrorCode.TOOL_CHOICE_VIOLATION,
            violation.advice,
            retryable=False,
            details=details,
        )

    @classmethod
    def unknown(cls, tool: str) -> ToolOutcome:
        """
        The outcome of a call that started and may have taken effect, and was not run again because
        repeating it is not safe: ``timeout``/``outcome_unknown``, never retryable. Every runner says it in
        these words, whether the call ran past its deadline or its worker stopped mid-call (a durable run's
        resume).
        """
        return cls.failed(
            ErrorCategory.TIMEOUT, ErrorCode.OUTCOME_UNKNOWN, unknown_outcome_message(tool), retryable=False
        )

    @classmethod
    def abandoned(cls, tool: str, *, heartbeat: bool = False) -> ToolOutcome:
        """
        The outcome of an attempt the runner abandoned (its result, if one comes, is discarded): past its
        deadline, or when its heartbeats stopped (``heartbeat``). Every runner reports it in these words, and
        a durable run records it as the attempt's step, so a replay sees what the first run saw.
        """
        if heartbeat:
            message = f"tool {tool} stopped reporting heartbeats and was abandoned"
            outcome = cls.failed(ErrorCategory.TIMEOUT, ErrorCode.HEARTBEAT_TIMEOUT, message)
            outcome = outcome.with_metadata(heartbeat_timeout="true")
        else:
            message = f"tool {tool} did not finish before its deadline"
            outcome = cls.failed(ErrorCategory.TIMEOUT, ErrorCode.TIMEOUT, message)
        return outcome.with_metadata(late_result_discarded="true")

    @property
    def ok(self) -> bool:
        """Whether the call succeeded."""
        return self.failure is None

    @property
    def category(self) -> ErrorCategory | None:
        """The failure's category, ``None`` on success."""
        return None if self.failure is None else self.failure.category

    def with_metadata(self, **items: str) -> ToolOutcome:
        """A copy with ``items`` added to the metadata."""
        from attrs import evolve

        return evolve(self, metadata={**self.metadata, **items})

    def model_payload(self) -> Value | str:
        """
        What the model sees before any bounding: the failure or structured-success object, or the plain
        text of a success without structured data.
        """
        failure = self.failure
        if failure is not None:
            error: dict[str, Value] = {
                "category": failure.category.value,
                "code": failure.code,
                "message": failure.message,
                "retryable": failure.retryable,
            }
            if failure.details is not None:
                error["details"] = failure.details
            return {"error": error, "ok": False}
        if self.data is None or self.data == {} or self.data == []:
            return self.content
        return {"artifacts": list(self.artifacts), "data": self.data, "message": self.content, "ok": True}

    def model_text(self) -> str:
        """
        The canonical model-visible text: compact JSON with sorted keys for a failure
        (``{"error":{...},"ok":false}``) or a structured success (``{"artifacts","data","message","ok"}``),
        the content verbatim for a plain success. ``NotJson`` if ``data`` holds no JSON value.
        """
        payload = self.model_payload()
        return payload if isinstance(payload, str) else render(canonical(payload))


def canonical(value: Any) -> Value:
    """``value`` with every object's keys sorted (for canonical JSON); ``NotJson`` on non-JSON values."""
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise NotJson((), "object keys must be strings")
        return {key: canonical(value[key]) for key in sorted(value)}
    if isinstance(value, list | tuple):
        return [canonical(item) for item in value]
    if isinstance(value, float):
        if value != value or value in (math.inf, -math.inf):
            raise NotJson((), "a JSON number must be finite")
        return Decimal(repr(value))  # exact: a float's shortest repr reads back as the same number
    if value is None or isinstance(value, str | bool | int | Decimal):
        return value
    raise NotJson((), f"{type(value).__name__} is not a JSON value")


_RETRYABLE = frozenset({ErrorCategory.TIMEOUT, ErrorCategory.RATE_LIMITED, ErrorCategory.UNAVAILABLE})

#: Exception types to categories, most specific first (an ``OSError`` not listed goes by its errno).
_EXCEPTIONS: tuple[tuple[type[BaseException], ErrorCategory], ...] = (
    (TimeoutError, ErrorCategory.TIMEOUT),
    (FileNotFoundError, ErrorCategory.NOT_FOUND),
    (NotADirectoryError, ErrorCategory.NOT_FOUND),
    (FileExistsError, ErrorCategory.CONFLICT),
    (IsADirectoryError, ErrorCategory.CONFLICT),
    (PermissionError, ErrorCategory.PERMISSION_DENIED),
    (BlockingIOError, ErrorCategory.UNAVAILABLE),
    (ConnectionError, ErrorCategory.UNAVAILABLE),
    (InterruptedError, ErrorCategory.UNAVAILABLE),
)

_ERRNOS: Mapping[int, ErrorCategory] = {
    errno.ENOENT: ErrorCategory.NOT_FOUND,
    errno.ENOTDIR: ErrorCategory.NOT_FOUND,
    errno.EEXIST: ErrorCategory.CONFLICT,
    errno.ENOTEMPTY: ErrorCategory.CONFLICT,
    errno.EBUSY: ErrorCategory.CONFLICT,
    errno.EACCES: ErrorCategory.PERMISSION_DENIED,
    errno.EPERM: ErrorCategory.PERMISSION_DENIED,
    errno.EROFS: ErrorCategory.PERMISSION_DENIED,
    errno.EAGAIN: ErrorCategory.UNAVAILABLE,
    errno.EINTR: ErrorCategory.UNAVAILABLE,
    errno.ECONNREFUSED: ErrorCategory.UNAVAILABLE,
    errno.ECONNRESET: ErrorCategory.UNAVAILABLE,
    errno.EHOSTUNREACH: ErrorCategory.UNAVAILABLE,
    errno.ENETUNREACH: ErrorCategory.UNAVAILABLE,
    errno.ETIMEDOUT: ErrorCategory.TIMEOUT,
    errno.EINVAL: ErrorCategory.INVALID_INPUT,
    errno.ECANCELED: ErrorCategory.CANCELLED,
}


_STATUSES: Mapping[int, ErrorCategory] = {
    400: ErrorCategory.INVALID_INPUT,
    422: ErrorCategory.INVALID_INPUT,
    401: ErrorCategory.PERMISSION_DENIED,
    403: ErrorCategory.PERMISSION_DENIED,
    404: ErrorCategory.NOT_FOUND,
    410: ErrorCategory.NOT_FOUND,
    408: ErrorCategory.TIMEOUT,
    504: ErrorCategory.TIMEOUT,
    409: ErrorCategory.CONFLICT,
    412: ErrorCategory.CONFLICT,
    429: ErrorCategory.RATE_LIMITED,
}


def _status_of(exc: BaseException) -> int | None:
    # httpx.HTTPStatusError (and requests' HTTPError) carry the response; read it without importing them.
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    return status if type(status) is int else None


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    getter = getattr(headers, "get", None)
    raw = getter("retry-after") if callable(getter) else None
    try:
        seconds = float(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    return seconds if seconds is not None and 0 <= seconds < 86_400 else None


def argument_issues(failure: ValueFailure) -> list[Value]:
    """
    The ``{path, message}`` issues of refused arguments, at most ``MAX_ISSUES`` within ``MAX_ISSUE_BYTES``;
    paths are rendered (``$["city"]``) with undeclared member names hidden, and no input value appears.
    """
    pairs: list[tuple[str, str]]
    match failure:
        case InvalidJson():
            pairs = [("$", failure.describe())]
        case SchemaRejected(errors=errors):
            pairs = [(render_redacted(e.path, e.hidden), e.reason.describe()) for e in errors]
        case DecodeRejected(decode_error=error):
            pairs = [(render_redacted(error.path, error.hidden), error.reason.describe())]
    issues: list[Value] = []
    used = 2
    for path, message in pairs[:MAX_ISSUES]:
        issue: dict[str, Value] = {"message": message, "path": path}
        size = len(render(issue).encode("utf-8")) + 1
        if used + size > MAX_ISSUE_BYTES:
            break
        used += size
        issues.append(issue)
    return issues


def tool_outcome_of(result: object, tool: str) -> ToolOutcome:
    """
    A tool's return value as an outcome: an outcome as it is, ``None`` an empty success, a string text,
    an attrs or dataclass record (encoded by its derived codec), a dict, list or scalar structured ``data``.
    A value that is no JSON is an ``internal`` failure.
    """
    if isinstance(result, ToolOutcome):
        return result
    if result is None:
        return ToolOutcome.success()
    if isinstance(result, str):
        return ToolOutcome.success(result)
    try:
        if attrs.has(type(result)) or dataclasses.is_dataclass(result):
            match _record_codec(type(result)).encode(result):
                case Err():
                    return _not_json(tool)
                case Ok(encoded):
                    return ToolOutcome.success(data=encoded)
        data = canonical(result)
        render(data)
    except (NotJson, DefinitionError, RecursionError):
        return _not_json(tool)
    return ToolOutcome.success(data=data)


def _record_codec(cls: type) -> Codec[Any]:
    # Derived once per record class: a cache that only grows with the classes tools return.
    found = _RECORDS.get(cls)
    if found is None:
        found = _RECORDS[cls] = _codec.derive(cls)
    return found


_RECORDS: dict[type, Codec[Any]] = {}


def _not_json(tool: str) -> ToolOutcome:
    message = f"tool {tool} returned a result that is not a JSON value"
    return ToolOutcome.failed(ErrorCategory.INTERNAL, ErrorCode.NOT_JSON, message, retryable=False)


def no_compensation(tool: str) -> ToolOutcome:
    """The ``internal`` outcome of compensating a tool that has no compensation handler."""
    message = f"tool {tool} has no compensation handler"
    return ToolOutcome.failed(ErrorCategory.INTERNAL, ErrorCode.NO_COMPENSATION, message, retryable=False)


def unknown_outcome_message(tool: str) -> str:
    """The words of ``ToolOutcome.unknown`` (and of a timeout ``ToolContract.retry_advice`` rewrites)."""
    return (
        f"the call to tool {tool} started but did not finish, and may have taken effect; its outcome is"
        " unknown and it was not run again because repeating it is not safe. Check whether its effect"
        " happened before calling it again."
    )


_public.rehome("llm_wire.agent", _FACE[__name__], globals())
