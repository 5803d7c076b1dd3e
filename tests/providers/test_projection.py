"""
Schema projection: each provider's strict and non-strict rules (python_ecosystem.md §3 and the rejection
strings of its appendix), the loss report, ``restore``, and projection never raising.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import json_values

from llm_wire.providers import anthropic, google, openai_chat, openai_responses
from llm_wire.providers.projection import (
    Action,
    Loss,
    Profile,
    Projection,
    ProjectionError,
    project_schema,
)
from llm_wire.result import Err, Ok, Result, unwrap
from llm_wire.schema import Schema, from_value
from llm_wire.value import Path, Value, render

#: Gemini's OpenAPI dialect (the wire's legacy profile).
GOOGLE_OPENAPI = google.WIRE.profile(False, legacy=True)

PROFILES = [
    openai_responses.WIRE.loose,
    openai_responses.WIRE.strict,
    anthropic.WIRE.loose,
    anthropic.WIRE.strict,
    google.WIRE.loose,
    google.WIRE.strict,
    GOOGLE_OPENAPI,
]


def schema(document: Any) -> Schema:
    return unwrap(from_value(document))


def projected(profile: Profile, document: Any) -> Projection:
    return unwrap(project_schema(schema(document), profile))


def wire_of(projection: Projection) -> Any:
    """The wire schema, for indexing in assertions."""
    return projection.wire_schema


def refused(profile: Profile, document: Any) -> ProjectionError:
    result = project_schema(schema(document), profile)
    assert isinstance(result, Err), render(unwrap(result).wire_schema)
    return result.error


def losses(projection: Projection, keyword: str) -> list[Loss]:
    return [loss for loss in projection.losses if loss.keyword == keyword]


def nodes(value: Value, path: Path = ()) -> Iterator[tuple[Path, dict[str, Value]]]:
    """Every schema object in a wire schema (through the keywords that hold subschemas)."""
    if not isinstance(value, dict):
        return
    yield path, value
    for name, member in value.items():
        if name in ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas"):
            if isinstance(member, dict):
                for key, sub in member.items():
                    yield from nodes(sub, (*path, name, key))
        elif name in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(member, list):
            for n, sub in enumerate(member):
                yield from nodes(sub, (*path, name, n))
        elif name in ("items", "additionalProperties", "not", "if", "then", "else", "contains"):
            yield from nodes(member, (*path, name))


def is_object(node: dict[str, Value]) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in node


OPENAI_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
OPENAI_STRICT_KEYWORDS = openai_responses.WIRE.strict.keep or frozenset()


def openai_strict_violations(wire: Value) -> list[str]:
    """The appendix's OpenAI strict rejections that ``wire`` would meet (empty when it is accepted)."""
    found: list[str] = []
    assert isinstance(wire, dict)
    if "anyOf" in wire or wire.get("type") != "object":
        found.append("root must be an object, not anyOf")
    for path, node in nodes(wire):
        where = str(path)
        if is_object(node):
            if node.get("additionalProperties") is not False:
                found.append(f"{where}: 'additionalProperties' is required to be supplied and to be false")
            props = node.get("properties", {})
            assert isinstance(props, dict)
            required: Any = node.get("required", [])
            if props and sorted(required) != sorted(props):
                found.append(f"{where}: 'required' ... including every key in properties")
        if "$ref" in node and len(node) > 1:
            found.append(f"{where}: $ref cannot have keywords")
        if "default" in node:
            found.append(f"{where}: 'default' is not permitted")
        if "format" in node and node["format"] not in OPENAI_FORMATS:
            found.append(f"{where}: not a valid format")
        if not any(k in node for k in ("type", "anyOf", "$ref")) and path[-2:-1] != ("$defs",):
            found.append(f"{where}: schema must have a 'type' key")
        kind = node.get("type")
        if (kind == "array" or (isinstance(kind, list) and "array" in kind)) and "items" not in node:
            found.append(f"{where}: array schema missing items")
        extra = set(node) - OPENAI_STRICT_KEYWORDS - {"$defs", "definitions"}
        if extra:
            found.append(f"{where}: unsupported keywords {sorted(extra)}")
    return found


