"""
Demo: the whole round trip over real HTTP, against the local fake provider, for each of the four APIs.

Two tools are declared (one from a derived codec, one from an MCP ``inputSchema``), the request is
prepared and sent; the model's streamed text shows live, its calls come back as ``NeedsTools``; the tools
run on the admitted arguments, their results are appended and the request is sent again, and the final
answer is printed. The fake provider is a real server on ``127.0.0.1``: no keys, no network beyond it.
``round_trip`` is the same loop ``python -m llm_wire demo --provider ... --model ...`` runs against a
real API (``llm_wire.demo.live``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from llm_wire import Config, Prepared, codec, config, prepare, request, system, tool, tool_result, user
from llm_wire.admission import AdmittedCall, describe_issue
from llm_wire.demo.admission import CONVERT_TIME, GetWeather
from llm_wire.message import Provider
from llm_wire.outcome import Answer, NeedsTools, Outcome
from llm_wire.providers.response import ArgumentsDelta, TextDelta, ToolCallStarted
from llm_wire.result import Err, unwrap
from llm_wire.tool import Tool
from llm_wire.transport import Client, Timeouts
from llm_wire.transport.fake import FakeCall, FakeProvider, Received, ScriptedModel
from llm_wire.value import Value

__all__ = ["MAX_TURNS", "QUESTION", "declared_tools", "fake_model", "round_trip", "run", "run_tool"]

#: The most requests one round trip sends.
MAX_TURNS = 4
QUESTION = "What is the weather in Paris for 2 days, and what is 14:30 in Europe/Paris in Tokyo?"


def declared_tools() -> list[Tool]:
    """``get_weather`` from a derived codec, ``convert_time`` from the MCP time server's ``inputSchema``."""
    weather = tool.new("get_weather", "Current weather and a forecast for a place.", codec.derive(GetWeather))
    convert = unwrap(
        tool.from_json_schema("convert_time", "Convert a time between time zones.", CONVERT_TIME)
    )
    return [weather, convert]


def run_tool(admitted: AdmittedCall) -> str:
    """What each demo tool answers, computed from its admitted (decoded) arguments."""
    decoded: Any = admitted.decoded
    if isinstance(decoded, GetWeather):
        return f"{decoded.location.city}: 18 C and sunny for the next {decoded.days} day(s)"
    hours, _, minutes = str(decoded["time"]).partition(":")
    shifted = (int(hours) + 8) % 24 if hours.isdigit() else 0
    return f"{decoded['time']} in {decoded['source_timezone']} is {shifted:02d}:{minutes or '00'} in Tokyo"


def round_trip(client: Client, chosen: Config, model: str) -> Outcome | None:
    """
    Ask ``model`` (through ``client``, configured by ``chosen``) a question that needs both tools, run the
    calls it makes, send their results back, and return the final outcome (``None`` when a request cannot
    be prepared); the streamed text shows live.
    """
    asked = request(model, [system("Use the tools, then answer in one sentence."), user(QUESTION)])
    asked = asked.with_tools(declared_tools())
    outcome: Outcome | None = None
    for _ in range(MAX_TURNS):
        prepared = prepare(chosen, asked)
        if isinstance(prepared, Err):
            print(f"  not sent: {prepared.error.describe()}")
            return None
        print(f"  -> POST {prepared.value.path} ({len(prepared.value.body_bytes())} bytes)")
        outcome = _streamed(client, prepared.value)
        if not isinstance(outcome, NeedsTools):
            return outcome
        results = []
        for call in outcome.turn.calls:
            admitted = outcome.arguments(call.id)
            if admitted is None:
                issue = next(i for i in outcome.issues if i.call_id == call.id)
                print(f"  <- {call.name}: refused at admission, the model is told why")
                results.append(tool_result(call, describe_issue(issue), is_error=True))
                continue
            answer = run_tool(admitted)
            print(f"  <- ran {call.name}({call.arguments_json}): {answer}")
            results.append(tool_result(call, answer))
        asked = asked.with_messages(outcome.turn, *results)
    return outcome


def _streamed(client: Client, prepared: Prepared) -> Outcome:
    """Send ``prepared``, showing its text deltas as they arrive; its outcome."""
    writing = False
    for item in client.stream(prepared):
        if isinstance(item, TextDelta):
            if not writing:
                sys.stdout.write("  model: ")
                writing = True
            sys.stdout.write(item.text)
            sys.stdout.flush()
        elif isinstance(item, ToolCallStarted):
            if writing:
                sys.stdout.write("\n")
                writing = False
            print(f"  model calls {item.name} ...")
        elif not isinstance(item, ArgumentsDelta):
            if writing:
                sys.stdout.write("\n")
            return item
    raise AssertionError("a stream ends with its outcome")  # pragma: no cover


def _strings(value: Value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    return []


def fake_model(received: Received, provider: Provider) -> tuple[str, Sequence[FakeCall]]:
    """
    The fake provider's scripted model: it calls both tools, then answers from the results it was sent.
    """
    results = [text for text in _strings(received.json()) if "sunny" in text or text.endswith(" in Tokyo")]
    if results:
        return "Here is what the tools found: " + "; ".join(results) + ".", ()
    weather = FakeCall("call_weather", "get_weather", '{"location": {"city": "Paris"}, "days": 2}')
    convert = FakeCall(
        "call_time",
        "convert_time",
        '{"source_timezone": "Europe/Paris", "time": "14:30", "target_timezone": "Asia/Tokyo"}',
    )
    return "Let me look both up.", (weather, convert)


def run() -> None:
    """The round trip for each API, streamed, over HTTP to the fake provider on loopback."""
    for n, provider in enumerate(Provider):
        if n:
            print()
        print(f"{provider.value}, streamed over HTTP:")
        with FakeProvider(ScriptedModel(fake_model, gap=0.005)) as fake:
            with Client(base_url=fake.url, timeouts=Timeouts(total=30.0)) as client:
                outcome = round_trip(client, config(provider).with_stream(True), "fake-model")
            print(f"  ({len(fake.exchanges)} requests to {fake.url}, no key, loopback only)")
        if isinstance(outcome, Answer):
            print(f"  final answer: {outcome.text}")
        elif outcome is not None:
            print(f"  ended as {type(outcome).__name__}: {outcome}")
