# mypy: disable-error-code="arg-type,dict-item,list-item"
"""
Defects found by the adversarial review of ``llm_wire.contract``: each test failed before its fix.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from llm_wire import contract
from llm_wire.contract import InvalidShape, LoadError, NotJsonValue, UnsupportedPattern
from llm_wire.contract._contract import first_failure
from llm_wire.error import LimitExceeded
from llm_wire.result import Err, Ok
from llm_wire.value import Value


def _loaded(document: Any) -> contract.Contract:
    loaded = contract.load(document)
    assert isinstance(loaded, Ok), loaded
    return loaded.value


class TestInstanceTypeOfAnnotations:
    """A keyword that applies to objects never marks array items evaluated, and the other way round."""

    def test_dependent_schemas_do_not_evaluate_items(self) -> None:
        """``dependentSchemas`` applies to objects only: an array's items stay unevaluated."""
        c = _loaded({"dependentSchemas": {"a": {"contains": True}}, "unevaluatedItems": False})
        assert isinstance(contract.validate(c, ["a", 1]), Err)
        assert isinstance(contract.validate(c, []), Ok)

    def test_object_keywords_do_not_evaluate_items(self) -> None:
        """``properties`` and friends, under a combinator, say nothing about an array's items."""
        for keyword in ({"properties": {"0": True}}, {"additionalProperties": True}):
            c = _loaded({"allOf": [keyword], "unevaluatedItems": False})
            assert isinstance(contract.validate(c, [1]), Err), keyword

    def test_array_keywords_do_not_evaluate_members(self) -> None:
        """``items`` and ``prefixItems`` say nothing about an object's members."""
        for keyword in ({"items": True}, {"prefixItems": [True]}, {"contains": True}):
            c = _loaded({"anyOf": [keyword], "unevaluatedProperties": False})
            assert isinstance(contract.validate(c, {"a": 1}), Err), keyword


class TestUnevaluatedUnderBackReferences:
    """``unevaluated*`` under a ``$ref`` back to an ancestor with later in-place siblings compiles."""

    def test_back_reference_with_a_later_sibling_loads(self) -> None:
        """The compiler may ask for a subschema that is not compiled yet: it gets a cell, not an assertion."""
        for sibling in ({"anyOf": [{"type": "object"}]}, {"if": {"required": ["b"]}, "then": True}):
            document = {
                "properties": {"x": {"$ref": "#/$defs/a"}},
                **sibling,
                "$defs": {"a": {"anyOf": [{"$ref": "#"}], "unevaluatedProperties": False}},
            }
            c = _loaded(document)
            assert isinstance(contract.validate(c, {"x": {}}), Ok)
            assert isinstance(contract.validate(c, {"x": {"y": 1}}), Err)


class TestPatternDigits:
    """ECMA-262 digits are ASCII: ``{²}`` is not a quantifier, and nothing raises."""

    def test_non_ascii_digits_are_literal(self) -> None:
        """``^a{²}$`` reads as the literal text ``a{²}`` (Annex B), like ``^a{x}$``."""
        c = _loaded({"pattern": "^a{²}$"})
        assert isinstance(contract.validate(c, "a{²}"), Ok)
        assert isinstance(contract.validate(c, "aa"), Err)
        for pattern in ("a{1,²}", "x{³,}", "\\0²"):
            assert isinstance(contract.load({"pattern": pattern}), Ok), pattern

    def test_escaped_non_ascii_digit_is_not_a_backreference(self) -> None:
        """``\\²`` is an identity escape of a non-ASCII character, as every other one."""
        c = _loaded({"pattern": "^\\²$"})
        assert isinstance(contract.validate(c, "²"), Ok)


_NON_FINITE = [Decimal("NaN"), Decimal("-Infinity"), Decimal("Infinity"), Decimal("sNaN"), Decimal("-sNaN")]