ANTHROPIC_REFUSED = {
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "oneOf",
    "not",
    "patternProperties",
}
ANTHROPIC_FORMATS = OPENAI_FORMATS | {"uri"}


def anthropic_strict_violations(wire: Value) -> list[str]:
    """Anthropic strict tool rules (python_ecosystem.md §3.2) that ``wire`` breaks."""
    found: list[str] = []
    assert isinstance(wire, dict)
    if wire.get("type") != "object":
        found.append("input_schema.type must be object")
    if any(combinator in wire for combinator in ("anyOf", "oneOf", "allOf")):
        found.append("input_schema does not support oneOf, allOf, or anyOf at the top level")
    for path, node in nodes(wire):
        if is_object(node) and node.get("additionalProperties") is not False:
            found.append(f"{path}: additionalProperties must be false")
        refused_here = ANTHROPIC_REFUSED & set(node)
        if refused_here:
            found.append(f"{path}: unsupported {sorted(refused_here)}")
        count = node.get("minItems")
        if isinstance(count, int) and count > 1:
            found.append(f"{path}: minItems > 1")
        if "format" in node and node["format"] not in ANTHROPIC_FORMATS:
            found.append(f"{path}: format")
        branches = node.get("allOf")
        if isinstance(branches, list) and any(isinstance(b, dict) and "$ref" in b for b in branches):
            found.append(f"{path}: allOf with $ref")
    return found


GEMINI_OPENAPI_KEYS = GOOGLE_OPENAPI.keep or frozenset()
GEMINI_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}


def gemini_openapi_violations(wire: Value) -> list[str]:
    """The appendix's Gemini ``parameters`` rejections that ``wire`` would meet."""
    found: list[str] = []
    assert isinstance(wire, dict)
    if wire.get("type") != "OBJECT":
        found.append("functionDeclaration parameters schema should be of type OBJECT")
    for path, node in nodes(wire):
        unknown = set(node) - GEMINI_OPENAPI_KEYS
        if unknown:
            found.append(f"{path}: Unknown name {sorted(unknown)}: Cannot find field")
        if "type" in node and node["type"] not in GEMINI_TYPES:
            found.append(f"{path}: type must be an uppercase OpenAPI type")
        if "type" not in node and "anyOf" not in node:
            found.append(f"{path}: type must be specified")
        values = node.get("enum")
        if isinstance(values, list) and not all(isinstance(v, str) and v for v in values):
            found.append(f"{path}: enum.0: Input should be a valid string")
        if node.get("type") == "ARRAY" and "items" not in node:
            found.append(f"{path}: items: missing field")
        required = node.get("required", [])
        props = node.get("properties", {})
        assert isinstance(required, list)
        assert isinstance(props, dict)
        if any(name not in props for name in required):
            found.append(f"{path}: required[0]: property is not defined")
    return found


# ---------------------------------------------------------------------------------------------------------
# OpenAI strict: each appendix rejection, fixed by the projection and reported as a loss.


