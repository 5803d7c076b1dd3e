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
"""

from __future__ import annotations

import decimal
import enum
import functools
import json
import re
import sys
from collections.abc import Callable
from decimal import Decimal
from itertools import chain, compress, repeat
from typing import Any, TypeAlias

import jiter
from attrs import evolve, frozen

from llm_wire._checks import positive as _positive
from llm_wire._fast import Lean
from llm_wire.error import LimitExceeded
from llm_wire.result import Err, Ok, Result

__all__ = [
    "DEFAULT",
    "DuplicateKey",
    "LimitExceeded",
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
    "parse_value",
    "pointer",
    "render",
    "render_path",
    "to_plain",
]

Value: TypeAlias = "bool | str | int | Decimal | list[Value] | dict[str, Value] | None"

#: A value for ``json.dumps`` and SDKs: numbers are ``int`` and ``float`` (``to_plain``).
PlainValue: TypeAlias = "bool | str | int | float | list[PlainValue] | dict[str, PlainValue] | None"

#: A location inside a value: object member names and array indexes, outermost first.
Path: TypeAlias = tuple[str | int, ...]


@frozen
class Limits:
    """
    Bounds on what ``parse`` accepts. Each ``with_*`` returns a copy with one bound changed.
    """

    #: Size of the document in UTF-8 bytes.
    max_bytes: int = 1024 * 1024
    #: Nesting depth of arrays and objects.
    max_depth: int = 64
    #: Number of values: containers and scalars (member names are not values).
    max_values: int = 262_144
    #: Length of one number token in bytes.
    max_number_bytes: int = 1024
    #: Significant digits of one number (leading zeros are not significant).
    max_number_digits: int = 800
    #: Largest absolute exponent written in a number token.
    max_exponent: int = 1200

    def with_max_bytes(self, n: int) -> Limits:
        """Allow documents of up to ``n`` UTF-8 bytes."""
        return evolve(self, max_bytes=_positive(n))

    def with_max_depth(self, n: int) -> Limits:
        """Allow nesting up to ``n`` levels."""
        return evolve(self, max_depth=_positive(n))

    def with_max_values(self, n: int) -> Limits:
        """Allow up to ``n`` values in one document."""
        return evolve(self, max_values=_positive(n))

    def with_max_number_bytes(self, n: int) -> Limits:
        """Allow number tokens of up to ``n`` bytes."""
        return evolve(self, max_number_bytes=_positive(n))

    def with_max_number_digits(self, n: int) -> Limits:
        """Allow numbers with up to ``n`` significant digits."""
        return evolve(self, max_number_digits=_positive(n))

    def with_max_exponent(self, n: int) -> Limits:
        """Allow exponents up to ``n`` in absolute value."""
        return evolve(self, max_exponent=_positive(n))


#: The default limits: 1 MiB, depth 64, 262,144 values, numbers of 1,024 bytes / 800 digits / exponent 1,200.
DEFAULT = Limits()


class Syntax(enum.Enum):
    """
    Why a document is not strict JSON (limits aside).
    """

    EXPECTED_VALUE = "expected a JSON value"
    UNEXPECTED_END = "unexpected end of input"
    EXPECTED_COMMA_OR_BRACKET = "expected ',' or ']'"
    EXPECTED_COMMA_OR_BRACE = "expected ',' or '}'"
    EXPECTED_KEY = "expected a string key in double quotes"
    EXPECTED_COLON = "expected ':'"
    TRAILING_CONTENT = "unexpected content after the JSON value"
    TRAILING_COMMA = "trailing comma"
    COMMENT = "comments are not allowed"
    SINGLE_QUOTE = "strings must use double quotes"
    NON_FINITE = "NaN and Infinity are not JSON numbers"
    LEADING_ZERO = "numbers must not have leading zeros"
    PLUS_SIGN = "numbers must not start with '+'"
    INVALID_NUMBER = "invalid number"
    CONTROL_CHARACTER = "unescaped control character in a string"
    INVALID_ESCAPE = "invalid escape sequence"
    LONE_SURROGATE = "unpaired UTF-16 surrogate"
    UNTERMINATED_STRING = "unterminated string"
    INVALID_UTF8 = "invalid UTF-8"
    BYTE_ORDER_MARK = "a byte order mark is not allowed"

    def describe(self) -> str:
        """The reason as text."""
        return self.value

    def __str__(self) -> str:
        return self.describe()


@frozen
class DuplicateKey(Lean):
    """
    An object names the same member twice (compared after unescaping). ``key`` never reaches the text.
    """

    key: str

    def describe(self) -> str:
        """The reason as text."""
        return "duplicate object key"

    def __str__(self) -> str:
        return self.describe()


_LIMIT_TEXT = {
    "with_max_bytes": "document size in bytes",
    "with_max_depth": "nesting depth",
    "with_max_values": "number of values",
    "with_max_number_bytes": "number length in bytes",
    "with_max_number_digits": "significant digits of a number",
    "with_max_exponent": "exponent of a number",
}


def _over(method: str, maximum: int) -> LimitExceeded:
    """The parser's limit error: ``method`` is the ``Limits`` method that raises ``maximum``."""
    return LimitExceeded(f"Limits.{method}", maximum, what=_LIMIT_TEXT[method])


ParseReason: TypeAlias = Syntax | DuplicateKey | LimitExceeded


@frozen
class Location(Lean):
    """
    Where a problem starts: UTF-8 byte offset from 0, then line and column (code points) from 1.
    """

    byte_offset: int
    line: int
    column: int


