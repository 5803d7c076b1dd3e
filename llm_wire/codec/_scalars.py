"""
Scalar codecs: booleans, strings, exact and float numbers with bounds, and any JSON value.

Numbers arrive from the parser as ``int`` or ``Decimal``; bounds and ``multiple_of`` compare them exactly.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterable
from decimal import Decimal
from itertools import repeat
from typing import Any, NamedTuple, TypeVar, cast

from llm_wire._regex import compile_pattern
from llm_wire.codec._core import Codec, _codec, _count_pair, _Ctx, _fixed
from llm_wire.codec._errors import _CodecFailure
from llm_wire.codec._reasons import (
    EXPECTED_BOOLEAN,
    EXPECTED_INTEGER,
    EXPECTED_NUMBER,
    EXPECTED_OBJECT,
    EXPECTED_STRING,
    FloatOutOfRange,
    IntegerTooLarge,
    NonFiniteNumber,
    UnexpectedType,
)
from llm_wire.reasons import (
    AboveMaximum,
    BelowMinimum,
    NotMultipleOf,
    PatternMismatch,
    TooDeep,
    TooLong,
    TooShort,
)
from llm_wire.result import Err, Ok
from llm_wire.schema import DefinitionError, Schema
from llm_wire.value import Value, render

T = TypeVar("T")
E = TypeVar("E", bound=enum.Enum)

Number = int | Decimal

#: An integral Decimal with more digits than this is refused by ``integer`` (``int()`` of it is slow).
_MAX_INT_DIGITS = 10_000
#: ``json_value`` walks values iteratively; nesting this deep means a cycle.
_MAX_VALUE_DEPTH = 100_000
#: The classes of JSON scalars that are valid as they are (subclasses take the full look).
_PLAIN = frozenset((str, int, bool, type(None)))


# ---------------------------------------------------------------------------------------------------------
# Scalars.


def boolean() -> Codec[bool]:
    """
    ``true``/``false`` as ``bool``.
    """

    def dec(v: Any) -> bool:
        if v is True or v is False:
            return v
        raise _CodecFailure(EXPECTED_BOOLEAN)

    def enc(x: Any) -> Value:
        if x is True or x is False:
            return x
        raise _CodecFailure(UnexpectedType("bool"))

    return _codec(dec, enc, _fixed(("type", "boolean")), "boolean", exact=bool)


def string(
    *,
    min_length: int | None = None,
    max_length: int | None = None,
    pattern: str | None = None,
    format: str | None = None,
) -> Codec[str]:
    """
    A string; lengths count code points, ``pattern`` is searched (RE2), ``format`` is an annotation only.
    """
    _count_pair("string", "min_length", min_length, "max_length", max_length)
    search: Callable[[str], bool] | None = None
    if pattern is not None:
        if not isinstance(pattern, str):
            raise DefinitionError("string: pattern must be a str")
        match compile_pattern(pattern):
            case Ok(predicate):
                search = predicate
            case Err(problem):
                msg = f"string: pattern {render(pattern)}: {problem}"
                raise DefinitionError(msg)
    if format is not None and not isinstance(format, str):
        raise DefinitionError("string: format must be a str")
    lo = 0 if min_length is None else min_length
    hi = math.inf if max_length is None else max_length
    too_short = TooShort(lo)
    too_long = TooLong(max_length if max_length is not None else 0)
    mismatch = PatternMismatch(pattern) if pattern is not None else None

    def check(s: str) -> str:
        n = len(s)
        if n < lo:
            raise _CodecFailure(too_short)
        if n > hi:
            raise _CodecFailure(too_long)
        if search is not None:
            try:
                found = search(s)
            except UnicodeEncodeError:  # a lone surrogate in a hand-built str: not a JSON string
                raise _CodecFailure(EXPECTED_STRING) from None
            if not found:
                raise _CodecFailure(mismatch)  # type: ignore[arg-type]
        return s

    plain = min_length is None and max_length is None and search is None

    def dec(v: Any) -> str:
        if v.__class__ is not str:
            if not isinstance(v, str):
                raise _CodecFailure(EXPECTED_STRING)
            v = str.__str__(v)
        return v if plain else check(v)

    def enc(x: Any) -> Value:
        if not isinstance(x, str):
            raise _CodecFailure(UnexpectedType("str"))
        return x if plain else check(str.__str__(x))

    node = _fixed(
        ("type", "string"),
        ("minLength", min_length),
        ("maxLength", max_length),
        ("pattern", pattern),
        ("format", format),
    )
    return _codec(dec, enc, node, "string", exact=str if plain else None)


def _bound(what: str, name: str, raw: object) -> Number | None:
    if raw is None:
        return None
    if isinstance(raw, float) and math.isfinite(raw):
        return Decimal(repr(raw))
    if isinstance(raw, bool) or not isinstance(raw, int | Decimal) or not Decimal(raw).is_finite():
        msg = f"{what}: {name} must be a finite int, Decimal or float"
        raise DefinitionError(msg)
    return raw


class _Bounds(NamedTuple):
    """A numeric codec's range and step as written in source; ``None`` is unbounded on that side."""

    minimum: Number | None
    exclusive_minimum: Number | None
    maximum: Number | None
    exclusive_maximum: Number | None
    multiple_of: Number | None


