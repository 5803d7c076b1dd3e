"""
A plain document's contract compiles on its first validation, with the verdict at load unchanged: what the
compile would refuse is still refused by ``load``, and a contract ``load`` accepts always compiles.
"""

from __future__ import annotations

import gc
import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import collector_paused
from test_differential import DRAFT_07, DRAFT_2020_12, _cases

from llm_wire import contract
from llm_wire.contract import InvalidShape, LoadError
from llm_wire.contract._contract import first_failure
from llm_wire.result import Err, Ok, unwrap

PLAIN: Any = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}, "required": ["n"]}


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


class _Text(str):
    """A ``str`` subclass: JSON to the compile, not of an exact JSON class."""


class TestWhenItCompiles:
    def test_a_plain_contract_compiles_on_its_first_validation(self) -> None:
        loaded = unwrap(contract.load(PLAIN))
        assert loaded._checker._compiled is None
        assert first_failure(loaded, {"n": 3}) is None
        assert loaded._checker._compiled is not None
        assert first_failure(loaded, {"n": 10}) is not None

    def test_a_document_with_references_compiles_at_load(self) -> None:
        document: Any = {"$defs": {"n": {"type": "integer"}}, "properties": {"n": {"$ref": "#/$defs/n"}}}
        assert unwrap(contract.load(document))._checker._compiled is not None

    def test_threads_validating_a_new_contract_together_agree(self) -> None:
        loaded = unwrap(contract.load(PLAIN))
        start = threading.Barrier(8)

        def validate(n: int) -> list[bool]:
            start.wait()
            return [first_failure(loaded, {"n": (n + k) % 12}) is None for k in range(40)]

        with ThreadPoolExecutor(8) as pool:
            verdicts = list(pool.map(validate, range(8)))
        assert verdicts == [[(n + k) % 12 <= 9 for k in range(40)] for n in range(8)]

    def test_a_dropped_contract_leaves_no_garbage_before_or_after_it_compiles(self) -> None:
        with collector_paused():
            unused = unwrap(contract.load(PLAIN))
            del unused
            assert gc.collect() == 0
            used = unwrap(contract.load(PLAIN))
            assert first_failure(used, {"n": 1}) is None
            del used
            assert gc.collect() == 0


class TestTheVerdictAtLoad:
    """What the compile refuses (values it cannot render or key) ``load`` still refuses, at the same place."""

    @pytest.mark.parametrize(
        ("keyword", "value"),
        [
            ("enum", [{1, 2}]),
            ("enum", [(1, 2)]),
            ("enum", [{1: 2}]),
            ("const", Decimal("NaN")),
            ("const", object()),
            ("const", [Decimal("Infinity")]),
        ],
    )
    def test_a_value_that_is_not_json_is_refused(self, keyword: str, value: Any) -> None:
        document: Any = {"type": "object", "properties": {"a": {keyword: value}}}
        refused = contract.load(document)
        assert refused == Err(LoadError(("properties", "a"), keyword, InvalidShape("must hold JSON values")))

    @pytest.mark.parametrize(
        ("keyword", "value"), [("const", _nested(40)), ("enum", [_Text("x")]), ("const", {"a": _nested(33)})]
    )
    def test_a_value_the_plain_walk_leaves_is_loaded_the_exact_way(self, keyword: str, value: Any) -> None:
        loaded = unwrap(contract.load({"properties": {"a": {keyword: value}}}))
        assert loaded._checker._compiled is not None  # compiled at load, as before
        assert first_failure(loaded, {"a": "y"}) is not None

    @settings(max_examples=200, suppress_health_check=list(HealthCheck), deadline=None)
    @given(_cases(DRAFT_2020_12) | _cases(DRAFT_07))
    def test_every_contract_load_accepts_compiles(self, case: tuple[Any, list[Any], bool]) -> None:
        schema, values, _ = case
        loaded = contract.load(schema)
        if not isinstance(loaded, Ok):
            return
        assert loaded.value._checker.compiled is not None  # an AssertionError if a plain plan did not compile
        for value in values:
            contract.validate(loaded.value, value)  # the differential test compares verdicts with jsonschema
