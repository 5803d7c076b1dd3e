"""
Format codecs: strings in a known ``format`` decoded to Python values (``datetime``, ``date``, ``UUID``).

Decoding is strict: only the RFC 3339 / RFC 4122 spelling is accepted (no ISO 8601 variants, no braces or
``urn:uuid:``), and a string that is well formed but names no value (February 30th) is ``FormatMismatch``.
Encoding writes the canonical spelling, so ``decode(encode(x)) == Ok(x)``.
"""

from __future__ import annotations

import datetime as dt
import uuid as uuid_module
from collections.abc import Callable
from typing import Any

from llm_wire._fast import LazyPattern
from llm_wire.codec._core import Codec, _codec, _fixed
from llm_wire.codec._errors import _CodecFailure
from llm_wire.codec._reasons import EXPECTED_STRING, UnexpectedType
from llm_wire.reasons import FormatMismatch
from llm_wire.value import Value

_DATE = r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
_DATE_ONLY = LazyPattern(_DATE)
_DATE_TIME = LazyPattern(
    _DATE + r"[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,6}))?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))"
)
_UUID = LazyPattern(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_MINUTE = dt.timedelta(minutes=1)


def _string_codec(
    fmt: str, read: Callable[[str], Any], write: Callable[[Any], str], native: str
) -> Codec[Any]:
    """A ``format: fmt`` string codec: ``read`` returns ``None`` for a string not in the format."""
    wrong_format = FormatMismatch(fmt)
    wrong_type = UnexpectedType(native)

    def dec(v: Any) -> Any:
        if not isinstance(v, str):
            raise _CodecFailure(EXPECTED_STRING)
        found = read(v)
        if found is None:
            raise _CodecFailure(wrong_format)
        return found

    def enc(x: Any) -> Value:
        text = write(x)
        if not text:
            raise _CodecFailure(wrong_type)
        return text

    return _codec(dec, enc, _fixed(("type", "string"), ("format", fmt)), fmt)


def _read_date_time(text: str) -> dt.datetime | None:
    m = _DATE_TIME.fullmatch(text)
    if m is None:
        return None
    year, month, day, hour, minute, second, fraction, zulu, sign, off_hour, off_minute = m.groups()
    try:
        if zulu is not None:
            zone = dt.UTC
        else:
            if int(off_minute) > 59:
                return None
            offset = dt.timedelta(hours=int(off_hour), minutes=int(off_minute))
            zone = dt.timezone(-offset if sign == "-" else offset)
        micro = int(fraction.ljust(6, "0")) if fraction is not None else 0
        return dt.datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tzinfo=zone
        )
    except ValueError:  # a day, hour or offset out of range; a leap second (Python has none)
        return None


def _write_date_time(x: Any) -> str:
    if not isinstance(x, dt.datetime):
        return ""
    offset = x.utcoffset()
    if offset is None or offset % _MINUTE:  # naive, or an offset RFC 3339 cannot write (seconds)
        return ""
    return x.isoformat()


def date_time() -> Codec[dt.datetime]:
    """
    An RFC 3339 ``date-time`` string as a timezone-aware ``datetime`` (``format: date-time``).

    Decoding needs the offset (``Z`` or ``+01:00``) and at most six fraction digits (microseconds); a leap
    second (``:60``) is refused, as ``datetime`` has none. Encoding writes ``isoformat()`` and refuses a naive
    ``datetime`` (``UnexpectedType``).
    """
    return _string_codec("date-time", _read_date_time, _write_date_time, "timezone-aware datetime")


def _read_date(text: str) -> dt.date | None:
    m = _DATE_ONLY.fullmatch(text)
    if m is None:
        return None
    try:
        return dt.date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None


def _write_date(x: Any) -> str:
    return "" if not isinstance(x, dt.date) or isinstance(x, dt.datetime) else x.isoformat()


def date() -> Codec[dt.date]:
    """
    An RFC 3339 ``full-date`` string (``2026-03-01``) as a ``date`` (``format: date``); a ``datetime``, though
    a ``date`` subclass, does not encode.
    """
    return _string_codec("date", _read_date, _write_date, "date")


def _read_uuid(text: str) -> uuid_module.UUID | None:
    return uuid_module.UUID(text) if _UUID.fullmatch(text) is not None else None


def _write_uuid(x: Any) -> str:
    return str(x) if isinstance(x, uuid_module.UUID) else ""


def uuid() -> Codec[uuid_module.UUID]:
    """
    An RFC 4122 UUID string, hyphenated, either case (``format: uuid``), as a ``UUID``; encodes lowercase.
    """
    return _string_codec("uuid", _read_uuid, _write_uuid, "UUID")