def _bounds(what: str, integral: bool, **raw: object) -> _Bounds:
    """Checked bounds and ``multiple_of``; raises ``DefinitionError`` if they admit no value."""
    lo = _bound(what, "minimum", raw["minimum"])
    xlo = _bound(what, "exclusive_minimum", raw["exclusive_minimum"])
    hi = _bound(what, "maximum", raw["maximum"])
    xhi = _bound(what, "exclusive_maximum", raw["exclusive_maximum"])
    step = _bound(what, "multiple_of", raw["multiple_of"])
    if step is not None and step <= 0:
        msg = f"{what}: multiple_of must be greater than 0"
        raise DefinitionError(msg)
    lows = [(b, False) for b in (lo,) if b is not None] + [(b, True) for b in (xlo,) if b is not None]
    highs = [(b, False) for b in (hi,) if b is not None] + [(b, True) for b in (xhi,) if b is not None]
    if integral:  # the integers the bounds admit
        lows = [(math.floor(b) + 1 if ex else math.ceil(b), False) for b, ex in lows]
        highs = [(math.ceil(b) - 1 if ex else math.floor(b), False) for b, ex in highs]
    for low, low_ex in lows:
        for high, high_ex in highs:
            if low > high or (low == high and (low_ex or high_ex)):
                given = [f"{name} {raw[name]}" for name in _BOUND_NAMES if raw[name] is not None]
                msg = f"{what}: the bounds {' and '.join(given)} admit no value"
                raise DefinitionError(msg)
    return _Bounds(lo, xlo, hi, xhi, step)


_BOUND_NAMES = ("minimum", "exclusive_minimum", "maximum", "exclusive_maximum")


def _decimal_parts(x: Number) -> tuple[int, int, int]:
    """``(a, p, d)`` with ``abs(x) == a * 10**p`` and ``a < 10**d``."""
    if isinstance(x, int):
        return abs(x), 0, abs(x).bit_length() * 30103 // 100000 + 1  # an upper bound on the digits
    _, digits, exponent = x.as_tuple()
    return int(Decimal((0, digits, 0))), int(exponent), len(digits)


def is_multiple(n: Number, step: Number) -> bool:
    """Whether ``n / step`` is an integer, exactly, in time bounded by the digits (not the exponents)."""
    if isinstance(n, int) and isinstance(step, int):
        return n % step == 0
    a, p, digits = _decimal_parts(n)
    b, q, _ = _decimal_parts(step)
    if a == 0:
        return True
    if p >= q:
        return bool(a * pow(10, p - q, b) % b == 0)
    k = q - p
    if k >= digits:  # 0 < a < 10**k <= b * 10**k
        return False
    return bool(a % (b * 10**k) == 0)


def _range_check(bounds: _Bounds) -> Callable[[Number], None] | None:
    """
    A function raising ``_CodecFailure`` for a number outside the bounds (checked in the contract's order:
    minimum, exclusiveMinimum, maximum, exclusiveMaximum, multipleOf), or ``None`` when there are none.
    """
    lo, xlo, hi, xhi, step = bounds
    if lo is None and xlo is None and hi is None and xhi is None and step is None:
        return None
    below = BelowMinimum(lo if lo is not None else 0)
    not_above = BelowMinimum(xlo if xlo is not None else 0, exclusive=True)
    above = AboveMaximum(hi if hi is not None else 0)
    not_below = AboveMaximum(xhi if xhi is not None else 0, exclusive=True)
    not_multiple = NotMultipleOf(step if step is not None else 1)

    def check(n: Number) -> None:
        if lo is not None and n < lo:
            raise _CodecFailure(below)
        if xlo is not None and n <= xlo:
            raise _CodecFailure(not_above)
        if hi is not None and n > hi:
            raise _CodecFailure(above)
        if xhi is not None and n >= xhi:
            raise _CodecFailure(not_below)
        if step is not None and not is_multiple(n, step):
            raise _CodecFailure(not_multiple)

    return check


