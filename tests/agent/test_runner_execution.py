"""
The runner where its parts meet (issue 23): late results dropped at every deadline, blocking work on the
runner's own threads, host hooks answered by type, no ``BaseException`` that hangs a run, and the in-flight
cap as a queue. Each behaviour is checked through ``arun`` and the sync ``run`` alike.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import attrs
import pytest
from agent_tools import Programmable, sequence

from llm_wire import config, request, user
from llm_wire.agent import (
    Approval,
    ErrorCategory,
    HostHookError,
    Idempotency,
    InvocationContext,
    Runner,
    RunResult,
    StopReason,
    ToolContract,
    ToolInvocation,
    ToolOutcome,
    ToolProvider,
    ToolRetryPolicy,
    TypedTool,
    make_tool,
    reflect,
)
from llm_wire.agent.events import ApprovalRequest, Verdict
from llm_wire.agent.scripted import ScriptedClient, call, reply
from llm_wire.message import Provider, ToolResult

CONFIG = config(Provider.OPENAI_CHAT)
#: Generous wall-clock bounds: far above the deadlines under test, far below the sleeps that break them.
BOUND = 1.2
T = TypeVar("T")


def within(seconds: float, work: Callable[[], T]) -> T:
    """``work()`` on a watched thread: what it returns or raises, or a failure if it hangs."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"the run hung for more than {seconds} s"
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


def drive(runner: Runner, mode: str, **options: Any) -> RunResult:
    """One run of ``runner`` through ``arun`` (under ``asyncio.run``) or the sync ``run``."""
    go = request("m", [user("go")])
    if mode == "arun":
        return within(10, lambda: asyncio.run(runner.arun(go, **options)))
    try:
        return within(10, lambda: runner.run(go, **options))
    finally:
        runner.close(timeout=0)


def runner_for(provider: ToolProvider, replies: Sequence[object], **options: Any) -> Runner:
    return Runner(ScriptedClient(replies), CONFIG, provider, **options)  # type: ignore[arg-type]


def one_call(name: str = "contract_tool") -> list[object]:
    return [reply("", call(name, "{}")), reply("done")]


def shown(result: RunResult) -> list[dict[str, Any]]:
    """What the model saw of each tool result, parsed."""
    return [json.loads(m.content) for m in result.request.messages if isinstance(m, ToolResult)]


MODES = pytest.mark.parametrize("mode", ["arun", "run"])


@attrs.frozen
class BlocksItsLoop:
    """An async tool that blocks its event loop past its deadline."""

    async def invoke(self) -> str:
        time.sleep(0.8)
        return "late"


@attrs.frozen
class Stubborn:
    """A sync tool that ignores its context and sleeps past its deadline."""

    def invoke(self, ctx: InvocationContext) -> str:
        time.sleep(2.5)
        return "late"


class TestLateResults:
    """A result that arrives after its deadline is discarded, however the tool misbehaved."""

    @MODES
    def test_a_tool_blocking_its_loop_past_its_timeout_is_timed_out(self, mode: str) -> None:
        tool = make_tool(BlocksItsLoop, contract=ToolContract(timeout=0.2))
        result = drive(runner_for(reflect(tool), one_call("blocks_its_loop")), mode)
        assert result.stop is StopReason.ANSWERED
        [seen] = shown(result)
        assert seen["ok"] is False
        assert seen["error"]["category"] == "timeout"

    @MODES
    def test_the_runs_deadline_holds_for_a_tool_blocking_its_loop(self, mode: str) -> None:
        tool = make_tool(BlocksItsLoop)  # no timeout of its own: only the run's deadline
        result = drive(runner_for(reflect(tool), one_call("blocks_its_loop"), deadline=0.3), mode)
        assert result.stop is StopReason.DEADLINE
        assert [c.outcome.category for c in result.calls] == [ErrorCategory.TIMEOUT]
        assert result.calls[0].outcome.metadata["late_result_discarded"] == "true"

    @MODES
    def test_the_runs_deadline_holds_for_a_model_blocking_its_loop(self, mode: str) -> None:
        scripted = ScriptedClient([reply("too late")])

        class Slow:
            async def complete(self, prepared: Any) -> Any:
                time.sleep(0.6)
                return await scripted.complete(prepared)

        runner = Runner(Slow(), CONFIG, Programmable(), deadline=0.2)
        result = drive(runner, mode)
        assert result.stop is StopReason.DEADLINE
        assert result.text != "too late"


