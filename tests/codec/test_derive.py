"""
``derive``: codecs from attrs classes and dataclasses, chosen by type hints and metadata.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import uuid
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Annotated, Any, ClassVar, Literal, NewType, Optional, Union

import attrs
import pytest
from codec_strategies import REGISTRY, arbitrary_objects, document, mutations, oracle, reg, unwrap
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from strategies import json_values

from llm_wire import codec as c
from llm_wire import contract
from llm_wire.result import Err, Ok
from llm_wire.schema import DefinitionError
from llm_wire.value import Value

D = Decimal
ORACLE_EXAMPLES = max(25, settings().max_examples // 4)


def body(codec: c.Codec[Any]) -> Any:
    doc = document(reg(codec))
    assert isinstance(doc, dict)
    return {k: v for k, v in doc.items() if k != "$schema"}


def err_text(codec: c.Codec[Any], value: Any) -> str:
    result = codec.decode(value)
    assert isinstance(result, Err), result
    return result.error.describe()


class TemperatureUnit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.frozen
class Location:
    city: str
    country: Annotated[str, c.meta(min_length=2, max_length=2, description="ISO 3166 code.")]
    latitude: Annotated[float, c.meta(minimum=-90, maximum=90)]
    longitude: Annotated[float, c.meta(minimum=-180, maximum=180)]


@attrs.frozen
class GetWeather:
    """
    Get the current weather for a city.
    """

    location: Location
    unit: TemperatureUnit = c.field(default=TemperatureUnit.CELSIUS, description="Preferred unit.")  # noqa: RUF009 - a field specifier
    days: int = c.field(default=1, minimum=1, maximum=16)
    include: list[Literal["temperature", "wind", "rain"]] = attrs.field(factory=list)


WEATHER: Any = {
    "location": {"city": "Tokyo", "country": "JP", "latitude": D("35.68"), "longitude": D("139.69")},
    "unit": "fahrenheit",
    "days": 3,
    "include": ["wind"],
}


class TestWeather:
    def test_decode_gives_an_instance(self) -> None:
        """Decoding builds the classes, nested ones included."""
        codec = c.derive(GetWeather)
        assert codec.decode(WEATHER) == Ok(
            GetWeather(Location("Tokyo", "JP", 35.68, 139.69), TemperatureUnit.FAHRENHEIT, 3, ["wind"])
        )

    def test_defaults(self) -> None:
        """A field with a default or factory is optional."""
        codec = c.derive(GetWeather)
        value = unwrap(codec.decode({"location": WEATHER["location"]}))
        assert (value.unit, value.days, value.include) == (TemperatureUnit.CELSIUS, 1, [])

    def test_encode(self) -> None:
        """Encoding writes every field in order, floats as shortest decimals."""
        codec = c.derive(GetWeather)
        value = GetWeather(Location("Oslo", "NO", 59.91, 10.75), TemperatureUnit.CELSIUS, 2, [])
        assert codec.encode(value) == Ok(
            {
                "location": {
                    "city": "Oslo",
                    "country": "NO",
                    "latitude": D("59.91"),
                    "longitude": D("10.75"),
                },
                "unit": "celsius",
                "days": 2,
                "include": [],
            }
        )

    def test_errors(self) -> None:
        """Errors carry the field path; metadata constraints apply."""
        codec = c.derive(GetWeather)
        bad_country = {**WEATHER, "location": {**WEATHER["location"], "country": "JPN"}}
        assert err_text(codec, bad_country) == '$["location"]["country"]: expected at most 2 characters'
        assert err_text(codec, {**WEATHER, "days": 17}) == '$["days"]: expected at most 16'
        assert err_text(codec, {**WEATHER, "include": ["snow"]}) == (
            '$["include"][0]: expected one of "temperature", "wind", "rain"'
        )
        assert err_text(codec, {**WEATHER, "units": "celsius"}) == (
            '$[*]: unexpected property; the allowed properties are "location", "unit", "days", "include"'
        )

    def test_schema(self) -> None:
        """Docstring, field descriptions, defaults, constraints, authored order."""
        assert body(c.derive(GetWeather)) == {
            "description": "Get the current weather for a city.",
            "type": "object",
            "properties": {
                "location": {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string"},
                        "country": {
                            "description": "ISO 3166 code.",
                            "type": "string",
                            "minLength": 2,
                            "maxLength": 2,
                        },
                        "latitude": {"type": "number", "minimum": -90, "maximum": 90},
                        "longitude": {"type": "number", "minimum": -180, "maximum": 180},
                    },
                    "required": ["city", "country", "latitude", "longitude"],
                    "additionalProperties": False,
                },
                "unit": {
                    "description": "Preferred unit.",
                    "type": "string",
                    "enum": ["celsius", "fahrenheit"],
                    "default": "celsius",
                },
                "days": {"type": "integer", "minimum": 1, "maximum": 16, "default": 1},
                "include": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["temperature", "wind", "rain"]},
                },
            },
            "required": ["location"],
            "additionalProperties": False,
        }


@attrs.frozen
class Scalars:
    text: str
    count: int
    ratio: float
    flag: bool
    amount: Decimal
    unit: TemperatureUnit
    mode: Literal["fast", "slow"]
    code: Literal[1, 2]


class TestScalarHints:
    def test_each_scalar(self) -> None:
        """str, int, float, bool, Decimal, Enum, Literal: decode, encode, schema."""
        codec = c.derive(Scalars)
        data: Any = {
            "text": "t",
            "count": D("2.0"),
            "ratio": D("0.5"),
            "flag": True,
            "amount": D("0.10"),
            "unit": "celsius",
            "mode": "slow",
            "code": 2,
        }
        value = Scalars("t", 2, 0.5, True, D("0.10"), TemperatureUnit.CELSIUS, "slow", 2)
        assert codec.decode(data) == Ok(value)
        assert codec.encode(value) == Ok({**data, "count": 2})
        assert body(codec)["properties"] == {
            "text": {"type": "string"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "flag": {"type": "boolean"},
            "amount": {"type": "number"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
            "code": {"type": "integer", "enum": [1, 2]},
        }

    def test_strictness(self) -> None:
        """No coercion: "5" is not an int, 1 is not a bool, 1.5 is not an int."""
        codec = c.derive(Scalars)
        base: Any = {
            "text": "t",
            "count": 1,
            "ratio": 1,
            "flag": True,
            "amount": 1,
            "unit": "celsius",
            "mode": "fast",
            "code": 1,
        }
        assert isinstance(codec.decode(base), Ok)
        assert err_text(codec, {**base, "count": "5"}) == '$["count"]: expected an integer'
        assert err_text(codec, {**base, "count": D("1.5")}) == '$["count"]: expected an integer'
        assert err_text(codec, {**base, "flag": 1}) == '$["flag"]: expected a boolean'
        assert err_text(codec, {**base, "count": True}) == '$["count"]: expected an integer'


@attrs.frozen
class Optionals:
    required_nullable: int | None
    optional_nullable: Optional[str] = None  # noqa: UP045 - the spelling under test
    optional_plain: int = 7
    old_union: Union[int, None] = 3  # noqa: UP007 - the spelling under test


class TestOptionalAndNullable:
    def test_absent_null_value(self) -> None:
        """Absent gives the default; null only where the type is nullable; a value is a value."""
        codec = c.derive(Optionals)
        assert codec.decode({"required_nullable": None}) == Ok(Optionals(None, None, 7, 3))
        assert err_text(codec, {}) == '$["required_nullable"]: required property is missing'
        assert codec.decode({"required_nullable": 1, "optional_nullable": None}) == Ok(
            Optionals(1, None, 7, 3)
        )
        assert codec.decode({"required_nullable": 1, "optional_nullable": "x"}) == Ok(Optionals(1, "x", 7, 3))
        assert err_text(codec, {"required_nullable": 1, "optional_plain": None}) == (
            '$["optional_plain"]: expected an integer'
        )
        assert codec.decode({"required_nullable": 1, "old_union": None}) == Ok(Optionals(1, None, 7, None))

    def test_encode(self) -> None:
        """None encodes as null."""
        assert c.derive(Optionals).encode(Optionals(None, None, 7, 3)) == Ok(
            {"required_nullable": None, "optional_nullable": None, "optional_plain": 7, "old_union": 3}
        )

    def test_schema(self) -> None:
        """Nullable is anyOf with null; optional fields are not required; defaults shown when encodable."""
        assert body(c.derive(Optionals)) == {
            "type": "object",
            "properties": {
                "required_nullable": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "optional_nullable": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                "optional_plain": {"type": "integer", "default": 7},
                "old_union": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 3},
            },
            "required": ["required_nullable"],
            "additionalProperties": False,
        }


@attrs.frozen
class Containers:
    names: list[Annotated[str, c.meta(min_length=1)]]
    pair: tuple[str, int]
    many: tuple[int, ...]
    scores: dict[str, float]
    seq: Sequence[bool] = ()
    mapping: Mapping[str, int] = attrs.field(factory=dict)
    limited: Annotated[list[int], c.meta(min_items=1, max_items=2)] = (0,)  # type: ignore[assignment]


@attrs.frozen
class Patch:
    """Change a setting: absent leaves it, null clears it, a value sets it."""

    colour: str | c.Absent | None = c.ABSENT


class TestThreeStates:
    def test_absent_null_value(self) -> None:
        """With ``Absent`` in the hint and ABSENT as default, the three cases stay apart both ways."""
        codec = c.derive(Patch)
        assert codec.decode({}) == Ok(Patch(c.ABSENT))
        assert codec.decode({"colour": None}) == Ok(Patch(None))
        assert codec.decode({"colour": "red"}) == Ok(Patch("red"))
        assert codec.encode(Patch(c.ABSENT)) == Ok({})
        assert codec.encode(Patch(None)) == Ok({"colour": None})
        assert body(codec)["properties"] == {"colour": {"anyOf": [{"type": "string"}, {"type": "null"}]}}
        assert body(codec)["required"] == []


class TestContainerHints:
    def test_decode_encode(self) -> None:
        """list, tuple[A, B], tuple[T, ...], dict[str, T], Sequence and Mapping."""
        codec = c.derive(Containers)
        data: Any = {"names": ["a"], "pair": ["x", 1], "many": [1, 2], "scores": {"k": D("0.5")}}
        value = Containers(["a"], ("x", 1), (1, 2), {"k": 0.5})
        assert codec.decode(data) == Ok(value)
        assert codec.encode(value) == Ok({**data, "seq": [], "mapping": {}, "limited": [0]})
        assert err_text(codec, {**data, "names": [""]}) == '$["names"][0]: expected at least 1 character'
        assert err_text(codec, {**data, "limited": []}) == '$["limited"]: expected at least 1 item'

    def test_schema(self) -> None:
        """Each container's schema."""
        assert body(c.derive(Containers))["properties"] == {
            "names": {"type": "array", "items": {"type": "string", "minLength": 1}},
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "string"}, {"type": "integer"}],
                "minItems": 2,
                "maxItems": 2,
            },
            "many": {"type": "array", "items": {"type": "integer"}},
            "scores": {"type": "object", "additionalProperties": {"type": "number"}},
            "seq": {"type": "array", "items": {"type": "boolean"}, "default": []},
            "mapping": {"type": "object", "additionalProperties": {"type": "integer"}},
            "limited": {
                "type": "array",
                "items": {"type": "integer"},
                "minItems": 1,
                "maxItems": 2,
                "default": [0],
            },
        }


