"""
A leaf below a document's root (a schema object holding only strings, integers, booleans and nulls) is read
once: every later copy, in any document loaded under the same settings, gets that immutable node. Each copy's
verdict and content stay what a fresh read gives.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from llm_wire import contract
from llm_wire.contract import InvalidShape, LoadError, UnknownFormat, UnsupportedKeyword
from llm_wire.contract._fastload import _SHARED_CHARACTERS, _SHARED_NODES, _Shared
from llm_wire.result import Err, unwrap
from llm_wire.schema import Schema

URI_2020 = "https://json-schema.org/draft/2020-12/schema"


def _child(document: Any, **options: Any) -> Schema:
    """The node of member ``a`` of the loaded document."""
    properties: Any = unwrap(contract.load(document, **options)).schema.get("properties")
    node = properties[0][1]
    assert isinstance(node, Schema)
    return node


def _inside(leaf: Any) -> Any:
    return {"type": "object", "properties": {"a": leaf}}


class TestSharing:
    def test_equal_leaves_of_two_documents_are_one_node(self) -> None:
        leaf = {"type": "string", "description": "Repository name"}
        first = _child(_inside(dict(leaf)))
        other: Any = {"type": "object", "properties": {"a": dict(leaf)}, "required": ["a"]}
        assert _child(other) is first

    def test_the_root_is_never_shared(self) -> None:
        """A root's ``$schema`` is left out; the same member below the root is kept (the exact way)."""
        assert unwrap(contract.load({"$schema": URI_2020, "type": "string"})).schema.names() == ("type",)
        nested = _child(_inside({"$schema": URI_2020, "type": "string"}))
        assert nested.keywords == (("$schema", URI_2020), ("type", "string"))


class TestEachCopyKeepsItsVerdict:
    def test_a_value_keeps_its_class(self) -> None:
        """``1``, ``true`` and ``1.0`` are equal in Python; each copy keeps its own, or its own refusal."""
        assert _child(_inside({"default": 1})).get("default").__class__ is int
        assert _child(_inside({"default": True})).get("default") is True
        assert _child(_inside({"minimum": 1})).get("minimum").__class__ is int
        assert contract.load(_inside({"minimum": True})) == Err(
            LoadError(("properties", "a"), "minimum", InvalidShape("must be a number"))
        )
        exact = _child(_inside({"minimum": 1.0})).get("minimum")
        assert exact.__class__ is Decimal
        assert str(exact) == "1.0"

    def test_settings_that_change_the_verdict_read_the_leaf_again(self) -> None:
        leaf: Any = {"type": "string", "format": "no-such-format", "pattern": "a{400}"}
        _child(_inside(leaf))
        assert contract.load(_inside(leaf), assert_formats=True) == Err(
            LoadError(("properties", "a"), "format", UnknownFormat())
        )
        refused = contract.load(_inside(leaf), max_pattern_cost=50)
        assert isinstance(refused, Err)
        assert refused.error.describe() == (
            '$["properties"]["a"]: "pattern": the RE2 program its counted repetitions add exceeds 50 '
            "(raise it with contract.load(max_pattern_cost=))"
        )

    def test_a_declared_annotation_is_not_known_to_other_loads(self) -> None:
        leaf = {"foo": 1}
        assert _child(_inside(leaf), annotations=["foo"]).keywords == (("foo", 1),)
        assert contract.load(_inside(leaf)) == Err(
            LoadError(
                ("properties", "a"),
                "foo",
                UnsupportedKeyword("unknown keywords are refused, since one may be a misspelled assertion"),
            )
        )


class TestBounds:
    def test_a_leaf_holding_more_characters_than_all_may_is_not_kept(self) -> None:
        shared = _Shared()
        key = ((("description", "x" * _SHARED_CHARACTERS),), (str,))
        shared.keep(key, Schema((("description", "x"),)))
        assert shared.nodes == {}
        assert shared.characters == 0

    def test_a_full_table_is_emptied_before_it_keeps_more(self) -> None:
        shared = _Shared()
        for n in range(_SHARED_NODES + 1):
            shared.keep(((("minimum", n),), (int,)), Schema((("minimum", n),)))
        assert len(shared.nodes) == 1
        assert shared.characters == len("minimum") + 1
