"""
A fifth provider is one module: Toy Talk (``toy_wire``, an API of our own) registered with one line runs
through ``prepare``, the local fake provider over loopback (real HTTP through ``transport.Client``) and
admission like the built-in APIs, and a bad call is refused as usual.

Registering it makes a new registry value (``WIRES.with_wire``); the test hands that value to ``config`` and
to the fake provider. The package's ``WIRES`` never holds Toy Talk, so no other test sees it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import toy_wire

import llm_wire as rq
from llm_wire.admission import InvalidArguments, InvalidToolCall, UnknownTool
from llm_wire.message import Provider
from llm_wire.outcome import Answer, Failure, NeedsTools
from llm_wire.providers import WIRES, UnsupportedSetting
from llm_wire.providers.response import ErrorKind, ProviderError
from llm_wire.result import Err, Ok, unwrap
from llm_wire.tool import Tool, from_json_schema
from llm_wire.transport import Client
from llm_wire.transport.fake import FakeCall, FakeProvider, Received, ScriptedModel, error
from llm_wire.transport.fake._scripted import Turn
from llm_wire.value import Value

#: The one line that registers Toy Talk.
TOY_WIRES = WIRES.with_wire(toy_wire.WIRE)

WEATHER: Tool = unwrap(
    from_json_schema(
        "get_weather",
        "The weather in a city.",
        {"type": "object", "properties": {"city": {"type": "string", "minLength": 1}}, "required": ["city"]},
    )
)
QUESTION = rq.request("toy-1", [rq.system("Be brief."), rq.user("Weather in Oslo?")]).with_tools([WEATHER])


def _config(stream: bool = False) -> rq.Config:
    return rq.config(toy_wire.PROVIDER, wires=TOY_WIRES).with_stream(stream)


def _prepared(req: rq.Request = QUESTION, base: rq.Config | None = None) -> rq.Prepared:
    return unwrap(rq.prepare(base or _config(), req))


class TestRegistration:
    """One line makes a registry holding Toy Talk; the package's registry stays as it is."""

    def test_one_line_registers_it(self) -> None:
        """The new registry holds the built-in APIs, then Toy Talk, found by provider and by alias."""
        assert list(TOY_WIRES) == [*WIRES, Provider("toy-talk")]
        assert TOY_WIRES[Provider("toy-talk")] is toy_wire.WIRE
        assert TOY_WIRES.named("toy") is toy_wire.WIRE
        assert repr(TOY_WIRES) == "WIRES(OPENAI_RESPONSES, OPENAI_CHAT, ANTHROPIC, GOOGLE, TOY_TALK)"

    def test_the_package_registry_is_untouched(self) -> None:
        """``WIRES`` does not hold Toy Talk, so a configuration for it needs the new registry."""
        assert toy_wire.PROVIDER not in WIRES
        assert len(WIRES) == 4
        with pytest.raises(KeyError):
            rq.config(toy_wire.PROVIDER)
        assert _config().wire is toy_wire.WIRE

    def test_only_a_wire_registers(self) -> None:
        """``with_wire`` takes a ``Wire``; anything else is a ``TypeError`` naming the parameter."""
        with pytest.raises(TypeError, match="wire must be a Wire"):
            WIRES.with_wire(toy_wire)  # type: ignore[arg-type]


class TestPrepare:
    """``prepare`` checks the request once and Toy Talk's ``encode`` writes its body."""

    def test_the_body_is_toy_talk(self) -> None:
        """System, user, tools and settings in Toy Talk's words, at its path."""
        prepared = _prepared(QUESTION.with_tool_choice(rq.ToolChoice.REQUIRED).with_max_tokens(50))
        assert prepared.path == "/toy/talk"
        assert prepared.provider == toy_wire.PROVIDER
        assert prepared.body == {
            "model": "toy-1",
            "lines": [{"from": "boss", "text": "Be brief."}, {"from": "you", "text": "Weather in Oslo?"}],
            "tools": [
                {
                    "tool": "get_weather",
                    "about": "The weather in a city.",
                    "input": {
                        "type": "object",
                        "properties": {"city": {"type": "string", "minLength": 1}},
                        "required": ["city"],
                    },
                }
            ],
            "pick": "some",
            "max": 50,
        }

    def test_strict_tools_use_its_dialect(self) -> None:
        """Strict tools are projected with Toy Talk's strict profile and sent ``exact``."""
        prepared = _prepared(base=_config().with_strict_tools(True))
        tool: Any = prepared.body
        assert tool["tools"][0]["exact"] is True
        assert tool["tools"][0]["input"]["additionalProperties"] is False
        assert [loss.keyword for loss in prepared.projections["get_weather"].losses] == [
            "minLength",
            "additionalProperties",
        ]

    def test_a_setting_it_cannot_say_is_refused(self) -> None:
        """Stop sequences are an ``UnsupportedSetting`` naming Toy Talk, as for a built-in API."""
        got = rq.prepare(_config(), QUESTION.with_stop("END"))
        assert isinstance(got, Err)
        assert got.error == UnsupportedSetting("stop", toy_wire.PROVIDER, "Toy Talk has no such setting")
        assert got.error.describe() == "stop cannot be sent to toy-talk: Toy Talk has no such setting"

    def test_a_tool_choice_it_cannot_say_is_refused(self) -> None:
        """A subset of allowed tools, which Toy Talk cannot say, is refused rather than sent as no choice."""
        got = rq.prepare(_config(), QUESTION.with_tool_choice(rq.AllowedTools(["get_weather"])))
        assert isinstance(got, Err)
        assert got.error == UnsupportedSetting(
            "tool_choice", toy_wire.PROVIDER, "Toy Talk cannot restrict the tools offered"
        )


