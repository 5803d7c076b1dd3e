"""
Properties of ``llm_wire.contract``: no Python exception escapes ``load``, ``validate`` or ``validate_all`` on
any input, and on generated schemas (every keyword the contract enforces, nested, with references) and
generated values, ``validate`` agrees with ``jsonschema`` (Draft 2020-12, numbers as ``Decimal``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import jsonschema
import re2
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import validators
from jsonschema.exceptions import ValidationError as OracleError
from strategies import json_values

from llm_wire import contract
from llm_wire._regex import MAX_PATTERN_COST, _options, _searcher, compile_pattern, linear_python, translate
from llm_wire.contract._checks import Budget
from llm_wire.contract._compile import compile_plan
from llm_wire.contract._formats import FORMATS
from llm_wire.contract._keywords import KEYWORDS
from llm_wire.contract._load import Plan, Rules, _prepare_exactly, prepare_document
from llm_wire.result import Err, Ok
from llm_wire.schema import Schema
from llm_wire.value import Value

# Arbitrary documents ----------------------------------------------------------------------------------------

_NAMES = st.sampled_from([*KEYWORDS, "x-ext", "minLenght", "nullable", "dependencies", "additionalItems"])
_REFS = st.sampled_from(["#", "#/$defs/a", "#/properties/a", "#a", "#/$defs/missing", "a.json", "#/items/0"])


def _documents() -> st.SearchStrategy[Value]:
    """Schema-looking documents: real and unknown keywords with any JSON value, nested."""
    scalar: st.SearchStrategy[Value] = json_values(max_leaves=4) | _REFS | _NAMES
    return st.recursive(
        st.booleans() | st.dictionaries(_NAMES, scalar, max_size=4),
        lambda inner: (
            st.dictionaries(_NAMES, inner | scalar | st.lists(inner, max_size=3), max_size=5)
            | st.dictionaries(
                st.sampled_from(["properties", "$defs", "patternProperties"]),
                st.dictionaries(st.sampled_from(["a", "b", "^a", "(?=x)"]), inner, max_size=3),
            )
        ),
        max_leaves=12,
    )


#: Values a caller might hand over without parsing: JSON values with floats, tuples, sets, bytes, odd keys.
_ODD: st.SearchStrategy[Any] = st.recursive(
    st.floats() | st.binary(max_size=3) | st.just(object()) | json_values(max_leaves=3),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner)
        | st.frozensets(st.integers(), max_size=2)
        | st.dictionaries(st.integers() | st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=6,
)


class TestNeverRaises:
    """Loading and validating anything returns a value, never an exception."""

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(document=_documents() | json_values(), value=json_values() | _ODD, formats=st.booleans())
    def test_nothing_escapes_on_any_input(self, document: Value, value: Value, formats: bool) -> None:
        """Any JSON value as a schema and any value to check: only ``Ok``/``Err`` come back, texts render."""
        match contract.load(document, assert_formats=formats):
            case Err(error):
                assert isinstance(error.describe(), str)
            case Ok(compiled):
                match contract.validate(compiled, value):
                    case Err(failure):
                        assert failure.describe().startswith("$")
                for failure in contract.validate_all(compiled, value, limit=3):
                    assert failure.describe().startswith("$")

    @settings(max_examples=100, deadline=None)
    @given(text=st.text(max_size=200) | st.binary(max_size=200))
    def test_parse_never_raises(self, text: str | bytes) -> None:
        """``parse`` takes any text or bytes."""
        assert isinstance(contract.parse(text), Ok | Err)


# Generated schemas against the oracle -----------------------------------------------------------------------

_TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]
_KEYS = st.sampled_from(["a", "b", "c"])
_SMALL = st.integers(-3, 3) | st.sampled_from([Decimal("0.5"), Decimal("-1.5"), Decimal("2.0")])
_JSON: st.SearchStrategy[Value] = st.recursive(
    st.none() | st.booleans() | _SMALL | st.sampled_from(["", "a", "ab", "b1", "1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=6,
)

_ASSERTIONS: dict[str, st.SearchStrategy[Value]] = {
    "type": st.sampled_from(_TYPES) | st.lists(st.sampled_from(_TYPES), min_size=1, max_size=3, unique=True),
    "enum": st.lists(_JSON, min_size=1, max_size=3),
    "const": _JSON,
    "minimum": _SMALL,
    "maximum": _SMALL,
    "exclusiveMinimum": _SMALL,
    "exclusiveMaximum": _SMALL,
    "multipleOf": st.sampled_from([1, 2, Decimal("0.5"), Decimal("1.5")]),
    "minLength": st.integers(0, 2),
    "maxLength": st.integers(0, 2),
    "pattern": st.sampled_from(["^a", "b", "[0-9]", "^$", "^a|1$"]),
    "minItems": st.integers(0, 2),
    "maxItems": st.integers(0, 2),
    "uniqueItems": st.booleans(),
    "minContains": st.integers(0, 2),
    "maxContains": st.integers(0, 2),
    "minProperties": st.integers(0, 2),
    "maxProperties": st.integers(0, 2),
    "required": st.lists(_KEYS, max_size=2, unique=True),
    "dependentRequired": st.dictionaries(_KEYS, st.lists(_KEYS, max_size=2, unique=True), max_size=2),
}


def _node(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    applicators: dict[str, st.SearchStrategy[Any]] = {
        "properties": st.dictionaries(_KEYS, inner, max_size=2),
        "patternProperties": st.dictionaries(st.sampled_from(["^a", "b"]), inner, max_size=1),
        "additionalProperties": inner,
        "propertyNames": inner,
        "items": inner,
        "prefixItems": st.lists(inner, min_size=1, max_size=2),
        "contains": inner,
        "allOf": st.lists(inner, min_size=1, max_size=2),
        "anyOf": st.lists(inner, min_size=1, max_size=2),
        "oneOf": st.lists(inner, min_size=1, max_size=2),
        "not": inner,
        "if": inner,
        "then": inner,
        "else": inner,
        "dependentSchemas": st.dictionaries(_KEYS, inner, max_size=1),
        "unevaluatedProperties": inner,
        "unevaluatedItems": inner,
        "$ref": st.just("#/$defs/shared"),
    }
    keywords = st.lists(st.sampled_from(sorted(applicators) + sorted(_ASSERTIONS)), max_size=3, unique=True)
    return keywords.flatmap(
        lambda names: st.fixed_dictionaries(
            {n: applicators[n] if n in applicators else _ASSERTIONS[n] for n in names}
        )
    )


_LEAF = st.booleans() | st.lists(st.sampled_from(sorted(_ASSERTIONS)), max_size=2, unique=True).flatmap(
    lambda names: st.fixed_dictionaries({n: _ASSERTIONS[n] for n in names})
)
_SCHEMAS = st.recursive(_LEAF, _node, max_leaves=6)
_ROOTS = st.tuples(_SCHEMAS, _LEAF).map(
    lambda pair: {**pair[0], "$defs": {"shared": pair[1]}} if isinstance(pair[0], dict) else pair[0]
)


def _is_integer(_: object, instance: object) -> bool:
    if isinstance(instance, bool):
        return False
    return isinstance(instance, int) or (
        isinstance(instance, Decimal) and instance == instance.to_integral_value()
    )


def _is_number(_: object, instance: object) -> bool:
    return isinstance(instance, int | Decimal) and not isinstance(instance, bool)


def _pattern(validator: Any, pattern: str, instance: object, schema: object) -> Iterator[OracleError]:
    # ECMA-262: a final $ does not match before a trailing newline.
    ecma = pattern[:-1] + "\\Z" if pattern.endswith("$") else pattern
    if isinstance(instance, str) and re.search(ecma, instance, re.ASCII) is None:
        yield OracleError("pattern")


_ORACLE = validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator,
    validators={"pattern": _pattern},
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many(
        {"integer": _is_integer, "number": _is_number}
    ),
)


class TestOracle:
    """On generated schemas, verdicts are jsonschema's."""

    @settings(
        max_examples=600,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    @given(schema=_ROOTS, values=st.lists(_JSON, min_size=1, max_size=4))
    def test_validate_agrees_with_jsonschema_on_generated_schemas(
        self, schema: Any, values: list[Value]
    ) -> None:
        """Every keyword, nested and combined, with references: the verdict is jsonschema's."""
        loaded = contract.load(schema)
        assert isinstance(loaded, Ok), loaded
        compiled = loaded.value
        oracle = _ORACLE(schema)
        for value in values:
            try:
                expected = oracle.is_valid(value)
            except RecursionError:  # pragma: no cover - the oracle recursing on its own
                assume(False)
            ours = contract.validate(compiled, value)
            assert isinstance(ours, Ok) == expected, (value, ours)
            every = contract.validate_all(compiled, value)
            assert (every == ()) == expected
            if isinstance(ours, Err):
                assert every[0] == ours.error


# The quick load path --------------------------------------------------------------------------------------

_DRAFT_07 = "http://json-schema.org/draft-07/schema#"
_PREPARE: dict[str, Any] = {"supported": frozenset(KEYWORDS), "formats": FORMATS}


def _tree(node: Schema) -> Any:
    """A node as nested plain data that keeps keyword order and every value's class (``1`` is not ``1.0``)."""
    if node.boolean is not None:
        return node.boolean
    out = []
    for name, value in node.keywords:
        if isinstance(value, Schema):
            out.append((name, _tree(value)))
        elif isinstance(value, tuple):
            out.append(
                (name, tuple(_tree(x) if isinstance(x, Schema) else (x[0], _tree(x[1])) for x in value))
            )
        else:
            out.append((name, repr(value)))
    return tuple(out)


def _nodes(plan: Plan) -> list[Any]:
    return sorted(repr((info.path, info.resource, _tree(info.schema))) for info in plan.nodes.values())


class TestQuickLoad:
    """The one-walk load path reads every document it takes exactly as the exact path does."""

    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        document=_SCHEMAS | _ROOTS | _documents(),
        draft_07=st.booleans(),
        annotations=st.sampled_from([frozenset(), frozenset({"nullable", "minLenght", "additionalItems"})]),
        assert_formats=st.booleans(),
        bounds=st.sampled_from([(10_000, 128, MAX_PATTERN_COST), (4, 3, 3)]),
    )
    def test_the_quick_path_agrees_with_the_exact_path(
        self,
        document: Value,
        draft_07: bool,
        annotations: frozenset[str],
        assert_formats: bool,
        bounds: tuple[int, int, int],
    ) -> None:
        """Same nodes, keyword order, values and paths; a document it does not take goes the exact way."""
        dialect = contract.Dialect.DRAFT_2020_12
        if isinstance(document, dict):  # the root's $schema is read before either path: one of two dialects
            document = {name: value for name, value in document.items() if name != "$schema"}
            if draft_07:
                document = {"$schema": _DRAFT_07, **document}
                dialect = contract.Dialect.DRAFT_07
        max_nodes, max_depth, max_pattern_cost = bounds
        options = {
            **_PREPARE,
            "annotations": annotations,
            "assert_formats": assert_formats,
            "max_nodes": max_nodes,
            "max_depth": max_depth,
            "max_pattern_cost": max_pattern_cost,
        }
        rules = Rules(**options)
        both = prepare_document(document, rules)
        exact = _prepare_exactly(document, dialect, rules)
        match exact:
            case Err(error):
                assert both == Err(error)
            case Ok(plan):
                assert isinstance(both, Ok)
                found_dialect, found = both.value
                assert found_dialect is dialect
                assert _tree(found.root) == _tree(plan.root)
                assert _nodes(found) == _nodes(plan)
                assert found.anchors.keys() == plan.anchors.keys()
                if found.tree:
                    assert plan.tree

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(schema=_ROOTS, values=st.lists(_JSON | _ODD, min_size=1, max_size=4))
    def test_a_tree_compiles_as_a_graph_does(self, schema: Any, values: list[Any]) -> None:
        """A tree's check (no search for loops, chains or sharing) answers as the graph compilation does."""
        prepared = prepare_document(schema, Rules(**_PREPARE, **_DEFAULTS))
        assert isinstance(prepared, Ok)
        plan = prepared.value[1]
        assume(plan.tree)
        as_graph = Plan(plan.root, plan.nodes, plan.anchors, tree=False)
        checks = []
        for each in (plan, as_graph):
            compiled = compile_plan(each, KEYWORDS, assert_formats=False, max_nodes=10_000, max_ref_depth=32)
            assert isinstance(compiled, Ok)
            checks.append(compiled.value[0])
        tree, graph = checks
        for value in values:
            assert _outcome(tree(value, None)) == _outcome(graph(value, None))
            assert _outcome(tree(value, Budget(5))) == _outcome(graph(value, Budget(5)))


