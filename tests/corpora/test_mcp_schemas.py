"""
Real MCP tool declarations (``../shared/corpora/mcp-tools``) through ``llm_wire.contract``.

Every ``inputSchema`` (and ``outputSchema``) must load, unless its refusal is listed in ``REFUSED`` with the
keyword and the reason it cannot be honoured. Then, on instances generated from each input schema and on
mutations of them, ``validate`` must agree with ``jsonschema`` (the oracle: the declared draft, numbers that
are ``Decimal``, ECMA-style ASCII ``\\d``/``\\w`` in patterns, formats not asserted).

hypothesis-jsonschema cannot generate objects with the installed Hypothesis (its ``from_object_schema``
uses a private ``many.more()`` that Hypothesis removed), so instances come from ``instances`` below: a
small generator that covers every keyword the corpus uses.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import validators
from jsonschema.exceptions import ValidationError as OracleError

from llm_wire import contract
from llm_wire.result import Err, Ok
from llm_wire.value import Limits, parse

MCP = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "mcp-tools"
SERVERS = sorted(p.stem for p in MCP.glob("*.json")) if MCP.is_dir() else []

pytestmark = pytest.mark.skipif(not MCP.is_dir(), reason=f"MCP corpus not found at {MCP} (../shared/corpora)")

#: Schemas of the corpus that ``load`` refuses: (server, tool, "inputSchema") -> (keyword, why it cannot be
#: honoured). Every schema of the corpus loads today, so the list is empty; a new refusal must be added here.
REFUSED: dict[tuple[str, str, str], tuple[str, str]] = {}


@attrs.frozen(eq=False)
class Case:
    """One tool's schema: the document, its compiled contract and the jsonschema oracle."""

    server: str
    tool: str
    document: Any = attrs.field(repr=False)
    compiled: contract.Contract = attrs.field(repr=False)
    oracle: Any = attrs.field(repr=False)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(f"<Case {self.server}/{self.tool}>")


def _tools(server: str) -> Iterator[dict[str, Any]]:
    text = (MCP / f"{server}.json").read_text(encoding="utf-8")
    document: Any = parse(text, Limits().with_max_bytes(16 << 20)).value  # type: ignore[union-attr]
    yield from document["tools"]


# The oracle -------------------------------------------------------------------------------------------------


def _is_integer(_: object, instance: object) -> bool:
    if isinstance(instance, bool):
        return False
    return isinstance(instance, int) or (
        isinstance(instance, Decimal) and instance == instance.to_integral_value()
    )


def _is_number(_: object, instance: object) -> bool:
    return isinstance(instance, int | Decimal) and not isinstance(instance, bool)


def _ascii_pattern(validator: Any, pattern: str, instance: object, schema: object) -> Iterator[OracleError]:
    # ECMA-262 as JSON Schema requires: \d and \w are ASCII, and a final $ does not match before a newline.
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + "\\Z"
    if isinstance(instance, str) and re.search(pattern, instance, re.ASCII) is None:
        yield OracleError(f"does not match {pattern!r}")


def _oracle_class(base: Any) -> Any:
    types = base.TYPE_CHECKER.redefine_many({"integer": _is_integer, "number": _is_number})
    return validators.extend(  # type: ignore[no-untyped-call]
        base, validators={"pattern": _ascii_pattern}, type_checker=types
    )


ORACLES = {
    contract.Dialect.DRAFT_2020_12: _oracle_class(jsonschema.Draft202012Validator),
    contract.Dialect.DRAFT_07: _oracle_class(jsonschema.Draft7Validator),
}


@functools.cache
def cases(server: str) -> list[Case]:
    """The input schemas of one server that load, with their oracle."""
    out = []
    for tool in _tools(server):
        match contract.load(tool["inputSchema"]):
            case Ok(compiled):
                oracle = ORACLES[compiled.dialect](tool["inputSchema"])
                out.append(Case(server, tool["name"], tool["inputSchema"], compiled, oracle))
    return out