class TestStrictProfiles:
    """Strict projections: what each provider keeps, rewrites and refuses."""

    def test_openai_strict_closes_a_zero_argument_tool(self) -> None:
        """An open object is closed, which narrows it: absent and ``true`` alike (issue 23, item 7)."""
        for open_ in ({"type": "object"}, {"type": "object", "additionalProperties": True}):
            wire = projected(openai_responses.WIRE.strict, open_)
            assert wire.wire_schema == {"type": "object", "additionalProperties": False, "properties": {}}
            assert openai_strict_violations(wire.wire_schema) == []
            assert [loss.action for loss in losses(wire, "additionalProperties")] == [Action.NARROWED]
            assert not wire.qualifies
        closed = projected(openai_responses.WIRE.strict, {"type": "object", "additionalProperties": False})
        assert closed.losses == ()
        assert closed.qualifies

    def test_openai_strict_sends_an_optional_property_as_required_and_nullable(self) -> None:
        document = {
            "type": "object",
            "properties": {"city": {"type": "string"}, "onlyErrors": {"type": "boolean"}},
            "required": ["city"],
            "additionalProperties": False,
        }
        wire = projected(openai_responses.WIRE.strict, document)
        assert wire.wire_schema == {
            "type": "object",
            "properties": {"city": {"type": "string"}, "onlyErrors": {"type": ["boolean", "null"]}},
            "required": ["city", "onlyErrors"],
            "additionalProperties": False,
        }
        assert wire.nullable == {("properties", "onlyErrors")}
        assert openai_strict_violations(wire.wire_schema) == []
        assert wire.qualifies

    def test_openai_strict_moves_a_ref_with_siblings_into_anyof(self) -> None:
        document = {
            "type": "object",
            "properties": {"role": {"$ref": "#/$defs/Role", "description": "who"}},
            "required": ["role"],
            "additionalProperties": False,
            "$defs": {"Role": {"type": "string", "enum": ["a", "b"]}},
        }
        wire = projected(openai_responses.WIRE.strict, document)
        assert wire_of(wire)["properties"]["role"] == {
            "anyOf": [{"$ref": "#/$defs/Role"}],
            "description": "who",
        }
        assert openai_strict_violations(wire.wire_schema) == []
        assert wire.qualifies

    @pytest.mark.parametrize(
        ("member", "keyword", "action"),
        [
            ({"type": "string", "default": "x"}, "default", Action.DROPPED),
            ({"type": "string", "format": "uri"}, "format", Action.DROPPED),
            ({"type": "string", "minLength": 3}, "minLength", Action.DROPPED),
            ({"type": "string", "pattern": "^(?!x)"}, "pattern", Action.DROPPED),
            (
                {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                "uniqueItems",
                Action.DROPPED,
            ),
            ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, "oneOf", Action.WIDENED),
            (
                {"type": "object", "additionalProperties": {"type": "string"}},
                "additionalProperties",
                Action.NARROWED,
            ),
            ({"enum": ["a", "b"]}, "type", Action.REWRITTEN),
        ],
    )
    def test_openai_strict_reports_each_change(self, member: Value, keyword: str, action: Action) -> None:
        document = {
            "type": "object",
            "properties": {"x": member},
            "required": ["x"],
            "additionalProperties": False,
        }
        wire = projected(openai_responses.WIRE.strict, document)
        assert openai_strict_violations(wire.wire_schema) == []
        assert action in [loss.action for loss in losses(wire, keyword)]
        # "default" and "format" are annotations: dropping them keeps the meaning.
        assert wire.qualifies is (action is Action.REWRITTEN or keyword in ("default", "format"))

    def test_openai_strict_keeps_supported_keywords(self) -> None:
        member = {"type": "string", "format": "date-time", "pattern": "^[0-9]+$", "description": "when"}
        document = {"type": "object", "properties": {"x": member}, "required": ["x"]}
        wire = projected(openai_responses.WIRE.strict, document)
        assert wire_of(wire)["properties"]["x"] == member
        assert wire.losses == (losses(wire, "additionalProperties")[0],)

    @pytest.mark.parametrize(
        "member",
        [
            {"description": "anything"},
            True,
            {"type": "array"},
        ],
    )
    def test_openai_strict_refuses_what_needs_a_type(self, member: Value) -> None:
        document = {"type": "object", "properties": {"x": member}, "required": ["x"]}
        error = refused(openai_responses.WIRE.strict, document)
        assert error.path[:2] == ("properties", "x")
        assert "type" in error.describe()

    def test_openai_strict_drops_a_root_anyof(self) -> None:
        document = {"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}
        wire = projected(openai_responses.WIRE.strict, document)
        assert openai_strict_violations(wire.wire_schema) == []
        assert [loss.action for loss in losses(wire, "anyOf")] == [Action.DROPPED]
        assert not wire.qualifies

    def test_openai_strict_keeps_recursion_through_defs(self) -> None:
        document = {
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "required": ["tree"],
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                }
            },
        }
        wire = projected(openai_responses.WIRE.strict, document)
        assert openai_strict_violations(wire.wire_schema) == []
        assert ("$defs", "Node", "properties", "children") in wire.nullable

    def test_chat_and_responses_share_the_openai_rules(self) -> None:
        document = {"type": "object", "properties": {"a": {"type": "integer"}}}
        for strict in (False, True):
            assert openai_chat.WIRE.project_schema(
                schema(document), strict
            ) == openai_responses.WIRE.project_schema(schema(document), strict)

    def test_openai_loose_only_adds_missing_array_items(self) -> None:
        document = {
            "type": "object",
            "properties": {"paths": {"type": "array"}, "n": {"type": "integer", "minimum": 1}},
            "additionalProperties": True,
        }
        wire = projected(openai_responses.WIRE.loose, document)
        assert wire_of(wire)["properties"]["paths"] == {"type": "array", "items": {}}
        assert wire_of(wire)["properties"]["n"] == {"type": "integer", "minimum": 1}
        assert [(loss.path, loss.keyword) for loss in wire.losses] == [(("properties", "paths"), "items")]

    # --------------------------------------------------------------------------------------------------------
    # Anthropic.

    def test_anthropic_loose_drops_root_combinators(self) -> None:
        document = {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
        }
        wire = projected(anthropic.WIRE.loose, document)
        assert "oneOf" not in wire_of(wire)
        assert [loss.action for loss in losses(wire, "oneOf")] == [Action.DROPPED]
        nested = {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}
        assert projected(anthropic.WIRE.loose, nested).wire_schema == nested

    def test_anthropic_strict_rules(self) -> None:
        document = {
            "type": "object",
            "properties": {
                "n": {"type": "integer", "minimum": 0, "maximum": 9, "multipleOf": 3},
                "s": {"type": "string", "minLength": 1, "maxLength": 5, "format": "uri", "pattern": "(a)\\1"},
                "xs": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 4},
                "e": {"enum": [1, "a", None, [1]]},
                "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "map": {"type": "object", "additionalProperties": {"type": "integer"}},
                "opt": {"type": "string"},
            },
            "required": ["n", "s", "xs", "e", "either", "map"],
        }
        wire = projected(anthropic.WIRE.strict, document)
        assert anthropic_strict_violations(wire.wire_schema) == []
        props = wire_of(wire)["properties"]
        assert props["s"] == {"type": "string", "format": "uri"}
        assert props["xs"]["minItems"] == 1
        assert "enum" not in props["e"]
        assert props["either"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
        # Unlike OpenAI, optional properties stay optional: nothing to restore.
        assert wire_of(wire)["required"] == ["n", "s", "xs", "e", "either", "map"]
        assert wire.nullable == frozenset()
        kinds = {(loss.keyword, loss.action) for loss in wire.losses}
        assert ("minItems", Action.WIDENED) in kinds
        assert ("pattern", Action.DROPPED) in kinds
        assert ("additionalProperties", Action.NARROWED) in kinds

    def test_anthropic_strict_refuses_recursion(self) -> None:
        document = {
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
        }
        assert "recursive" in refused(anthropic.WIRE.strict, document).describe()
        assert projected(anthropic.WIRE.loose, document).wire_schema == document

    def test_anthropic_strict_drops_allof_with_a_ref(self) -> None:
        document = {
            "type": "object",
            "properties": {"a": {"allOf": [{"$ref": "#/$defs/A"}, {"description": "x"}]}},
            "$defs": {"A": {"type": "string"}},
        }
        wire = projected(anthropic.WIRE.strict, document)
        assert anthropic_strict_violations(wire.wire_schema) == []
        assert losses(wire, "allOf")

    # --------------------------------------------------------------------------------------------------------
    # Gemini.

    def test_gemini_json_keeps_json_schema_but_lone_refs(self) -> None:
        document = {
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/A", "description": "kept"},
                "b": {"$ref": "#/$defs/A", "minLength": 2},
                "c": {"type": ["string", "null"], "maxLength": 3},
            },
            "$defs": {"A": {"type": "string"}},
        }
        wire = projected(google.WIRE.loose, document)
        props = wire_of(wire)["properties"]
        assert props["a"] == {"$ref": "#/$defs/A", "description": "kept"}
        assert props["b"] == {"anyOf": [{"$ref": "#/$defs/A"}], "minLength": 2}
        assert props["c"] == {"type": ["string", "null"], "maxLength": 3}

    def test_gemini_openapi_rules(self) -> None:
        document = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "title": "Args",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "examples": [["a"]]},
                "level": {"type": "integer", "enum": [1, 2, 3]},
                "kind": {"const": "fixed"},
                "maybe": {"anyOf": [{"type": "string", "description": "s"}, {"type": "null"}]},
                "pair": {"type": ["integer", "null"], "default": 1},
                "where": {"$ref": "#/$defs/Place"},
                "empty": {"type": "string", "enum": ["", "x"]},
            },
            "required": ["tags", "ghost"],
            "additionalProperties": False,
            "$defs": {
                "Place": {"type": "object", "properties": {"city": {"type": "string", "format": "uri"}}}
            },
        }
        wire = projected(GOOGLE_OPENAPI, document)
        assert gemini_openapi_violations(wire.wire_schema) == []
        props = wire_of(wire)["properties"]
        assert props["maybe"] == {"type": "STRING", "description": "s", "nullable": True}
        assert props["pair"] == {"type": "INTEGER", "nullable": True}
        assert props["kind"] == {"type": "STRING", "enum": ["fixed"]}
        assert props["where"] == {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}}
        assert props["empty"]["enum"] == ["x"]
        assert wire_of(wire)["required"] == ["tags"]
        dropped = {loss.keyword for loss in wire.losses if loss.action is Action.DROPPED}
        assert {
            "$schema",
            "title",
            "additionalProperties",
            "examples",
            "enum",
            "default",
            "format",
        } <= dropped

    def test_gemini_openapi_refuses_recursion_and_untyped_nodes(self) -> None:
        recursive = {
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
        }
        error = refused(GOOGLE_OPENAPI, recursive)
        assert error.keyword == "$ref"
        assert "recursive" in error.reason
        assert refused(GOOGLE_OPENAPI, {"type": "object", "properties": {"x": {}}}).path == (
            "properties",
            "x",
        )
        assert refused(GOOGLE_OPENAPI, {"type": "object", "properties": {"x": {"$ref": "#/nowhere"}}})

    def test_gemini_validated_subset(self) -> None:
        document = {
            "type": "object",
            "properties": {"x": {"type": "string", "minLength": 1}, "y": {"oneOf": [{"type": "integer"}]}},
        }
        wire = projected(google.WIRE.strict, document)
        assert wire_of(wire)["properties"] == {"x": {"type": "string"}, "y": {"anyOf": [{"type": "integer"}]}}

    # --------------------------------------------------------------------------------------------------------
    # Roots every provider refuses, and restore.

    @pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
    def test_root_must_describe_an_object(self, profile: Profile) -> None:
        assert refused(profile, {"type": "string"}).keyword == "type"
        assert refused(profile, False).path == ()
        wire = projected(profile, {"properties": {"a": {"type": "string"}}})
        assert wire_of(wire)["type"] in ("object", "OBJECT")

    def test_restore_removes_only_nulls_strict_mode_introduced(self) -> None:
        document = {
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "b": {"type": ["string", "null"]},
                "inner": {"type": "object", "properties": {"c": {"type": "integer"}}},
                "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "maybe": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]},
            },
            "$defs": {"Item": {"type": "object", "properties": {"d": {"type": "string"}}}},
        }
        wire = projected(openai_responses.WIRE.strict, document)
        sent: Value = {
            "a": None,
            "b": None,
            "inner": {"c": None},
            "items": [{"d": None}, {"d": "x"}],
            "maybe": {"d": None},
        }
        assert wire.restore(sent) == {"b": None, "inner": {}, "items": [{}, {"d": "x"}], "maybe": {}}
        assert isinstance(sent, dict)
        assert sent["a"] is None  # the input is not changed
        loose = projected(openai_responses.WIRE.loose, document)
        assert loose.restore(sent) is sent

    @given(json_values())
    def test_restore_never_raises(self, value: Value) -> None:
        wire = projected(
            openai_responses.WIRE.strict, {"type": "object", "properties": {"a": {"type": "string"}}}
        )
        wire.restore(value)


