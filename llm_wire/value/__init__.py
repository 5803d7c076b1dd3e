"""
Exact JSON values: a strict, bounded parser, compact exact rendering, and paths.

A parsed value is plain Python: ``None | bool | str | int | Decimal | list | dict``. Integer tokens become
``int`` and every other number token ``Decimal``, never ``float``. Parsing refuses everything RFC 8259 does
not allow (and duplicate keys, lone surrogates and a byte order mark), with a location and a typed reason,
and never lets a Python exception escape.

The engine is two-speed. A native reader parses valid documents at native speed: jiter (Rust, strict:
duplicate keys, lone surrogates, NaN and trailing content refused, numbers exact), or the standard library's
C scanner with hooks when a cheap pre-scan finds a number token that may break a limit. An exact pure-Python
parser takes over for everything they decline, so every error is located and explained by one
implementation.

The parts: ``_records`` (the value types, ``Limits``, ``ParseError``), ``_parse`` (``parse`` and the fast
engine), ``_exact`` (the exact engine) and ``_render`` (rendering and paths).
"""

from __future__ import annotations

from llm_wire import _public
from llm_wire import error as _error
from llm_wire.value._parse import parse
from llm_wire.value._records import (
    DEFAULT,
    DuplicateKey,
    Limits,
    Location,
    ParseError,
    ParseReason,
    Path,
    PlainValue,
    Syntax,
    Value,
    is_limit_exceeded,
)
from llm_wire.value._render import NotJson, UnrepresentableNumber, pointer, render, render_path, to_plain

__all__ = [
    "DEFAULT",
    "DuplicateKey",
    "Limits",
    "Location",
    "NotJson",
    "ParseError",
    "ParseReason",
    "Path",
    "PlainValue",
    "Syntax",
    "UnrepresentableNumber",
    "Value",
    "is_limit_exceeded",
    "parse",
    "pointer",
    "render",
    "render_path",
    "to_plain",
]

_public.rehome(__name__, __all__, globals())

# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
LimitExceeded = _error.LimitExceeded
