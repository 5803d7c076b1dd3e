"""
Tracing a run: OpenTelemetry spans after the GenAI semantic conventions (``invoke_agent``, ``chat {model}``,
``execute_tool {tool}``), read back from the SDK's in-memory exporter; the same events on the
``llm_wire.agent`` logger at DEBUG; nothing of either without a tracer or a DEBUG logger.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar

import attrs
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from llm_wire import Prepared, config, request, user
from llm_wire.agent import (
    ErrorCategory,
    Idempotency,
    OutputCeilings,
    Runner,
    SideEffect,
    ToolContract,
    ToolDescriptor,
    ToolOutcome,
    ToolRetryPolicy,
    reflect,
)
from llm_wire.agent.events import RunEvent, ToolOutputTruncated
from llm_wire.agent.scripted import ScriptedClient, ScriptedReply, call
from llm_wire.message import Provider
from llm_wire.outcome import Outcome
from llm_wire.providers.response import Usage

CONFIG = config(Provider.ANTHROPIC)


@attrs.frozen
class GetWeather:
    """Current weather for a city."""

    city: str

    def invoke(self) -> str:
        return f"sunny in {self.city}"


@attrs.frozen
class FetchQuote:
    """A stock quote; the first attempt of each run fails and is retried."""

    __tool_contract__: ClassVar[ToolContract] = ToolContract(
        side_effect=SideEffect.READ,
        idempotency=Idempotency.IDEMPOTENT,
        retry=ToolRetryPolicy(max_attempts=2, initial_backoff=0, maximum_backoff=0, jitter=0),
    )
    attempts: ClassVar[list[str]] = []

    symbol: str

    def invoke(self) -> ToolOutcome:
        self.attempts.append(self.symbol)
        if len(self.attempts) == 1:
            return ToolOutcome.failed(ErrorCategory.UNAVAILABLE, "unavailable", "down", retryable=True)
        return ToolOutcome.success("101")


@attrs.frozen
class SlowReport:
    """A report slower than its timeout."""

    __tool_contract__: ClassVar[ToolContract] = ToolContract(timeout=0.05)

    async def invoke(self) -> str:
        await asyncio.sleep(5)
        return "never"


@attrs.frozen
class DeployService:
    """Deploy a service (the host denies it)."""

    service: str

    def invoke(self) -> str:
        raise AssertionError("a denied call never runs")


@attrs.frozen
class DumpTable:
    """A table too long for its ceiling."""

    __tool_contract__: ClassVar[ToolContract] = ToolContract(output_ceilings=OutputCeilings(max_bytes=256))

    def invoke(self) -> str:
        return "row " * 500


TOOLS = (GetWeather, FetchQuote, SlowReport, DeployService, DumpTable)

#: One round of every kind of call, then the answer.
SCRIPT = (
    ScriptedReply(
        "",
        (
            call("get_weather", '{"city": "Oslo"}', "c1"),
            call("nope", "{}", "c2"),
            call("get_weather", '{"city": 5}', "c3"),
            call("fetch_quote", '{"symbol": "ACME"}', "c4"),
            call("slow_report", "{}", "c5"),
            call("deploy_service", '{"service": "api"}', "c6"),
            call("dump_table", "{}", "c7"),
        ),
        usage=Usage(10, 5, 15),
    ),
    ScriptedReply("Sunny, 101.", usage=Usage(20, 3, 23)),
)


def _allow(call: object, descriptor: ToolDescriptor) -> bool:
    return descriptor.name != "deploy_service"


@pytest.fixture(autouse=True)
def _fresh_quotes() -> None:
    FetchQuote.attempts.clear()


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    found = InMemorySpanExporter()
    yield found
    found.shutdown()


def _cuts(found: list[ToolOutputTruncated]) -> Callable[[RunEvent], None]:
    """An ``on_event`` keeping the truncations, whose counts are the projector's."""

    def keep(event: RunEvent) -> None:
        if isinstance(event, ToolOutputTruncated):
            found.append(event)

    return keep


def _tracer(exporter: InMemorySpanExporter) -> trace.Tracer:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test")


