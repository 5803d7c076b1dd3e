"""
Properties of the runner: authorization before execution, no unsafe repeat, call order, no escape; each
holds for ``arun`` and for ``stream`` (read with ``async for`` and with ``for``).
"""

from __future__ import annotations

import asyncio
import errno
from collections.abc import Sequence

import pytest
from agent_tools import DRIVERS, Programmable, drive
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_wire import config, request, user
from llm_wire.agent import (
    Approval,
    Compensation,
    ErrorCategory,
    Idempotency,
    ProviderCapabilities,
    Runner,
    RunResult,
    StopReason,
    ToolContract,
    ToolDescriptor,
    ToolInvocation,
    ToolOutcome,
    ToolProvider,
    ToolRetryPolicy,
    compose,
)
from llm_wire.agent.events import ApprovalRequest
from llm_wire.agent.scripted import ScriptedClient, call, reply
from llm_wire.message import Provider, ToolCall, ToolResult

CONFIG = config(Provider.OPENAI_CHAT)


def _run(
    provider: ToolProvider, calls: Sequence[tuple[str, str]], driver: str, **options: object
) -> RunResult:
    batch = reply("", *(call(name, "{}", call_id) for call_id, name in calls))
    runner = Runner(ScriptedClient([batch, reply("done")]), CONFIG, provider, **options)  # type: ignore[arg-type]
    return drive(runner, request("m", [user("go")]), driver)


class TestAuthorizationFirst:
    """No call of a batch runs before every call of the batch is authorized."""

    @pytest.mark.parametrize("driver", DRIVERS)
    @settings(max_examples=60)
    @given(
        st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=6),
        st.booleans(),
    )
    def test_every_decision_precedes_every_run(
        self, driver: str, shape: list[tuple[bool, bool, bool]], parallel: bool
    ) -> None:
        log: list[tuple[str, str]] = []

        async def record(invocation: ToolInvocation) -> ToolOutcome:
            log.append(("run", invocation.call_id))
            await asyncio.sleep(0)
            return ToolOutcome.success("ok")

        free = Programmable("free_tool", behave=record)
        gated = Programmable("gated_tool", ToolContract(approval=Approval.ALWAYS), behave=record)
        allowed = {f"c{n}": allow for n, (_, allow, _) in enumerate(shape)}
        approved = {f"c{n}": grant for n, (_, _, grant) in enumerate(shape)}

        def allow(tool_call: ToolCall, descriptor: ToolDescriptor) -> bool:
            log.append(("allow", tool_call.id))
            return allowed[tool_call.id]

        def approver(asked: ApprovalRequest) -> bool:
            log.append(("approve", asked.call_id))
            return approved[asked.call_id]

        calls = [(f"c{n}", "gated_tool" if gate else "free_tool") for n, (gate, _, _) in enumerate(shape)]
        result = _run(
            compose(free, gated), calls, driver, allow_tool_call=allow, approver=approver, parallel=parallel
        )
        assert result.stop is StopReason.ANSWERED
        runs = [n for n, (kind, _) in enumerate(log) if kind == "run"]
        decisions = [n for n, (kind, _) in enumerate(log) if kind != "run"]
        assert not runs or not decisions or max(decisions) < min(runs)
        expected = {
            call_id
            for call_id, name in calls
            if allowed[call_id] and (name == "free_tool" or approved[call_id])
        }
        assert {call_id for kind, call_id in log if kind == "run"} == expected


_BEHAVIOURS = st.sampled_from(["crash", "timeout", "retryable", "partial", "success"])


