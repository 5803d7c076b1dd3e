"""
The request facade, ``Config``, ``prepare`` and its errors, and each provider's history encoding.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import json_values

import llm_wire as rq
from llm_wire import codec
from llm_wire.admission import InvalidArguments, SchemaRejected, admit
from llm_wire.error import LimitExceeded
from llm_wire.message import (
    AssistantTurn,
    Message,
    Provider,
    SystemMessage,
    ToolCall,
    ToolResult,
    UserMessage,
)
from llm_wire.providers import InvalidReplay, UnsupportedSetting
from llm_wire.providers.google import GoogleSchema
from llm_wire.result import Err, Ok, unwrap
from llm_wire.schema import Schema, from_value
from llm_wire.tool import DuplicateToolName, Tool, ToolCallChecks, from_json_schema
from llm_wire.value import Value, parse


def make_tool(name: str, document: Any, description: str = "") -> Tool:
    return unwrap(from_json_schema(name, description, document))


WEATHER = make_tool(
    "get_weather",
    {
        "type": "object",
        "properties": {"city": {"type": "string", "minLength": 1}, "unit": {"enum": ["c", "f"]}},
        "required": ["city"],
    },
    "Weather for a city",
)
TIME = make_tool("get_time", {"type": "object", "properties": {"zone": {"type": "string"}}})

#: A closed output schema: strict keeps its meaning.
CITY: Value = {"type": "object", "properties": {"city": {"type": "string"}}, "additionalProperties": False}

CALL = ToolCall("call_1", "get_weather", '{"city":  "Paris"}')
CALL_2 = ToolCall("call_2", "get_time", "{}")
CONFIGS = [rq.Config.openai_responses(), rq.Config.openai_chat(), rq.Config.anthropic(), rq.Config.google()]


def conversation(*extra: Message) -> rq.Request:
    req = rq.request("model-x", [rq.system("Be brief."), rq.user("Weather in Paris?")])
    return req.with_tools([WEATHER, TIME]).with_messages(*extra)


def body(config: rq.Config, req: rq.Request) -> Any:
    return unwrap(rq.prepare(config, req)).body


def payload(prepared: rq.Prepared) -> Any:
    """The body, for indexing in assertions."""
    return prepared.body


def error(config: rq.Config, req: rq.Request) -> Any:
    result = rq.prepare(config, req)
    assert isinstance(result, Err), result
    return result.error


# ---------------------------------------------------------------------------------------------------------
# Facade and Config.


class TestBuilders:
    """Request builders return copies and check their settings."""

    def test_builders_return_copies(self) -> None:
        base = rq.request("m")
        built = base.with_max_tokens(10).with_temperature(0.2).with_top_p(1).with_stop("END")
        assert base == rq.Request("m")
        assert built.temperature == Decimal("0.2")
        assert built.top_p == 1
        assert built.stop == ("END",)
        assert base.with_messages(rq.user("a")).messages == (UserMessage("a"),)
        assert base.with_tools([WEATHER]).with_tools([TIME]).tools == (TIME,)
        assert rq.assistant("hi") == AssistantTurn(text="hi")
        turn = AssistantTurn("x", (CALL,), Provider.ANTHROPIC)
        assert rq.assistant(turn) is turn
        assert rq.tool_result(CALL, "sunny", is_error=True) == ToolResult(
            "call_1", "sunny", True, "get_weather"
        )
        assert rq.system("s") == SystemMessage("s")

    def test_config_setters(self) -> None:
        config = rq.Config.openai_chat()
        assert config.provider is Provider.OPENAI_CHAT
        assert config.strict is rq.Strictness.OFF
        assert config.with_strict_tools(True).strict is rq.Strictness.ON
        assert config.with_strict_tools(rq.Strictness.AUTO).strict is rq.Strictness.AUTO
        raised = config.with_limit(rq.Limit.REQUEST_BYTES, 10)
        assert raised.limit(rq.Limit.REQUEST_BYTES) == 10
        assert config.limit(rq.Limit.REQUEST_BYTES) == 1024 * 1024
        assert rq.config(Provider.ANTHROPIC).default_max_tokens == 4096
        assert (
            rq.config(Provider.GOOGLE).with_google_schema(GoogleSchema.OPENAPI).google_schema.value
            == "parameters"
        )
        assert config.checks is ToolCallChecks.REJECT
        assert config.with_tool_call_checks(ToolCallChecks.REPORT).checks is ToolCallChecks.REPORT
        assert config.admission_limits().calls_per_turn == 64

    # --------------------------------------------------------------------------------------------------------
    # prepare: every error variant.

    @pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.provider.value)
    def test_prepare_errors(self, config: rq.Config) -> None:
        assert error(config, conversation().with_tools([WEATHER, WEATHER])) == DuplicateToolName(
            "get_weather"
        )
        assert error(config, conversation().with_tool_choice(rq.UseTool("nope"))) == rq.UnknownToolChoice(
            "nope"
        )
        assert isinstance(error(config, rq.request(" ")), rq.InvalidSetting)
        assert error(config, conversation(ToolResult("call_1", "x"))) == rq.OrphanResult(2, "call_1")
        turn = AssistantTurn("", (CALL, CALL_2))
        missing = error(config, conversation(turn, rq.tool_result(CALL, "ok")))
        assert missing == rq.MissingResult(2, "call_2", "get_time")
        assert missing.describe() == "message 2: a call to get_time has no result"
        twice = conversation(turn, rq.tool_result(CALL, "a"), rq.tool_result(CALL, "b"))
        assert error(config, twice) == rq.DuplicateResult(4, "call_1")
        stray = conversation(
            turn, rq.tool_result(CALL, "a"), ToolResult("other", "b"), rq.tool_result(CALL_2, "c")
        )
        assert error(config, stray) == rq.OrphanResult(4, "other")
        same_id = AssistantTurn("", (CALL, ToolCall("call_1", "get_time", "{}")))
        assert error(config, conversation(same_id, rq.tool_result(CALL, "a"))) == rq.DuplicateCallId(
            2, "call_1"
        )
        small = config.with_limit(rq.Limit.REQUEST_BYTES, 100)
        too_large = error(small, conversation())
        assert isinstance(too_large, rq.RequestTooLarge)
        assert too_large.limit is rq.Limit.REQUEST_BYTES
        assert too_large.value == 100
        assert too_large.measured > 100
        assert "Config.with_limit(Limit.REQUEST_BYTES, n)" in too_large.describe()
        per_call = config.with_limit(rq.Limit.ARGUMENT_BYTES_PER_CALL, 5)
        answered = conversation(AssistantTurn("", (CALL,)), rq.tool_result(CALL, "ok"))
        assert error(per_call, answered) == rq.RequestTooLarge(rq.Limit.ARGUMENT_BYTES_PER_CALL, 5, 18)
        assert isinstance(error(config.with_limit(rq.Limit.CALLS_PER_TURN, 0), answered), rq.InvalidSetting)
        untyped = make_tool("t", {"type": "object", "properties": {"x": {}, "again": {"$ref": "#"}}})
        strict = config.with_strict_tools(True).with_google_schema(GoogleSchema.OPENAPI)
        unsupported = error(strict, rq.request("m").with_tools([untyped]))
        assert isinstance(unsupported, rq.UnsupportedSchema)
        assert unsupported.describe().startswith("tool t: $")

    def test_errors_never_repeat_ids_arguments_or_contents(self) -> None:
        secret = ToolCall("SECRET-ID", "get_weather", '{"city":"SECRET-CITY"}')
        cases = [
            conversation(ToolResult("SECRET-ID", "SECRET-CONTENT")),
            conversation(AssistantTurn("", (secret,))),
            conversation(AssistantTurn("", (secret, secret))),
        ]
        for req in cases:
            text = error(rq.Config.openai_chat(), req).describe()
            assert "SECRET" not in text

    def test_settings_are_checked(self) -> None:
        config = rq.Config.openai_chat()
        assert error(config, conversation().with_max_tokens(0)) == rq.InvalidSetting(
            "max_tokens", "must be a positive integer"
        )
        assert error(config, conversation().with_temperature(float("nan"))).setting == "temperature"
        assert error(config, conversation().with_top_p(1.5)).setting == "top_p"
        assert error(config, conversation().with_stop("")).setting == "stop"
        assert error(config, conversation().with_output("bad name", _Codec(None))).setting == "output name"
        assert error(config, conversation().with_output("out", _Codec(None))) == rq.UnsupportedOutput(
            "out", None
        )
        assert error(rq.Config.openai_responses(), conversation().with_stop("END")) == UnsupportedSetting(
            "stop", Provider.OPENAI_RESPONSES, "the Responses API takes no stop sequences"
        )
        no_parallel = conversation().with_parallel_tool_calls(False)
        assert isinstance(error(rq.Config.google(), no_parallel), UnsupportedSetting)
        no_tokens = rq.Config.anthropic().with_default_max_tokens(None)
        assert error(no_tokens, conversation()).setting == "max_tokens"
        required = rq.request("m", [rq.user("x")]).with_tool_choice(rq.ToolChoice.REQUIRED)
        assert error(config, required).setting == "tool_choice"


def _Codec(schema: Schema | None) -> codec.Codec[Any]:
    """A pass-through codec with ``schema`` (``None``: a codec without one)."""
    return codec.custom(Ok, Ok, schema)


# ---------------------------------------------------------------------------------------------------------
# Encoding: tools, choice, settings, output.


class TestChatBody:
    """The Chat Completions body."""

    def test_openai_chat_body(self) -> None:
        req = conversation().with_tool_choice(rq.ToolChoice.REQUIRED)
        req = req.with_parallel_tool_calls(False).with_max_tokens(50).with_stop("END")
        sent = body(rq.Config.openai_chat().with_stream(True), req)
        assert sent["messages"][:2] == [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Paris?"},
        ]
        assert sent["tools"][0] == {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city",
                "parameters": WEATHER.schema and _value(WEATHER.schema),
            },
        }
        assert sent["tool_choice"] == "required"
        assert sent["parallel_tool_calls"] is False
        assert sent["max_completion_tokens"] == 50
        assert sent["stop"] == ["END"]
        assert sent["stream"] is True
        assert sent["stream_options"] == {"include_usage": True}


def _value(schema: Schema) -> Value:
    from llm_wire.schema import to_value

    return to_value(schema)


class TestStrictTools:
    """Strict tools, their projection and its restore."""

    def test_strict_tools_and_restore(self) -> None:
        prepared = unwrap(rq.prepare(rq.Config.openai_responses().with_strict_tools(True), conversation()))
        tool = payload(prepared)["tools"][0]
        assert tool["strict"] is True
        assert tool["parameters"]["required"] == ["city", "unit"]
        assert prepared.strict == {"get_weather": True, "get_time": True}
        assert prepared.projections["get_weather"].nullable == {("properties", "unit")}
        restore = prepared.adjust["get_weather"]
        assert restore({"city": "Paris", "unit": None}) == {"city": "Paris"}
        losses = [loss.keyword for loss in prepared.projections["get_weather"].losses]
        assert "minLength" in losses

    def test_auto_strictness_picks_strict_only_where_meaning_is_kept(self) -> None:
        closed = make_tool(
            "get_zone",
            {"type": "object", "properties": {"zone": {"type": "string"}}, "additionalProperties": False},
        )
        auto = rq.Config.openai_chat().with_strict_tools(rq.Strictness.AUTO)
        prepared = unwrap(rq.prepare(auto, conversation().with_tools([WEATHER, TIME, closed])))
        # get_weather's minLength would be dropped in strict mode, and get_time's open object closed (a
        # closed wire narrows it, spelt "additionalProperties": true or not); get_zone only gains rewrites.
        assert prepared.strict == {"get_weather": False, "get_time": False, "get_zone": True}
        assert "strict" not in payload(prepared)["tools"][0]["function"]
        assert "strict" not in payload(prepared)["tools"][1]["function"]
        assert payload(prepared)["tools"][2]["function"]["strict"] is True

    def test_tool_choice_per_provider(self) -> None:
        named = conversation().with_tool_choice(rq.UseTool("get_time"))
        assert body(rq.Config.openai_responses(), named)["tool_choice"] == {
            "type": "function",
            "name": "get_time",
        }
        assert body(rq.Config.openai_chat(), named)["tool_choice"] == {
            "type": "function",
            "function": {"name": "get_time"},
        }
        assert body(rq.Config.anthropic(), named)["tool_choice"] == {"type": "tool", "name": "get_time"}
        assert body(rq.Config.google(), named)["toolConfig"] == {
            "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_time"]}
        }
        none = conversation().with_tool_choice(rq.ToolChoice.NONE)
        assert body(rq.Config.anthropic(), none)["tool_choice"] == {"type": "none"}
        assert body(rq.Config.google(), none)["toolConfig"]["functionCallingConfig"] == {"mode": "NONE"}
        serial = conversation().with_parallel_tool_calls(False)
        assert body(rq.Config.anthropic(), serial)["tool_choice"] == {
            "type": "auto",
            "disable_parallel_tool_use": True,
        }
        strict = body(rq.Config.google().with_strict_tools(True), conversation())
        assert strict["toolConfig"] == {"functionCallingConfig": {"mode": "VALIDATED"}}
        assert "tool_choice" not in body(rq.Config.openai_chat(), conversation())

    def test_anthropic_and_google_bodies(self) -> None:
        req = conversation().with_temperature(0.5).with_top_p(0.9)
        sent = body(rq.Config.anthropic(), req.with_stop("END"))
        assert sent["system"] == "Be brief."
        assert sent["max_tokens"] == 4096
        assert sent["messages"] == [{"role": "user", "content": "Weather in Paris?"}]
        assert sent["tools"][1] == {
            "name": "get_time",
            "description": "",
            "input_schema": {"type": "object", "properties": {"zone": {"type": "string"}}},
        }
        assert (sent["temperature"], sent["top_p"], sent["stop_sequences"]) == (
            Decimal("0.5"),
            Decimal("0.9"),
            ["END"],
        )
        google = unwrap(rq.prepare(rq.Config.google().with_stream(True), req.with_max_tokens(7)))
        assert google.path == "/v1beta/models/model-x:streamGenerateContent?alt=sse"
        assert payload(google)["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
        assert payload(google)["generationConfig"] == {
            "maxOutputTokens": 7,
            "temperature": Decimal("0.5"),
            "topP": Decimal("0.9"),
        }
        declaration = payload(google)["tools"][0]["functionDeclarations"][0]
        assert set(declaration) == {"name", "description", "parametersJsonSchema"}
        legacy = body(rq.Config.google().with_google_schema(GoogleSchema.OPENAPI), req)
        assert legacy["tools"][0]["functionDeclarations"][1]["parameters"] == {
            "type": "OBJECT",
            "properties": {"zone": {"type": "STRING"}},
        }
        assert google.body_bytes() == google.body_json().encode()

    def test_structured_output_per_provider(self) -> None:
        codec = _Codec(unwrap(from_value(CITY)))
        req = conversation().with_output("City", codec)
        responses = body(rq.Config.openai_responses(), req)["text"]["format"]
        assert responses["strict"] is True
        assert responses["schema"]["required"] == ["city"]
        chat = body(rq.Config.openai_chat(), req)["response_format"]
        assert chat["type"] == "json_schema"
        assert chat["json_schema"]["name"] == "City"
        assert body(rq.Config.anthropic(), req)["output_config"]["format"]["type"] == "json_schema"
        generation = body(rq.Config.google(), req)["generationConfig"]
        assert generation["responseMimeType"] == "application/json"
        assert generation["responseJsonSchema"]["properties"] == {"city": {"type": "string"}}
        prepared = unwrap(rq.prepare(rq.Config.openai_chat(), req))
        assert prepared.output is not None
        assert prepared.output.projection.restore({"city": None}) == {}


# ---------------------------------------------------------------------------------------------------------
# History encoding.


def answered(turn: AssistantTurn, *results: ToolResult) -> rq.Request:
    return conversation(turn, *results, rq.user("thanks"))


class TestHistories:
    """Histories: results in call order, replay data kept."""

    def test_results_are_reordered_to_call_order_and_named(self) -> None:
        turn = AssistantTurn("", (CALL, CALL_2))
        req = answered(turn, ToolResult("call_2", "noon"), ToolResult("call_1", "sunny"))
        sent = body(rq.Config.openai_chat(), req)
        assert [m.get("tool_call_id") for m in sent["messages"] if m["role"] == "tool"] == [
            "call_1",
            "call_2",
        ]
        assert sent["messages"][2] == {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":  "Paris"}'},
                },
                {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}},
            ],
        }

    def test_responses_history_replays_items_and_keeps_argument_text(self) -> None:
        call = ToolCall("call_1", "get_weather", '{"city":  "Paris"}', provider_id="fc_1")
        reasoning: Value = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "abc"}
        data: Value = [
            reasoning,
            {"type": "function_call", "call_id": "call_1", "name": "x", "arguments": "", "id": "fc_1"},
        ]
        turn = AssistantTurn("", (call,), Provider.OPENAI_RESPONSES, "resp_1", data)
        items = body(rq.Config.openai_responses(), answered(turn, rq.tool_result(call, "sunny")))["input"]
        assert items[2:5] == [
            reasoning,
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": '{"city":  "Paris"}',
                "id": "fc_1",
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
        ]
        # Without replay data (or from another API) the turn is rebuilt, and the fc_ id is not sent alone.
        bare = AssistantTurn("Checking.", (call,), Provider.OPENAI_RESPONSES)
        items = body(rq.Config.openai_responses(), answered(bare, rq.tool_result(call, "sunny")))["input"]
        assert items[2:4] == [
            {"role": "assistant", "content": "Checking."},
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": '{"city":  "Paris"}',
            },
        ]
        foreign = AssistantTurn(
            "", (call,), Provider.ANTHROPIC, None, [{"type": "thinking", "thinking": "t"}]
        )
        items = body(rq.Config.openai_responses(), answered(foreign, rq.tool_result(call, "sunny")))["input"]
        assert items[2]["type"] == "function_call"

    def test_anthropic_history_groups_results_with_is_error_and_replays_thinking(self) -> None:
        thinking: Value = {"type": "thinking", "thinking": "hmm", "signature": "sig"}
        data: Value = [thinking, {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {}}]
        turn = AssistantTurn("", (CALL, CALL_2), Provider.ANTHROPIC, "msg_1", data)
        req = answered(turn, rq.tool_result(CALL, "sunny"), rq.tool_result(CALL_2, "no zone", is_error=True))
        messages = body(rq.Config.anthropic(), req)["messages"]
        assert messages[1] == {
            "role": "assistant",
            "content": [
                thinking,
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "call_2", "name": "get_time", "input": {}},
            ],
        }
        assert messages[2] == {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "sunny"},
                {"type": "tool_result", "tool_use_id": "call_2", "content": "no zone", "is_error": True},
            ],
        }
        assert messages[3] == {"role": "user", "content": "thanks"}

    def test_anthropic_and_gemini_arguments_must_be_objects(self) -> None:
        broken = ToolCall("call_1", "get_weather", '{"city": "Par')
        sent = body(
            rq.Config.anthropic(), answered(AssistantTurn("", (broken,)), rq.tool_result(broken, "x"))
        )
        assert sent["messages"][1]["content"][0]["input"] == {"unparsed_arguments": '{"city": "Par'}
        empty = ToolCall("call_1", "get_time", "")
        sent = body(rq.Config.google(), answered(AssistantTurn("", (empty,)), rq.tool_result(empty, "x")))
        assert sent["contents"][1]["parts"][0]["functionCall"]["args"] == {}

    def test_gemini_history_keeps_signatures_ids_and_wraps_results(self) -> None:
        call = ToolCall("call_1", "get_weather", '{"city":"Paris","n":1.50}', "g-1", "SIG")
        second = ToolCall("call_2", "get_time", "{}", None, {"thoughtSignature": "SIG2"})
        turn = AssistantTurn("", (call, second), Provider.GOOGLE)
        req = answered(turn, rq.tool_result(call, "sunny"), rq.tool_result(second, "bad", is_error=True))
        contents = body(rq.Config.google(), req)["contents"]
        assert contents[1] == {
            "role": "model",
            "parts": [
                {
                    "functionCall": {
                        "id": "g-1",
                        "name": "get_weather",
                        "args": {"city": "Paris", "n": Decimal("1.50")},
                    },
                    "thoughtSignature": "SIG",
                },
                {
                    "functionCall": {"id": "call_2", "name": "get_time", "args": {}},
                    "thoughtSignature": "SIG2",
                },
            ],
        }
        assert contents[2] == {
            "role": "user",
            "parts": [
                {"functionResponse": {"id": "g-1", "name": "get_weather", "response": {"result": "sunny"}}},
                {"functionResponse": {"id": "call_2", "name": "get_time", "response": {"error": "bad"}}},
            ],
        }
        prepared = unwrap(rq.prepare(rq.Config.google(), req))
        assert '"n":1.50' in prepared.body_json()

    def test_gemini_replays_raw_parts_in_order(self) -> None:
        thought: Value = {"text": "thinking...", "thought": True}
        data: Value = [
            thought,
            {"functionCall": {"name": "get_weather", "args": {}}, "thoughtSignature": "S"},
        ]
        turn = AssistantTurn("", (CALL,), Provider.GOOGLE, None, data)
        parts = body(rq.Config.google(), answered(turn, rq.tool_result(CALL, "ok")))["contents"][1]["parts"]
        assert parts == [
            thought,
            {
                "functionCall": {"id": "call_1", "name": "get_weather", "args": {"city": "Paris"}},
                "thoughtSignature": "S",
            },
        ]

    def test_replay_data_that_disagrees_with_the_turn_is_refused(self) -> None:
        wrong: Value = [{"type": "tool_use", "id": "other", "name": "get_weather", "input": {}}]
        turn = AssistantTurn("", (CALL,), Provider.ANTHROPIC, None, wrong)
        refused = error(rq.Config.anthropic(), answered(turn, rq.tool_result(CALL, "ok")))
        assert refused == InvalidReplay(2, "disagrees with the turn's calls")
        not_a_list = AssistantTurn("", (CALL,), Provider.ANTHROPIC, None, {"a": 1})
        assert isinstance(
            error(rq.Config.anthropic(), answered(not_a_list, rq.tool_result(CALL, "ok"))), InvalidReplay
        )

    def test_unpaired_surrogates_are_a_typed_error(self) -> None:
        refused = error(rq.Config.openai_chat(), conversation(rq.user("bad \ud800 text")))
        assert isinstance(refused, rq.NotEncodable)
        assert refused.describe().startswith('body $["messages"][2]["content"]')


# ---------------------------------------------------------------------------------------------------------
# Properties.

_ids = st.sampled_from(["c1", "c2", "c3"])
_text = st.text(max_size=8) | st.just("\ud800")
_calls = st.builds(
    ToolCall,
    _ids,
    st.sampled_from(["get_weather", "get_time", "other"]),
    st.text(max_size=12) | st.sampled_from(['{"city":"x"}', "{}", "[1]", '"s"']),
    st.none() | _ids,
    st.none() | st.text(max_size=4) | json_values(max_leaves=3),
)
_messages: st.SearchStrategy[Message] = st.one_of(
    st.builds(SystemMessage, _text),
    st.builds(UserMessage, _text),
    st.builds(
        AssistantTurn,
        _text,
        st.lists(_calls, max_size=3).map(tuple),
        st.none() | st.sampled_from(list(Provider)),
        st.none() | st.text(max_size=4),
        st.none() | json_values(max_leaves=4),
    ),
    st.builds(ToolResult, _ids, _text, st.booleans(), st.none() | st.text(max_size=4)),
)


class TestNeverRaises:
    """prepare returns a value on any conversation."""

    @given(st.lists(_messages, max_size=8), st.sampled_from(CONFIGS), st.booleans())
    def test_prepare_never_raises_on_any_conversation(
        self, messages: list[Message], config: rq.Config, strict: bool
    ) -> None:
        req = rq.request("m", messages).with_tools([WEATHER, TIME])
        match rq.prepare(config.with_strict_tools(rq.Strictness.AUTO if strict else rq.Strictness.OFF), req):
            case Ok(prepared):
                assert parse(prepared.body_bytes(), _big()) == Ok(prepared.body)
            case Err(problem):
                assert isinstance(problem.describe(), str)

    @given(json_values(max_leaves=30), st.sampled_from(CONFIGS), st.sampled_from(list(rq.Strictness)))
    def test_prepare_never_raises_on_any_schema(
        self, document: Value, config: rq.Config, strict: rq.Strictness
    ) -> None:
        match from_json_schema("t", "", document):
            case Ok(declared):
                pass
            case Err():
                return
        req = rq.request("m", [rq.user("x")]).with_tools([declared])
        for google_schema in GoogleSchema:
            result = rq.prepare(config.with_strict_tools(strict).with_google_schema(google_schema), req)
            if isinstance(result, Err):
                assert isinstance(result.error.describe(), str)


def _big() -> Any:
    from llm_wire.value import Limits

    return Limits(max_bytes=64 * 1024 * 1024, max_depth=1000, max_values=10**7)


# ---------------------------------------------------------------------------------------------------------
# What the wire drops, admission still enforces; what strict mode made nullable, admission restores.


class TestDroppedConstraints:
    """A constraint dropped for the wire is still enforced at admission."""

    def test_a_constraint_dropped_for_the_wire_is_enforced_at_admission(self) -> None:
        config = rq.Config.openai_chat().with_strict_tools(True).with_tool_call_checks(ToolCallChecks.REPORT)
        prepared = unwrap(rq.prepare(config, conversation()))
        assert "minLength" in [loss.keyword for loss in prepared.projections["get_weather"].losses]
        wire = payload(prepared)["tools"][0]["function"]["parameters"]["properties"]["city"]
        assert "minLength" not in wire
        calls = [
            ToolCall("a", "get_weather", '{"city": "", "unit": null}'),  # minLength broken: still an issue
            ToolCall("b", "get_weather", '{"city": "Oslo", "unit": null}'),  # null restored to absent
        ]
        admitted = unwrap(
            admit(calls, prepared.tools, config.checks, config.admission_limits(), prepared.adjust)
        )
        [issue] = admitted.issues
        assert isinstance(issue, InvalidArguments)
        assert issue.call_id == "a"
        assert isinstance(issue.failure, SchemaRejected)
        [ok] = admitted.admitted
        assert ok.arguments == {"city": "Oslo"}
        # Without the restore, the null the strict wire allowed would fail the original enum.
        unrestored = unwrap(admit(calls[1:], prepared.tools, ToolCallChecks.REPORT))
        assert len(unrestored.issues) == 1

    def test_output_restore_is_offered_under_the_output_name(self) -> None:
        codec = _Codec(unwrap(from_value(CITY)))
        prepared = unwrap(rq.prepare(rq.Config.openai_chat(), conversation().with_output("City", codec)))
        assert prepared.adjust["City"]({"city": None}) == {}
        clash = conversation().with_output("get_time", codec)
        assert error(rq.Config.openai_chat(), clash).setting == "output name"

    def test_providers_demo_runs(self, capsys: pytest.CaptureFixture[str]) -> None:
        from llm_wire.demo import providers

        providers.run()
        printed = capsys.readouterr().out
        assert printed.count("admitted get_weather") == 4
        assert printed.count("issue: ") == 4
        assert "POST /v1beta/models/demo-model:generateContent" in printed

    def test_providers_demo_replays_one_recording_per_api(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        from llm_wire.demo import providers

        if not providers.CORPUS.is_dir():
            pytest.skip(f"provider-responses corpus not found at {providers.CORPUS}")
        providers.run()
        printed = capsys.readouterr().out
        assert printed.count("  recorded: ") == 4
        assert printed.count("outcome: NeedsTools") == 4
        assert printed.count("an SSE stream of") == 2
        assert "admitted toolu_01TJoxvFknVdnV9XpWFPaRmY get_weather" in printed
        issue = "issue with llm_wire_call_0 get_file: Error: the arguments for tool get_file were refused"
        assert issue in printed
        monkeypatch.setattr(providers, "CORPUS", tmp_path / "absent")
        providers.run()
        printed = capsys.readouterr().out
        assert "not found, so only the hand-written responses are decoded" in printed
        assert "recorded: " not in printed
        assert printed.count("admitted get_weather") == 4

    def test_recorded_tools_per_api(self) -> None:
        from llm_wire.demo.recorded import recorded_tools

        schema: Value = {"type": "object"}
        bodies: dict[Provider, Value] = {
            Provider.OPENAI_CHAT: {
                "tools": [
                    {"type": "function", "function": {"name": "a", "parameters": schema, "strict": True}}
                ]
            },
            Provider.OPENAI_RESPONSES: {"tools": [{"type": "function", "name": "a", "parameters": schema}]},
            Provider.ANTHROPIC: {"tools": [{"name": "a", "input_schema": schema}, {"type": "bash_20250124"}]},
            Provider.GOOGLE: {
                "tools": {"function_declarations": [{"name": "a", "parameters": {"type": "OBJECT"}}]}
            },
        }
        for provider, body in bodies.items():
            [found] = recorded_tools(provider, body)
            assert (found.name, found.json_schema) == ("a", schema), provider
        assert next(recorded_tools(Provider.OPENAI_CHAT, bodies[Provider.OPENAI_CHAT])).strict is True
        odd: list[Value] = [None, [], {"tools": 3}, {"tools": [1, {"type": "function", "function": []}]}]
        for body in odd:
            for provider in Provider:
                assert list(recorded_tools(provider, body)) == []

    def test_anthropic_strict_budget(self) -> None:
        many = [
            make_tool(
                f"t{n}",
                {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": False},
            )
            for n in range(22)
        ]
        req = rq.request("m", [rq.user("x")]).with_tools(many)
        on = error(rq.Config.anthropic().with_strict_tools(True), req)
        assert on == rq.InvalidSetting(
            "strict tools", "exceed the provider's limits: more than 20 strict tools"
        )
        auto = unwrap(rq.prepare(rq.Config.anthropic().with_strict_tools(rq.Strictness.AUTO), req))
        # AUTO sends the first 20 strict and the rest as they are.
        assert list(auto.strict.values()).count(True) == 20
        assert auto.strict["t21"] is False
        optional = make_tool(
            "o", {"type": "object", "properties": {f"p{n}": {"type": "string"} for n in range(25)}}
        )
        too_many = error(rq.Config.anthropic().with_strict_tools(True), req.with_tools([optional]))
        assert "optional parameters" in too_many.reason


# ---------------------------------------------------------------------------------------------------------
# The response side of a prepared request: its decoder and its bounds.

_CHAT_ANSWER = b'{"id":"c","choices":[{"index":0,"finish_reason":"stop","message":{"content":"Sunny."}}]}'


class TestPreparedResponse:
    """A prepared request decodes its response under the bounds of its ``Config``."""

    def test_decode_body(self) -> None:
        """``decode_body`` reads the request's API from bytes or text."""
        prepared = unwrap(rq.prepare(rq.Config.openai_chat(), conversation()))
        for body in (_CHAT_ANSWER, _CHAT_ANSWER.decode()):
            decoded = prepared.decode_body(body)
            assert isinstance(decoded, Ok)
            assert decoded.value.text == "Sunny."

    def test_decoder(self) -> None:
        """``decoder()`` is a fresh stream decoder for the request's API each time."""
        prepared = unwrap(rq.prepare(rq.Config.openai_chat().with_stream(True), conversation()))
        stream = prepared.decoder()
        chunk = (
            b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}\n\n'
        )
        assert isinstance(stream.feed_bytes(chunk + b"data: [DONE]\n\n"), Ok)
        finished = stream.finish()
        assert isinstance(finished, Ok)
        assert finished.value.text == "Hi"
        assert prepared.decoder().text == ""

    def test_response_bytes_bounds_the_body(self) -> None:
        """``Limit.RESPONSE_BYTES`` bounds a body, and the error names the setting that raises it."""
        config = rq.Config.openai_chat().with_limit(rq.Limit.RESPONSE_BYTES, 40)
        decoded = unwrap(rq.prepare(config, conversation())).decode_body(_CHAT_ANSWER)
        assert isinstance(decoded, Err)
        assert isinstance(decoded.error, LimitExceeded)
        assert decoded.error.limit == 40
        assert decoded.error.setting == "Config.with_limit(Limit.RESPONSE_BYTES, n)"
        assert isinstance(
            unwrap(rq.prepare(rq.Config.openai_chat(), conversation())).decode_body(_CHAT_ANSWER), Ok
        )

    def test_event_bytes_bounds_one_event(self) -> None:
        """``Limit.EVENT_BYTES`` bounds one SSE event of a stream."""
        config = rq.Config.openai_chat().with_stream(True).with_limit(rq.Limit.EVENT_BYTES, 30)
        stream = unwrap(rq.prepare(config, conversation())).decoder()
        chunk = b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'
        fed = stream.feed_bytes(chunk)
        assert isinstance(fed, Err)
        assert isinstance(fed.error, LimitExceeded)
        assert fed.error.limit == 30
        assert fed.error.setting == "Config.with_limit(Limit.EVENT_BYTES, n)"

    def test_prepare_errors_render_their_description(self) -> None:
        """Every ``PrepareError`` variant's ``str`` is its ``describe()``."""
        found = error(rq.Config.openai_chat(), conversation().with_tools([WEATHER, WEATHER]))
        assert str(found) == found.describe() == "tool get_weather is declared twice"
        unsupported = error(rq.Config.openai_responses(), conversation().with_stop("END"))
        assert str(unsupported) == unsupported.describe()