# ---------------------------------------------------------------------------------------------------------
# Properties: never raise; a strict projection that succeeds passes the provider's rules.

_names = st.sampled_from(["a", "b", "c"])
_leaf = st.sampled_from(
    [
        {},
        True,
        False,
        {"type": "string", "minLength": 1, "format": "uri"},
        {"type": "integer", "minimum": 0},
        {"type": ["string", "null"]},
        {"enum": ["x", 1, None]},
        {"const": "k"},
        {"type": "array"},
        {"$ref": "#/$defs/a"},
        {"$ref": "#/$defs/b", "description": "d"},
        {"$ref": "#"},
        {"type": "string", "pattern": "(?=a)"},
        {"description": "untyped"},
    ]
)


def _combine(children: st.SearchStrategy[Value]) -> st.SearchStrategy[Value]:
    return st.one_of(
        st.builds(
            lambda props, required, extra: {
                "type": "object",
                "properties": props,
                "required": required,
                **({"additionalProperties": extra} if extra is not None else {}),
            },
            st.dictionaries(_names, children, max_size=3),
            st.lists(_names, unique=True, max_size=3),
            st.none() | st.booleans() | children,
        ),
        st.builds(lambda items: {"type": "array", "items": items, "minItems": 2}, children),
        st.builds(lambda branches: {"anyOf": branches}, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda branches: {"oneOf": branches}, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda branches: {"allOf": branches}, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda inner: {"not": inner}, children),
    )


