"""
pydantic models and TypedDicts through ``codec.derive``, compared with pydantic itself on a catalogue of
shapes: the schema with ``model_json_schema()``, decoding with ``model_validate_json(..., strict=True)``.

The schemas agree once the differences below are read away (``normal`` does it, one rule per item; the
table in ``docs/tools.md`` says why):

- pydantic titles every model and field; llm_wire writes no titles.
- pydantic puts nested models and enums in ``$defs`` and refers to them; llm_wire writes them inline
  (``$defs`` only for recursion).
- pydantic writes ``const`` for a one-value ``Literal``; llm_wire an ``enum`` of one value.
- pydantic writes a discriminated union as ``oneOf`` with an OpenAPI ``discriminator``; llm_wire as
  ``type: object`` and ``anyOf`` (the tags exclude each other).
- pydantic leaves ``additionalProperties`` out when ``extra`` is unset or ``"ignore"``; llm_wire closes the
  object (``additionalProperties: false``) unless the model says ``extra="allow"``.
- pydantic lets a ``Decimal`` be a number or a string (its default written as a string); llm_wire a number.
- ``additionalProperties: true`` and ``{}``, and ``required: []`` and no ``required``, are the same schema.

Decoding agrees in verdict and value, except where a documented difference refuses what pydantic takes
(``_documented``, and ``TestDifferences`` shows each): an unknown member of a model that does not say
``extra="allow"``, a numeric string for a ``Decimal``, a number beyond the float range (pydantic reads
infinity), and a date-time that is not RFC 3339 (without an offset, say). One goes the other way, for
TypedDicts only (a model's own validation decides, and refuses it): an int written ``3.0``, which JSON
Schema's ``integer`` takes and pydantic's strict mode does not.
"""

from __future__ import annotations

import asyncio
import datetime
import subprocess
import sys
from decimal import Decimal
from typing import Annotated, Any, ClassVar, Literal, NotRequired

import annotated_types
import attrs
import pydantic
import pytest
from codec_strategies import arbitrary_objects, mutations, unwrap
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator
from pydantic_catalogue import MODELS, TYPED_DICTS, Literals, Location, Nested, Tree, values
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict

from llm_wire import admission, codec, reasons, tool
from llm_wire.agent import function_tool, invoke_typed_tool, make_tool, parse_tool_arguments
from llm_wire.codec import ConversionRefused, DecodeError
from llm_wire.message import ToolCall
from llm_wire.result import Err, Ok
from llm_wire.schema import to_document
from llm_wire.value import Value, render