def _runner(model: Any, exporter: InMemorySpanExporter | None, **options: Any) -> Runner:
    tracer = None if exporter is None else _tracer(exporter)
    return Runner(model, CONFIG, reflect(*TOOLS), allow_tool_call=_allow, tracer=tracer, **options)


def _run(runner: Runner) -> str:
    result = asyncio.run(runner.arun(request("claude-test", [user("go")]), run_id="run-1"))
    return result.stop.value


def _tree(spans: Sequence[ReadableSpan]) -> list[tuple[object, ...]]:
    """Each span as (name, kind, parent's name, attributes, events, status), in the order they ended."""
    names = {span.context.span_id: span.name for span in spans}
    return [
        (
            span.name,
            span.kind.name,
            None if span.parent is None else names[span.parent.span_id],
            dict(span.attributes or {}),
            [(event.name, dict(event.attributes or {})) for event in span.events],
            span.status.status_code.name,
        )
        for span in spans
    ]


def _tool(name: str, call_id: str, **more: object) -> dict[str, object]:
    return {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.type": "function",
        **more,
    }


def _chat(**more: object) -> dict[str, object]:
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude-test",
        **more,
    }


class TestSpanTree:
    """The spans of a scripted run, checked exactly."""

    def test_the_span_tree_of_a_run(self, exporter: InMemorySpanExporter) -> None:
        """A run span; a chat span per model call; an execute_tool span per admitted call; events."""
        cuts: list[ToolOutputTruncated] = []
        assert _run(_runner(ScriptedClient(SCRIPT), exporter, on_event=_cuts(cuts))) == "answered"
        (cut,) = cuts
        truncated = {
            "llm_wire.original_bytes": 2000,
            "llm_wire.projected_bytes": cut.report.projected_bytes,  # the projector's (its own tests pin it)
            "llm_wire.max_bytes": 256,
            "llm_wire.max_tokens": 10_000,
            "llm_wire.limiting_factor": "bytes",
        }
        retry = {"llm_wire.attempt": 1, "llm_wire.delay_s": 0.0, "error.type": "unavailable"}
        issues = [
            ("llm_wire.admission_issue", {"gen_ai.tool.call.id": "c2", "llm_wire.issue": "unknown_tool"}),
            (
                "llm_wire.admission_issue",
                {
                    "gen_ai.tool.call.id": "c3",
                    "llm_wire.issue": "schema_rejected",
                    "gen_ai.tool.name": "get_weather",
                },
            ),
        ]
        first = _chat(
            **{
                "gen_ai.usage.input_tokens": 10,
                "gen_ai.usage.output_tokens": 5,
                "gen_ai.response.finish_reasons": ("tool_calls",),
            }
        )
        second = _chat(
            **{
                "gen_ai.usage.input_tokens": 20,
                "gen_ai.usage.output_tokens": 3,
                "gen_ai.response.finish_reasons": ("stop",),
            }
        )
        run = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.provider.name": "anthropic",
            "gen_ai.request.model": "claude-test",
            "llm_wire.run.id": "run-1",
            "gen_ai.usage.input_tokens": 30,
            "gen_ai.usage.output_tokens": 8,
            "llm_wire.stop_reason": "answered",
            "llm_wire.tool_rounds": 1,
        }
        # Cut off, a call of unknown idempotency may have taken effect: ``outcome_unknown``, a timeout.
        timeout = _tool("slow_report", "c5", **{"error.type": "outcome_unknown"})
        denied = _tool("deploy_service", "c6", **{"error.type": "denied"})
        assert _tree(exporter.get_finished_spans()) == [
            ("chat claude-test", "CLIENT", "invoke_agent", first, issues, "UNSET"),
            ("execute_tool get_weather", "INTERNAL", "invoke_agent", _tool("get_weather", "c1"), [], "UNSET"),
            (
                "execute_tool fetch_quote",
                "INTERNAL",
                "invoke_agent",
                _tool("fetch_quote", "c4"),
                [("llm_wire.tool.retry", retry)],
                "UNSET",
            ),
            (
                "execute_tool slow_report",
                "INTERNAL",
                "invoke_agent",
                timeout,
                [("llm_wire.tool.timeout", {"llm_wire.code": "outcome_unknown"})],
                "ERROR",
            ),
            (
                "execute_tool deploy_service",
                "INTERNAL",
                "invoke_agent",
                denied,
                [("llm_wire.tool.denied", {"llm_wire.code": "denied"})],
                "ERROR",
            ),
            (
                "execute_tool dump_table",
                "INTERNAL",
                "invoke_agent",
                _tool("dump_table", "c7"),
                [("llm_wire.tool.output_truncated", truncated)],
                "UNSET",
            ),
            ("chat claude-test", "CLIENT", "invoke_agent", second, [], "UNSET"),
            ("invoke_agent", "INTERNAL", None, run, [], "UNSET"),
        ]

    def test_spans_nest_in_time(self, exporter: InMemorySpanExporter) -> None:
        """Each span lies within its parent; a tool span lasts as long as its call ran."""
        _run(_runner(ScriptedClient(SCRIPT), exporter))
        spans = {span.context.span_id: span for span in exporter.get_finished_spans()}
        for span in spans.values():
            assert span.start_time is not None
            assert span.end_time is not None
            assert span.start_time <= span.end_time
            if span.parent is not None:
                parent = spans[span.parent.span_id]
                assert parent.start_time is not None
                assert parent.end_time is not None
                assert parent.start_time <= span.start_time <= span.end_time <= parent.end_time
        slow = next(span for span in spans.values() if span.name == "execute_tool slow_report")
        assert slow.end_time is not None
        assert slow.start_time is not None
        assert slow.end_time - slow.start_time >= 50_000_000

    def test_a_parallel_round(self, exporter: InMemorySpanExporter) -> None:
        """Calls run together each under their own span; all end, and the caller's context is untouched."""
        assert _run(_runner(ScriptedClient(SCRIPT), exporter, parallel=True)) == "answered"
        tree = _tree(exporter.get_finished_spans())
        assert [(name, parent) for name, _, parent, *_ in tree] == [
            ("chat claude-test", "invoke_agent"),
            ("execute_tool get_weather", "invoke_agent"),
            ("execute_tool fetch_quote", "invoke_agent"),
            ("execute_tool slow_report", "invoke_agent"),
            ("execute_tool deploy_service", "invoke_agent"),
            ("execute_tool dump_table", "invoke_agent"),
            ("chat claude-test", "invoke_agent"),
            ("invoke_agent", None),
        ]
        assert trace.get_current_span() is trace.INVALID_SPAN

    def test_no_content_by_default(self, exporter: InMemorySpanExporter) -> None:
        """Without ``trace_content_bytes`` no span carries arguments, results, or the model's text."""
        _run(_runner(ScriptedClient(SCRIPT), exporter))
        for span in exporter.get_finished_spans():
            shown = repr(span.attributes) + repr([event.attributes for event in span.events])
            assert "Oslo" not in shown
            assert "ACME" not in shown
            assert "sunny" not in shown
            assert "gen_ai.tool.call.arguments" not in shown

    def test_content_is_opt_in_bounded_and_redacted(self, exporter: InMemorySpanExporter) -> None:
        """``trace_content_bytes`` adds arguments (secrets redacted) and results, each cut to that size."""

        @attrs.frozen
        class Login:
            """Log in."""

            __tool_contract__: ClassVar[ToolContract] = ToolContract(secrets=frozenset({"password"}))
            user: str
            password: str

            def invoke(self) -> str:
                return "welcome, ünïcode user " * 3

        script = [
            ScriptedReply("", (call("login", '{"user": "ada", "password": "hunter2"}', "c1"),)),
            ScriptedReply("in"),
        ]
        runner = Runner(
            ScriptedClient(script), CONFIG, reflect(Login), tracer=_tracer(exporter), trace_content_bytes=40
        )
        _run(runner)
        (tool,) = [span for span in exporter.get_finished_spans() if span.name == "execute_tool login"]
        attributes = dict(tool.attributes or {})
        assert attributes["gen_ai.tool.call.arguments"] == '{"user":"ada","password":"[redacted]"}'
        result = attributes["gen_ai.tool.call.result"]
        assert isinstance(result, str)
        assert result == "welcome, ünïcode user welcome, ünïco"  # ü and ï take two bytes each
        assert len(result.encode()) <= 40

    def test_a_long_argument_is_cut_at_a_character(self, exporter: InMemorySpanExporter) -> None:
        """A cut never splits a character: the text is within the bytes, and valid."""
        script = [
            ScriptedReply("", (call("get_weather", '{"city": "ØØØØØØØØ"}', "c1"),)),
            ScriptedReply("ok"),
        ]
        runner = Runner(
            ScriptedClient(script),
            CONFIG,
            reflect(GetWeather),
            tracer=_tracer(exporter),
            trace_content_bytes=12,
        )
        _run(runner)
        (tool,) = [span for span in exporter.get_finished_spans() if span.name.startswith("execute_tool")]
        assert dict(tool.attributes or {})["gen_ai.tool.call.arguments"] == '{"city":"Ø'


