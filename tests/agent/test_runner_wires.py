"""
The runner over every wire (issue 23, Principle 6): a two-round run against the fake provider over loopback,
as a body and as a stream, sync and async, whose tool returns 240 KB. The request after the tool carries the
bounded result in that wire's own words, and the run answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import attrs
import pytest

from llm_wire import config, request, user
from llm_wire.agent import Runner, RunResult, StopReason, reflect
from llm_wire.agent.events import RunEvent, ToolCompleted, ToolOutputTruncated
from llm_wire.agent.projection import HeuristicEstimator
from llm_wire.agent.steps import Model
from llm_wire.message import Provider
from llm_wire.transport import AsyncClient, Client
from llm_wire.transport.fake import FakeCall, FakeProvider, Received, ScriptedModel
from llm_wire.transport.fake._scripted import Turn, streaming
from llm_wire.value import Value

#: What the tool returns: 240,010 bytes of text.
LOG = "HEAD-" + "x" * 240_000 + "-TAIL"


@attrs.frozen
class ReadLog:
    """Read the whole log."""

    def invoke(self) -> str:
        return LOG


def _at(body: Value, *path: str | int) -> Value:
    """The member of a request body at ``path`` (a test failure if it is not there)."""
    node = body
    for step in path:
        if isinstance(step, int):
            assert isinstance(node, list), (path, step)
            node = node[step]
        else:
            assert isinstance(node, dict), (path, step)
            node = node[step]
    return node


#: Where each wire puts the tool message of a request after one tool round, and its text within it.
WHERE: dict[Provider, tuple[tuple[str | int, ...], tuple[str | int, ...]]] = {
    Provider.OPENAI_CHAT: (("messages", 2), ("content",)),
    Provider.OPENAI_RESPONSES: (("input", 2), ("output",)),
    Provider.ANTHROPIC: (("messages", 2), ("content", 0, "content")),
    Provider.GOOGLE: (("contents", 2), ("parts", 0, "functionResponse", "response", "result")),
}


def _tool_message(provider: Provider, body: Value) -> tuple[Value, str]:
    """The tool message of a request, its text replaced by ``"<text>"``, and the text itself."""
    at_message, at_text = WHERE[provider]
    message = _at(body, *at_message)
    text = _at(message, *at_text)
    assert isinstance(text, str)
    return _replaced(message, at_text, "<text>"), text


def _replaced(node: Value, key: tuple[str | int, ...], replacement: str) -> Value:
    """A copy of ``node`` with the member at ``key`` replaced."""
    if not key:
        return replacement
    head, rest = key[0], key[1:]
    if isinstance(node, list) and isinstance(head, int):
        return [_replaced(item, rest, replacement) if n == head else item for n, item in enumerate(node)]
    assert isinstance(node, dict)
    assert isinstance(head, str)
    return {name: _replaced(item, rest, replacement) if name == head else item for name, item in node.items()}


#: The tool message each wire sends, its text aside.
EXPECTED: dict[Provider, Value] = {
    Provider.OPENAI_CHAT: {"role": "tool", "tool_call_id": "call-1", "content": "<text>"},
    Provider.OPENAI_RESPONSES: {"type": "function_call_output", "call_id": "call-1", "output": "<text>"},
    Provider.ANTHROPIC: {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "call-1", "content": "<text>"}],
    },
    Provider.GOOGLE: {
        "role": "user",
        "parts": [
            {"functionResponse": {"id": "call-1", "name": "read_log", "response": {"result": "<text>"}}}
        ],
    },
}


def _run(fake: FakeProvider, runner_of: Callable[[Model], Runner], driver: str) -> RunResult:
    """One run over the fake provider: ``Client`` and ``run``, or ``AsyncClient`` and ``arun``."""
    question = request("m", [user("Read the log.")])
    if driver == "sync":
        with Client(base_url=fake.url, api_key="k") as client:
            runner = runner_of(client)
            try:
                return runner.run(question)
            finally:
                runner.close()

    async def over_async() -> RunResult:
        async with AsyncClient(base_url=fake.url, api_key="k") as client:
            return await runner_of(client).arun(question)

    return asyncio.run(over_async())


class TestEveryWire:
    @pytest.mark.parametrize("driver", ["sync", "async"])
    @pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
    @pytest.mark.parametrize("provider", list(Provider), ids=lambda provider: provider.value)
    def test_a_large_tool_result_goes_back_bounded(
        self, provider: Provider, stream: bool, driver: str
    ) -> None:
        """
        With no ``project_output`` given, the 240 KB result reaches the model within 64 KiB and 10,000
        estimated tokens, head and tail kept, in the wire's tool message; the whole outcome reaches
        ``on_event``, the truncation is reported, and the run answers; over the sync client and ``run``
        as over the async client and ``arun``.
        """
        bodies: list[Value] = []

        def respond(received: Received, _: Provider) -> Turn:
            assert streaming(received) is stream
            bodies.append(received.json())
            if len(bodies) == 1:
                return "", [FakeCall("call-1", "read_log", "{}")]
            return "The log is long.", []

        events: list[RunEvent] = []
        chosen = config(provider).with_stream(stream)
        with FakeProvider(ScriptedModel(respond)) as fake:
            result = _run(
                fake, lambda model: Runner(model, chosen, reflect(ReadLog), on_event=events.append), driver
            )
        assert result.stop is StopReason.ANSWERED, result.stop
        assert result.text == "The log is long."
        assert len(bodies) == 2
        shown, text = _tool_message(provider, bodies[1])
        assert shown == EXPECTED[provider]
        assert len(text.encode()) <= 64 * 1024
        assert HeuristicEstimator().estimate(text) <= 10_000
        assert text.startswith("Warning: tool output truncated (original bytes: 240010,")
        assert "\nHEAD-xxx" in text
        assert text.endswith("xxx-TAIL")
        [completed] = [event for event in events if isinstance(event, ToolCompleted)]
        assert completed.outcome.content == LOG
        assert completed.message == text
        assert [event.call.id for event in events if isinstance(event, ToolOutputTruncated)] == ["call-1"]
