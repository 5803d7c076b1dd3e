"""
The generated fast path of a contract (``contract._quick``) gives exactly the compiled check's verdict: it
accepts only what that check accepts and hands every other value to it. Checked on the differential test's
generated schemas and values (hostile ones included: floats, subclasses, NaN, non-string keys) and on the
tool schemas of the corpora, where most calls must take the fast path.
"""

from __future__ import annotations

import gc
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import collector_paused
from test_differential import DRAFT_07, DRAFT_2020_12, _cases

from llm_wire import contract
from llm_wire.contract import _quick
from llm_wire.contract._checks import Budget, Check
from llm_wire.contract._contract import first_failure
from llm_wire.result import Ok
from llm_wire.value import parse

TALLY: Counter[str] = Counter()


def _compiled(schema: Any, *, assert_formats: bool = False) -> tuple[contract.Contract, Check] | None:
    """A contract and its compiled check, the slow twin its fast path is written for."""
    loaded = contract.load(schema, assert_formats=assert_formats)
    if not isinstance(loaded, Ok):
        return None
    return loaded.value, loaded.value._checker.compiled


def _verdicts_agree(schema: Any, values: list[Any], *, assert_formats: bool = False) -> None:
    made = _compiled(schema, assert_formats=assert_formats)
    if made is None:
        return
    loaded, full = made
    quick = _quick.quickened(loaded.schema, loaded.assert_formats, full)
    TALLY["schemas with a fast path" if quick is not None else "schemas without"] += 1
    if quick is None:
        return
    for v in values:
        expected = full(v, None)
        got = quick(v, None)
        assert (got is None) == (expected is None), f"fast path says {got!r}, compiled check {expected!r}"
        assert (quick(v, Budget(3)) is None) == (expected is None)
        TALLY["valid" if expected is None else "invalid"] += 1


_HOSTILE = st.sampled_from(
    [1.5, float("nan"), Decimal("NaN"), Decimal("Infinity"), Decimal("-0"), (), {1: "a"}, {"a": 1.0}, [1.0]]
)


class TestAgreesWithTheCompiledCheck:
    """Whatever the schema and value, the fast path's verdict is the compiled check's."""

    @settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.sampled_from([DRAFT_2020_12, DRAFT_07]).flatmap(_cases), st.lists(_HOSTILE, max_size=2))
    def test_generated_schemas_and_values(
        self, case: tuple[Any, list[Any], bool], hostile: list[Any]
    ) -> None:
        """The differential test's schemas and biased values, plus values no parser makes."""
        schema, values, _ = case
        _verdicts_agree(schema, values + hostile + [{"a": v} for v in hostile])

    @settings(max_examples=100)
    @given(st.lists(st.sampled_from(["a", "b", "é", "1"]), max_size=3), st.booleans())
    def test_asserted_formats_and_patterns(self, strings: list[str], assert_formats: bool) -> None:
        """``format`` counts only when asserted; ``pattern`` runs the contract's own engine."""
        schema = {
            "type": "object",
            "properties": {"d": {"type": "string", "format": "date"}, "p": {"pattern": "^[a-c]+$"}},
        }
        values: list[Any] = [{"d": s, "p": s} for s in strings] + [{"d": "2024-02-30"}, {"d": "2024-02-03"}]
        _verdicts_agree(schema, values, assert_formats=assert_formats)


CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"
SUITE = CORPORA / "json-schema-test-suite" / "tests" / "draft2020-12"
MCP = CORPORA / "mcp-tools"


@pytest.mark.skipif(not SUITE.is_dir(), reason=f"JSON Schema Test Suite not found at {SUITE}")
class TestTheSuiteThroughTheFastPath:
    """Every group of the official suite that gets a fast path gives every test's expected verdict."""

    def test_no_wrong_verdict(self) -> None:
        written = checked = 0
        wrong: list[str] = []
        for path in sorted(SUITE.glob("*.json")):
            groups: Any = parse(path.read_text(encoding="utf-8")).value  # type: ignore[union-attr]
            for group in groups:
                made = _compiled(group["schema"])
                quick = None if made is None else _quick.quickened(made[0].schema, False, made[1])
                if quick is None:
                    continue
                written += 1
                for test in group["tests"]:
                    checked += 1
                    if (quick(test["data"], None) is None) != test["valid"]:
                        wrong.append(f"{path.name}: {group['description']} / {test['description']}")
        print(f"\nfast path over the suite: {written} groups written, {checked} verdicts, {len(wrong)} wrong")
        assert not wrong
        assert written >= 100  # the common keywords' groups: the check above is not vacuous


