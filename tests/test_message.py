"""Conversation types and their strict JSON persistence."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_wire import message
from llm_wire.message import _FORMAT as FORMAT
from llm_wire.message import (
    AssistantTurn,
    ConversationError,
    Message,
    Provider,
    SystemMessage,
    ToolCall,
    ToolResult,
    UserMessage,
)
from llm_wire.result import Err, Ok
from llm_wire.value import Syntax

CONVERSATION: tuple[Message, ...] = (
    SystemMessage("Answer briefly."),
    UserMessage("Weather in Paris and Oslo?"),
    AssistantTurn(
        text="Checking both.",
        calls=(
            ToolCall("c1", "get_weather", '{"city": "Paris"}', provider_state={"thoughtSignature": "c2ln"}),
            ToolCall("c2", "get_weather", '{"city":"Oslo"}', provider_id="fc_2"),
        ),
        provider=Provider.GOOGLE,
        response_id="resp_1",
        provider_data=[{"type": "reasoning", "summary": [], "weight": Decimal("0.5")}],
    ),
    ToolResult("c1", "sunny", name="get_weather"),
    ToolResult("c2", "Error: timeout", is_error=True),
)


class TestPersistence:
    """``dumps`` and ``loads`` round-trip a whole conversation; loading is strict."""

    def test_round_trip(self) -> None:
        text = message.dumps(CONVERSATION)
        assert message.loads(text) == Ok(CONVERSATION)

    def test_replay_data_survives_exactly(self) -> None:
        loaded = message.loads(message.dumps(CONVERSATION))
        assert isinstance(loaded, Ok)
        turn = loaded.value[2]
        assert isinstance(turn, AssistantTurn)
        assert turn.calls[0].provider_state == {"thoughtSignature": "c2ln"}
        assert turn.calls[0].arguments_json == '{"city": "Paris"}'
        assert turn.provider_data == [{"type": "reasoning", "summary": [], "weight": Decimal("0.5")}]

    def test_format_tag(self) -> None:
        document = json.loads(message.dumps([UserMessage("hi")]))
        assert document == {"format": FORMAT, "messages": [{"role": "user", "text": "hi"}]}

    def test_tool_call_helper(self) -> None:
        assert ToolCall("a", "b", "{}") == ToolCall("a", "b", "{}", None, None)

    @pytest.mark.parametrize(
        ("document", "index", "problem"),
        [
            ({"format": "other", "messages": []}, None, "unsupported format"),
            ({"messages": []}, None, 'expected an object with "format" and "messages"'),
            ({"format": FORMAT, "messages": {}}, None, '"messages" must be an array'),
            ({"format": FORMAT, "messages": [1]}, 0, "a message must be an object"),
            ({"format": FORMAT, "messages": [{"text": "x"}]}, 0, "unknown or missing role"),
            ({"format": FORMAT, "messages": [{"role": "robot", "text": "x"}]}, 0, "unknown or missing role"),
            ({"format": FORMAT, "messages": [{"role": "user", "text": 5}]}, 0, "not a valid user message"),
            (
                {"format": FORMAT, "messages": [{"role": "user", "text": "a", "extra": 1}]},
                0,
                "not a valid user message",
            ),
            (
                {
                    "format": FORMAT,
                    "messages": [{"role": "tool", "call_id": "a", "content": "x", "is_error": 1}],
                },
                0,
                "not a valid tool message",
            ),
            (
                {
                    "format": FORMAT,
                    "messages": [{"role": "user", "text": "a"}, {"role": "assistant", "calls": [{}]}],
                },
                1,
                "not a valid assistant message",
            ),
            (
                {"format": FORMAT, "messages": [{"role": "assistant", "provider": "elsewhere"}]},
                0,
                "not a valid assistant message",
            ),
        ],
    )
    def test_refuses(self, document: object, index: int | None, problem: str) -> None:
        got = message.loads(json.dumps(document))
        assert isinstance(got, Err)
        assert got.error.index == index
        assert got.error.problem.startswith(problem)

    def test_not_json(self) -> None:
        got = message.loads('{"format": "llm_wire.conversation.v1", "messages": [],}')
        assert isinstance(got, Err)
        assert got.error.parse_error is not None
        assert got.error.parse_error.reason is Syntax.TRAILING_COMMA
        assert got.error.describe().startswith("conversation is not valid JSON: invalid JSON at line 1")

    def test_texts_do_not_repeat_input(self) -> None:
        got = message.loads(json.dumps({"format": FORMAT, "messages": [{"role": "user", "text": 123456789}]}))
        assert isinstance(got, Err)
        assert got.error == ConversationError(0, "not a valid user message")
        assert "123456789" not in got.error.describe()


TEXT = st.text(max_size=20)
CALLS = st.builds(
    ToolCall, TEXT, TEXT, TEXT, st.none() | TEXT, st.none() | st.dictionaries(TEXT, TEXT, max_size=2)
)
MESSAGES = st.one_of(
    st.builds(SystemMessage, TEXT),
    st.builds(UserMessage, TEXT),
    st.builds(
        AssistantTurn,
        TEXT,
        st.lists(CALLS, max_size=3).map(tuple),
        st.none() | st.sampled_from(list(Provider)),
        st.none() | TEXT,
    ),
    st.builds(ToolResult, TEXT, TEXT, st.booleans(), st.none() | TEXT),
)


class TestPersistenceProperties:
    """Conversations round-trip through JSON and refuse anything else."""

    @given(st.lists(MESSAGES, max_size=6))
    def test_round_trip_property(self, messages: list[Message]) -> None:
        """Any conversation loads back equal to what was dumped."""
        assert message.loads(message.dumps(messages)) == Ok(tuple(messages))

    @given(st.text() | st.binary())
    def test_loads_never_raises(self, text: str | bytes) -> None:
        """Arbitrary input gives Ok or a typed error."""
        assert isinstance(message.loads(text), Ok | Err)


class TestToolCallTypes:
    """A ``ToolCall`` holds text: anything else is a ``TypeError`` naming the field."""

    @pytest.mark.parametrize("field", ["id", "name", "arguments_json"])
    def test_non_text_is_refused(self, field: str) -> None:
        """``arguments_json`` given a dict (a common slip) names itself and never shows the value."""
        given: dict[str, Any] = {"id": "c", "name": "t", "arguments_json": "{}", field: {"secret": 1}}
        with pytest.raises(TypeError, match=f"^ToolCall.{field} must be a str, not dict$"):
            ToolCall(**given)