@frozen
class ParseError(Lean):
    """
    A document that ``parse`` refused: where and why. Its text never contains input.
    """

    location: Location
    reason: ParseReason

    def describe(self) -> str:
        """``invalid JSON at line L, column C: reason``."""
        loc = self.location
        return f"invalid JSON at line {loc.line}, column {loc.column}: {self.reason.describe()}"

    def __str__(self) -> str:
        return self.describe()


def is_limit_exceeded(error: ParseError) -> bool:
    """
    Whether ``error`` says "too large" rather than "invalid".
    """
    return isinstance(error.reason, LimitExceeded)


class _Fail(Exception):
    def __init__(self, index: int, reason: ParseReason) -> None:
        self.index = index
        self.reason = reason


_START = Location(0, 1, 1)


def parse(text: str | bytes, limits: Limits = DEFAULT) -> Result[Value, ParseError]:
    """
    Parse exactly one strict JSON document; ``Err(ParseError)`` for anything else.
    """
    parsed = parse_value(text, limits)
    return Err(parsed) if isinstance(parsed, ParseError) else Ok(parsed)


def parse_value(text: str | bytes, limits: Limits = DEFAULT) -> Value | ParseError:
    """
    ``parse`` without the ``Result``: the value, or the ``ParseError`` (which is never a JSON value). For hot
    loops such as admission, which parses every call's arguments and needs no wrapper.
    """
    data: bytes | None = None
    if isinstance(text, str):
        source = text
        # The byte limit comes first and costs O(1) for ASCII: a character is at least one UTF-8 byte.
        if len(source) > limits.max_bytes:
            return ParseError(_START, _over("with_max_bytes", limits.max_bytes))
        if not source.isascii():
            if len(source) * 4 > limits.max_bytes and (
                len(source.encode("utf-8", "surrogatepass")) > limits.max_bytes
            ):
                return ParseError(_START, _over("with_max_bytes", limits.max_bytes))
            try:
                data = source.encode("utf-8")
            except UnicodeEncodeError as exc:
                return ParseError(_location(source, exc.start), Syntax.LONE_SURROGATE)
            if source[0] == "\ufeff":
                return ParseError(_START, Syntax.BYTE_ORDER_MARK)
    elif isinstance(text, bytes | bytearray | memoryview):
        data = bytes(text)
        if len(data) > limits.max_bytes:
            return ParseError(_START, _over("with_max_bytes", limits.max_bytes))
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return ParseError(_byte_location(data, exc.start), Syntax.INVALID_UTF8)
        if source.startswith("\ufeff"):
            return ParseError(_START, Syntax.BYTE_ORDER_MARK)
    else:
        msg = "parse takes str or bytes"
        raise TypeError(msg)
    # The fast engines first, inline: every call's arguments come this way. ``data`` is ``source`` in UTF-8:
    # the text above encoded what is not ASCII already, and ASCII encodes as a plain copy.
    if data is None:
        data = source.encode()
    engine = _DEFAULT_ENGINE if limits is DEFAULT else _fast_engine(limits)
    # jiter keeps every number but checks no number limit. A token that may break one holds a run of at
    # least ``long_run`` digits, or an exponent of ``exponent_digits`` (see ``_FastEngine``): look for
    # those in the document's number shapes (one ``translate``, then a few ``memmem``).
    # A large document with no digit at all is common (prose, code): ten ``memchr`` rule it out cheaply.
    shapes = None
    fast: tuple[Value] | None
    if len(data) <= _COUNTED or any(digit in data for digit in _DIGIT_BYTES):
        # Commas bound the values; a document of many shows it in its first kibibyte, for a short count.
        if (
            len(data) >= engine.long_int_from
            and data.count(b",", 0, 1024) < _FEW_COMMAS
            and data.count(b",") < _FEW_COMMAS
        ):
            fast = _few_values(data, engine, limits)
            if fast is not None:
                return fast[0]
        # Searched as ``str``: ``in`` on ``bytes`` tries its operand as an int first, several times slower.
        shapes = data.translate(_SHAPES).decode("ascii")
        if engine.shortest_run in shapes:
            if len(data) < engine.long_int_from:  # no integer token is that long: only an exponent may be
                if engine.bare_exponent in shapes or engine.signed_exponent in shapes:
                    fast = _short(source, engine, limits)
                    return _exact(source, limits) if fast is None else fast[0]
            else:
                suspects = engine.suspects(shapes)
                if suspects is None or (suspects and not _inside_strings(data, suspects)):
                    fast = _scanned(source, engine, limits)
                    return _exact(source, limits) if fast is None else fast[0]
    if len(data) <= engine.small:  # as ``_native`` reads it, with nothing to count
        try:
            return _from_json(  # type: ignore[no-any-return]
                data, catch_duplicate_keys=True, float_mode="decimal", allow_inf_nan=False, cache_mode="keys"
            )
        except ValueError:
            return _exact(source, limits)
    fast = _native(data, engine, limits, shapes)
    return _exact(source, limits) if fast is None else fast[0]


def _exact(source: str, limits: Limits) -> Value | ParseError:
    """The exact engine: the value, or the error located and explained."""
    try:
        return _Parser(source, limits).run()
    except _Fail as fail:
        return ParseError(_location(source, fail.index), fail.reason)