@pytest.mark.skipif(not MCP.is_dir(), reason=f"MCP corpus not found at {MCP}")
class TestRealToolSchemas:
    """The corpus's MCP tool schemas get a fast path, and a valid call takes it without the compiled check."""

    def test_nearly_every_tool_schema_is_written(self) -> None:
        schemas: list[Any] = []
        for path in sorted(MCP.glob("*.json")):
            document: Any = parse(path.read_text(encoding="utf-8")).value  # type: ignore[union-attr]
            schemas += [tool["inputSchema"] for tool in document["tools"]]
        written = 0
        for schema in schemas:
            made = _compiled(schema)
            assert made is not None
            calls: list[object] = []

            def full(v: Any, out: Any, check: Check = made[1], calls: list[object] = calls) -> Any:
                calls.append(v)
                return check(v, out)

            quick = _quick.quickened(made[0].schema, False, full)
            if quick is not None:
                written += 1
                assert quick({}, None) == made[1]({}, None)
                if not any(name == "required" for name, _ in made[0].schema.keywords):
                    assert not calls, "an empty object, valid here, went past the fast path"
        print(f"\nfast path over {len(schemas)} MCP tool schemas: {written} written")
        assert written >= 0.9 * len(schemas)


class TestWhatGetsAFastPath:
    """Which schemas are written and which are left to the compiled check."""

    def test_a_tool_schema_is_written(self) -> None:
        schema = {
            "type": "object",
            "properties": {
                "city": {"type": "string", "maxLength": 40},
                "days": {"type": "integer", "minimum": 1, "maximum": 14},
                "unit": {"enum": ["c", "f"]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            },
            "required": ["city"],
            "additionalProperties": False,
        }
        made = _compiled(schema)
        assert made is not None
        quick = _quick.quickened(made[0].schema, False, made[1])
        assert quick is not None
        assert quick({"city": "Paris", "days": 3, "unit": "c", "tags": ["a"]}, None) is None
        bad: list[Any] = [{"days": 3}, {"city": "P", "days": 0}, {"city": "P", "unit": "k"}]
        bad.append({"city": "P", "x": 1})
        for value in bad:
            assert quick(value, None) is not None

    def test_a_reference_is_left_to_the_compiled_check(self) -> None:
        made = _compiled({"$defs": {"a": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a"}}})
        assert made is not None
        assert _quick.quickened(made[0].schema, False, made[1]) is None

    def test_a_schema_over_the_node_limit_is_left_to_the_compiled_check(self) -> None:
        wide = {"properties": {f"p{n}": {"type": "string"} for n in range(_quick.MAX_NODES + 1)}}
        made = _compiled(wide)
        assert made is not None
        assert _quick.quickened(made[0].schema, False, made[1]) is None

    def test_a_contract_puts_its_fast_path_in_place_after_warming_up(self) -> None:
        loaded = contract.load({"type": "object", "properties": {"a": {"type": "string"}}})
        assert isinstance(loaded, Ok)
        first = loaded.value._checker.run
        for _ in range(_quick.WARM_UP):
            assert first_failure(loaded.value, {"a": "x"}) is None
        assert loaded.value._checker.run is not first
        assert first_failure(loaded.value, {"a": 1}) is not None
        assert first_failure(loaded.value, {"a": "x"}) is None

    def test_a_dropped_contract_with_its_fast_path_leaves_no_garbage(self) -> None:
        """The generated functions hold no reference cycle: dropping the contract frees it, no collector."""
        with collector_paused():
            schema: Any = {
                "type": "object",
                "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "array"}]}},
            }
            loaded = contract.load(schema)
            assert isinstance(loaded, Ok)
            for _ in range(_quick.WARM_UP + 1):
                assert first_failure(loaded.value, {"a": []}) is None
            assert loaded.value._checker.run.__name__ == "check"
            del loaded
            assert gc.collect() == 0

    def test_threads_warming_one_contract_together_agree_and_land_the_fast_path(self) -> None:
        loaded = contract.load({"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}})
        assert isinstance(loaded, Ok)
        compiled = loaded.value
        start = threading.Barrier(8)

        def validate(n: int) -> list[bool]:
            start.wait()
            return [first_failure(compiled, {"n": (n + k) % 12}) is None for k in range(50)]

        with ThreadPoolExecutor(8) as pool:
            verdicts = list(pool.map(validate, range(8)))
        assert verdicts == [[(n + k) % 12 <= 9 for k in range(50)] for n in range(8)]
        assert compiled._checker.run.__name__ == "check"  # the generated function, in place