class TestCurrentSpan:
    """The model and each tool run under their own span, so their own spans nest under it."""

    def test_model_and_tools_see_their_span(self, exporter: InMemorySpanExporter) -> None:
        seen: dict[str, int] = {}

        class Watched:
            def __init__(self) -> None:
                self.script = ScriptedClient(
                    [ScriptedReply("", (call("look", "{}", "c1"), call("look_async", "{}", "c2"))), SCRIPT[1]]
                )

            async def complete(self, prepared: Prepared) -> Outcome:
                seen[f"model {len(seen)}"] = trace.get_current_span().get_span_context().span_id
                return await self.script.complete(prepared)

        @attrs.frozen
        class Look:
            """Look (sync, in a worker thread)."""

            def invoke(self) -> str:
                seen["look"] = trace.get_current_span().get_span_context().span_id
                return "seen"

        @attrs.frozen
        class LookAsync:
            """Look (async)."""

            async def invoke(self) -> str:
                seen["look_async"] = trace.get_current_span().get_span_context().span_id
                return "seen"

        runner = Runner(Watched(), CONFIG, reflect(Look, LookAsync), tracer=_tracer(exporter))
        asyncio.run(runner.arun(request("claude-test", [user("go")])))
        ids = {span.name: span.context.span_id for span in exporter.get_finished_spans()}
        chats = [
            span.context.span_id for span in exporter.get_finished_spans() if span.name.startswith("chat")
        ]
        assert seen == {
            "model 0": chats[0],
            "look": ids["execute_tool look"],
            "look_async": ids["execute_tool look_async"],
            "model 3": chats[1],
        }
        assert trace.get_current_span() is trace.INVALID_SPAN  # the caller's context is as it was

    def test_a_run_nests_under_the_callers_span(self, exporter: InMemorySpanExporter) -> None:
        tracer = _tracer(exporter)
        runner = Runner(ScriptedClient([SCRIPT[1]]), CONFIG, reflect(GetWeather), tracer=tracer)

        async def outer() -> None:
            with tracer.start_as_current_span("request"):
                await runner.arun(request("claude-test", [user("go")]))

        asyncio.run(outer())
        spans = {span.name: span for span in exporter.get_finished_spans()}
        parent = spans["invoke_agent"].parent
        assert parent is not None
        assert parent.span_id == spans["request"].context.span_id

    def test_a_sync_run_nests_under_the_callers_span(self, exporter: InMemorySpanExporter) -> None:
        tracer = _tracer(exporter)
        runner = Runner(ScriptedClient([SCRIPT[1], SCRIPT[1]]), CONFIG, reflect(GetWeather), tracer=tracer)
        try:
            with tracer.start_as_current_span("request"):
                runner.run(request("claude-test", [user("go")]))
            with tracer.start_as_current_span("streamed request"):
                events = list(runner.stream(request("claude-test", [user("go")])))
        finally:
            runner.close()
        assert events
        spans = exporter.get_finished_spans()
        callers = {span.name: span.context.span_id for span in spans if "request" in span.name}
        runs = [span for span in spans if span.name == "invoke_agent"]
        assert [None if run.parent is None else run.parent.span_id for run in runs] == [
            callers["request"],
            callers["streamed request"],
        ]