class TestNonFiniteNumbers:
    """Non-finite ``Decimal``s and floats are not JSON values: a typed failure, never an exception."""

    @pytest.mark.parametrize(
        "document",
        [
            {"type": "number"},
            {"enum": [1, "a"]},
            {"const": 1},
            {"minimum": 0},
            {"multipleOf": 2},
            {"not": {}},
        ],
    )
    @pytest.mark.parametrize("number", [*_NON_FINITE, float("nan"), float("inf")])
    def test_non_finite_numbers_are_not_json(self, document: Value, number: Any) -> None:
        """Top level or nested in a checked member: ``NotJsonValue``."""
        c = _loaded(document)
        match contract.validate(c, number):
            case Err(error):
                assert error.reason == NotJsonValue()
            case ok:
                pytest.fail(f"passed: {ok}")
        nested = _loaded({"properties": {"n": document}})
        found = contract.validate(nested, {"n": number})
        assert isinstance(found, Err)
        assert found.error.reason == NotJsonValue()
        assert contract.validate_all(c, number)[0].reason == NotJsonValue()

    def test_non_finite_numbers_inside_const_and_unique_items(self) -> None:
        """Equality keys never hash a signalling NaN (which raised ``TypeError``)."""
        for document in ({"const": [1]}, {"enum": [[1]]}, {"uniqueItems": True, "items": {"type": "number"}}):
            c = _loaded(document)
            assert isinstance(contract.validate(c, [Decimal("sNaN"), Decimal("sNaN")]), Err), document
        assert isinstance(contract.validate(_loaded({"uniqueItems": True}), [Decimal("sNaN")] * 2), Ok | Err)


class TestWrongPythonTypes:
    """Every public function of ``llm_wire.contract`` given a wrong Python type raises a ``TypeError``."""

    def test_contract_parameter(self) -> None:
        """``validate(dict, ...)`` names the parameter."""
        for function in (contract.validate, first_failure, contract.validate_all):
            with pytest.raises(TypeError, match=r"^contract must be a Contract, not dict$"):
                function({}, 1)

    def test_other_parameters(self) -> None:
        """Witnesses, limits, options and texts are checked at the boundary too."""
        c = _loaded({})
        with pytest.raises(TypeError, match=r"^validated must be a Validated, not int$"):
            contract.decode(object(), 1)
        with pytest.raises(TypeError, match=r"^limit must be an int, not str$"):
            contract.validate_all(c, 1, limit="3")
        with pytest.raises(TypeError, match=r"^max_nodes must be an int, not str$"):
            contract.load({}, max_nodes="3")
        with pytest.raises(TypeError, match=r"^assert_formats must be a bool, not int$"):
            contract.load({}, assert_formats=1)
        with pytest.raises(TypeError, match=r"^schema must be a Schema, not dict$"):
            contract.from_schema({})
        with pytest.raises(TypeError, match=r"^text must be a str or bytes, not int$"):
            contract.parse(1)
        with pytest.raises(TypeError, match=r"^annotations must be an iterable of str, not int$"):
            contract.load({}, annotations=1)

    def test_options_equal_to_their_defaults_are_checked_too(self) -> None:
        """An option of the wrong type is a ``TypeError`` even where it equals the default in value."""
        for name, bad in (("max_ref_depth", True), ("max_nodes", 10_000.0), ("max_depth", Decimal(128))):
            with pytest.raises(TypeError, match=rf"^{name} must be an int, not {type(bad).__name__}$"):
                contract.load({}, **{name: bad})
        with pytest.raises(TypeError, match=r"^assert_formats must be a bool, not int$"):
            contract.load({}, assert_formats=0)
        with pytest.raises(TypeError, match=r"^annotations must be an iterable of str, not str$"):
            contract.load({}, annotations="")

    def test_bad_data_is_not_a_type_error(self) -> None:
        """A document or value of any Python type is data: ``Err``, never ``TypeError``."""
        assert isinstance(contract.load(object()), Err)
        assert isinstance(contract.validate(_loaded({"type": "string"}), object()), Err)


