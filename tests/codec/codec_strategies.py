"""
Test helpers for codecs: the jsonschema oracle, a registry of every codec the tests build, a catalog of
codecs with strategies for their native values, and mutations of JSON values.
"""

from __future__ import annotations

import datetime
import enum
import functools
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any, TypeVar

import attrs
import jsonschema
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from llm_wire import codec as c
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import Schema, make, to_document
from llm_wire.value import Value

__all__ = [
    "CATALOG",
    "REGISTRY",
    "Entry",
    "arbitrary_objects",
    "document",
    "mutations",
    "oracle",
    "reg",
    "unwrap",
]

T = TypeVar("T")

#: Every codec a codec test builds; a test checks each rendered schema against the meta-schema.
REGISTRY: list[c.Codec[Any]] = []


def reg(codec: c.Codec[T]) -> c.Codec[T]:
    """
    Record ``codec`` in the registry and return it, its schema checked against the Draft 2020-12 meta-schema
    here, when it is built: a check at the end of a run would see only the codecs of the tests that ran
    before it on the same worker.
    """
    if codec.schema is not None:
        Draft202012Validator.check_schema(document(codec))  # type: ignore[arg-type]
    REGISTRY.append(codec)
    return codec


def unwrap(result: Result[T, object]) -> T:
    """The ``Ok`` value; fails the test with the error otherwise."""
    assert isinstance(result, Ok), result
    return result.value


def document(codec: c.Codec[Any]) -> Value:
    """The rendered Draft 2020-12 document of ``codec`` (which must have a schema)."""
    schema = codec.schema
    assert schema is not None
    return to_document(schema)


# ---------------------------------------------------------------------------------------------------------
# The oracle: jsonschema with exact numbers.


def _is_number(_: object, instance: object) -> bool:
    return not isinstance(instance, bool) and isinstance(instance, int | float | Decimal)


def _is_integer(_: object, instance: object) -> bool:
    if isinstance(instance, bool):
        return False
    if isinstance(instance, int):
        return True
    if isinstance(instance, Decimal):
        return instance.is_finite() and instance == instance.to_integral_value()
    return isinstance(instance, float) and instance.is_integer()


_CHECKER = Draft202012Validator.TYPE_CHECKER.redefine_many({"number": _is_number, "integer": _is_integer})
_Exact = jsonschema.validators.extend(Draft202012Validator, type_checker=_CHECKER)  # type: ignore[no-untyped-call]


@functools.cache
def _validator(schema: Schema) -> Any:
    return _Exact(to_document(schema))


def oracle(codec: c.Codec[Any]) -> Callable[[Value], bool]:
    """Whether jsonschema accepts a value under the codec's schema (``Decimal`` integral = integer)."""
    schema = codec.schema
    assert schema is not None
    validator = _validator(schema)
    return lambda value: bool(validator.is_valid(value))


# ---------------------------------------------------------------------------------------------------------
# A catalog of codecs whose every rule the schema states, with strategies for their native values.


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Level(enum.Enum):
    LOW = 1
    HIGH = 2


class Priority(enum.IntEnum):
    LOW = 10
    HIGH = 20


class Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue"


@attrs.frozen
class Point:
    x: int
    y: int
    label: str | None = None


@attrs.frozen
class Circle:
    radius: Decimal


@attrs.frozen
class Square:
    side: Decimal


class Empty(enum.Enum):
    EMPTY = "empty"


@attrs.frozen
class Node:
    value: int
    children: tuple[Node, ...] = ()


@attrs.frozen
class Entry:
    """A codec, a strategy for its native values, and whether the schema states every rule it checks."""

    codec: c.Codec[Any]
    natives: st.SearchStrategy[Any]
    exact_schema: bool = True