class TestNested:
    """A runner inside a traced tool is traced on its own or not at all; the outer spans stay its own."""

    def _outer(self, exporter: InMemorySpanExporter, inner_tracer: trace.Tracer | None) -> None:
        @attrs.frozen
        class Delegate:
            """Ask a sub-agent."""

            async def invoke(self) -> str:
                inner = Runner(
                    ScriptedClient([SCRIPT[0], SCRIPT[1]]),
                    CONFIG,
                    reflect(*TOOLS),
                    allow_tool_call=_allow,
                    tracer=inner_tracer,
                )
                return (await inner.arun(request("inner-model", [user("go")]))).text

        outer = ScriptedClient([ScriptedReply("", (call("delegate", "{}", "d1"),)), ScriptedReply("ok")])
        runner = Runner(outer, CONFIG, reflect(Delegate), tracer=_tracer(exporter))
        assert _run(runner) == "answered"

    def test_an_untraced_runner_inside_a_traced_tool(self, exporter: InMemorySpanExporter) -> None:
        self._outer(exporter, None)
        assert [(name, parent) for name, _, parent, *_ in _tree(exporter.get_finished_spans())] == [
            ("chat claude-test", "invoke_agent"),
            ("execute_tool delegate", "invoke_agent"),
            ("chat claude-test", "invoke_agent"),
            ("invoke_agent", None),
        ]

    def test_a_traced_runner_inside_a_traced_tool(self, exporter: InMemorySpanExporter) -> None:
        self._outer(exporter, _tracer(exporter))
        names = [(name, parent) for name, _, parent, *_ in _tree(exporter.get_finished_spans())]
        inner = [pair for pair in names if pair[0] == "invoke_agent" and pair[1] == "execute_tool delegate"]
        assert len(inner) == 1
        assert names.count(("chat inner-model", "invoke_agent")) == 2
        assert names[-3:] == [
            ("execute_tool delegate", "invoke_agent"),
            ("chat claude-test", "invoke_agent"),
            ("invoke_agent", None),
        ]


