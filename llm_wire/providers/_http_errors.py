"""
Reading provider errors: the kind an HTTP status means, and the retry advice in the response headers.

``provider_error`` builds a ``response.ProviderError``, falling back on the HTTP status for the kind and
reading the retry headers (``x-should-retry``, ``retry-after-ms``, ``Retry-After`` in seconds or as an HTTP
date in any of the three forms of RFC 9110 section 5.6.7, read as an aware UTC time). Each API module's
``decode_error`` reads its own error body with ``lenient`` and these helpers.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal, InvalidOperation

from llm_wire._fast import LazyPattern
from llm_wire.providers.response import ErrorKind, ProviderError, RetryAdvice, _Headers
from llm_wire.result import Ok
from llm_wire.value import Limits, Value, parse

__all__ = ["LONGEST", "header", "http_date", "lenient", "provider_error", "seconds"]

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


def header(headers: _Headers | None, name: str) -> str | None:
    """The first value of header ``name`` (case-insensitive), or ``None``."""
    pairs = () if headers is None else headers.items() if isinstance(headers, Mapping) else headers
    return next(
        (v for k, v in pairs if isinstance(k, str) and isinstance(v, str) and k.lower() == name), None
    )


#: What a delay too large to hold stands for: longer than any retry policy waits.
LONGEST = timedelta(days=36_500)


def seconds(text: str, scale: int = 1) -> timedelta | None:
    """
    ``text`` as a non-negative decimal number of ``1/scale`` seconds, at most ``LONGEST`` (a huge number is
    a very long wait, not none), or ``None``.
    """
    text = text.strip().removesuffix("s")
    if len(text) > 20:
        return LONGEST if text.isascii() and text.isdigit() else None
    if not text:
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    if not number.is_finite() or number < 0:
        return None
    if number.adjusted() > 9:
        return LONGEST
    return min(timedelta(microseconds=int(number * 1_000_000 / scale)), LONGEST)


_MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTHS = {name: n for n, name in enumerate(_MONTH_NAMES, 1)}
_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})"
#: ``Sun, 06 Nov 1994 08:49:37 GMT`` (a numeric zone such as ``-0000`` is read too).
_IMF_FIXDATE = LazyPattern(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), ([0-9]{2}) ([A-Z][a-z]{2}) ([0-9]{4}) "
    + _TIME
    + r" (GMT|UTC|[+-][0-9]{4})"
)
#: ``Sunday, 06-Nov-94 08:49:37 GMT``.
_RFC850_DATE = LazyPattern(
    r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), ([0-9]{2})-([A-Z][a-z]{2})-([0-9]{2}) "
    + _TIME
    + r" GMT"
)
#: ``Sun Nov  6 08:49:37 1994``.
_ASCTIME_DATE = LazyPattern(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ([ 0-9][0-9]) " + _TIME + r" ([0-9]{4})"
)


def http_date(text: str) -> datetime | None:
    """
    An HTTP date (IMF-fixdate, RFC 850 or asctime) as an aware UTC datetime, or ``None`` when ``text`` is
    none of them or names no real time. A two-digit year more than 50 years ahead is the last century's.
    """
    text = text.strip()
    if len(text) > 40:
        return None
    zone = "GMT"
    if (match := _IMF_FIXDATE.fullmatch(text)) is not None:
        day, month, year, hour, minute, second, zone = match.groups()
    elif (match := _RFC850_DATE.fullmatch(text)) is not None:
        day, month, year, hour, minute, second = match.groups()
        this_year = datetime.now(UTC).year
        full = this_year - this_year % 100 + int(year)
        year = str(full - 100 if full > this_year + 50 else full)
    elif (match := _ASCTIME_DATE.fullmatch(text)) is not None:
        month, day, hour, minute, second, year = match.groups()
    else:
        return None
    if month not in _MONTHS:
        return None
    offset = timedelta(0)
    if zone[0] in "+-":
        offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:]))
        offset = -offset if zone[0] == "-" else offset
    try:
        # A leap second (``:60``) is read as the second before it.
        moment = datetime(
            int(year),
            _MONTHS[month],
            int(day),
            int(hour),
            int(minute),
            min(int(second), 59),
            tzinfo=timezone(offset),
        )
        return moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def provider_error(
    status: int | None,
    headers: _Headers | None,
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
            at = http_date(after)
    request_id = request_id or header(headers, "request-id") or header(headers, "x-request-id")
    return ProviderError(kind, status, code, RetryAdvice(retryable, delay, at), message, request_id)


def lenient(body: bytes | str | Value, max_bytes: int) -> Value:
    """A body parsed when it is JSON text, as it is when already parsed, else ``None``."""
    if isinstance(body, bytes | bytearray | str):
        parsed = parse(bytes(body) if isinstance(body, bytearray) else body, Limits(max_bytes=max_bytes))
        return parsed.value if isinstance(parsed, Ok) else None
    return body
