"""
Contracts: loading (dialects, draft-07, annotations, fail-closed refusals, references, bounds), validation
(every keyword, exact numbers, order of failures, texts), ``validate_all``, witnesses and ``decode``.
"""

from __future__ import annotations

import dataclasses
import enum
import gc
import socket
import subprocess
import sys
import time
import urllib.request
from collections import OrderedDict
from decimal import Decimal
from typing import Any, ClassVar

import pytest
from strategies import collector_paused

from llm_wire import codec, contract
from llm_wire._regex import MAX_PATTERN_COST
from llm_wire.contract import (
    Contract,
    Dialect,
    DuplicateItems,
    InvalidPropertyName,
    InvalidShape,
    LoadError,
    MatchesNot,
    MissingDependency,
    NoMatch,
    NotAllowed,
    NotJsonValue,
    ReferenceLoop,
    RemoteReference,
    SeveralMatch,
    TooFewMatches,
    TooFewProperties,
    TooManyMatches,
    TooManyProperties,
    UnexpectedItem,
    UnknownFormat,
    UnresolvableReference,
    UnsupportedDialect,
    UnsupportedKeyword,
    UnsupportedPattern,
    Validated,
    ValidationError,
    _load,
)
from llm_wire.contract._fastload import quick_plan
from llm_wire.contract._formats import FORMATS
from llm_wire.contract._keywords import KEYWORDS
from llm_wire.error import LimitExceeded
from llm_wire.reasons import (
    AboveMaximum,
    BelowMinimum,
    FormatMismatch,
    InvalidJson,
    MissingProperty,
    PatternMismatch,
    TooDeep,
    TooFewItems,
    TooLong,
    TooManyItems,
    TooShort,
    UnexpectedProperty,
    WrongType,
)
from llm_wire.result import Err, Ok
from llm_wire.schema import make
from llm_wire.value import Value

URI_2020 = "https://json-schema.org/draft/2020-12/schema"
URI_07 = "http://json-schema.org/draft-07/schema#"


def loaded(document: Any, **options: Any) -> Contract:
    result = contract.load(document, **options)
    assert isinstance(result, Ok), result
    return result.value


def refused(document: Any, **options: Any) -> LoadError:
    result = contract.load(document, **options)
    assert isinstance(result, Err), result
    return result.error


def failure(schema: Any, value: Any) -> ValidationError:
    result = contract.validate(loaded(schema), value)
    assert isinstance(result, Err), result
    return result.error


def valid(schema: Any, value: Any) -> bool:
    return isinstance(contract.validate(loaded(schema), value), Ok)