class TestFloats:
    """Finite Python floats are read exactly (through their shortest repr) in schemas and in values."""

    def test_float_keywords_load(self) -> None:
        """``maximum: 1.5``, ``multipleOf: 0.1``, ``default: 0.7`` and ``const: 0.1`` load, read exactly."""
        c = _loaded({"maximum": 1.5, "multipleOf": 0.1, "default": 0.7})
        assert isinstance(contract.validate(c, Decimal("1.5")), Ok)
        assert isinstance(contract.validate(c, 1.5), Ok)
        assert isinstance(contract.validate(c, 0.3), Ok)  # 0.3 is a multiple of 0.1, read exactly
        assert isinstance(contract.validate(c, 1.6), Err)
        d = _loaded({"const": 0.1})
        assert isinstance(contract.validate(d, Decimal("0.1")), Ok)
        assert isinstance(contract.validate(d, 0.1), Ok)

    def test_non_finite_floats_in_schemas_are_refused(self) -> None:
        """NaN and infinities are no JSON: ``InvalidShape`` at their keyword."""
        for number in (float("nan"), float("inf"), float("-inf")):
            found = contract.load({"properties": {"a": {"maximum": number}}})
            assert isinstance(found, Err), number
            assert isinstance(found.error.reason, InvalidShape)
            assert found.error.path == ("properties", "a")
            assert found.error.keyword == "maximum"

    def test_float_values_validate(self) -> None:
        """Type, bounds, multipleOf, const, enum and uniqueItems read floats exactly."""
        c = _loaded({"properties": {"x": {"type": "number", "minimum": 1}}})
        assert isinstance(contract.validate(c, {"x": 1.5}), Ok)
        assert isinstance(contract.validate(c, {"x": 0.5}), Err)
        assert isinstance(contract.validate(_loaded({"type": "integer"}), 2.0), Ok)
        assert isinstance(contract.validate(_loaded({"enum": [1, 0.5]}), 0.5), Ok)
        assert isinstance(contract.validate(_loaded({"uniqueItems": True}), [1.0, 1]), Err)
        assert isinstance(contract.validate(_loaded({"type": "string"}), 1.5), Err)


class TestPatternCost:
    """A pattern whose counted repetitions make RE2 slow is refused at load, naming the setting."""

    def test_large_counted_repetition_is_refused(self) -> None:
        """``(?:a|b)*a(?:a|b){1000}c`` ran 5-12 s on 1 MiB; now ``LimitExceeded`` for ``max_pattern_cost``."""
        found = contract.load({"properties": {"a": {"pattern": "(?:a|b)*a(?:a|b){1000}c"}}})
        assert isinstance(found, Err), found
        assert found.error.path == ("properties", "a")
        assert found.error.keyword == "pattern"
        reason = found.error.reason
        assert isinstance(reason, LimitExceeded)
        assert reason.setting == "contract.load(max_pattern_cost=)"
        assert "(?:a|b)" not in found.error.describe()
        raised = contract.load({"pattern": "(?:a|b)*a(?:a|b){1000}c"}, max_pattern_cost=5_000)
        assert isinstance(raised, Ok)

    def test_pattern_properties_are_bounded_too(self) -> None:
        """The same bound holds for ``patternProperties`` keys."""
        found = contract.load({"patternProperties": {"(?:a|b)*a(?:a|b){1000}c": True}})
        assert isinstance(found, Err)
        assert isinstance(found.error.reason, LimitExceeded)

    def test_ordinary_patterns_load(self) -> None:
        """Unicode classes and modest counts stay well inside the default."""
        for pattern in (
            "\\p{Letter}cole",
            "^[a-zA-Z0-9]{1,255}$",
            "[a-z]{1,64}",
            "^(\\d{1,3}\\.){3}\\d{1,3}$",
        ):
            assert isinstance(contract.load({"pattern": pattern}), Ok), pattern

    def test_unsupported_pattern_stays_a_pattern_refusal(self) -> None:
        """A lookahead is still ``UnsupportedPattern``."""
        found = contract.load({"pattern": "(?=a)"})
        assert isinstance(found, Err)
        assert isinstance(found.error.reason, UnsupportedPattern)
        assert isinstance(found.error, LoadError)


class TestDeepFloats:
    """Reading floats exactly never recurses: a deep document holding one is refused, not raised on."""

    def test_a_float_under_3000_lists_is_a_load_error(self) -> None:
        """The exact copy is iterative; the depth bound then refuses the document with a typed error."""
        deep: Any = 1.5
        for _ in range(3000):
            deep = [deep]
        assert isinstance(contract.load({"const": deep}), Err)