# ---------------------------------------------------------------------------------------------------------
# Fast engine: the stdlib C scanner with hooks, trusted only where it enforces every rule.
#
# With ``strict=True`` the scanner already refuses what RFC 8259 refuses (control characters, bad escapes,
# leading zeros, trailing commas, comments, single quotes). The hooks and checks below cover the rest:
# duplicate keys (``_object``, or a count of ":" when there is at most one object), NaN and Infinity
# (``_constant``), the number limits of non-integer numbers (``_FastEngine.number``: every such token passes
# through it), and after the scan the trailing content, the depth and the value count. What the scanner
# cannot see is found by a cheap pre-scan that hands the document to the exact engine: surrogate escapes that
# are not high-low pairs (the scanner accepts lone ones) and integer tokens long enough to break a number
# limit (the scanner converts them without a hook).


class _Fallback(Exception):
    """The fast engine met something that only the exact parser may judge."""


def _object(pairs: list[tuple[str, Value]]) -> dict[str, Value]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Fallback
    return obj


def _constant(_: str) -> Value:
    raise _Fallback


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# Escaped backslashes are matched too, so that scanning from the left finds only real escapes.
_SURROGATE_OR_BACKSLASH = re.compile(r"\\\\|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _surrogates_paired(source: str) -> bool:
    """
    Whether every surrogate escape is a high one directly followed by a low one: the pairs the scanner
    decodes right. (It also accepts lone ones, which only the exact parser refuses with a location.)
    """
    low_at = -1  # where the low half must start, after a high one
    for match in _SURROGATE_OR_BACKSLASH.finditer(source):
        escape = match.group()
        if low_at >= 0:
            if match.start() != low_at or escape == "\\\\" or escape[3] in "89abAB":
                return False
            low_at = -1
        elif escape != "\\\\":
            if escape[3] not in "89abAB":
                return False
            low_at = match.end()
    return low_at < 0


_WS = re.compile(r"[ \t\n\r]*")
_WS_CHARS = " \t\n\r"


def _jiter(data: bytes) -> Value:
    """
    jiter, strict: duplicate keys refused, numbers exact (``Decimal``), no NaN; dict keys cached (its cache
    only ever returns equal strings). The hot path writes the same call out: a frame (or a ``partial``,
    which merges keywords) costs a good share of a short read.
    """
    return _from_json(  # type: ignore[no-any-return]
        data, catch_duplicate_keys=True, float_mode="decimal", allow_inf_nan=False, cache_mode="keys"
    )


_from_json = jiter.from_json


def _jiter_depth() -> int:
    """
    The deepest nesting jiter reads, found by asking it: arrays nested this deep with a value inside parse,
    one more does not, and neither does one more with nothing inside. 0 when jiter has no such limit here.
    """

    def reads(depth: int, inner: bytes) -> bool:
        try:
            _jiter(b"[" * depth + inner + b"]" * depth)
        except ValueError:
            return False
        return True

    low, high = 1, 4096
    if reads(high, b"1"):
        return 0
    while high - low > 1:  # reads(low) holds and reads(high) does not
        middle = (low + high) // 2
        low, high = (middle, high) if reads(middle, b"1") else (low, middle)
    return low if not reads(low + 2, b"") else 0


_JITER_DEPTH = _jiter_depth()


class _FastEngine:
    """The fast readers set up for one ``Limits``: jiter, and the C scanner with number hooks."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        # A non-integer token this short, without an exponent, is within the byte and digit limits.
        self.short_number = min(limits.max_number_bytes, limits.max_number_digits)
        # A number token is a sign, up to three runs of digits (integer, fraction, exponent) and up to three
        # marks. To pass the digit limit its two mantissa runs hold more than ``max_number_digits``, and to
        # pass the byte limit its runs hold more than ``max_number_bytes - 3``: either way one run is at
        # least ``long_run`` long. To pass ``max_exponent`` its exponent has ``exponent_digits`` or more.
        digits, size = limits.max_number_digits, limits.max_number_bytes
        long_run = max(1, min(-(-(digits + 1) // 2), -(-(size - 3) // 3)))
        self.long_run = "0" * long_run
        exponent_digits = len(str(limits.max_exponent))
        zeros = "0" * exponent_digits
        self.exponent_digits = zeros
        self.long_exponent = re.compile(r"0e\+?" + zeros)  # a digit comes first: a faster search
        # An exponent that long as a number writes it: after a digit, with or without a sign. (An id such
        # as "fc_68ebe7381" has a letter before its "e".)
        self.bare_exponent, self.signed_exponent = "0e" + zeros, "0e+" + zeros
        # Either kind holds at least this run of digits.
        self.shortest_run = "0" * min(long_run, exponent_digits)
        # An integer token with fewer digits than this is within the byte and digit limits.
        self.long_int_from = max(1, min(digits + 1, size))
        # An integer of at most this many bits has few enough digits for the digit and byte limits: its
        # digits are at most ``floor(bits * log10(2)) + 1``, and 0.30103 is just over log10(2).
        self.int_bits = (min(digits, size - 1) - 1) * 100_000 // 30_103
        # ``max_depth`` for jiter: extra arrays around the document that use up the rest of its own limit.
        self.padding = max(0, _JITER_DEPTH + 1 - limits.max_depth) if _JITER_DEPTH else 0
        # Without padding, jiter's own limit is enough when ``max_depth`` is at least one more.
        self.deep_enough = bool(_JITER_DEPTH) and limits.max_depth > _JITER_DEPTH
        # A document this short nests at most ``max_depth`` deep (each level takes two brackets) and holds
        # at most ``max_values`` values: jiter's reading needs no check of either.
        self.small = min(2 * limits.max_depth, limits.max_values)
        self.open_pad = b"[" * self.padding
        self.close_pad = b"]" * self.padding
        # The C scanner with the duplicate-key hook, and without it for documents with at most one object
        # (``_short``); then with a hook on every number token, for documents that may break a number limit.
        hooked = json.JSONDecoder(
            object_pairs_hook=_object, parse_float=self.number, parse_constant=_constant, strict=True
        )
        self.scan_once: Callable[[str, int], tuple[Value, int]] = hooked.scan_once  # type: ignore[attr-defined]
        unhooked = json.JSONDecoder(parse_float=self.number, parse_constant=_constant, strict=True)
        self.scan_unhooked: Callable[[str, int], tuple[Value, int]] = unhooked.scan_once  # type: ignore[attr-defined]
        checked = json.JSONDecoder(
            object_pairs_hook=_object,
            parse_float=self.number,
            parse_int=self.integer,
            parse_constant=_constant,
            strict=True,
        )
        self.scan_checked: Callable[[str, int], tuple[Value, int]] = checked.scan_once  # type: ignore[attr-defined]

    def suspects(self, shapes: str) -> list[int] | None:
        """
        Where a number token may break a limit, in a document seen through ``_SHAPES``: the start of each run
        of at least ``long_run`` digits, and each exponent of ``exponent_digits`` digits or more. ``None``
        when there are more than ``_SUSPECTS`` such places.
        """
        found: list[int] = []
        run = self.long_run
        # ``find`` prepares a long needle in time of its length: not for a document shorter than it.
        at = shapes.find(run) if len(shapes) >= len(run) else -1
        while at >= 0:  # the first run of zeros found from ``at`` on starts a run of digits
            found.append(at)
            if len(found) > _SUSPECTS:
                return None
            # Go on after the next byte that is no digit, exponent mark, sign or bracket. What lies before it
            # shares the place found: inside the same string, or in a token the careful scan reads anyway.
            end = shapes.find(".", at)
            at = shapes.find(run, end) if end >= 0 else -1
        if self.exponent_digits in shapes and (
            len(shapes) > _FEW_BYTES or self.bare_exponent in shapes or self.signed_exponent in shapes
        ):
            # A regular expression, not ``find``: ``find`` of "e0000" is slow in a long run of zeros.
            for match in self.long_exponent.finditer(shapes):
                found.append(match.start())
                if len(found) > _SUSPECTS:
                    return None
        return found

    def decimal_within(self, number: Decimal) -> bool:
        """
        Whether any token jiter could have read as ``number`` is within the number limits, in a document
        with no run of ``len(_ZEROS)`` zeros. jiter keeps every digit of the token but its leading zeros,
        which are then fewer than ``len(_ZEROS)`` in the fraction and in the exponent: a token of ``d`` kept
        digits has at most ``d + 8`` in its mantissa, so its written exponent is at most ``|e| + d + 8``.
        """
        _, kept, exponent = number.as_tuple()
        count = len(kept)
        written = abs(exponent) + count + len(_ZEROS)  # type: ignore[arg-type]
        limits = self.limits
        # sign, mantissa with its zeros, point, "e" and sign, exponent digits with their zeros
        size = 1 + count + len(_ZEROS) + 1 + 2 + len(str(written)) + len(_ZEROS) - 1
        return (
            count <= limits.max_number_digits
            and written <= limits.max_exponent
            and size <= limits.max_number_bytes
        )

    def number(self, token: str) -> Decimal:
        """Every non-integer number token: a ``Decimal`` when it is within the limits."""
        if len(token) > self.short_number or "e" in token or "E" in token:
            match = _NUMBER.fullmatch(token)
            if match is None or _number_problem(token, match.group("exp"), self.limits) is not None:
                raise _Fallback
        return Decimal(token)

    def integer(self, token: str) -> int:
        """Every integer token, when the document may hold one over the limits."""
        if len(token) >= self.long_int_from and _number_problem(token, None, self.limits) is not None:
            raise _Fallback
        return int(token)


@functools.lru_cache(maxsize=32)
def _fast_engine(limits: Limits) -> _FastEngine:
    return _FastEngine(limits)


_SHAPE_OF = dict(zip(b"0123456789eE+-[{", b"0000000000ee++[[", strict=True))
#: Number shapes: each digit as "0", each exponent mark as "e", each sign as "+", each opening bracket as "[",
#: every other byte as ".".
_SHAPES = bytes.maketrans(bytes(range(256)), bytes(_SHAPE_OF.get(byte, 46) for byte in range(256)))
_DIGIT_BYTES = tuple(bytes((digit,)) for digit in b"0123456789")
#: A document with more places to check than this goes to the careful scan without checking them.
_SUSPECTS = 8
#: Up to this many bytes, two substring tests are cheaper than the regular expression for exponents.
_FEW_BYTES = 4096


def _short(source: str, engine: _FastEngine, limits: Limits) -> tuple[Value] | None:
    """
    A short document with an exponent-like run (often inside an id: "fc_68ebe7381") through the C scanner,
    whose hook checks each non-integer number as it reads it: cheaper here than locating the runs. It is
    shorter than any integer token over the limits; what the scanner misses is checked here: lone surrogate
    escapes, duplicate keys, trailing content, depth and value count.
    """
    n = len(source)
    # The substring test is a fraction of the regular expression's cost and rules out most documents.
    if "\\u" in source and _SURROGATE_ESCAPE.search(source) and not _surrogates_paired(source):
        return None
    start = 0 if n and source[0] not in _WS_CHARS else _WS.match(source).end()  # type: ignore[union-attr]
    objects = source.count("{")
    try:
        if objects > 1:
            value, end = engine.scan_once(source, start)
        else:
            # Most arguments are one flat object, and building the list of pairs for the duplicate-key hook
            # costs about as much as the rest of the scan, so scan without it and prove no key repeated (as
            # ``_native`` does, by counting the ":").
            value, end = engine.scan_unhooked(source, start)
            if objects and (type(value) is not dict or len(value) != source.count(":")):
                value, end = engine.scan_once(source, start)
    except (_Fallback, StopIteration, ValueError, ArithmeticError, RecursionError):
        return None
    return _scanned_whole(source, value, end, limits)


#: A long document with fewer commas than this holds few values: ``_few_values`` checks them one by one.
_FEW_COMMAS = 16
#: The most values ``_few_values`` looks at before it leaves the document to the pre-scan.
_FEW = 64
#: With no run of this many "0" bytes, a number's leading zeros (of its fraction or exponent) are fewer.
_ZEROS = b"0" * 8


def _few_values(data: bytes, engine: _FastEngine, limits: Limits) -> tuple[Value] | None:
    """
    A long document of few values (a long text and a few scalars, as tool arguments often are) through
    jiter, then each value checked against the limits: cheaper than a pre-scan of every byte. ``None`` when
    jiter refuses it, it holds more than ``_FEW`` values, nests deeper than ``max_depth``, or has a number
    that may break a number limit: the pre-scan and the exact engine decide those.
    """
    try:
        value = _jiter(data)
    except ValueError:
        return None
    pending: list[tuple[Value, int]] = [(value, 1)]
    most = min(_FEW, limits.max_values)
    seen = 0
    zeros: bool | None = None
    while pending:
        item, depth = pending.pop()
        seen += 1
        if seen > most:
            return None
        kind = item.__class__
        if kind is dict or kind is list:
            if depth > limits.max_depth:
                return None
            children = item.values() if kind is dict else item  # type: ignore[union-attr]
            pending.extend(zip(children, repeat(depth + 1)))  # type: ignore[arg-type]
        elif kind is int:
            # JSON writes an integer without leading zeros: its digits follow from its size.
            if item.bit_length() > engine.int_bits:  # type: ignore[union-attr]
                return None
        elif kind is Decimal:
            if zeros is None:
                zeros = data.find(_ZEROS) >= 0
            if zeros or not engine.decimal_within(item):  # type: ignore[arg-type]
                return None
    return (value,)


def _inside_strings(data: bytes, positions: list[int]) -> bool:
    """
    Whether every position lies inside a string: an odd number of unescaped quotes before it. Decided for a
    document without an escaped backslash, where every backslash starts an escape, so a quote after one is
    escaped; otherwise ``False``, and the careful scan decides. (A document that is not JSON is refused by
    the native reader whatever this says.)
    """
    if b"\\" not in data:  # one ``memchr``; the escaped backslash below is a slower two-byte search
        return all(data.count(b'"', 0, at) % 2 for at in positions)
    if b"\\\\" in data:
        return False
    return all((data.count(b'"', 0, at) - data.count(b'\\"', 0, at)) % 2 for at in positions)


#: Documents up to this size count their containers; larger ones are always read inside the padding.
_COUNTED = 32 * 1024


def _native(data: bytes, engine: _FastEngine, limits: Limits, shapes: str | None) -> tuple[Value] | None:
    """
    The document through ``jiter`` (Rust): it refuses duplicate keys (after unescaping), lone surrogates,
    NaN and Infinity, control characters, invalid UTF-8 and trailing content, and keeps numbers exact.
    Its depth limit is fixed, so a document that may nest deeper than ``max_depth`` is read inside
    ``engine.padding`` arrays that spend the rest of it: one nested deeper than ``max_depth`` is refused.
    ``shapes``: the document through ``_SHAPES``, if made (its "[" are the brackets that open containers).
    """
    n = len(data)
    if n <= 2 * limits.max_depth:
        deep = False  # each level takes two brackets
    elif n > _COUNTED:
        deep = True
    else:
        opened = shapes.count("[") if shapes is not None else data.count(b"[") + data.count(b"{")
        deep = opened > limits.max_depth
    try:
        if deep and engine.padding:
            value = _jiter(engine.open_pad + data + engine.close_pad)
            for _ in range(engine.padding):
                if type(value) is not list or len(value) != 1:
                    return None
                value = value[0]
        else:
            value = _from_json(
                data, catch_duplicate_keys=True, float_mode="decimal", allow_inf_nan=False, cache_mode="keys"
            )
    except ValueError:
        return None
    if deep and not engine.padding and not engine.deep_enough and not _within(value, limits):
        return None
    # The value count is at most one more than the containers and commas, strings included.
    if n > limits.max_values and _structure(data) >= limits.max_values and not _within(value, limits):
        return None
    return (value,)


def _structure(data: bytes) -> int:
    """Containers and commas, strings included: one less than a bound on the number of values."""
    return data.count(b"[") + data.count(b"{") + data.count(b",")


def _scanned(source: str, engine: _FastEngine, limits: Limits) -> tuple[Value] | None:
    """A document with a long run of digits, through the C scanner with a hook on every number token."""
    n = len(source)
    if "\\u" in source and _SURROGATE_ESCAPE.search(source) and not _surrogates_paired(source):
        return None
    start = 0 if n and source[0] not in _WS_CHARS else _WS.match(source).end()  # type: ignore[union-attr]
    try:
        value, end = engine.scan_checked(source, start)
    except (_Fallback, StopIteration, ValueError, ArithmeticError, RecursionError):
        return None
    return _scanned_whole(source, value, end, limits)


def _scanned_whole(source: str, value: Value, end: int, limits: Limits) -> tuple[Value] | None:
    """
    What the C scanner does not check, after it read ``value`` up to ``end``: trailing content, depth and
    value count. Depth is at most the number of containers, and the value count at most one more than the
    containers and commas (each value after the first in a container follows a comma); both at most the
    length. Brackets and commas inside strings only make these bounds looser.
    """
    n = len(source)
    if end != n and _WS.match(source, end).end() != n:  # type: ignore[union-attr]
        return None
    if n > limits.max_depth or n > limits.max_values:
        containers = source.count("[") + source.count("{")
        if (
            containers > limits.max_depth
            or (n > limits.max_values and containers + source.count(",") >= limits.max_values)
        ) and not _within(value, limits):
            return None
    return (value,)


_is_dict = frozenset((dict,)).__contains__
_is_list = frozenset((list,)).__contains__
_is_container = frozenset((list, dict)).__contains__


def _within(value: Value, limits: Limits) -> bool:
    """
    Whether a scanned value respects the depth and value-count limits. It walks one level at a time with
    the per-value work done in C (``map``, ``compress``, ``chain``), so a large document costs little more
    than the scan itself.
    """
    level: list[Value] = [value] if _is_container(type(value)) else []
    count = 1
    depth = 0
    while level:
        depth += 1
        if depth > limits.max_depth:
            return False
        count += sum(map(len, level))  # type: ignore[arg-type]
        if count > limits.max_values:
            return False
        kinds = list(map(type, level))
        children: list[Value] = list(
            chain(
                chain.from_iterable(map(dict.values, compress(level, map(_is_dict, kinds)))),  # type: ignore[arg-type]
                chain.from_iterable(compress(level, map(_is_list, kinds))),  # type: ignore[arg-type]
            )
        )
        level = list(compress(children, map(_is_container, map(type, children))))
    return True


def _number_problem(token: str, exponent: str | None, limits: Limits) -> LimitExceeded | None:
    """The number limit that ``token`` (with its exponent part, if any) breaks, if any."""
    if len(token) > limits.max_number_bytes:
        return _over("with_max_number_bytes", limits.max_number_bytes)
    mantissa = token[: len(token) - len(exponent)] if exponent else token
    if len(mantissa.lstrip("-").replace(".", "").lstrip("0")) > limits.max_number_digits:
        return _over("with_max_number_digits", limits.max_number_digits)
    if exponent:
        written = exponent.lstrip("eE+-").lstrip("0")
        # Compare lengths first: never convert a huge digit string.
        if len(written) > len(str(limits.max_exponent)) or int(written or "0") > limits.max_exponent:
            return _over("with_max_exponent", limits.max_exponent)
    return None


# ---------------------------------------------------------------------------------------------------------
# Exact engine: iterative, so depth never meets Python's recursion limit.

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?P<frac>\.[0-9]+)?(?P<exp>[eE][+-]?[0-9]+)?")
_CHUNK = re.compile(r'[^"\\\x00-\x1f]*')
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS: tuple[tuple[str, Value], ...] = (("true", True), ("false", False), ("null", None))
#: Integer strings this long always convert with int(), whatever sys.set_int_max_str_digits says.
_INT_STR_SAFE = sys.int_info.str_digits_check_threshold


class _Parser:
    def __init__(self, source: str, limits: Limits) -> None:
        self.s = source
        self.n = len(source)
        self.limits = limits
        self.values = 0

    def ws(self, i: int) -> int:
        return _WS.match(self.s, i).end()  # type: ignore[union-attr]

    def count(self, i: int) -> None:
        self.values += 1
        if self.values > self.limits.max_values:
            raise _Fail(i, _over("with_max_values", self.limits.max_values))

    def run(self) -> Value:
        s, n = self.s, self.n
        # Each frame: the container, and for objects the key awaiting its value.
        stack: list[tuple[list[Value] | dict[str, Value], str]] = []
        i = self.ws(0)
        while True:
            # A value starts at i.
            c = s[i] if i < n else ""
            value: Value
            if c == "{" or c == "[":
                self.count(i)
                if len(stack) >= self.limits.max_depth:
                    raise _Fail(i, _over("with_max_depth", self.limits.max_depth))
                i = self.ws(i + 1)
                if c == "[":
                    if i < n and s[i] == "]":
                        value, i = [], i + 1
                    else:
                        stack.append(([], ""))
                        continue
                elif i < n and s[i] == "}":
                    value, i = {}, i + 1
                else:
                    obj: dict[str, Value] = {}
                    key, i = self.key(i, obj)
                    stack.append((obj, key))
                    continue
            else:
                self.count(i)
                value, i = self.scalar(i, c)
            # A value ended at i: attach it and find what follows.
            while True:
                if not stack:
                    i = self.ws(i)
                    if i < n:
                        raise _Fail(i, Syntax.COMMENT if s[i] == "/" else Syntax.TRAILING_CONTENT)
                    return value
                container, key = stack[-1]
                i = self.ws(i)
                c = s[i] if i < n else ""
                if isinstance(container, list):
                    container.append(value)
                    if c == ",":
                        comma, i = i, self.ws(i + 1)
                        if i < n and s[i] == "]":
                            raise _Fail(comma, Syntax.TRAILING_COMMA)
                        break
                    if c == "]":
                        stack.pop()
                        value, i = container, i + 1
                        continue
                    raise _Fail(i, self.after(c, Syntax.EXPECTED_COMMA_OR_BRACKET))
                container[key] = value
                if c == ",":
                    comma, i = i, self.ws(i + 1)
                    if i < n and s[i] == "}":
                        raise _Fail(comma, Syntax.TRAILING_COMMA)
                    key, i = self.key(i, container)
                    stack[-1] = (container, key)
                    break
                if c == "}":
                    stack.pop()
                    value, i = container, i + 1
                    continue
                raise _Fail(i, self.after(c, Syntax.EXPECTED_COMMA_OR_BRACE))

    @staticmethod
    def after(c: str, expected: Syntax) -> Syntax:
        if c == "":
            return Syntax.UNEXPECTED_END
        return Syntax.COMMENT if c == "/" else expected

    def key(self, i: int, obj: dict[str, Value]) -> tuple[str, int]:
        """Read a member name and its colon; return the name and where its value starts."""
        s, n = self.s, self.n
        c = s[i] if i < n else ""
        if c != '"':
            if c == "":
                raise _Fail(i, Syntax.UNEXPECTED_END)
            raise _Fail(i, {"'": Syntax.SINGLE_QUOTE, "/": Syntax.COMMENT}.get(c, Syntax.EXPECTED_KEY))
        key, end = self.string(i)
        if key in obj:
            raise _Fail(i, DuplicateKey(key))
        end = self.ws(end)
        if end >= n:
            raise _Fail(end, Syntax.UNEXPECTED_END)
        if s[end] != ":":
            raise _Fail(end, Syntax.COMMENT if s[end] == "/" else Syntax.EXPECTED_COLON)
        return key, self.ws(end + 1)

    def scalar(self, i: int, c: str) -> tuple[Value, int]:
        s = self.s
        if c == '"':
            return self.string(i)
        if c == "-" or "0" <= c <= "9":
            return self.number(i)
        for word, literal in _LITERALS:
            if s.startswith(word, i):
                return literal, i + len(word)
        if c == "":
            raise _Fail(i, Syntax.UNEXPECTED_END)
        if c == "N" or c == "I":
            raise _Fail(i, Syntax.NON_FINITE)
        if c == "+":
            raise _Fail(i, Syntax.PLUS_SIGN)
        if c == "'":
            raise _Fail(i, Syntax.SINGLE_QUOTE)
        if c == "/":
            raise _Fail(i, Syntax.COMMENT)
        raise _Fail(i, Syntax.EXPECTED_VALUE)

    def number(self, i: int) -> tuple[Value, int]:
        s, limits = self.s, self.limits
        m = _NUMBER.match(s, i)
        if m is None:
            after_sign = i + 1
            c = s[after_sign] if after_sign < self.n else ""
            raise _Fail(i, Syntax.NON_FINITE if c == "I" else Syntax.INVALID_NUMBER)
        end = m.end()
        nxt = s[end] if end < self.n else ""
        if "0" <= nxt <= "9":  # only "0" or "-0" can stop before a digit
            raise _Fail(i, Syntax.LEADING_ZERO)
        if nxt in (".", "e", "E"):
            raise _Fail(i, Syntax.INVALID_NUMBER)
        token = m.group()
        exp = m.group("exp")
        problem = _number_problem(token, exp, limits)
        if problem is not None:
            raise _Fail(i, problem)
        if m.group("frac") is None and exp is None:
            # int() of a long string obeys sys.set_int_max_str_digits (as low as 640); Decimal does not.
            return (int(token) if len(token) <= _INT_STR_SAFE else int(Decimal(token))), end
        try:
            return Decimal(token), end
        except ArithmeticError:  # beyond what Decimal can hold: only possible with a raised exponent limit
            maximum = min(limits.max_exponent, decimal.MAX_EMAX)
            raise _Fail(i, _over("with_max_exponent", maximum)) from None

    def string(self, i: int) -> tuple[str, int]:
        """Read a string starting at its opening quote; return it and the index after it."""
        s, n = self.s, self.n
        parts: list[str] = []
        j = i + 1
        while True:
            m = _CHUNK.match(s, j)
            j = m.end()  # type: ignore[union-attr]
            parts.append(m.group())  # type: ignore[union-attr]
            if j >= n:
                raise _Fail(i, Syntax.UNTERMINATED_STRING)
            c = s[j]
            if c == '"':
                return "".join(parts), j + 1
            if c != "\\":
                raise _Fail(j, Syntax.CONTROL_CHARACTER)
            esc = s[j + 1] if j + 1 < n else ""
            if esc in _ESCAPES:
                parts.append(_ESCAPES[esc])
                j += 2
                continue
            if esc == "":  # the input ends inside the string: report where the string starts
                raise _Fail(i, Syntax.UNTERMINATED_STRING)
            if esc != "u" or not _HEX4.match(s, j + 2):
                raise _Fail(j, Syntax.INVALID_ESCAPE)
            code = int(s[j + 2 : j + 6], 16)
            if 0xD800 <= code <= 0xDBFF:
                low = s[j + 8 : j + 12] if s.startswith("\\u", j + 6) else ""
                if not (_HEX4.fullmatch(low) and 0xDC00 <= int(low, 16) <= 0xDFFF):
                    raise _Fail(j, Syntax.LONE_SURROGATE)
                code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                j += 12
            elif 0xDC00 <= code <= 0xDFFF:
                raise _Fail(j, Syntax.LONE_SURROGATE)
            else:
                j += 6
            parts.append(chr(code))


def _location(source: str, index: int) -> Location:
    line = source.count("\n", 0, index) + 1
    column = index - source.rfind("\n", 0, index)
    prefix = source[:index]
    offset = index if prefix.isascii() else len(prefix.encode("utf-8", "surrogatepass"))
    return Location(offset, line, column)


def _byte_location(data: bytes, offset: int) -> Location:
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return Location(offset, data.count(b"\n", 0, offset) + 1, column)


# ---------------------------------------------------------------------------------------------------------
# Rendering and paths.


class NotJson(TypeError):
    """
    ``render`` met something that is not a JSON value; ``path`` says where.
    """

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{render_path(path)}: {problem}")
        self.path = path
        self.problem = problem


_dump_str = json.encoder.encode_basestring
_INF = float("inf")


#: A path being walked: ``(parent, segment)`` links, turned into a ``Path`` only when an error needs it, so
#: that deep values cost linear time.
_Link: TypeAlias = "tuple[_Link, str | int] | None"


def _path_of(link: _Link) -> Path:
    segments: list[str | int] = []
    while link is not None:
        link, segment = link
        segments.append(segment)
    return tuple(reversed(segments))


def render(value: Value) -> str:
    """
    Compact, exact JSON text for ``value``; raises ``NotJson`` for anything that is not a JSON value.

    A finite Python ``float`` is written as its shortest repr, which reads back as the same number.
    """
    out: list[str] = []
    # Work items: a value with its path, or a literal piece of punctuation.
    stack: list[tuple[object, _Link] | str] = [(value, None)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        v, link = item
        if v is None:
            out.append("null")
        elif v is True:
            out.append("true")
        elif v is False:
            out.append("false")
        elif isinstance(v, str):
            out.append(_render_str(v, link))
        elif isinstance(v, int):
            out.append(_render_int(v))
        elif isinstance(v, Decimal):
            if not v.is_finite():
                raise NotJson(_path_of(link), "a JSON number must be finite")
            out.append(str(v))
        elif isinstance(v, float):
            # A Python float from ``json.loads`` or an SDK: its shortest repr is exact and valid JSON.
            if v != v or v in (_INF, -_INF):
                raise NotJson(_path_of(link), "a JSON number must be finite")
            out.append(float.__repr__(v))
        elif isinstance(v, list):
            out.append("[")
            stack.append("]")
            for index in range(len(v) - 1, -1, -1):
                stack.append((v[index], (link, index)))
                if index:
                    stack.append(",")
        elif isinstance(v, dict):
            out.append("{")
            stack.append("}")
            items = list(v.items())
            for index in range(len(items) - 1, -1, -1):
                key, member = items[index]
                if not isinstance(key, str):
                    raise NotJson(_path_of(link), "object keys must be strings")
                stack.append((member, (link, key)))
                stack.append(_render_str(key, link) + ":")
                if index:
                    stack.append(",")
        else:
            raise NotJson(_path_of(link), f"{type(v).__name__} is not a JSON value")
    return "".join(out)


def _render_int(v: int) -> str:
    try:
        return int.__repr__(v)
    except ValueError:  # more digits than sys.get_int_max_str_digits() allows; Decimal has no such limit
        return str(Decimal(v))


def _render_str(s: str, link: _Link) -> str:
    if not s.isascii():
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            raise NotJson(_path_of(link), "a string holds an unpaired surrogate") from None
    return str(_dump_str(s))


@frozen
class UnrepresentableNumber(Lean):
    """
    A number that no Python ``float`` holds (beyond about 1.8e308, or so small it would become 0); ``path``
    says where. The text shows neither the number nor the path, whose keys may come from the input.
    """

    path: Path

    def describe(self) -> str:
        """``a number is outside the range of a float``."""
        return "a number is outside the range of a float"

    def __str__(self) -> str:
        return self.describe()


def to_plain(value: Value) -> Result[PlainValue, UnrepresentableNumber]:
    """
    ``value`` with every ``Decimal`` as the nearest ``float`` (ints stay ints), for ``json.dumps`` and SDKs.

    A number no float can hold is ``Err(UnrepresentableNumber(path))``, never ``inf`` or a silent ``0.0``.
    Walks iteratively; raises ``NotJson`` for anything that is not a JSON value, as ``render`` does.
    """
    root: list[PlainValue] = [None]
    # Work items: a value, the container and slot its conversion goes into, and its path.
    stack: list[tuple[object, Any, Any, _Link]] = [(value, root, 0, None)]
    while stack:
        v, into, slot, link = stack.pop()
        if v is None or v is True or v is False or isinstance(v, str | int):
            into[slot] = v
        elif isinstance(v, Decimal | float):
            f = float(v) if (v.is_finite() if isinstance(v, Decimal) else v == v) else _INF
            if f in (_INF, -_INF) or (f == 0 and v != 0):
                return Err(UnrepresentableNumber(_path_of(link)))
            into[slot] = f
        elif isinstance(v, list):
            items: list[PlainValue] = [None] * len(v)
            into[slot] = items
            stack.extend((v[i], items, i, (link, i)) for i in range(len(v) - 1, -1, -1))
        elif isinstance(v, dict):
            members: dict[str, PlainValue] = dict.fromkeys(v)
            into[slot] = members
            for key in reversed(v):
                if not isinstance(key, str):
                    raise NotJson(_path_of(link), "object keys must be strings")
                stack.append((v[key], members, key, (link, key)))
        else:
            raise NotJson(_path_of(link), f"{type(v).__name__} is not a JSON value")
    return Ok(root[0])


def render_path(path: Path) -> str:
    """
    ``$["a"][0]``-style text for a path.
    """
    return "$" + "".join(
        f"[{segment}]" if isinstance(segment, int) else f"[{_dump_str(segment)}]" for segment in path
    )


def pointer(path: Path) -> str:
    """
    The RFC 6901 JSON Pointer for a path (``""`` for the root).
    """
    return "".join(
        "/" + (str(segment) if isinstance(segment, int) else segment.replace("~", "~0").replace("/", "~1"))
        for segment in path
    )


_DEFAULT_ENGINE = _FastEngine(DEFAULT)
