"""
The ``Codec`` type and its scalar, container and wrapping combinators (re-exported by ``llm_wire.codec``).

A codec is three things built once: a decode closure and an encode closure that raise an internal
``_Fail`` (turned into ``Err`` at the entry points, so the happy path allocates no results), and a schema
builder. A codec without recursion renders its schema when it is built, so definition mistakes raise
``DefinitionError`` at once; a codec containing ``lazy`` renders on first use. Schemas render into a
``_Ctx`` that collects ``$defs`` for the document root, wherever the recursive codec sits.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any, Generic, TypeVar, cast, overload

import attrs

from llm_wire._codec_errors import (
    Bounds,
    Custom,
    DecodeError,
    EncodeError,
    FloatOutOfRange,
    IntegerTooLarge,
    InvalidJson,
    ItemCount,
    JsonType,
    NonFiniteNumber,
    NotMultipleOf,
    NullInsideNullable,
    OutsideRange,
    PatternMismatch,
    Refused,
    StringLength,
    TooDeep,
    UnexpectedType,
    UnknownEnumValue,
    UnknownLabel,
    WrongLength,
    WrongType,
    _Fail,
    decode_error,
    encode_error,
)
from llm_wire._pattern import compile_pattern
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import DefinitionError, Schema, make, walk
from llm_wire.value import DEFAULT, LimitExceeded, Limits, Value, parse, pointer, render

T = TypeVar("T")
U = TypeVar("U")
E = TypeVar("E", bound=enum.Enum)

Number = int | Decimal

#: Internal: a member that is not there.
MISSING: Any = object()

EXPECTED_NULL = WrongType(JsonType.NULL)
EXPECTED_BOOLEAN = WrongType(JsonType.BOOLEAN)
EXPECTED_STRING = WrongType(JsonType.STRING)
EXPECTED_INTEGER = WrongType(JsonType.INTEGER)
EXPECTED_NUMBER = WrongType(JsonType.NUMBER)
EXPECTED_ARRAY = WrongType(JsonType.ARRAY)
EXPECTED_OBJECT = WrongType(JsonType.OBJECT)

#: An integral Decimal with more digits than this is refused by ``integer`` (``int()`` of it is slow).
_MAX_INT_DIGITS = 10_000
#: What a constructor or conversion function raises for a value it cannot take: the value is refused. Any
#: other exception is a bug in the function and propagates.
REFUSALS = (TypeError, ValueError, AttributeError, LookupError, ArithmeticError)

#: ``json_value`` walks values iteratively; nesting this deep means a cycle.
_MAX_VALUE_DEPTH = 100_000


# ---------------------------------------------------------------------------------------------------------
# Schema rendering context.


class _Ctx:
    """One schema rendering: ``$defs`` for the document root, and the lazy codecs being rendered."""

    def __init__(self) -> None:
        self.defs: dict[str, Schema] = {}
        self.active: dict[object, str] = {}
        self.finished: dict[object, str] = {}
        self.referenced: set[str] = set()

    def node(self, codec: Codec[Any]) -> Schema | None:
        """The node of ``codec`` rendered here, or ``None`` if it has no schema."""
        build = codec._node
        return None if build is None else build(self)

    def fresh(self, name: str, taken: set[str] | None = None) -> str:
        """``name``, or ``name2``, ``name3``... whichever is not yet a definition here."""
        used = set(self.defs) | set(self.active.values()) | (taken or set())
        if name not in used:
            return name
        n = 2
        while f"{name}{n}" in used:
            n += 1
        return f"{name}{n}"

    def recursive(
        self, key: object, name: str, target: Codec[Any], transform: Callable[[Schema], Schema] | None
    ) -> Schema | None:
        """A lazy codec's node: inline unless it refers to itself, then a ``$ref`` into ``$defs``."""
        done = self.finished.get(key)
        if done is not None:
            return _ref(done)
        active = self.active.get(key)
        if active is not None:
            self.referenced.add(active)
            return _ref(active)
        name = self.fresh(name)
        self.active[key] = name
        try:
            node = self.node(target)
            if node is not None and transform is not None:
                node = transform(node)
        finally:
            del self.active[key]
        if node is None or name not in self.referenced:
            return node
        self.defs[name] = node
        self.finished[key] = name
        return _ref(name)

    def adopt(self, node: Schema, defs: Mapping[str, Schema]) -> Schema:
        """``node`` with its definitions moved here; a name already taken by another schema is renamed."""
        renames: dict[str, str] = {}
        for name, body in defs.items():
            if (name in self.defs and self.defs[name] != body) or name in self.active.values():
                renames[name] = self.fresh(name, set(defs) | set(renames.values()))
        if renames:
            node = _rename_refs(node, renames)
        for name, body in defs.items():
            self.defs[renames.get(name, name)] = _rename_refs(body, renames) if renames else body
        return node