# Loading ----------------------------------------------------------------------------------------------------


class TestLoading:
    """Every MCP schema loads, or its refusal is listed."""

    def test_every_schema_loads_or_its_refusal_is_listed(self) -> None:
        """Every input and output schema of the corpus loads, or is refused exactly as ``REFUSED`` says."""
        refused: dict[tuple[str, str, str], tuple[str, str]] = {}
        loaded = 0
        for server in SERVERS:
            for tool in _tools(server):
                for kind in ("inputSchema", "outputSchema"):
                    if kind not in tool:
                        continue
                    match contract.load(tool[kind]):
                        case Ok():
                            loaded += 1
                        case Err(error):
                            refused[(server, tool["name"], kind)] = (str(error.keyword), error.describe())
        print(f"\nMCP corpus: {loaded} schemas loaded, {len(refused)} refused")
        assert refused == REFUSED
        assert loaded >= 380

    def test_the_corpus_styles_come_through(self) -> None:
        """Draft-07 and 2020-12 documents keep their dialect; annotations and ``x-*`` keywords are kept."""
        dialects = Counter(case.compiled.dialect for server in SERVERS for case in cases(server))
        assert dialects[contract.Dialect.DRAFT_07] > 50
        assert dialects[contract.Dialect.DRAFT_2020_12] > 150
        kept = [
            case
            for server in SERVERS
            for case in cases(server)
            if "title" in json.dumps(case.document) and "title" in repr(case.compiled.schema.keywords)
        ]
        assert kept


# Instances --------------------------------------------------------------------------------------------------

