"""The scripted model: canned responses, admitted like real ones, checked against expected requests."""

from __future__ import annotations

import asyncio

import pytest
from agent_tools import EchoText

from llm_wire import config, prepare, request, user
from llm_wire.agent import make_tool
from llm_wire.agent.scripted import ScriptedClient, ScriptedReply, ScriptError, call, reply
from llm_wire.message import Provider
from llm_wire.outcome import Answer, NeedsTools
from llm_wire.result import unwrap
from llm_wire.tool import ToolCallChecks

REPORT = config(Provider.ANTHROPIC).with_tool_call_checks(ToolCallChecks.REPORT)
PREPARED = unwrap(
    prepare(REPORT, request("m", [user("go")]).with_tools([make_tool(EchoText).descriptor.tool]))
)


class TestScriptedModel:
    """Replies come in order, go through admission, and check the request they answer."""

    def test_calls_are_admitted(self) -> None:
        """Under the prepared checks (``REPORT`` here), like a real response."""
        model = ScriptedClient(
            [reply("", call("echo_text", '{"text":"a"}'), call("echo_text", '{"text":1}'))]
        )
        outcome = asyncio.run(model.complete(PREPARED))
        assert isinstance(outcome, NeedsTools)
        assert [c.id for c in outcome.turn.calls] == ["call-0-0", "call-0-1"]
        assert len(outcome.admitted) == 1
        assert len(outcome.issues) == 1

    def test_answer_and_requests_kept(self) -> None:
        model = ScriptedClient([reply("hello", expect=lambda r: r.model == "m")])
        outcome = model.answer(PREPARED)
        assert isinstance(outcome, Answer)
        assert outcome.text == "hello"
        assert model.requests == [PREPARED.request]
        assert model.remaining == 0

    def test_mismatch_and_exhaustion(self) -> None:
        with pytest.raises(ScriptError, match="expects"):
            ScriptedClient([reply(expect=lambda r: False)]).answer(PREPARED)
        with pytest.raises(ScriptError, match="too many"):
            ScriptedClient([]).answer(PREPARED)

    def test_wrong_type(self) -> None:
        with pytest.raises(TypeError, match="ScriptedReply"):
            ScriptedClient(["hi"])  # type: ignore[list-item]
        assert isinstance(ScriptedReply(), ScriptedReply)
