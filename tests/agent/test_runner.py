"""The runner: §10 scenarios 13-30 of the reference, and the "do better" behaviours around the loop."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Sequence

import attrs
import pytest
from agent_tools import DRIVERS, EchoText, Programmable, drive, sequence

from llm_wire import config, request, user
from llm_wire.agent import (
    Approval,
    Compensation,
    ErrorCategory,
    HeartbeatPolicy,
    Idempotency,
    InvocationContext,
    OutputValidation,
    ProviderCapabilities,
    ResourceVersion,
    Runner,
    RunResult,
    StopReason,
    ToolContract,
    ToolInvocation,
    ToolOutcome,
    ToolProvider,
    ToolRetryPolicy,
    compose,
    make_tool,
    reflect,
)
from llm_wire.agent.events import (
    ApprovalRequest,
    ApprovalRequested,
    ModelCompleted,
    ModelStarted,
    ToolCompleted,
    ToolHeartbeat,
    ToolStarted,
    Verdict,
)
from llm_wire.agent.events import RunEvent as Event
from llm_wire.agent.scripted import ScriptedClient, ScriptError, call, reply
from llm_wire.agent.steps import Cancellation, Recovery
from llm_wire.contract import load
from llm_wire.message import Provider, ToolResult
from llm_wire.result import unwrap
from llm_wire.schema import DefinitionError

CONFIG = config(Provider.OPENAI_CHAT)
#: Generous bounds for "fires within": far above the timeouts under test, far below the sleeps.
BOUND = 3.0


VALUE_SCHEMA = unwrap(
    load({"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]})
)
KEYED = ToolContract(
    idempotency=Idempotency.IDEMPOTENT_WITH_KEY,
    retry=ToolRetryPolicy(max_attempts=2, initial_backoff=0, maximum_backoff=0, jitter=0),
    output_schema=VALUE_SCHEMA,
)
KEY = ProviderCapabilities(idempotency_key=True)


def go(
    provider: ToolProvider, replies: Sequence[object], **options: object
) -> tuple[RunResult, ScriptedClient, list[Event]]:
    """
    Run a scripted model against ``provider`` once (by ``arun``, or as ``driver`` says); the result, the
    model and the events.
    """
    model = ScriptedClient(replies)  # type: ignore[arg-type]
    events: list[Event] = []
    replay = options.pop("replay", None)
    driver = str(options.pop("driver", "arun"))
    runner = Runner(model, CONFIG, provider, on_event=events.append, **options)  # type: ignore[arg-type]
    result = drive(runner, request("m", [user("go")]), driver, replay=replay)
    return result, model, events


def one_call(name: str = "contract_tool", arguments: str = "{}") -> list[object]:
    return [reply("", call(name, arguments)), reply("done")]


def messages(result: RunResult) -> list[ToolResult]:
    return [m for m in result.request.messages if isinstance(m, ToolResult)]


def completed(events: Sequence[Event]) -> list[ToolOutcome]:
    return [event.outcome for event in events if isinstance(event, ToolCompleted)]


class TestContractExecution:
    """Scenarios 13-22: retries, compensation, output validation, preconditions, heartbeats."""

    @pytest.mark.parametrize("in_flight", [16, 1])
    def test_scenario_13_retry_then_success(self, in_flight: int) -> None:
        """A retryable failure is retried once, with the same idempotency key; the version is read."""
        busy = ToolOutcome.failed(ErrorCategory.UNAVAILABLE, "busy", "try again", retryable=True)
        ok = ToolOutcome.success(data={"value": "ok", "resource_version": "v2"})
        tool = Programmable(contract=KEYED, behave=sequence(busy, ok), capabilities=KEY)
        result, _, events = go(tool, one_call(), max_in_flight=in_flight)
        assert result.stop is StopReason.ANSWERED
        assert [i.attempt for i in tool.invocations] == [1, 2]
        assert len({i.idempotency_key for i in tool.invocations}) == 1
        (outcome,) = completed(events)
        assert outcome.ok
        assert outcome.resource_version == "v2"

    def test_scenario_14_compensate_then_retry(self) -> None:
        """A non-idempotent call is retried only after its partial effect was compensated."""
        self._compensate_then_retry("provider")

    def test_scenario_15_compensate_then_retry_through_a_composite(self) -> None:
        """The same through a composite, which routes compensation to the tool's own provider."""
        self._compensate_then_retry("composite")

    def _compensate_then_retry(self, through: str) -> None:
        contract = ToolContract(
            idempotency=Idempotency.NON_IDEMPOTENT,
            retry=ToolRetryPolicy(max_attempts=2, initial_backoff=0, maximum_backoff=0, jitter=0),
            compensation=Compensation(enabled=True),
        )
        partial = ToolOutcome.failed(
            ErrorCategory.UNAVAILABLE,
            "partial",
            "half done",
            retryable=True,
            compensation_required=True,
            compensation_token="undo-1",
        )
        tool = Programmable(
            contract=contract,
            behave=sequence(partial, ToolOutcome.success("done")),
            capabilities=ProviderCapabilities(compensation=True),
        )
        provider: ToolProvider = tool if through == "provider" else compose(tool)
        result, _, events = go(provider, one_call())
        assert result.stop is StopReason.ANSWERED
        assert len(tool.invocations) == 2
        assert len(tool.compensations) == 1
        assert tool.compensations[0][1].compensation_token == "undo-1"
        assert completed(events)[0].ok

    def test_scenario_16_provider_without_key_capability(self) -> None:
        """Keyed retries on a provider that does not consume keys are refused before any run."""
        tool = Programmable(contract=KEYED, capabilities=None)
        with pytest.raises(DefinitionError, match="consumes the key"):
            Runner(ScriptedClient([]), CONFIG, compose(tool))
        assert tool.invocations == []

    def test_scenario_17_strict_output(self) -> None:
        tool = Programmable(
            contract=KEYED, behave=sequence(ToolOutcome.success(data={"value": 42})), capabilities=KEY
        )
        result, _, events = go(tool, one_call())
        (outcome,) = completed(events)
        assert not outcome.ok
        assert outcome.category is ErrorCategory.INTERNAL
        assert "output_schema_issues" in outcome.metadata
        assert result.stop is StopReason.ANSWERED

    def test_scenario_18_warn_output(self) -> None:
        contract = attrs.evolve(KEYED, output_validation=OutputValidation.WARN)
        tool = Programmable(
            contract=contract, behave=sequence(ToolOutcome.success(data={"value": 42})), capabilities=KEY
        )
        _, _, events = go(tool, one_call())
        (outcome,) = completed(events)
        assert outcome.ok
        assert outcome.data == {"value": 42}
        assert outcome.metadata["output_schema_valid"] == "false"

    def test_scenario_19_precondition_missing(self) -> None:
        contract = ToolContract(resource_version=ResourceVersion(require_expected=True))
        tool = Programmable(contract=contract)
        _, _, events = go(tool, one_call(arguments="{}"))
        assert tool.invocations == []
        assert completed(events)[0].category is ErrorCategory.INVALID_INPUT

    def test_precondition_passed_to_the_tool(self) -> None:
        contract = ToolContract(resource_version=ResourceVersion(require_expected=True))
        tool = Programmable(contract=contract)
        go(tool, one_call(arguments='{"resource_version":"v1"}'))
        assert tool.invocations[0].expected_resource_version == "v1"

    def test_scenario_20_heartbeats(self) -> None:
        async def beating(invocation: ToolInvocation) -> ToolOutcome:
            for _ in range(5):
                invocation.context.heartbeat("working", 0.5)
                await asyncio.sleep(0.005)
            return ToolOutcome.success("ok")

        contract = ToolContract(heartbeat=HeartbeatPolicy(timeout=BOUND, minimum_interval=0.001))
        tool = Programmable(
            contract=contract, behave=beating, capabilities=ProviderCapabilities(heartbeat=True)
        )
        _, _, events = go(tool, one_call())
        assert any(isinstance(event, ToolHeartbeat) for event in events)
        assert completed(events)[0].ok

    def test_scenario_21_heartbeat_timeout(self) -> None:
        async def silent(invocation: ToolInvocation) -> ToolOutcome:
            await asyncio.sleep(BOUND * 3)
            return ToolOutcome.success("late")

        contract = ToolContract(heartbeat=HeartbeatPolicy(timeout=0.05))
        tool = Programmable(
            contract=contract, behave=silent, capabilities=ProviderCapabilities(heartbeat=True)
        )
        started = time.monotonic()
        _, _, events = go(tool, one_call())
        assert time.monotonic() - started < BOUND
        (outcome,) = completed(events)
        assert outcome.category is ErrorCategory.TIMEOUT
        assert outcome.metadata["heartbeat_timeout"] == "true"

    def test_scenario_22_straggler_in_a_thread_is_not_awaited(self) -> None:
        """A sync tool that ignores cancellation is abandoned; the run returns while it still runs."""
        release, finished = threading.Event(), threading.Event()

        @attrs.frozen
        class Stubborn:
            """Sleeps and ignores its context."""

            def invoke(self, ctx: InvocationContext) -> str:
                release.wait(BOUND * 3)
                finished.set()
                return "late"

        stubborn = make_tool(
            Stubborn,
            contract=ToolContract(heartbeat=HeartbeatPolicy(timeout=0.05)),
            capabilities=ProviderCapabilities(heartbeat=True),
        )
        runner = Runner(ScriptedClient(one_call("stubborn")), CONFIG, reflect(stubborn))  # type: ignore[arg-type]
        try:
            result = runner.run(request("m", [user("go")]))
            assert not finished.is_set()
            assert result.stop is StopReason.ANSWERED
            assert json.loads(messages(result)[0].content)["error"]["category"] == "timeout"
        finally:
            release.set()
            runner.close()


