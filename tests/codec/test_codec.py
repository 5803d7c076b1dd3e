"""
Codec combinators: decode, encode and the rendered schema of each, their errors and definition mistakes.
"""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs
import pytest
from codec_strategies import REGISTRY, Circle, Empty, Point, Square, Unit, document, reg, unwrap
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from llm_wire import codec as c
from llm_wire import reasons
from llm_wire.codec._scalars import is_multiple
from llm_wire.error import LimitExceeded
from llm_wire.reasons import (
    BelowMinimum,
    InvalidJson,
    MissingProperty,
    PatternMismatch,
    TooDeep,
    TooFewItems,
    TooLong,
    UnexpectedProperty,
    WrongType,
)
from llm_wire.result import Err, Ok
from llm_wire.schema import DefinitionError, make
from llm_wire.value import DEFAULT, Limits, ParseError, Syntax

D = Decimal


def err(codec: c.Codec[Any], value: Any) -> c.DecodeError:
    """The decode error for ``value``; fails the test if it decodes."""
    result = codec.decode(value)
    assert isinstance(result, Err), result
    return result.error


def text(codec: c.Codec[Any], value: Any) -> str:
    """The text of the decode error for ``value``."""
    return err(codec, value).describe()


def enc_err(codec: c.Codec[Any], value: Any) -> c.EncodeError:
    """The encode error for ``value``; fails the test if it encodes."""
    result = codec.encode(value)
    assert isinstance(result, Err), result
    return result.error


def body(codec: c.Codec[Any]) -> Any:
    """The rendered document without ``$schema``."""
    doc = document(reg(codec))
    assert isinstance(doc, dict)
    return {k: v for k, v in doc.items() if k != "$schema"}


class TestString:
    def test_decode(self) -> None:
        """A string decodes to itself; anything else is refused, "5" included."""
        assert c.string().decode("héllo") == Ok("héllo")
        assert err(c.string(), 5) == c.DecodeError((), WrongType(("string",)))
        assert text(c.string(), None) == "$: expected a string"

    def test_lengths_count_code_points(self) -> None:
        """Lengths are code points, as JSON Schema counts them."""
        codec = c.string(min_length=2, max_length=3)
        assert codec.decode("😀😀") == Ok("😀😀")
        assert text(codec, "a") == "$: expected at least 2 characters"
        assert text(codec, "abcd") == "$: expected at most 3 characters"
        assert text(c.string(min_length=1), "") == "$: expected at least 1 character"
        assert text(c.string(max_length=2, min_length=2), "a") == "$: expected at least 2 characters"

    def test_pattern_is_searched(self) -> None:
        """A pattern matches anywhere unless anchored."""
        codec = c.string(pattern="[0-9]")
        assert codec.decode("ab1") == Ok("ab1")
        assert text(codec, "abc") == '$: expected a string matching the pattern "[0-9]"'

    def test_format_is_an_annotation(self) -> None:
        """``format`` is rendered and not asserted."""
        codec = c.string(format="email")
        assert codec.decode("not an email") == Ok("not an email")
        assert body(codec) == {"type": "string", "format": "email"}

    def test_schema(self) -> None:
        """Keywords render in a fixed order after ``type``."""
        codec = c.string(min_length=1, max_length=9, pattern="^a")
        assert body(codec) == {"type": "string", "minLength": 1, "maxLength": 9, "pattern": "^a"}
        assert body(c.string()) == {"type": "string"}

    def test_encode(self) -> None:
        """Encoding checks the same rules."""
        assert c.string().encode("x") == Ok("x")
        assert enc_err(c.string(), 1).reason == c.UnexpectedType("str")
        assert enc_err(c.string(max_length=1), "ab").reason == TooLong(1)
        assert enc_err(c.string(pattern="^a"), "b").reason == PatternMismatch("^a")

    @pytest.mark.parametrize(
        ("kwargs", "message"),
        [
            ({"min_length": 3, "max_length": 2}, "min_length 3 is greater than max_length 2"),
            ({"min_length": -1}, "min_length must be a non-negative int"),
            ({"max_length": True}, "max_length must be a non-negative int"),
            ({"pattern": "(a"}, 'pattern "(a"'),
            ({"pattern": "(?=a)"}, "lookaround"),
        ],
    )
    def test_definition_errors(self, kwargs: dict[str, Any], message: str) -> None:
        """Bad settings raise when the codec is built."""
        with pytest.raises(DefinitionError, match=message.replace("(", r"\(")):
            c.string(**kwargs)


class TestBoolean:
    def test_decode_encode_schema(self) -> None:
        """Only true and false; 0 and 1 are not booleans."""
        assert c.boolean().decode(True) == Ok(True)
        assert text(c.boolean(), 1) == "$: expected a boolean"
        assert c.boolean().encode(False) == Ok(False)
        assert enc_err(c.boolean(), 0).reason == c.UnexpectedType("bool")
        assert body(c.boolean()) == {"type": "boolean"}


class TestInteger:
    def test_integral_numbers(self) -> None:
        """Any exactly integral number decodes to int: 12, 12.0, 1.2e1; never a bool or a string."""
        codec = c.integer()
        assert codec.decode(12) == Ok(12)
        assert codec.decode(D("12.0")) == Ok(12)
        assert codec.decode(D("1.2E+1")) == Ok(12)
        assert codec.decode(D("-0")) == Ok(0)
        for bad in (D("12.5"), True, "12", None, D("NaN"), D("sNaN"), D("Infinity")):
            assert err(codec, bad).reason == WrongType(("integer",)), bad

    def test_decoded_decimal_is_an_int(self) -> None:
        """The result is a Python int, not a Decimal."""
        value = unwrap(c.integer().decode(D("3.000")))
        assert type(value) is int

    def test_huge_exponent(self) -> None:
        """An integral Decimal with a huge exponent is refused instead of converted slowly."""
        assert err(c.integer(), D("1E+100000")).reason == c.IntegerTooLarge()
        assert c.integer().decode(D("1E+30")) == Ok(10**30)

    def test_inclusive_range(self) -> None:
        """The issue's example text."""
        user = reg(c.record(dict, c.required("age", c.integer(minimum=0, maximum=150))))
        codec = c.record(dict, c.required("user", user))
        assert codec.decode({"user": {"age": 150}}) == Ok({"user": {"age": 150}})
        assert text(codec, {"user": {"age": 151}}) == '$["user"]["age"]: expected at most 150'
        assert err(codec, {"user": {"age": -1}}).path == ("user", "age")

    def test_exclusive_range_and_multiple(self) -> None:
        """Exclusive bounds and multiple_of, with their texts."""
        codec = c.integer(exclusive_minimum=0, maximum=10, multiple_of=5)
        assert codec.decode(5) == Ok(5)
        assert codec.decode(D("10.0")) == Ok(10)
        assert text(codec, 0) == "$: expected more than 0"
        assert text(codec, 15) == "$: expected at most 10"
        assert text(codec, 7) == "$: expected a multiple of 5"
        assert text(c.integer(minimum=3), 2) == "$: expected at least 3"
        assert text(c.integer(exclusive_maximum=3), 3) == "$: expected less than 3"

    def test_decimal_bounds_compare_exactly(self) -> None:
        """Bounds may be Decimals (or floats, read as their shortest decimal)."""
        codec = c.integer(minimum=D("0.5"), maximum=2.5)
        assert codec.decode(1) == Ok(1)
        assert err(codec, 0).reason == BelowMinimum(D("0.5"))
        assert body(codec) == {"type": "integer", "minimum": D("0.5"), "maximum": D("2.5")}

    def test_schema(self) -> None:
        """Bounds render under their JSON Schema names."""
        codec = c.integer(minimum=1, exclusive_minimum=0, maximum=9, exclusive_maximum=10, multiple_of=2)
        assert body(codec) == {
            "type": "integer",
            "minimum": 1,
            "exclusiveMinimum": 0,
            "maximum": 9,
            "exclusiveMaximum": 10,
            "multipleOf": 2,
        }
        assert body(c.integer()) == {"type": "integer"}

    def test_encode(self) -> None:
        """Encoding refuses bools, floats and values outside the range."""
        codec = c.integer(minimum=0)
        assert codec.encode(7) == Ok(7)
        assert enc_err(codec, True).reason == c.UnexpectedType("int")
        assert enc_err(codec, 1.0).reason == c.UnexpectedType("int")
        assert enc_err(codec, -1).describe() == "$: expected at least 0"

    @pytest.mark.parametrize(
        ("kwargs", "message"),
        [
            ({"minimum": 10, "maximum": 5}, "admit no value"),
            ({"exclusive_minimum": 5, "maximum": 5}, "admit no value"),
            ({"exclusive_minimum": 4, "exclusive_maximum": 5}, "admit no value"),
            ({"minimum": D("4.5"), "maximum": D("4.9")}, "admit no value"),
            ({"multiple_of": 0}, "multiple_of must be greater than 0"),
            ({"minimum": True}, "minimum must be a finite"),
            ({"maximum": D("NaN")}, "maximum must be a finite"),
            ({"maximum": float("inf")}, "maximum must be a finite"),
            ({"minimum": "1"}, "minimum must be a finite"),
        ],
    )
    def test_definition_errors(self, kwargs: dict[str, Any], message: str) -> None:
        """Bounds that admit no integer, or are not numbers, raise when the codec is built."""
        with pytest.raises(DefinitionError, match=message):
            c.integer(**kwargs)