#: Examples per catalogue shape: a third of the profile's (each runs pydantic and llm_wire).
EXAMPLES = max(30, settings().max_examples // 3)

SHAPES: list[type] = [*MODELS, *TYPED_DICTS]


def _theirs(shape: type) -> Any:
    if issubclass(shape, BaseModel):
        return shape.model_json_schema()
    return pydantic.TypeAdapter(shape).json_schema()


def _validate(shape: type, text: str) -> tuple[bool, Any]:
    """pydantic's verdict on ``text`` in strict mode, and its value."""
    try:
        if issubclass(shape, BaseModel):
            return True, shape.model_validate_json(text, strict=True)
        return True, pydantic.TypeAdapter(shape).validate_json(text, strict=True)
    except pydantic.ValidationError:
        return False, None


# ---------------------------------------------------------------------------------------------------------
# The schema, read away from its spelling (one rule per row of the table above).

#: How deep ``normal`` unfolds references: both sides unfold one infinite tree to the same depth.
_UNFOLD = 12


def normal(document: Any, *, pydantic_side: bool) -> Any:
    """``document`` as a comparable value: references unfolded, the table's differences read away."""
    return _normal(document, document.get("$defs", {}), pydantic_side, 0)


def _normal(node: Any, defs: dict[str, Any], theirs: bool, depth: int) -> Any:
    if depth > _UNFOLD:
        return "..."
    if not isinstance(node, dict):
        return node
    if "$ref" in node:  # $defs and $ref: inline, the sibling keywords winning
        target = defs[node["$ref"].rsplit("/", 1)[1]]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("title", "$defs", "$schema", "discriminator"):  # titles; OpenAPI's discriminator
            continue
        if key == "required" and value == []:
            continue
        if key == "const":
            key, value = "enum", [value]
        if key == "oneOf":
            key = "anyOf"
        if key in ("anyOf", "prefixItems"):
            out[key] = [_normal(member, defs, theirs, depth + 1) for member in value]
        elif key == "properties":
            out[key] = {name: _normal(sub, defs, theirs, depth + 1) for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = True if value == {} else _normal(value, defs, theirs, depth + 1)
        else:
            out[key] = _number(value)
    if theirs and "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False  # closed unless extra="allow"
    if "anyOf" in out and out.get("type") == "object":
        del out["type"]  # the type beside a union of objects
    members: list[Any] = out.get("anyOf", [])
    decimal = len(members) == 2 and members[1] == {"type": "string"}
    if theirs and decimal and members[0].get("type") == "number":  # Decimal: a number or a numeric string
        rest = {k: v for k, v in out.items() if k != "anyOf"}
        if isinstance(rest.get("default"), str):  # and its default, written as a string
            rest["default"] = _number(Decimal(rest["default"]))
        return {**members[0], **rest}
    return out


def _number(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return [_number(v) for v in value] if isinstance(value, list) else value
    return Decimal(str(value)).normalize()


class TestSchemaAgreement:
    """Our schema is pydantic's once the table's differences are read away."""

    def test_the_catalogue_is_large(self) -> None:
        assert len(MODELS) >= 40

    @pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.__name__)
    def test_schema(self, shape: type) -> None:
        ours = to_document(unwrap_schema(codec.derive(shape)))
        assert normal(ours, pydantic_side=False) == normal(_theirs(shape), pydantic_side=True)

    def test_normal_sees_a_difference(self) -> None:
        """A lost constraint is not read away (the comparison can fail)."""
        ours: Any = to_document(unwrap_schema(codec.derive(Location)))
        del ours["properties"]["country"]["maxLength"]
        assert normal(ours, pydantic_side=False) != normal(_theirs(Location), pydantic_side=True)


def unwrap_schema(made: codec.Codec[Any]) -> Any:
    assert made.schema is not None
    return made.schema


# ---------------------------------------------------------------------------------------------------------
# Decoding against pydantic's strict mode.


def _documented(error: DecodeError, value: Value) -> bool:
    """Whether a refusal of what pydantic takes is one of ``DIFFERENCES``."""
    if isinstance(error.reason, reasons.UnexpectedProperty):
        return True  # closed unless extra="allow"; pydantic ignores unknown members
    if isinstance(error.reason, codec.FloatOutOfRange):
        return True  # 1E+400 for a float or in an Any value: pydantic reads infinity
    here: Any = value
    for step in error.path:
        here = here[step]
    if error.reason == reasons.WrongType(("integer",)) and isinstance(here, bool):
        return True  # true for Literal[1]: pydantic compares by Python's True == 1, even when strict
    return error.reason == reasons.WrongType(("number",)) and isinstance(here, str)  # Decimal


def _integral(value: Value) -> Value:
    """``value`` with each integral ``Decimal`` (``3.0``, ``1E+2``) written as an int."""
    if isinstance(value, Decimal) and value == value.to_integral_value():
        return int(value)
    if isinstance(value, list):
        return [_integral(item) for item in value]
    if isinstance(value, dict):
        return {key: _integral(item) for key, item in value.items()}
    return value


class TestDecodeAgreement:
    """On generated values, valid and mutated, our verdict is pydantic's and so is the decoded value."""

    @pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.__name__)
    @settings(
        max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
    )
    @given(data=st.data())
    def test_decode(self, shape: type, data: st.DataObject) -> None:
        made: codec.Codec[Any] = codec.derive(shape)
        valid = data.draw(values(to_document(unwrap_schema(made))), label="valid")
        value = data.draw(mutations(valid), label="value")
        text = render(value)
        accepted, theirs = _validate(shape, text)
        match made.decode_json(text):
            case Ok(ours):
                if not accepted:  # a TypedDict's int written 3.0, which JSON Schema's integer takes
                    assert not issubclass(shape, BaseModel)
                    accepted, theirs = _validate(shape, render(_integral(value)))
                    assert accepted, "llm_wire took what pydantic refuses"
                assert ours == theirs
                assert made.decode(unwrap(made.encode(ours))) == Ok(ours)
            case Err(error):
                assert not accepted or _documented(error, value), error

    @pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.__name__)
    @settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
    @given(value=arbitrary_objects())
    def test_no_exception_escapes(self, shape: type, value: Any) -> None:
        """Any Python object at all, JSON or not, decodes to Ok or Err."""
        assert isinstance(codec.derive(shape).decode(value), Ok | Err)

    def test_true_for_an_integer_literal_is_a_documented_difference(self) -> None:
        """pydantic, even strict, takes ``true`` for ``Literal[1]``; we refuse it: a listed difference."""
        text = '{"mode": "fast", "only": "on", "level": true}'
        assert _validate(Literals, text)[0]
        match codec.derive(Literals).decode_json(text):
            case Err(error):
                assert error.path == ("level",)
                assert _documented(error, {"mode": "fast", "only": "on", "level": True})
            case Ok(_):
                raise AssertionError("llm_wire took true for an integer literal")

    def test_a_refusal_is_found(self) -> None:
        """The generated values reach both verdicts (the agreement is not vacuous)."""
        made = codec.derive(Nested)
        assert isinstance(made.decode({"location": {"city": "Oslo", "country": "NO"}}), Ok)
        assert isinstance(made.decode({"location": {"city": "Oslo", "country": "NOR"}}), Err)