class TestLimits:
    """Scenarios 23-30: deadlines, the in-flight cap, identity, budgets, cancellation, hooks."""

    @pytest.mark.parametrize("driver", DRIVERS)
    def test_scenario_23_tool_timeout(self, driver: str) -> None:
        async def slow(invocation: ToolInvocation) -> ToolOutcome:
            await asyncio.sleep(BOUND * 3)
            return ToolOutcome.success("late")

        tool = Programmable(contract=ToolContract(timeout=0.05), behave=slow)
        started = time.monotonic()
        result, _, _ = go(tool, one_call(), driver=driver)
        assert time.monotonic() - started < BOUND
        assert result.text == "done"
        assert json.loads(messages(result)[-1].content)["error"]["category"] == "timeout"

    def test_scenario_24_straggler_holds_its_slot(self) -> None:
        """After a timed-out thread, with one slot, the next run's call is unavailable; one execution."""
        release = threading.Event()
        runs = []

        @attrs.frozen
        class Slow:
            """Sleeps past its deadline."""

            def invoke(self) -> str:
                runs.append(1)
                release.wait(BOUND * 3)
                return "late"

        slow = make_tool(Slow, contract=ToolContract(timeout=0.05))
        model = ScriptedClient([*one_call("slow"), *one_call("slow")])  # type: ignore[list-item]
        runner = Runner(model, CONFIG, reflect(slow), max_in_flight=1)
        try:
            first = runner.run(request("m", [user("go")]))
            second = runner.run(request("m", [user("go")]))
        finally:
            release.set()
            runner.close()
        assert json.loads(messages(first)[0].content)["error"]["category"] == "timeout"
        assert json.loads(messages(second)[0].content)["error"]["category"] == "unavailable"
        assert len(runs) == 1

    @pytest.mark.parametrize("driver", DRIVERS)
    def test_scenario_25_unregistered_tool_ends_the_run_by_option(self, driver: str) -> None:
        tool = Programmable()
        result, _, _ = go(tool, one_call("not_registered"), unknown_tools=Recovery.END, driver=driver)
        assert result.stop is StopReason.TOOL_CALL_DENIED
        assert tool.invocations == []

    def test_do_better_02_unknown_tool_is_a_tool_message(self) -> None:
        tool = Programmable()
        result, _, _ = go(tool, one_call("not_registered"))
        assert result.stop is StopReason.ANSWERED
        error = json.loads(messages(result)[0].content)["error"]
        assert error["category"] == "not_found"
        assert "contract_tool" in error["message"]
        assert "not_registered" not in error["message"]
        assert tool.invocations == []

    def test_do_better_02_denial_is_a_tool_message(self) -> None:
        denied_tool = Programmable()
        tool = compose(denied_tool, Programmable("other_tool"))
        result, _, _ = go(tool, one_call(), allow_tool_call=lambda call, descriptor: False)
        error = json.loads(messages(result)[0].content)["error"]
        assert error["category"] == "permission_denied"
        assert error["details"] == {"available": ["other_tool"]}
        assert result.stop is StopReason.ANSWERED
        denied, _, _ = go(
            Programmable(), one_call(), allow_tool_call=lambda c, d: False, denials=Recovery.END
        )
        assert denied.stop is StopReason.TOOL_CALL_DENIED
        assert denied_tool.invocations == []

    @pytest.mark.parametrize("driver", DRIVERS)
    def test_scenario_26_reused_call_id(self, driver: str) -> None:
        tool = Programmable()
        replies = [
            reply("", call("contract_tool", "{}", "same")),
            reply("", call("contract_tool", "{}", "same")),
        ]
        result, _, _ = go(tool, replies, driver=driver)
        assert result.stop is StopReason.INVALID_TOOL_CALL
        assert len(tool.invocations) == 1

    @pytest.mark.parametrize("driver", DRIVERS)
    def test_scenario_27_round_budget(self, driver: str) -> None:
        tool = Programmable()
        result, _, _ = go(tool, [reply("", call("contract_tool"))] * 3, max_tool_rounds=1, driver=driver)
        assert result.stop is StopReason.ROUND_BUDGET
        assert "tool round budget" in result.stop.describe()
        assert result.detail["used_tool_rounds"] == "1"
        assert result.detail["max_tool_rounds"] == "1"
        assert result.detail["last_tool_call"] == "contract_tool"
        assert result.last is not None

    @pytest.mark.parametrize("driver", DRIVERS)
    def test_scenario_28_cancelled_before_start(self, driver: str) -> None:
        model = ScriptedClient([reply("never")])
        runner = Runner(model, CONFIG, Programmable())
        cancel = Cancellation()
        cancel.cancel()
        result = drive(runner, request("m", [user("go")]), driver, cancel=cancel)
        assert result.stop is StopReason.CANCELLED
        assert model.requests == []

    @pytest.mark.parametrize("driver", DRIVERS)
    def test_cancelled_during_a_call(self, driver: str) -> None:
        cancel = Cancellation()

        async def hang(invocation: ToolInvocation) -> ToolOutcome:
            cancel.cancel()
            await asyncio.sleep(BOUND * 3)
            return ToolOutcome.success("late")

        runner = Runner(ScriptedClient(one_call()), CONFIG, Programmable(behave=hang))  # type: ignore[arg-type]
        started = time.monotonic()
        result = drive(runner, request("m", [user("go")]), driver, cancel=cancel)
        assert time.monotonic() - started < BOUND
        assert result.stop is StopReason.CANCELLED
        assert result.calls[0].outcome.category is ErrorCategory.CANCELLED

    @pytest.mark.parametrize("driver", DRIVERS)
    def test_run_deadline(self, driver: str) -> None:
        async def slow(invocation: ToolInvocation) -> ToolOutcome:
            await asyncio.sleep(BOUND * 3)
            return ToolOutcome.success("late")

        started = time.monotonic()
        result, _, _ = go(Programmable(behave=slow), one_call(), deadline=0.05, driver=driver)
        assert time.monotonic() - started < BOUND
        assert result.stop is StopReason.DEADLINE

    @pytest.mark.parametrize("driver", DRIVERS)
    def test_scenario_29_event_order(self, driver: str) -> None:
        seen: list[InvocationContext] = []

        async def watch(invocation: ToolInvocation) -> ToolOutcome:
            seen.append(invocation.context)
            return ToolOutcome.success("tool output")

        _, _, events = go(Programmable(behave=watch), one_call(), driver=driver)
        kinds = [type(event) for event in events]
        assert kinds == [
            ModelStarted,
            ModelCompleted,
            ToolStarted,
            ToolCompleted,
            ModelStarted,
            ModelCompleted,
        ]
        done = events[3]
        assert isinstance(done, ToolCompleted)
        assert done.message == "tool output"
        assert not seen[0].cancelled

    def test_scenario_30_prepare_tool_result_breaks_the_output_schema(self) -> None:
        contract = ToolContract(output_schema=unwrap(load({"type": "object"})))
        tool = Programmable(contract=contract, behave=sequence(ToolOutcome.success(data={"a": 1})))

        def rewrite(call: object, outcome: ToolOutcome) -> ToolOutcome:
            return attrs.evolve(outcome, data="not-an-object")

        result, _, events = go(tool, one_call(), prepare_tool_result=rewrite)
        (outcome,) = completed(events)
        assert outcome.failure is not None
        assert outcome.failure.code == "output_schema"
        assert outcome.category is ErrorCategory.INTERNAL
        assert json.loads(messages(result)[0].content)["error"]["category"] == "internal"
        assert result.stop is StopReason.ANSWERED

    def test_prepare_tool_result_rejects(self) -> None:
        result, _, _ = go(Programmable(), one_call(), prepare_tool_result=lambda call, outcome: None)
        assert result.stop is StopReason.RESULT_REJECTED


