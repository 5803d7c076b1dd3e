"""
Provider limits before sending (issue 26, item 3): each wire's table (``Wire.limits``, ``Wire.name_rule``)
with its sources, ``prepare`` refusing what the provider is known to refuse with a typed
``OverProviderLimit``, and Anthropic's root combinators rewritten where that is exact and otherwise dropped
(and still enforced).
"""

from __future__ import annotations

import ast
import inspect
import re
from typing import Any

import jsonschema
import pytest
from attrs import evolve

import llm_wire as rq
from llm_wire.admission import InvalidArguments, admit
from llm_wire.message import Provider, ToolCall
from llm_wire.providers import (
    WIRES,
    OverProviderLimit,
    ProviderLimit,
    ToolLimits,
    anthropic,
    google,
    openai_chat,
    openai_responses,
)
from llm_wire.providers.projection import Action, Profile
from llm_wire.result import Err, Ok, unwrap
from llm_wire.schema import from_value
from llm_wire.tool import Tool, ToolCallChecks, from_json_schema
from llm_wire.value import Value, render

SIMPLE: Value = {"type": "object", "properties": {"q": {"type": "string"}}}


def make_tool(name: str, document: Any = SIMPLE) -> Tool:
    return unwrap(from_json_schema(name, "A tool.", document))


def tools(count: int) -> list[Tool]:
    return [make_tool(f"tool_{n}") for n in range(count)]


def prepared(config: rq.Config, declared: list[Tool]) -> Any:
    return rq.prepare(config, rq.request("model-x", [rq.user("Hi")]).with_tools(declared))


def refusal(config: rq.Config, declared: list[Tool]) -> OverProviderLimit:
    result = prepared(config, declared)
    assert isinstance(result, Err), result
    assert isinstance(result.error, OverProviderLimit), result.error
    return result.error


def input_schema(config: rq.Config, tool: Tool) -> Any:
    """The schema ``tool`` is sent with to Anthropic."""
    body: Any = unwrap(prepared(config, [tool])).body
    return body["tools"][0]["input_schema"]


# ---------------------------------------------------------------------------------------------------------
# The tool count.


class TestToolCount:
    @pytest.mark.parametrize("config", [rq.Config.openai_responses(), rq.Config.openai_chat()], ids=str)
    def test_openai_takes_128_tools_and_refuses_129(self, config: rq.Config) -> None:
        assert isinstance(prepared(config, tools(128)), Ok)
        error = refusal(config, tools(129))
        assert error == OverProviderLimit(config.provider, ProviderLimit.TOOLS, None, 128, 129)
        assert str(error) == (
            f"{config.provider.value} takes at most 128 tools in one request; this one declares 129 "
            "(limit tools)"
        )

    def test_gemini_takes_512_function_declarations_and_refuses_513(self) -> None:
        config = rq.Config.google()
        assert isinstance(prepared(config, tools(512)), Ok)
        error = refusal(config, tools(513))
        assert error == OverProviderLimit(Provider.GOOGLE, ProviderLimit.TOOLS, None, 512, 513)
        assert "google takes at most 512 tools" in str(error)

    def test_anthropic_documents_no_tool_count(self) -> None:
        assert anthropic.WIRE.limits.tools is None
        assert isinstance(prepared(rq.Config.anthropic(), tools(600)), Ok)

    def test_the_text_never_repeats_a_tool_name(self) -> None:
        error = refusal(rq.Config.openai_chat(), tools(200))
        assert "tool_" not in str(error)


# ---------------------------------------------------------------------------------------------------------
# Tool names.


class TestNames:
    def test_gemini_wants_a_letter_or_underscore_first(self) -> None:
        """A name every other provider takes; Gemini's rule wants a letter or ``_`` first."""
        leading_digit = make_tool("9lives")
        for config in (rq.Config.openai_responses(), rq.Config.openai_chat(), rq.Config.anthropic()):
            assert isinstance(prepared(config, [leading_digit]), Ok)
        error = refusal(rq.Config.google(), [make_tool("ok"), leading_digit])
        assert error.limit is ProviderLimit.NAME
        assert error.tool == "9lives"
        assert error.allowed == google.WIRE.name_rule.pattern
        assert str(error).startswith("tool 9lives: google takes only tool names matching ")

    def test_each_rule_is_its_documentation(self) -> None:
        """OpenAI and Anthropic: ``[a-zA-Z0-9_-]{1,64}``; Gemini: a letter or ``_``, then ``.:`` too, 128."""
        for wire in (openai_responses.WIRE, openai_chat.WIRE, anthropic.WIRE):
            rule = wire.name_rule
            assert [bool(rule.fullmatch(name)) for name in ("a" * 64, "9-lives_", "a" * 65, "a.b", "")] == [
                True,
                True,
                False,
                False,
                False,
            ]
        rule = google.WIRE.name_rule
        assert [bool(rule.fullmatch(name)) for name in ("a" * 128, "_a.b:c-d", "a" * 129, "9a", "-a")] == [
            True,
            True,
            False,
            False,
            False,
        ]