_small_decimals = st.builds(
    lambda n, scale: Decimal(n).scaleb(-scale), st.integers(-(10**6), 10**6), st.integers(0, 4)
)
_point = reg(
    c.record(
        Point,
        c.required("x", c.integer()),
        c.required("y", c.integer()),
        c.optional("label", c.nullable(c.string()), default=None),
    )
)
_circle = reg(c.record(Circle, c.required("radius", c.decimal(minimum=0))))
_square = reg(c.record(Square, c.required("side", c.decimal(exclusive_minimum=0))))
_shapes = st.builds(Circle, _small_decimals.map(abs)) | st.builds(
    Square, _small_decimals.map(abs).map(lambda d: d + 1)
)


def _node_codec() -> c.Codec[Node]:
    node: c.Codec[Node] = c.lazy(lambda: body, name="Node")
    children = c.map(c.list_of(node), tuple, list)
    body = c.record(Node, c.required("value", c.integer()), c.optional("children", children, default=()))
    return body


_nodes = st.recursive(
    st.builds(Node, st.integers(-5, 5)),
    lambda kids: st.builds(Node, st.integers(-5, 5), st.lists(kids, max_size=3).map(tuple)),
    max_leaves=12,
)

_records = st.fixed_dictionaries(
    {"name": st.text(max_size=5)},
    optional={"age": st.integers(0, 150), "nick": st.none() | st.text(max_size=3)},
)