def _model(calls: list[FakeCall]) -> tuple[ScriptedModel, list[Provider]]:
    """A scripted model speaking the APIs of ``TOY_WIRES``: first ``calls``, then an answer."""
    seen: list[Provider] = []

    def respond(received: Received, provider: Provider) -> Turn:
        seen.append(provider)
        return ("Let me look.", calls) if len(seen) == 1 else ("Snow in Oslo.", [])

    return ScriptedModel(respond, wires=TOY_WIRES), seen


@pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
class TestOverLoopback:
    """Real HTTP to the fake provider, which speaks Toy Talk from its wire's ``Speech``."""

    def test_a_tool_round(self, stream: bool) -> None:
        """The call is admitted, its result goes back in Toy Talk's words, and the model answers."""
        model, seen = _model([FakeCall("t1", "get_weather", '{"city": "Oslo"}')])
        first = _prepared(base=_config(stream))
        with FakeProvider(model) as fake, Client(base_url=fake.url) as client:
            asked = client.complete(first)
            assert isinstance(asked, NeedsTools)
            assert [(a.call.id, a.arguments) for a in asked.admitted] == [("t1", {"city": "Oslo"})]
            assert asked.turn.provider == toy_wire.PROVIDER
            answered = QUESTION.with_messages(asked.turn, rq.tool_result(asked.turn.calls[0], "-3 C, snow"))
            second = _prepared(answered, _config(stream))
            final = client.complete(second)
        assert isinstance(final, Answer)
        assert final.text == "Snow in Oslo."
        assert seen == [toy_wire.PROVIDER, toy_wire.PROVIDER]
        sent = fake.exchanges[1].received
        assert (sent.method, sent.path) == ("POST", "/toy/talk")
        assert sent.json() == second.body
        body: Any = second.body
        assert body["lines"][2:] == [
            {
                "from": "bot",
                "text": "Let me look.",
                "calls": [{"id": "t1", "tool": "get_weather", "args": '{"city": "Oslo"}'}],
            },
            {"from": "tool", "id": "t1", "text": "-3 C, snow", "failed": False},
        ]

    def test_a_bad_call_is_refused(self, stream: bool) -> None:
        """Arguments that break the tool's schema fail the response under ``REJECT`` and are listed under
        ``REPORT``; the call never reaches the application as admitted."""
        bad = [FakeCall("t1", "get_weather", '{"city": ""}')]
        with FakeProvider(_model(bad)[0]) as fake, Client(base_url=fake.url) as client:
            rejected = client.complete(_prepared(base=_config(stream)))
        assert isinstance(rejected, Failure)
        assert isinstance(rejected.error, InvalidToolCall)
        assert isinstance(rejected.error.issue, InvalidArguments)
        assert rejected.error.issue.call_id == "t1"
        report = _config(stream).with_tool_call_checks(rq.ToolCallChecks.REPORT)
        with FakeProvider(_model(bad)[0]) as fake, Client(base_url=fake.url) as client:
            reported = client.complete(_prepared(base=report))
        assert isinstance(reported, NeedsTools)
        assert reported.admitted == ()
        assert [type(issue) for issue in reported.issues] == [InvalidArguments]

    def test_an_unknown_tool_is_refused(self, stream: bool) -> None:
        """A call to a tool the request did not declare is an ``UnknownTool``."""
        with (
            FakeProvider(_model([FakeCall("t1", "rm_rf", "{}")])[0]) as fake,
            Client(base_url=fake.url) as client,
        ):
            got = client.complete(_prepared(base=_config(stream)))
        assert isinstance(got, Failure)
        assert isinstance(got.error, InvalidToolCall)
        assert isinstance(got.error.issue, UnknownTool)


class TestErrorsAndAdmission:
    """Toy Talk's errors and bodies go through the same decoding and admission as the built-in APIs'."""

    def test_an_error_in_its_words(self) -> None:
        """The fake provider's 429 in Toy Talk's words is a retryable ``ProviderError`` with its delay."""
        busy = error(toy_wire.PROVIDER, 429, retry_after="2", message="slow down", wires=TOY_WIRES)
        assert busy.body == b'{"trouble":{"kind":"busy","why":"slow down"}}'
        with FakeProvider([busy]) as fake, Client(base_url=fake.url) as client:
            got = client.complete(_prepared())
        assert isinstance(got, Failure)
        assert isinstance(got.error, ProviderError)
        assert (got.error.kind, got.error.status, got.error.code) == (ErrorKind.RATE_LIMITED, 429, "busy")
        assert got.error.retry.retryable
        assert got.error.retry.delay == timedelta(seconds=2)

    def test_resolve_admits_a_body(self) -> None:
        """``prepared.decode_body`` reads a Toy Talk body and ``resolve`` admits its calls."""
        prepared = _prepared()
        call: Value = {"id": "t9", "tool": "get_weather", "args": '{"city":"Oslo"}'}
        decoded = prepared.decode_body({"id": "x", "text": "", "calls": [call], "end": "calls"})
        assert isinstance(decoded, Ok)
        assert decoded.value.provider == toy_wire.PROVIDER
        got = rq.resolve(decoded, prepared)
        assert isinstance(got, NeedsTools)
        assert [a.arguments for a in got.admitted] == [{"city": "Oslo"}]

    def test_a_broken_body_is_a_typed_error(self) -> None:
        """A body that breaks Toy Talk's protocol is a ``Failure``, never an exception."""
        prepared = _prepared()
        got = rq.resolve(prepared.decode_body(b'{"text": "hi"}'), prepared)
        assert isinstance(got, Failure)
        assert got.error.describe().endswith("the body has no end")
