"""
Admission that knows the turn, in the runner: a call is admitted against the tools the answered request
offered (they change between rounds through ``prepare_model_request``), and the request's tool choice is
obeyed; every refusal is answered to the model, which is told what it may do now.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ClassVar

import attrs

from llm_wire import AllowedTools, Prepared, ToolChoice, UseTool, config, prepare, request, user
from llm_wire.admission import ToolChoiceViolation, describe_issue
from llm_wire.agent import (
    Approval,
    ErrorCode,
    Runner,
    RunResult,
    StopReason,
    ToolContract,
    make_tool,
    reflect,
)
from llm_wire.agent.events import ModelRequest, Verdict
from llm_wire.agent.scripted import ScriptedClient, ScriptedReply, call, reply
from llm_wire.durable._records import _outcome_of, _terminal_value
from llm_wire.message import AssistantTurn, Provider, ToolResult, UserMessage
from llm_wire.outcome import NeedsTools, Outcome
from llm_wire.result import unwrap
from llm_wire.tool import ToolCallChecks


@attrs.frozen
class Search:
    """Search the web."""

    q: str
    ran: ClassVar[list[str]] = []

    def invoke(self) -> str:
        Search.ran.append(self.q)
        return "found"


@attrs.frozen
class Fetch:
    """Fetch a page."""

    url: str
    ran: ClassVar[list[str]] = []

    def invoke(self) -> str:
        Fetch.ran.append(self.url)
        return "fetched"


SEARCH = make_tool(Search, name="search")
FETCH = make_tool(Fetch, name="fetch")
CONFIG = config(Provider.OPENAI_CHAT)


def fresh() -> None:
    Search.ran.clear()
    Fetch.ran.clear()


def by_round(change: Callable[[ModelRequest], ModelRequest | None]) -> Callable[[ModelRequest], ModelRequest]:
    """A ``prepare_model_request`` hook: ``change`` may return another request for a round, or ``None``."""
    return lambda given: change(given) or given


def only_search_after_round_0(given: ModelRequest) -> ModelRequest | None:
    """Round 0 offers both tools; later rounds only ``search``."""
    if given.round == 0:
        return None
    return attrs.evolve(given, request=given.request.with_tools([SEARCH.descriptor.tool]))


def run(runner: Runner) -> RunResult:
    return asyncio.run(runner.arun(request("any-model", [user("go")])))


def tool_results(sent: list[object]) -> list[ToolResult]:
    return [m for m in sent if isinstance(m, ToolResult)]


class TestTurnScoped:
    """A call to a tool offered only in an earlier turn is an unknown tool now."""

    def test_two_turns_a_tool_offered_only_in_turn_1(self) -> None:
        """
        Turn 1 offers ``search`` and ``fetch``; turn 2 only ``search``. The ``fetch`` of turn 2 is refused
        without running, and its tool message lists what is offered now (``search``), never ``fetch``.
        """
        fresh()
        model = ScriptedClient(
            [
                reply("", call("fetch", '{"url": "a"}', id="f1")),
                reply("", call("fetch", '{"url": "b"}', id="f2")),
                reply("done"),
            ]
        )
        runner = Runner(
            model, CONFIG, reflect(SEARCH, FETCH), prepare_model_request=by_round(only_search_after_round_0)
        )
        result = run(runner)
        assert result.ok
        assert Fetch.ran == ["a"]
        first, second = result.calls
        assert (first.call.id, first.outcome.ok) == ("f1", True)
        assert second.call.id == "f2"
        assert second.outcome.failure is not None
        assert second.outcome.failure.code == ErrorCode.UNKNOWN_TOOL
        assert "Call one of the available tools: search." in second.message
        assert "fetch" not in second.message
        answered = tool_results(list(model.requests[2].messages))
        assert [(r.call_id, r.is_error, r.content) for r in answered][-1] == ("f2", True, second.message)
        assert [t.name for t in model.requests[1].tools] == ["search"]

    def test_a_model_that_admits_against_more_tools_is_still_held_to_the_turn(self) -> None:
        """
        A model client that admitted the call against every tool (not the request it answered) cannot make
        the runner run a tool this turn did not offer.
        """
        fresh()
        scripted = ScriptedClient(
            [
                reply("", call("fetch", '{"url": "a"}', id="f1")),
                reply("", call("fetch", '{"url": "b"}', id="f2")),
                reply("done"),
            ]
        )

        class Wide:
            """Answers from the script, admitted against the request with every tool."""

            async def complete(self, prepared: Prepared) -> Outcome:
                wide = prepared.request.with_tools([SEARCH.descriptor.tool, FETCH.descriptor.tool])
                outcome = scripted.answer(unwrap(prepare(prepared.config, wide)))
                scripted.requests[-1] = prepared.request
                return outcome

        runner = Runner(
            Wide(), CONFIG, reflect(SEARCH, FETCH), prepare_model_request=by_round(only_search_after_round_0)
        )
        result = run(runner)
        assert result.ok
        assert Fetch.ran == ["a"]
        assert result.calls[1].outcome.failure is not None
        assert result.calls[1].outcome.failure.code == ErrorCode.UNKNOWN_TOOL
        assert "fetch" not in result.calls[1].message

    def test_a_denial_lists_the_tools_offered_now(self) -> None:
        """A call the host denies is answered with the other tools this turn offers, not every tool."""
        fresh()
        model = ScriptedClient([reply("", call("search", '{"q": "x"}', id="s1")), reply("done")])

        def only_search(given: ModelRequest) -> ModelRequest | None:
            return attrs.evolve(given, request=given.request.with_tools([SEARCH.descriptor.tool]))

        runner = Runner(
            model,
            CONFIG,
            reflect(SEARCH, FETCH),
            prepare_model_request=by_round(only_search),
            allow_tool_call=lambda call, descriptor: False,
        )
        result = run(runner)
        assert result.ok
        assert result.calls[0].outcome.failure is not None
        assert result.calls[0].outcome.failure.code == ErrorCode.DENIED
        assert "Other available tools" not in result.calls[0].message
        assert "fetch" not in result.calls[0].message


class TestChoiceInTheRunner:
    """The runner answers a broken tool choice like any other issue."""

    def test_a_forced_choice_broken(self) -> None:
        """Round 0 forces ``search``; the model calls ``fetch``: refused unrun, told to call ``search``."""
        fresh()

        def force_search_first(given: ModelRequest) -> ModelRequest | None:
            return (
                None
                if given.round
                else attrs.evolve(given, request=given.request.with_tool_choice(UseTool("search")))
            )

        model = ScriptedClient([reply("", call("fetch", '{"url": "a"}', id="f1")), reply("done")])
        runner = Runner(
            model, CONFIG, reflect(SEARCH, FETCH), prepare_model_request=by_round(force_search_first)
        )
        result = run(runner)
        assert result.ok
        assert Fetch.ran == []
        (record,) = result.calls
        assert record.outcome.failure is not None
        assert record.outcome.failure.code == ErrorCode.TOOL_CHOICE_VIOLATION
        assert (
            record.outcome.failure.message
            == "that tool may not be called in this turn. Call the tool search instead."
        )
        assert tool_results(list(model.requests[1].messages))[0].call_id == "f1"

    def test_calls_outside_an_allowed_subset_and_inside_it(self) -> None:
        """Under ``AllowedTools``, the allowed call runs and the other is refused, in one batch."""
        fresh()

        def allow_search(given: ModelRequest) -> ModelRequest | None:
            choice = AllowedTools(["search"])
            return (
                None if given.round else attrs.evolve(given, request=given.request.with_tool_choice(choice))
            )

        model = ScriptedClient(
            [
                reply("", call("search", '{"q": "x"}', id="s1"), call("fetch", '{"url": "a"}', id="f1")),
                reply("ok"),
            ]
        )
        result = run(
            Runner(model, CONFIG, reflect(SEARCH, FETCH), prepare_model_request=by_round(allow_search))
        )
        assert result.ok
        assert (Search.ran, Fetch.ran) == (["x"], [])
        codes = [None if r.outcome.failure is None else r.outcome.failure.code for r in result.calls]
        assert codes == [None, ErrorCode.TOOL_CHOICE_VIOLATION]

    def test_a_required_call_not_made(self) -> None:
        """
        Round 0 requires a call and the model answers instead: the answer is kept and a user message tells it
        to call a tool; the model then calls, and the run goes on.
        """
        fresh()

        def require_first(given: ModelRequest) -> ModelRequest | None:
            choice = ToolChoice.REQUIRED
            return (
                None if given.round else attrs.evolve(given, request=given.request.with_tool_choice(choice))
            )

        model = ScriptedClient(
            [reply("I already know."), reply("", call("search", '{"q": "x"}')), reply("done")]
        )
        result = run(
            Runner(model, CONFIG, reflect(SEARCH, FETCH), prepare_model_request=by_round(require_first))
        )
        assert result.ok
        assert Search.ran == ["x"]
        told = describe_issue(ToolChoiceViolation(None, "", ("search", "fetch")))
        assert (
            told
            == "Error: this turn requires a tool call and none was made. Call one of the tools search, fetch."
        )
        assert list(model.requests[1].messages[-2:]) == [
            AssistantTurn("I already know.", provider=Provider.OPENAI_CHAT),
            UserMessage(told),
        ]
        assert result.rounds == 2

    def test_a_model_that_never_calls_ends_at_the_round_budget(self) -> None:
        """A choice that always requires a call, and a model that always answers: the run stays bounded."""
        fresh()
        model = ScriptedClient([ScriptedReply("no") for _ in range(4)])
        runner = Runner(model, CONFIG, reflect(SEARCH, FETCH), max_tool_rounds=3)
        forced = request("any-model", [user("go")]).with_tool_choice(UseTool("search"))
        result = asyncio.run(runner.arun(forced))
        assert result.stop is StopReason.ROUND_BUDGET
        assert (result.rounds, result.model_calls) == (3, 4)
        assert result.detail["last_tool_call_id"] == ""


class TestResumedTurn:
    """A run resumed from its pending turn admits that turn as the first run did: same tools, same choice."""

    def test_a_call_refused_by_the_choice_stays_refused_when_the_run_resumes(self) -> None:
        fresh()
        asked = make_tool(Search, name="search", contract=ToolContract(approval=Approval.ALWAYS))
        model = ScriptedClient(
            [
                reply("", call("search", '{"q": "x"}', id="s1"), call("fetch", '{"url": "a"}', id="f1")),
                reply("done"),
            ]
        )
        runner = Runner(model, CONFIG, reflect(asked, FETCH), approver=lambda _: Verdict.ASK)
        limited = request("any-model", [user("go")]).with_tool_choice(AllowedTools(["search"]))
        suspended = asyncio.run(runner.arun(limited))
        assert suspended.stop is StopReason.APPROVAL_REQUIRED
        resumed = asyncio.run(runner.arun(suspended.resume_request(), approved={"s1"}))
        assert resumed.ok
        assert (Search.ran, Fetch.ran) == (["x"], [])
        codes = {
            r.call.id: None if r.outcome.failure is None else r.outcome.failure.code for r in resumed.calls
        }
        assert codes == {"s1": None, "f1": ErrorCode.TOOL_CHOICE_VIOLATION}


def test_a_durable_record_of_a_required_call_not_made_replays_the_same() -> None:
    """A call-less ``NeedsTools`` is recorded as the answer it was, and resolves to the same outcome again."""
    config_ = CONFIG.with_tool_call_checks(ToolCallChecks.REPORT)
    prepared = unwrap(
        prepare(
            config_,
            request("m", [user("go")])
            .with_tools([SEARCH.descriptor.tool])
            .with_tool_choice(ToolChoice.REQUIRED),
        )
    )
    outcome = ScriptedClient([reply("no call")]).answer(prepared)
    assert isinstance(outcome, NeedsTools)
    assert outcome.issues == (ToolChoiceViolation(None, "", ("search",)),)
    assert _outcome_of(_terminal_value(outcome, prepared), prepared) == outcome
