"""
Reading provider errors: the kind an HTTP status means, and the retry advice in the response headers.

``provider_error`` builds a ``response.ProviderError``, falling back on the HTTP status for the kind and
reading the retry headers (``x-should-retry``, ``retry-after-ms``, ``Retry-After`` in seconds or as an HTTP
date). Each API module's ``decode_error`` reads its own error body with ``lenient`` and these helpers.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from decimal import Decimal, InvalidOperation

from llm_wire.providers.response import ErrorKind, Headers, ProviderError, RetryAdvice
from llm_wire.result import Ok
from llm_wire.value import Limits, Value, parse

__all__ = ["header", "lenient", "provider_error", "seconds"]

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
            # Only an HTTP date needs ``email.utils``, which costs ~10 ms to load.
            from email.utils import parsedate_to_datetime

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
