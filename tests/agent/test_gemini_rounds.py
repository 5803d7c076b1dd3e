"""
A Gemini run over several tool rounds (issue 23, item 10). Gemini ``functionCall`` parts mostly carry no
``id``: the ids llm_wire gives them are unique over the run and stable when the same request is decoded
again, and the ``functionResponse`` parts go back by name and order, with no id Gemini never gave.
"""

from __future__ import annotations

import attrs
import pytest

from llm_wire import config, prepare, request, user
from llm_wire.agent import Runner, StopReason, reflect
from llm_wire.message import AssistantTurn, Message, Provider, ToolResult
from llm_wire.providers import google
from llm_wire.providers.response import ResponseLimits
from llm_wire.result import unwrap
from llm_wire.transport import Client
from llm_wire.transport.fake import FakeProvider, Received, Reply
from llm_wire.value import Value, render

CONFIG = config(Provider.GOOGLE)


@attrs.frozen
class GetWeather:
    """Current weather for a city."""

    city: str

    def invoke(self) -> str:
        return f"sunny in {self.city}"


def _body(parts: list[Value]) -> Reply:
    """A GenerateContent body with these parts, as Gemini sends it (no call ids)."""
    candidate: Value = {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
    usage: Value = {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5}
    return Reply(chunks=(render({"candidates": [candidate], "usageMetadata": usage}).encode(),))


def _call(city: str) -> Value:
    return {"functionCall": {"name": "get_weather", "args": {"city": city}}}


class TestGeminiRounds:
    def test_a_two_round_run_answers(self) -> None:
        """
        Two rounds of id-less calls (two, then one) and an answer: the run answers, every call has its own
        id, and each request sends the function responses in call order, by name, with no id.
        """
        replies = [
            _body([_call("Oslo"), _call("Rome")]),
            _body([{"text": "And Paris: "}, _call("Paris")]),
            _body([{"text": "Sunny everywhere."}]),
        ]
        received: list[Value] = []

        def script(got: Received) -> Reply:
            received.append(got.json())
            return replies[len(received) - 1]

        with FakeProvider(script) as fake, Client(base_url=fake.url, api_key="k") as client:
            runner = Runner(client, CONFIG, reflect(GetWeather))
            try:
                result = runner.run(request("gemini-2.5-flash", [user("Weather?")]))
            finally:
                runner.close()
        assert result.stop is StopReason.ANSWERED, result.stop
        assert result.text == "Sunny everywhere."
        ids = [record.call.id for record in result.calls]
        assert len(ids) == 3
        assert len(set(ids)) == 3
        assert len(received) == 3
        assert _contents(received[1])[1:] == [
            {"role": "model", "parts": [_call("Oslo"), _call("Rome")]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "get_weather", "response": {"result": "sunny in Oslo"}}},
                    {"functionResponse": {"name": "get_weather", "response": {"result": "sunny in Rome"}}},
                ],
            },
        ]
        assert _contents(received[2])[3:] == [
            {"role": "model", "parts": [{"text": "And Paris: "}, _call("Paris")]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "get_weather", "response": {"result": "sunny in Paris"}}}
                ],
            },
        ]

    def test_generated_ids_are_stable_and_skip_the_history(self) -> None:
        """The same request decodes a body to the same ids, none of them used by the request's history."""
        body = render(
            {"candidates": [{"content": {"role": "model", "parts": [_call("Oslo")]}, "finishReason": "STOP"}]}
        )
        first = unwrap(prepare(CONFIG, request("m", [user("Weather?")])))
        turn = unwrap(first.decode_body(body)).turn
        assert [(call.id, call.provider_id) for call in turn.calls] == [("llm_wire_call_0", None)]
        history: list[Message] = [user("Weather?"), turn, *_answers(turn), user("And now?")]
        later = unwrap(prepare(CONFIG, request("m", history)))
        again = [call.id for call in unwrap(later.decode_body(body)).calls]
        assert again == [call.id for call in unwrap(later.decode_body(body)).calls]
        assert again == ["llm_wire_call_1"]

    def test_taken_ids_must_be_a_frozenset(self) -> None:
        """A decoder given the taken ids as anything but a frozenset names the parameter."""
        with pytest.raises(TypeError, match="taken_ids must be a frozenset, not list"):
            google.WIRE.decoder(ResponseLimits(), taken_ids=["llm_wire_call_0"])  # type: ignore[arg-type]

    def test_a_call_gemini_named_keeps_its_id(self) -> None:
        """A call Gemini gave an id goes back with it, and so does its function response."""
        part: Value = {"functionCall": {"id": "g-1", "name": "get_weather", "args": {"city": "Oslo"}}}
        body = render(
            {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}]}
        )
        turn = unwrap(unwrap(prepare(CONFIG, request("m", [user("Weather?")]))).decode_body(body)).turn
        sent = unwrap(prepare(CONFIG, request("m", [user("Weather?"), turn, *_answers(turn)]))).body
        assert _contents(sent)[1:] == [
            {"role": "model", "parts": [part]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": "g-1", "name": "get_weather", "response": {"result": "ok"}}}
                ],
            },
        ]


def _answers(turn: AssistantTurn) -> list[ToolResult]:
    return [ToolResult(call.id, "ok") for call in turn.calls]


def _contents(body: Value) -> list[Value]:
    """A GenerateContent request body's ``contents``."""
    assert isinstance(body, dict)
    contents = body["contents"]
    assert isinstance(contents, list)
    return contents