def _ref(name: str) -> Schema:
    return make(("$ref", "#/$defs" + pointer((name,))))


def _rename_refs(node: Schema, renames: Mapping[str, str]) -> Schema:
    """A copy of ``node`` whose ``#/$defs/<old>`` references point at the new names."""
    prefixes = {"#/$defs" + pointer((old,)): "#/$defs" + pointer((new,)) for old, new in renames.items()}

    def rewrite(value: object) -> object:
        if isinstance(value, Schema):
            return _rename_refs(value, renames)
        if isinstance(value, tuple) and value and isinstance(value[0], Schema):
            return tuple(_rename_refs(s, renames) for s in value)
        if isinstance(value, tuple) and value and isinstance(value[0], tuple):
            return tuple((k, _rename_refs(s, renames)) for k, s in value)
        return value

    if node.boolean is not None:
        return node
    pairs: list[tuple[str, object]] = []
    for name, value in node.keywords:
        if name == "$ref" and isinstance(value, str):
            for old, new in prefixes.items():
                if value == old or value.startswith(old + "/"):
                    value = new + value[len(old) :]
                    break
            pairs.append((name, value))
        else:
            pairs.append((name, rewrite(value)))
    return make(*pairs)


def _with_defs(node: Schema, defs: Mapping[str, Schema]) -> Schema:
    if not defs:
        return node
    return make(*node.without("$defs").keywords, ("$defs", tuple(defs.items())))


def described(node: Schema, text: str) -> Schema:
    """``node`` with ``description`` as its first keyword (replacing an earlier one)."""
    return make(("description", text), *node.without("description").keywords)


# ---------------------------------------------------------------------------------------------------------
# The codec.


class _Lazy:
    """The target of a ``lazy`` codec, made on first use and then kept."""

    def __init__(self, fn: Callable[[], Codec[Any]]) -> None:
        self.fn = fn
        self.codec: Codec[Any] | None = None

    def get(self) -> Codec[Any]:
        codec = self.codec
        if codec is None:
            codec = self.fn()
            if not isinstance(codec, Codec):
                msg = f"lazy: the function returned {type(codec).__name__}, not a Codec"
                raise DefinitionError(msg)
            self.codec = codec
        return codec

    def decode(self, value: Any) -> Any:
        return self.get()._dec(value)

    def encode(self, value: Any) -> Value:
        return self.get()._enc(value)