class TestDecimal:
    def test_exact(self) -> None:
        """Numbers stay exact: 0.1 is 0.1, ints become Decimals."""
        assert c.decimal().decode(D("0.1")) == Ok(D("0.1"))
        value = unwrap(c.decimal().decode(7))
        assert type(value) is Decimal
        assert value == 7
        assert text(c.decimal(), True) == "$: expected a number"
        assert text(c.decimal(), D("NaN")) == "$: expected a number"

    def test_bounds_and_multiple_are_exact(self) -> None:
        """0.3 is a multiple of 0.1 and 0.1 is not below 0.1, exactly (binary floats would say otherwise)."""
        codec = c.decimal(minimum=D("0.1"), multiple_of=D("0.1"))
        assert codec.decode(D("0.3")) == Ok(D("0.3"))
        assert codec.decode(D("0.1")) == Ok(D("0.1"))
        assert text(codec, D("0.35")) == "$: expected a multiple of 0.1"
        assert text(codec, D("0.09")) == "$: expected at least 0.1"

    def test_encode(self) -> None:
        """Decimals and ints encode as themselves; NaN and infinities fail."""
        assert c.decimal().encode(D("2.50")) == Ok(D("2.50"))
        assert c.decimal().encode(3) == Ok(3)  # type: ignore[arg-type]
        assert enc_err(c.decimal(), D("Infinity")).reason == c.NonFiniteNumber()
        assert enc_err(c.decimal(), 1.5).reason == c.UnexpectedType("Decimal")
        assert enc_err(c.decimal(maximum=1), D("1.01")).describe() == "$: expected at most 1"

    def test_schema(self) -> None:
        """``number`` with exact bounds."""
        assert body(c.decimal(exclusive_maximum=D("2.5"))) == {"type": "number", "exclusiveMaximum": D("2.5")}


class TestIsMultiple:
    @given(
        st.integers(-(10**6), 10**6),
        st.integers(-30, 30),
        st.integers(1, 10**4),
        st.integers(-30, 30),
    )
    def test_agrees_with_fractions(self, a: int, p: int, b: int, q: int) -> None:
        """The digit arithmetic agrees with exact rational arithmetic."""
        n, step = D(a).scaleb(p), D(b).scaleb(q)
        assert is_multiple(n, step) == ((Fraction(n) / Fraction(step)).denominator == 1)

    def test_huge_exponents_are_fast(self) -> None:
        """Exponents in the millions cost no more than small ones."""
        assert is_multiple(D("1E+1000000"), D("0.5"))
        assert not is_multiple(D("1E-1000000"), D("0.5"))
        assert is_multiple(D("3E+1000000"), 3)


class TestFloating:
    def test_decode(self) -> None:
        """Any number becomes the nearest float; beyond the float range is an error."""
        codec = c.floating()
        assert codec.decode(D("0.1")) == Ok(0.1)
        assert codec.decode(3) == Ok(3.0)
        assert text(codec, D("1E+400")) == "$: number outside the float range"
        assert text(codec, 10**400) == "$: number outside the float range"
        assert text(codec, True) == "$: expected a number"
        assert text(codec, D("sNaN")) == "$: expected a number"
        assert text(codec, "1.5") == "$: expected a number"

    def test_bounds_use_the_exact_number(self) -> None:
        """A value just above the bound is refused even if it rounds to the bound as a float."""
        codec = c.floating(maximum=1)
        assert text(codec, D("1.00000000000000000001")) == "$: expected at most 1"

    def test_encode_shortest_decimal(self) -> None:
        """Floats encode as the shortest decimal that reads back the same; non-finite floats fail."""
        assert c.floating().encode(0.1) == Ok(D("0.1"))
        assert c.floating().encode(1e16) == Ok(D("1E+16"))
        assert c.floating().encode(2) == Ok(2)
        assert enc_err(c.floating(), float("nan")).reason == c.NonFiniteNumber()
        assert enc_err(c.floating(), float("-inf")).describe() == "$: number is not finite"
        assert enc_err(c.floating(minimum=0), -0.5).describe() == "$: expected at least 0"

    def test_schema(self) -> None:
        """``number``."""
        assert body(c.floating(minimum=-1.5)) == {"type": "number", "minimum": D("-1.5")}