class TestCutModelCalls:
    """A model call cut by the deadline or a cancellation has finished its cleanup when the run returns."""

    @MODES
    def test_a_model_call_cut_by_the_deadline_is_cleaned_up_before_the_run_returns(self, mode: str) -> None:
        cleaned = threading.Event()

        class Hanging:
            async def complete(self, prepared: Any) -> Any:
                try:
                    await asyncio.sleep(30)
                finally:
                    await asyncio.sleep(0.01)  # closing a connection takes a turn of the loop or two
                    cleaned.set()
                raise AssertionError("never answers")

        runner = Runner(Hanging(), CONFIG, Programmable(), deadline=0.2)
        result = drive(runner, mode)
        assert result.stop is StopReason.DEADLINE
        assert cleaned.is_set()

    @MODES
    def test_a_model_call_that_resists_cancellation_holds_the_run_a_bounded_time(self, mode: str) -> None:
        class Resisting:
            """Swallows the first cancellation and keeps going; gives in to the second."""

            async def complete(self, prepared: Any) -> Any:
                try:
                    await asyncio.sleep(30)
                except asyncio.CancelledError:
                    await asyncio.sleep(30)
                raise AssertionError("never answers")

        runner = Runner(Resisting(), CONFIG, Programmable(), deadline=0.2)
        started = time.monotonic()
        result = drive(runner, mode)
        assert time.monotonic() - started < BOUND
        assert result.stop is StopReason.DEADLINE


class TestOwnThreads:
    """Blocking work runs on the runner's own daemon threads; an abandoned one holds nothing."""

    def test_asyncio_run_does_not_wait_for_a_timed_out_sync_tool(self) -> None:
        tool = make_tool(Stubborn, contract=ToolContract(timeout=0.2))
        runner = runner_for(reflect(tool), one_call("stubborn"))
        started = time.monotonic()
        result = asyncio.run(runner.arun(request("m", [user("go")])))
        assert time.monotonic() - started < BOUND
        assert shown(result)[0]["error"]["category"] == "timeout"
        assert runner.in_flight == 1  # the straggler keeps its slot until its thread ends

    def test_asyncio_run_does_not_wait_for_a_sync_model_past_the_deadline(self) -> None:
        class Sleepy:
            def complete(self, prepared: Any) -> Any:
                time.sleep(2.5)
                raise AssertionError("never used")

        runner = Runner(Sleepy(), CONFIG, Programmable(), deadline=0.2)
        started = time.monotonic()
        result = asyncio.run(runner.arun(request("m", [user("go")])))
        assert time.monotonic() - started < BOUND
        assert result.stop is StopReason.DEADLINE

    def test_the_slot_is_given_back_when_the_thread_ends(self) -> None:
        release = threading.Event()

        @attrs.frozen
        class Held:
            """Waits to be released."""

            def invoke(self) -> str:
                release.wait(5)
                return "late"

        runner = runner_for(reflect(make_tool(Held, contract=ToolContract(timeout=0.1))), one_call("held"))
        asyncio.run(runner.arun(request("m", [user("go")])))
        assert runner.in_flight == 1
        release.set()
        deadline = time.monotonic() + 5
        while runner.in_flight and time.monotonic() < deadline:
            time.sleep(0.01)
        assert runner.in_flight == 0

    def test_close_waits_for_a_stragglers_thread(self) -> None:
        """``close`` gives a straggler's thread up to its timeout to end (it still holds its slot)."""
        tool = make_tool(Stubborn, contract=ToolContract(timeout=0.1))
        runner = runner_for(reflect(tool), one_call("stubborn"))
        runner.run(request("m", [user("go")]))
        assert runner.in_flight == 1
        runner.close(timeout=5)
        assert runner.in_flight == 0

    @pytest.mark.parametrize("mode", ["arun", "run"])
    def test_a_straggler_never_holds_the_process_exit(self, mode: str, tmp_path: Path) -> None:
        script = tmp_path / "straggler.py"
        script.write_text(
            f"""
import asyncio, time
import attrs
from llm_wire import config, request, user
from llm_wire.agent import Runner, ScriptedClient, ToolContract, call, make_tool, reflect, reply
from llm_wire.message import Provider

@attrs.frozen
class Stubborn:
    '''Sleeps and ignores its context.'''
    def invoke(self) -> str:
        time.sleep(30)
        return "late"

model = ScriptedClient([reply("", call("stubborn", "{{}}")), reply("done")])
tool = make_tool(Stubborn, contract=ToolContract(timeout=0.1))
runner = Runner(model, config(Provider.OPENAI_CHAT), reflect(tool))
go = request("m", [user("go")])
result = asyncio.run(runner.arun(go)) if {mode!r} == "arun" else runner.run(go)
print(result.text)
""",
            encoding="utf-8",
        )
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=20, check=False
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip() == "done"