WEATHER: Value = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1, "description": "City name"},
        "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 1},
        "unit": {"enum": ["celsius", "fahrenheit"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}


class TestDialects:
    def test_a_document_without_schema_is_draft_2020_12(self) -> None:
        """No ``$schema`` means Draft 2020-12."""
        assert loaded({"type": "string"}).dialect is Dialect.DRAFT_2020_12

    @pytest.mark.parametrize("uri", [URI_2020, URI_2020 + "#"])
    def test_draft_2020_12_with_or_without_hash(self, uri: str) -> None:
        """The 2020-12 URI is accepted with or without an empty fragment, and left out of ``schema``."""
        compiled = loaded({"$schema": uri, "type": "string"})
        assert compiled.dialect is Dialect.DRAFT_2020_12
        assert "$schema" not in compiled.schema

    @pytest.mark.parametrize("uri", [URI_07, URI_07[:-1]])
    def test_draft_07_with_or_without_hash(self, uri: str) -> None:
        """The draft-07 URI is accepted with or without ``#``."""
        assert loaded({"$schema": uri, "type": "string"}).dialect is Dialect.DRAFT_07

    @pytest.mark.parametrize(
        "uri",
        ["http://json-schema.org/draft-04/schema#", "https://json-schema.org/draft/2019-09/schema", "x"],
    )
    def test_other_dialects_are_refused(self, uri: str) -> None:
        """Any other dialect is refused at ``$schema``, without repeating the URI."""
        error = refused({"$schema": uri})
        assert error == LoadError((), "$schema", UnsupportedDialect())
        assert uri not in error.describe()

    def test_a_schema_that_is_not_a_string_is_malformed(self) -> None:
        """``$schema`` must be a string."""
        assert refused({"$schema": 7}) == LoadError((), "$schema", InvalidShape("must be a string"))

    def test_a_nested_dialect_must_match(self) -> None:
        """An embedded resource may repeat the 2020-12 dialect, not name another."""
        assert loaded({"$defs": {"a": {"$id": "a", "$schema": URI_2020}}})
        error = refused({"$defs": {"a": {"$id": "a", "$schema": URI_07}}})
        assert error == LoadError(("$defs", "a"), "$schema", UnsupportedDialect())


class TestDraft07:
    def test_array_items_and_additional_items(self) -> None:
        """Array-form ``items`` is ``prefixItems``; ``additionalItems`` is ``items``."""
        schema = {"$schema": URI_07, "items": [{"type": "integer"}], "additionalItems": {"type": "string"}}
        compiled = loaded(schema)
        assert compiled.schema.names() == ("prefixItems", "items")
        assert isinstance(contract.validate(compiled, [1, "a", "b"]), Ok)
        assert failure(schema, [1, 2]).path == (1,)
        assert failure(schema, ["a"]) == ValidationError((0,), WrongType(("integer",)))

    def test_additional_items_beside_a_single_items_schema_is_ignored(self) -> None:
        """Draft-07 ignores ``additionalItems`` unless ``items`` is an array."""
        schema = {"$schema": URI_07, "items": {"type": "integer"}, "additionalItems": False}
        assert valid(schema, [1, 2, 3])

    def test_dependencies_split_into_required_and_schemas(self) -> None:
        """``dependencies`` reads as ``dependentRequired`` (arrays) and ``dependentSchemas`` (schemas)."""
        schema = {"$schema": URI_07, "dependencies": {"a": ["b"], "c": {"required": ["d"]}}}
        assert valid(schema, {"a": 1, "b": 2, "c": 3, "d": 4})
        assert failure(schema, {"a": 1}) == ValidationError(("b",), MissingDependency("a"))
        assert failure(schema, {"c": 1}) == ValidationError(("d",), MissingProperty())

    def test_ref_siblings_are_ignored(self) -> None:
        """Beside ``$ref``, draft-07 ignores everything; annotations are kept, assertions dropped."""
        schema = {
            "$schema": URI_07,
            "definitions": {"s": {"type": "string"}},
            "properties": {"a": {"$ref": "#/definitions/s", "maxLength": 1, "description": "kept"}},
        }
        compiled = loaded(schema)
        assert isinstance(contract.validate(compiled, {"a": "long"}), Ok)
        properties: Any = compiled.schema.get("properties")
        assert properties[0][1].names() == ("$ref", "description")

    def test_an_id_fragment_is_an_anchor(self) -> None:
        """``$id: "#x"`` names a plain-name anchor, as draft-07 says."""
        schema = {"$schema": URI_07, "definitions": {"x": {"$id": "#x", "type": "integer"}}, "$ref": "#x"}
        assert failure(schema, "a").reason == WrongType(("integer",))

    @pytest.mark.parametrize(
        "keyword", ["prefixItems", "unevaluatedProperties", "dependentRequired", "$anchor"]
    )
    def test_draft_2020_12_keywords_are_refused(self, keyword: str) -> None:
        """A draft-07 document that uses a 2020-12-only keyword is ambiguous, so it is refused."""
        error = refused({"$schema": URI_07, "properties": {"a": {keyword: {}}}})
        assert (error.path, error.keyword) == (("properties", "a"), keyword)
        assert isinstance(error.reason, UnsupportedKeyword)

    def test_errors_name_the_draft_07_spelling(self) -> None:
        """A problem under a rewritten keyword is reported at its draft-07 path."""
        error = refused({"$schema": URI_07, "items": [{"type": "string"}, {"minLength": -1}]})
        assert (error.path, error.keyword) == (("items", 1), "minLength")
        error = refused({"$schema": URI_07, "dependencies": {"a": {"minLenght": 1}}})
        assert (error.path, error.keyword) == (("dependencies", "a"), "minLenght")


class TestAnnotations:
    ANNOTATED: ClassVar[dict[str, Value]] = {
        "title": "T",
        "description": "D",
        "default": 5,
        "examples": [5],
        "$comment": "c",
        "deprecated": True,
        "readOnly": True,
        "writeOnly": False,
        "contentMediaType": "text/plain",
        "contentEncoding": "base64",
        "x-vendor": {"anything": [1]},
        "format": "no-such-format",
        "type": "string",
    }

    def test_annotations_are_kept_and_never_validate(self) -> None:
        """Annotations stay in ``schema`` and reject nothing (a ``default`` of the wrong type included)."""
        compiled = loaded(self.ANNOTATED)
        assert compiled.schema.names() == tuple(self.ANNOTATED)
        assert isinstance(contract.validate(compiled, "not base64!"), Ok)

    def test_unknown_keywords_are_refused(self) -> None:
        """An unknown keyword may be a misspelled assertion: the document is refused at its path."""
        error = refused({"properties": {"name": {"type": "string", "minLenght": 3}}})
        assert (error.path, error.keyword) == (("properties", "name"), "minLenght")
        assert isinstance(error.reason, UnsupportedKeyword)
        assert error.describe().startswith('$["properties"]["name"]: "minLenght" is not supported')

    def test_declared_annotations_are_accepted(self) -> None:
        """A caller may declare extra annotation keywords, such as OpenAPI's ``example``."""
        compiled = loaded({"type": "string", "example": "x"}, annotations=["example"])
        assert "example" in compiled.schema
        assert isinstance(contract.validate(compiled, "y"), Ok)

    def test_declaring_an_assertion_as_annotation_does_not_switch_it_off(self) -> None:
        """Known assertions are enforced whatever ``annotations`` says."""
        assert not isinstance(contract.validate(loaded({"minLength": 2}, annotations=["minLength"]), "a"), Ok)


class TestRefusals:
    def test_bad_shapes_name_path_and_keyword(self) -> None:
        """A keyword whose value has the wrong shape is ``InvalidShape`` at its path."""
        error = refused({"properties": {"a": {"minLength": -1}}})
        assert error == LoadError(
            ("properties", "a"), "minLength", InvalidShape("must be a non-negative integer")
        )
        assert refused([1]).reason == InvalidShape("a schema must be an object or a boolean")

    def test_a_remote_reference_is_refused_without_any_network(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A reference to another document is refused at load; no socket, DNS or URL is ever opened."""
        attempts: list[str] = []

        def no_network(*args: object, **kwargs: object) -> Any:
            attempts.append(repr(args))
            raise AssertionError("network access attempted")

        monkeypatch.setattr(socket, "socket", no_network)
        monkeypatch.setattr(socket, "create_connection", no_network)
        monkeypatch.setattr(socket, "getaddrinfo", no_network)
        monkeypatch.setattr(urllib.request, "urlopen", no_network)
        for ref in ["http://example.com/schema.json", "https://localhost:1234/a#/b", "other.json", "urn:x:y"]:
            error = refused({"properties": {"a": {"$ref": ref}}})
            assert error == LoadError(("properties", "a"), "$ref", RemoteReference())
        error = refused({"$id": "http://example.com/root.json", "$ref": "other.json#/$defs/x"})
        assert error.reason == RemoteReference()
        assert attempts == []

    def test_references_inside_the_document_resolve(self) -> None:
        """Pointers, ``$defs``, anchors and ``$id``-relative references resolve, without fetching."""
        schema = {
            "$id": "https://example.com/root.json",
            "$defs": {
                "a": {"$anchor": "name", "type": "string"},
                "b": {"$id": "b.json", "type": "integer"},
                "c~/d": {"type": "boolean"},
            },
            "properties": {
                "p": {"$ref": "#/$defs/a"},
                "q": {"$ref": "#name"},
                "r": {"$ref": "b.json"},
                "s": {"$ref": "https://example.com/b.json"},
                "t": {"$ref": "#/$defs/c~0~1d"},
            },
        }
        compiled = loaded(schema)
        assert isinstance(contract.validate(compiled, {"p": "x", "q": "y", "r": 1, "s": 2, "t": True}), Ok)
        cases: list[tuple[str, Value]] = [("p", 1), ("q", 1), ("r", "x"), ("s", "x"), ("t", 1)]
        for member, bad in cases:
            assert isinstance(contract.validate(compiled, {member: bad}), Err), member

    @pytest.mark.parametrize(
        ("ref", "why"),
        [
            ("#/$defs/missing", "no such place in the document"),
            ("#nowhere", "no such place in the document"),
            ("#/properties", "it does not point at a schema"),
            ("#/$defs/a/enum/0", "it does not point at a schema"),
        ],
    )
    def test_unresolvable_references_are_refused(self, ref: str, why: str) -> None:
        """A reference into the document that leads nowhere (or not to a schema) is refused."""
        error = refused({"$defs": {"a": {"enum": [{}]}}, "properties": {"x": {"$ref": ref}}})
        assert error == LoadError(("properties", "x"), "$ref", UnresolvableReference(why))

    def test_references_that_loop_in_place_are_refused(self) -> None:
        """A reference cycle that never descends into the value could never finish."""
        assert refused({"$ref": "#"}).reason == ReferenceLoop()
        error = refused(
            {
                "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
                "$ref": "#/$defs/a",
            }
        )
        assert error.reason == ReferenceLoop()

    def test_long_reference_chains_are_bounded(self) -> None:
        """More references in a row than ``max_ref_depth`` allows are refused; raising it accepts them."""
        defs = {f"d{n}": {"$ref": f"#/$defs/d{n + 1}"} for n in range(40)}
        defs["d40"] = {"type": "integer"}
        schema: Any = {"$defs": defs, "$ref": "#/$defs/d0"}
        error = refused(schema)
        assert error.reason == LimitExceeded("contract.load(max_ref_depth=)", 32)
        assert "max_ref_depth=" in error.describe()
        assert isinstance(contract.load(schema, max_ref_depth=64), Ok)

    def test_a_10000_deep_document_is_refused_by_limits(self) -> None:
        """Deep documents stop at the parser's depth limit, or at ``max_depth`` for a value built in code."""
        text = '{"not":' * 10_000 + "{}" + "}" * 10_000
        result = contract.parse(text)
        assert isinstance(result, Err)
        assert isinstance(result.error.reason, InvalidJson)
        assert result.error.reason.error.reason == LimitExceeded("Limits.with_max_depth", 64)
        deep: Value = {}
        for _ in range(10_000):
            deep = {"not": deep}
        error = refused(deep)
        assert error.reason == LimitExceeded("contract.load(max_depth=)", 128)

    def test_values_built_too_deep_in_a_keyword_are_refused(self) -> None:
        """A ``const`` or ``enum`` value nested beyond the stack (built in code) is refused, not raised."""
        deep: Any = []
        for _ in range(20_000):
            deep = [deep]
        error = refused({"properties": {"a": {"const": deep}}})
        assert (error.path, error.keyword) == (("properties", "a"), "const")
        assert error.reason == InvalidShape("holds a value nested too deeply")

    def test_too_many_nodes_are_refused(self) -> None:
        """``max_nodes`` bounds the number of schema objects."""
        wide: Any = {"properties": {f"p{n}": {} for n in range(50)}}
        assert refused(wide, max_nodes=20).reason == LimitExceeded("contract.load(max_nodes=)", 20)
        assert loaded(wide, max_nodes=60)

    @pytest.mark.parametrize("pattern", ["(?=a)b", "(a)\\1", "(?<!x)y", "[", "(?i)a", "\\p{Nope}", "\\ud800"])
    def test_patterns_that_cannot_run_in_linear_time_are_refused(self, pattern: str) -> None:
        """Lookaround, backreferences and invalid patterns are refused, never run on a backtracking engine."""
        error = refused({"properties": {"a": {"pattern": pattern}}})
        assert (error.path, error.keyword) == (("properties", "a"), "pattern")
        assert isinstance(error.reason, UnsupportedPattern)
        error = refused({"patternProperties": {pattern: {}}})
        assert (error.path, error.keyword) == (("patternProperties", pattern), "patternProperties")

    def test_unknown_formats_are_refused_only_when_asserting(self) -> None:
        """``format`` is an annotation by default; with ``assert_formats`` an unknown format is refused."""
        assert loaded({"format": "color"})
        error = refused({"properties": {"a": {"format": "color"}}}, assert_formats=True)
        assert error == LoadError(("properties", "a"), "format", UnknownFormat())

    def test_load_error_texts_never_repeat_schema_values(self) -> None:
        """Texts name paths and keywords, not values."""
        error = refused({"const": "SECRET-VALUE", "minLenght": "SECRET-VALUE"})
        assert "SECRET-VALUE" not in error.describe()

    def test_parse_reads_text_strictly(self) -> None:
        """``parse`` takes str or bytes; bad JSON is ``InvalidJson`` with the parser's location."""
        assert isinstance(contract.parse(b'{"type": "string"}'), Ok)
        result = contract.parse('{"type": "string",}')
        assert isinstance(result, Err)
        assert isinstance(result.error.reason, InvalidJson)
        assert result.error.describe().startswith("invalid JSON at line 1, column 18")


class TestContract:
    def test_repr_is_short(self) -> None:
        """The repr names the dialect and counts keywords, and shows no schema content."""
        assert repr(loaded(WEATHER)) == "<Contract draft2020-12, 12 keywords>"

    def test_contracts_and_witnesses_cannot_be_made_by_hand(self) -> None:
        """Only ``load``/``parse``/``from_schema`` make contracts, only ``validate`` makes witnesses."""
        compiled = loaded(WEATHER)
        with pytest.raises(TypeError):
            Contract(compiled.schema, compiled.dialect, False, None, 0)  # type: ignore[call-arg, arg-type]
        with pytest.raises(TypeError):
            Validated({"city": "x"}, compiled)

    def test_contracts_are_frozen(self) -> None:
        """A contract cannot be changed after loading."""
        compiled = loaded(WEATHER)
        with pytest.raises(AttributeError):
            compiled.schema = make()  # type: ignore[misc]

    def test_from_schema_compiles_a_codec_schema(self) -> None:
        """A codec's schema compiles through ``from_schema`` and validates as its document would."""

        @dataclasses.dataclass
        class Point:
            x: int
            y: int

        schema = codec.derive(Point).schema
        assert schema is not None
        result = contract.from_schema(schema)
        assert isinstance(result, Ok)
        assert isinstance(contract.validate(result.value, {"x": 1, "y": 2}), Ok)
        assert isinstance(contract.validate(result.value, {"x": 1}), Err)


WEATHER_07: Any = {"$schema": URI_07, **WEATHER}  # type: ignore[dict-item]


def _quick(document: Value, **options: Any) -> object:
    """What the one-walk reader makes of a document (``None``: it goes the exact way)."""
    draft_07 = isinstance(document, dict) and document.get("$schema") == URI_07
    settings: dict[str, Any] = {
        "supported": frozenset(KEYWORDS),
        "annotations": frozenset(),
        "assert_formats": False,
        "formats": FORMATS,
        "max_nodes": 10_000,
        "max_depth": 128,
        "max_pattern_cost": MAX_PATTERN_COST,
        **options,
    }
    return quick_plan(
        document,
        _load.Rules(**settings),
        exact_way=_load._EXACT_WAY_07 if draft_07 else _load._EXACT_WAY,
        node=_load.Node,
    )


class TestLoadPaths:
    """Plain documents are read in one walk; the others, every refusal among them, go the exact way."""

    def test_plain_documents_take_one_walk(self) -> None:
        """Tool schemas as servers write them, in both dialects, with extensions, patterns and enums."""
        documents: list[Any] = [
            WEATHER,
            WEATHER_07,
            {"$schema": URI_2020, "type": "object", "x-order": 1, "patternProperties": {"^a": True}},
            {"type": ["string", "null"], "pattern": "^[a-z]+$", "format": "date", "default": None},
            {"anyOf": [{"type": "string"}, {"type": "array", "items": {"enum": [1, Decimal("1.5")]}}]},
            {"$defs": {"unused": {"type": "string"}}, "not": False},
        ]
        for document in documents:
            assert _quick(document) is not None, document

    def test_the_others_go_the_exact_way_with_the_same_result(self) -> None:
        """References, resources, nested ``$schema``, converted counts, refusals: the exact path's answer."""
        deep: Value = True
        for _ in range(60):
            deep = {"items": deep}
        exact: list[Any] = [
            {"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"},
            {"$id": "https://example.com/s", "type": "string"},
            {"properties": {"a": {"$schema": URI_2020}}},
            {"type": "string", "minLength": Decimal("2.0")},
            {"$schema": URI_07, "items": [{"type": "string"}], "additionalItems": False},
            {"$schema": URI_07, "dependencies": {"a": ["b"]}},
            deep,
        ]
        for document in exact:
            assert _quick(document) is None, document
            assert isinstance(contract.load(document), Ok), document
        assert (
            loaded({"type": "string", "minLength": Decimal("2.0")}).schema.get("minLength").__class__ is int
        )
        refusals: list[tuple[Any, str]] = [
            ({"properties": {"a": {"minLenght": 1}}}, "minLenght"),
            ({"pattern": "(?=x)"}, "pattern"),
            ({"format": "no-such-format"}, "format"),
            ({"type": "strin"}, "type"),
            ({"allOf": []}, "allOf"),
        ]
        for document, keyword in refusals:
            assert _quick(document, assert_formats=True) is None, document
            assert refused(document, assert_formats=True).keyword == keyword

    def test_the_bounds_send_a_document_the_exact_way(self) -> None:
        """A document beyond ``max_nodes`` or ``max_depth`` is refused as the exact path refuses it."""
        document: Value = {"properties": {"a": {"properties": {"b": {"type": "string"}}}}}
        assert _quick(document, max_depth=2) is None
        assert _quick(document, max_nodes=2) is None
        assert refused(document, max_depth=2).describe() == refused(document, max_depth=2).describe()
        assert "max_depth" in refused(document, max_depth=2).describe()
        assert "max_nodes" in refused(document, max_nodes=2).describe()

    def test_a_dropped_contract_leaves_no_garbage(self) -> None:
        """A contract without references holds no reference cycle: dropping it frees it, no collector."""
        with collector_paused():
            for document in (WEATHER, WEATHER_07, {"type": "string", "enum": ["a"]}):
                compiled = loaded(document)
                assert isinstance(contract.validate(compiled, {"city": "x"}), Ok | Err)
                del compiled
            assert gc.collect() == 0

    def test_shared_node_checks_still_normalise_subclasses(self) -> None:
        """The check shared by every ``{"type": "string"}`` node takes a ``str`` subclass as a ``str``."""

        class Name(str):
            pass

        assert valid({"type": "string"}, Name("x"))
        assert valid({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}}, {"a": Name("x")})
        assert failure({"type": "string"}, 1).reason == WrongType(("string",))


class TestTypes:
    @pytest.mark.parametrize(
        ("kind", "good", "bad"),
        [
            ("null", [None], [False, 0, "", [], {}]),
            ("boolean", [True, False], [0, 1, None, "true"]),
            (
                "integer",
                [0, -3, 10**40, Decimal("1.0"), Decimal("1E+2"), Decimal("-0")],
                [True, Decimal("1.5"), "1"],
            ),
            ("number", [0, Decimal("1.5"), Decimal("-1E-400")], [True, False, "1", None]),
            ("string", ["", "x"], [1, None, ["x"]]),
            ("array", [[], [1]], [{}, "[]"]),
            ("object", [{}, {"a": 1}], [[], None]),
        ],
    )
    def test_each_type(self, kind: str, good: list[Value], bad: list[Value]) -> None:
        """``bool`` is never a number and ``1.0`` is an integer."""
        compiled = loaded({"type": kind})
        for value in good:
            assert isinstance(contract.validate(compiled, value), Ok), value
        for value in bad:
            assert contract.validate(compiled, value) == Err(ValidationError((), WrongType((kind,)))), value

    def test_type_arrays(self) -> None:
        """A type array accepts any of its types and names them all when nothing matches."""
        schema = {"type": ["string", "null"]}
        assert valid(schema, None)
        assert valid(schema, "x")
        assert failure(schema, 1).describe() == "$: expected a string or null"

    def test_values_that_are_not_json(self) -> None:
        """NaN, tuples and other objects are not JSON: a typed failure, never an exception."""
        assert failure({"type": "number"}, float("nan")).reason == NotJsonValue()
        assert failure({"properties": {"a": {"const": 1}}}, {"a": (1,)}).path == ("a",)
        assert failure({"type": "object"}, object()).reason == NotJsonValue()

    def test_subclasses_of_json_types_validate_as_their_base(self) -> None:
        """An ``IntEnum``, a ``str`` subclass or an ``OrderedDict`` validates like its base class."""

        class Level(enum.IntEnum):
            LOW = 1

        class Name(str):
            pass

        assert valid({"type": "integer", "const": 1}, Level.LOW)
        assert valid({"type": "string", "enum": ["x"]}, Name("x"))
        assert valid({"type": "object", "required": ["a"]}, OrderedDict(a=1))
        assert not valid({"type": "boolean"}, Level.LOW)


class TestEquality:
    @pytest.mark.parametrize(
        ("expected", "value", "equal"),
        [
            (1, Decimal("1.0"), True),
            (Decimal("0.10"), Decimal("0.1"), True),
            (True, 1, False),
            (False, 0, False),
            (0, False, False),
            ([1], [True], False),
            ([1, 2], [2, 1], False),
            ({"a": 1, "b": [None]}, {"b": [None], "a": Decimal("1.00")}, True),
            ({"a": 1}, {"a": 1, "b": 1}, False),
            ("1", 1, False),
            (None, False, False),
        ],
    )
    def test_const_and_enum_use_json_equality(self, expected: Value, value: Value, equal: bool) -> None:
        """1 == 1.0, true != 1, arrays keep order, objects do not."""
        assert valid({"const": expected}, value) is equal
        assert valid({"enum": ["other", expected]}, value) is equal

    def test_unique_items_uses_json_equality(self) -> None:
        """``[1, 1.0]`` repeats an item, ``[1, true]`` does not; the failure names both indexes."""
        schema = {"uniqueItems": True}
        assert failure(schema, [1, "a", Decimal("1.0")]).reason == DuplicateItems(0, 2)
        assert valid(schema, [1, True, [1], [True], {"a": 0}, {"a": False}])
        assert not valid(schema, [{"a": 1, "b": 2}, {"b": 2, "a": 1}])

    def test_enum_and_const_texts_come_from_the_schema(self) -> None:
        """The allowed values are named (they are the schema's); the value given is not."""
        assert failure({"enum": ["celsius", "kelvin"]}, "SECRET").describe() == (
            '$: expected one of "celsius", "kelvin"'
        )
        assert failure({"const": {"a": 1}}, "SECRET").describe() == '$: expected {"a":1}'
        assert failure({"enum": list(range(50))}, -1).describe() == "$: expected one of the 50 allowed values"


class TestNumbers:
    def test_bounds(self) -> None:
        """Inclusive and exclusive bounds, exact across ``int`` and ``Decimal``."""
        schema = {"minimum": 1, "exclusiveMaximum": Decimal("2.5")}
        assert valid(schema, 1)
        assert valid(schema, Decimal("2.4999999999999999999999999999999"))
        assert failure(schema, Decimal("0.999")).reason == BelowMinimum(1)
        assert failure(schema, Decimal("2.5")).reason == AboveMaximum(Decimal("2.5"), exclusive=True)
        assert failure({"exclusiveMinimum": 0}, 0).describe() == "$: expected more than 0"
        assert failure({"maximum": 10}, 11).describe() == "$: expected at most 10"

    @pytest.mark.parametrize(
        ("divisor", "value", "multiple"),
        [
            (Decimal("0.1"), Decimal("0.3"), True),
            (Decimal("0.1"), Decimal("0.35"), False),
            (Decimal("0.0001"), Decimal("1E+308"), True),
            (3, 10**40 + 2, True),
            (3, 10**40, False),
            (Decimal("1E-1200"), Decimal("1"), True),
            (Decimal("1E+1200"), Decimal("1"), False),
            (Decimal("1E+1200"), 0, True),
            (Decimal("0.5"), 3, True),
            (Decimal("0.5"), Decimal("3.25"), False),
            (Decimal("0.5"), Decimal("3.5"), True),
            (7, Decimal("1E+1200"), False),
            (2, Decimal("1E+1200"), True),
        ],
    )
    def test_multiple_of_is_exact(self, divisor: int | Decimal, value: int | Decimal, multiple: bool) -> None:
        """``multipleOf`` is exact, whatever the exponents, and never overflows."""
        assert valid({"multipleOf": divisor}, value) is multiple

    def test_number_keywords_ignore_other_types(self) -> None:
        """Numeric keywords say nothing about strings, booleans or null."""
        schema = {"minimum": 5, "multipleOf": 2}
        assert valid(schema, "1")
        assert valid(schema, True)
        assert valid(schema, None)


class TestStrings:
    def test_length_counts_code_points(self) -> None:
        """An emoji is one character."""
        assert valid({"maxLength": 1}, "😀")
        assert failure({"minLength": 2}, "😀").reason == TooShort(2)
        assert failure({"maxLength": 1}, "ab").describe() == "$: expected at most 1 character"
        assert failure({"maxLength": 3}, "abcd").reason == TooLong(3)

    def test_pattern_searches(self) -> None:
        """``pattern`` is unanchored; ``$`` does not match before a final newline."""
        assert valid({"pattern": "b"}, "abc")
        assert failure({"pattern": "^a$"}, "a\n").reason == PatternMismatch("^a$")
        assert (
            failure({"pattern": "^\\d+$"}, "٣").describe()
            == '$: expected a string matching the pattern "^\\\\d+$"'
        )

    @pytest.mark.parametrize(
        ("pattern", "matching", "other"),
        [
            ("^\\s$", "\u00a0", "x"),
            ("^\\S$", "x", "\u2003"),
            ("^.$", "x", "\u2028"),
            ("^\\cC$", "\x03", "C"),
            ("^\\u00e9\\u{1F600}$", "é😀", "e"),
            ("^\\p{Letter}+$", "πé", "1"),
            ("^\\p{Script=Greek}$", "π", "p"),
            ("^[\\s\\d]+$", "1\ufeff2", "a"),
            ("^\\w$", "a", "é"),
            ("^[^]$", "\n", ""),
        ],
    )
    def test_patterns_have_ecma_262_meaning(self, pattern: str, matching: str, other: str) -> None:
        """``\\s``, ``.``, ``\\cX``, ``\\u`` and ``\\p{...}`` mean what ECMA-262 says, not what RE2 says."""
        compiled = loaded({"pattern": pattern})
        assert isinstance(contract.validate(compiled, matching), Ok)
        assert isinstance(contract.validate(compiled, other), Err)

    def test_a_hostile_pattern_returns_within_a_second(self) -> None:
        """``^(a+)+$`` against a long non-matching string runs in linear time."""
        compiled = loaded({"pattern": "^(a+)+$"})
        start = time.perf_counter()
        result = contract.validate(compiled, "a" * 100_000 + "!")
        assert time.perf_counter() - start < 1.0
        assert isinstance(result, Err)

    def test_formats_are_annotations_unless_asserted(self) -> None:
        """By default ``format`` rejects nothing; with ``assert_formats`` known formats are enforced."""
        assert valid({"format": "date"}, "not a date")
        asserted = loaded({"format": "date"}, assert_formats=True)
        assert isinstance(contract.validate(asserted, "2024-02-29"), Ok)
        assert contract.validate(asserted, "2023-02-29") == Err(ValidationError((), FormatMismatch("date")))
        assert isinstance(contract.validate(asserted, 5), Ok)


class TestArrays:
    def test_items_and_prefix_items(self) -> None:
        """``prefixItems`` by position, ``items`` for the rest; ``items: false`` closes the tuple."""
        schema = {"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}
        assert valid(schema, ["a", 1, 2])
        assert valid(schema, [])
        assert failure(schema, ["a", 1, "b"]) == ValidationError((2,), WrongType(("integer",)))
        closed = {"prefixItems": [{}, {}], "items": False}
        assert failure(closed, [1, 2, 3]).reason == TooManyItems(2)

    def test_counts(self) -> None:
        """``minItems`` and ``maxItems``."""
        assert failure({"minItems": 1}, []).describe() == "$: expected at least 1 item"
        assert failure({"maxItems": 2}, [1, 2, 3]).reason == TooManyItems(2)
        assert failure({"minItems": 2}, [1]).reason == TooFewItems(2)

    def test_contains(self) -> None:
        """``contains`` with ``minContains`` and ``maxContains``; ``minContains: 0`` accepts none."""
        schema = {"contains": {"type": "integer"}, "minContains": 2, "maxContains": 3}
        assert valid(schema, [1, "a", 2])
        assert failure(schema, [1, "a"]).reason == TooFewMatches(2)
        assert failure(schema, [1, 2, 3, 4]).reason == TooManyMatches(3)
        assert valid({"contains": {"type": "integer"}, "minContains": 0}, [])
        assert failure({"contains": {"type": "integer"}}, []).describe() == (
            '$: expected at least 1 item matching "contains"'
        )
        assert valid({"minContains": 5}, [])

    def test_unevaluated_items(self) -> None:
        """``unevaluatedItems`` sees items evaluated by in-place subschemas that hold."""
        schema = {
            "prefixItems": [{}],
            "anyOf": [{"prefixItems": [{}, {"type": "string"}]}],
            "unevaluatedItems": False,
        }
        assert valid(schema, [1, "a"])
        assert failure(schema, [1, "a", 3]) == ValidationError((2,), UnexpectedItem())
        assert failure(schema, [1, 2]) == ValidationError((1,), WrongType(("string",)))  # anyOf comes first
        assert contract.validate_all(loaded(schema), [1, 2])[1] == ValidationError((1,), UnexpectedItem())


class TestObjects:
    def test_properties_required_and_closed_objects(self) -> None:
        """Declared properties, missing required ones, and members a closed object refuses."""
        assert valid(WEATHER, {"city": "Paris", "days": 3, "unit": "celsius"})
        assert failure(WEATHER, {}) == ValidationError(("city",), MissingProperty())
        error = failure(WEATHER, {"city": "Paris", "password": "hunter2"})
        assert error == ValidationError(
            ("password",), UnexpectedProperty(("city", "days", "unit")), frozenset({0})
        )
        assert (
            error.describe() == '$[*]: unexpected property; the allowed properties are "city", "days", "unit"'
        )

    def test_pattern_and_additional_properties(self) -> None:
        """``patternProperties`` applies to every matching member; ``additionalProperties`` to the rest."""
        schema = {
            "properties": {"id": {"type": "integer"}},
            "patternProperties": {"^x-": {"type": "string"}},
            "additionalProperties": {"type": "boolean"},
        }
        assert valid(schema, {"id": 1, "x-a": "s", "flag": True})
        assert failure(schema, {"x-a": 1}).path == ("x-a",)
        error = failure(schema, {"token": "secret"})
        assert error == ValidationError(("token",), WrongType(("boolean",)), frozenset({0}))
        assert error.describe() == "$[*]: expected a boolean"

    def test_property_names_and_counts(self) -> None:
        """``propertyNames``, ``minProperties`` and ``maxProperties``."""
        error = failure({"propertyNames": {"maxLength": 3}}, {"abcd": 1})
        assert error == ValidationError(("abcd",), InvalidPropertyName(TooLong(3)), frozenset({0}))
        assert error.describe() == "$[*]: invalid property name: expected at most 3 characters"
        assert failure({"minProperties": 1}, {}).reason == TooFewProperties(1)
        assert failure({"maxProperties": 1}, {"a": 1, "b": 2}).reason == TooManyProperties(1)

    def test_dependencies(self) -> None:
        """``dependentRequired`` and ``dependentSchemas`` apply when their trigger is present."""
        schema = {"dependentRequired": {"card": ["cvv"]}, "dependentSchemas": {"a": {"maxProperties": 1}}}
        assert valid(schema, {"cvv": 1})
        assert valid(schema, {"a": 1})
        assert (
            failure(schema, {"card": 1}).describe()
            == '$["cvv"]: required property is missing (required when "card" is present)'
        )
        assert failure(schema, {"a": 1, "b": 2}).reason == TooManyProperties(1)

    def test_unevaluated_properties(self) -> None:
        """``unevaluatedProperties`` sees what properties of subschemas that hold evaluated."""
        schema = {
            "properties": {"kind": {}},
            "oneOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}, "required": ["b"]}],
            "unevaluatedProperties": False,
        }
        assert valid(schema, {"kind": 1, "a": 1})
        assert failure(schema, {"kind": 1, "c": 1}) == ValidationError(
            ("c",), UnexpectedProperty(), frozenset({0})
        )

    def test_missing_keys_and_null_differ(self) -> None:
        """A required member that is ``null`` is present; its own schema decides."""
        schema = {"properties": {"a": {"type": ["string", "null"]}}, "required": ["a"]}
        assert valid(schema, {"a": None})
        assert failure(schema, {}).reason == MissingProperty()


class TestApplicators:
    def test_all_of(self) -> None:
        """Every subschema must hold; the first failure is reported as is."""
        assert failure({"allOf": [{"type": "string"}, {"minLength": 2}]}, "a").reason == TooShort(2)

    def test_any_of_names_the_types_or_the_one_relevant_failure(self) -> None:
        """No alternative: merged types, else the one failure past the type, else ``NoMatch``."""
        nullable = {"anyOf": [{"type": "string"}, {"type": "null"}]}
        assert failure(nullable, 1).describe() == "$: expected a string or null"
        objects = {"anyOf": [{"type": "string"}, {"type": "object", "required": ["a"]}]}
        assert failure(objects, {}) == ValidationError(("a",), MissingProperty())
        two = {"anyOf": [{"minLength": 3}, {"maxLength": 1}]}
        assert failure(two, "ab").reason == NoMatch(2)

    def test_one_of(self) -> None:
        """Exactly one alternative must hold."""
        schema = {"oneOf": [{"type": "integer"}, {"minimum": 2}]}
        assert valid(schema, 1)
        assert valid(schema, Decimal("2.5"))
        assert failure(schema, 3).reason == SeveralMatch(0, 1)
        assert failure(schema, Decimal("1.5")).reason == BelowMinimum(2)  # the one failure past the type
        assert failure({"oneOf": [{"type": "integer"}, {"type": "string"}]}, None).reason == WrongType(
            ("integer", "string")
        )
        assert failure({"oneOf": [{"minimum": 3}, {"maximum": 1}]}, 2).reason == NoMatch(2)

    def test_not(self) -> None:
        """The value must not match the schema under ``not``."""
        assert failure({"not": {"type": "string"}}, "x").reason == MatchesNot()
        assert valid({"not": {"type": "string"}}, 1)

    def test_if_then_else(self) -> None:
        """``then`` applies when ``if`` holds, ``else`` otherwise; neither alone does anything."""
        schema = {
            "if": {"properties": {"kind": {"const": "a"}}},
            "then": {"required": ["x"]},
            "else": {"required": ["y"]},
        }
        assert failure(schema, {"kind": "a"}).path == ("x",)
        assert failure(schema, {"kind": "b"}).path == ("y",)
        assert valid({"then": False}, 1)
        assert valid({"else": False}, 1)

    def test_false_and_true_schemas(self) -> None:
        """``false`` rejects everything, ``true`` accepts everything."""
        assert failure(False, 1).describe() == "$: no value is allowed here"
        assert failure({"properties": {"a": False}}, {"a": 1}) == ValidationError(("a",), NotAllowed())
        assert valid(True, {"anything": [1]})


class TestRecursion:
    TREE: ClassVar[Value] = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"value": {"type": "integer"}, "child": {"$ref": "#/$defs/node"}},
                "required": ["value"],
                "additionalProperties": False,
            }
        },
        "$ref": "#/$defs/node",
    }

    @staticmethod
    def chain(depth: int, leaf: Value = 0) -> Value:
        value: Value = {"value": leaf}
        for n in range(depth - 1):
            value = {"value": n, "child": value}
        return value

    def test_a_self_recursive_schema_validates_a_200_deep_instance(self) -> None:
        """200 levels of recursion through ``$ref`` validate; a failure at the bottom has its full path."""
        compiled = loaded(self.TREE)
        assert isinstance(contract.validate(compiled, self.chain(200)), Ok)
        result = contract.validate(compiled, self.chain(200, "leaf"))
        assert isinstance(result, Err)
        assert result.error.path == ("child",) * 199 + ("value",)

    def test_values_too_deep_give_a_typed_failure(self) -> None:
        """A value deeper than the stack allows is ``TooDeep``, never a ``RecursionError``."""
        compiled = loaded(self.TREE)
        assert contract.validate(compiled, self.chain(50_000)) == Err(ValidationError((), TooDeep()))
        assert contract.validate_all(compiled, self.chain(50_000)) == (ValidationError((), TooDeep()),)
        deep: Value = []
        for _ in range(50_000):
            deep = [deep]
        assert contract.validate(loaded({"const": 1}), deep) == Err(ValidationError((), TooDeep()))

    def test_dynamic_references(self) -> None:
        """``$dynamicRef`` resolves to the outermost ``$dynamicAnchor`` in scope."""
        schema = {
            "$id": "https://example.com/strings",
            "$ref": "list",
            "$defs": {
                "item": {"$dynamicAnchor": "item", "type": "string"},
                "list": {
                    "$id": "list",
                    "type": "array",
                    "items": {"$dynamicRef": "#item"},
                    "$defs": {"any": {"$dynamicAnchor": "item"}},
                },
            },
        }
        assert valid(schema, ["a", "b"])
        assert failure(schema, ["a", 1]) == ValidationError((1,), WrongType(("string",)))