class TestEnum:
    def test_enum_by_value(self) -> None:
        """String values are the labels; decoding gives the member."""
        codec = c.enum_of(Unit)
        assert codec.decode("celsius") == Ok(Unit.CELSIUS)
        assert codec.encode(Unit.FAHRENHEIT) == Ok("fahrenheit")
        assert text(codec, "kelvin") == '$: expected one of "celsius", "fahrenheit"'
        assert text(codec, "CELSIUS") == '$: expected one of "celsius", "fahrenheit"'
        assert text(codec, 1) == "$: expected a string"
        assert enc_err(codec, "celsius").reason == c.UnknownEnumValue()
        assert body(codec) == {"type": "string", "enum": ["celsius", "fahrenheit"]}

    def test_int_values(self) -> None:
        """An Enum whose values are all ints goes by value: an integer enum, ``1.0`` being ``1``."""
        from codec_strategies import Level

        codec = c.enum_of(Level)
        assert codec.decode(2) == Ok(Level.HIGH)
        assert codec.decode(D("1.0")) == Ok(Level.LOW)
        assert codec.encode(Level.HIGH) == Ok(2)
        assert text(codec, 3) == "$: expected one of 1, 2"
        assert text(codec, D("1E+100000")) == "$: expected one of 1, 2"
        assert text(codec, "HIGH") == "$: expected an integer"
        assert text(codec, True) == "$: expected an integer"
        assert enc_err(codec, 2).reason == c.UnknownEnumValue()
        assert body(codec) == {"type": "integer", "enum": [1, 2]}

    def test_int_enum_and_str_enum(self) -> None:
        """IntEnum and StrEnum members are sent by value; their plain int or str does not encode."""
        import enum

        class Priority(enum.IntEnum):
            LOW = 10
            HIGH = 20

        class Colour(enum.StrEnum):
            RED = "red"
            BLUE = "blue"

        priority, colour = c.enum_of(Priority), c.enum_of(Colour)
        assert priority.encode(Priority.HIGH) == Ok(20)
        assert priority.decode(10) == Ok(Priority.LOW)
        assert enc_err(priority, 20).reason == c.UnknownEnumValue()
        assert body(priority) == {"type": "integer", "enum": [10, 20]}
        assert colour.encode(Colour.RED) == Ok("red")
        assert colour.decode("blue") == Ok(Colour.BLUE)
        assert enc_err(colour, "red").reason == c.UnknownEnumValue()

    def test_other_values_by_name(self) -> None:
        """Members whose values are neither all strings nor all ints are labelled by name."""
        import enum

        class Mixed(enum.Enum):
            ONE = 1
            TWO = "two"

        codec = c.enum_of(Mixed)
        assert codec.decode("TWO") == Ok(Mixed.TWO)
        assert codec.encode(Mixed.ONE) == Ok("ONE")
        assert body(codec) == {"type": "string", "enum": ["ONE", "TWO"]}

    def test_mapping(self) -> None:
        """A mapping from label to value, encoded by equality."""
        codec = c.enum_of({"one": 1, "two": 2})
        assert codec.decode("two") == Ok(2)
        assert codec.encode(1) == Ok("one")
        assert enc_err(codec, 3).describe() == "$: value is not in the enum"

    def test_long_label_list_is_cut(self) -> None:
        """The text lists at most twelve labels."""
        codec = c.enum_of({f"l{n}": n for n in range(20)})
        assert text(codec, "x") == "$: expected one of the 20 allowed values"

    @pytest.mark.parametrize(
        ("source", "message"),
        [
            ({}, "has no labels"),
            ({"a": 1, "b": 1}, 'label "b" repeats the value'),
            ({"a": []}, "not hashable"),
            ({1: "a"}, "labels must be strings"),
            ("ab", "expected an Enum class"),
        ],
    )
    def test_definition_errors(self, source: Any, message: str) -> None:
        """Empty enums and ambiguous values raise when built."""
        with pytest.raises(DefinitionError, match=message):
            c.enum_of(source)


class TestLiteral:
    def test_strings(self) -> None:
        """String literals render as a string enum."""
        codec = c.literal("a", "b")
        assert codec.decode("b") == Ok("b")
        assert text(codec, "c") == '$: expected one of "a", "b"'
        assert body(codec) == {"type": "string", "enum": ["a", "b"]}

    def test_mixed_values_compare_as_json(self) -> None:
        """1.0 equals 1 and decodes to the declared 1; true is not 1."""
        codec = c.literal(1, True, None, "x")
        assert codec.decode(D("1.0")) == Ok(1)
        assert type(unwrap(codec.decode(D("1.0")))) is int
        assert codec.decode(True) == Ok(True)
        assert codec.decode(None) == Ok(None)
        assert text(codec, 2) == '$: expected one of 1, true, null, "x"'
        assert text(c.literal(1), True) == "$: expected an integer"
        assert text(c.literal(1), 2) == "$: expected one of 1"
        assert body(codec) == {"enum": [1, True, None, "x"]}
        assert body(c.literal(1, 2)) == {"type": "integer", "enum": [1, 2]}

    def test_encode(self) -> None:
        """Only the declared values encode."""
        assert c.literal(1, "a").encode("a") == Ok("a")
        assert enc_err(c.literal(1), True).reason == c.UnknownEnumValue()
        assert enc_err(c.literal(1), D(1)).reason == c.UnknownEnumValue()

    def test_definition_errors(self) -> None:
        """No values, repeated values or non-scalars raise."""
        with pytest.raises(DefinitionError, match="has no values"):
            c.literal()
        with pytest.raises(DefinitionError, match="appears twice"):
            c.literal("a", "a")
        with pytest.raises(DefinitionError, match="float is not"):
            c.literal(1.5)  # type: ignore[call-overload]


class TestList:
    def test_decode_and_paths(self) -> None:
        """Items decode in order; a failing item is reported at its index."""
        codec = c.list_of(c.integer(minimum=0))
        assert codec.decode([1, D("2.0")]) == Ok([1, 2])
        assert err(codec, [1, 2, -3]) == c.DecodeError((2,), BelowMinimum(0))
        assert text(codec, [0, "x"]) == "$[1]: expected an integer"
        assert text(codec, {}) == "$: expected an array"

    def test_exact_items_fast_path_reports_the_index(self) -> None:
        """Plain string items take a fast path that still finds the failing index."""
        codec = c.list_of(c.string())
        assert codec.decode(["a", "b"]) == Ok(["a", "b"])
        assert err(codec, ["a", "b", 3]).path == (2,)

    def test_counts(self) -> None:
        """min_items and max_items."""
        codec = c.list_of(c.boolean(), min_items=1, max_items=2)
        assert text(codec, []) == "$: expected at least 1 item"
        assert text(codec, [True] * 3) == "$: expected at most 2 items"
        assert text(c.list_of(c.boolean(), max_items=1), [True, True]) == "$: expected at most 1 item"

    def test_encode(self) -> None:
        """Lists and tuples encode to arrays; item errors carry the index."""
        codec = c.list_of(c.string())
        assert codec.encode(("a", "b")) == Ok(["a", "b"])  # type: ignore[arg-type]
        assert enc_err(codec, ["a", 1]).path == (1,)
        assert enc_err(codec, "ab").reason == c.UnexpectedType("list")

    def test_schema(self) -> None:
        """``items`` then the counts."""
        codec = c.list_of(c.string(), min_items=1, max_items=4)
        assert body(codec) == {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 4}

    def test_definition_errors(self) -> None:
        """Reversed counts raise."""
        with pytest.raises(DefinitionError, match="min_items 3 is greater than max_items 1"):
            c.list_of(c.string(), min_items=3, max_items=1)


class TestTuple:
    def test_decode_encode(self) -> None:
        """Exactly n items, each with its codec; a tuple comes back."""
        codec = c.tuple_of(c.string(), c.integer())
        assert codec.decode(["a", 1]) == Ok(("a", 1))
        assert text(codec, ["a"]) == "$: expected at least 2 items"
        assert text(codec, ["a", "b"]) == "$[1]: expected an integer"
        assert codec.encode(("a", 2)) == Ok(["a", 2])
        assert enc_err(codec, ("a",)).reason == TooFewItems(2)
        assert enc_err(codec, ("a", "b")).path == (1,)

    def test_schema(self) -> None:
        """prefixItems with both counts."""
        codec = c.tuple_of(c.string(), c.integer())
        assert body(codec) == {
            "type": "array",
            "prefixItems": [{"type": "string"}, {"type": "integer"}],
            "minItems": 2,
            "maxItems": 2,
        }
        assert body(c.tuple_of()) == {"type": "array", "minItems": 0, "maxItems": 0}


class TestDict:
    def test_decode_encode(self) -> None:
        """String keys, each value decoded with the value codec."""
        codec = c.dict_of(c.integer())
        assert codec.decode({"a": 1, "b": D("2.0")}) == Ok({"a": 1, "b": 2})
        assert codec.encode({"a": 1}) == Ok({"a": 1})
        assert text(codec, [1]) == "$: expected an object"
        assert text(codec, {1: 1}) == "$: expected an object"

    def test_keys_from_input_are_hidden_in_text(self) -> None:
        """A key is input: the typed path keeps it, the text shows ``[*]``."""
        codec = c.record(dict, c.required("scores", c.dict_of(c.integer())))
        error = err(codec, {"scores": {"secret-name": "x"}})
        assert error.path == ("scores", "secret-name")
        assert error.describe() == '$["scores"][*]: expected an integer'
        assert "secret" not in enc_err(codec, {"scores": {"secret-name": "x"}}).describe()

    def test_schema(self) -> None:
        """additionalProperties holds the value schema."""
        assert body(c.dict_of(c.boolean())) == {"type": "object", "additionalProperties": {"type": "boolean"}}