def _number_node(kind: str, bounds: _Bounds) -> Callable[[_Ctx], Schema]:
    return _fixed(
        ("type", kind),
        ("minimum", bounds.minimum),
        ("exclusiveMinimum", bounds.exclusive_minimum),
        ("maximum", bounds.maximum),
        ("exclusiveMaximum", bounds.exclusive_maximum),
        ("multipleOf", bounds.multiple_of),
    )


def _to_int(v: Any) -> int:
    """An exactly integral JSON number as ``int`` (``1.0`` included, ``true`` refused)."""
    if isinstance(v, bool):
        raise _CodecFailure(EXPECTED_INTEGER)
    if isinstance(v, int):
        return int(v)
    if isinstance(v, Decimal):
        if not v.is_finite() or v != v.to_integral_value():
            raise _CodecFailure(EXPECTED_INTEGER)
        if v.adjusted() > _MAX_INT_DIGITS:
            raise _CodecFailure(IntegerTooLarge())
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    raise _CodecFailure(EXPECTED_INTEGER)


def integer(
    *,
    minimum: Number | float | None = None,
    maximum: Number | float | None = None,
    exclusive_minimum: Number | float | None = None,
    exclusive_maximum: Number | float | None = None,
    multiple_of: Number | float | None = None,
) -> Codec[int]:
    """
    An ``int``: any exactly integral number (``12``, ``12.0``, ``1.2e1``) within the bounds; never ``true``.
    """
    bounds = _bounds(
        "integer",
        True,
        minimum=minimum,
        maximum=maximum,
        exclusive_minimum=exclusive_minimum,
        exclusive_maximum=exclusive_maximum,
        multiple_of=multiple_of,
    )
    check = _range_check(bounds)
    if check is None:

        def dec(v: Any) -> int:
            return v if v.__class__ is int else _to_int(v)

        def enc(x: Any) -> Value:
            if isinstance(x, bool) or not isinstance(x, int):
                raise _CodecFailure(UnexpectedType("int"))
            return int(x)

    else:
        ranged = check

        def dec(v: Any) -> int:
            n = v if v.__class__ is int else _to_int(v)
            ranged(n)
            return n

        def enc(x: Any) -> Value:
            if isinstance(x, bool) or not isinstance(x, int):
                raise _CodecFailure(UnexpectedType("int"))
            ranged(x)
            return int(x)

    exact = int if check is None else None
    return _codec(dec, enc, _number_node("integer", bounds), "integer", exact=exact)


def _to_decimal(v: Any) -> Decimal:
    if isinstance(v, Decimal):
        if v.is_finite():
            return v
    elif isinstance(v, int):
        if not isinstance(v, bool):
            return Decimal(v)
    elif isinstance(v, float) and math.isfinite(v):
        return Decimal(repr(v))
    raise _CodecFailure(EXPECTED_NUMBER)


def decimal(
    *,
    minimum: Number | float | None = None,
    maximum: Number | float | None = None,
    exclusive_minimum: Number | float | None = None,
    exclusive_maximum: Number | float | None = None,
    multiple_of: Number | float | None = None,
) -> Codec[Decimal]:
    """
    Any JSON number as an exact ``Decimal`` (``0.1`` stays 0.1), within the bounds, compared exactly.
    """
    bounds = _bounds(
        "number",
        False,
        minimum=minimum,
        maximum=maximum,
        exclusive_minimum=exclusive_minimum,
        exclusive_maximum=exclusive_maximum,
        multiple_of=multiple_of,
    )
    check = _range_check(bounds)

    def dec(v: Any) -> Decimal:
        d = _to_decimal(v)
        if check is not None:
            check(d)
        return d

    def enc(x: Any) -> Value:
        if isinstance(x, bool) or not isinstance(x, int | Decimal):
            raise _CodecFailure(UnexpectedType("Decimal"))
        if isinstance(x, Decimal) and not x.is_finite():
            raise _CodecFailure(NonFiniteNumber())
        if check is not None:
            check(x)
        return x if isinstance(x, Decimal) else int(x)

    return _codec(dec, enc, _number_node("number", bounds), "decimal")


_NUMBER_CLASSES = frozenset((Decimal, int))


def _floats(values: list[Any]) -> list[float] | None:
    """
    An array of unbounded ``floating`` items in C loops: every item an ``int`` or ``Decimal`` (``bool`` is
    its own class), each converted once, and all finite when their sum is (an infinity or NaN makes the sum
    one; a sum that overflows only sends the array to the item-by-item path). ``None``: go item by item.
    """
    if not _NUMBER_CLASSES.issuperset(map(type, values)):
        return None
    try:
        out = list(map(float, values))
    except (ValueError, OverflowError):  # a signaling NaN, or an int beyond the float range
        return None
    total = sum(out)
    return out if total - total == 0.0 else None