class TestDifferences:
    """Each documented difference, shown: llm_wire refuses what pydantic takes."""

    def test_unknown_member(self) -> None:
        text = '{"location": {"city": "Oslo", "country": "NO", "zip": "0150"}}'
        assert _validate(Nested, text)[0]
        error = codec.derive(Nested).decode_json(text)
        assert isinstance(error, Err)
        assert str(error.error) == (
            '$["location"][*]: unexpected property; the allowed properties are "city", "country"'
        )

    def test_numeric_string_for_a_decimal(self) -> None:
        class Price(BaseModel):
            amount: Decimal

        assert _validate(Price, '{"amount": "1.5"}')[0]
        assert codec.derive(Price).decode_json('{"amount": "1.5"}') == Err(
            DecodeError(("amount",), reasons.WrongType(("number",)))
        )

    def test_date_time_without_offset(self) -> None:
        class When(BaseModel):
            at: datetime.datetime

        assert _validate(When, '{"at": "2026-01-02T03:04:05"}')[0]
        refused = codec.derive(When).decode_json('{"at": "2026-01-02T03:04:05"}')
        assert isinstance(refused, Err)
        assert isinstance(refused.error.reason, reasons.FormatMismatch)

    def test_beyond_the_float_range(self) -> None:
        class Reading(BaseModel):
            value: float
            raw: Any = None

        assert _validate(Reading, '{"value": 1E+400}') == (True, Reading(value=float("inf")))
        assert codec.derive(Reading).decode_json('{"value": 1E+400}') == Err(
            DecodeError(("value",), codec.FloatOutOfRange())
        )
        assert codec.derive(Reading).decode_json('{"value": 1, "raw": [1E+400]}') == Err(
            DecodeError(("raw", 0), codec.FloatOutOfRange())
        )

    def test_a_decimal_beyond_the_float_range(self) -> None:
        """Both refuse: pydantic reads the number as a float (infinity), llm_wire says so before."""

        class Price(BaseModel):
            amount: Decimal

        assert not _validate(Price, '{"amount": 1E+400}')[0]
        assert codec.derive(Price).decode_json('{"amount": 1E+400}') == Err(
            DecodeError((), codec.FloatOutOfRange())
        )

    def test_integral_float_for_a_typed_dict_int(self) -> None:
        """The other way: a TypedDict's int written ``3.0`` is an integer to JSON Schema and to llm_wire."""

        class Stay(TypedDict):
            nights: int

        assert not _validate(Stay, '{"nights": 3.0}')[0]
        assert codec.derive(Stay).decode_json('{"nights": 3.0}') == Ok({"nights": 3})

    def test_integral_float_for_an_int(self) -> None:
        """``3.0`` for an int: both refuse; pydantic's ``int_type`` reads as "expected an integer"."""

        class Days(BaseModel):
            days: int

        assert not _validate(Days, '{"days": 3.0}')[0]
        refused = codec.derive(Days).decode_json('{"days": 3.0}')
        assert isinstance(refused, Err)
        assert str(refused.error) == '$["days"]: expected an integer'


# ---------------------------------------------------------------------------------------------------------
# The model's own validation, and what a model is told.


