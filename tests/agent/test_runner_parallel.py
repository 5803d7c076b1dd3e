"""
Parallel batches scheduled from the calls' contracts: reads (``NONE``, ``READ``) and commuting calls run
together; a write or destructive call that does not commute runs alone, in call order, between the calls
around it. Tool messages keep call order.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Mapping, Sequence

import attrs
import pytest
from agent_tools import Programmable
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_wire import config, request, user
from llm_wire.agent import (
    ProviderCapabilities,
    Runner,
    SideEffect,
    StopReason,
    ToolContract,
    ToolDescriptor,
    ToolInvocation,
    ToolOutcome,
    compose,
)
from llm_wire.agent._steps import Planned, stages
from llm_wire.agent.scripted import ScriptedClient, call, reply
from llm_wire.agent.steps import Cancellation, in_thread
from llm_wire.message import Provider, ToolCall, ToolResult
from llm_wire.result import unwrap

CONFIG = config(Provider.OPENAI_CHAT)
#: How long a read waits for the company it must have; reached only when the schedule is wrong.
COMPANY_WAIT = 2.0
#: How long a call that needs no company lasts: long enough for any call run beside it to start.
BRIEF = 0.001
#: At least 500 generated batches, more under a profile that asks for more.
BATCHES = max(500, settings().max_examples)


class Recorder:
    """The start and end of every call in one order, from the loop and from worker threads alike."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.events: list[tuple[str, str]] = []
        self._started: set[str] = set()

    def start(self, call_id: str) -> None:
        with self._changed:
            self.events.append(("start", call_id))
            self._started.add(call_id)
            self._changed.notify_all()

    def end(self, call_id: str) -> None:
        with self._changed:
            self.events.append(("end", call_id))

    def all_started(self, call_ids: frozenset[str]) -> bool:
        with self._changed:
            return call_ids <= self._started

    def wait_for_start(self, call_ids: frozenset[str]) -> None:
        """Block (a worker thread) until every call of ``call_ids`` has started, at most ``COMPANY_WAIT``."""
        with self._changed:
            self._changed.wait_for(lambda: call_ids <= self._started, COMPANY_WAIT)


@attrs.frozen
class Kind:
    """What a generated tool declares and how it runs: async on the loop or sync on a worker thread."""

    effect: SideEffect
    commutes: bool
    sync: bool

    @property
    def name(self) -> str:
        runs = "sync" if self.sync else "async"
        return f"{self.effect.value}_{'commutes' if self.commutes else 'alone'}_{runs}"

    @property
    def alone(self) -> bool:
        """The test's own reading of the rule: what is neither a read nor commuting runs alone."""
        return self.effect in (SideEffect.WRITE, SideEffect.DESTRUCTIVE) and not self.commutes


KINDS = [
    Kind(effect, commutes, sync)
    for effect in SideEffect
    for commutes in (False, True)
    for sync in (False, True)
]
DESCRIPTORS = {
    kind.name: unwrap(
        ToolDescriptor.from_json_schema(
            kind.name,
            "A tool that records when it runs.",
            {"type": "object"},
            ToolContract(side_effect=kind.effect, commutes=kind.commutes),
        )
    )
    for kind in KINDS
}
BY_NAME = {kind.name: kind for kind in KINDS}


class Recording:
    """
    A real provider of every ``Kind``: each call records its start and end and answers its own id. A call
    with company (``company[id]``: the calls of its stage) ends only once all of them have started, so a
    stage run one call at a time shows as a call that waited ``COMPANY_WAIT`` alone.
    """

    def __init__(self, recorder: Recorder, company: Mapping[str, frozenset[str]]) -> None:
        self.recorder = recorder
        self.company = company

    def descriptors(self) -> Sequence[ToolDescriptor]:
        return tuple(DESCRIPTORS.values())

    def capabilities(self, name: str) -> ProviderCapabilities | None:
        return None

    async def invoke(self, invocation: ToolInvocation) -> ToolOutcome:
        if BY_NAME[invocation.name].sync:
            await in_thread(self._blocking, invocation.call_id)
        else:
            await self._async(invocation.call_id)
        return ToolOutcome.success(invocation.call_id)

    async def _async(self, call_id: str) -> None:
        self.recorder.start(call_id)
        company = self.company.get(call_id)
        if company is None:
            await asyncio.sleep(BRIEF)
        else:
            limit = time.monotonic() + COMPANY_WAIT
            while not self.recorder.all_started(company) and time.monotonic() < limit:
                await asyncio.sleep(BRIEF)
        self.recorder.end(call_id)

    def _blocking(self, call_id: str) -> None:
        self.recorder.start(call_id)
        company = self.company.get(call_id)
        if company is None:
            time.sleep(BRIEF)
        else:
            self.recorder.wait_for_start(company)
        self.recorder.end(call_id)