class TestNullable:
    def test_decode_encode(self) -> None:
        """null is None; anything else goes through the inner codec."""
        codec = c.nullable(c.integer())
        assert codec.decode(None) == Ok(None)
        assert codec.decode(3) == Ok(3)
        assert text(codec, "3") == "$: expected an integer or null"
        assert codec.encode(None) == Ok(None)
        assert codec.encode(3) == Ok(3)

    def test_inner_null_does_not_round_trip(self) -> None:
        """An inner codec that encodes a value as null is an encode error."""
        nothing = c.custom(lambda v: Ok(v), lambda x: Ok(None), make())
        assert enc_err(c.nullable(nothing), "x").reason == c.NullInsideNullable()

    def test_schema(self) -> None:
        """anyOf the inner schema and null, inner first."""
        assert body(c.nullable(c.string())) == {"anyOf": [{"type": "string"}, {"type": "null"}]}


@attrs.frozen
class Person:
    name: str
    age: int
    email: str | None


@attrs.frozen
class Checked:
    n: int = attrs.field(validator=attrs.validators.gt(0))


class TestRecord:
    def person(self) -> c.Codec[Person]:
        return reg(
            c.record(
                Person,
                c.required("name", c.string(), description="Full name."),
                c.optional("age", c.integer(minimum=0), default=0),
                c.optional("email", c.nullable(c.string())),
                description="A person.",
            )
        )

    def test_attributes_that_are_not_identifiers(self) -> None:
        """A target taking ``**kwargs`` gets attributes no ``name=`` could spell, and keywords that are."""

        def build(**fields: object) -> dict[str, object]:
            return {"built": fields}

        codec = c.record(
            build,
            c.required("a", c.string(), attribute="not an identifier"),
            c.required("b", c.integer(), attribute="class"),
            c.optional("c", c.integer(), default=7, attribute="plain"),
        )
        decoded = codec.decode({"a": "x", "b": 2})
        assert decoded == Ok({"built": {"not an identifier": "x", "class": 2, "plain": 7}})
        failed = codec.decode({"a": "x", "b": "2"})
        assert isinstance(failed, Err)
        assert failed.error.path == ("b",)

    def test_decode(self) -> None:
        """Required, optional with default, optional without default (ABSENT)."""
        codec = self.person()
        assert codec.decode({"name": "Ada"}) == Ok(Person("Ada", 0, c.ABSENT))  # type: ignore[arg-type]
        assert codec.decode({"name": "Ada", "age": 36, "email": "a@b"}) == Ok(Person("Ada", 36, "a@b"))

    def test_absent_null_and_value_differ(self) -> None:
        """Absent gives the default; null is refused unless the field is nullable; then it is None."""
        codec = self.person()
        assert text(codec, {"name": "Ada", "age": None}) == '$["age"]: expected an integer'
        assert codec.decode({"name": "Ada", "email": None}) == Ok(Person("Ada", 0, None))
        assert codec.decode({"name": "Ada"}) == Ok(Person("Ada", 0, c.ABSENT))  # type: ignore[arg-type]
        assert text(codec, {"name": None}) == '$["name"]: expected a string'
        assert text(codec, {}) == '$["name"]: required property is missing'

    def test_unknown_members_are_refused_and_redacted(self) -> None:
        """Objects are closed; the unknown name stays in the path and out of the text."""
        error = err(self.person(), {"name": "Ada", "password": "hunter2"})
        allowed = UnexpectedProperty(("name", "age", "email"))
        assert error == c.DecodeError(("password",), allowed, hidden=frozenset({0}))
        assert (
            error.describe() == '$[*]: unexpected property; the allowed properties are "name", "age", "email"'
        )
        assert "password" not in error.describe()
        assert text(self.person(), {"name": "Ada", 7: 1}) == "$: expected an object"

    def test_declared_fields_are_checked_before_unknown_members(self) -> None:
        """One order everywhere: declared fields in order, then unknown members."""
        assert err(self.person(), {"zzz": 1}).path == ("name",)
        assert err(self.person(), {"zzz": 1, "name": 5}).path == ("name",)

    def test_encode(self) -> None:
        """Fields in declaration order; ABSENT is omitted; the wrong class is refused."""
        codec = self.person()
        assert codec.encode(Person("Ada", 3, None)) == Ok({"name": "Ada", "age": 3, "email": None})
        absent = Person("Ada", 3, c.ABSENT)  # type: ignore[arg-type]
        assert codec.encode(absent) == Ok({"name": "Ada", "age": 3})
        assert enc_err(codec, {"name": "Ada"}).reason == c.UnexpectedType("Person")
        assert enc_err(codec, Person("Ada", -1, None)).describe() == '$["age"]: expected at least 0'

    def test_schema(self) -> None:
        """Closed object; authored order; descriptions first; defaults shown."""
        assert body(self.person()) == {
            "description": "A person.",
            "type": "object",
            "properties": {
                "name": {"description": "Full name.", "type": "string"},
                "age": {"type": "integer", "minimum": 0, "default": 0},
                "email": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
            "required": ["name"],
            "additionalProperties": False,
        }
        assert body(c.record(dict)) == {
            "type": "object",
            "properties": {},
            "required": [],
            "additionalProperties": False,
        }

    def test_dict_records(self) -> None:
        """``record(dict, ...)`` reads and writes plain dicts; a missing required key fails encoding."""
        codec = c.record(dict, c.required("a", c.integer()), c.optional("b", c.string(), factory=lambda: "z"))
        assert codec.decode({"a": 1}) == Ok({"a": 1, "b": "z"})
        assert codec.encode({"a": 1}) == Ok({"a": 1})
        assert enc_err(codec, {"b": "x"}) == c.EncodeError(("a",), MissingProperty())
        assert enc_err(codec, [1]).reason == c.UnexpectedType("dict")
        assert enc_err(codec, {"a": 1, "c": 2}) == c.EncodeError(
            ("c",), UnexpectedProperty(("a", "b")), hidden=frozenset({0})
        )

    def test_attribute_names(self) -> None:
        """The JSON name and the attribute may differ."""

        @attrs.frozen
        class Box:
            kind: str

        codec = c.record(Box, c.required("type", c.string(), attribute="kind"))
        assert codec.decode({"type": "x"}) == Ok(Box("x"))
        assert codec.encode(Box("y")) == Ok({"type": "y"})

    def test_constructor_refusal_is_an_error(self) -> None:
        """A validator raising in the constructor: ``ConversionRefused`` (its message is not echoed)."""
        codec = c.record(Checked, c.required("n", c.integer()))
        assert err(codec, {"n": -5}) == c.DecodeError((), c.ConversionRefused("the constructor of Checked"))
        assert text(codec, {"n": -5}) == "$: refused by the constructor of Checked"

    @pytest.mark.parametrize(
        ("fields", "message"),
        [
            ([c.required("a", c.string()), c.required("a", c.integer())], 'field "a" appears twice'),
            ([c.required("a", c.string()), c.required("b", c.string(), attribute="a")], "attribute"),
            (["a"], "is not a Field"),
        ],
    )
    def test_definition_errors(self, fields: list[Any], message: str) -> None:
        """Duplicate names raise when built, naming the record."""
        with pytest.raises(DefinitionError, match=f"record dict: .*{message}"):
            c.record(dict, *fields)

    def test_default_and_factory_exclude_each_other(self) -> None:
        """An optional field takes one of default and factory."""
        with pytest.raises(DefinitionError, match="not both"):
            c.optional("a", c.string(), default="x", factory=str)


SHAPES = c.union(
    c.variant("circle", c.record(Circle, c.required("radius", c.decimal()))),
    c.variant("square", c.record(Square, c.required("side", c.decimal()))),
    c.unit("empty", Empty.EMPTY, description="Nothing."),
)


#: The text of an unexpected member, declared (``UNEXPECTED``) or taken from the input (``HIDDEN``).
UNEXPECTED = '$["value"]: unexpected property; the allowed properties are '
HIDDEN = "$[*]: unexpected property; the allowed properties are "


class TestUnion:
    def test_decode_encode(self) -> None:
        """The envelope: tag and value; a unit variant has only the tag."""
        assert SHAPES.decode({"tag": "circle", "value": {"radius": 2}}) == Ok(Circle(D(2)))
        assert SHAPES.decode({"tag": "empty"}) == Ok(Empty.EMPTY)
        assert SHAPES.encode(Square(D("1.5"))) == Ok({"tag": "square", "value": {"side": D("1.5")}})
        assert SHAPES.encode(Empty.EMPTY) == Ok({"tag": "empty"})

    @pytest.mark.parametrize(
        ("value", "path", "message"),
        [
            ([], (), "$: expected an object"),
            ({}, ("tag",), '$["tag"]: required property is missing'),
            ({"tag": 1}, ("tag",), '$["tag"]: expected a string'),
            (
                {"tag": "hexagon"},
                ("tag",),
                '$["tag"]: expected one of the tags "circle", "square", "empty"',
            ),
            ({"tag": "circle"}, ("value",), '$["value"]: required property is missing'),
            ({"tag": "empty", "value": None}, ("value",), UNEXPECTED + '"tag"'),
            (
                {"tag": "circle", "value": {}},
                ("value", "radius"),
                '$["value"]["radius"]: required property is missing',
            ),
            ({"tag": "circle", "value": {"radius": 1}, "x": 1}, ("x",), HIDDEN + '"tag", "value"'),
        ],
    )
    def test_errors(self, value: Any, path: tuple[Any, ...], message: str) -> None:
        """Each failure at its path with its text."""
        error = err(SHAPES, value)
        assert (error.path, error.describe()) == (path, message)

    def test_encode_unknown_variant(self) -> None:
        """A value of no variant's class fails to encode."""
        assert enc_err(SHAPES, "circle").reason == c.UnknownVariant()

    def test_schema(self) -> None:
        """anyOf closed objects; the tag is a one-label string enum."""
        circle = {
            "type": "object",
            "properties": {"radius": {"type": "number"}},
            "required": ["radius"],
            "additionalProperties": False,
        }
        assert body(SHAPES)["anyOf"][0] == {
            "type": "object",
            "properties": {"tag": {"type": "string", "enum": ["circle"]}, "value": circle},
            "required": ["tag", "value"],
            "additionalProperties": False,
        }
        assert body(SHAPES)["anyOf"][2] == {
            "description": "Nothing.",
            "type": "object",
            "properties": {"tag": {"type": "string", "enum": ["empty"]}},
            "required": ["tag"],
            "additionalProperties": False,
        }
        assert body(SHAPES)["type"] == "object"

    def test_member_names(self) -> None:
        """The tag and value member names are configurable."""
        codec = c.union(
            c.variant("c", c.record(Circle, c.required("radius", c.decimal()))), tag="k", value="v"
        )
        assert codec.decode({"k": "c", "v": {"radius": 1}}) == Ok(Circle(D(1)))
        assert codec.encode(Circle(D(1))) == Ok({"k": "c", "v": {"radius": 1}})

    def test_definition_errors(self) -> None:
        """Repeated tags, no variants, one name for both members, a variant without a class."""
        circle = c.record(Circle, c.required("radius", c.decimal()))
        with pytest.raises(DefinitionError, match='tag "a" appears twice'):
            c.union(c.variant("a", circle), c.unit("a", None))
        with pytest.raises(DefinitionError, match="has no variants"):
            c.union()
        with pytest.raises(DefinitionError, match="different names"):
            c.union(c.variant("a", circle), tag="x", value="x")
        with pytest.raises(DefinitionError, match="give cls="):
            c.variant("a", c.string())
        with pytest.raises(DefinitionError, match="both encode Circle"):
            c.union(c.variant("a", circle), c.variant("b", circle))


INTERNAL = c.internal_union(
    c.variant("circle", c.record(Circle, c.required("radius", c.decimal()))),
    c.variant("square", c.record(Square, c.required("side", c.decimal())), description="Four sides."),
    c.unit("empty", Empty.EMPTY),
)


class TestInternalUnion:
    def test_decode_encode(self) -> None:
        """The tag sits among the payload's members."""
        assert INTERNAL.decode({"type": "circle", "radius": 2}) == Ok(Circle(D(2)))
        assert INTERNAL.decode({"type": "empty"}) == Ok(Empty.EMPTY)
        assert INTERNAL.encode(Circle(D(2))) == Ok({"type": "circle", "radius": 2})
        assert INTERNAL.encode(Empty.EMPTY) == Ok({"type": "empty"})

    @pytest.mark.parametrize(
        ("value", "path", "message"),
        [
            ({"radius": 2}, ("type",), '$["type"]: required property is missing'),
            ({"type": "circle"}, ("radius",), '$["radius"]: required property is missing'),
            ({"type": "circle", "radius": 2, "side": 1}, ("side",), HIDDEN + '"type", "radius"'),
            ({"type": "empty", "radius": 2}, ("radius",), HIDDEN + '"type"'),
            (
                {"type": "oval"},
                ("type",),
                '$["type"]: expected one of the tags "circle", "square", "empty"',
            ),
        ],
    )
    def test_errors(self, value: Any, path: tuple[Any, ...], message: str) -> None:
        """Payload errors keep the payload's own paths."""
        error = err(INTERNAL, value)
        assert (error.path, error.describe()) == (path, message)

    def test_schema(self) -> None:
        """Each variant is its payload's closed object with the tag first."""
        assert body(INTERNAL)["anyOf"][1] == {
            "description": "Four sides.",
            "type": "object",
            "properties": {"type": {"type": "string", "enum": ["square"]}, "side": {"type": "number"}},
            "required": ["type", "side"],
            "additionalProperties": False,
        }

    def test_definition_errors(self) -> None:
        """The payload must be a record without a member named like the tag."""
        with pytest.raises(DefinitionError, match="must be a record"):
            c.internal_union(c.variant("s", c.string(), cls=str))
        with pytest.raises(DefinitionError, match='has a field named "radius"'):
            c.internal_union(
                c.variant("c", c.record(Circle, c.required("radius", c.decimal()))), tag="radius"
            )


@attrs.frozen
class Tree:
    value: int
    children: list[Tree]


def tree_codec(name: str | None = "Tree") -> c.Codec[Tree]:
    tree: c.Codec[Tree] = c.lazy(lambda: node, name=name)
    node = c.record(Tree, c.required("value", c.integer()), c.required("children", c.list_of(tree)))
    return node


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"value": 0, "children": []}
    for _ in range(depth - 1):
        value = {"value": 0, "children": [value]}
    return value