class Booking(BaseModel):
    """Book a table."""

    name: str
    guests: int = Field(ge=1, le=12)
    tags: list[str] = []

    @field_validator("name")
    @classmethod
    def known(cls, name: str) -> str:
        if name.startswith("x"):
            raise ValueError(f"unknown guest {name}")
        return name

    @field_validator("tags")
    @classmethod
    def listed(cls, tags: list[str]) -> list[str]:
        for tag in tags:
            if tag == "secret-9":
                raise PydanticCustomError("tag_not_listed", "tag {tag} is not listed", {"tag": tag})
        return tags


class TestValidators:
    """A model's validators run; their failures are typed, located, and never echo input."""

    def test_field_validator_failure(self) -> None:
        refused = codec.derive(Booking).decode_json('{"name": "xavier-secret", "guests": 2}')
        assert isinstance(refused, Err)
        assert refused.error == DecodeError(
            ("name",), ConversionRefused("Booking's validation (value_error)")
        )
        assert str(refused.error) == '$["name"]: refused by Booking\'s validation (value_error)'
        assert "xavier" not in str(refused.error)
        assert "unknown guest" not in str(refused.error)

    def test_custom_error_type_is_shown(self) -> None:
        refused = codec.derive(Booking).decode_json('{"name": "Ann", "guests": 2, "tags": ["a", "secret-9"]}')
        assert isinstance(refused, Err)
        assert str(refused.error) == '$["tags"]: refused by Booking\'s validation (tag_not_listed)'

    def test_schema_rules_come_first(self) -> None:
        """A value outside the schema is refused by llm_wire's checks, with their reason."""
        refused = codec.derive(Booking).decode_json('{"name": "Ann", "guests": 13}')
        assert refused == Err(DecodeError(("guests",), reasons.AboveMaximum(12, exclusive=False)))

    def test_nested_failure_is_located(self) -> None:
        class Party(BaseModel):
            bookings: list[Booking]

        refused = codec.derive(Party).decode_json(
            '{"bookings": [{"name": "Ann", "guests": 1}, {"name": "xy", "guests": 1}]}'
        )
        assert isinstance(refused, Err)
        assert refused.error.path == ("bookings", 1, "name")

    def test_map_keys_stay_hidden(self) -> None:
        class Guests(BaseModel):
            by_table: dict[str, Booking]

        refused = codec.derive(Guests).decode_json(
            '{"by_table": {"table-of-secrets": {"name": "x", "guests": 1}}}'
        )
        assert isinstance(refused, Err)
        assert refused.error.path == ("by_table", "table-of-secrets", "name")
        assert str(refused.error) == '$["by_table"][*]["name"]: refused by Guests\'s validation (value_error)'

    def test_a_validator_raising_type_error(self) -> None:
        class Fragile(BaseModel):
            n: int

            @field_validator("n")
            @classmethod
            def broken(cls, n: int) -> int:
                raise TypeError(f"boom {n}")

        refused = codec.derive(Fragile).decode_json('{"n": 1}')
        assert refused == Err(DecodeError((), ConversionRefused("Fragile's validators")))

    def test_admission_says_what_to_fix(self) -> None:
        booking = tool.new("book", "Book a table", codec.derive(Booking))
        call = ToolCall("c1", "book", '{"name": "xavier", "guests": 2}')
        checked = admission.admit([call], [booking], tool.ToolCallChecks.REPORT)
        (issue,) = unwrap(checked).issues
        text = admission.describe_issue(issue)
        assert '$["name"]: refused by Booking\'s validation (value_error)' in text
        assert "xavier" not in text


# ---------------------------------------------------------------------------------------------------------
# What cannot be honoured is refused when the codec is built.