@attrs.frozen
class Generated:
    """One call of a generated batch: its tool's kind, and whether it runs at all."""

    kind: Kind
    #: ``run``; ``unknown`` (a tool that is not offered); ``denied`` (by ``allow_tool_call``).
    fate: str


CALLS = st.builds(
    Generated,
    st.sampled_from(KINDS),
    st.sampled_from(["run"] * 8 + ["unknown", "denied"]),
)


def _segments(batch: Sequence[Generated]) -> list[list[int]]:
    """The indexes of the calls that run, between the calls that run alone, by the test's own reading."""
    segments: list[list[int]] = [[]]
    for n, generated in enumerate(batch):
        if generated.fate != "run":
            continue
        if generated.kind.alone:
            segments.extend([[n], []])
        else:
            segments[-1].append(n)
    return [segment for segment in segments if segment]


def _positions(events: Sequence[tuple[str, str]]) -> tuple[dict[str, int], dict[str, int]]:
    starts = {call_id: n for n, (what, call_id) in enumerate(events) if what == "start"}
    ends = {call_id: n for n, (what, call_id) in enumerate(events) if what == "end"}
    return starts, ends


class TestBarrierProperty:
    """Over generated batches: no write overlaps another call, order holds around it, reads overlap."""

    @settings(max_examples=BATCHES, deadline=None)
    @given(st.lists(CALLS, min_size=1, max_size=8), st.sampled_from(["arun", "run"]))
    def test_writes_run_alone_and_reads_together(self, batch: list[Generated], driver: str) -> None:
        ids = [f"c{n}" for n in range(len(batch))]
        segments = _segments(batch)
        company = {
            ids[n]: frozenset(ids[m] for m in segment)
            for segment in segments
            if len(segment) > 1
            for n in segment
        }
        recorder = Recorder()
        denied = {ids[n] for n, generated in enumerate(batch) if generated.fate == "denied"}

        def allow(tool_call: ToolCall, descriptor: ToolDescriptor) -> bool:
            return tool_call.id not in denied

        calls = [
            call("not_offered" if generated.fate == "unknown" else generated.kind.name, "{}", call_id)
            for call_id, generated in zip(ids, batch, strict=True)
        ]
        runner = Runner(
            ScriptedClient([reply("", *calls), reply("done")]),
            CONFIG,
            Recording(recorder, company),
            parallel=True,
            allow_tool_call=allow,
        )
        go = request("m", [user("go")])
        if driver == "arun":
            result = asyncio.run(runner.arun(go))
        else:
            try:
                result = runner.run(go)
            finally:
                runner.close()
        assert result.stop is StopReason.ANSWERED

        # Tool messages come back in call order, each with its own call's answer.
        answered = [m for m in result.request.messages if isinstance(m, ToolResult)]
        assert [m.call_id for m in answered] == ids
        ran = [ids[n] for n, generated in enumerate(batch) if generated.fate == "run"]
        assert [m.content for m in answered if m.call_id in ran] == ran

        # Every call that runs starts once and ends once; no other call runs.
        for what in ("start", "end"):
            assert sorted(call_id for seen, call_id in recorder.events if seen == what) == sorted(ran)
        starts, ends = _positions(recorder.events)
        # A call that runs alone overlaps no other call, and the calls before it (in call order) end
        # before it starts, the calls after it start after it ends.
        alone = {ids[n] for n, generated in enumerate(batch) if generated.kind.alone}
        for i, earlier in enumerate(ran):
            for later in ran[i + 1 :]:
                if earlier in alone or later in alone:
                    assert ends[earlier] < starts[later], (earlier, later, recorder.events)
        # The calls between two barriers run together (no cap: the default 16 slots exceed a batch):
        # each overlaps every other of its stage.
        for segment in segments:
            for n in segment:
                for m in segment:
                    if n != m:
                        assert starts[ids[n]] < ends[ids[m]], (ids[n], ids[m], recorder.events)


def _planned(name: str, contract: ToolContract, *, preset: bool = False) -> Planned:
    descriptor = unwrap(ToolDescriptor.from_json_schema(name, "A tool.", {"type": "object"}, contract))
    outcome = ToolOutcome.success("already") if preset else None
    return Planned(ToolCall(name, name, "{}"), descriptor, None, outcome)