@attrs.frozen
class Opaque:
    """A record carrying JSON values as they are (a provider's replay data)."""

    kind: str
    data: Value
    more: list[Value] = attrs.field(factory=list)
    extra: Value = None


class TestJsonValueHints:
    def test_value_is_any_json_value(self) -> None:
        """A ``Value`` hint derives ``json_value()``: kept as it is, schema ``{}``, non-JSON refused."""
        codec = c.derive(Opaque)
        data: Any = {"kind": "k", "data": {"a": [1, D("0.5"), None, True, {"b": "x"}]}, "more": [[], {}]}
        value = Opaque("k", data["data"], [[], {}])
        assert codec.decode(data) == Ok(value)
        assert codec.encode(value) == Ok({**data, "extra": None})
        assert body(codec)["properties"] == {
            "kind": {"type": "string"},
            "data": {},
            "more": {"type": "array", "items": {}},
            "extra": {"default": None},
        }
        not_json: list[Any] = [0.5, {1: "x"}, object()]  # a float is no JSON value here; nor an int key
        for value in not_json:
            assert isinstance(codec.encode(Opaque("k", value)), Err)

    @given(json_values())
    def test_round_trip(self, value: Value) -> None:
        """Any JSON value survives encode then decode unchanged."""
        codec = c.derive(Opaque)
        encoded = unwrap(codec.encode(Opaque("k", value, [value], value)))
        assert codec.decode(encoded) == Ok(Opaque("k", value, [value], value))


