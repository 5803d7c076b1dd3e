"""
Reasoning across tool turns, in the conversation (issue 26, item 6): a recorded response with reasoning and a
call is decoded, the call answered, and the next request encoded; it must carry the reasoning as the provider
sent it, byte for byte.

- OpenAI Responses: a recorded pair (pydantic-ai ``test_openai_responses_thinking_with_tool_calls``, gpt-5
  with ``include: ["reasoning.encrypted_content"]``): the ``reasoning`` item with its ``encrypted_content``
  and the ``function_call`` item go back as received, and equal what pydantic-ai sent in the recorded second
  request.
- Anthropic: the thinking block (and its signature) of pydantic-ai ``test_anthropic_tool_with_thinking``'s
  second request, decoded as the response it came from, whole and streamed as the Messages API streams
  thinking (``thinking_delta`` then ``signature_delta``, as in anthropic-sdk-python's recorded
  ``stream-a-refusal`` fixture); and a ``redacted_thinking`` block, whose shape anthropic-sdk-python's
  ``RedactedThinkingBlock`` gives ("Pass ``redacted_thinking`` blocks back to the API unchanged").
- Gemini 3: recorded pairs of ``gemini-3-flash-preview`` (a body and a stream): each ``functionCall`` part's
  ``thoughtSignature`` goes back exactly as received. pydantic-ai re-encoded the signatures it sent as
  URL-safe base64, so against its recorded request the signatures are compared as the bytes they encode.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import attrs
import pytest

import llm_wire as rq
from llm_wire.agent import Runner, StopReason, reflect
from llm_wire.message import AssistantTurn, Message, Provider, ToolResult
from llm_wire.providers import WIRES
from llm_wire.providers.response import Terminal
from llm_wire.result import Ok, unwrap
from llm_wire.transport import Client
from llm_wire.transport.fake import FakeProvider, answer
from llm_wire.transport.fake import recorded as replayed
from llm_wire.value import Limits, Value, parse, render

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "provider-responses"
pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"provider-responses corpus not found at {CORPUS}"
)

RESPONSES_PAIR = (
    "openai-responses/pydantic-ai--test_openai_responses--test_openai_responses_thinking_with_tool_calls"
)
ANTHROPIC_THINKING = "anthropic/pydantic-ai--test_anthropic--test_anthropic_tool_with_thinking--1.json"
GEMINI_3_PAIRS = [
    "gemini/pydantic-ai--test_structured_output--test_native_output_with_function_tools_stream",
    "gemini/pydantic-ai--test_multimodal_tool_returns--test_multimodal_tool_return_matrix_"
    "direct-url-document-google_gemini3",
]


def recorded(name: str) -> dict[str, Any]:
    """A recorded exchange, read exactly (numbers and member order as stored)."""
    document = unwrap(parse((CORPUS / name).read_bytes(), Limits(max_bytes=64 * 1024 * 1024)))
    assert isinstance(document, dict)
    return document


def next_body(provider: Provider, model: str, question: str, turn: AssistantTurn, answer: str) -> Any:
    """The request after ``turn``: the question, the turn, and each call answered with ``answer``."""
    messages: list[Message] = [rq.user(question), turn]
    messages += [ToolResult(call.id, answer) for call in turn.calls]
    return unwrap(rq.prepare(rq.config(provider), rq.request(model, messages))).body


def decode_events(provider: Provider, events: list[Any]) -> Terminal:
    """A stream fed event by event (each event's data as parsed)."""
    decoder = WIRES[provider].decoder()
    for data in events:
        assert isinstance(decoder.feed_json(data), Ok)
    return unwrap(decoder.finish())


class TestOpenAIResponses:
    """The reasoning item and its encrypted content go back with the call they led to."""

    def terminal(self, stream: bool) -> Terminal:
        first = recorded(f"{RESPONSES_PAIR}--0.json")
        if not stream:
            return unwrap(WIRES[Provider.OPENAI_RESPONSES].decode_body(first["response"]))
        # The items as a stream sends them: each added, then done whole.
        events: list[Value] = [{"type": "response.created", "response": {"id": first["response"]["id"]}}]
        for index, item in enumerate(first["response"]["output"]):
            events.append({"type": "response.output_item.added", "output_index": index, "item": item})
            events.append({"type": "response.output_item.done", "output_index": index, "item": item})
        events.append({"type": "response.completed", "response": first["response"]})
        return decode_events(Provider.OPENAI_RESPONSES, events)

    @pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
    def test_the_second_request_carries_the_reasoning(self, stream: bool) -> None:
        first, second = recorded(f"{RESPONSES_PAIR}--0.json"), recorded(f"{RESPONSES_PAIR}--1.json")
        terminal = self.terminal(stream)
        [call] = terminal.calls
        question = first["request"]["input"][0]["content"]
        answer = second["request"]["input"][3]["output"]
        body = next_body(Provider.OPENAI_RESPONSES, "gpt-5", question, terminal.turn, answer)
        reasoning, function_call, result = body["input"][1:]
        received = first["response"]["output"]
        # What the provider sent, byte for byte: the reasoning item whole, the call item whole.
        assert render(reasoning) == render(received[0])
        assert render(function_call) == render(received[1])
        # What pydantic-ai sent in the recorded second request (it leaves out the call's ``status``).
        sent = second["request"]["input"]
        assert render(reasoning) == render(sent[1])
        assert render({k: v for k, v in function_call.items() if k != "status"}) == render(sent[2])
        assert result == sent[3]
        assert call.id == sent[2]["call_id"]


def thinking_exchange() -> tuple[str, list[Any]]:
    """The question and the assistant's content blocks (thinking, text, call) of the recorded request."""
    history = recorded(ANTHROPIC_THINKING)["request"]["messages"]
    return history[0]["content"][0]["text"], history[1]["content"]


def message_body(blocks: list[Any]) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": blocks,
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def streamed(blocks: list[Any], piece: int = 7) -> list[Any]:
    """
    ``blocks`` as the Messages API streams them: a thinking block starts empty and gets its text in
    ``thinking_delta`` pieces, then its signature in one ``signature_delta``; text in ``text_delta``
    pieces; a call's input in ``input_json_delta``; a redacted block starts whole.
    """
    events: list[Any] = [{"type": "message_start", "message": {**message_body([]), "stop_reason": None}}]
    for index, block in enumerate(blocks):
        kind = block["type"]
        deltas: list[Value] = []
        if kind == "thinking":
            start: Value = {"type": "thinking", "thinking": "", "signature": ""}
            text = block["thinking"]
            assert isinstance(text, str)
            deltas += [
                {"type": "thinking_delta", "thinking": text[n : n + piece]}
                for n in range(0, len(text), piece)
            ]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "text":
            start = {"type": "text", "text": ""}
            text = block["text"]
            assert isinstance(text, str)
            deltas += [
                {"type": "text_delta", "text": text[n : n + piece]} for n in range(0, len(text), piece)
            ]
        elif kind == "tool_use":
            start = {**block, "input": {}}
            deltas.append({"type": "input_json_delta", "partial_json": render(block["input"])})
        else:
            start = block
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [{"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas]
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 1}}
    )
    events.append({"type": "message_stop"})
    return events


