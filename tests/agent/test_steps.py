"""The sans-I/O steps: the run's decisions with no model, clock or thread behind them."""

from __future__ import annotations

from agent_tools import EchoText

from llm_wire import Prepared, config, request, user
from llm_wire.agent import StopReason, ToolOutcome, make_tool
from llm_wire.agent.steps import CallModel, Finish, Recovery, RunSteps, RunTools
from llm_wire.message import AssistantTurn, Provider, ToolCall, ToolResult
from llm_wire.outcome import Outcome, resolve
from llm_wire.providers.response import FinishReason, Terminal
from llm_wire.result import Ok

CONFIG = config(Provider.OPENAI_CHAT)
ECHO = make_tool(EchoText).descriptor


def _steps(max_tool_rounds: int = 4, unknown: Recovery = Recovery.TELL_MODEL) -> RunSteps:
    return RunSteps(
        CONFIG,
        request("m", [user("go")]),
        {ECHO.name: ECHO},
        max_tool_rounds=max_tool_rounds,
        unknown_tools=unknown,
    )


def _respond(prepared: Prepared, *calls: ToolCall, text: str = "") -> Outcome:
    finish = FinishReason.TOOL_CALLS if calls else FinishReason.STOP
    return resolve(Ok(Terminal(prepared.provider, finish, text, calls)), prepared)


class TestRunSteps:
    """Each step follows from the last event alone."""

    def test_a_round_trip(self) -> None:
        steps = _steps()
        first = steps.start()
        assert isinstance(first, CallModel)
        assert [tool.name for tool in first.prepared.request.tools] == ["echo_text"]
        batch = steps.model_returned(_respond(first.prepared, ToolCall("c1", "echo_text", '{"text":"a"}')))
        assert isinstance(batch, RunTools)
        assert batch.plan[0].admitted is not None
        assert batch.plan[0].preset is None
        second = steps.tools_returned(batch.turn, [(batch.plan[0].call, ToolOutcome.success("a"), "a")])
        assert isinstance(second, CallModel)
        assert second.prepared.request.messages[-1] == ToolResult("c1", "a", False, "echo_text")
        done = steps.model_returned(_respond(second.prepared, text="bye"))
        assert isinstance(done, Finish)
        assert done.result.stop is StopReason.ANSWERED
        assert done.result.text == "bye"
        assert isinstance(done.result.request.messages[-1], AssistantTurn)

    def test_bad_calls_get_preset_outcomes(self) -> None:
        steps = _steps()
        first = steps.start()
        assert isinstance(first, CallModel)
        outcome = _respond(
            first.prepared, ToolCall("c1", "echo_text", '{"text":1}'), ToolCall("c2", "nope", "{}")
        )
        batch = steps.model_returned(outcome)
        assert isinstance(batch, RunTools)
        presets = [planned.preset for planned in batch.plan]
        assert all(preset is not None and not preset.ok for preset in presets)

    def test_unknown_tool_may_end_the_run(self) -> None:
        steps = _steps(unknown=Recovery.END)
        first = steps.start()
        assert isinstance(first, CallModel)
        done = steps.model_returned(_respond(first.prepared, ToolCall("c1", "nope", "{}")))
        assert isinstance(done, Finish)
        assert done.result.stop is StopReason.TOOL_CALL_DENIED

    def test_round_budget(self) -> None:
        steps = _steps(max_tool_rounds=0)
        first = steps.start()
        assert isinstance(first, CallModel)
        done = steps.model_returned(_respond(first.prepared, ToolCall("c1", "echo_text", '{"text":"a"}')))
        assert isinstance(done, Finish)
        assert done.result.stop is StopReason.ROUND_BUDGET
        assert done.result.detail["last_tool_call_id"] == "c1"

    def test_stop_keeps_the_pending_turn(self) -> None:
        steps = _steps()
        turn = AssistantTurn(calls=(ToolCall("c1", "echo_text", "{}"),))
        finish = steps.stop(StopReason.CANCELLED, turn)
        assert finish.result.pending == turn
        assert finish.result.resume_request().messages[-1] == turn

    def test_stop_reasons_read_as_sentences(self) -> None:
        assert all(str(reason).endswith(".") for reason in StopReason)