CATALOG: dict[str, Entry] = {
    "string": Entry(c.string(), st.text()),
    "string lengths": Entry(c.string(min_length=1, max_length=4), st.text(min_size=1, max_size=4)),
    "string pattern": Entry(
        c.string(pattern="^[a-c]", format="email"),
        st.builds(str.__add__, st.sampled_from("abc"), st.text(max_size=5)),
    ),
    "boolean": Entry(c.boolean(), st.booleans()),
    "integer": Entry(c.integer(), st.integers()),
    "integer range": Entry(c.integer(minimum=0, maximum=150), st.integers(0, 150)),
    "integer exclusive": Entry(
        c.integer(exclusive_minimum=-5, exclusive_maximum=Decimal("10.5"), multiple_of=3),
        st.sampled_from([-3, 0, 3, 6, 9]),
    ),
    "decimal": Entry(c.decimal(), _small_decimals),
    "decimal range": Entry(
        c.decimal(minimum=Decimal("-1.5"), exclusive_maximum=Decimal("2.25"), multiple_of=Decimal("0.25")),
        st.integers(-6, 8).map(lambda k: Decimal(k) * Decimal("0.25")),
    ),
    "floating": Entry(c.floating(), st.floats(allow_nan=False, allow_infinity=False)),
    "floating range": Entry(c.floating(minimum=-1, maximum=1), st.floats(-1, 1)),
    "enum": Entry(c.enum_of(Unit), st.sampled_from(Unit)),
    "enum of ints": Entry(c.enum_of(Level), st.sampled_from(Level)),
    "int enum": Entry(c.enum_of(Priority), st.sampled_from(Priority)),
    "str enum": Entry(c.enum_of(Colour), st.sampled_from(Colour)),
    "enum mapping": Entry(c.enum_of({"low": 1, "high": 2}), st.sampled_from([1, 2])),
    "literal strings": Entry(c.literal("a", "b"), st.sampled_from(["a", "b"])),
    "literal mixed": Entry(c.literal("a", 1, True, None), st.sampled_from(["a", 1, True, None])),
    "literal ints": Entry(c.literal(1, 2, 3), st.sampled_from([1, 2, 3])),
    # A format is an annotation in the schema the oracle reads, so these codecs check more than it states.
    "date time": Entry(
        c.date_time(),
        st.datetimes(
            timezones=st.integers(-1439, 1439).map(lambda m: datetime.timezone(datetime.timedelta(minutes=m)))
        ),
        exact_schema=False,
    ),
    "date": Entry(c.date(), st.dates(), exact_schema=False),
    "uuid": Entry(c.uuid(), st.uuids(), exact_schema=False),
    "untagged": Entry(
        c.untagged(c.integer(minimum=0), c.string(max_length=3)), st.integers(0, 200) | st.text(max_size=3)
    ),
    "untagged bool int": Entry(c.untagged(c.boolean(), c.integer()), st.booleans() | st.integers()),
    "untagged containers": Entry(
        c.nullable(c.untagged(c.list_of(c.integer()), c.dict_of(c.boolean()), c.decimal())),
        st.none()
        | st.lists(st.integers(), max_size=3)
        | st.dictionaries(st.text(max_size=2), st.booleans(), max_size=2)
        | _small_decimals,
    ),
    "list": Entry(c.list_of(c.integer()), st.lists(st.integers(), max_size=5)),
    "list bounded": Entry(
        c.list_of(c.string(max_length=2), min_items=1, max_items=3),
        st.lists(st.text(max_size=2), min_size=1, max_size=3),
    ),
    "tuple": Entry(
        c.tuple_of(c.string(), c.integer(), c.boolean()), st.tuples(st.text(), st.integers(), st.booleans())
    ),
    "empty tuple": Entry(c.tuple_of(), st.just(())),
    "dict": Entry(
        c.dict_of(c.integer(minimum=0)), st.dictionaries(st.text(max_size=4), st.integers(0, 99), max_size=4)
    ),
    "nullable": Entry(c.nullable(c.string()), st.none() | st.text()),
    "nullable list": Entry(
        c.nullable(c.list_of(c.boolean())), st.none() | st.lists(st.booleans(), max_size=3)
    ),
    "record": Entry(
        c.record(
            dict,
            c.required("name", c.string(max_length=5)),
            c.optional("age", c.integer(minimum=0, maximum=150), description="Age in years."),
            c.optional("nick", c.nullable(c.string())),
            description="A person.",
        ),
        _records,
    ),
    "record class": Entry(
        _point, st.builds(Point, st.integers(), st.integers(), st.none() | st.text(max_size=3))
    ),
    "empty record": Entry(c.record(dict), st.just({})),
    "union": Entry(
        c.union(c.variant("circle", _circle), c.variant("square", _square), c.unit("empty", Empty.EMPTY)),
        _shapes | st.just(Empty.EMPTY),
    ),
    "union keys": Entry(
        c.union(c.variant("circle", _circle), c.variant("square", _square), tag="kind", value="shape"),
        _shapes,
    ),
    "internal union": Entry(
        c.internal_union(
            c.variant("circle", _circle, description="A circle."),
            c.variant("square", _square),
            c.unit("empty", Empty.EMPTY),
        ),
        _shapes | st.just(Empty.EMPTY),
    ),
    "lazy tree": Entry(_node_codec(), _nodes),
    "described": Entry(c.integer(minimum=1).with_description("How many."), st.integers(min_value=1)),
    "map": Entry(c.map(c.list_of(c.integer()), tuple, list), st.lists(st.integers(), max_size=4).map(tuple)),
    "json value": Entry(
        c.json_value(),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=3) | _small_decimals,
            lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=3), kids, max_size=3),
            max_leaves=8,
        ),
    ),
    "custom": Entry(
        c.custom(
            lambda v: Ok(v) if isinstance(v, str) else Err("expected text"), Ok, make(("type", "string"))
        ),
        st.text(),
    ),
    "try_map": Entry(
        c.try_map(
            c.string(),
            lambda s: Ok(int(s)) if s.isascii() and s.isdigit() else Err("expected decimal digits"),
            lambda n: Ok(str(n)) if n >= 0 else Err("negative"),
        ),
        st.integers(0, 10**6),
        exact_schema=False,
    ),
}
for _entry in CATALOG.values():
    reg(_entry.codec)


# ---------------------------------------------------------------------------------------------------------
# Mutations of JSON values: near misses rather than noise.

