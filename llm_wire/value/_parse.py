"""
Parsing of ``llm_wire.value`` (``parse``, ``parse_value``): the fast engine, which reads valid documents at
native speed, in front of the exact engine (``_exact``), which takes every document it declines.

The fast engine is jiter (Rust, strict: duplicate keys, lone surrogates, NaN and trailing content refused,
numbers exact), or the standard library's C scanner with hooks when a cheap pre-scan finds a number token
that may break a limit.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from decimal import Decimal
from itertools import chain, compress, repeat

import jiter

from llm_wire._fast import LazyPattern
from llm_wire.result import Err, Ok, Result
from llm_wire.value._exact import NUMBER, WS, byte_location, exact, location, number_problem
from llm_wire.value._records import DEFAULT, Limits, Location, ParseError, Syntax, Value, over

__all__ = ["parse", "parse_value"]

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
            return ParseError(_START, over("with_max_bytes", limits.max_bytes))
        if not source.isascii():
            if len(source) * 4 > limits.max_bytes and (
                len(source.encode("utf-8", "surrogatepass")) > limits.max_bytes
            ):
                return ParseError(_START, over("with_max_bytes", limits.max_bytes))
            try:
                data = source.encode("utf-8")
            except UnicodeEncodeError as exc:
                return ParseError(location(source, exc.start), Syntax.LONE_SURROGATE)
            if source[0] == "\ufeff":
                return ParseError(_START, Syntax.BYTE_ORDER_MARK)
    elif isinstance(text, bytes | bytearray | memoryview):
        data = bytes(text)
        if len(data) > limits.max_bytes:
            return ParseError(_START, over("with_max_bytes", limits.max_bytes))
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return ParseError(byte_location(data, exc.start), Syntax.INVALID_UTF8)
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
                    return exact(source, limits) if fast is None else fast[0]
            else:
                suspects = engine.suspects(shapes)
                if suspects is None or (suspects and not _inside_strings(data, suspects)):
                    fast = _scanned(source, engine, limits)
                    return exact(source, limits) if fast is None else fast[0]
    if len(data) <= engine.small:  # as ``_native`` reads it, with nothing to count
        try:
            return _from_json(  # type: ignore[no-any-return]
                data, catch_duplicate_keys=True, float_mode="decimal", allow_inf_nan=False, cache_mode="keys"
            )
        except ValueError:
            return exact(source, limits)
    fast = _native(data, engine, limits, shapes)
    return exact(source, limits) if fast is None else fast[0]


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


_SURROGATE_ESCAPE = LazyPattern(r"\\u[dD][89a-fA-F]")
# Escaped backslashes are matched too, so that scanning from the left finds only real escapes.
_SURROGATE_OR_BACKSLASH = LazyPattern(r"\\\\|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


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
        self.long_exponent = LazyPattern(r"0e\+?" + zeros)  # a digit comes first: a faster search
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
            match = NUMBER.fullmatch(token)
            if match is None or number_problem(token, match.group("exp"), self.limits) is not None:
                raise _Fallback
        return Decimal(token)

    def integer(self, token: str) -> int:
        """Every integer token, when the document may hold one over the limits."""
        if len(token) >= self.long_int_from and number_problem(token, None, self.limits) is not None:
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
    start = 0 if n and source[0] not in _WS_CHARS else WS.match(source).end()  # type: ignore[union-attr]
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
    elif shapes is None:
        deep = data.count(b"[") + data.count(b"{") > limits.max_depth
    else:
        deep = _opens_over(shapes, limits.max_depth)
    try:
        if deep and engine.padding:
            value = _jiter(engine.open_pad + data + engine.close_pad)
            # Each padding level is a list (the one before held only it): one of another length than 1 means
            # ``data`` is not one value, and unpacking it raises ``ValueError``.
            for _ in range(engine.padding):
                (value,) = value  # type: ignore[misc, str-unpack]
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


#: ``_opens_over`` counts this many bytes first, then twice as many at each step.
_FIRST_COUNT = 1024


def _opens_over(shapes: str, depth: int) -> bool:
    """
    Whether ``shapes`` holds more than ``depth`` opening brackets (of containers, or inside strings): when
    not, the document nests at most ``depth`` deep. Counted in growing pieces, to stop once over ``depth``.
    """
    opened, start, end = 0, 0, _FIRST_COUNT
    while start < len(shapes):
        opened += shapes.count("[", start, end)
        if opened > depth:
            return True
        start, end = end, 2 * end
    return False


def _structure(data: bytes) -> int:
    """Containers and commas, strings included: one less than a bound on the number of values."""
    return data.count(b"[") + data.count(b"{") + data.count(b",")


def _scanned(source: str, engine: _FastEngine, limits: Limits) -> tuple[Value] | None:
    """A document with a long run of digits, through the C scanner with a hook on every number token."""
    n = len(source)
    if "\\u" in source and _SURROGATE_ESCAPE.search(source) and not _surrogates_paired(source):
        return None
    start = 0 if n and source[0] not in _WS_CHARS else WS.match(source).end()  # type: ignore[union-attr]
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
    if end != n and WS.match(source, end).end() != n:  # type: ignore[union-attr]
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


_DEFAULT_ENGINE = _FastEngine(DEFAULT)