@attrs.frozen(eq=False, repr=False)
class Codec(Generic[T]):
    """
    Encodes ``T`` to a JSON value, decodes a JSON value to ``T`` strictly, and carries its ``schema``.

    Build codecs with the functions of ``llm_wire.codec`` (``string``, ``record``, ``derive``...).
    """

    _dec: Callable[[Any], T]
    _enc: Callable[[Any], Value]
    _node: Callable[[_Ctx], Schema | None] | None
    _kind: str
    #: Decoding is the identity for values whose class is exactly this one.
    _exact: type | None = None
    #: The codec contains ``lazy``: its schema renders on first use and decode bounds the value's depth.
    _recursive: bool = False
    #: The class a record codec builds (unions pick a variant to encode by it).
    _cls: type | None = None
    _lazy: _Lazy | None = None
    #: A ``custom`` codec's own schema, used as is at the root.
    _root: Schema | None = None
    _cache: list[Schema | None] = attrs.field(factory=list, init=False)

    def __attrs_post_init__(self) -> None:
        if not self._recursive and self._root is None and self._node is not None:
            ctx = _Ctx()
            node = self._node(ctx)
            if node is None:
                object.__setattr__(self, "_node", None)
            else:
                defs = dict(ctx.defs)
                object.__setattr__(self, "_node", lambda into: into.adopt(node, defs))
                self._cache.append(_with_defs(node, defs))
        if self._node is None:
            self._cache.append(None)

    @property
    def schema(self) -> Schema | None:
        """The JSON Schema of what this codec decodes (``$defs`` at its root), or ``None`` when unknown."""
        cache = self._cache
        if not cache:
            if self._root is not None:
                cache.append(self._root)
            else:
                ctx = _Ctx()
                node = ctx.node(self)
                cache.append(None if node is None else _with_defs(node, ctx.defs))
        return cache[0]

    def decode(self, value: Value, *, limits: Limits = DEFAULT) -> Result[T, DecodeError]:
        """
        The native value for ``value``, or ``Err(DecodeError)``; ``limits.max_depth`` bounds recursive codecs.
        """
        if self._recursive and not _within_depth(value, limits.max_depth):
            return Err(DecodeError((), LimitExceeded("with_max_depth", limits.max_depth)))
        return self._run(value)

    def decode_json(self, text: str | bytes, limits: Limits = DEFAULT) -> Result[T, DecodeError]:
        """
        Parse ``text`` strictly within ``limits``, then decode; a parse failure is ``InvalidJson`` at ``$``.
        """
        match parse(text, limits):
            case Ok(value):
                return self._run(value)
            case Err(error):
                return Err(DecodeError((), InvalidJson(error)))

    def _run(self, value: Any) -> Result[T, DecodeError]:
        try:
            return Ok(self._dec(value))
        except _Fail as fail:
            return Err(decode_error(fail))
        except RecursionError:
            return Err(DecodeError((), TooDeep()))

    def encode(self, value: T) -> Result[Value, EncodeError]:
        """
        The JSON value for ``value``, or ``Err(EncodeError)`` if it breaks the codec's rules.
        """
        try:
            return Ok(self._enc(value))
        except _Fail as fail:
            return Err(encode_error(fail))
        except RecursionError:
            return Err(EncodeError((), TooDeep()))

    def __repr__(self) -> str:
        return f"<Codec {self._kind}>"


