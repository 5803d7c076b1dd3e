"""
``prepare`` projects each tool once per dialect and assembles the body from each wire schema's text computed
once (``llm_wire._request._wired``): the bytes are those a full render of the body gives, on every wire and
strictness, over the MCP corpus and over generated schemas; the cache is bounded and goes with its tool.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llm_wire as rq
from llm_wire import contract, tool
from llm_wire._request import _wired
from llm_wire.message import Provider
from llm_wire.providers import WIRES
from llm_wire.providers.projection import Profile
from llm_wire.result import Err, Ok, unwrap
from llm_wire.schema import make
from llm_wire.tool import Tool
from llm_wire.value import Value, render

MCP = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "mcp-tools"

#: Every wire with each strictness, and Gemini's legacy dialect.
SETTINGS = [
    *((provider, strict, False) for provider in Provider for strict in rq.Strictness),
    (Provider.GOOGLE, rq.Strictness.OFF, True),
]


def _config(provider: Provider, strict: rq.Strictness, legacy: bool) -> rq.Config:
    made = rq.config(provider).with_strict_tools(strict)
    return made.with_legacy_schema(legacy) if legacy else made


def _declared(documents: list[tuple[str, str, Value]]) -> list[Tool]:
    tools = []
    for n, (name, description, document) in enumerate(documents):
        made = tool.from_json_schema(f"{name[:50]}_{n}", description, document)
        if isinstance(made, Ok):
            tools.append(made.value)
    return tools


def _agree(tools: list[Tool], config: rq.Config) -> None:
    """Cold and warm bodies are byte for byte a full render of the body, and each projection a fresh one."""
    request = rq.request("m", [rq.user("go")]).with_tools(tools)
    cold = rq.prepare(config, request)
    warm = rq.prepare(config, request)
    if not isinstance(cold, Ok):
        assert warm == cold  # a refusal is refused again, the same way
        return
    first, second = cold.value, unwrap(warm)
    assert first.body_json() == render(first.body)
    assert second.body_json() == render(second.body) == first.body_json()
    again = unwrap(rq.prepare(config, rq.request("m", [rq.user("go")]).with_tools(_copies(tools))))
    assert again.body_json() == first.body_json()  # new tools, new cache entries, the same bytes
    wire = config.wire
    for declared in first.declared:
        named = next(t for t in tools if t.name == declared.name)
        fresh = unwrap(wire.project_schema(named.schema, declared.strict, legacy=config.legacy_schema))
        assert declared.projection == fresh
        assert second.projections[declared.name] is declared.projection  # projected once, then reused


def _copies(tools: list[Tool]) -> list[Tool]:
    return [unwrap(tool.from_contract(t.name, t.description, t.contract)) for t in tools]


def _corpus() -> list[tuple[str, str, Value]]:
    return [
        (declared["name"], declared.get("description") or "", declared["inputSchema"])
        for path in sorted(MCP.glob("*.json"))
        for declared in json.loads(path.read_text(encoding="utf-8"))["tools"]
    ]


@pytest.mark.skipif(not MCP.is_dir(), reason=f"MCP corpus not found at {MCP} (../shared/corpora)")
@pytest.mark.parametrize(("provider", "strict", "legacy"), SETTINGS)
def test_the_mcp_corpus_body_is_the_full_render(
    provider: Provider, strict: rq.Strictness, legacy: bool
) -> None:
    corpus = _corpus()
    tools = _declared(corpus)
    assert len(tools) == len(corpus)
    if strict is rq.Strictness.ON:  # every tool strict: one at a time, since some have no strict form
        for one in tools[::7]:
            _agree([one], _config(provider, strict, legacy))
    else:
        _agree(tools, _config(provider, strict, legacy))


_NAMES = st.sampled_from(["a", "b", "c", "when", "é"])
_LEAVES = st.one_of(
    st.just({"type": "string"}),
    st.fixed_dictionaries({"type": st.just("string")}, optional={"maxLength": st.integers(0, 9)}),
    st.fixed_dictionaries({"type": st.just("integer")}, optional={"minimum": st.integers(-5, 5)}),
    st.fixed_dictionaries({"enum": st.lists(st.sampled_from(["x", 1, None, True]), min_size=1, unique=True)}),
    st.fixed_dictionaries(
        {"type": st.just(["number", "null"])}, optional={"description": st.text(max_size=8)}
    ),
    st.just({"type": "array", "items": {"type": "boolean"}}),
    st.just(True),
)
_SCHEMAS = st.recursive(
    _LEAVES,
    lambda inner: st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.dictionaries(_NAMES, inner, max_size=3)},
        optional={
            "required": st.lists(_NAMES, max_size=2, unique=True),
            "additionalProperties": st.booleans(),
            "anyOf": st.lists(inner, min_size=1, max_size=2),
        },
    ),
    max_leaves=6,
)


@settings(max_examples=60, suppress_health_check=list(HealthCheck), deadline=None)
@given(
    st.lists(
        _SCHEMAS.filter(lambda s: isinstance(s, dict) and s.get("type") == "object"), min_size=1, max_size=4
    ),
    st.sampled_from(SETTINGS),
)
def test_generated_tools_body_is_the_full_render(schemas: list[Any], setting: tuple[Any, ...]) -> None:
    tools = _declared([("t", "A tool.", schema) for schema in schemas])
    if tools:
        _agree(tools, _config(*setting))


class TestTheCache:
    def test_one_entry_per_dialect_reused(self) -> None:
        made = unwrap(tool.from_json_schema("t", "d", {"type": "object"}))
        loose, strict = WIRES[Provider.OPENAI_CHAT].loose, WIRES[Provider.OPENAI_CHAT].strict
        first = _wired.projected(made, loose)
        assert _wired.projected(made, loose) is first
        assert _wired.projected(made, strict) is not first
        assert _wired.projected(made, strict).profile is strict

    def test_a_tool_keeps_at_most_per_tool_dialects(self) -> None:
        made = unwrap(tool.from_json_schema("t", "d", {"type": "object"}))
        profiles = [Profile(name=f"p{n}") for n in range(_wired.PER_TOOL + 2)]
        entries = [_wired.projected(made, profile) for profile in profiles]
        assert _wired.projected(made, profiles[-1]) is entries[-1]
        assert _wired.projected(made, profiles[0]) is not entries[0]  # dropped, so computed again

    def test_the_entries_go_with_their_tool(self) -> None:
        made = unwrap(tool.from_json_schema("t", "d", {"type": "object"}))
        _wired.projected(made, WIRES[Provider.ANTHROPIC].loose)
        gc.collect()  # tools earlier tests left in reference cycles go first, so only this one is counted
        before = len(_wired._cache)
        del made
        gc.collect()
        assert len(_wired._cache) == before - 1

    def test_a_schema_value_that_is_not_json_is_refused_where_it_sits(self) -> None:
        schema = make(("type", "object"), ("default", {"a": [float("nan")]}))
        made = unwrap(tool.from_contract("t", "d", unwrap(contract.from_schema(schema))))
        request = rq.request("m", [rq.user("go")]).with_tools([made])
        for _ in range(2):  # cold, then from the cache
            refused = rq.prepare(rq.config(Provider.OPENAI_CHAT), request)
            where = ("tools", 0, "function", "parameters", "default", "a", 0)
            assert refused == Err(rq.NotEncodable(where, "a JSON number must be finite"))