schemas = st.builds(
    lambda root, defs: {**root, "$defs": defs} if isinstance(root, dict) else root,
    st.recursive(_leaf, _combine, max_leaves=12),
    st.dictionaries(_names, st.recursive(_leaf, _combine, max_leaves=4), max_size=2),
)


_moving_schemas = st.builds(
    lambda root, defs: {**root, "$defs": defs} if isinstance(root, dict) else root,
    st.recursive(
        _leaf | st.sampled_from([{"type": ["string", "integer", "null"]}, {"type": "object"}]),
        lambda children: (
            _combine(children)
            | st.builds(
                lambda items: {"type": "array", "prefixItems": items},
                st.lists(children, min_size=1, max_size=3),
            )
            | st.builds(lambda branch: {"type": "object", "allOf": [branch]}, children)
        ),
        max_leaves=12,
    ),
    st.dictionaries(_names, st.recursive(_leaf, _combine, max_leaves=4), max_size=2),
)


def resolves(document: Value, path: Path) -> bool:
    """Whether ``path`` leads to a schema (an object or a boolean) in ``document``."""
    node = document
    for segment in path:
        if isinstance(node, dict) and isinstance(segment, str):
            if segment not in node:
                return False
            node = node[segment]
        elif isinstance(node, list) and isinstance(segment, int) and 0 <= segment < len(node):
            node = node[segment]
        else:
            return False
    return isinstance(node, dict | bool)