def _outcome(found: Any) -> list[tuple[Any, Any]]:
    """A check's result as ``(path, reason)`` pairs: none, one, or (with a budget) several."""
    fails = [] if found is None else found if isinstance(found, list) else [found]
    return [(fail.path, fail.reason) for fail in fails]


_DEFAULTS: dict[str, Any] = {
    "annotations": frozenset(),
    "assert_formats": False,
    "max_nodes": 10_000,
    "max_depth": 128,
    "max_pattern_cost": MAX_PATTERN_COST,
}


# The fast pattern path ------------------------------------------------------------------------------------

_PIECES = st.sampled_from(  # pieces of patterns in the fast path's syntax
    ["a", "b", "-", "é", "[a-c]", "[^a]", "\\d", "\\w", "[0-9_]", "(?:ab)", "(?:-\\d+)", "\\."]
)
_QUANTIFIERS = st.sampled_from(["", "", "?", "*", "+", "{2}", "{1,3}", "{2,}"])
_PATTERNS = st.tuples(st.lists(st.tuples(_PIECES, _QUANTIFIERS), max_size=5), st.booleans()).map(
    lambda parts: "^" + "".join(a + b for a, b in parts[0]) + ("$" if parts[1] else "")
)


class TestPatternEngines:
    """Patterns answer alike on Python's re and on RE2."""

    @settings(max_examples=400, deadline=None)
    @given(pattern=_PATTERNS, texts=st.lists(st.text(alphabet="ab-_.x019é\n", max_size=10), max_size=8))
    def test_the_python_fast_path_agrees_with_re2(self, pattern: str, texts: list[str]) -> None:
        """
        Where a pattern runs on Python's ``re`` (anchored, deterministic), it answers exactly as RE2 does.
        """
        simple = linear_python(pattern)
        assume(simple is not None)
        assert simple is not None
        fast = re.compile(simple).match
        translated = translate(pattern)
        assert isinstance(translated, Ok)
        slow = _searcher(re2.compile(translated.value, _options()))
        for text in texts:
            assert (fast(text) is not None) == slow(text), (pattern, simple, text)

    def test_the_fast_path_takes_only_deterministic_patterns(self) -> None:
        """Ambiguous choices (``a*a``, ``\\d+\\d+``, nested repeats) and unanchored patterns stay on RE2."""
        for pattern in ["^a*a$", "^\\d+\\d+$", "^(?:a+)+$", "^(?:a|b)$", "a+$", "^.+$", "^\\s$", "^(?:)*$"]:
            assert linear_python(pattern) is None, pattern
        for pattern in ["^[A-Z][A-Z0-9_]+-\\d+(?:-\\d+)*$", "^[^/]+/[^/]+$", "^x{2,3}y?$"]:
            assert linear_python(pattern) is not None, pattern

    def test_the_fast_path_stays_linear_on_hostile_input(self) -> None:
        """A long near-match of a deterministic pattern fails in linear time."""
        match = compile_pattern("^[A-Z][A-Z0-9_]+-\\d+(?:-\\d+)*$")
        assert isinstance(match, Ok)
        for text in ["AB" + "-1" * 200_000 + "x", "A" * 400_000 + "-", "AB-" + "1" * 400_000 + "-"]:
            start = time.perf_counter()
            assert match.value(text) is False
            assert time.perf_counter() - start < 0.5