@attrs.frozen
class Entry:
    key: str
    note: Value = None
    weight: float = 1.0


@attrs.frozen
class Ledger:
    """Entries by key, kept as a list of them."""

    entries: Mapping[str, Entry]
    unit: TemperatureUnit = TemperatureUnit.CELSIUS
    spare: Entry | None = None


def _by_key(item: c.Codec[Entry]) -> c.Codec[Mapping[str, Entry]]:
    return c.map(c.list_of(item), lambda items: {i.key: i for i in items}, lambda m: list(m.values()))


ENTRY = c.derive(Entry)
UNITS = c.enum_of({"C": TemperatureUnit.CELSIUS, "F": TemperatureUnit.FAHRENHEIT})


class TestOverridesAndRequireAll:
    """``codecs`` stands in for a hint wherever it appears; ``require_all`` reads a document only whole."""

    def test_a_hint_takes_its_codec_everywhere(self) -> None:
        """A ``Mapping``, an enum and ``Value`` take the given codecs, in nested classes too."""
        floats = c.json_value(floats=True)
        entries = _by_key(c.derive(Entry, codecs={Value: floats}))  # a codec given is used as it is
        codec = c.derive(Ledger, codecs={Mapping[str, Entry]: entries, TemperatureUnit: UNITS, Value: floats})
        ratio: Any = {"r": 0.5}
        ledger = Ledger({"a": Entry("a", ratio), "b": Entry("b")}, TemperatureUnit.FAHRENHEIT)
        document: Any = {
            "entries": [
                {"key": "a", "note": {"r": 0.5}, "weight": D("1.0")},
                {"key": "b", "note": None, "weight": D("1.0")},
            ],
            "unit": "F",
            "spare": None,
        }
        assert codec.encode(ledger) == Ok(document)
        assert codec.decode(document) == Ok(ledger)
        assert body(codec)["properties"]["entries"]["type"] == "array"
        assert body(codec)["properties"]["unit"] == {"type": "string", "enum": ["C", "F"], "default": "C"}
        # ``Value`` counts as the hint it stands for, nested in another hint too.
        loose = c.derive(Opaque, codecs={list[Value]: c.json_value()})
        assert body(loose)["properties"]["more"] == {}
        assert body(c.derive(Opaque))["properties"]["more"] == {"type": "array", "items": {}}
        # Without the override, a float in a ``Value`` is no JSON value.
        assert isinstance(c.derive(Entry).encode(Entry("a", 0.5)), Err)  # type: ignore[arg-type]
        assert c.derive(Entry, codecs={Value: floats}).encode(Entry("a", 0.5)) == Ok(  # type: ignore[arg-type]
            {"key": "a", "note": 0.5, "weight": D("1.0")}
        )

    def test_a_field_codec_wins_and_constraints_are_refused(self) -> None:
        """A field's ``codec=`` beats an override; constraints on an overridden hint are refused."""
        when = c.derive(Overridden, codecs={str: c.string(max_length=1)})
        assert when.decode({"when": 42}) == Ok(Overridden("42"))
        with pytest.raises(DefinitionError, match="minimum, maximum does not apply to float"):
            c.derive(Location, codecs={float: c.floating()})
        with pytest.raises(DefinitionError, match="not a Codec"):
            c.derive(Entry, codecs={str: "string"})  # type: ignore[dict-item]

    def test_require_all_reads_only_whole_documents(self) -> None:
        """Every field is required on decoding, defaults and all; encoding and construction are unchanged."""
        codec = c.derive(Ledger, require_all=True, codecs={Mapping[str, Entry]: _by_key(ENTRY)})
        whole: Any = {"entries": [], "unit": "celsius", "spare": {"key": "s", "note": None, "weight": 2}}
        assert codec.decode(whole) == Ok(Ledger({}, spare=Entry("s", None, 2.0)))
        assert (
            err_text(codec, {"entries": [], "unit": "celsius"}) == '$["spare"]: required property is missing'
        )
        nested: Any = {**whole, "spare": {"key": "s", "note": None}}
        assert err_text(codec, nested) == '$["spare"]["weight"]: required property is missing'
        assert codec.encode(Ledger({})) == Ok({"entries": [], "unit": "celsius", "spare": None})
        schema = body(codec)
        assert schema["required"] == ["entries", "unit", "spare"]
        assert "default" not in schema["properties"]["unit"]
        assert c.derive(Ledger, codecs={Mapping[str, Entry]: _by_key(ENTRY)}).decode({"entries": []}) == Ok(
            Ledger({})
        )