class TestDoBetter:
    """The §11 fixes that live in the loop."""

    def test_do_better_01_model_sees_argument_issues(self) -> None:
        tool = reflect(EchoText)
        replies = [
            reply("", call("echo_text", '{"text":1}')),
            reply("", call("echo_text", '{"text":"fixed"}')),
            reply("done"),
        ]
        result, _, _ = go(tool, replies)
        error = json.loads(messages(result)[0].content)["error"]
        assert error["category"] == "invalid_input"
        assert error["details"] == [{"message": "expected a string", "path": '$["text"]'}]
        assert messages(result)[1].content == "fixed"

    def test_do_better_03_raw_exception_text_only_in_logs_by_option(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        async def crash(invocation: ToolInvocation) -> ToolOutcome:
            raise RuntimeError("password=hunter2")

        with caplog.at_level(logging.WARNING, logger="llm_wire.agent"):
            result, _, _ = go(Programmable(behave=crash), one_call())
        error = json.loads(messages(result)[0].content)["error"]
        assert error["category"] == "internal"
        assert error["code"] == "tool_crashed"
        assert "hunter2" not in messages(result)[0].content
        assert "hunter2" not in caplog.text
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="llm_wire.agent"):
            go(Programmable(behave=crash), one_call(), log_exception_text=True)
        assert "hunter2" in caplog.text

    def test_do_better_06_no_data_under_an_output_schema(self) -> None:
        schema_tool = Programmable(contract=ToolContract(output_schema=VALUE_SCHEMA))
        _, _, events = go(schema_tool, one_call())
        (outcome,) = completed(events)
        assert outcome.failure is not None
        assert outcome.failure.code == "no_structured_data"
        plain = Programmable()
        _, _, events = go(plain, one_call())
        assert completed(events)[0].ok

    def test_do_better_08_approval_shows_redacted_arguments(self) -> None:
        schema = (
            '{"type":"object","properties":{"path":{"type":"string"},'
            '"token":{"type":"string","writeOnly":true},"note":{"type":"string"}}}'
        )
        asked: list[ApprovalRequest] = []

        def approver(request: ApprovalRequest) -> bool:
            asked.append(request)
            return True

        contract = ToolContract(approval=Approval.ALWAYS, secrets=frozenset({"note"}))
        tool = Programmable(contract=contract, schema=schema)
        arguments = '{"path":"/srv/a","token":"t0k3n","note":"private"}'
        _, _, events = go(tool, one_call(arguments=arguments), approver=approver)
        assert asked[0].arguments == {"path": "/srv/a", "token": "[redacted]", "note": "[redacted]"}
        assert asked[0].side_effect is contract.side_effect
        assert any(isinstance(event, ApprovalRequested) for event in events)
        assert len(tool.invocations) == 1

    def test_do_better_08_policy_decides_first(self) -> None:
        asked: list[ApprovalRequest] = []
        contract = ToolContract(approval=Approval.POLICY)

        def approver(request: ApprovalRequest) -> bool:
            asked.append(request)
            return False

        allowed = Programmable(contract=contract)
        go(allowed, one_call(), approval_policy=lambda r: Verdict.ALLOW, approver=approver)
        assert len(allowed.invocations) == 1
        assert asked == []
        escalated = Programmable(contract=contract)
        result, _, _ = go(escalated, one_call(), approval_policy=lambda r: Verdict.ASK, approver=approver)
        assert len(asked) == 1
        assert escalated.invocations == []
        assert json.loads(messages(result)[0].content)["error"]["code"] == "approval_denied"

    @pytest.mark.parametrize("driver", DRIVERS)
    def test_approval_without_approver_is_denied(self, driver: str) -> None:
        tool = Programmable(contract=ToolContract(approval=Approval.ALWAYS))
        result, _, _ = go(tool, one_call(), driver=driver)
        assert tool.invocations == []
        assert json.loads(messages(result)[0].content)["error"]["category"] == "permission_denied"

    @pytest.mark.parametrize("driver", DRIVERS)
    def test_manual_review_suspends(self, driver: str) -> None:
        tool = Programmable(contract=ToolContract(approval=Approval.ALWAYS))
        result, _, _ = go(tool, one_call(), approver=lambda r: Verdict.ASK, driver=driver)
        assert result.stop is StopReason.APPROVAL_REQUIRED
        assert tool.invocations == []

    def test_do_better_11_parallel_results_in_call_order(self) -> None:
        async def staggered(invocation: ToolInvocation) -> ToolOutcome:
            await asyncio.sleep(0.02 if invocation.call_id == "a" else 0)
            return ToolOutcome.success(invocation.call_id)

        replies = [
            reply("", call("contract_tool", "{}", "a"), call("contract_tool", "{}", "b")),
            reply("done"),
        ]
        result, _, events = go(Programmable(behave=staggered), replies, parallel=True)
        assert [m.content for m in messages(result)] == ["a", "b"]
        finished = [event.call.id for event in events if isinstance(event, ToolCompleted)]
        assert finished == ["a", "b"]

    def test_do_better_14_script_checks_requests(self) -> None:
        expect_result = reply("done", expect=lambda r: isinstance(r.messages[-1], ToolResult))
        result, model, _ = go(Programmable(), [reply("", call("contract_tool")), expect_result])
        assert result.text == "done"
        assert model.remaining == 0
        with pytest.raises(ScriptError, match="expects"):
            go(Programmable(), [reply("x", expect=lambda r: False)])
        with pytest.raises(ScriptError, match="too many"):
            go(Programmable(), one_call()[:1])

    def test_sync_facade(self) -> None:
        runner = Runner(
            ScriptedClient([reply("", call("echo_text", '{"text":"x"}')), reply("done")]),
            CONFIG,
            reflect(EchoText),
        )
        try:
            result = runner.run(request("m", [user("go")]))
        finally:
            runner.close()
        assert result.text == "done"
        assert messages(result)[0].content == "x"

    def test_wrong_types(self) -> None:
        with pytest.raises(TypeError, match="provider"):
            Runner(ScriptedClient([]), CONFIG, object())  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="config"):
            Runner(ScriptedClient([]), object(), Programmable())  # type: ignore[arg-type]
        runner = Runner(ScriptedClient([]), CONFIG, Programmable())
        with pytest.raises(TypeError, match="request"):
            asyncio.run(runner.arun("hi"))  # type: ignore[arg-type]