def spell_defaults(value: Value) -> Value:
    """``value`` with defaults spelt out on typed nodes: no meaning changes."""
    if isinstance(value, list):
        return [spell_defaults(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Value] = {
        key: spell_defaults(item) if key not in ("enum", "const", "required", "type") else item
        for key, item in value.items()
    }
    added = {
        "object": ("additionalProperties", True),
        "string": ("minLength", 0),
        "array": ("uniqueItems", False),
    }
    kind = value.get("type")
    if isinstance(kind, str) and kind in added:
        name, default = added[kind]
        out.setdefault(name, default)
    return out


def verdict(result: Result[Projection, ProjectionError]) -> str:
    if isinstance(result, Err):
        return "refused"
    return "keeps meaning" if result.value.qualifies else "changes meaning"


class TestProjectionProperties:
    """Projection of generated schemas never raises and reports every loss."""

    @given(schemas)
    def test_projection_of_schema_shaped_documents(self, document: Value) -> None:
        match from_value(document):
            case Ok(node):
                pass
            case Err():
                return
        for profile in PROFILES:
            result = project_schema(node, profile)
            if isinstance(result, Ok):
                render(result.value.wire_schema)
                result.value.restore({"a": None, "b": [None], "c": {"a": None}})
        match project_schema(node, openai_responses.WIRE.strict):
            case Ok(wire):
                assert openai_strict_violations(wire.wire_schema) == []
        match project_schema(node, anthropic.WIRE.strict):
            case Ok(wire):
                assert anthropic_strict_violations(wire.wire_schema) == []
        match project_schema(node, GOOGLE_OPENAPI):
            case Ok(wire):
                assert gemini_openapi_violations(wire.wire_schema) == []

    @given(json_values())
    def test_projection_never_raises_on_any_document(self, document: Value) -> None:
        parsed: Result[Schema, object] = from_value(document)
        if isinstance(parsed, Ok):
            for profile in PROFILES:
                project_schema(parsed.value, profile)

    def test_a_deep_inlining_is_refused_not_raised(self) -> None:
        defs: dict[str, Value] = {f"d{n}": {"$ref": f"#/$defs/d{n + 1}"} for n in range(400)}
        defs["d400"] = {"type": "string"}
        document = {"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs}
        assert "deeper" in refused(GOOGLE_OPENAPI, document).reason
        wide: dict[str, Value] = {
            f"d{n}": {
                "type": "object",
                "properties": {"l": {"$ref": f"#/$defs/d{n + 1}"}, "r": {"$ref": f"#/$defs/d{n + 1}"}},
            }
            for n in range(30)
        }
        wide["d30"] = {"type": "string"}
        document = {"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": wide}
        assert "nodes" in refused(GOOGLE_OPENAPI, document).reason

    @given(_moving_schemas)
    def test_reported_paths_resolve_in_the_original(self, document: Value) -> None:
        """
        Every loss and refusal names a node of the schema the user gave, however the projection moved it
        (oneOf sent as anyOf, allOf merged, a $ref inlined, prefixItems sent as items) (issue 23, item 7).
        """
        match from_value(document):
            case Ok(node):
                pass
            case Err():
                return
        for profile in PROFILES:
            match project_schema(node, profile):
                case Ok(wire):
                    paths = [loss.path for loss in wire.losses]
                case Err(error):
                    paths = [error.path]
            for path in paths:
                assert resolves(document, path), (profile.name, path)

    @given(_moving_schemas)
    def test_spelling_a_default_keeps_the_verdict(self, document: Value) -> None:
        """
        A schema and the same schema with defaults spelt out (``additionalProperties: true``,
        ``minLength: 0``, ``uniqueItems: false``) get the same verdict in every dialect: refused, keeps its
        meaning, or not (issue 23, item 7).
        """
        spelt = spell_defaults(document)
        match from_value(document), from_value(spelt):
            case Ok(plain), Ok(spelled):
                pass
            case _:
                return
        for profile in PROFILES:
            assert verdict(project_schema(plain, profile)) == verdict(project_schema(spelled, profile)), (
                profile.name
            )

    def test_a_loss_under_oneof_names_oneof(self) -> None:
        """OpenAI strict sends oneOf as anyOf; a loss inside a branch still names the user's oneOf."""
        branches: list[Value] = [{"type": "string"}, {"type": "integer"}, {"type": "string", "minLength": 2}]
        document: Value = {
            "type": "object",
            "properties": {"x": {"oneOf": branches}},
            "additionalProperties": False,
        }
        wire = projected(openai_responses.WIRE.strict, document)
        assert losses(wire, "minLength")[0].path == ("properties", "x", "oneOf", 2)
        referring: dict[str, Value] = {
            "type": "object",
            "properties": {"y": {"$ref": "#/$defs/X"}},
            "$defs": {"X": {"allOf": [document]}},
        }
        inlined = projected(GOOGLE_OPENAPI, referring)
        assert inlined.losses
        assert all(resolves(referring, loss.path) for loss in inlined.losses), inlined.losses

    def test_loss_texts_carry_paths_not_values(self) -> None:
        document = {"type": "object", "properties": {"x": {"type": "string", "default": "SECRET-VALUE"}}}
        wire = projected(openai_responses.WIRE.strict, document)
        texts = [loss.describe() for loss in wire.losses]
        assert any(text.startswith('$["properties"]["x"]: "default" dropped') for text in texts)
        assert not any("SECRET-VALUE" in text for text in texts)
        numbers = projected(
            openai_responses.WIRE.loose, {"type": "object", "properties": {"n": {"maximum": Decimal("0.1")}}}
        )
        assert render(numbers.wire_schema) == '{"type":"object","properties":{"n":{"maximum":0.1}}}'
