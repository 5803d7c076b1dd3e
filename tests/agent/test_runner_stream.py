"""
``Runner.stream``: the run's result is ``run``'s, its events are ``on_event``'s with each model call's
progress between, over real SSE from the fake provider on every wire; a cut stream is a typed failure, never
an exception; closing the stream stops the run and leaves nothing running; the feed is bounded.
(The properties ``run`` has, authorization first, order and bounds, run against ``stream`` too:
``test_runner_properties`` and ``test_runner`` take ``DRIVERS``.)
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence

import attrs
import pytest
from agent_tools import DRIVERS, EchoText, Programmable, ended
from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_wire import Prepared, config, request, user
from llm_wire.agent import (
    HeartbeatPolicy,
    HostHookError,
    ProviderCapabilities,
    Runner,
    RunResult,
    StopReason,
    ToolContract,
    ToolInvocation,
    ToolOutcome,
    reflect,
)
from llm_wire.agent._streaming import BACKLOG
from llm_wire.agent.events import (
    ModelCompleted,
    ModelStarted,
    RunCompleted,
    RunEvent,
    StreamEvent,
    ToolCompleted,
    ToolHeartbeat,
    ToolStarted,
)
from llm_wire.agent.scripted import ScriptedClient, ScriptedReply, call, reply
from llm_wire.agent.steps import Cancellation
from llm_wire.message import Provider
from llm_wire.outcome import Failure, Outcome, TransportError, TransportProblem
from llm_wire.providers.response import ArgumentsDelta, TextDelta, ToolCallStarted
from llm_wire.transport import AsyncClient, Client
from llm_wire.transport.fake import FakeCall, FakeProvider, Reply, answer

CONFIG = config(Provider.OPENAI_CHAT)
#: Generous bounds for "ends within": far above the deadlines under test, far below the stalls.
BOUND = 3.0
PROGRESS = (TextDelta, ToolCallStarted, ArgumentsDelta)
IDS = {"run_id": "run-1", "trace_id": "trace-1"}
#: One provider for the runs compared: a request holds its tools, which compare by identity.
ECHO = reflect(EchoText)


def read(runner: Runner, *, stop_after: int | None = None, **options: object) -> list[StreamEvent]:
    """The events of a run streamed with ``async for`` (the first ``stop_after`` of them, then closed)."""

    async def go() -> list[StreamEvent]:
        seen: list[StreamEvent] = []
        async with runner.stream(request("m", [user("go")]), **options) as stream:  # type: ignore[arg-type]
            async for event in stream:
                seen.append(event)
                if len(seen) == stop_after:
                    break
        return seen

    return asyncio.run(go())


def logged(rounds: Sequence[Sequence[tuple[str, str]]], budget: int) -> tuple[Runner, list[RunEvent]]:
    """A runner of ``EchoText`` answering from ``rounds``, and the events its ``on_event`` gets."""
    events: list[RunEvent] = []
    model = ScriptedClient(_script(rounds))
    return Runner(model, CONFIG, ECHO, max_tool_rounds=budget, on_event=events.append), events


# -- the same run --------------------------------------------------------------------------------------

_ARGUMENTS = st.sampled_from(['{"text": "a"}', '{"text": 5}', "{", '{"text": "b", "more": 1}'])
_CALL = st.tuples(st.sampled_from(["echo_text", "unknown"]), _ARGUMENTS)
_ROUND = st.lists(_CALL, min_size=0, max_size=3)


def _script(rounds: Sequence[Sequence[tuple[str, str]]]) -> list[ScriptedReply]:
    replies = [reply("", *(call(name, arguments) for name, arguments in calls)) for calls in rounds if calls]
    return [*replies, reply("done")]


class TestSameRun:
    """On the same script, ``stream`` ends with ``run``'s result and yields ``on_event``'s events."""

    @settings(max_examples=30, deadline=None)
    @given(st.lists(_ROUND, max_size=4), st.integers(0, 4), st.sampled_from(DRIVERS[1:]))
    def test_result_and_events_are_the_runs(
        self, rounds: list[list[tuple[str, str]]], budget: int, driver: str
    ) -> None:
        ran, ran_events = logged(rounds, budget)
        streamed, streamed_events = logged(rounds, budget)
        expected = asyncio.run(ran.arun(request("m", [user("go")]), **IDS))  # type: ignore[arg-type]
        if driver == "stream":
            events = read(streamed, run_id="run-1", trace_id="trace-1")
        else:
            with streamed.stream(request("m", [user("go")]), **IDS) as stream:  # type: ignore[arg-type]
                events = list(stream)
            streamed.close()
        assert ended(events) == expected
        assert [event for event in events[:-1] if not isinstance(event, PROGRESS)] == ran_events
        assert streamed_events == ran_events


# -- over loopback -------------------------------------------------------------------------------------


@attrs.frozen
class GetWeather:
    """Current weather for a city."""

    city: str

    def invoke(self) -> str:
        return f"sunny in {self.city}"


ARGUMENTS = '{"city": "Oslo, the capital of Norway"}'
WEATHER = reflect(GetWeather)


def _turns(provider: Provider) -> list[Reply]:
    first = answer(
        provider, "let me look", [FakeCall("call_1", "get_weather", ARGUMENTS)], stream=True, piece=7
    )
    return [first, answer(provider, "It is sunny in Oslo.", stream=True)]


def _over_http(
    provider: Provider, kind: str, turns: Sequence[Reply], *, stream: bool, **options: object
) -> tuple[list[StreamEvent], RunResult]:
    """The events and result of a run against the fake provider: by ``arun`` or by ``stream``."""
    streaming = config(provider).with_stream(True)
    with FakeProvider(turns) as fake:
        if kind == "sync":
            with Client(base_url=fake.url) as client:
                runner = Runner(client, streaming, WEATHER, **options)  # type: ignore[arg-type]
                try:
                    if not stream:
                        return [], runner.run(request("m", [user("go")]), **IDS)  # type: ignore[arg-type]
                    with runner.stream(request("m", [user("go")]), **IDS) as events:  # type: ignore[arg-type]
                        seen = list(events)
                    return seen, ended(seen)
                finally:
                    runner.close()

        async def go() -> tuple[list[StreamEvent], RunResult]:
            async with AsyncClient(base_url=fake.url) as client:
                runner = Runner(client, streaming, WEATHER, **options)  # type: ignore[arg-type]
                if not stream:
                    return [], await runner.arun(request("m", [user("go")]), **IDS)  # type: ignore[arg-type]
                async with runner.stream(request("m", [user("go")]), **IDS) as events:  # type: ignore[arg-type]
                    seen = [event async for event in events]
                return seen, ended(seen)

        return asyncio.run(go())


class TestOverLoopback:
    """Real SSE from the fake provider, every wire, the sync and the async client."""

    @pytest.mark.parametrize("kind", ["async", "sync"])
    @pytest.mark.parametrize("provider", list(Provider), ids=lambda p: p.value)
    def test_progress_then_the_run(self, provider: Provider, kind: str) -> None:
        events, result = _over_http(provider, kind, _turns(provider), stream=True)
        _, expected = _over_http(provider, kind, _turns(provider), stream=False)
        assert result == expected
        assert result.stop is StopReason.ANSWERED
        assert result.text == "It is sunny in Oslo."
        texts = [event.text for event in events if isinstance(event, TextDelta)]
        assert len(texts) > 2  # the text came in pieces
        assert "".join(texts) == "let me lookIt is sunny in Oslo."
        started = [event for event in events if isinstance(event, ToolCallStarted)]
        assert [(event.call_id, event.name) for event in started] == [("call_1", "get_weather")]
        pieces = [event.text for event in events if isinstance(event, ArgumentsDelta)]
        assert len(pieces) > 1 or provider is Provider.GOOGLE  # Gemini sends a call's arguments whole
        assert "".join(pieces).replace(" ", "") == ARGUMENTS.replace(" ", "")
        kinds = [type(event) for event in events if not isinstance(event, PROGRESS)]
        assert kinds == [
            ModelStarted,
            ModelCompleted,
            ToolStarted,
            ToolCompleted,
            ModelStarted,
            ModelCompleted,
            RunCompleted,
        ]
        first_tool = next(n for n, event in enumerate(events) if isinstance(event, ToolStarted))
        last_argument = max(n for n, event in enumerate(events) if isinstance(event, ArgumentsDelta))
        admitted = next(n for n, event in enumerate(events) if isinstance(event, ModelCompleted))
        assert last_argument < admitted < first_tool  # nothing runs before the whole response is admitted

    @pytest.mark.parametrize("kind", ["async", "sync"])
    @pytest.mark.parametrize("provider", [Provider.OPENAI_CHAT, Provider.ANTHROPIC], ids=lambda p: p.value)
    def test_a_cut_after_any_event_is_a_typed_failure(self, provider: Provider, kind: str) -> None:
        whole = _turns(provider)[0]
        for at in range(len(whole.chunks)):
            events, result = _over_http(provider, kind, [evolve(whole, cut_after=at)], stream=True)
            assert result.stop is StopReason.MODEL_FAILED
            assert isinstance(result.error, Failure)
            assert result.error.error == TransportError(TransportProblem.CONNECTION_LOST)
            (completed,) = [event for event in events if isinstance(event, ModelCompleted)]
            assert completed.outcome == result.error
            assert not any(isinstance(event, ToolStarted) for event in events)

    @settings(max_examples=15, deadline=None)
    @given(st.data())
    def test_a_cut_at_any_byte_is_a_typed_failure(self, data: st.DataObject) -> None:
        provider = data.draw(st.sampled_from(list(Provider)))
        whole = _turns(provider)[0].body
        at = data.draw(st.integers(0, len(whole) - 1))
        cut = Reply(chunks=(whole[:at], whole[at:]), stream=True, cut_after=1)
        events, result = _over_http(provider, "async", [cut], stream=True)
        assert result.stop is StopReason.MODEL_FAILED
        assert isinstance(events[-2], ModelCompleted)
        assert isinstance(events[-2].outcome, Failure)

    def test_a_stalled_stream_ends_at_the_deadline(self) -> None:
        stalled = evolve(_turns(Provider.ANTHROPIC)[0], stall_after=4)  # two text deltas, then nothing
        started = time.monotonic()
        with FakeProvider([stalled]) as fake:

            async def go() -> list[StreamEvent]:
                async with AsyncClient(base_url=fake.url) as client:
                    streaming = config(Provider.ANTHROPIC).with_stream(True)
                    runner = Runner(client, streaming, WEATHER, deadline=0.3)
                    async with runner.stream(request("m", [user("go")])) as events:
                        return [event async for event in events]

            events = asyncio.run(go())
            assert fake.exchanges[0].disconnected.wait(BOUND)
        assert time.monotonic() - started < BOUND
        assert ended(events).stop is StopReason.DEADLINE
        assert any(isinstance(event, TextDelta) for event in events)


# -- stopping early --------------------------------------------------------------------------------------


class _Watched:
    """A slow async tool that says how each of its calls ended."""

    def __init__(self) -> None:
        self.ends: dict[str, str] = {}

    async def behave(self, invocation: ToolInvocation) -> ToolOutcome:
        self.ends[invocation.call_id] = "running"
        try:
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            self.ends[invocation.call_id] = "cancelled"
            raise
        self.ends[invocation.call_id] = "done"
        return ToolOutcome.success(invocation.call_id)


def _two_rounds() -> list[ScriptedReply]:
    return [
        reply("", call("contract_tool", "{}", "a"), call("contract_tool", "{}", "b")),
        reply("", call("contract_tool", "{}", "c")),
        reply("done"),
    ]


async def _closed_after(count: int) -> tuple[list[StreamEvent], Programmable, Cancellation]:
    """A stream closed after ``count`` events, once what is left after it is checked."""
    watched = _Watched()
    tool = Programmable(behave=watched.behave)
    cancel = Cancellation()
    runner = Runner(ScriptedClient(_two_rounds()), CONFIG, tool)
    seen: list[StreamEvent] = []
    stream = runner.stream(request("m", [user("go")]), cancel=cancel)
    async for event in stream:
        seen.append(event)
        if len(seen) == count:
            break
    await stream.aclose()
    assert asyncio.all_tasks() == {asyncio.current_task()}  # nothing runs on
    assert set(watched.ends.values()) <= {"done", "cancelled"}  # nothing half-run
    started = len(tool.invocations)
    await asyncio.sleep(0.1)
    assert len(tool.invocations) == started  # nothing starts after
    return seen, tool, cancel


class TestStopping:
    """Closing the stream cancels the run: nothing starts after, nothing is left running or half-run."""

    def test_closed_after_each_event(self) -> None:
        whole = read(Runner(ScriptedClient(_two_rounds()), CONFIG, Programmable()))
        assert ended(whole).stop is StopReason.ANSWERED
        for stop_after in range(1, len(whole)):
            seen, tool, cancel = asyncio.run(_closed_after(stop_after))
            assert len(seen) == stop_after
            ran = [invocation.call_id for invocation in tool.invocations]
            assert ran == ["a", "b", "c"][: len(ran)]
            assert not cancel.cancelled  # the caller's cancellation is not the stream's to use

    def test_closed_synchronously(self) -> None:
        watched = _Watched()
        tool = Programmable(behave=watched.behave)
        runner = Runner(ScriptedClient(_two_rounds()), CONFIG, tool)
        try:
            with runner.stream(request("m", [user("go")])) as stream:
                for event in stream:
                    if isinstance(event, ToolStarted):
                        break
            assert watched.ends == {"a": "cancelled"}
            assert runner.in_flight == 0
        finally:
            runner.close()

    def test_closed_during_a_streamed_response(self) -> None:
        stalled = evolve(_turns(Provider.ANTHROPIC)[0], stall_after=4)
        with FakeProvider([stalled]) as fake:

            async def go() -> None:
                async with AsyncClient(base_url=fake.url) as client:
                    runner = Runner(client, config(Provider.ANTHROPIC).with_stream(True), WEATHER)
                    stream = runner.stream(request("m", [user("go")]))
                    async for event in stream:
                        if isinstance(event, TextDelta):
                            break
                    await stream.aclose()
                    assert asyncio.all_tasks() == {asyncio.current_task()}  # the model's read has ended

            asyncio.run(go())
            assert fake.exchanges[0].disconnected.wait(BOUND)  # and its connection is closed

    def test_the_callers_cancellation_stops_the_stream(self) -> None:
        cancel = Cancellation()

        async def hang(invocation: ToolInvocation) -> ToolOutcome:
            cancel.cancel()
            await asyncio.sleep(BOUND * 3)
            return ToolOutcome.success("late")

        runner = Runner(ScriptedClient(_two_rounds()), CONFIG, Programmable(behave=hang))
        started = time.monotonic()
        events = read(runner, cancel=cancel)
        assert time.monotonic() - started < BOUND
        assert ended(events).stop is StopReason.CANCELLED


# -- bounds, errors, nesting ---------------------------------------------------------------------------


class _Chatty:
    """An async model whose stream has far more progress than the feed holds; it counts what it yielded."""

    def __init__(self, pieces: int) -> None:
        self.pieces = pieces
        self.yielded = 0
        self.script = ScriptedClient([reply("x" * pieces)])

    async def complete(self, prepared: Prepared) -> Outcome:
        return self.script.answer(prepared)

    async def stream(self, prepared: Prepared) -> AsyncIterator[TextDelta | Outcome]:
        for _ in range(self.pieces):
            self.yielded += 1
            yield TextDelta("x")
        yield self.script.answer(prepared)


class _SyncChatty(_Chatty):
    """The same, blocking (read on a thread of its own)."""

    def complete(self, prepared: Prepared) -> Outcome:  # type: ignore[override]
        return self.script.answer(prepared)

    def stream(self, prepared: Prepared) -> Iterator[TextDelta | Outcome]:  # type: ignore[override]
        for _ in range(self.pieces):
            self.yielded += 1
            yield TextDelta("x")
        yield self.script.answer(prepared)


class TestBounds:
    @pytest.mark.parametrize("kind", [_Chatty, _SyncChatty], ids=["async", "sync"])
    def test_a_slow_consumer_holds_the_model_back(self, kind: type[_Chatty]) -> None:
        model = kind(BACKLOG * 8)
        runner = Runner(model, CONFIG, Programmable())

        async def go() -> list[StreamEvent]:
            async with runner.stream(request("m", [user("go")])) as stream:
                first = await anext(stream)
                await asyncio.sleep(0.2)
                assert model.yielded <= 2 * BACKLOG + 1  # the model waits for the consumer
                return [first, *[event async for event in stream]]

        events = asyncio.run(go())
        assert model.yielded == BACKLOG * 8
        assert ended(events).text == "x" * BACKLOG * 8


class TestErrors:
    def test_wrong_types_at_once(self) -> None:
        runner = Runner(ScriptedClient([]), CONFIG, Programmable())
        with pytest.raises(TypeError, match="request"):
            runner.stream("hi")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="cancel"):
            runner.stream(request("m", [user("go")]), cancel=True)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="replay"):
            runner.stream(request("m", [user("go")]), replay=3)  # type: ignore[arg-type]

    def test_one_way_of_reading(self) -> None:
        runner = Runner(ScriptedClient([reply("done")]), CONFIG, Programmable())

        async def go() -> None:
            stream = runner.stream(request("m", [user("go")]))
            assert isinstance(await anext(stream), object)
            with pytest.raises(RuntimeError, match="async for"):
                next(stream)
            await stream.aclose()

        asyncio.run(go())

    def test_a_hook_error_comes_after_the_events_before_it(self) -> None:
        def broken(tool_call: object, descriptor: object) -> bool:
            raise RuntimeError("token=s3cret")

        runner = Runner(ScriptedClient(_two_rounds()), CONFIG, Programmable(), allow_tool_call=broken)
        seen: list[StreamEvent] = []

        async def go() -> None:
            async for event in runner.stream(request("m", [user("go")])):
                seen.append(event)  # noqa: PERF401 - what came before the error is the point

        with pytest.raises(HostHookError, match="allow_tool_call"):
            asyncio.run(go())
        assert [type(event) for event in seen] == [ModelStarted, ModelCompleted]


class TestRouting:
    """Each event reaches the stream of its own run, from wherever it comes."""

    def test_heartbeats_from_a_thread_of_the_tools_own(self) -> None:
        async def beating(invocation: ToolInvocation) -> ToolOutcome:
            def beat() -> None:
                for _ in range(3):
                    invocation.context.heartbeat("working", 0.5)
                    time.sleep(0.01)

            worker = threading.Thread(target=beat)  # a thread of its own: none of the run's context
            worker.start()
            while worker.is_alive():
                await asyncio.sleep(0.005)
            return ToolOutcome.success("ok")

        contract = ToolContract(heartbeat=HeartbeatPolicy(timeout=BOUND, minimum_interval=0.001))
        tool = Programmable(
            contract=contract, behave=beating, capabilities=ProviderCapabilities(heartbeat=True)
        )
        logged: list[RunEvent] = []
        runner = Runner(
            ScriptedClient([reply("", call("contract_tool")), reply("done")]),
            CONFIG,
            tool,
            on_event=logged.append,
        )
        events = read(runner)
        beats = [event for event in events if isinstance(event, ToolHeartbeat)]
        assert beats
        assert beats == [event for event in logged if isinstance(event, ToolHeartbeat)]

    def test_a_run_inside_a_tool_streams_nothing_here(self) -> None:
        inner = Runner(ScriptedClient([reply("inner answer")]), CONFIG, Programmable("inner_tool"))

        async def delegate(invocation: ToolInvocation) -> ToolOutcome:
            done = await inner.arun(request("m", [user("inner")]))
            return ToolOutcome.success(done.text)

        outer = Runner(
            ScriptedClient([reply("", call("contract_tool")), reply("done")]),
            CONFIG,
            Programmable(behave=delegate),
        )
        events = read(outer)
        result = ended(events)
        assert result.calls[0].outcome.content == "inner answer"
        assert sum(isinstance(event, ModelCompleted) for event in events) == 2  # the outer run's own