_SCALARS = (
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from([Decimal("1.5"), Decimal("-0.25")])
)
_ANY: st.SearchStrategy[Any] = st.recursive(
    _SCALARS | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


def _resolve(root: Any, ref: str) -> Any:
    assert ref.startswith("#/"), "the corpus only refers inside its documents"
    node = root
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def instances(schema: Any, root: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values shaped by ``schema``: mostly valid, sometimes not (the verdicts are compared, not assumed)."""
    if schema is True or schema is False or not isinstance(schema, dict) or depth > 6:
        return _ANY
    if "$ref" in schema:
        return instances(_resolve(root, schema["$ref"]), root, depth + 1)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        return st.one_of([instances(alt, root, depth + 1) for alt in alternatives])
    types = schema.get("type")
    if types is None:
        types = ["object"] if "properties" in schema else ["array"] if "items" in schema else []
    if isinstance(types, str):
        types = [types]
    if not types:
        return _ANY
    return st.one_of([_of_type(name, schema, root, depth) for name in types])


def _bound(schema: dict[str, Any], inclusive: str, exclusive: str, step: int) -> Decimal | None:
    values = [Decimal(schema[inclusive])] if inclusive in schema else []
    if exclusive in schema:
        values.append(Decimal(schema[exclusive]) + step * Decimal("0.001"))
    if not values:
        return None
    return max(values) if step > 0 else min(values)


def _of_type(name: str, schema: dict[str, Any], root: Any, depth: int) -> st.SearchStrategy[Any]:
    if name == "null":
        return st.none()
    if name == "boolean":
        return st.booleans()
    if name == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"])
        low = schema.get("minLength", 0)
        return st.text(min_size=low, max_size=schema.get("maxLength", low + 8))
    if name in ("integer", "number"):
        low, high = (
            _bound(schema, "minimum", "exclusiveMinimum", 1),
            _bound(schema, "maximum", "exclusiveMaximum", -1),
        )
        ints = st.integers(
            min_value=None if low is None else math.ceil(low),
            max_value=None if high is None else math.floor(high),
        )
        if name == "integer":
            return ints | ints.map(lambda n: Decimal(f"{n}.0"))
        return ints | st.decimals(
            min_value=low, max_value=high, allow_nan=False, allow_infinity=False, places=3
        )
    if name == "array":
        low = schema.get("minItems", 0)
        item = instances(schema.get("items", True), root, depth + 1)
        return st.lists(item, min_size=low, max_size=schema.get("maxItems", low + 3))
    if name == "object":
        properties = schema.get("properties", {})
        required = [n for n in schema.get("required", []) if n in properties]
        shaped = st.fixed_dictionaries(
            {n: instances(properties[n], root, depth + 1) for n in required},
            optional={n: instances(s, root, depth + 1) for n, s in properties.items() if n not in required},
        )
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            more = st.dictionaries(
                st.text(min_size=1, max_size=4), instances(extra, root, depth + 1), max_size=2
            )
            return st.tuples(shaped, more).map(lambda pair: {**pair[1], **pair[0]})
        return shaped
    return _ANY


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, (*path, key))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _places(item, (*path, n))


_REPLACEMENTS = st.sampled_from(
    [None, True, False, 0, -1, 7, Decimal("2.5"), Decimal("1.0"), "", "x", "LONG" * 20, [], [1], {}, {"k": 1}]
)


@st.composite
def mutated(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with one place replaced, one member dropped or one unknown member added."""
    value = _copy(value)
    path = draw(st.sampled_from(list(_places(value))))
    action = draw(st.sampled_from(["replace", "drop", "add"]))
    if not path:
        return draw(_REPLACEMENTS) if action == "replace" else value
    parent = value
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if action == "replace":
        parent[last] = draw(_REPLACEMENTS)
    elif action == "drop":
        del parent[last]
    elif isinstance(parent, dict):
        parent[draw(st.sampled_from(["extra", "zz", "_"]))] = draw(_REPLACEMENTS)
    else:
        parent.append(draw(_REPLACEMENTS))
    return value


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


@functools.cache
def _strategy(case: Case) -> st.SearchStrategy[Any]:
    return instances(case.document, case.document)


class TestOracle:
    """On MCP schemas, verdicts are jsonschema's."""

    @pytest.mark.parametrize("server", SERVERS)
    def test_validate_agrees_with_jsonschema(self, server: str) -> None:
        """
        On generated and mutated instances of every tool's input schema, the verdicts agree with the oracle.
        """
        server_cases = cases(server)
        verdicts: Counter[bool] = Counter()

        @settings(
            max_examples=80,
            deadline=None,
            database=None,
            suppress_health_check=[
                HealthCheck.too_slow,
                HealthCheck.filter_too_much,
                HealthCheck.data_too_large,
            ],
        )
        @given(st.data())
        def agree(data: st.DataObject) -> None:
            case = data.draw(st.sampled_from(server_cases), label="tool")
            instance = data.draw(_strategy(case), label="instance")
            if data.draw(st.booleans(), label="mutate"):
                instance = data.draw(mutated(instance), label="mutated")
            ours = contract.validate(case.compiled, instance)
            expected = case.oracle.is_valid(instance)
            assert isinstance(ours, Ok) == expected, (case.tool, ours)
            verdicts[expected] += 1

        agree()
        assert verdicts[True] > 0
        assert verdicts[False] > 0

    @pytest.mark.parametrize("server", SERVERS)
    def test_validate_all_reports_what_validate_reports(self, server: str) -> None:
        """
        On mutated instances, ``validate_all`` is empty exactly when valid, and starts with ``validate``'s.
        """

        @settings(max_examples=30, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(st.data())
        def same(data: st.DataObject) -> None:
            case = data.draw(st.sampled_from(cases(server)))
            instance = data.draw(_strategy(case).flatmap(mutated))
            first = contract.validate(case.compiled, instance)
            every = contract.validate_all(case.compiled, instance, limit=5)
            match first:
                case Ok():
                    assert every == ()
                case Err(error):
                    assert every[0] == error
                    assert len(every) <= 5

        same()