class TestStages:
    """``stages`` splits a batch at the calls that run alone, keeping call order."""

    def test_a_write_splits_the_reads_around_it(self) -> None:
        read = ToolContract(side_effect=SideEffect.READ)
        plan = [
            _planned("r1", read),
            _planned("n2", ToolContract()),
            _planned("w3", ToolContract(side_effect=SideEffect.WRITE)),
            _planned("r4", read),
            _planned("c5", ToolContract(side_effect=SideEffect.WRITE, commutes=True)),
            _planned("d6", ToolContract(side_effect=SideEffect.DESTRUCTIVE)),
            _planned("d7", ToolContract(side_effect=SideEffect.DESTRUCTIVE)),
            _planned("w8", ToolContract(side_effect=SideEffect.WRITE), preset=True),
            _planned("r9", read),
        ]
        names = [[planned.call.id for planned in stage] for stage in stages(plan)]
        assert names == [["r1", "n2"], ["w3"], ["r4", "c5"], ["d6"], ["d7"], ["w8", "r9"]]

    def test_a_call_without_a_descriptor_runs_with_the_others(self) -> None:
        unknown = Planned(ToolCall("u", "u", "{}"), None, None, ToolOutcome.success("unknown"))
        write = _planned("w", ToolContract(side_effect=SideEffect.WRITE))
        assert [[p.call.id for p in stage] for stage in stages([unknown, write, unknown])] == [
            ["u"],
            ["w"],
            ["u"],
        ]

    def test_empty(self) -> None:
        assert stages([]) == ()


def _recording_tool(name: str, contract: ToolContract, log: list[tuple[str, str]]) -> Programmable:
    async def record(invocation: ToolInvocation) -> ToolOutcome:
        log.append(("start", invocation.call_id))
        await asyncio.sleep(0.01)
        log.append(("end", invocation.call_id))
        return ToolOutcome.success(invocation.call_id)

    return Programmable(name, contract, behave=record)


READ = ToolContract(side_effect=SideEffect.READ)
WRITE = ToolContract(side_effect=SideEffect.WRITE)


class TestWithinTheSchedule:
    """Stops, cancellation and the in-flight cap keep working inside the stages."""

    def test_a_rejected_result_starts_no_later_stage(self) -> None:
        """A stop in a stage ends the batch there: the write after it never runs."""
        log: list[tuple[str, str]] = []
        provider = compose(_recording_tool("look", READ, log), _recording_tool("save", WRITE, log))
        batch = reply("", call("look", "{}", "r1"), call("look", "{}", "r2"), call("save", "{}", "w3"))

        def reject_r2(tool_call: ToolCall, outcome: ToolOutcome) -> ToolOutcome | None:
            return None if tool_call.id == "r2" else outcome

        runner = Runner(
            ScriptedClient([batch, reply("done")]),
            CONFIG,
            provider,
            parallel=True,
            prepare_tool_result=reject_r2,
        )
        result = asyncio.run(runner.arun(request("m", [user("go")])))
        assert result.stop is StopReason.RESULT_REJECTED
        assert result.detail["tool_call_id"] == "r2"
        assert sorted(call_id for _, call_id in log) == ["r1", "r1", "r2", "r2"]

    def test_a_write_after_a_cancellation_never_starts(self) -> None:
        cancel = Cancellation()
        log: list[tuple[str, str]] = []

        async def cancel_then_end(invocation: ToolInvocation) -> ToolOutcome:
            log.append(("start", invocation.call_id))
            cancel.cancel()
            return ToolOutcome.success(invocation.call_id)

        provider = compose(
            Programmable("look", READ, behave=cancel_then_end), _recording_tool("save", WRITE, log)
        )
        batch = reply("", call("look", "{}", "r1"), call("save", "{}", "w2"))
        runner = Runner(ScriptedClient([batch, reply("done")]), CONFIG, provider, parallel=True)
        result = asyncio.run(runner.arun(request("m", [user("go")]), cancel=cancel))
        assert result.stop is StopReason.CANCELLED
        assert log == [("start", "r1")]
        assert [record.call.id for record in result.calls] == ["r1", "w2"]
        failure = result.calls[1].outcome.failure
        assert failure is not None
        assert failure.code == "cancelled"
        assert "before it started" in failure.message

    @pytest.mark.parametrize("driver", ["arun", "run"])
    def test_the_cap_bounds_a_stage_and_the_write_still_runs_alone(self, driver: str) -> None:
        log: list[tuple[str, str]] = []
        provider = compose(_recording_tool("look", READ, log), _recording_tool("save", WRITE, log))
        reads = [call("look", "{}", f"r{n}") for n in range(4)]
        batch = reply("", *reads, call("save", "{}", "w"), call("look", "{}", "r4"))
        runner = Runner(
            ScriptedClient([batch, reply("done")]), CONFIG, provider, parallel=True, max_in_flight=2
        )
        go = request("m", [user("go")])
        if driver == "arun":
            result = asyncio.run(runner.arun(go))
        else:
            try:
                result = runner.run(go)
            finally:
                runner.close()
        assert result.stop is StopReason.ANSWERED
        running, peak = 0, 0
        for what, _ in log:
            running += 1 if what == "start" else -1
            peak = max(peak, running)
        assert peak == 2
        at = log.index(("start", "w"))
        assert log[at + 1] == ("end", "w")
        assert {call_id for _, call_id in log[:at]} == {"r0", "r1", "r2", "r3"}
        assert log[at + 2 :] == [("start", "r4"), ("end", "r4")]