class TestHostVerdicts:
    """A host hook answers with a ``Verdict`` or a ``bool``; anything else refuses the call."""

    @MODES
    @pytest.mark.parametrize("answer", [Verdict.DENY, False])
    def test_allow_tool_call_denies(self, mode: str, answer: object) -> None:
        tool = Programmable()
        result = drive(runner_for(tool, one_call(), allow_tool_call=lambda c, d: answer), mode)
        assert tool.invocations == []
        assert shown(result)[0]["error"]["code"] == "denied"

    @MODES
    def test_allow_tool_call_asks_the_approver(self, mode: str) -> None:
        tool, asked = Programmable(), []

        def approver(request: ApprovalRequest) -> Verdict:
            asked.append(request.call_id)
            return Verdict.DENY

        runner = runner_for(tool, one_call(), allow_tool_call=lambda c, d: Verdict.ASK, approver=approver)
        result = drive(runner, mode)
        assert len(asked) == 1
        assert tool.invocations == []
        assert shown(result)[0]["error"]["code"] == "approval_denied"

    @MODES
    @pytest.mark.parametrize("answer", ["deny", None, 0, "allow"])
    def test_allow_tool_call_with_another_answer_is_a_type_error(self, mode: str, answer: object) -> None:
        tool = Programmable()
        with pytest.raises(TypeError, match="allow_tool_call must return a Verdict or a bool"):
            drive(runner_for(tool, one_call(), allow_tool_call=lambda c, d: answer), mode)
        assert tool.invocations == []

    @MODES
    @pytest.mark.parametrize("hook", ["approval_policy", "approver"])
    def test_approval_hooks_with_another_answer_are_type_errors(self, mode: str, hook: str) -> None:
        tool = Programmable(contract=ToolContract(approval=Approval.POLICY))
        options: dict[str, Any] = {hook: lambda request: "deny"}
        if hook == "approver":
            options["approval_policy"] = lambda request: Verdict.ASK
        with pytest.raises(TypeError, match=f"{hook} must return a Verdict or a bool"):
            drive(runner_for(tool, one_call(), **options), mode)
        assert tool.invocations == []

    @MODES
    def test_a_policy_denial_by_bool(self, mode: str) -> None:
        tool = Programmable(contract=ToolContract(approval=Approval.POLICY))
        result = drive(runner_for(tool, one_call(), approval_policy=lambda request: False), mode)
        assert tool.invocations == []
        assert shown(result)[0]["error"]["code"] == "approval_denied"

    @MODES
    def test_a_draw_returning_another_type_is_a_type_error(self, mode: str) -> None:
        retried = ToolContract(
            idempotency=Idempotency.IDEMPOTENT,
            retry=ToolRetryPolicy(max_attempts=2, initial_backoff=0, maximum_backoff=0, jitter=0),
        )
        busy = ToolOutcome.failed(ErrorCategory.UNAVAILABLE, "busy", "busy")
        tool = Programmable(contract=retried, behave=sequence(busy, ToolOutcome.success("ok")))
        with pytest.raises(TypeError, match="draw must return a float, not str"):
            drive(runner_for(tool, one_call(), draw=lambda: "0.5"), mode)
        assert len(tool.invocations) == 1

    @MODES
    def test_a_model_returning_another_type_is_a_type_error(self, mode: str) -> None:
        class Wrong:
            async def complete(self, prepared: Any) -> Any:
                return {"text": "password=hunter2"}

        with pytest.raises(TypeError, match=r"model\.complete must return an Outcome, not dict") as raised:
            drive(Runner(Wrong(), CONFIG, Programmable()), mode)
        assert "hunter2" not in str(raised.value)