class TestNoUnsafeRepeat:
    """A call that is not idempotent runs again only after a successful compensation."""

    @pytest.mark.parametrize("driver", DRIVERS)
    @settings(max_examples=40)
    @given(
        st.sampled_from([Idempotency.UNKNOWN, Idempotency.NON_IDEMPOTENT]),
        st.booleans(),
        st.integers(1, 3),
        st.lists(_BEHAVIOURS, min_size=1, max_size=4),
        st.lists(st.booleans(), min_size=1, max_size=4),
    )
    def test_runs_at_most_once_per_successful_compensation(
        self,
        driver: str,
        idempotency: Idempotency,
        compensate: bool,
        attempts: int,
        behaviours: list[str],
        compensations: list[bool],
    ) -> None:
        retry = ToolRetryPolicy(
            max_attempts=attempts if compensate else 1, initial_backoff=0, maximum_backoff=0
        )
        contract = ToolContract(
            idempotency=idempotency,
            retry=retry,
            timeout=0.02,
            compensation=Compensation(enabled=compensate, max_attempts=1),
        )

        async def behave(invocation: ToolInvocation) -> ToolOutcome:
            match behaviours[min(invocation.attempt, len(behaviours)) - 1]:
                case "crash":
                    raise RuntimeError("boom")
                case "timeout":
                    await asyncio.sleep(1.0)
                    return ToolOutcome.success("late")
                case "retryable":
                    return ToolOutcome.failed(ErrorCategory.UNAVAILABLE, "busy", "busy", retryable=True)
                case "partial":
                    return ToolOutcome.failed(
                        ErrorCategory.UNAVAILABLE,
                        "partial",
                        "partial",
                        retryable=True,
                        compensation_required=True,
                    )
                case _:
                    return ToolOutcome.success("ok")

        answers = iter(compensations * 4)

        def undo(invocation: ToolInvocation, failure: ToolOutcome) -> ToolOutcome:
            if next(answers):
                return ToolOutcome.success("undone")
            return ToolOutcome.failed(ErrorCategory.INTERNAL, "undo_failed", "could not undo")

        tool = Programmable(
            contract=contract,
            behave=behave,
            compensate=undo,
            capabilities=ProviderCapabilities(compensation=compensate),
        )
        result = _run(tool, [("c0", "contract_tool")], driver)
        assert result.stop is StopReason.ANSWERED
        assert len(tool.invocations) <= 1 + sum(tool.undone)
        if not compensate:  # at most once: a loaded machine may reach the deadline before the first start
            assert len(tool.invocations) <= 1


class TestCallOrder:
    """Under parallel execution, tool messages keep the model's call order."""

    @pytest.mark.parametrize("driver", DRIVERS)
    @settings(max_examples=40)
    @given(st.lists(st.integers(0, 3), min_size=1, max_size=6))
    def test_messages_in_call_order(self, driver: str, delays: list[int]) -> None:
        async def staggered(invocation: ToolInvocation) -> ToolOutcome:
            await asyncio.sleep(delays[int(invocation.call_id[1:])] / 1000)
            return ToolOutcome.success(invocation.call_id)

        calls = [(f"c{n}", "contract_tool") for n in range(len(delays))]
        result = _run(Programmable(behave=staggered), calls, driver, parallel=True)
        answered = [m for m in result.request.messages if isinstance(m, ToolResult)]
        assert [m.call_id for m in answered] == [call_id for call_id, _ in calls]
        assert [m.content for m in answered] == [call_id for call_id, _ in calls]


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


_RAISED = st.sampled_from(
    [
        ValueError("v"),
        KeyError("k"),
        RuntimeError("r"),
        OSError(errno.EAGAIN, "again"),
        TimeoutError(),
        RecursionError(),
        _Unprintable(),
        ZeroDivisionError(),
        None,
    ]
)


class TestNoEscape:
    """No exception a tool raises (nor a junk return value) escapes the runner."""

    @pytest.mark.parametrize("driver", DRIVERS)
    @settings(max_examples=40)
    @given(st.lists(_RAISED, min_size=1, max_size=4), st.booleans())
    def test_run_completes(self, driver: str, raised: list[BaseException | None], parallel: bool) -> None:
        async def bad(invocation: ToolInvocation) -> ToolOutcome:
            error = raised[int(invocation.call_id[1:])]
            if error is None:
                return "not an outcome"  # type: ignore[return-value]
            raise error

        calls = [(f"c{n}", "contract_tool") for n in range(len(raised))]
        result = _run(Programmable(behave=bad), calls, driver, parallel=parallel)
        assert result.stop is StopReason.ANSWERED
        assert all(not record.outcome.ok for record in result.calls)