class TestDefinitionErrors:
    """A shape llm_wire cannot honour exactly raises ``DefinitionError`` naming it."""

    def test_lax_model(self) -> None:
        class Lax(BaseModel):
            model_config = ConfigDict(strict=False)
            n: int

        with pytest.raises(codec.DefinitionError, match=r"Lax: model_config strict=False asks for lax mode"):
            codec.derive(Lax)

    def test_lax_field(self) -> None:
        class LaxField(BaseModel):
            n: int = Field(strict=False)

        with pytest.raises(codec.DefinitionError, match=r"LaxField\.n: strict=False asks for lax mode"):
            codec.derive(LaxField)

    def test_numbers_to_strings(self) -> None:
        class Coerced(BaseModel):
            model_config = ConfigDict(coerce_numbers_to_str=True)
            text: str

        with pytest.raises(codec.DefinitionError, match="coerce_numbers_to_str"):
            codec.derive(Coerced)

    def test_union_without_discriminator(self) -> None:
        class Either(BaseModel):
            place: Location | Booking

        with pytest.raises(codec.DefinitionError, match=r"Either\.place: .* needs a discriminator"):
            codec.derive(Either)

    def test_alias_choices(self) -> None:
        class Aliased(BaseModel):
            name: str = Field(validation_alias=AliasChoices("name", "title"))

        with pytest.raises(codec.DefinitionError, match=r"Aliased\.name: AliasPath and AliasChoices"):
            codec.derive(Aliased)

    def test_unsupported_type(self) -> None:
        class Link(BaseModel):
            url: pydantic.HttpUrl

        with pytest.raises(codec.DefinitionError, match=r"Link\.url: unsupported type hint HttpUrl"):
            codec.derive(Link)

    def test_unsupported_type_given_a_codec(self) -> None:
        """A codec for the field gives the schema; the model's own type still validates the value."""

        class Link(BaseModel):
            url: Annotated[pydantic.HttpUrl, codec.meta(codec=codec.string(format="uri"))]

        made = codec.derive(Link)
        document: Any = to_document(unwrap_schema(made))
        assert document["properties"] == {"url": {"type": "string", "format": "uri"}}
        expected = Link.model_validate({"url": "https://example.com/a"})
        assert made.decode({"url": "https://example.com/a"}) == Ok(expected)
        refused = made.decode({"url": "example"})
        assert refused == Err(DecodeError(("url",), ConversionRefused("Link's validation (url_parsing)")))

    def test_mixed_enum(self) -> None:
        import enum

        class Mixed(enum.Enum):
            ONE = 1
            TWO = "two"

        class Holder(BaseModel):
            value: Mixed

        with pytest.raises(codec.DefinitionError, match=r"Holder\.value: enum Mixed"):
            codec.derive(Holder)

    def test_validator_only_metadata_outside_a_model(self) -> None:
        """What only pydantic enforces is refused where no model validates it."""

        class Odd(TypedDict):
            n: Annotated[int, pydantic.AfterValidator(lambda n: n)]

        with pytest.raises(codec.DefinitionError, match=r"Odd\.n: AfterValidator has no schema"):
            codec.derive(Odd)

        @attrs.frozen
        class Lower:
            text: Annotated[str, annotated_types.Predicate(str.islower)]

        with pytest.raises(codec.DefinitionError, match=r"Lower\.text: Predicate has no schema"):
            codec.derive(Lower)

    def test_validator_only_metadata_inside_a_model(self) -> None:
        """Inside a model, the model's validation keeps its meaning."""

        class Odd(BaseModel):
            n: Annotated[int, pydantic.AfterValidator(lambda n: n if n % 2 else n + "")]

        made = codec.derive(Odd)
        assert made.decode({"n": 3}) == Ok(Odd(n=3))
        assert isinstance(made.decode({"n": 2}), Err)


# ---------------------------------------------------------------------------------------------------------
# Models as fields, as tools, and TypedDicts.


class TestComposition:
    """A model is a field type of attrs classes and dataclasses, and a typed tool."""

    def test_model_inside_attrs(self) -> None:
        @attrs.frozen
        class Trip:
            start: Location
            days: int = 1

        made = codec.derive(Trip)
        decoded = made.decode({"start": {"city": "Oslo", "country": "NO"}})
        assert decoded == Ok(Trip(Location(city="Oslo", country="NO")))
        assert made.encode(Trip(Location(city="Oslo", country="NO"), 2)) == Ok(
            {"start": {"city": "Oslo", "country": "NO"}, "days": 2}
        )

    def test_recursive_model(self) -> None:
        made = codec.derive(Tree)
        assert made.decode({"name": "a", "children": [{"name": "b"}]}) == Ok(
            Tree(name="a", children=[Tree(name="b")])
        )

    def test_make_tool(self) -> None:
        class GetWeather(BaseModel):
            """Current weather for a city."""

            city: str = Field(description="City name.")
            days: int = Field(default=1, ge=1, le=14)
            seen: ClassVar[list[str]] = []

            def invoke(self) -> dict[str, object]:
                return {"city": self.city, "days": self.days}

        weather = make_tool(GetWeather)
        assert weather.name == "get_weather"
        assert weather.descriptor.tool.description == ("Current weather for a city.")
        assert parse_tool_arguments(weather, '{"city": "Oslo"}') == Ok(GetWeather(city="Oslo"))
        refused = parse_tool_arguments(weather, '{"city": "Oslo", "days": "2"}')
        assert isinstance(refused, Err)
        outcome = asyncio.run(invoke_typed_tool(weather, '{"city": "Oslo", "days": 2}'))
        assert outcome.data == {"city": "Oslo", "days": 2}

    def test_function_tool(self) -> None:
        def book(booking: Booking) -> str:
            """Book a table."""
            return booking.name

        typed = function_tool(book)
        outcome = asyncio.run(invoke_typed_tool(typed, '{"booking": {"name": "Ann", "guests": 2}}'))
        assert outcome.content == "Ann"

    def test_make_tool_refuses_other_classes(self) -> None:
        class Plain:
            def invoke(self) -> None: ...

        with pytest.raises(TypeError, match="cls must be an attrs class, dataclass or pydantic model"):
            make_tool(Plain)