class TestAnthropic:
    """Thinking and redacted thinking blocks go back, in order, with the call they came with."""

    def test_a_recorded_thinking_block_goes_back_byte_for_byte(self) -> None:
        """Decoded whole, the blocks go back exactly as the recorded second request holds them."""
        question, blocks = thinking_exchange()
        terminal = unwrap(WIRES[Provider.ANTHROPIC].decode_body(message_body(blocks)))
        body = next_body(Provider.ANTHROPIC, "claude-sonnet-4-0", question, terminal.turn, "Mexico")
        assert render(body["messages"][1]["content"]) == render(blocks)

    def test_a_streamed_thinking_block_goes_back_whole(self) -> None:
        """Streamed, the thinking text and signature come back whole, each byte for byte."""
        question, blocks = thinking_exchange()
        terminal = decode_events(Provider.ANTHROPIC, streamed(blocks))
        body = next_body(Provider.ANTHROPIC, "claude-sonnet-4-0", question, terminal.turn, "Mexico")
        sent = body["messages"][1]["content"]
        assert [block["type"] for block in sent] == ["thinking", "text", "tool_use"]
        assert render(sent[0]["signature"]) == render(blocks[0]["signature"])
        assert render(sent[0]["thinking"]) == render(blocks[0]["thinking"])
        assert sent == blocks  # every member, in the order the stream gave them

    @pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
    def test_redacted_thinking_goes_back_unchanged(self, stream: bool) -> None:
        """A redacted block (opaque ``data``) between thinking and the call goes back as it came."""
        question, blocks = thinking_exchange()
        redacted: dict[str, Value] = {
            "type": "redacted_thinking",
            "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ"
            "5sQ7vB9URj2p",
        }
        with_redacted: list[Any] = [blocks[0], redacted, *blocks[1:]]
        wire = WIRES[Provider.ANTHROPIC]
        terminal = (
            decode_events(Provider.ANTHROPIC, streamed(with_redacted))
            if stream
            else unwrap(wire.decode_body(message_body(with_redacted)))
        )
        body = next_body(Provider.ANTHROPIC, "claude-sonnet-4-0", question, terminal.turn, "Mexico")
        sent = body["messages"][1]["content"]
        assert render(sent[1]) == render(redacted)
        assert sent == with_redacted