@attrs.frozen
class Circle:
    radius: float


@attrs.frozen
class Square:
    tag: ClassVar[str] = "square"
    side: float


@attrs.frozen
class Drawing:
    shapes: list[Circle | Square]
    focus: Annotated[Circle | Square | None, c.meta(tag="kind")] = None


class TestUnionsOfClasses:
    def test_decode_encode(self) -> None:
        """Internally tagged by class name or a declared ``tag``; the tag member is configurable."""
        codec = c.derive(Drawing)
        data: Any = {"shapes": [{"type": "Circle", "radius": 1}, {"type": "square", "side": D("2.5")}]}
        assert codec.decode(data) == Ok(Drawing([Circle(1.0), Square(2.5)]))
        assert codec.decode({"shapes": [], "focus": {"kind": "Circle", "radius": 1}}) == Ok(
            Drawing([], Circle(1.0))
        )
        assert codec.encode(Drawing([Square(2.0)], Circle(0.5))) == Ok(
            {
                "shapes": [{"type": "square", "side": D("2.0")}],
                "focus": {"kind": "Circle", "radius": D("0.5")},
            }
        )
        assert err_text(codec, {"shapes": [{"type": "Hexagon"}]}) == (
            '$["shapes"][0]["type"]: expected one of the tags "Circle", "square"'
        )

    def test_schema(self) -> None:
        """anyOf the variants, each a closed object with its tag first."""
        shapes = body(c.derive(Drawing))["properties"]["shapes"]["items"]
        assert shapes == {
            "type": "object",
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "type": {"type": "string", "enum": ["Circle"]},
                        "radius": {"type": "number"},
                    },
                    "required": ["type", "radius"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "properties": {
                        "type": {"type": "string", "enum": ["square"]},
                        "side": {"type": "number"},
                    },
                    "required": ["type", "side"],
                    "additionalProperties": False,
                },
            ],
        }