class TestEndings:
    """Every span ends, whatever ends the run, and says why when it is an error."""

    def test_a_model_that_raises(self, exporter: InMemorySpanExporter) -> None:
        class Broken:
            async def complete(self, prepared: Prepared) -> Outcome:
                raise RuntimeError("boom")

        runner = Runner(Broken(), CONFIG, reflect(GetWeather), tracer=_tracer(exporter))
        with pytest.raises(RuntimeError):
            asyncio.run(runner.arun(request("claude-test", [user("go")])))
        found = {span.name: span for span in exporter.get_finished_spans()}
        assert sorted(found) == ["chat claude-test", "invoke_agent"]
        for span in found.values():
            assert dict(span.attributes or {})["error.type"] == "RuntimeError"
            assert span.status.status_code.name == "ERROR"

    def test_a_deadline_while_the_model_works(self, exporter: InMemorySpanExporter) -> None:
        class Slow:
            async def complete(self, prepared: Prepared) -> Outcome:
                await asyncio.sleep(5)
                raise AssertionError("never")

        runner = Runner(Slow(), CONFIG, reflect(GetWeather), tracer=_tracer(exporter), deadline=0.05)
        assert _run(runner) == "deadline_reached"
        found = {span.name: dict(span.attributes or {}) for span in exporter.get_finished_spans()}
        assert found["chat claude-test"]["error.type"] == "deadline_reached"
        assert found["invoke_agent"]["error.type"] == "deadline_reached"
        assert found["invoke_agent"]["llm_wire.stop_reason"] == "deadline_reached"

    def test_the_sync_facade_is_traced(self, exporter: InMemorySpanExporter) -> None:
        runner = _runner(ScriptedClient(SCRIPT), exporter)
        try:
            assert runner.run(request("claude-test", [user("go")])).text == "Sunny, 101."
        finally:
            runner.close()
        names = [span.name for span in exporter.get_finished_spans()]
        assert names[-1] == "invoke_agent"
        assert names.count("chat claude-test") == 2
        assert len(names) == 8