# ---------------------------------------------------------------------------------------------------------
# Schema depth, on a wire that states one (no built-in wire does: Gemini publishes none).


def deep(levels: int) -> Value:
    """An object schema whose properties nest ``levels`` deep."""
    node: Value = {"type": "string"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"a": node}}
    return node


class TestSchemaDepth:
    def test_projection_depth_counts_subschema_levels(self) -> None:
        def depth(document: Value, *, legacy: bool = False) -> int:
            return unwrap(
                google.WIRE.project_schema(unwrap(from_value(document)), False, legacy=legacy)
            ).depth

        assert depth({"type": "object"}) == 0
        assert depth(deep(1)) == 1
        assert depth(deep(4)) == 4
        items: Value = {
            "type": "object",
            "properties": {"xs": {"type": "array", "items": {"type": "integer"}}},
        }
        assert depth(items) == 2
        chained: Value = {
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/A"}},
            "$defs": {
                "A": {"type": "object", "properties": {"q": {"$ref": "#/$defs/B"}}},
                "B": {"type": "object", "properties": {"x": {"type": "string"}}},
            },
        }
        # Kept as $defs, each definition nests 2 deep; inlined (the legacy dialect), p.q.x nests 3, however
        # many references the walk followed to write it.
        assert depth(chained) == 2
        assert depth(chained, legacy=True) == 3

    def test_a_wire_stating_a_depth_refuses_a_deeper_tool(self) -> None:
        wire = evolve(google.WIRE, limits=ToolLimits(tools=512, schema_depth=3))
        config = evolve(rq.Config.google(), wire=wire)
        assert isinstance(prepared(config, [make_tool("shallow", deep(3))]), Ok)
        error = refusal(config, [make_tool("shallow", deep(3)), make_tool("nested", deep(4))])
        assert error == OverProviderLimit(Provider.GOOGLE, ProviderLimit.SCHEMA_DEPTH, "nested", 3, 4)
        assert str(error) == (
            "tool nested: google takes a tool schema nested at most 3 deep; this one nests 4 "
            "(limit schema_depth)"
        )


# ---------------------------------------------------------------------------------------------------------
# Anthropic: no oneOf, allOf or anyOf at the root of input_schema.