@attrs.frozen
class Tree:
    """A tree of numbers."""

    value: int
    children: list[Tree] = attrs.field(factory=list)


@attrs.frozen
class Forest:
    trees: list[Tree]
    biggest: Tree | None = None


@attrs.frozen
class Num:
    n: int


@attrs.frozen
class Add:
    left: Add | Num
    right: Add | Num


class TestRecursiveClasses:
    def test_tree(self) -> None:
        """A class that refers to itself decodes and encodes; its schema uses $defs at the root."""
        codec = c.derive(Tree)
        data: Any = {"value": 1, "children": [{"value": 2, "children": []}]}
        assert codec.decode(data) == Ok(Tree(1, [Tree(2)]))
        assert codec.encode(Tree(1, [Tree(2)])) == Ok(data)
        doc = body(codec)
        assert doc["properties"]["children"]["items"] == {"$ref": "#/$defs/Tree"}
        assert doc["$defs"]["Tree"]["description"] == "A tree of numbers."

    def test_nested_recursive_class(self) -> None:
        """Inside another class the definitions still sit at the document root."""
        doc = body(c.derive(Forest))
        assert list(doc["$defs"]) == ["Tree"]
        assert "$defs" not in doc["properties"]["trees"]["items"]
        forest = Forest([Tree(1, [Tree(2)])], Tree(3))
        assert c.derive(Forest).decode(unwrap(c.derive(Forest).encode(forest))) == Ok(forest)

    def test_mutual_recursion_through_a_union(self) -> None:
        """An expression tree: the tagged variant itself becomes the definition."""
        codec = c.derive(Add)
        data: Any = {
            "left": {"type": "Num", "n": 1},
            "right": {"type": "Add", "left": {"type": "Num", "n": 2}, "right": {"type": "Num", "n": 3}},
        }
        value = Add(Num(1), Add(Num(2), Num(3)))
        assert codec.decode(data) == Ok(value)
        assert codec.encode(value) == Ok(data)
        doc = body(codec)
        assert doc["properties"]["left"]["anyOf"][0] == {"$ref": "#/$defs/Add"}
        assert doc["$defs"]["Add"]["properties"]["type"] == {"type": "string", "enum": ["Add"]}
        assert oracle(codec)(data)
        assert not oracle(codec)({**data, "right": {"type": "Add", "left": {"type": "Num", "n": 2}}})

    def test_deep_data_is_a_typed_error(self) -> None:
        """Recursion depth is bounded: a typed error, never RecursionError."""
        deep: Any = {"value": 0}
        for _ in range(10_000):
            deep = {"value": 0, "children": [deep]}
        result = c.derive(Tree).decode(deep)
        assert isinstance(result, Err)
        assert result.error.describe().startswith("$: nesting depth exceeds 64")


@dataclasses.dataclass(frozen=True)
class Ticket:
    """Open a support ticket."""

    title: Annotated[str, c.meta(max_length=80)]
    body: str = c.dataclass_field(default="", description="Details.")
    labels: list[str] = c.dataclass_field(factory=list, max_items=5)  # noqa: RUF009 - a field specifier
    priority: int = dataclasses.field(default=3, metadata={"llm_wire": c.meta(minimum=1, maximum=5)})
    owner: str | None = dataclasses.field(default=None, kw_only=True)


@dataclasses.dataclass
class Undocumented:
    x: int


class TestDataclasses:
    def test_decode_encode(self) -> None:
        """Dataclasses derive like attrs classes; kw_only fields are passed by keyword."""
        codec = c.derive(Ticket)
        assert codec.decode({"title": "Broken"}) == Ok(Ticket("Broken"))
        assert codec.decode({"title": "B", "owner": "me", "priority": 1}) == Ok(
            Ticket("B", priority=1, owner="me")
        )
        assert codec.encode(Ticket("B")) == Ok(
            {"title": "B", "body": "", "labels": [], "priority": 3, "owner": None}
        )
        assert err_text(codec, {"title": "B", "priority": 9}) == '$["priority"]: expected at most 5'

    def test_schema(self) -> None:
        """The docstring is the description; the generated dataclass signature is not."""
        doc = body(c.derive(Ticket))
        assert doc["description"] == "Open a support ticket."
        assert doc["properties"]["body"] == {"description": "Details.", "type": "string", "default": ""}
        assert doc["properties"]["labels"] == {"type": "array", "items": {"type": "string"}, "maxItems": 5}
        assert "description" not in body(c.derive(Undocumented))