class TestLazy:
    def test_recursive_data(self) -> None:
        """Decode and encode recursive data."""
        codec = tree_codec()
        data: Any = {"value": 1, "children": [{"value": 2, "children": []}]}
        assert codec.decode(data) == Ok(Tree(1, [Tree(2, [])]))
        assert codec.encode(Tree(1, [Tree(2, [])])) == Ok(data)
        assert err(codec, {"value": 1, "children": [{"value": "x", "children": []}]}).path == (
            "children",
            0,
            "value",
        )

    def test_schema_defs_at_root(self) -> None:
        """The recursion is a $ref into $defs at the document root."""
        tree = {
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
            },
            "required": ["value", "children"],
            "additionalProperties": False,
        }
        assert body(tree_codec()) == {**tree, "$defs": {"Tree": tree}}

    def test_nested_recursive_codec_keeps_defs_at_the_root(self) -> None:
        """Inside a list and a record, the $defs still end up at the root, once."""
        codec = c.record(dict, c.required("forest", c.list_of(tree_codec())), c.required("n", c.integer()))
        doc = body(codec)
        assert list(doc["$defs"]) == ["Tree"]
        assert doc["properties"]["forest"]["items"]["properties"]["children"]["items"] == {
            "$ref": "#/$defs/Tree"
        }
        assert "$defs" not in doc["properties"]["forest"]["items"]

    def test_two_definitions_with_one_name(self) -> None:
        """Two different recursive codecs named alike get distinct definitions."""
        codec = c.tuple_of(tree_codec(), tree_codec())
        doc = body(codec)
        assert list(doc["$defs"]) == ["Tree", "Tree2"]
        assert doc["prefixItems"][1]["properties"]["children"]["items"] == {"$ref": "#/$defs/Tree2"}

    def test_default_name(self) -> None:
        """Without a name the definition is named after the class."""
        assert list(body(tree_codec(None))["$defs"]) == ["Tree"]

    def test_non_recursive_lazy_is_inlined(self) -> None:
        """A lazy codec that does not refer to itself renders inline."""
        assert body(c.lazy(lambda: c.string())) == {"type": "string"}

    def test_depth_is_bounded(self) -> None:
        """Deep data fails with a typed limit error instead of a RecursionError."""
        codec = tree_codec()
        assert isinstance(codec.decode(nested(32)), Ok)  # two levels each: an object and an array
        error = err(codec, nested(33))
        assert error.reason == LimitExceeded("Limits.with_max_depth", DEFAULT.max_depth)
        assert error.describe() == "$: nesting depth exceeds 64 (raise it with Limits.with_max_depth)"
        deep = nested(5000)
        result = codec.decode(deep, limits=Limits().with_max_depth(100_000))
        assert result == Err(c.DecodeError((), TooDeep()))

    def test_decode_json_depth(self) -> None:
        """decode_json's parse applies the same limit."""
        codec = tree_codec()
        assert isinstance(codec.decode_json('{"value": 1, "children": []}'), Ok)
        text_value = '{"value":0,"children":[' * 40 + '{"value":0,"children":[]}' + "]}" * 40
        assert isinstance(codec.decode_json(text_value, Limits().with_max_depth(100)), Ok)
        assert isinstance(unwrap_err(codec.decode_json(text_value)).reason, InvalidJson)

    def test_encode_cycles_and_depth(self) -> None:
        """A cyclic or very deep native value is an encode error, not a RecursionError."""
        codec = tree_codec()
        cyclic = Tree(1, [])
        cyclic.children.append(cyclic)
        assert enc_err(codec, cyclic).reason == TooDeep()

    def test_bad_function(self) -> None:
        """A lazy function returning something other than a codec is a definition error."""
        with pytest.raises(DefinitionError, match="not a Codec"):
            _ = c.lazy(lambda: "x").schema  # type: ignore[arg-type, return-value]


