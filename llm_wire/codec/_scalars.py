"""
Scalar codecs: booleans, strings, exact and float numbers with bounds, enums, literals and any JSON value.

Numbers arrive from the parser as ``int`` or ``Decimal``; bounds and ``multiple_of`` compare them exactly.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any, TypeVar, cast, overload

from llm_wire._regex import compile_pattern
from llm_wire.codec._core import (
    EXPECTED_BOOLEAN,
    EXPECTED_INTEGER,
    EXPECTED_NUMBER,
    EXPECTED_OBJECT,
    EXPECTED_STRING,
    MISSING,
    Codec,
    _codec,
    _count_pair,
    _Ctx,
    _fixed,
)
from llm_wire.codec._errors import (
    Bounds,
    FloatOutOfRange,
    IntegerTooLarge,
    JsonType,
    NonFiniteNumber,
    NotMultipleOf,
    OutsideRange,
    PatternMismatch,
    StringLength,
    TooDeep,
    UnexpectedType,
    UnknownEnumValue,
    UnknownLabel,
    _Fail,
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


# ---------------------------------------------------------------------------------------------------------
# Scalars.


def boolean() -> Codec[bool]:
    """
    ``true``/``false`` as ``bool``.
    """

    def dec(v: Any) -> bool:
        if v is True or v is False:
            return v
        raise _Fail(EXPECTED_BOOLEAN)

    def enc(x: Any) -> Value:
        if x is True or x is False:
            return x
        raise _Fail(UnexpectedType("bool"))

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
    length = None if min_length is None and max_length is None else StringLength(min_length, max_length)
    lo = 0 if min_length is None else min_length
    hi = math.inf if max_length is None else max_length
    mismatch = PatternMismatch(pattern) if pattern is not None else None

    def check(s: str) -> str:
        if length is not None and not lo <= len(s) <= hi:
            raise _Fail(length)
        if search is not None:
            try:
                found = search(s)
            except UnicodeEncodeError:  # a lone surrogate in a hand-built str: not a JSON string
                raise _Fail(EXPECTED_STRING) from None
            if not found:
                raise _Fail(mismatch)  # type: ignore[arg-type]
        return s

    plain = length is None and search is None

    def dec(v: Any) -> str:
        if v.__class__ is not str:
            if not isinstance(v, str):
                raise _Fail(EXPECTED_STRING)
            v = str.__str__(v)
        return v if plain else check(v)

    def enc(x: Any) -> Value:
        if not isinstance(x, str):
            raise _Fail(UnexpectedType("str"))
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


def _bounds(what: str, integral: bool, **raw: object) -> tuple[Bounds, Number | None]:
    """Checked bounds and ``multiple_of``; raises ``DefinitionError`` if they admit no value."""
    lo = _bound(what, "minimum", raw["minimum"])
    xlo = _bound(what, "exclusive_minimum", raw["exclusive_minimum"])
    hi = _bound(what, "maximum", raw["maximum"])
    xhi = _bound(what, "exclusive_maximum", raw["exclusive_maximum"])
    step = _bound(what, "multiple_of", raw["multiple_of"])
    if step is not None and step <= 0:
        msg = f"{what}: multiple_of must be greater than 0"
        raise DefinitionError(msg)
    bounds = Bounds(lo, xlo, hi, xhi)
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
    return bounds, step


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


def _range_check(kind: JsonType, bounds: Bounds, step: Number | None) -> Callable[[Number], None] | None:
    """A function raising ``_Fail`` for a number outside the bounds, or ``None`` when there are none."""
    lo, xlo, hi, xhi = bounds.minimum, bounds.exclusive_minimum, bounds.maximum, bounds.exclusive_maximum
    if lo is None and xlo is None and hi is None and xhi is None and step is None:
        return None
    outside = OutsideRange(kind, bounds)
    not_multiple = NotMultipleOf(kind, step) if step is not None else None

    def check(n: Number) -> None:
        if (
            (lo is not None and n < lo)
            or (hi is not None and n > hi)
            or (xlo is not None and n <= xlo)
            or (xhi is not None and n >= xhi)
        ):
            raise _Fail(outside)
        if step is not None and not is_multiple(n, step):
            raise _Fail(not_multiple)  # type: ignore[arg-type]

    return check


def _number_node(kind: str, bounds: Bounds, step: Number | None) -> Callable[[_Ctx], Schema]:
    return _fixed(
        ("type", kind),
        ("minimum", bounds.minimum),
        ("exclusiveMinimum", bounds.exclusive_minimum),
        ("maximum", bounds.maximum),
        ("exclusiveMaximum", bounds.exclusive_maximum),
        ("multipleOf", step),
    )


def _to_int(v: Any) -> int:
    """An exactly integral JSON number as ``int`` (``1.0`` included, ``true`` refused)."""
    if isinstance(v, bool):
        raise _Fail(EXPECTED_INTEGER)
    if isinstance(v, int):
        return int(v)
    if isinstance(v, Decimal):
        if not v.is_finite() or v != v.to_integral_value():
            raise _Fail(EXPECTED_INTEGER)
        if v.adjusted() > _MAX_INT_DIGITS:
            raise _Fail(IntegerTooLarge())
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    raise _Fail(EXPECTED_INTEGER)


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
    bounds, step = _bounds(
        "integer",
        True,
        minimum=minimum,
        maximum=maximum,
        exclusive_minimum=exclusive_minimum,
        exclusive_maximum=exclusive_maximum,
        multiple_of=multiple_of,
    )
    check = _range_check(JsonType.INTEGER, bounds, step)
    if check is None:

        def dec(v: Any) -> int:
            return v if v.__class__ is int else _to_int(v)

        def enc(x: Any) -> Value:
            if isinstance(x, bool) or not isinstance(x, int):
                raise _Fail(UnexpectedType("int"))
            return int(x)

    else:
        ranged = check

        def dec(v: Any) -> int:
            n = v if v.__class__ is int else _to_int(v)
            ranged(n)
            return n

        def enc(x: Any) -> Value:
            if isinstance(x, bool) or not isinstance(x, int):
                raise _Fail(UnexpectedType("int"))
            ranged(x)
            return int(x)

    exact = int if check is None else None
    return _codec(dec, enc, _number_node("integer", bounds, step), "integer", exact=exact)


def _to_decimal(v: Any) -> Decimal:
    if isinstance(v, Decimal):
        if v.is_finite():
            return v
    elif isinstance(v, int):
        if not isinstance(v, bool):
            return Decimal(v)
    elif isinstance(v, float) and math.isfinite(v):
        return Decimal(repr(v))
    raise _Fail(EXPECTED_NUMBER)


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
    bounds, step = _bounds(
        "number",
        False,
        minimum=minimum,
        maximum=maximum,
        exclusive_minimum=exclusive_minimum,
        exclusive_maximum=exclusive_maximum,
        multiple_of=multiple_of,
    )
    check = _range_check(JsonType.NUMBER, bounds, step)

    def dec(v: Any) -> Decimal:
        d = _to_decimal(v)
        if check is not None:
            check(d)
        return d

    def enc(x: Any) -> Value:
        if isinstance(x, bool) or not isinstance(x, int | Decimal):
            raise _Fail(UnexpectedType("Decimal"))
        if isinstance(x, Decimal) and not x.is_finite():
            raise _Fail(NonFiniteNumber())
        if check is not None:
            check(x)
        return x if isinstance(x, Decimal) else int(x)

    return _codec(dec, enc, _number_node("number", bounds, step), "decimal")


#: ``number`` is ``decimal`` under JSON Schema's name.
number = decimal


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
    bounds, step = _bounds(
        "number",
        False,
        minimum=minimum,
        maximum=maximum,
        exclusive_minimum=exclusive_minimum,
        exclusive_maximum=exclusive_maximum,
        multiple_of=multiple_of,
    )
    check = _range_check(JsonType.NUMBER, bounds, step)

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
                raise _Fail(EXPECTED_NUMBER)
            if check is not None:
                check(Decimal(repr(v)))
            return float(v)
        if (
            isinstance(v, bool)
            or not isinstance(v, int | Decimal)
            or (isinstance(v, Decimal) and not v.is_finite())
        ):
            raise _Fail(EXPECTED_NUMBER)
        if check is not None:
            check(v)
        try:
            f = float(v)
        except OverflowError:  # an int beyond the float range
            raise _Fail(FloatOutOfRange()) from None
        if math.isinf(f):
            raise _Fail(FloatOutOfRange())
        return f

    def enc(x: Any) -> Value:
        if isinstance(x, bool) or not isinstance(x, int | float):
            raise _Fail(UnexpectedType("float"))
        if isinstance(x, int):
            if check is not None:
                check(x)
            return int(x)
        if not math.isfinite(x):
            raise _Fail(NonFiniteNumber())
        d = Decimal(repr(x))
        if check is not None:
            check(d)
        return d

    decode = dec if check is not None else dec_unbounded
    return _codec(decode, enc, _number_node("number", bounds, step), "floating")


# ---------------------------------------------------------------------------------------------------------
# Enums and literals.


def _labels_node(labels: list[str]) -> Callable[[_Ctx], Schema]:
    return _fixed(("type", "string"), ("enum", labels))


@overload
def enum_of(source: type[E]) -> Codec[E]: ...
@overload
def enum_of(source: Mapping[str, T]) -> Codec[T]: ...
def enum_of(source: type[E] | Mapping[str, T]) -> Codec[Any]:
    """
    A string enum: a Python ``Enum`` (labels are the values when all are strings, else the member names)
    or a mapping from label to native value (encoded by equality).
    """
    if isinstance(source, type) and issubclass(source, enum.Enum):
        members = list(source)
        by_value = all(isinstance(m.value, str) for m in members)
        pairs: list[tuple[Any, Any]] = [(m.value if by_value else m.name, m) for m in members]
        kind = f"enum {source.__name__}"
    elif isinstance(source, Mapping):
        pairs = list(source.items())
        kind = "enum"
    else:
        raise DefinitionError("enum_of: expected an Enum class or a mapping from label to value")
    if not pairs:
        raise DefinitionError(f"{kind}: has no labels")
    by_label: dict[str, Any] = {}
    to_label: dict[Any, str] = {}
    for label, native in pairs:
        if not isinstance(label, str):
            raise DefinitionError(f"{kind}: labels must be strings")
        if label in by_label:
            raise DefinitionError(f"{kind}: label {render(label)} appears twice")
        try:
            if native in to_label:
                msg = f"{kind}: label {render(label)} repeats the value of an earlier label"
                raise DefinitionError(msg)
            to_label[native] = label
        except TypeError:
            msg = f"{kind}: the value of label {render(label)} is not hashable"
            raise DefinitionError(msg) from None
        by_label[label] = native
    labels = list(by_label)
    unknown = UnknownLabel(tuple(labels))
    get = by_label.get

    def dec(v: Any) -> Any:
        if v.__class__ is not str:
            if not isinstance(v, str):
                raise _Fail(EXPECTED_STRING)
            v = str.__str__(v)
        found = get(v, MISSING)
        if found is MISSING:
            raise _Fail(unknown)
        return found

    def enc(x: Any) -> Value:
        try:
            return to_label[x]
        except (KeyError, TypeError):
            raise _Fail(UnknownEnumValue()) from None

    return _codec(dec, enc, _labels_node(labels), kind)


def _literal_key(v: object) -> tuple[str, object]:
    """A key under which equal JSON scalars meet (``1`` and ``1.0`` do; ``true`` and ``1`` do not)."""
    if v is None:
        return ("null", None)
    if isinstance(v, bool):
        return ("boolean", v)
    if isinstance(v, str):
        return ("string", str.__str__(v))
    if isinstance(v, int):
        return ("number", int(v))
    if isinstance(v, Decimal) and v.is_finite():
        return ("number", v)  # equal numbers hash equal across int and Decimal
    return ("", None)  # not a JSON scalar (a float included): matches no literal


@overload
def literal(*values: str) -> Codec[str]: ...
@overload
def literal(*values: int) -> Codec[int]: ...
@overload
def literal(*values: str | int | bool | None) -> Codec[Any]: ...
def literal(*values: str | int | bool | None) -> Codec[Any]:
    """
    One of fixed JSON scalars (strings, ints, booleans, ``None``), each decoding to itself.
    """
    if not values:
        raise DefinitionError("literal: has no values")
    table: dict[tuple[str, object], str | int | bool | None] = {}
    for v in values:
        if not isinstance(v, str | int | bool | None):
            msg = f"literal: {type(v).__name__} is not a str, int, bool or None"
            raise DefinitionError(msg)
        key = _literal_key(v)
        if key in table:
            msg = f"literal: value {render(v)} appears twice"
            raise DefinitionError(msg)
        table[key] = v
    listed = list(values)
    kinds = {key[0] for key in table}
    json_type = {"string": "string", "number": "integer", "boolean": "boolean", "null": "null"}
    node = _fixed(("type", json_type[kinds.pop()] if len(kinds) == 1 else None), ("enum", listed))
    unknown = UnknownLabel(values)

    def dec(v: Any) -> Any:
        found = table.get(_literal_key(v), MISSING)
        if found is MISSING:
            raise _Fail(unknown)
        return found

    def enc(x: Any) -> Value:
        found = MISSING if isinstance(x, Decimal) else table.get(_literal_key(x), MISSING)
        if found is MISSING:
            raise _Fail(UnknownEnumValue())
        return cast(Value, found)

    return _codec(dec, enc, node, "literal")


def json_value() -> Codec[Value]:
    """
    Any JSON value, unchanged (schema ``{}``); refuses Python values that are not JSON.
    """

    def check(v: Any) -> Value:
        stack: list[tuple[Any, int]] = [(v, 0)]
        while stack:
            item, depth = stack.pop()
            if item is None or isinstance(item, bool | str | int):
                continue
            if isinstance(item, Decimal):
                if not item.is_finite():
                    raise _Fail(EXPECTED_NUMBER)
                continue
            if depth >= _MAX_VALUE_DEPTH:  # only a cyclic value gets here
                raise _Fail(TooDeep())
            if isinstance(item, list):
                stack.extend((x, depth + 1) for x in item)
            elif isinstance(item, dict):
                if not all(isinstance(k, str) for k in item):
                    raise _Fail(EXPECTED_OBJECT)
                stack.extend((x, depth + 1) for x in item.values())
            else:
                raise _Fail(UnexpectedType("a JSON value"))
        return cast(Value, v)

    return _codec(check, check, _fixed(), "json value")
