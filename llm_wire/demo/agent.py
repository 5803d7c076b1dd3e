"""
Demo: typed tools under contracts in a runner loop, over real HTTP: a refused argument fed back and fixed
by the model, a timeout, a safe retry, an approval with a secret redacted, a retry contract refused at
definition, a parallel batch whose write runs alone between its reads, tool output bounded by default (a
240 KB result reaches the model within 64 KiB), and a streamed run (``Runner.stream`` over SSE).

The model is ``transport.AsyncClient`` talking to the local fake provider (``transport.fake``) on
loopback, which serves the model's turns in order as OpenAI Chat Completions responses: no key, no network
beyond 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import sys
from decimal import Decimal
from typing import TYPE_CHECKING

import attrs

from llm_wire import codec, config, request, user
from llm_wire.agent import (
    Approval,
    ErrorCategory,
    Idempotency,
    InvocationContext,
    OutputCeilings,
    Runner,
    RunResult,
    RunUsage,
    SideEffect,
    ToolContract,
    ToolOutcome,
    ToolRetryPolicy,
    reflect,
)
from llm_wire.agent.events import (
    ApprovalRequest,
    ModelCompleted,
    ModelStarted,
    RunCompleted,
    RunEvent,
    StreamEvent,
    ToolCompleted,
    ToolOutputTruncated,
    ToolRetrying,
    ToolStarted,
)
from llm_wire.agent.scripted import ScriptedClient, ScriptedReply, call
from llm_wire.message import Provider
from llm_wire.outcome import NeedsTools
from llm_wire.providers.response import ArgumentsDelta, TextDelta, ToolCallStarted, Usage
from llm_wire.schema import DefinitionError
from llm_wire.transport import AsyncClient, Timeouts
from llm_wire.transport.fake import FakeCall, FakeProvider, answer

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.trace import Tracer


@attrs.frozen
class GetWeather:
    """Current weather for a city."""

    city: str = codec.field(description="City name.")
    days: int = codec.field(default=1, codec=codec.integer(minimum=1, maximum=14))

    def invoke(self) -> dict[str, object]:
        return {"city": self.city, "days": self.days, "forecast": "sunny"}


@attrs.frozen
class SlowReport:
    """A report that takes too long."""

    # A read is idempotent: past its deadline it is a plain, retryable timeout (a non-idempotent call there
    # would be outcome_unknown).
    __tool_contract__ = ToolContract(
        timeout=0.2, side_effect=SideEffect.READ, idempotency=Idempotency.IDEMPOTENT
    )

    async def invoke(self, ctx: InvocationContext) -> str:
        await asyncio.sleep(30)  # cancelled at the deadline: the coroutine stops here
        return "never"


_FLAKY = {"attempts": 0}


@attrs.frozen
class FetchQuote:
    """A stock quote from a flaky service (safe to repeat: it only reads)."""

    __tool_contract__ = ToolContract(
        idempotency=Idempotency.IDEMPOTENT,
        retry=ToolRetryPolicy(max_attempts=3, initial_backoff=0.05, maximum_backoff=0.2),
    )
    symbol: str

    def invoke(self) -> ToolOutcome | dict[str, object]:
        _FLAKY["attempts"] += 1
        if _FLAKY["attempts"] == 1:
            return ToolOutcome.failed(ErrorCategory.UNAVAILABLE, "busy", "the quote service is busy")
        return {"symbol": self.symbol, "price": 101}


@attrs.frozen
class DeployService:
    """Deploy a service with an access token."""

    __tool_contract__ = ToolContract(
        approval=Approval.ALWAYS, side_effect=SideEffect.WRITE, secrets=frozenset({"token"})
    )
    service: str
    token: str

    def invoke(self) -> str:
        return f"deployed {self.service}"


@attrs.frozen
class ReadLog:
    """Read the service log (long)."""

    __tool_contract__ = ToolContract(output_ceilings=OutputCeilings(max_bytes=256))

    def invoke(self) -> str:
        return "start\n" + "line\n" * 2000 + "end\n"


@attrs.frozen
class DumpTable:
    """Dump the whole table (240,010 bytes)."""

    def invoke(self) -> str:
        return "HEAD\n" + "row,value\n" * 24_000 + "TAIL\n"


_TIMELINE: list[str] = []


@attrs.frozen
class ReadPage:
    """Read a page (a read: it runs beside the other reads of its batch)."""

    __tool_contract__ = ToolContract(side_effect=SideEffect.READ)
    page: str

    async def invoke(self) -> str:
        _TIMELINE.append(f"start read {self.page}")
        await asyncio.sleep(0.01)
        _TIMELINE.append(f"end read {self.page}")
        return self.page


@attrs.frozen
class WritePage:
    """Write a page (a write: it runs alone, between the calls before and after it)."""

    __tool_contract__ = ToolContract(side_effect=SideEffect.WRITE)
    page: str

    async def invoke(self) -> str:
        _TIMELINE.append(f"start write {self.page}")
        await asyncio.sleep(0.01)
        _TIMELINE.append(f"end write {self.page}")
        return self.page


def _parallel() -> None:
    """A parallel batch scheduled from the contracts: two reads together, the write alone, then a read."""
    _TIMELINE.clear()
    reads = (call("read_page", '{"page": "a"}'), call("read_page", '{"page": "b"}'))
    calls = (*reads, call("write_page", '{"page": "b"}'), call("read_page", '{"page": "b"}'))
    model = ScriptedClient([ScriptedReply("", calls), ScriptedReply("Page b is written.")])
    runner = Runner(model, config(Provider.OPENAI_CHAT), reflect(ReadPage, WritePage), parallel=True)
    asyncio.run(runner.arun(request("any-model", [user("Read a and b, write b, read b again.")])))
    print(f"  {', '.join(_TIMELINE)}")


def _price(usage: RunUsage) -> Decimal:
    return Decimal(usage.input_tokens) * Decimal("0.000002") + Decimal(usage.output_tokens) * Decimal(
        "0.000008"
    )


def _bounded() -> None:
    """
    Long tool outputs bounded for the model with no projection option given (the default 64 KiB and
    10,000 tokens, or the tool's tighter ceilings); usage summed over the rounds and priced once.
    """
    used = Usage(1200, 40, 1240, {"prompt_tokens_details": {"cached_tokens": 1024}})
    model = ScriptedClient(
        [
            ScriptedReply("", (call("read_log"), call("dump_table")), usage=used),
            ScriptedReply("The log ends normally and the table is large.", usage=used),
        ]
    )

    def show(event: RunEvent) -> None:
        if isinstance(event, ToolCompleted):
            returned = len(event.outcome.content.encode())
            print(
                f"  {event.call.name}: returned {returned} bytes, the model saw {len(event.message.encode())}"
            )
        elif isinstance(event, ToolOutputTruncated):
            report = event.report
            ceilings = f"{report.max_bytes} bytes, {report.max_tokens} tokens"
            cut = f"{report.original_bytes} bytes cut to {report.projected_bytes}"
            limited = report.limiting_factor.value
            print(f"  ToolOutputTruncated {event.call.name}: {cut} (ceilings {ceilings}; over: {limited})")

    runner = Runner(
        model, config(Provider.OPENAI_CHAT), reflect(ReadLog, DumpTable), pricing=_price, on_event=show
    )
    result = asyncio.run(runner.arun(request("any-model", [user("Check the log.")])))
    usage = result.total_usage
    tokens = f"{usage.total_tokens} tokens, {usage.cached_tokens} cached"
    print(f"  usage over {usage.model_calls} model calls: {tokens}")
    print(f"  cost (priced once): {result.cost}")


def _streamed_line(event: StreamEvent) -> str:
    """One line for each event of a streamed run."""
    match event:
        case ModelStarted(round=number):
            return f"ModelStarted round {number}"
        case TextDelta(text=text) | ArgumentsDelta(text=text):
            return f"{type(event).__name__} {text!r}"
        case ToolCallStarted(call_id=call_id, name=name):
            return f"ToolCallStarted {name} ({call_id})"
        case ModelCompleted(round=number, outcome=NeedsTools(admitted=admitted)):
            return (
                f"ModelCompleted round {number}: NeedsTools, {len(admitted)} call admitted (now it may run)"
            )
        case ModelCompleted(round=number, outcome=outcome):
            return f"ModelCompleted round {number}: {type(outcome).__name__}"
        case ToolStarted(call=started):
            return f"ToolStarted {started.name}"
        case ToolCompleted(call=done, message=message):
            return f"ToolCompleted {done.name} -> model: {message}"
        case RunCompleted(result=result):
            return f"RunCompleted: {result.stop.describe()} Answer: {result.text}"
        case _:
            return type(event).__name__


async def _streamed() -> None:
    """A run read as it goes: the model's SSE progress, then admission, the tool's result, the answer."""
    provider = Provider.ANTHROPIC
    turns = [
        answer(
            provider,
            "Let me look.",
            [FakeCall("toolu_1", "get_weather", '{"city": "Oslo", "days": 2}')],
            stream=True,
            piece=12,
        ),
        answer(provider, "Sunny in Oslo for two days.", stream=True),
    ]
    with FakeProvider(turns) as fake:
        async with AsyncClient(base_url=fake.url, timeouts=Timeouts(total=30.0)) as client:
            runner = Runner(client, config(provider).with_stream(True), reflect(GetWeather))
            async with runner.stream(request("fake-model", [user("Weather in Oslo?")])) as events:
                async for event in events:
                    print(f"  {_streamed_line(event)}")


def _show(event: RunEvent) -> None:
    if isinstance(event, ToolCompleted):
        shown = event.message if len(event.message) <= 150 else event.message[:147] + "..."
        print(f"  tool {event.call.name} -> model: {shown}")
    elif isinstance(event, ToolRetrying):
        print(f"  tool {event.call.name}: attempt {event.attempt} failed, retrying in {event.delay:.2f}s")


def _approve(asked: ApprovalRequest) -> bool:
    arguments = json.dumps(asked.arguments, sort_keys=True)
    print(f"  approver sees: {asked.tool} ({asked.side_effect.value}) with {arguments}: approved")
    return True


#: What the fake model says, turn by turn: its text and its calls.
TURNS: tuple[tuple[str, tuple[FakeCall, ...]], ...] = (
    ("", (FakeCall("call_1", "get_weather", '{"city": 5}'),)),
    ("", (FakeCall("call_2", "get_weather", '{"city": "Oslo", "days": 2}'),)),
    ("", (FakeCall("call_3", "slow_report", "{}"),)),
    ("", (FakeCall("call_4", "fetch_quote", '{"symbol": "ACME"}'),)),
    ("", (FakeCall("call_5", "deploy_service", '{"service": "api", "token": "s3cr3t"}'),)),
    ("Oslo is sunny, ACME is at 101, and the api is deployed.", ()),
)


async def _loop(tracer: Tracer | None) -> tuple[RunResult, int]:
    provider = Provider.OPENAI_CHAT
    script = [answer(provider, text, calls) for text, calls in TURNS]
    tools = reflect(GetWeather, SlowReport, FetchQuote, DeployService)
    with FakeProvider(script) as fake:
        async with AsyncClient(base_url=fake.url, timeouts=Timeouts(total=30.0)) as client:
            runner = Runner(client, config(provider), tools, approver=_approve, on_event=_show, tracer=tracer)
            asked = request("fake-model", [user("Weather in Oslo, a report, a quote, then deploy.")])
            result = await runner.arun(asked)
        return result, len(fake.exchanges)


def _span_line(span: ReadableSpan) -> str:
    """One line per span for the console exporter: its name, kind, attributes and events."""
    attributes = " ".join(f"{key}={value!r}" for key, value in (span.attributes or {}).items())
    events = "".join(f"\n      event {event.name} {dict(event.attributes or {})}" for event in span.events)
    return f"  span {span.name} [{span.kind.name}] {attributes}{events}\n"


def _console_tracer() -> Tracer | None:
    """A tracer printing each span as it ends (``opentelemetry-sdk``, a dev dependency), or ``None``."""
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
    except ImportError:
        print("  (--trace needs opentelemetry-sdk: pip install opentelemetry-sdk)")
        return None
    provider = TracerProvider()
    provider.add_span_processor(
        SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stdout, formatter=_span_line))
    )
    return provider.get_tracer("llm_wire.demo")


def run(*, trace: bool = False) -> None:
    """
    Run one conversation through every contract feature, over HTTP to the fake provider; with ``trace``,
    print its OpenTelemetry spans as they end.
    """
    _FLAKY["attempts"] = 0
    print("A model behind HTTP calls four typed tools; every call is admitted, then run under its contract:")
    result, sent = asyncio.run(_loop(_console_tracer() if trace else None))
    print(f"run ended: {result.stop.describe()} after {result.rounds} tool rounds and {sent} HTTP requests")
    print(f"  final answer: {result.text}")
    print("\nA retrying contract on a tool that is not idempotent is refused when it is made:")
    try:
        ToolContract(retry=ToolRetryPolicy(max_attempts=3))
    except DefinitionError as error:
        print(f"  DefinitionError: {error}")
    print("\nWith parallel=True, reads run together and a write runs alone, in call order:")
    _parallel()
    print("\nLong tool outputs are bounded for the model by default (ToolOutputTruncated); usage adds up:")
    _bounded()
    print(
        "\nRunner.stream over SSE (Anthropic): progress as it arrives, then admission, the tool, the answer:"
    )
    asyncio.run(_streamed())