_NEAR: list[Value] = [
    None, True, False, 0, 1, -1, 2, 3, 150, 151, -5, -6, 9, 10, 11, 12,
    Decimal("1.0"), Decimal("0.5"), Decimal("0.25"), Decimal("2.25"), Decimal("2.0"), Decimal("-1.5"),
    Decimal("-1.75"), Decimal("10.5"), Decimal("1E+2"), Decimal("-0"), Decimal("1.5"), Decimal("-1"),
    "", "a", "ab", "abc", "abcde", "d", "A", "1", "x1", "circle", "square", "empty", "Circle", "celsius",
    "kelvin", "low", "high", "b", [], [1], [True], ["a", 1, True], ["a", 1], {}, {"a": 1},
]  # fmt: skip

_KEYS = ["name", "age", "nick", "x", "y", "label", "radius", "side", "tag", "value", "kind", "shape", "type",
         "children", "zzz", ""]  # fmt: skip


def _paths(value: Value, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    yield path
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*path, i))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))


def _replace(value: Value, path: tuple[str | int, ...], fn: Callable[[Value], Value]) -> Value:
    if not path:
        return fn(value)
    head, rest = path[0], path[1:]
    if isinstance(value, list) and isinstance(head, int):
        return [_replace(item, rest, fn) if i == head else item for i, item in enumerate(value)]
    if isinstance(value, dict) and isinstance(head, str):
        return {k: _replace(item, rest, fn) if k == head else item for k, item in value.items()}
    return value


@st.composite
def _mutation(draw: st.DrawFn, value: Value) -> Value:
    path = draw(st.sampled_from(list(_paths(value))))
    near = st.sampled_from(_NEAR) | _small_decimals | st.integers(-20, 200)

    def change(target: Value) -> Value:
        ops = ["replace"]
        if isinstance(target, dict):
            ops += ["drop", "add"] if target else ["add"]
        if isinstance(target, list):
            ops += ["drop", "add"] if target else ["add"]
        op = draw(st.sampled_from(ops))
        if op == "replace":
            return draw(near)
        if isinstance(target, dict):
            if op == "drop":
                key = draw(st.sampled_from(sorted(target)))
                return {k: v for k, v in target.items() if k != key}
            return {**target, draw(st.sampled_from(_KEYS)): draw(near)}
        assert isinstance(target, list)
        if op == "drop":
            return target[:-1]
        return [*target, draw(near | st.sampled_from(target) if target else near)]

    return _replace(value, path, change)


def mutations(value: Value) -> st.SearchStrategy[Value]:
    """``value`` itself, or it changed in one to three places (a part replaced, dropped or added)."""

    @st.composite
    def chain(draw: st.DrawFn) -> Value:
        out = value
        for _ in range(draw(st.integers(1, 3))):
            out = draw(_mutation(out))
        return out

    return st.just(value) | chain()


def arbitrary_objects() -> st.SearchStrategy[Any]:
    """Any Python objects, JSON-like or not: floats, NaNs, bytes, tuples, sets, non-string keys, instances."""
    scalars = (
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats()
        | st.decimals()
        | st.sampled_from([Decimal("sNaN"), Decimal("-Infinity"), Decimal("1E+100000"), Decimal("1E-100000")])
        | st.text()
        | st.text(st.characters(categories=["Cs"]), max_size=2)
        | st.binary(max_size=3)
        | st.sampled_from([object(), Unit.CELSIUS, Empty.EMPTY, Point(1, 2), Circle(Decimal(1)), int, ...])
        | st.sampled_from(_NEAR)
    )
    return st.recursive(
        scalars,
        lambda kids: (
            st.lists(kids, max_size=4)
            | st.tuples(kids, kids)
            | st.frozensets(st.integers(), max_size=2)
            | st.dictionaries(st.sampled_from(_KEYS) | st.text(max_size=3) | st.integers(), kids, max_size=4)
        ),
        max_leaves=10,
    )