def unwrap_err(result: Any) -> Any:
    assert isinstance(result, Err), result
    return result.error


class TestMapAndTryMap:
    def test_map(self) -> None:
        """Total conversions both ways; schema unchanged."""
        codec = c.map(c.string(), str.upper, str.lower)
        assert codec.decode("ab") == Ok("AB")
        assert codec.encode("AB") == Ok("ab")
        assert body(codec) == {"type": "string"}

    def test_raising_conversions_are_refusals(self) -> None:
        """A conversion raising ValueError or TypeError refuses the value at the path, without its text."""
        codec = c.record(dict, c.required("n", c.map(c.string(), int, str)))
        assert err(codec, {"n": "secret"}) == c.DecodeError(("n",), c.ConversionRefused("int"))
        assert text(codec, {"n": "secret"}) == '$["n"]: refused by int'
        lists = c.map(c.list_of(c.integer()), tuple, list)
        assert enc_err(lists, None).describe() == "$: refused by list"
        anonymous = c.map(c.string(), lambda s: 1 // 0, str)
        assert text(anonymous, "x") == "$: refused by the decode function"

    def test_try_map_errors_at_the_path(self) -> None:
        """A refused conversion is ``Custom`` at the codec's path, both ways."""
        digits = c.try_map(
            c.string(),
            lambda s: Ok(int(s)) if s.isdigit() else Err("expected digits"),
            lambda n: Ok(str(n)) if n >= 0 else Err("negative numbers have no digits"),
        )
        codec = c.record(dict, c.required("n", digits))
        assert codec.decode({"n": "12"}) == Ok({"n": 12})
        assert err(codec, {"n": "x"}) == c.DecodeError(("n",), c.Custom("expected digits"))
        assert text(codec, {"n": "x"}) == '$["n"]: expected digits'
        assert text(codec, {"n": 3}) == '$["n"]: expected a string'
        assert enc_err(codec, {"n": -1}).describe() == '$["n"]: negative numbers have no digits'
        assert c.Custom("").describe() == "custom validation failed"
        assert body(digits) == {"type": "string"}

    def test_try_map_must_return_a_result(self) -> None:
        """Returning something else is a bug in the function, raised as such."""
        codec = c.try_map(c.string(), lambda s: s, lambda s: Ok(s))  # type: ignore[arg-type, return-value]
        with pytest.raises(TypeError, match="must return Ok or Err"):
            codec.decode("x")


class TestCustom:
    def no_schema(self) -> c.Codec[Any]:
        return c.custom(lambda v: Ok(v), lambda x: Ok(x))

    def test_messages_and_paths(self) -> None:
        """Err(message) is Custom here; Err(DecodeError) keeps its path below this codec."""
        inner: c.Codec[Any] = c.custom(
            lambda v: Err("bad") if v == 0 else Err(c.DecodeError(("deep", 1), MissingProperty())),
            lambda x: Err(c.EncodeError((0,), c.Custom("no"))),
            make(("type", "integer")),
        )
        codec = c.record(dict, c.required("a", inner))
        assert err(codec, {"a": 0}) == c.DecodeError(("a",), c.Custom("bad"))
        assert err(codec, {"a": 1}) == c.DecodeError(("a", "deep", 1), MissingProperty())
        assert enc_err(codec, {"a": 1}) == c.EncodeError(("a", 0), c.Custom("no"))

    def test_absence_propagates(self) -> None:
        """Every combinator over a codec without a schema has none (unknown never becomes inferred)."""
        none = self.no_schema()
        circle = c.record(Circle, c.required("radius", none))
        wrappers: list[c.Codec[Any]] = [
            none,
            c.list_of(none),
            c.nullable(none),
            c.tuple_of(c.string(), none),
            c.dict_of(none),
            c.record(dict, c.required("a", c.string()), c.optional("b", none)),
            c.union(c.variant("c", circle)),
            c.internal_union(c.variant("c", circle)),
            c.map(none, str, str),
            c.try_map(none, Ok, Ok),
            none.with_description("x"),
            c.lazy(lambda: none),
        ]
        assert [w.schema for w in wrappers] == [None] * len(wrappers)
        assert c.list_of(none).decode([1]) == Ok([1])

    def test_root_schema_is_kept_as_given(self) -> None:
        """At the root, a custom codec's schema is exactly the one given."""
        given = make(("$ref", "#"), ("$defs", (("a", make(("type", "string"))),)))
        assert c.custom(Ok, Ok, given).schema is given

    def test_nested_defs_move_to_the_root(self) -> None:
        """A custom schema's $defs move to the document root; a clashing name is renamed with its refs."""
        first = make(("$ref", "#/$defs/Item"), ("$defs", (("Item", make(("type", "string"))),)))
        second = make(("$ref", "#/$defs/Item"), ("$defs", (("Item", make(("type", "integer"))),)))
        codec = c.tuple_of(c.custom(Ok, Ok, first), c.custom(Ok, Ok, second), c.custom(Ok, Ok, first))
        assert body(codec) == {
            "type": "array",
            "prefixItems": [{"$ref": "#/$defs/Item"}, {"$ref": "#/$defs/Item2"}, {"$ref": "#/$defs/Item"}],
            "minItems": 3,
            "maxItems": 3,
            "$defs": {"Item": {"type": "string"}, "Item2": {"type": "integer"}},
        }

    def test_root_ref_cannot_be_nested(self) -> None:
        """A schema referring to its own root cannot be nested in another codec."""
        rooted = c.custom(Ok, Ok, make(("items", make(("$ref", "#")))))
        with pytest.raises(DefinitionError, match="cannot be nested"):
            c.list_of(rooted)

    def test_definition_error(self) -> None:
        """The schema must be a Schema."""
        with pytest.raises(DefinitionError, match="must be a Schema"):
            c.custom(Ok, Ok, {"type": "string"})  # type: ignore[arg-type]


class TestDescribe:
    def test_description_comes_first_and_replaces(self) -> None:
        """A later description replaces an earlier one, in first place."""
        codec = c.integer(minimum=0).with_description("old").with_description("new")
        assert list(body(codec)) == ["description", "type", "minimum"]
        assert body(codec)["description"] == "new"
        assert codec.decode(1) == Ok(1)

    def test_definition_error(self) -> None:
        """A description must be text."""
        with pytest.raises(DefinitionError, match="must be a str"):
            c.string().with_description(5)  # type: ignore[arg-type]


class TestJsonValue:
    def test_any_json(self) -> None:
        """Any JSON value decodes to itself; Python values that are not JSON are refused."""
        codec = c.json_value()
        value: Any = {"a": [1, D("1.5"), None, True, "x"]}
        assert codec.decode(value) == Ok(value)
        assert codec.encode(value) == Ok(value)
        assert isinstance(codec.decode({"a": 1.5}), Err)  # type: ignore[dict-item]
        assert isinstance(codec.decode({1: 1}), Err)  # type: ignore[dict-item]
        assert isinstance(codec.decode(D("NaN")), Err)
        assert body(codec) == {}

    def test_cycles_end(self) -> None:
        """A cyclic value is refused, not walked forever."""
        cyclic: list[Any] = []
        cyclic.append(cyclic)
        assert enc_err(c.json_value(), cyclic).reason == TooDeep()

    def test_floats_as_render_writes_them(self) -> None:
        """``floats=True`` passes finite Python floats both ways, unchanged; the default refuses them."""
        value: Any = {"ratio": 0.5, "items": [1, 2.25, D("3.5")]}
        codec = c.json_value(floats=True)
        assert codec.encode(value) == Ok(value)
        assert codec.decode(value) == Ok(value)
        not_json: list[Any] = [{"x": float("nan")}, [float("inf")], {"x": object()}]
        for bad in not_json:
            assert isinstance(codec.encode(bad), Err)
        assert body(codec) == {}
        assert isinstance(c.json_value().encode(value), Err)


class TestDecodeJson:
    def test_parse_failure(self) -> None:
        """A parse failure is InvalidJson at the root, and its text is the parse error's alone."""
        error = unwrap_err(c.integer().decode_json("[1,"))
        assert error.path == ()
        assert isinstance(error.reason, InvalidJson)
        assert isinstance(error.reason.error, ParseError)
        assert error.describe() == "invalid JSON at line 1, column 4: unexpected end of input"

    def test_limits_apply(self) -> None:
        """The caller's limits bound the parse."""
        error = unwrap_err(c.string().decode_json('"abcdef"', Limits().with_max_bytes(4)))
        assert error.describe().endswith("(raise it with Limits.with_max_bytes)")

    def test_bytes_and_numbers(self) -> None:
        """Bytes are read as UTF-8; numbers arrive exactly."""
        assert c.decimal().decode_json(b"0.1") == Ok(D("0.1"))
        error = unwrap_err(c.string().decode_json(b"\xff"))
        assert error.reason == InvalidJson(error.reason.error)
        assert error.reason.error.reason is Syntax.INVALID_UTF8


class TestErrorTexts:
    def test_contract_mismatch(self) -> None:
        """The reason the contract layer uses."""
        assert (
            c.DecodeError((), c.ContractMismatch()).describe()
            == "$: the codec's schema differs from the contract's"
        )

    def test_paths_are_json_escaped(self) -> None:
        """Member names render JSON-escaped in brackets."""
        codec = c.record(dict, c.required('a"b', c.list_of(c.integer())))
        assert text(codec, {'a"b': [1, "x"]}) == '$["a\\"b"][1]: expected an integer'

    @given(st.text(min_size=1))
    def test_no_input_in_texts(self, secret: str) -> None:
        """Whatever the input, neither its values nor its unknown keys appear in the text."""
        marked = "\x00SECRET" + secret
        codec = c.record(dict, c.required("a", c.integer()), c.optional("b", c.dict_of(c.boolean())))
        for value in ({"a": marked}, {"a": 1, marked: 1}, {"a": 1, "b": {marked: marked}}, marked):
            assert "SECRET" not in text(codec, value)
            assert "SECRET" not in str(enc_err(codec, value))

    def test_str_is_describe(self) -> None:
        """``str()`` of an error is its text."""
        error = err(c.string(), 1)
        assert str(error) == error.describe()


class TestCodecObject:
    def test_repr_is_short(self) -> None:
        """The repr names the kind, never a schema or a value."""
        assert repr(c.list_of(c.string())) == "<Codec list of string>"
        assert repr(c.record(Point, c.required("x", c.integer()))) == "<Codec record Point>"

    def test_schema_is_cached(self) -> None:
        """The schema is computed once."""
        codec = tree_codec()
        assert codec.schema is codec.schema
        plain = c.list_of(c.string())
        assert plain.schema is plain.schema


class TestRegisteredSchemas:
    """Every schema a test built is valid under the meta-schema (``reg`` checks each one as it is built)."""

    def test_every_registered_schema_is_valid(self) -> None:
        """The shared codecs, and every codec registered so far, pass the Draft 2020-12 meta-schema."""
        checked = 0
        for codec in [*REGISTRY, SHAPES, INTERNAL]:
            if codec.schema is None:
                continue
            Draft202012Validator.check_schema(document(codec))  # type: ignore[arg-type]
            checked += 1
        assert checked >= 2


class TestFormats:
    """date_time, date and uuid decode their RFC spelling strictly and encode it canonically."""

    def test_date_time(self) -> None:
        """An RFC 3339 date-time with an offset is an aware datetime; encoding writes isoformat()."""
        import datetime as dt

        codec = c.date_time()
        plus_one = dt.timezone(dt.timedelta(hours=1))
        assert codec.decode("2026-03-01T09:30:00.25+01:00") == Ok(
            dt.datetime(2026, 3, 1, 9, 30, 0, 250000, plus_one)
        )
        assert codec.decode("2026-03-01t08:30:00z") == Ok(dt.datetime(2026, 3, 1, 8, 30, tzinfo=dt.UTC))
        assert codec.encode(dt.datetime(2026, 3, 1, 9, 30, tzinfo=plus_one)) == Ok(
            "2026-03-01T09:30:00+01:00"
        )
        assert body(codec) == {"type": "string", "format": "date-time"}

    @pytest.mark.parametrize(
        "value",
        [
            "2026-03-01T09:30:00",  # no offset
            "2026-03-01 09:30:00Z",  # a space, not T
            "2026-02-30T09:30:00Z",  # no such day
            "2026-03-01T24:00:00Z",
            "2026-03-01T23:59:60Z",  # a leap second: datetime has none
            "2026-03-01T09:30:00.1234567Z",  # beyond microseconds
            "2026-03-01T09:30:00+01:60",
            "20260301T093000Z",  # ISO 8601 basic form
            "2026-03-01",
        ],
    )
    def test_date_time_refusals(self, value: str) -> None:
        """Anything but RFC 3339 with an offset is FormatMismatch, and the text shows no input."""
        assert err(c.date_time(), value).reason == reasons.FormatMismatch("date-time")
        assert text(c.date_time(), value) == "$: expected a string in date-time format"

    def test_date_time_encode_refusals(self) -> None:
        """A naive datetime, or an offset with seconds, does not encode."""
        import datetime as dt

        assert enc_err(c.date_time(), dt.datetime(2026, 3, 1)).reason == c.UnexpectedType(
            "timezone-aware datetime"
        )
        odd = dt.timezone(dt.timedelta(seconds=30))
        assert isinstance(c.date_time().encode(dt.datetime(2026, 3, 1, tzinfo=odd)), Err)
        assert isinstance(c.date_time().encode("2026-03-01T00:00:00Z"), Err)  # type: ignore[arg-type]

    def test_date(self) -> None:
        """A full-date is a date; a datetime (a date subclass) does not encode."""
        import datetime as dt

        codec = c.date()
        assert codec.decode("2024-02-29") == Ok(dt.date(2024, 2, 29))
        assert codec.encode(dt.date(2026, 3, 1)) == Ok("2026-03-01")
        for bad in ("2023-02-29", "2026-3-01", "2026-03-01T00:00:00Z", "+2026-03-01"):
            assert err(codec, bad).reason == reasons.FormatMismatch("date")
        assert enc_err(codec, dt.datetime(2026, 3, 1)).reason == c.UnexpectedType("date")
        assert err(codec, 20260301).reason == WrongType(("string",))
        assert body(codec) == {"type": "string", "format": "date"}

    def test_uuid(self) -> None:
        """A hyphenated UUID in either case decodes; encoding writes it lowercase."""
        import uuid

        codec = c.uuid()
        known = uuid.UUID("12345678-1234-5678-9abc-def012345678")
        assert codec.decode("12345678-1234-5678-9ABC-DEF012345678") == Ok(known)
        assert codec.encode(known) == Ok("12345678-1234-5678-9abc-def012345678")
        for bad in ("{12345678-1234-5678-9abc-def012345678}", "12345678123456789abcdef012345678", "x"):
            assert err(codec, bad).reason == reasons.FormatMismatch("uuid")
        assert enc_err(codec, str(known)).reason == c.UnexpectedType("UUID")
        assert body(codec) == {"type": "string", "format": "uuid"}


class TestUntagged:
    """Untagged unions pick the member by the value's JSON type and refuse members that share one."""

    def test_int_or_str(self) -> None:
        """Each JSON type goes to its member; other types are WrongType listing the members' types."""
        codec = c.untagged(c.integer(), c.string(max_length=3))
        assert codec.decode(1) == Ok(1)
        assert codec.decode(D("2.0")) == Ok(2)
        assert codec.decode("abc") == Ok("abc")
        assert text(codec, D("1.5")) == "$: expected an integer or a string"
        assert text(codec, None) == "$: expected an integer or a string"
        assert text(codec, "abcd") == "$: expected at most 3 characters"
        assert codec.encode(5) == Ok(5)
        assert enc_err(codec, "abcd").reason == TooLong(3)
        assert enc_err(codec, D(1)).reason == c.UnknownVariant()
        assert body(codec) == {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 3}]}

    def test_bool_is_not_int(self) -> None:
        """true goes to the boolean member and 1 to the integer one, whichever comes first."""
        for codec in (c.untagged(c.boolean(), c.integer()), c.untagged(c.integer(), c.boolean())):
            assert codec.decode(True) == Ok(True)
            assert codec.decode(1) == Ok(1)
            assert codec.encode(True) == Ok(True)
            assert codec.encode(0) == Ok(0)
            assert type(unwrap(codec.decode(1))) is int

    def test_nested_and_nullable(self) -> None:
        """Members may be containers and records; nullable adds null."""
        codec = c.nullable(c.untagged(c.list_of(c.integer()), c.record(dict, c.required("a", c.integer()))))
        assert codec.decode([1]) == Ok([1])
        assert codec.decode({"a": 1}) == Ok({"a": 1})
        assert codec.decode(None) == Ok(None)
        assert text(codec, "x") == "$: expected an array, an object or null"

    def test_recursive(self) -> None:
        """A recursive untagged union renders and decodes through lazy."""
        tree: c.Codec[Any] = c.lazy(lambda: node, name="Tree")
        node = c.untagged(c.integer(), c.list_of(tree))
        assert tree.decode([1, [2, [3]]]) == Ok([1, [2, [3]]])
        assert text(tree, [1, ["x"]]) == "$[1][0]: expected an integer or an array"

    @pytest.mark.parametrize(
        ("members", "message"),
        [
            ((c.integer(), c.floating()), "members 0 and 1 both take a JSON integer"),
            ((c.string(), c.enum_of(Unit)), "members 0 and 1 both take a JSON string"),
            (
                (c.integer(), c.nullable(c.string()), c.json_value()),
                "member 2 .* does not state its JSON type",
            ),
            ((c.integer(), c.custom(Ok, Ok)), "member 1 .* has no schema"),
            ((c.integer(),), "at least two members"),
        ],
    )
    def test_definition_errors(self, members: tuple[c.Codec[Any], ...], message: str) -> None:
        """Members that cannot be told apart by JSON type are refused when the codec is built."""
        with pytest.raises(DefinitionError, match=message):
            c.untagged(*members)