class TestTypedDict:
    """A TypedDict is a closed record decoding to a plain dict."""

    def test_required_and_not(self) -> None:
        class Movie(TypedDict):
            title: str
            year: NotRequired[int]

        made = codec.derive(Movie)
        assert made.decode({"title": "Heat"}) == Ok({"title": "Heat"})
        assert made.decode({"title": "Heat", "year": 1995}) == Ok({"title": "Heat", "year": 1995})
        assert made.decode({"year": 1995}) == Err(DecodeError(("title",), reasons.MissingProperty()))
        refused = made.decode({"title": "Heat", "rating": 5})
        assert isinstance(refused, Err)
        assert isinstance(refused.error.reason, reasons.UnexpectedProperty)

    def test_total_false(self) -> None:
        class Filter(TypedDict, total=False):
            query: str
            limit: int

        assert codec.derive(Filter).decode({}) == Ok({})

    def test_annotated_types_in_attrs(self) -> None:
        """``annotated_types`` constraints are schema in every derived class, not only in models."""

        @attrs.frozen
        class Page:
            size: Annotated[int, annotated_types.Ge(1), annotated_types.Le(100)]
            tag: Annotated[str, annotated_types.MinLen(2)] = "ab"

        made = codec.derive(Page)
        assert made.decode({"size": 0}) == Err(
            DecodeError(("size",), reasons.BelowMinimum(1, exclusive=False))
        )
        assert made.decode({"size": 1, "tag": "a"}) == Err(DecodeError(("tag",), reasons.TooShort(2)))

    def test_discriminated_typed_dicts(self) -> None:
        class Square(TypedDict):
            shape: Literal["square"]
            side: int

        class Circle(TypedDict):
            shape: Literal["circle"]
            radius: int

        made = codec.derive(Annotated[Square | Circle, Field(discriminator="shape")])
        assert made.decode({"shape": "circle", "radius": 2}) == Ok({"shape": "circle", "radius": 2})
        refused = made.decode({"shape": "triangle"})
        assert isinstance(refused, Err)
        assert str(refused.error) == ('$["shape"]: expected one of the tags "square", "circle"')


# ---------------------------------------------------------------------------------------------------------
# pydantic stays unloaded when it is not used.

_ATTRS_TOOLS = """
import sys, attrs
import llm_wire as rq
from llm_wire import admission, codec, tool
from llm_wire.agent import make_tool
from llm_wire.message import ToolCall

@attrs.frozen
class GetWeather:
    '''Current weather.'''
    city: str
    def invoke(self) -> dict[str, str]:
        return {"city": self.city}

typed = make_tool(GetWeather)
weather = tool.new("w", "Weather", codec.derive(GetWeather))
assert admission.admit([ToolCall("c", "w", '{"city": "Oslo"}')], [weather])
"""


def _loaded_after(code: str) -> list[str]:
    listing = "print(*sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')))"
    out = subprocess.run([sys.executable, "-c", code + listing], capture_output=True, text=True, check=True)
    return out.stdout.split()


class TestNotImported:
    """A fresh interpreter using llm_wire with attrs tools imports no pydantic module."""

    def test_attrs_tools_load_no_pydantic(self) -> None:
        assert _loaded_after(_ATTRS_TOOLS) == []

    def test_the_check_sees_pydantic(self) -> None:
        """With a model in the same program, pydantic is loaded (the check above can fail)."""
        model = "import pydantic\nclass M(pydantic.BaseModel):\n    n: int\ncodec.derive(M)\n"
        assert "pydantic" in _loaded_after(_ATTRS_TOOLS + model)