class TestResume:
    """A suspended run continues from its pending turn; replayed calls are not run again."""

    def test_approval_then_resume(self) -> None:
        tool = Programmable(contract=ToolContract(approval=Approval.ALWAYS))
        model = ScriptedClient([reply("", call("contract_tool", "{}", "w1")), reply("done")])
        runner = Runner(model, CONFIG, tool, approver=lambda asked: Verdict.ASK)
        suspended = asyncio.run(runner.arun(request("m", [user("go")])))
        assert suspended.stop is StopReason.APPROVAL_REQUIRED
        assert suspended.detail["tool_call_id"] == "w1"
        assert suspended.pending is not None
        assert tool.invocations == []
        resumed = asyncio.run(runner.arun(suspended.resume_request(), approved={"w1"}))
        assert resumed.stop is StopReason.ANSWERED
        assert [i.call_id for i in tool.invocations] == ["w1"]
        assert len(model.requests) == 2

    def test_replay_skips_the_tool(self) -> None:
        tool = Programmable()
        kept = ToolOutcome.success("from the store")
        result, _, events = go(tool, one_call(), replay=lambda c: kept)
        assert tool.invocations == []
        assert messages(result)[0].content == "from the store"
        assert not any(isinstance(event, ToolStarted) for event in events)


class TestCancellation:
    """A ``Cancellation`` outlives its runs without keeping them."""

    @pytest.mark.parametrize("driver", DRIVERS)
    def test_reused_across_runs(self, driver: str) -> None:
        cancel = Cancellation()
        runner = Runner(ScriptedClient([reply("a"), reply("b")]), CONFIG, Programmable())
        for expected in ("a", "b"):
            result = drive(runner, request("m", [user("go")]), driver, cancel=cancel)
            assert result.text == expected
        cancel.cancel()  # the runs' loops are closed: nothing is left to wake
        assert cancel.cancelled

    def test_option_types(self) -> None:
        with pytest.raises(TypeError, match="unknown_tools"):
            Runner(ScriptedClient([]), CONFIG, Programmable(), unknown_tools="end")  # type: ignore[arg-type]