def _run(statement: str) -> list[str]:
    """What a fresh interpreter prints after ``statement``, split at spaces."""
    out = subprocess.run([sys.executable, "-c", statement], capture_output=True, text=True, check=True)
    return out.stdout.split()


_CODEC_MODULES = "print(*sorted(m for m in sys.modules if m.startswith('llm_wire.codec')))"


class TestLoadedOnUse:
    """The face imports its parts at the top, but not cattrs; its classes print the face."""

    def test_the_face_loads_its_parts_and_no_cattrs(self) -> None:
        """A contract, a tool and admission load the whole face (every part of it), and no cattrs."""
        parts = sorted(f"llm_wire.codec.{path.stem}" for path in Path(c.__file__).parent.glob("_*.py"))
        statement = "import sys, llm_wire.codec, llm_wire.contract, llm_wire.admission"
        loaded = _run(f"{statement}; {_CODEC_MODULES}; print('cattrs' in sys.modules)")
        assert loaded == ["llm_wire.codec", *[p for p in parts if p != "llm_wire.codec.__init__"], "False"]

    def test_a_name_loads_its_part(self) -> None:
        """``codec.derive`` loads ``derive`` and what it stands on, and the face lists every name."""
        loaded = _run(f"import sys; from llm_wire.codec import derive; {_CODEC_MODULES}")
        assert {"llm_wire.codec._derive", "llm_wire.codec._records", "llm_wire.codec._scalars"} <= set(loaded)
        assert set(c.__all__) <= set(dir(c))
        with pytest.raises(AttributeError, match="no attribute 'nothing'"):
            c.nothing  # type: ignore[attr-defined]  # noqa: B018

    def test_classes_print_the_face(self) -> None:
        """A class prints ``llm_wire.codec`` even when its part was loaded by another part."""
        homes = _run(
            "import llm_wire.admission; from llm_wire.codec import derive; "
            "import llm_wire.codec._records as r, llm_wire.codec._reasons as e; "
            "print(r.Field.__module__, e.UnexpectedType.__module__)"
        )
        assert homes == ["llm_wire.codec", "llm_wire.codec"]
        for name in ("Codec", "DecodeError", "UnexpectedType", "Field", "Variant", "Meta"):
            assert getattr(c, name).__module__ == "llm_wire.codec"