async def _raises(exc: BaseException) -> ToolOutcome:
    raise exc


@attrs.frozen
class ExitsSync:
    """Parses its arguments the argparse way."""

    def invoke(self) -> str:
        raise SystemExit(2)


@attrs.frozen
class InterruptedSync:
    """Interrupted."""

    def invoke(self) -> str:
        raise KeyboardInterrupt


@attrs.frozen
class ExitsAsync:
    """Parses its arguments the argparse way, asynchronously."""

    async def invoke(self) -> str:
        raise SystemExit(2)


class TestBaseExceptions:
    """No ``BaseException`` from a tool or a hook hangs a run or kills the loop thread."""

    @MODES
    @pytest.mark.parametrize("tool", [ExitsSync, InterruptedSync, ExitsAsync], ids=lambda t: t.__name__)
    def test_a_tool_raising_a_base_exception_fails_its_call(self, mode: str, tool: type[Any]) -> None:
        made: TypedTool[Any] = make_tool(tool)
        result = drive(runner_for(reflect(made), one_call(made.name)), mode)
        assert result.stop is StopReason.ANSWERED
        [seen] = shown(result)
        assert seen["error"]["category"] == "internal"
        assert seen["error"]["code"] == "tool_crashed"

    @MODES
    @pytest.mark.parametrize("exc", [SystemExit(3), KeyboardInterrupt()], ids=lambda e: type(e).__name__)
    def test_a_provider_raising_a_base_exception_fails_its_call(self, mode: str, exc: BaseException) -> None:
        tool = Programmable(behave=lambda invocation: _raises(exc))
        result = drive(runner_for(tool, one_call()), mode)
        assert shown(result)[0]["error"]["code"] == "tool_crashed"

    @pytest.mark.parametrize("exc", [SystemExit(3), KeyboardInterrupt()], ids=lambda e: type(e).__name__)
    def test_a_hook_raising_a_base_exception_reaches_the_caller_of_run(self, exc: BaseException) -> None:
        raised: list[bool] = []

        def approver(request: ApprovalRequest) -> Verdict:
            if not raised:
                raised.append(True)
                raise exc
            return Verdict.ALLOW

        tool = Programmable(contract=ToolContract(approval=Approval.ALWAYS))
        runner = runner_for(tool, [*one_call(), *one_call()], approver=approver)
        go = request("m", [user("go")])
        try:
            with pytest.raises(type(exc)):
                within(10, lambda: runner.run(go))
            # The loop thread lives on: the same runner serves the next run.
            assert within(10, lambda: runner.run(go)).text == "done"
        finally:
            runner.close(timeout=0)

    @MODES
    @pytest.mark.parametrize("hook", ["allow_tool_call", "approval_policy", "approver", "replay"])
    def test_a_hook_that_raises_is_a_typed_error(self, mode: str, hook: str) -> None:
        def fails(*args: object) -> Verdict:
            raise ValueError("password=hunter2")

        tool = Programmable(contract=ToolContract(approval=Approval.POLICY))
        options: dict[str, Any] = {} if hook == "replay" else {hook: fails}
        if hook == "approver":
            options["approval_policy"] = lambda request: Verdict.ASK
        run_options: dict[str, Any] = {"replay": fails} if hook == "replay" else {}
        if hook == "replay":
            options["approval_policy"] = lambda request: Verdict.ALLOW
        with pytest.raises(HostHookError) as raised:
            drive(runner_for(tool, one_call(), **options), mode, **run_options)
        assert raised.value.hook == hook
        assert raised.value.error_type == "ValueError"
        assert str(raised.value) == f"the {hook} hook raised ValueError"
        assert isinstance(raised.value.__cause__, ValueError)
        assert tool.invocations == []

    @MODES
    def test_prepare_tool_result_that_raises_is_a_typed_error(self, mode: str) -> None:
        """The tool has run: the hook's exception is the host's, never a retryable failure of the tool."""

        def fails(call: object, outcome: object) -> ToolOutcome:
            raise TimeoutError("password=hunter2")

        tool = Programmable()
        with pytest.raises(HostHookError) as raised:
            drive(runner_for(tool, one_call(), prepare_tool_result=fails), mode)
        assert str(raised.value) == "the prepare_tool_result hook raised TimeoutError"
        assert isinstance(raised.value.__cause__, TimeoutError)
        assert len(tool.invocations) == 1