def _within_depth(value: object, max_depth: int) -> bool:
    """Whether arrays and objects in ``value`` nest at most ``max_depth`` deep (iteratively)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, list | tuple):
            children: Any = item
        elif isinstance(item, dict):
            children = item.values()
        else:
            continue
        if depth > max_depth:
            return False
        stack.extend((child, depth + 1) for child in children if isinstance(child, list | tuple | dict))
    return True


def _codec(
    dec: Callable[[Any], T],
    enc: Callable[[Any], Value],
    node: Callable[[_Ctx], Schema | None] | None,
    kind: str,
    *children: Codec[Any],
    exact: type | None = None,
    cls: type | None = None,
) -> Codec[T]:
    """A codec; it is recursive when a child is."""
    recursive = any(child._recursive for child in children)
    return Codec(dec=dec, enc=enc, node=node, kind=kind, exact=exact, recursive=recursive, cls=cls)


def _fixed(*pairs: tuple[str, object]) -> Callable[[_Ctx], Schema]:
    node = make(*((k, v) for k, v in pairs if v is not None))
    return lambda _: node


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


def _count(what: str, name: str, n: int | None) -> int | None:
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
        msg = f"{what}: {name} must be a non-negative int"
        raise DefinitionError(msg)
    return n


def _count_pair(what: str, low: str, lo: int | None, high: str, hi: int | None) -> None:
    _count(what, low, lo)
    _count(what, high, hi)
    if lo is not None and hi is not None and lo > hi:
        msg = f"{what}: {low} {lo} is greater than {high} {hi}"
        raise DefinitionError(msg)


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
                msg = f"{what}: the bounds {bounds.describe(what)[len(what) + 1 :]} admit no value"
                raise DefinitionError(msg)
    return bounds, step


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

    return _codec(dec, enc, _number_node("number", bounds, step), "floating")


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


# ---------------------------------------------------------------------------------------------------------
# Containers.


def list_of(item: Codec[T], *, min_items: int | None = None, max_items: int | None = None) -> Codec[list[T]]:
    """
    An array whose every item decodes with ``item``, as a ``list``; encodes lists and tuples.
    """
    _count_pair("list_of", "min_items", min_items, "max_items", max_items)
    count = None if min_items is None and max_items is None else ItemCount(min_items, max_items)
    lo = 0 if min_items is None else min_items
    hi = math.inf if max_items is None else max_items
    item_dec, item_enc, exact = item._dec, item._enc, item._exact

    def locate(v: list[Any], decode: Callable[[Any], Any]) -> None:
        for i, x in enumerate(v):
            try:
                decode(x)
            except _Fail as fail:
                fail.rpath.append(i)
                raise

    def dec(v: Any) -> list[T]:
        if v.__class__ is not list and not isinstance(v, list):
            raise _Fail(EXPECTED_ARRAY)
        if count is not None and not lo <= len(v) <= hi:
            raise _Fail(count)
        if exact is not None:
            try:
                return [cast(T, x) if x.__class__ is exact else item_dec(x) for x in v]
            except _Fail:  # ``item`` is a built-in scalar: running it again to find the index is safe
                locate(v, item_dec)
        out = []
        i = 0
        try:
            for x in v:
                out.append(item_dec(x))
                i += 1
        except _Fail as fail:
            fail.rpath.append(i)
            raise
        return out

    def enc(x: Any) -> Value:
        if not isinstance(x, list | tuple):
            raise _Fail(UnexpectedType("list"))
        if count is not None and not lo <= len(x) <= hi:
            raise _Fail(count)
        out = []
        i = 0
        try:
            for y in x:
                out.append(item_enc(y))
                i += 1
        except _Fail as fail:
            fail.rpath.append(i)
            raise
        return out

    def node(ctx: _Ctx) -> Schema | None:
        items = ctx.node(item)
        if items is None:
            return None
        return make(
            *(
                (k, v)
                for k, v in (
                    ("type", "array"),
                    ("items", items),
                    ("minItems", min_items),
                    ("maxItems", max_items),
                )
                if v is not None
            )
        )

    return _codec(dec, enc, node, f"list of {item._kind}", item)


def tuple_of(*items: Codec[Any]) -> Codec[tuple[Any, ...]]:
    """
    An array of exactly ``len(items)`` items, each with its own codec, as a ``tuple``.
    """
    n = len(items)
    decs = [c._dec for c in items]
    encs = [c._enc for c in items]
    wrong = WrongLength(n)

    def dec(v: Any) -> tuple[Any, ...]:
        if not isinstance(v, list):
            raise _Fail(EXPECTED_ARRAY)
        if len(v) != n:
            raise _Fail(wrong)
        out = []
        for i in range(n):
            try:
                out.append(decs[i](v[i]))
            except _Fail as fail:
                fail.rpath.append(i)
                raise
        return tuple(out)

    def enc(x: Any) -> Value:
        if not isinstance(x, tuple | list):
            raise _Fail(UnexpectedType("tuple"))
        if len(x) != n:
            raise _Fail(wrong)
        out = []
        for i in range(n):
            try:
                out.append(encs[i](x[i]))
            except _Fail as fail:
                fail.rpath.append(i)
                raise
        return out

    def node(ctx: _Ctx) -> Schema | None:
        nodes = [ctx.node(c) for c in items]
        if any(s is None for s in nodes):
            return None
        prefix = (("prefixItems", tuple(nodes)),) if nodes else ()
        return make(("type", "array"), *prefix, ("minItems", n), ("maxItems", n))

    return _codec(dec, enc, node, f"tuple of {n}", *items)


def dict_of(value: Codec[T]) -> Codec[dict[str, T]]:
    """
    An object used as a map from string keys to values decoded with ``value``, as a ``dict``.

    Keys come from the input, so error texts show them as ``[*]``; the typed path keeps them.
    """
    value_dec, value_enc = value._dec, value._enc

    def dec(v: Any) -> dict[str, T]:
        if not isinstance(v, dict):
            raise _Fail(EXPECTED_OBJECT)
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise _Fail(EXPECTED_OBJECT)
            try:
                out[k] = value_dec(x)
            except _Fail as fail:
                fail.at_key(k)
                raise
        return out

    def enc(x: Any) -> Value:
        if not isinstance(x, Mapping):
            raise _Fail(UnexpectedType("dict"))
        out: dict[str, Value] = {}
        for k, y in x.items():
            if not isinstance(k, str):
                raise _Fail(UnexpectedType("dict with str keys"))
            try:
                out[k] = value_enc(y)
            except _Fail as fail:
                fail.at_key(k)
                raise
        return out

    def node(ctx: _Ctx) -> Schema | None:
        values = ctx.node(value)
        return None if values is None else make(("type", "object"), ("additionalProperties", values))

    return _codec(dec, enc, node, f"dict of {value._kind}", value)


def nullable(inner: Codec[T]) -> Codec[T | None]:
    """
    ``null`` as ``None``, anything else through ``inner``; renders ``{"anyOf": [<inner>, {"type": "null"}]}``.
    """
    inner_dec, inner_enc = inner._dec, inner._enc

    def dec(v: Any) -> T | None:
        return None if v is None else inner_dec(v)

    def enc(x: Any) -> Value:
        if x is None:
            return None
        out = inner_enc(x)
        if out is None:
            raise _Fail(NullInsideNullable())
        return out

    null = make(("type", "null"))

    def node(ctx: _Ctx) -> Schema | None:
        inner_node = ctx.node(inner)
        return None if inner_node is None else make(("anyOf", (inner_node, null)))

    return _codec(dec, enc, node, f"nullable {inner._kind}", inner)


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


# ---------------------------------------------------------------------------------------------------------
# Wrapping: describe, map, try_map, custom, lazy.


def describe(codec: Codec[T], text: str) -> Codec[T]:
    """
    ``codec`` with ``description`` first in its schema node (replacing an earlier description).
    """
    if not isinstance(text, str):
        raise DefinitionError("describe: the description must be a str")

    def node(ctx: _Ctx) -> Schema | None:
        inner = ctx.node(codec)
        return None if inner is None else described(inner, text)

    return Codec(
        dec=codec._dec,
        enc=codec._enc,
        node=node,
        kind=codec._kind,
        exact=codec._exact,
        recursive=codec._recursive,
        cls=codec._cls,
    )


def _same_schema(codec: Codec[Any]) -> Callable[[_Ctx], Schema | None]:
    return lambda ctx: ctx.node(codec)


def _guarded(fn: Callable[[Any], U], role: str) -> Callable[[Any], U]:
    """``fn``, whose ``REFUSALS`` become ``Refused`` at the codec's path."""
    name = getattr(fn, "__name__", "")
    refused = Refused(name if name.isidentifier() else f"the {role} function")

    def call(x: Any) -> U:
        try:
            return fn(x)
        except REFUSALS:
            raise _Fail(refused) from None

    return call