#: One branch adds a bounded property, the other requires the root's: merged exactly.
ALL_OF: dict[str, Value] = {
    "type": "object",
    "properties": {"a": {"type": "string"}},
    "allOf": [
        {"properties": {"b": {"type": "integer", "minimum": 1}}, "required": ["b"]},
        {"required": ["a"]},
    ],
}
#: Branches that give one property two schemas: no exact merge.
CLASHING_ALL_OF: dict[str, Value] = {
    "type": "object",
    "properties": {"n": {"type": "integer"}},
    "allOf": [{"properties": {"n": {"minimum": 5}}}],
}
#: Exactly one of a and b: no way to say it at the root without a combinator.
ONE_OF: dict[str, Value] = {
    "type": "object",
    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
    "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
}
#: A oneOf of one branch is that branch.
ONE_BRANCH_ONE_OF: dict[str, Value] = {
    "type": "object",
    "properties": {"a": {"type": "string"}},
    "oneOf": [{"properties": {"b": {"type": "boolean"}}, "required": ["b"]}],
}
#: A tagged union, as codecs write one: today's rewrite (sent as an object, enforced on admission) stays.
ANY_OF: dict[str, Value] = {
    "type": "object",
    "anyOf": [
        {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
        {
            "type": "object",
            "properties": {"kind": {"const": "b"}, "n": {"type": "integer"}},
            "required": ["kind"],
        },
    ],
}

INSTANCES: list[Value] = [
    {},
    {"a": "x"},
    {"b": 1},
    {"a": "x", "b": 1},
    {"a": "x", "b": 0},
    {"a": 1, "b": 1},
    {"a": "x", "b": True},
    {"b": True},
    {"a": "x", "b": "y"},
    {"a": "x", "c": None},
    {"n": 3},
    {"n": 7},
]


def losses(config: rq.Config, tool: Tool, keyword: str) -> list[Action]:
    declared = unwrap(prepared(config, [tool])).declared[0]
    return [loss.action for loss in declared.projection.losses if loss.keyword == keyword]


@pytest.mark.parametrize("strictness", [rq.Strictness.OFF, rq.Strictness.ON], ids=["loose", "strict"])
class TestAnthropicRootCombinators:
    def config(self, strictness: rq.Strictness) -> rq.Config:
        return rq.Config.anthropic().with_strict_tools(strictness)

    def test_all_of_is_merged_into_the_root_exactly(self, strictness: rq.Strictness) -> None:
        config = self.config(strictness)
        tool = make_tool("merge", ALL_OF)
        sent = input_schema(config, tool)
        assert not {"anyOf", "oneOf", "allOf"} & set(sent)
        assert sent["required"] == ["b", "a"]
        assert set(sent["properties"]) == {"a", "b"}
        assert losses(config, tool, "allOf") == [Action.REWRITTEN]
        if strictness is rq.Strictness.OFF:
            # The loose wire schema accepts exactly what the original does.
            for instance in INSTANCES:
                assert jsonschema.Draft202012Validator(sent).is_valid(instance) == (
                    jsonschema.Draft202012Validator(ALL_OF).is_valid(instance)
                ), instance

    def test_one_of_of_one_branch_is_that_branch(self, strictness: rq.Strictness) -> None:
        config = self.config(strictness)
        tool = make_tool("one", ONE_BRANCH_ONE_OF)
        sent = input_schema(config, tool)
        assert "oneOf" not in sent
        assert losses(config, tool, "oneOf") == [Action.REWRITTEN]
        if strictness is rq.Strictness.OFF:
            for instance in INSTANCES:
                assert jsonschema.Draft202012Validator(sent).is_valid(instance) == (
                    jsonschema.Draft202012Validator(ONE_BRANCH_ONE_OF).is_valid(instance)
                ), instance

    @pytest.mark.parametrize(
        ("document", "keyword", "bad"),
        [(ONE_OF, "oneOf", {"a": "x", "b": "y"}), (CLASHING_ALL_OF, "allOf", {"n": 3})],
        ids=["oneOf", "allOf"],
    )
    def test_an_inexact_combinator_is_dropped_and_still_enforced(
        self, strictness: rq.Strictness, document: Value, keyword: str, bad: Value
    ) -> None:
        """Not sent (the API would refuse the request), reported as a loss, and enforced on admission."""
        config = self.config(strictness)
        tool = make_tool("kept", document)
        sent = input_schema(config, tool)
        assert keyword not in sent
        assert losses(config, tool, keyword) == [Action.DROPPED]
        call = ToolCall("c1", "kept", render(bad))
        admitted = admit([call], {"kept": tool}, ToolCallChecks.REPORT)
        assert isinstance(admitted, Ok)
        assert [type(issue) for issue in admitted.value.issues] == [InvalidArguments]

    def test_a_root_any_of_of_objects_is_still_sent_as_an_object(self, strictness: rq.Strictness) -> None:
        config = self.config(strictness)
        tool = make_tool("union", ANY_OF)
        sent = input_schema(config, tool)
        assert sent["type"] == "object"
        assert "anyOf" not in sent
        assert losses(config, tool, "anyOf") == [Action.DROPPED]


def test_losses_inside_merged_branches_name_their_place_in_the_original() -> None:
    """A loss in a merged ``allOf`` branch points into that branch, in every dialect that merges it."""
    schema = unwrap(from_value(ALL_OF))
    for wire in (anthropic.WIRE, openai_chat.WIRE, google.WIRE):
        for strict in (False, True):
            for loss in unwrap(wire.project_schema(schema, strict)).losses:
                node: Any = ALL_OF
                for segment in loss.path:
                    node = node[segment]
                assert isinstance(node, dict), (wire.provider, strict, loss)
    # Strict OpenAI makes each optional property required and nullable: each loss where its property is
    # written, the root's a at the root, the branch's b in the branch.
    optional: Value = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "allOf": [{"properties": {"b": {"type": "integer", "minimum": 1}}}],
    }
    losses = unwrap(openai_chat.WIRE.project_schema(unwrap(from_value(optional)), True)).losses
    assert sorted(
        (loss.path, loss.keyword) for loss in losses if loss.keyword in ("required", "minimum")
    ) == [
        (("allOf", 0, "properties", "b"), "required"),
        (("properties", "a"), "required"),
    ]


