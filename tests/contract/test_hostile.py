"""
Hostile schemas: each is refused at load with a typed ``LoadError`` naming its setting, or validated within a
stated bound of work, counted in results computed for shared nodes (``Contract._memo.computed``), never timed.
"""

from __future__ import annotations

from typing import Any

import pytest

from llm_wire import contract
from llm_wire.contract._contract import first_failure
from llm_wire.error import LimitExceeded
from llm_wire.result import Err, Ok


def _chain(levels: int, combinator: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """``$defs`` d0 .. dN, each naming the next twice under ``combinator``; the last is an integer."""
    defs: dict[str, Any] = {
        f"d{i}": {combinator: [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}], **(extra or {})}
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "integer"}
    return {"$defs": defs, "$ref": "#/$defs/d0"}


def _work(document: Any, value: Any) -> tuple[bool, int]:
    loaded = contract.load(document)
    assert isinstance(loaded, Ok), loaded
    c = loaded.value
    before = c._memo.computed
    valid = isinstance(contract.validate(c, value), Ok)
    assert (first_failure(c, value) is None) == valid
    assert (contract.validate_all(c, value) == ()) == valid
    return valid, c._memo.computed - before


class TestFanOuts:
    """Nodes reached along several edges are computed once per value: work grows with the schema, not 2**n."""

    def test_one_of_chain(self) -> None:
        """20 levels of ``oneOf`` naming the next twice (2-3 s a call before): a few results a level."""
        valid, work = _work(_chain(20, "oneOf"), "x")
        assert not valid
        assert work <= 3 * 3 * 21  # three modes (validate, first_failure, validate_all), a result per node

    def test_any_of_and_all_of_chains(self) -> None:
        """The same fan-out under ``anyOf`` and ``allOf``, valid and invalid."""
        for combinator in ("anyOf", "allOf"):
            for value, expected in ((1, True), ("x", False)):
                valid, work = _work(_chain(30, combinator), value)
                assert valid is expected
                assert work <= 3 * 3 * 31, (combinator, work)

    def test_nested_any_of_with_unevaluated_properties(self) -> None:
        """``unevaluatedProperties`` over a fan-out: the annotations are shared like the verdicts."""
        document = _chain(20, "anyOf")
        document["$defs"]["d20"] = {"properties": {"a": True}}
        document["unevaluatedProperties"] = False
        valid, work = _work(document, {"a": 1})
        assert valid
        assert work <= 3 * 2 * 3 * 21
        valid, _ = _work(document, {"b": 1})
        assert not valid

    def test_recursive_descent_fan_out(self) -> None:
        """Each level of a deep value reached twice through ``anyOf``: linear in the value's depth."""
        document = {"properties": {"a": {"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}}, "required": ["z"]}
        value: Any = {"z": 1}
        for _ in range(40):
            value = {"a": value, "z": 1}
        value = {"a": value}  # the top lacks "z": every level above is checked, then fails
        valid, work = _work(document, value)
        assert not valid
        assert work <= 3 * 2 * 42


class TestRefused:
    """What cannot be bounded cheaply is refused at load, naming the setting that raises the bound."""

    def test_costly_pattern(self) -> None:
        """A large counted repetition after an ambiguous prefix: ``max_pattern_cost``."""
        found = contract.load({"pattern": "(?:a|b)*a(?:a|b){1000}c"})
        assert isinstance(found, Err)
        assert isinstance(found.error.reason, LimitExceeded)
        assert found.error.reason.setting == "contract.load(max_pattern_cost=)"

    def test_deep_ref_chain(self) -> None:
        """A chain of 40 references followed in place: ``max_ref_depth``."""
        defs: dict[str, Any] = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(40)}
        defs["d40"] = {"type": "integer"}
        found = contract.load({"$defs": defs, "$ref": "#/$defs/d0"})
        assert isinstance(found, Err)
        assert isinstance(found.error.reason, LimitExceeded)
        assert found.error.reason.setting == "contract.load(max_ref_depth=)"

    def test_wide_fan_out_of_nodes(self) -> None:
        """More schema objects than ``max_nodes``."""
        found = contract.load({"anyOf": [{"type": "string"}] * 20}, max_nodes=10)
        assert isinstance(found, Err)
        assert isinstance(found.error.reason, LimitExceeded)
        assert found.error.reason.setting == "contract.load(max_nodes=)"

    @pytest.mark.parametrize(
        ("document", "path", "keyword"),
        [
            ({1: {}}, (), None),
            ({"properties": {1: {}}}, (), "properties"),
            ({"$defs": {("a",): {}}}, (), "$defs"),
            ({"type": "object", "properties": {"a": {2: "x"}}}, ("properties", "a"), None),
        ],
    )
    def test_a_member_name_that_is_not_a_string(
        self, document: Any, path: tuple[str, ...], keyword: str | None
    ) -> None:
        """A document built in code with a non-string key: a typed ``InvalidShape``, no ``AttributeError``."""
        loaded = contract.load(document)
        assert isinstance(loaded, Err)
        assert (loaded.error.path, loaded.error.keyword) == (path, keyword)
        assert isinstance(loaded.error.reason, contract.InvalidShape)