class TestOrderAndAll:
    SCHEMA: ClassVar[Value] = {
        "type": "object",
        "minProperties": 3,
        "properties": {"b": {"type": "string"}, "a": {"type": "integer"}},
        "required": ["a", "b", "c"],
        "additionalProperties": False,
        "allOf": [{"required": ["d"]}],
    }

    def test_failures_come_in_the_documented_order(self) -> None:
        """Size, declared properties in schema order, other required names, unknown members, then allOf."""
        errors = contract.validate_all(loaded(self.SCHEMA), {"a": "x", "z": 1})
        assert [(e.path, type(e.reason)) for e in errors] == [
            ((), TooFewProperties),
            (("b",), MissingProperty),
            (("a",), WrongType),
            (("c",), MissingProperty),
            (("z",), UnexpectedProperty),
            (("d",), MissingProperty),
        ]

    def test_validate_reports_the_first_of_validate_all(self) -> None:
        """``validate``'s failure is the first of ``validate_all``'s."""
        compiled = loaded(self.SCHEMA)
        value: Value = {"a": "x", "z": 1}
        result = contract.validate(compiled, value)
        assert isinstance(result, Err)
        assert result.error == contract.validate_all(compiled, value)[0]

    def test_limit(self) -> None:
        """``validate_all`` stops at ``limit``, is empty for a valid value, and wants a positive limit."""
        compiled = loaded({"items": {"type": "integer"}})
        assert len(contract.validate_all(compiled, ["x"] * 100, limit=7)) == 7
        assert len(contract.validate_all(compiled, ["x"] * 100)) == 20
        assert contract.validate_all(compiled, [1, 2]) == ()
        assert contract.validate_all(compiled, ["x"], limit=0) == ()

    def test_a_wrong_type_is_one_failure(self) -> None:
        """A value of the wrong type gets only the type failure, not one per keyword."""
        assert contract.validate_all(loaded({"type": "string", "enum": ["a"], "minLength": 3}), 1) == (
            ValidationError((), WrongType(("string",))),
        )

    def test_texts_never_carry_values_or_undeclared_keys(self) -> None:
        """Paths keep undeclared keys for code; texts show them as ``[*]``, and never quote the value."""
        schema = {"additionalProperties": {"properties": {"n": {"type": "integer"}}}}
        error = failure(schema, {"SECRET-KEY": {"n": "SECRET-VALUE"}})
        assert error.path == ("SECRET-KEY", "n")
        assert error.hidden == frozenset({0})
        assert error.describe() == '$[*]["n"]: expected an integer'
        assert "SECRET" not in str(error)