class TestInFlightQueue:
    """``max_in_flight`` queues the calls of a larger parallel batch, each under its own deadline."""

    @MODES
    def test_a_batch_larger_than_the_cap_is_queued(self, mode: str) -> None:
        running, peak, lock = [0], [0], threading.Lock()

        async def busy(invocation: ToolInvocation) -> ToolOutcome:
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            await asyncio.sleep(0.05)
            with lock:
                running[0] -= 1
            return ToolOutcome.success("ok")

        tool = Programmable(behave=busy)
        batch = reply("", *(call("contract_tool", "{}") for _ in range(5)))
        result = drive(runner_for(tool, [batch, reply("done")], parallel=True, max_in_flight=2), mode)
        assert [seen == "ok" for seen in (c.outcome.content for c in result.calls)] == [True] * 5
        assert peak[0] == 2
        assert len(tool.invocations) == 5

    @MODES
    def test_a_queued_call_is_refused_at_its_deadline(self, mode: str) -> None:
        """The only slot is held by a straggler thread: the queued call gives up at its own deadline."""
        tool = make_tool(Stubborn, contract=ToolContract(timeout=0.2))
        batch = reply("", call("stubborn", "{}"), call("stubborn", "{}"))
        started = time.monotonic()
        runner = runner_for(reflect(tool), [batch, reply("done")], parallel=True, max_in_flight=1)
        result = drive(runner, mode)
        assert time.monotonic() - started < BOUND
        codes = [c.outcome.failure.code for c in result.calls if c.outcome.failure is not None]
        assert codes == [
            "outcome_unknown",
            "capacity_exhausted",
        ]  # the first started: it may have had its effect
        # The queued call never started, so the model may repeat it whatever the contract.
        assert [c.outcome.failure.retryable for c in result.calls if c.outcome.failure is not None] == [
            False,
            True,
        ]

    @MODES
    def test_queued_calls_start_in_arrival_order(self, mode: str) -> None:
        started: list[str] = []

        async def record(invocation: ToolInvocation) -> ToolOutcome:
            started.append(invocation.call_id)
            await asyncio.sleep(0.02)
            return ToolOutcome.success("ok")

        ids = [f"c{n}" for n in range(5)]
        batch = reply("", *(call("contract_tool", "{}", id=name) for name in ids))
        result = drive(
            runner_for(Programmable(behave=record), [batch, reply("done")], parallel=True, max_in_flight=1),
            mode,
        )
        assert [c.outcome.ok for c in result.calls] == [True] * 5
        assert started == ids

    @MODES
    def test_a_retry_queues_behind_the_calls_already_waiting(self, mode: str) -> None:
        """A call's next attempt is a new arrival: the freed slot goes to the first call already queued."""
        started: list[str] = []
        retried = ToolContract(
            idempotency=Idempotency.IDEMPOTENT,
            retry=ToolRetryPolicy(max_attempts=2, initial_backoff=0, maximum_backoff=0, jitter=0),
        )

        async def record(invocation: ToolInvocation) -> ToolOutcome:
            started.append(f"{invocation.call_id}/{invocation.attempt}")
            await asyncio.sleep(0.02)
            if invocation.call_id == "c0" and invocation.attempt == 1:
                return ToolOutcome.failed(ErrorCategory.UNAVAILABLE, "busy", "busy")
            return ToolOutcome.success("ok")

        batch = reply("", *(call("contract_tool", "{}", id=f"c{n}") for n in range(3)))
        tool = Programmable(contract=retried, behave=record)
        result = drive(runner_for(tool, [batch, reply("done")], parallel=True, max_in_flight=1), mode)
        assert [c.outcome.ok for c in result.calls] == [True] * 3
        assert started == ["c0/1", "c1/1", "c2/1", "c0/2"]

    @MODES
    @pytest.mark.parametrize("blocking", [False, True])
    def test_a_waiter_that_gave_up_does_not_take_the_slot(self, mode: str, blocking: bool) -> None:
        """
        The slot freed after a queued call's deadline goes to the next in the queue. A holder that blocks
        the loop frees it before the queued call sees its deadline pass: that call passes the slot on.
        """
        started: list[str] = []

        @attrs.frozen
        class Holder:
            """Holds the only slot for a while."""

            async def invoke(self) -> str:
                started.append("holder")
                if blocking:
                    time.sleep(0.3)
                else:
                    await asyncio.sleep(0.3)
                return "held"

        @attrs.frozen
        class Impatient:
            """Queues with a short timeout of its own."""

            async def invoke(self) -> str:
                started.append("impatient")
                return "never"

        @attrs.frozen
        class Patient:
            """Queues without a timeout."""

            async def invoke(self) -> str:
                started.append("patient")
                return "ok"

        tools = reflect(Holder, make_tool(Impatient, contract=ToolContract(timeout=0.1)), Patient)
        batch = reply("", call("holder"), call("impatient"), call("patient"), call("patient"))
        result = drive(runner_for(tools, [batch, reply("done")], parallel=True, max_in_flight=1), mode)
        assert [c.outcome.content for c in result.calls if c.outcome.ok] == ["held", "ok", "ok"]
        assert [c.outcome.failure.code for c in result.calls if c.outcome.failure is not None] == [
            "capacity_exhausted"
        ]
        assert started == ["holder", "patient", "patient"]

    def test_a_slot_is_handed_to_a_call_waiting_on_another_loop(self) -> None:
        """Two runs of one runner on two event loops share the cap: the second run's call waits its turn."""
        started: list[float] = []
        holding = threading.Event()

        async def hold(invocation: ToolInvocation) -> ToolOutcome:
            started.append(time.monotonic())
            holding.set()
            await asyncio.sleep(0.2)
            return ToolOutcome.success("ok")

        tool = Programmable(behave=hold)
        replies = [reply("", call("contract_tool")), reply("", call("contract_tool")), reply("a"), reply("b")]
        runner = runner_for(tool, replies, max_in_flight=1)
        go = request("m", [user("go")])
        first = threading.Thread(target=lambda: asyncio.run(runner.arun(go)), daemon=True)
        first.start()
        assert holding.wait(5)
        second = within(5, lambda: asyncio.run(runner.arun(go)))
        first.join(5)
        assert not first.is_alive()
        assert second.stop is StopReason.ANSWERED
        assert [c.outcome.ok for c in second.calls] == [True]
        assert len(started) == 2
        assert started[1] - started[0] >= 0.15  # it started once the first call gave its slot back
        assert runner.in_flight == 0
