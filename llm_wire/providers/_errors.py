"""
Provider errors: what a provider's HTTP error body or error event means, and whether to try again.

``ProviderError`` is the typed error: its ``ErrorKind``, the HTTP status, the provider's code and
``RetryAdvice``. ``provider_error`` builds one, falling back on the HTTP status for the kind and reading the
retry headers (``x-should-retry``, ``retry-after-ms``, ``Retry-After`` in seconds or as an HTTP date).
``ResponseError`` is every way a response can fail: a protocol violation, a reached bound, or a
``ProviderError``. Each provider module's ``decode_error`` reads its own error body with ``lenient`` and
these helpers.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from email.utils import parsedate_to_datetime
from typing import TypeAlias

from attrs import field, frozen

from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.result import Ok
from llm_wire.value import Limits, Value, parse

__all__ = [
    "ErrorKind",
    "Headers",
    "ProviderError",
    "ResponseError",
    "RetryAdvice",
    "header",
    "lenient",
    "provider_error",
    "seconds",
]


class ErrorKind(enum.Enum):
    """What kind of failure a provider reported."""

    INVALID_REQUEST = "invalid_request"
    AUTHENTICATION = "authentication"
    PERMISSION = "permission"
    NOT_FOUND = "not_found"
    REQUEST_TOO_LARGE = "request_too_large"
    RATE_LIMITED = "rate_limited"
    OVERLOADED = "overloaded"
    SERVER = "server"
    TIMEOUT = "timeout"
    #: The provider accepted the request but the model did not produce a usable response.
    RESPONSE_FAILED = "response_failed"
    UNKNOWN = "unknown"


_RETRYABLE = {ErrorKind.RATE_LIMITED, ErrorKind.OVERLOADED, ErrorKind.SERVER, ErrorKind.TIMEOUT}

_BY_STATUS = {
    400: ErrorKind.INVALID_REQUEST,
    401: ErrorKind.AUTHENTICATION,
    403: ErrorKind.PERMISSION,
    404: ErrorKind.NOT_FOUND,
    408: ErrorKind.TIMEOUT,
    409: ErrorKind.SERVER,
    413: ErrorKind.REQUEST_TOO_LARGE,
    422: ErrorKind.INVALID_REQUEST,
    429: ErrorKind.RATE_LIMITED,
    503: ErrorKind.OVERLOADED,
    504: ErrorKind.TIMEOUT,
    529: ErrorKind.OVERLOADED,
}


@frozen
class RetryAdvice:
    """
    Whether sending the same request again may succeed, and when the provider asked to be tried again.
    """

    retryable: bool
    #: ``Retry-After`` seconds, ``retry-after-ms``, or Gemini's ``RetryInfo.retryDelay``.
    delay: timedelta | None = None
    #: ``Retry-After`` given as an HTTP date.
    at: datetime | None = None


@frozen
class ProviderError:
    """
    The provider refused the request or failed the response: an HTTP error body or an error event.

    ``message`` is the provider's own text; it may quote the request, so ``describe`` leaves it out.
    """

    kind: ErrorKind
    #: The HTTP status; ``None`` for an error met inside a response or stream.
    status: int | None
    #: The provider's error type or code (``rate_limit_error``, ``RESOURCE_EXHAUSTED``, ``MAX_TOKENS``…).
    code: str | None
    retry: RetryAdvice
    message: str | None = field(default=None, eq=False)
    request_id: str | None = field(default=None, eq=False)

    @property
    def name(self) -> str:
        """``provider.<kind>``."""
        return f"provider.{self.kind.value}"

    def describe(self) -> str:
        """Kind, status, code and retry advice as text; never the provider's message."""
        parts = [f"provider error: {self.kind.value}"]
        if self.status is not None:
            parts.append(f"HTTP {self.status}")
        if self.code is not None:
            parts.append(self.code)
        advice = "retryable" if self.retry.retryable else "not retryable"
        if self.retry.delay is not None:
            advice += f" after {self.retry.delay.total_seconds():g}s"
        elif self.retry.at is not None:
            advice += f" at {self.retry.at.isoformat()}"
        return f"{', '.join(parts)} ({advice})"


ResponseError: TypeAlias = ProtocolError | LimitExceeded | ProviderError

#: Response headers: a mapping (any key case) or name/value pairs.
Headers: TypeAlias = Mapping[str, str] | Iterable[tuple[str, str]]


def header(headers: Headers | None, name: str) -> str | None:
    """The first value of header ``name`` (case-insensitive), or ``None``."""
    pairs = () if headers is None else headers.items() if isinstance(headers, Mapping) else headers
    return next(
        (v for k, v in pairs if isinstance(k, str) and isinstance(v, str) and k.lower() == name), None
    )


def seconds(text: str, scale: int = 1) -> timedelta | None:
    """``text`` as a non-negative decimal number of ``1/scale`` seconds, or ``None``."""
    text = text.strip().removesuffix("s")
    if not 0 < len(text) <= 20:
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    if not number.is_finite() or number < 0 or number.adjusted() > 9:
        return None
    return timedelta(microseconds=int(number * 1_000_000 / scale))


def provider_error(
    status: int | None,
    headers: Headers | None,
    kind: ErrorKind | None,
    code: str | None,
    message: str | None,
    *,
    request_id: str | None = None,
    delay: timedelta | None = None,
) -> ProviderError:
    """A ``ProviderError`` whose kind falls back on the status and whose advice reads the retry headers."""
    if kind is None:
        if status is None:
            kind = ErrorKind.UNKNOWN
        else:
            kind = _BY_STATUS.get(status, ErrorKind.SERVER if status >= 500 else ErrorKind.UNKNOWN)
    retryable = kind in _RETRYABLE and code != "insufficient_quota"
    should = header(headers, "x-should-retry")
    if should in ("true", "false"):
        retryable = should == "true"
    at = None
    ms = header(headers, "retry-after-ms")
    after = header(headers, "retry-after")
    from_ms = None if ms is None else seconds(ms, 1000)
    delay = delay if from_ms is None else from_ms
    if after is not None and delay is None:
        delay = seconds(after)
        if delay is None:
            try:
                at = parsedate_to_datetime(after)
            except (TypeError, ValueError, IndexError, OverflowError):
                at = None
    request_id = request_id or header(headers, "request-id") or header(headers, "x-request-id")
    return ProviderError(kind, status, code, RetryAdvice(retryable, delay, at), message, request_id)


def lenient(body: bytes | str | Value, max_bytes: int) -> Value:
    """A body parsed when it is JSON text, as it is when already parsed, else ``None``."""
    if isinstance(body, bytes | bytearray | str):
        parsed = parse(bytes(body) if isinstance(body, bytearray) else body, Limits(max_bytes=max_bytes))
        return parsed.value if isinstance(parsed, Ok) else None
    return body