class TestGemini3:
    """Each call's thought signature goes back on its part, as received."""

    @pytest.mark.parametrize("pair", GEMINI_3_PAIRS, ids=["stream", "body"])
    def test_the_second_request_carries_the_signatures(self, pair: str) -> None:
        first, second = recorded(f"{pair}--0.json"), recorded(f"{pair}--1.json")
        if first["stream"]:
            events = [event["data"] for event in first["response_events"]]
            terminal = decode_events(Provider.GOOGLE, events)
            parts = [p for e in events for p in e["candidates"][0]["content"]["parts"] if "functionCall" in p]
        else:
            terminal = unwrap(WIRES[Provider.GOOGLE].decode_body(first["response"]))
            parts = [p for p in first["response"]["candidates"][0]["content"]["parts"] if "functionCall" in p]
        assert "gemini-3" in render(first)
        question = first["request"]["contents"][0]["parts"][0]["text"]
        body = next_body(Provider.GOOGLE, "gemini-3-flash-preview", question, terminal.turn, "Mexico")
        model = body["contents"][1]
        assert model["role"] == "model"
        sent = [part for part in model["parts"] if "functionCall" in part]
        assert len(sent) == len(parts) >= 1
        for ours, theirs in zip(sent, parts, strict=True):
            assert render(ours["thoughtSignature"]) == render(theirs["thoughtSignature"])
            assert ours["functionCall"]["name"] == theirs["functionCall"]["name"]
            assert render(ours["functionCall"]["args"]) == render(theirs["functionCall"]["args"])
        recorded_parts = [p for p in second["request"]["contents"][1]["parts"] if "functionCall" in p]
        assert [_signature_bytes(part) for part in sent] == [
            _signature_bytes(part) for part in recorded_parts
        ]


def _signature_bytes(part: dict[str, Any]) -> bytes:
    """The bytes a part's thought signature encodes (standard or URL-safe base64)."""
    signature = part["thoughtSignature"]
    return base64.b64decode(signature.replace("-", "+").replace("_", "/"))


@attrs.frozen
class UpdatePlan:
    """Update the plan."""

    plan: str

    def invoke(self) -> str:
        return "plan updated"


@attrs.frozen
class GetUserCountry:
    """The user's country."""

    def invoke(self) -> str:
        return "Mexico"


class TestRunner:
    """
    The same, through the runner (not a durable one) over the fake provider on loopback: the recorded response
    is served byte for byte, the tool runs, and the request the runner sends next carries the reasoning.
    """

    def second_request(self, provider: Provider, first: Value, stream: bool) -> Any:
        chosen = rq.config(provider).with_stream(stream)
        done = answer(provider, "Done.", stream=stream)
        with FakeProvider([replayed(first), done]) as fake, Client(base_url=fake.url, api_key="k") as client:
            runner = Runner(client, chosen, reflect(UpdatePlan, GetUserCountry))
            try:
                result = runner.run(rq.request("m", [rq.user("Go.")]))
            finally:
                runner.close()
            assert result.stop is StopReason.ANSWERED, result.stop
            assert len(fake.exchanges) == 2
            return fake.exchanges[1].received.json()

    def test_openai_responses(self) -> None:
        first = recorded(f"{RESPONSES_PAIR}--0.json")
        body = self.second_request(Provider.OPENAI_RESPONSES, first, stream=False)
        reasoning, function_call = body["input"][1:3]
        assert render(reasoning) == render(first["response"]["output"][0])
        assert render(function_call) == render(first["response"]["output"][1])

    @pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
    def test_anthropic(self, stream: bool) -> None:
        _, blocks = thinking_exchange()
        record: Value = (
            {"stream": True, "response_events": [{"event": e["type"], "data": e} for e in streamed(blocks)]}
            if stream
            else {"stream": False, "response": message_body(blocks)}
        )
        body = self.second_request(Provider.ANTHROPIC, record, stream)
        sent = body["messages"][1]["content"]
        assert sent == blocks
        assert render(sent[0]["signature"]) == render(blocks[0]["signature"])

    def test_gemini_3(self) -> None:
        first = recorded(f"{GEMINI_3_PAIRS[0]}--0.json")
        body = self.second_request(Provider.GOOGLE, first, stream=True)
        [part] = [part for part in body["contents"][1]["parts"] if "functionCall" in part]
        [theirs] = [
            part
            for event in first["response_events"]
            for part in event["data"]["candidates"][0]["content"]["parts"]
            if "functionCall" in part
        ]
        assert render(part["thoughtSignature"]) == render(theirs["thoughtSignature"])