def map(codec: Codec[T], decode: Callable[[T], U], encode: Callable[[U], T]) -> Codec[U]:
    """
    ``codec`` seen through two conversions; the schema is unchanged.

    A conversion raising ``TypeError``, ``ValueError`` and the like gives ``Refused`` at this path.
    """
    inner_dec, inner_enc = codec._dec, codec._enc
    convert_in, convert_out = _guarded(decode, "decode"), _guarded(encode, "encode")

    def dec(v: Any) -> U:
        return convert_in(inner_dec(v))

    def enc(x: Any) -> Value:
        return inner_enc(convert_out(x))

    return _codec(dec, enc, _same_schema(codec), f"map of {codec._kind}", codec)


def _unwrap(result: Result[Any, str]) -> Any:
    if isinstance(result, Ok):
        return result.value
    if isinstance(result, Err):
        raise _Fail(Custom(str(result.error)))
    msg = f"a try_map function must return Ok or Err, not {type(result).__name__}"
    raise TypeError(msg)


def try_map(
    codec: Codec[T], decode: Callable[[T], Result[U, str]], encode: Callable[[U], Result[T, str]]
) -> Codec[U]:
    """
    ``codec`` seen through two fallible conversions; ``Err(message)`` becomes ``Custom(message)`` here.

    The message is rendered verbatim, so keep input values out of it.
    """
    inner_dec, inner_enc = codec._dec, codec._enc
    convert_in, convert_out = _guarded(decode, "decode"), _guarded(encode, "encode")

    def dec(v: Any) -> U:
        return cast(U, _unwrap(convert_in(inner_dec(v))))

    def enc(x: Any) -> Value:
        return inner_enc(_unwrap(convert_out(x)))

    return _codec(dec, enc, _same_schema(codec), f"try_map of {codec._kind}", codec)