class TestBoundaryTypes:
    """Wrong Python types are refused at ``prepare``'s boundary; nothing is dropped silently."""

    @pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.provider.value)
    def test_a_dict_message_is_refused(self, config: rq.Config) -> None:
        """A plain dict in the conversation is a ``TypeError`` naming its position, never dropped."""
        req = rq.request("m", [rq.user("hi"), {"role": "user", "content": "hi"}])  # type: ignore[list-item]
        with pytest.raises(TypeError, match=r"^request\.messages\[1\] must be a Message, not dict$"):
            rq.prepare(config, req)

    @pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.provider.value)
    def test_an_empty_conversation_is_refused(self, config: rq.Config) -> None:
        """No message at all is a typed ``EmptyConversation``, not an empty body."""
        problem = error(config, rq.request("m").with_tools([WEATHER]))
        assert problem == rq.EmptyConversation()
        assert str(problem) == problem.describe() == "the conversation has no message"

    def test_wrong_config_and_request(self) -> None:
        """``prepare`` names the parameter it was given the wrong type for."""
        with pytest.raises(TypeError, match=r"^config must be a Config, not str$"):
            rq.prepare("openai", rq.request("m", [rq.user("x")]))  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"^request must be a Request, not dict$"):
            rq.prepare(rq.Config.openai_chat(), {"model": "m"})  # type: ignore[arg-type]

    def test_wrong_tools(self) -> None:
        """A tool that is not a ``Tool`` names its position."""
        req = rq.request("m", [rq.user("x")]).with_tools([WEATHER, "get_time"])  # type: ignore[list-item]
        with pytest.raises(TypeError, match=r"^request\.tools\[1\] must be a Tool, not str$"):
            rq.prepare(rq.Config.openai_chat(), req)

    def test_prepared_decode_body(self) -> None:
        """``Prepared.decode_body`` refuses a non-JSON Python object and reads a JSON scalar as data."""
        prepared = unwrap(rq.prepare(rq.Config.openai_chat(), rq.request("m", [rq.user("x")])))
        with pytest.raises(TypeError, match=r"^body must be bytes, str or a JSON value, not object$"):
            prepared.decode_body(object())  # type: ignore[arg-type]
        assert isinstance(prepared.decode_body(5), Err)


class TestPythonFloats:
    """A schema from ``json.loads`` holds floats: they load, and every body carries them exactly."""

    @pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.provider.value)
    def test_a_float_default_reaches_the_body(self, config: rq.Config) -> None:
        """``default: 0.7`` and ``maximum: 1.5`` (Python floats) go out as ``0.7`` and ``1.5``."""
        document: Any = json.loads('{"type": "object", "properties": {"t": {"default": 0.7}}}')
        document["properties"]["t"]["maximum"] = 1.5
        declared = unwrap(from_json_schema("temp", "A temperature", document))
        prepared = unwrap(rq.prepare(config, rq.request("m", [rq.user("x")]).with_tools([declared])))
        sent = prepared.body_bytes()
        assert b'"default":0.7' in sent
        assert b'"maximum":1.5' in sent