def floating(
    *,
    minimum: Number | float | None = None,
    maximum: Number | float | None = None,
    exclusive_minimum: Number | float | None = None,
    exclusive_maximum: Number | float | None = None,
    multiple_of: Number | float | None = None,
) -> Codec[float]:
    """
    A ``float``: any JSON number within the bounds (checked on the exact number), rounded to binary64.

    Encoding writes the shortest decimal that reads back as the same float; NaN and infinities fail.
    """
    bounds = _bounds(
        "number",
        False,
        minimum=minimum,
        maximum=maximum,
        exclusive_minimum=exclusive_minimum,
        exclusive_maximum=exclusive_maximum,
        multiple_of=multiple_of,
    )
    check = _range_check(bounds)

    def dec(v: Any) -> float:
        cls = v.__class__
        if cls is Decimal or cls is int:
            try:
                f = float(v)  # a signaling NaN raises ValueError, an int beyond the float range OverflowError
            except (ValueError, OverflowError):
                f = math.nan
            if f - f == 0.0:  # finite: the common case, one conversion and no further calls
                if check is not None:
                    check(v)
                return f
        return slow(v)

    def dec_unbounded(v: Any) -> float:
        cls = v.__class__
        if cls is Decimal or cls is int:
            try:
                f = float(v)
            except (ValueError, OverflowError):
                return slow(v)
            if f - f == 0.0:
                return f
        return slow(v)

    def slow(v: Any) -> float:
        if isinstance(v, float):
            if not math.isfinite(v):
                raise _CodecFailure(EXPECTED_NUMBER)
            if check is not None:
                check(Decimal(repr(v)))
            return float(v)
        if (
            isinstance(v, bool)
            or not isinstance(v, int | Decimal)
            or (isinstance(v, Decimal) and not v.is_finite())
        ):
            raise _CodecFailure(EXPECTED_NUMBER)
        if check is not None:
            check(v)
        try:
            f = float(v)
        except OverflowError:  # an int beyond the float range
            raise _CodecFailure(FloatOutOfRange()) from None
        if math.isinf(f):
            raise _CodecFailure(FloatOutOfRange())
        return f

    def enc(x: Any) -> Value:
        if isinstance(x, bool) or not isinstance(x, int | float):
            raise _CodecFailure(UnexpectedType("float"))
        if isinstance(x, int):
            if check is not None:
                check(x)
            return int(x)
        if not math.isfinite(x):
            raise _CodecFailure(NonFiniteNumber())
        d = Decimal(repr(x))
        if check is not None:
            check(d)
        return d

    if check is not None:
        return _codec(dec, enc, _number_node("number", bounds), "floating")
    return _codec(dec_unbounded, enc, _number_node("number", bounds), "floating", bulk=_floats)


def json_value(*, floats: bool = False) -> Codec[Value]:
    """
    Any JSON value, unchanged (schema ``{}``); refuses Python values that are not JSON. With ``floats``, a
    finite Python ``float`` passes too, as ``value.render`` writes it (a parsed value never holds one).
    """

    def check(v: Any) -> Value:
        stack: list[tuple[Any, int]] = [(v, 0)]
        while stack:
            item, depth = stack.pop()
            if isinstance(item, dict):
                if not all(map(isinstance, item, repeat(str))):
                    raise _CodecFailure(EXPECTED_OBJECT)
                members: Iterable[Any] = item.values()
            elif isinstance(item, list):
                members = item
            elif item is None or isinstance(item, bool | str | int):
                continue
            elif isinstance(item, Decimal):
                if not item.is_finite():
                    raise _CodecFailure(EXPECTED_NUMBER)
                continue
            elif floats and isinstance(item, float):
                if not math.isfinite(item):
                    raise _CodecFailure(EXPECTED_NUMBER)
                continue
            else:
                raise _CodecFailure(UnexpectedType("a JSON value"))
            if depth >= _MAX_VALUE_DEPTH:  # only a cyclic value gets here
                raise _CodecFailure(TooDeep())
            # A str, int, bool or null member needs no more look: only the others wait on the stack.
            if not _PLAIN.issuperset(map(type, members)):
                stack.extend((x, depth + 1) for x in members if type(x) not in _PLAIN)
        return cast(Value, v)

    return _codec(check, check, _fixed(), "json value")