def _lift(schema: Schema, ctx: _Ctx) -> Schema:
    """A custom schema nested in another codec: its root ``$defs`` move to the document root."""
    defs = dict(cast(tuple[tuple[str, Schema], ...], schema.get("$defs") or ()))
    body = schema.without("$defs", "$schema")
    for path, node in walk(body):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and not ref.startswith("#/$defs/"):
            msg = (
                f"custom: the $ref {render(ref)} at {pointer(path) or '/'} cannot be nested in another codec"
            )
            raise DefinitionError(msg)
    return ctx.adopt(body, defs)


def custom(
    decode: Callable[[Value], Result[T, str | DecodeError]],
    encode: Callable[[T], Result[Value, str | EncodeError]],
    schema: Schema | None = None,
) -> Codec[T]:
    """
    A codec from two functions over JSON values, trusted to match ``schema`` (``None``: no schema).

    ``Err(message)`` becomes ``Custom(message)`` at this codec's path; an ``Err(DecodeError)`` keeps its
    own path below it. Every codec that wraps one without a schema has no schema either.
    """
    if schema is not None and not isinstance(schema, Schema):
        raise DefinitionError("custom: schema must be a Schema or None")
    read, write = _guarded(decode, "decode"), _guarded(encode, "encode")

    def dec(v: Any) -> T:
        result = read(v)
        if isinstance(result, Ok):
            return result.value
        error = result.error
        if isinstance(error, DecodeError):
            raise _Fail.of(error.path, error.reason, error.keys)
        raise _Fail(Custom(str(error)))

    def enc(x: Any) -> Value:
        result = write(x)
        if isinstance(result, Ok):
            return result.value
        error = result.error
        if isinstance(error, EncodeError):
            raise _Fail.of(error.path, error.reason, error.keys)
        raise _Fail(Custom(str(error)))

    if schema is None:
        return Codec(dec=dec, enc=enc, node=None, kind="custom")
    given = schema
    return Codec(dec=dec, enc=enc, node=lambda ctx: _lift(given, ctx), kind="custom", root=given)


def lazy(fn: Callable[[], Codec[T]], *, name: str | None = None) -> Codec[T]:
    """
    A codec made by ``fn`` on first use, for recursive data; renders as ``$ref`` into root ``$defs``.

    ``name`` names the definition (default: the target's class name, else ``fn``'s name). Decoding bounds
    the value's nesting by ``Limits.max_depth``.
    """
    target = _Lazy(fn)
    fn_name = getattr(fn, "__name__", "")

    def node(ctx: _Ctx) -> Schema | None:
        codec = target.get()
        default = codec._cls.__name__ if codec._cls is not None else fn_name
        return ctx.recursive(target, name or (default if default.isidentifier() else "Node"), codec, None)

    return Codec(dec=target.decode, enc=target.encode, node=node, kind="lazy", recursive=True, lazy=target)


def tagged_node(
    ctx: _Ctx, codec: Codec[Any], transform: Callable[[Schema], Schema], key: object
) -> Schema | None:
    """The node of ``codec`` changed by ``transform``; through ``lazy``, the changed node is a definition."""
    target = codec._lazy
    if target is None:
        node = ctx.node(codec)
        return None if node is None else transform(node)
    resolved = target.get()
    name = resolved._cls.__name__ if resolved._cls is not None else "Variant"
    return ctx.recursive((target, key), name, resolved, transform)