class TestLogging:
    """The same events on ``llm_wire.agent`` at DEBUG, with no tracer, and never any content."""

    def test_debug_records(self, caplog: pytest.LogCaptureFixture) -> None:
        cuts: list[ToolOutputTruncated] = []
        with caplog.at_level(logging.DEBUG, logger="llm_wire.agent"):
            assert _run(_runner(ScriptedClient(SCRIPT), None, on_event=_cuts(cuts))) == "answered"
        projected = cuts[0].report.projected_bytes
        lines = [record.getMessage() for record in caplog.records if record.name == "llm_wire.agent"]
        assert lines == [
            "run run-1 started",
            "run run-1: model call 0 to claude-test",
            "run run-1: model call 0 returned NeedsTools",
            "run run-1: call c2 refused by admission (unknown_tool)",
            "run run-1: call c3 refused by admission (schema_rejected)",
            "run run-1: tool get_weather call c1 attempt 1 started",
            "run run-1: tool get_weather call c1 succeeded",
            "run run-1: tool fetch_quote call c4 attempt 1 started",
            "run run-1: call c4 attempt 1 failed (unavailable), retry in 0.000s",
            "run run-1: tool fetch_quote call c4 attempt 2 started",
            "run run-1: tool fetch_quote call c4 succeeded",
            "run run-1: tool slow_report call c5 attempt 1 started",
            "run run-1: tool slow_report call c5 failed (outcome_unknown)",
            "run run-1: tool deploy_service call c6 denied (denied)",
            "run run-1: tool dump_table call c7 attempt 1 started",
            "run run-1: tool dump_table call c7 succeeded",
            "run run-1: call c1 result sent to the model",
            "run run-1: call c2 result sent to the model",
            "run run-1: call c3 result sent to the model",
            "run run-1: call c4 result sent to the model",
            "run run-1: call c5 result sent to the model",
            "run run-1: call c6 result sent to the model",
            "run run-1: call c7 result sent to the model",
            f"run run-1: call c7 output cut from 2000 to {projected} bytes",
            "run run-1: model call 1 to claude-test",
            "run run-1: model call 1 returned Answer",
            "run run-1 ended: answered after 1 tool rounds",
        ]

    def test_no_records_above_debug(self, caplog: pytest.LogCaptureFixture) -> None:
        with caplog.at_level(logging.INFO, logger="llm_wire.agent"):
            _run(_runner(ScriptedClient(SCRIPT), None))
        assert [record for record in caplog.records if record.name == "llm_wire.agent"] == []


class TestOff:
    """Without a tracer nothing of OpenTelemetry is imported; wrong settings are refused."""

    def test_opentelemetry_is_never_imported(self) -> None:
        """An untraced run imports neither OpenTelemetry (installed here) nor the span code."""
        code = (
            "import asyncio, sys\n"
            "from llm_wire import config, request, user\n"
            "from llm_wire.agent import Runner, reflect\n"
            "from llm_wire.agent.scripted import ScriptedClient, reply\n"
            "from llm_wire.message import Provider\n"
            "def noop() -> str:\n"
            "    '''Do nothing.'''\n"
            "    return 'ok'\n"
            "runner = Runner(ScriptedClient([reply('hi')]), config(Provider.ANTHROPIC), reflect(noop))\n"
            "assert asyncio.run(runner.arun(request('m', [user('go')]))).text == 'hi'\n"
            "loaded = [name for name in sys.modules if name.startswith('opentelemetry')]\n"
            "print(sorted(loaded), 'llm_wire.agent._spans' in sys.modules)\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert out.stdout.strip() == "[] False"

    def test_wrong_settings(self) -> None:
        model = ScriptedClient([])
        with pytest.raises(TypeError, match=r"^tracer must be an OpenTelemetry Tracer, not object$"):
            Runner(model, CONFIG, reflect(GetWeather), tracer=object())  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"^trace_content_bytes must be an int, not str$"):
            Runner(model, CONFIG, reflect(GetWeather), trace_content_bytes="1")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=r"^trace_content_bytes must be an int >= 0$"):
            Runner(model, CONFIG, reflect(GetWeather), trace_content_bytes=-1)