def test_a_wire_sending_root_combinators_to_anthropic_is_refused() -> None:
    """The table is checked on what is sent: a profile that keeps a root ``oneOf`` is refused, typed."""
    keeping = evolve(anthropic.WIRE, loose=Profile(name="keeps-everything"))
    config = evolve(rq.Config.anthropic(), wire=keeping).with_strict_tools(rq.Strictness.OFF)
    error = refusal(config, [make_tool("either", ONE_OF)])
    assert error == OverProviderLimit(
        Provider.ANTHROPIC, ProviderLimit.ROOT_COMBINATORS, "either", None, "oneOf"
    )
    assert (
        str(error)
        == "tool either: anthropic refuses oneOf at the root of a tool schema (limit root_combinators)"
    )


# ---------------------------------------------------------------------------------------------------------
# Every figure cites its source.

_SOURCE = re.compile(r"https?://|[\w.-]+\.(?:com|dev)/|\w+\.py\b|[\w-]+/[\w.-]+#\d+")


def _comment_before(lines: list[str], index: int) -> str:
    """The comment lines directly above line ``index`` (0-based), joined."""
    found = []
    n = index - 1
    while n >= 0 and lines[n].lstrip().startswith("#"):
        found.append(lines[n])
        n -= 1
    return "\n".join(reversed(found))


MODULES = {
    Provider.OPENAI_RESPONSES: openai_responses,
    Provider.OPENAI_CHAT: openai_chat,
    Provider.ANTHROPIC: anthropic,
    Provider.GOOGLE: google,
}


@pytest.mark.parametrize("provider", list(WIRES), ids=lambda p: p.value)
def test_every_limit_in_the_table_cites_its_source(provider: Provider) -> None:
    """Each figure set in a wire's ``_LIMITS``, and its ``_NAME_RULE``, has a comment naming its source."""
    source = inspect.getsource(MODULES[provider])
    lines = source.splitlines()
    tree = ast.parse(source)
    checked = []
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not isinstance(node.targets[0], ast.Name):
            continue
        name = node.targets[0].id
        if name == "_NAME_RULE":
            assert _SOURCE.search(_comment_before(lines, node.lineno - 1)), f"{provider.value}: {name}"
            checked.append(name)
        if name == "_LIMITS":
            assert isinstance(node.value, ast.Call)
            for keyword in node.value.keywords:
                cited = _comment_before(lines, keyword.value.lineno - 1)
                cited += _comment_before(lines, node.lineno - 1)
                assert _SOURCE.search(cited), f"{provider.value}: {keyword.arg}"
                checked.append(keyword.arg or "")
    assert "_NAME_RULE" in checked
    set_fields = {
        field for field in ("tools", "schema_depth") if getattr(WIRES[provider].limits, field) is not None
    }
    set_fields |= {"root_combinators"} if WIRES[provider].limits.root_combinators else set()
    assert set_fields <= set(checked)


def test_make_demo_shows_each_provider_on_600_tools(capsys: pytest.CaptureFixture[str]) -> None:
    """``make demo``: 600 tools refused by both OpenAI APIs and Gemini, sent to Anthropic."""
    from llm_wire.demo import providers as demo

    demo._limits()
    lines = capsys.readouterr().out.splitlines()[2:]
    assert lines == [
        "  openai-responses, 600 tools: refused: openai-responses takes at most 128 tools in one request;"
        " this one declares 600 (limit tools)",
        "  openai-chat, 600 tools: refused: openai-chat takes at most 128 tools in one request;"
        " this one declares 600 (limit tools)",
        "  anthropic, 600 tools: sent (the API documents no tool count)",
        "  google, 600 tools: refused: google takes at most 512 tools in one request; this one declares 600"
        " (limit tools)",
    ]
