"""
Promises the plain runner keeps at its seams (issue 23): retry advice that is safe by the contract, and tool
output bounded by default. ``tests/test_durable.py::TestSeams`` checks that the durable runner agrees.
"""

from __future__ import annotations

import asyncio
import json

from agent_tools import Programmable, sequence
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_wire import config, request, user
from llm_wire.agent import (
    ErrorCategory,
    ErrorCode,
    Idempotency,
    OutputCeilings,
    ProviderCapabilities,
    Runner,
    RunResult,
    SideEffect,
    ToolContract,
    ToolInvocation,
    ToolOutcome,
)
from llm_wire.agent.events import RunEvent, ToolCompleted, ToolOutputTruncated
from llm_wire.agent.projection import HeuristicEstimator, unbounded
from llm_wire.agent.scripted import ScriptedClient, call, reply
from llm_wire.message import Provider, ToolResult

CONFIG = config(Provider.OPENAI_CHAT)


def _run(tool: Programmable, **options: object) -> tuple[str, list[RunEvent]]:
    """The tool message the model saw for one call, and the run's events."""
    events: list[RunEvent] = []
    model = ScriptedClient([reply("", call(tool.descriptor.name, "{}", "c1")), reply("done")])
    runner = Runner(model, CONFIG, tool, on_event=events.append, **options)  # type: ignore[arg-type]
    result: RunResult = asyncio.run(runner.arun(request("m", [user("go")])))
    [shown] = [m.content for m in result.request.messages if isinstance(m, ToolResult)]
    return shown, events


async def _overrun(invocation: ToolInvocation) -> ToolOutcome:
    await asyncio.sleep(1.0)
    return ToolOutcome.success("charged")


class TestRetryAdvice:
    """The ``retryable`` the model sees is true only when repeating the call is safe by its contract."""

    def test_timed_out_payment_is_outcome_unknown(self) -> None:
        """A destructive, non-idempotent call past its deadline may have taken effect: not retryable."""
        contract = ToolContract(
            side_effect=SideEffect.DESTRUCTIVE, idempotency=Idempotency.NON_IDEMPOTENT, timeout=0.1
        )
        shown, _ = _run(Programmable("pay", contract, behave=_overrun))
        error = json.loads(shown)["error"]
        assert (error["category"], error["code"], error["retryable"]) == ("timeout", "outcome_unknown", False)
        assert "may have taken effect" in error["message"]

    def test_timed_out_idempotent_call_stays_retryable(self) -> None:
        """An idempotent call past its deadline is a plain, retryable timeout."""
        contract = ToolContract(idempotency=Idempotency.IDEMPOTENT, timeout=0.1)
        shown, _ = _run(Programmable("lookup", contract, behave=_overrun))
        error = json.loads(shown)["error"]
        assert (error["code"], error["retryable"]) == ("timeout", True)

    def test_keyed_call_is_safe_only_with_a_provider_that_consumes_the_key(self) -> None:
        """``idempotent_with_key`` counts as safe only when the provider declares it consumes the key."""
        contract = ToolContract(idempotency=Idempotency.IDEMPOTENT_WITH_KEY, timeout=0.1)
        keyed = ProviderCapabilities(idempotency_key=True)
        shown, _ = _run(Programmable("put", contract, behave=_overrun, capabilities=keyed))
        assert json.loads(shown)["error"]["retryable"] is True
        shown, _ = _run(Programmable("put", contract, behave=_overrun))
        assert json.loads(shown)["error"]["code"] == ErrorCode.OUTCOME_UNKNOWN

    def test_unsafe_tool_hint_is_not_passed_on(self) -> None:
        """A non-idempotent tool's own ``retryable`` hint does not reach the model; its code stays."""
        busy = ToolOutcome.failed(ErrorCategory.UNAVAILABLE, "busy", "try later", retryable=True)
        contract = ToolContract(idempotency=Idempotency.NON_IDEMPOTENT)
        shown, events = _run(Programmable("send", contract, behave=sequence(busy)))
        error = json.loads(shown)["error"]
        assert (error["code"], error["retryable"]) == ("busy", False)
        [completed] = [e for e in events if isinstance(e, ToolCompleted)]
        assert completed.outcome.failure is not None
        assert completed.outcome.failure.retryable is False  # the store keeps what the model saw


def _text(size: int) -> ToolOutcome:
    return ToolOutcome.success("HEAD" + "é" * (size // 2) + "TAIL")


class TestOutputBounds:
    """With no ``project_output`` given, what the model sees is within the default and the tool's ceilings."""

    def test_large_text_is_bounded_by_default(self) -> None:
        """240 KB of text reaches the model within 64 KiB, truncated and reported; hooks get it whole."""
        large = ToolOutcome.success("x" * 240_010)
        shown, events = _run(Programmable("dump", behave=sequence(large)))
        assert len(shown.encode()) <= 65536
        assert HeuristicEstimator().estimate(shown) <= 10000
        [truncated] = [e for e in events if isinstance(e, ToolOutputTruncated)]
        assert truncated.report.original_bytes == 240_010
        [completed] = [e for e in events if isinstance(e, ToolCompleted)]
        assert completed.outcome.content == large.content
        assert completed.message == shown

    def test_tool_ceilings_hold_without_a_projector(self) -> None:
        """A tool's ``OutputCeilings(max_bytes=512)`` holds in a runner built with no projection options."""
        contract = ToolContract(output_ceilings=OutputCeilings(max_bytes=512))
        shown, _ = _run(Programmable("dump", contract, behave=sequence(_text(10_000))))
        assert len(shown.encode()) <= 512

    def test_unbounded_is_the_explicit_opt_out(self) -> None:
        """``project_output=unbounded`` sends the canonical text whole."""
        large = ToolOutcome.success("x" * 240_010)
        shown, events = _run(Programmable("dump", behave=sequence(large)), project_output=unbounded)
        assert shown == large.content
        assert not any(isinstance(e, ToolOutputTruncated) for e in events)

    @settings(max_examples=40, deadline=None)
    @given(
        st.sampled_from(["text", "structured", "failure"]),
        st.text(min_size=1, max_size=5).filter(lambda s: s.isprintable()),
        st.integers(0, 30_000),
        st.integers(256, 70_000),
        st.integers(64, 12_000),
    )
    def test_any_output_fits_any_ceilings(
        self, kind: str, piece: str, times: int, max_bytes: int, max_tokens: int
    ) -> None:
        """Text, structured data and failures fit both ceilings; structured payloads stay JSON."""
        if kind == "text":
            outcome = ToolOutcome.success(piece * times)
        elif kind == "structured":
            outcome = ToolOutcome.success("rows", {"rows": [piece] * (times % 2000), "all": piece * times})
        else:
            outcome = ToolOutcome.failed(ErrorCategory.CONFLICT, "c", piece * times, details=[piece] * 50)
        ceilings = OutputCeilings(max_bytes=max_bytes, max_tokens=max_tokens)
        shown, events = _run(Programmable("t", ToolContract(output_ceilings=ceilings), sequence(outcome)))
        assert len(shown.encode()) <= min(max_bytes, 65536)
        assert HeuristicEstimator().estimate(shown) <= min(max_tokens, 10000)
        if kind != "text":
            json.loads(shown)
        [completed] = [e for e in events if isinstance(e, ToolCompleted)]
        assert completed.outcome == outcome
        assert completed.outcome.data == outcome.data
