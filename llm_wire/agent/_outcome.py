"""
``ToolOutcome``: what one tool call produced, and the canonical JSON the model sees of it.

A success carries text (``content``), structured ``data`` and ``artifacts``; a failure carries a
``ToolFailure`` with a semantic ``ErrorCategory``, a stable string code, a message written for the model, a
retry hint and bounded ``details``. ``metadata`` is for logs and callbacks and never reaches the model.
"""

from __future__ import annotations

import enum
import errno
import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from attrs import field, frozen

from llm_wire.value import NotJson, Value, render

__all__ = [
    "ErrorCategory",
    "ErrorCode",
    "ToolFailure",
    "ToolOutcome",
    "category_for_exception",
    "category_for_status",
    "check_types",
    "outcome_for_exception",
]


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


class ErrorCode(enum.StrEnum):
    """The runner's own stable failure codes (a provider may use its own strings beside them)."""

    INVALID_ARGUMENTS = "invalid_arguments"
    UNKNOWN_TOOL = "unknown_tool"
    NOT_ACTIVATED = "not_activated"
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
class ToolFailure:
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

    def __str__(self) -> str:
        return self.describe()


def _metadata(value: Mapping[str, str]) -> Mapping[str, str]:
    return dict(value)


@frozen
class ToolOutcome:
    """
    One tool call's result: a success (``failure is None``) with ``content``, ``data`` and ``artifacts``,
    or a failure. Make one with ``ToolOutcome.success`` or ``ToolOutcome.failed``.
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


def category_for_status(status: int) -> ErrorCategory:
    """
    The category of an HTTP status a tool met: 400/422 ``invalid_input``, 401/403 ``permission_denied``,
    404/410 ``not_found``, 408/504 ``timeout``, 409/412 ``conflict``, 429 ``rate_limited``, other 5xx
    ``unavailable``, anything else ``internal``.
    """
    if type(status) is not int:
        raise TypeError(f"status must be an int, not {type(status).__name__}")
    return _STATUSES.get(status) or (
        ErrorCategory.UNAVAILABLE if 500 <= status < 600 else ErrorCategory.INTERNAL
    )


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


def category_for_exception(exc: BaseException) -> ErrorCategory:
    """
    The category of an exception raised by a tool: timeouts, missing and existing files, permissions,
    temporary unavailability and HTTP statuses by their meaning, an ``OSError`` by its errno, and anything
    else (a bug in the tool) ``internal``.
    """
    status = _status_of(exc)
    if status is not None:
        return category_for_status(status)
    for kind, category in _EXCEPTIONS:
        if isinstance(exc, kind):
            return category
    if isinstance(exc, OSError) and exc.errno is not None:
        return _ERRNOS.get(exc.errno, ErrorCategory.INTERNAL)
    return ErrorCategory.INTERNAL


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    getter = getattr(headers, "get", None)
    raw = getter("retry-after") if callable(getter) else None
    try:
        seconds = float(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    return seconds if seconds is not None and 0 <= seconds < 86_400 else None


def outcome_for_exception(exc: BaseException, tool: str) -> ToolOutcome:
    """
    The failure for an exception a tool raised: its category from ``category_for_exception`` and a
    sanitized message naming the tool and the exception type, never the exception's own text (which may
    hold secrets or paths; the runner logs it only by option).
    """
    category = category_for_exception(exc)
    code = ErrorCode.TOOL_CRASHED if category is ErrorCategory.INTERNAL else ErrorCode(category.value)
    status = _status_of(exc)
    kind = type(exc).__name__
    if status is not None:
        message = f"tool {tool} failed: its service answered HTTP {status}"
    elif category is ErrorCategory.INTERNAL:
        message = f"tool {tool} failed unexpectedly ({kind}); the failure is not caused by the arguments"
    else:
        message = f"tool {tool} failed: {category.value.replace('_', ' ')} ({kind})"
    outcome = ToolOutcome.failed(category, code, message, retry_after=_retry_after(exc))
    return outcome.with_metadata(tool_exception=kind)