class TestDecode:
    @dataclasses.dataclass
    class Point:
        x: int
        y: int

    def test_a_matching_codec_decodes_the_witness(self) -> None:
        """A codec whose schema equals the contract's turns the witness into a native value."""
        point = codec.derive(self.Point)
        assert point.schema is not None
        compiled = contract.from_schema(point.schema)
        assert isinstance(compiled, Ok)
        witness = contract.validate(compiled.value, {"x": 1, "y": 2})
        assert isinstance(witness, Ok)
        assert witness.value.value == {"x": 1, "y": 2}
        assert witness.value.contract is compiled.value
        assert contract.decode(point, witness.value) == Ok(self.Point(1, 2))

    def test_another_schema_is_a_mismatch(self) -> None:
        """A codec with another schema (or none) gets ``ContractMismatch`` at ``$``."""
        witness = contract.validate(loaded({"type": "object"}), {"x": 1, "y": 2})
        assert isinstance(witness, Ok)
        result = contract.decode(codec.derive(self.Point), witness.value)
        assert result == Err(codec.DecodeError((), codec.ContractMismatch()))


class TestDemoSection:
    """The contracts demo runs and never prints a refused value."""

    def test_the_demo_section(self, capsys: pytest.CaptureFixture[str]) -> None:
        """
        The demo loads real MCP schemas, shows verdicts and refusals, and never prints a value it refused.
        """
        from llm_wire.demo import contracts as demo

        demo.run()
        printed = capsys.readouterr().out
        assert printed.count("loaded ") == 3
        assert "ghp_secret" not in printed
        assert "proj 123" not in printed
        assert "remote references are never fetched" in printed
        assert len(printed.splitlines()) <= 25


def _modules_after(statement: str) -> set[str]:
    """The modules a fresh interpreter holds after ``statement``."""
    code = f"import sys; {statement}; print(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


_COMPILER = frozenset(
    f"llm_wire.contract.{name}" for name in ("_compile", "_keywords", "_quick", "_fastload")
)


class TestCompilerLoadsOnUse:
    """The face imports its compiler at the top; third-party parts load on the path that uses them."""

    def test_import_loads_no_reference_resolver(self) -> None:
        """``import llm_wire.contract`` loads the compiler, not ``referencing`` nor ``re2``."""
        loaded = _modules_after("import llm_wire.contract")
        assert loaded >= _COMPILER
        assert not {"referencing", "re2"} & loaded

    def test_first_load_loads_it(self) -> None:
        """Loading a schema and validating against it brings the compiler in."""
        use = "from llm_wire import contract; made = contract.load({'type': 'integer'}).value"
        use += "; contract.validate_all(made, 1)"
        assert _modules_after(use) >= _COMPILER