@attrs.frozen
class Described:
    description: ClassVar[str] = "Said by a class variable."
    _secret: int
    renamed: str = c.field(default="x", name="displayName")


@attrs.frozen
class Overridden:
    when: str = c.field(codec=c.map(c.integer(), str, int), description="Seconds.")


UserId = NewType("UserId", int)


@attrs.frozen
class WithNewType:
    user: UserId


@dataclasses.dataclass(frozen=True)
class DocTicket:
    """Open a support ticket."""

    title: Annotated[str, c.meta(max_length=80)]
    labels: list[str] = c.dataclass_field(factory=list, max_items=5, description="At most five.")  # noqa: RUF009 - a field specifier
    owner: str | None = c.dataclass_field(default=None, name="assignee")


class TestLocalClasses:
    def test_the_dataclass_example_of_the_guide(self) -> None:
        """The dataclass snippet of docs/codecs.md (shown there, run here)."""
        tickets = c.derive(DocTicket)
        assert tickets.decode({"title": "Printer on fire", "assignee": "ops"}) == Ok(
            DocTicket("Printer on fire", [], "ops")
        )

    def test_forward_references_to_local_classes(self) -> None:
        """Classes defined in a function resolve through the namespace where derive is called."""

        @attrs.frozen
        class Leaf:
            n: int

        @attrs.frozen
        class Branch:
            leaves: list[Leaf]
            parent: Branch | None = None

        codec = c.derive(Branch)
        assert codec.decode({"leaves": [{"n": 1}], "parent": {"leaves": []}}) == Ok(
            Branch([Leaf(1)], Branch([]))
        )

    def test_explicit_namespace(self) -> None:
        """``namespace`` supplies names the module and the caller lack."""
        namespace = {"Later": Circle}

        @attrs.frozen
        class Holder:
            item: Later  # type: ignore[name-defined]  # noqa: F821 - supplied by namespace

        assert c.derive(Holder, namespace=namespace).decode({"item": {"radius": 1}}) == Ok(
            Holder(Circle(1.0))
        )


class TestMetadata:
    def test_description_class_variable_and_names(self) -> None:
        """A ``description`` class variable; private attributes by their init name; renamed members."""
        codec = c.derive(Described)
        doc = body(codec)
        assert doc["description"] == "Said by a class variable."
        assert list(doc["properties"]) == ["secret", "displayName"]
        assert codec.decode({"secret": 1, "displayName": "y"}) == Ok(Described(1, "y"))
        assert codec.encode(Described(1, "y")) == Ok({"secret": 1, "displayName": "y"})

    def test_codec_override(self) -> None:
        """``codec=`` replaces the codec the hint would choose."""
        codec = c.derive(Overridden)
        assert codec.decode({"when": 5}) == Ok(Overridden("5"))
        assert body(codec)["properties"]["when"] == {"description": "Seconds.", "type": "integer"}

    def test_new_type(self) -> None:
        """A NewType derives as its supertype."""
        assert c.derive(WithNewType).decode({"user": 3}) == Ok(WithNewType(UserId(3)))

    def test_any_type_hint(self) -> None:
        """``derive`` also takes a bare type hint."""
        assert c.derive(list[int]).decode([1, 2]) == Ok([1, 2])
        assert body(c.derive(Circle | Square))["anyOf"][1]["properties"]["type"]["enum"] == ["square"]


@attrs.frozen
class Unsupported:
    blob: bytes


@attrs.frozen
class NestedBad:
    inner: Unsupported


class Nothing(enum.Enum):
    pass


@attrs.frozen
class EmptyEnum:
    choice: Nothing


@attrs.frozen
class Reversed:
    n: Annotated[int, c.meta(minimum=5, maximum=1)]


@attrs.frozen
class BadPattern:
    code: Annotated[str, c.meta(pattern="(?<=x)y")]


@attrs.frozen
class WrongConstraint:
    name: Annotated[str, c.meta(minimum=1)]


@attrs.frozen
class Clash:
    a: int
    b: int = c.field(default=0, name="a")


@attrs.frozen
class IntKeys:
    m: dict[int, str]


@attrs.frozen
class IntOrFloat:
    v: int | float


@attrs.frozen
class TagClash:
    choice: Circle | Square = c.field(default=Circle(1.0), tag="radius")  # noqa: RUF009 - a field specifier


@attrs.frozen
class CodecAndConstraint:
    n: int = c.field(codec=c.integer(), minimum=1)


@attrs.frozen
class Forward:
    later: Missing  # type: ignore[name-defined]  # noqa: F821 - never defined, on purpose


@dataclasses.dataclass
class AttrsFieldInDataclass:
    x: int = c.field(default=1)


@attrs.frozen
class Boundary:
    """Types users have at the boundary."""

    at: datetime.datetime
    day: datetime.date
    id: uuid.UUID
    key: int | str
    flag: bool | int
    priority: Priority
    shape: Circle | Square | str = "none"
    note: str | int | None = None


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class TestBoundaryHints:
    """datetime, date, UUID, IntEnum and untagged unions derive to codecs whose schema loads as a contract."""

    def test_decode_encode_and_schema(self) -> None:
        """Each hint gets its codec; the schema loads with contract.from_schema and accepts the encoding."""
        codec = c.derive(Boundary)
        value: dict[str, Any] = {
            "at": "2026-03-01T09:30:00Z",
            "day": "2026-03-01",
            "id": "12345678-1234-5678-9abc-def012345678",
            "key": 7,
            "flag": True,
            "priority": 2,
            "shape": {"type": "Circle", "radius": 1},
        }
        decoded = unwrap(codec.decode(value))
        assert decoded == Boundary(
            datetime.datetime(2026, 3, 1, 9, 30, tzinfo=datetime.UTC),
            datetime.date(2026, 3, 1),
            uuid.UUID("12345678-1234-5678-9abc-def012345678"),
            7,
            True,
            Priority.HIGH,
            Circle(1.0),
        )
        encoded = unwrap(codec.encode(decoded))
        assert codec.decode(encoded) == Ok(decoded)
        assert codec.schema is not None
        compiled = unwrap(contract.from_schema(codec.schema))
        assert contract.validate_all(compiled, encoded) == ()
        properties: Any = document(codec)["properties"]  # type: ignore[index,call-overload]
        assert properties["at"] == {"type": "string", "format": "date-time"}
        assert properties["priority"] == {"type": "integer", "enum": [1, 2]}
        assert properties["key"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
        assert codec.decode({**value, "key": "k", "flag": 0, "shape": "x", "note": 3}) == Ok(
            attrs.evolve(decoded, key="k", flag=0, shape="x", note=3)
        )


class TestDefinitionErrors:
    @pytest.mark.parametrize(
        ("cls", "message"),
        [
            (Unsupported, "Unsupported.blob: unsupported type hint bytes"),
            (NestedBad, "NestedBad.inner: Unsupported.blob: unsupported type hint bytes"),
            (EmptyEnum, "EmptyEnum.choice: enum Nothing: has no labels"),
            (Reversed, "Reversed.n: integer: the bounds .* admit no value"),
            (BadPattern, "BadPattern.code: string: pattern"),
            (WrongConstraint, "WrongConstraint.name: minimum does not apply to str"),
            (Clash, 'record Clash: field "a" appears twice'),
            (IntKeys, "IntKeys.m: dict keys must be str, not int"),
            (IntOrFloat, "IntOrFloat.v: untagged: members 0 and 1 both take a JSON integer"),
            (TagClash, 'TagClash.choice: internal_union: the payload of "Circle" has a field named "radius"'),
            (CodecAndConstraint, "CodecAndConstraint.n: codec= cannot be combined with minimum"),
            (Forward, "Forward: cannot resolve its type hints"),
            (AttrsFieldInDataclass, "AttrsFieldInDataclass.x: codec.field is for attrs classes"),
        ],
    )
    def test_raised_when_derived(self, cls: type, message: str) -> None:
        """Each mistake raises DefinitionError naming the class and field."""
        with pytest.raises(DefinitionError, match=message):
            c.derive(cls)

    def test_unknown_setting(self) -> None:
        """field() refuses settings meta() does not know."""
        with pytest.raises(DefinitionError, match="unknown settings colour"):
            c.field(colour="red")  # type: ignore[call-overload]  # mypy catches it too


# ---------------------------------------------------------------------------------------------------------
# Properties of derived codecs.

_coords = st.builds(
    Location,
    st.text(max_size=5),
    st.text(min_size=2, max_size=2),
    st.floats(-90, 90),
    st.floats(-180, 180),
)
_trees = st.recursive(
    st.builds(Tree, st.integers(-9, 9), st.just([])),
    lambda kids: st.builds(Tree, st.integers(-9, 9), st.lists(kids, max_size=3)),
    max_leaves=10,
)
_exprs = st.recursive(
    st.builds(Num, st.integers(-9, 9)),
    lambda kids: st.builds(Add, kids, kids),
    max_leaves=8,
)
DERIVED: dict[str, tuple[c.Codec[Any], st.SearchStrategy[Any]]] = {
    "weather": (
        c.derive(GetWeather),
        st.builds(
            GetWeather,
            _coords,
            st.sampled_from(TemperatureUnit),
            st.integers(1, 16),
            st.lists(st.sampled_from(["temperature", "wind", "rain"]), max_size=3),
        ),
    ),
    "optionals": (
        c.derive(Optionals),
        st.builds(
            Optionals,
            st.none() | st.integers(),
            st.none() | st.text(),
            st.integers(),
            st.none() | st.integers(),
        ),
    ),
    "containers": (
        c.derive(Containers),
        st.builds(
            Containers,
            st.lists(st.text(min_size=1, max_size=3), max_size=3),
            st.tuples(st.text(max_size=3), st.integers()),
            st.lists(st.integers(), max_size=3).map(tuple),
            st.dictionaries(
                st.text(max_size=3), st.floats(allow_nan=False, allow_infinity=False), max_size=3
            ),
            st.lists(st.booleans(), max_size=3),
            st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
            st.lists(st.integers(), min_size=1, max_size=2),
        ),
    ),
    "drawing": (
        c.derive(Drawing),
        st.builds(
            Drawing,
            st.lists(st.builds(Circle, st.floats(0, 9)) | st.builds(Square, st.floats(0, 9)), max_size=3),
            st.none() | st.builds(Circle, st.floats(0, 9)),
        ),
    ),
    "tree": (c.derive(Tree), _trees),
    "forest": (c.derive(Forest), st.builds(Forest, st.lists(_trees, max_size=2), st.none() | _trees)),
    "expression": (c.derive(Add), _exprs.filter(lambda e: isinstance(e, Add))),
    "ticket": (
        c.derive(Ticket),
        st.builds(
            Ticket,
            st.text(max_size=80),
            st.text(max_size=5),
            st.lists(st.text(max_size=3), max_size=5),
            st.integers(1, 5),
            owner=st.none() | st.text(max_size=3),
        ),
    ),
}
for _codec, _ in DERIVED.values():
    reg(_codec)


class TestDerivedProperties:
    """Derived codecs round-trip and agree with the jsonschema oracle."""

    @pytest.mark.parametrize("name", sorted(DERIVED))
    @given(data=st.data())
    def test_derived_round_trip(self, name: str, data: st.DataObject) -> None:
        """
        decode(encode(x)) == Ok(x) for instances of derived classes, and the schema accepts the encoding.
        """
        codec, natives = DERIVED[name]
        value = data.draw(natives)
        encoded = unwrap(codec.encode(value))
        assert codec.decode(encoded) == Ok(value)
        assert oracle(codec)(encoded)

    @pytest.mark.parametrize("name", sorted(DERIVED))
    @settings(
        max_examples=ORACLE_EXAMPLES,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(data=st.data())
    def test_derived_agrees_with_the_oracle(self, name: str, data: st.DataObject) -> None:
        """On encoded and mutated values, decode accepts exactly when jsonschema accepts."""
        codec, natives = DERIVED[name]
        valid = unwrap(codec.encode(data.draw(natives)))
        candidate = data.draw(mutations(valid))
        assert isinstance(codec.decode(candidate), Ok) == oracle(codec)(candidate)

    @settings(max_examples=ORACLE_EXAMPLES)
    @given(value=arbitrary_objects())
    def test_nothing_escapes_derived_codecs(self, value: Any) -> None:
        """Decode and encode of derived codecs return Ok or Err for any Python object."""
        for codec, _ in DERIVED.values():
            assert isinstance(codec.decode(value), Ok | Err)
            assert isinstance(codec.encode(value), Ok | Err)

    def test_demo(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The demo section prints the schema and each outcome, and never the secret it was sent."""
        from llm_wire.demo import codecs as demo

        demo.run()
        out = capsys.readouterr().out
        assert '"additionalProperties":false' in out
        assert '$["days"]: expected at most 16' in out
        assert "unknown   error  $[*]: unexpected property; the allowed properties are" in out
        assert "sk-secret" not in out

    def test_every_registered_schema_is_valid(self) -> None:
        """Every schema a derived codec in these tests renders passes the Draft 2020-12 meta-schema."""
        checked = 0
        for codec in REGISTRY:
            if codec.schema is not None:
                Draft202012Validator.check_schema(document(codec))  # type: ignore[arg-type]
                checked += 1
        assert checked >= len(DERIVED)
