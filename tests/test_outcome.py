"""Outcomes: one admission pass over a decoded response, structured output, and what a failure cost."""

from __future__ import annotations

import subprocess
import sys
import typing
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import arbitrary_text

import llm_wire as rq
from llm_wire import admission, codec, tool
from llm_wire.admission import InvalidToolCall, SchemaRejected, UnknownTool
from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.message import Provider, ToolCall
from llm_wire.outcome import (
    Answer,
    Failure,
    InvalidOutput,
    NeedsTools,
    OutputLimited,
    Refused,
    Sent,
    resolve,
    resolve_stream,
    resolve_stream_with,
    resolve_with,
)
from llm_wire.outcome import _sent_for as sent_for
from llm_wire.providers import anthropic, google, openai_chat, openai_responses
from llm_wire.providers.response import (
    ErrorKind,
    FinishReason,
    PartialCall,
    ProviderError,
    RetryAdvice,
    Terminal,
    Usage,
)
from llm_wire.reasons import InvalidJson
from llm_wire.result import Err, Ok, unwrap
from llm_wire.tool import ToolCallChecks
from llm_wire.value import Value, render


@attrs.frozen
class Weather:
    """Current weather for a city."""

    city: str
    days: int = codec.field(default=1, codec=codec.integer(minimum=1, maximum=14))


@attrs.frozen
class City:
    """A city and its country."""

    city: str
    country: str


WEATHER = tool.new("get_weather", "Current weather", codec.derive(Weather))
TOOLS = (WEATHER,)
USAGE = Usage(10, 5, 15)


def terminal(finish: FinishReason, *calls: ToolCall, text: str = "", **more: Any) -> Terminal:
    return Terminal(Provider.ANTHROPIC, finish, text, calls, usage=USAGE, response_id="msg_1", **more)


def call(call_id: str, arguments: str, name: str = "get_weather") -> ToolCall:
    return ToolCall(call_id, name, arguments)


class TestToolCalls:
    """Calls are admitted once, with the tools, policy, limits and adjustments given."""

    def test_admitted_calls_are_decoded(self) -> None:
        """Good calls become ``NeedsTools`` with the turn and each call's decoded arguments."""
        got = resolve_with(
            Ok(terminal(FinishReason.TOOL_CALLS, call("a", '{"city": "Oslo", "days": 2}'))), TOOLS
        )
        assert isinstance(got, NeedsTools)
        assert got.issues == ()
        assert got.turn.calls == (call("a", '{"city": "Oslo", "days": 2}'),)
        assert (got.turn.provider, got.turn.response_id, got.usage) == (Provider.ANTHROPIC, "msg_1", USAGE)
        found = got.arguments("a")
        assert found is not None
        assert found.decoded == Weather("Oslo", 2)

    def test_arguments_of_a_tool(self) -> None:
        """``arguments(tool)`` gives the admitted calls to that tool, typed; another tool gets none."""
        calls = [call("a", '{"city": "Oslo"}'), call("b", '{"city": 3}'), call("c", '{"city": "Rome"}')]
        got = resolve_with(Ok(terminal(FinishReason.TOOL_CALLS, *calls)), TOOLS, checks=ToolCallChecks.REPORT)
        assert isinstance(got, NeedsTools)
        assert [(found.call.id, found.decoded) for found in got.arguments(WEATHER)] == [
            ("a", Weather("Oslo")),
            ("c", Weather("Rome")),
        ]
        assert got.arguments(tool.new("get_weather", "Current weather", codec.derive(Weather))) == ()

    def test_report_lists_every_issue_in_order(self) -> None:
        """Under REPORT every call stays in the turn and each failing one is an issue, in provider order."""
        calls = [call("a", '{"city": 3}'), call("b", "{}", "nope"), call("c", '{"city": "Rome"}')]
        got = resolve_with(Ok(terminal(FinishReason.TOOL_CALLS, *calls)), TOOLS, checks=ToolCallChecks.REPORT)
        assert isinstance(got, NeedsTools)
        assert got.turn.calls == tuple(calls)
        assert [issue.call_id for issue in got.issues] == ["a", "b"]
        assert isinstance(got.issues[1], UnknownTool)
        assert [admitted.call.id for admitted in got.admitted] == ["c"]

    def test_reject_fails_the_completed_response(self) -> None:
        """Under REJECT one bad call fails the response; it was completed, and its text is kept."""
        done = terminal(FinishReason.TOOL_CALLS, call("a", "{"), text="Let me see.")
        got = resolve_with(Ok(done), TOOLS)
        assert isinstance(got, Failure)
        assert isinstance(got.error, InvalidToolCall)
        assert got.error.issue.call_id == "a"
        assert (got.sent, got.provider, got.usage, got.text) == (
            Sent.COMPLETED,
            Provider.ANTHROPIC,
            USAGE,
            "Let me see.",
        )

    def test_adjust_runs_before_validation(self) -> None:
        """An adjustment (a strict projection's restore) is applied to parsed arguments before checking."""

        def restore(arguments: Value) -> Value:
            assert isinstance(arguments, dict)
            return {key: value for key, value in arguments.items() if value is not None}

        done = Ok(terminal(FinishReason.TOOL_CALLS, call("a", '{"city": "Oslo", "days": null}')))
        assert isinstance(resolve_with(done, TOOLS), Failure)
        got = resolve_with(done, TOOLS, adjust={"get_weather": restore})
        assert isinstance(got, NeedsTools)
        assert got.admitted[0].decoded == Weather("Oslo", 1)

    def test_admission_limits(self) -> None:
        """Admission bounds apply whatever the policy."""
        done = Ok(
            terminal(FinishReason.TOOL_CALLS, call("a", '{"city": "Oslo"}'), call("b", '{"city": "Rome"}'))
        )
        got = resolve_with(
            done, TOOLS, checks=ToolCallChecks.REPORT, limits=admission.AdmissionLimits(calls_per_turn=1)
        )
        assert got == Failure(
            LimitExceeded("Config.with_limit(Limit.CALLS_PER_TURN, n)", 1, 2),
            Sent.COMPLETED,
            False,
            Provider.ANTHROPIC,
            USAGE,
        )


class TestOtherFinishes:
    """Length, refusal and filters never admit anything."""

    def test_output_limited_calls_are_evidence_only(self) -> None:
        """A length cut returns its calls unadmitted and its incomplete calls apart."""
        done = terminal(
            FinishReason.LENGTH,
            call("a", '{"city": "Oslo"}'),
            text="partial",
            incomplete=(PartialCall("b", "get_weather", '{"ci'),),
        )
        got = resolve_with(Ok(done), TOOLS)
        assert got == OutputLimited("partial", done.calls, done.incomplete, USAGE)

    def test_refusal_and_filter(self) -> None:
        """A refusal keeps its text and the provider's reason; a filter is a refusal of another kind."""
        refused = resolve_with(Ok(terminal(FinishReason.REFUSAL, refusal="No.", finish_detail="refusal")))
        assert refused == Refused(FinishReason.REFUSAL, "No.", "", USAGE, "refusal")
        filtered = resolve_with(Ok(terminal(FinishReason.CONTENT_FILTER, text="cut", finish_detail="SAFETY")))
        assert filtered == Refused(FinishReason.CONTENT_FILTER, None, "cut", USAGE, "SAFETY")


class TestAnswers:
    """Plain answers, with or without structured output."""

    def test_plain_answer(self) -> None:
        """Without an output codec the text is the answer and ``output`` is ``None``."""
        got = resolve_with(Ok(terminal(FinishReason.STOP, text="Hello")))
        assert isinstance(got, Answer)
        assert (got.text, got.output, got.usage, got.turn.text) == ("Hello", None, USAGE, "Hello")

    def test_structured_output(self) -> None:
        """With an output codec (or a tool built from one) the text is decoded strictly."""
        text = '{"city": "Paris", "country": "France"}'
        out = codec.derive(City)
        got = resolve_with(Ok(terminal(FinishReason.STOP, text=text)), output=out)
        assert isinstance(got, Answer)
        assert got.output == City("Paris", "France")
        prebuilt = tool.new("final_result", "The answer.", out)
        again = resolve_with(Ok(terminal(FinishReason.STOP, text=text)), output=prebuilt)
        assert isinstance(again, Answer)
        assert again.output == got.output

    def test_invalid_structured_output(self) -> None:
        """Output that is not JSON or breaks the schema is a completed failure naming why."""
        out = codec.derive(City)
        broken = resolve_with(Ok(terminal(FinishReason.STOP, text='{"city": ')), output=out)
        assert isinstance(broken, Failure)
        assert isinstance(broken.error, InvalidOutput)
        assert isinstance(broken.error.failure, InvalidJson)
        assert broken.error.name == "invalid_output.invalid_json"
        assert broken.sent is Sent.COMPLETED
        wrong = resolve_with(Ok(terminal(FinishReason.STOP, text='{"city": "Paris"}')), output=out)
        assert isinstance(wrong, Failure)
        assert isinstance(wrong.error, InvalidOutput)
        assert isinstance(wrong.error.failure, SchemaRejected)
        assert "Paris" not in wrong.error.describe()

    def test_output_adjust_uses_the_output_name(self) -> None:
        """The adjustment map applies to the output under its tool's name."""
        out = tool.new("final_result", "The answer.", codec.derive(Weather))
        text = '{"city": "Oslo", "days": null}'

        def restore(arguments: Value) -> Value:
            assert isinstance(arguments, dict)
            return {key: value for key, value in arguments.items() if value is not None}

        got = resolve_with(
            Ok(terminal(FinishReason.STOP, text=text)), output=out, adjust={"final_result": restore}
        )
        assert isinstance(got, Answer)
        assert got.output == Weather("Oslo", 1)


class TestFailures:
    """A decoding error becomes a ``Failure`` that says what it cost."""

    def test_sent_for(self) -> None:
        """Refused requests cost nothing; server errors may have; failed or broken responses did."""
        advice = RetryAdvice(True)
        assert sent_for(ProviderError(ErrorKind.RATE_LIMITED, 429, None, advice)) is Sent.NOT_SENT
        assert sent_for(ProviderError(ErrorKind.OVERLOADED, 529, None, advice)) is Sent.NOT_SENT
        assert sent_for(ProviderError(ErrorKind.SERVER, 500, None, advice)) is Sent.MAYBE_SENT
        assert sent_for(ProviderError(ErrorKind.OVERLOADED, None, None, advice)) is Sent.MAYBE_SENT
        assert sent_for(ProviderError(ErrorKind.RESPONSE_FAILED, None, "SAFETY", advice)) is Sent.COMPLETED
        assert sent_for(ProtocolError("x")) is Sent.COMPLETED

    def test_error_body(self) -> None:
        """An HTTP error decoded by ``decode_error`` resolves to a failure that cost nothing."""
        error = anthropic.WIRE.decode_error(429, '{"type":"error","error":{"type":"rate_limit_error"}}', None)
        got = resolve_with(Err(error))
        assert got == Failure(error, Sent.NOT_SENT)

    def test_cut_stream(self) -> None:
        """A stream cut midway may have cost a response; the text so far and the usage are kept."""
        stream = openai_chat.WIRE.decoder()
        chunk: Value = {"choices": [{"index": 0, "delta": {"content": "Hel"}}], "usage": None}
        stream.feed_bytes(f"data: {render(chunk)}\n\n")
        got = resolve_stream_with(stream, TOOLS)
        assert got == Failure(
            ProtocolError("the stream ended before the response finished"),
            Sent.MAYBE_SENT,
            True,
            Provider.OPENAI_CHAT,
            None,
            "Hel",
        )

    def test_error_event_mid_stream(self) -> None:
        """An overloaded event mid-stream may have cost a response, whatever came before."""
        stream = anthropic.WIRE.decoder()
        start: Value = {
            "type": "message_start",
            "message": {"id": "m", "content": [], "usage": {"input_tokens": 3}},
        }
        error: Value = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        stream.feed_bytes(f"data: {render(start)}\n\ndata: {render(error)}\n\n")
        got = resolve_stream_with(stream, TOOLS)
        assert isinstance(got, Failure)
        assert isinstance(got.error, ProviderError)
        assert (got.error.kind, got.sent, got.usage) == (
            ErrorKind.OVERLOADED,
            Sent.MAYBE_SENT,
            Usage(3, None, None),
        )


class TestBodyAndStream:
    """A body and its stream resolve to the same outcome."""

    def test_body_and_stream_resolve_alike(self) -> None:
        """The same response as a body and as a stream gives the same outcome."""
        item: dict[str, Value] = {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "c1",
            "name": "get_weather",
            "arguments": "",
        }
        text = '{"city": "Oslo"}'
        events: list[Value] = [
            {"type": "response.created", "response": {"id": "r1"}},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {
                "type": "response.function_call_arguments.delta",
                "output_index": 0,
                "item_id": "fc_1",
                "delta": text,
            },
            {"type": "response.output_item.done", "output_index": 0, "item": {**item, "arguments": text}},
            {"type": "response.completed", "response": {"id": "r1", "status": "completed"}},
        ]
        stream = openai_responses.WIRE.decoder()
        stream.feed_bytes("".join(f"data: {render(event)}\n\n" for event in events))
        body: Value = {"id": "r1", "status": "completed", "output": [{**item, "arguments": text}]}
        streamed = resolve_stream_with(stream, TOOLS)
        whole = resolve_with(openai_responses.WIRE.decode_body(render(body)), TOOLS)
        assert isinstance(streamed, NeedsTools)
        assert streamed == whole

    @given(arbitrary_text(), st.sampled_from(ToolCallChecks))
    def test_any_arguments_resolve_to_an_outcome(self, arguments: str, checks: ToolCallChecks) -> None:
        """
        Whatever the argument text, resolution gives ``NeedsTools`` or a ``Failure``, never an exception.
        """
        got = resolve_with(Ok(terminal(FinishReason.TOOL_CALLS, call("a", arguments))), TOOLS, checks=checks)
        assert isinstance(got, NeedsTools | Failure)
        if checks is ToolCallChecks.REPORT and isinstance(got, NeedsTools):
            assert len(got.issues) + len(got.admitted) == 1

    @given(arbitrary_text())
    def test_any_output_text_resolves_to_an_outcome(self, text: str) -> None:
        """Whatever the answer text, structured output gives an ``Answer`` or a ``Failure``."""
        got = resolve_with(Ok(terminal(FinishReason.STOP, text=text)), output=codec.derive(City))
        assert isinstance(got, Answer | Failure)


# ---------------------------------------------------------------------------------------------------------
# Resolving against the prepared request: nothing carried by hand.

_CITY: dict[str, Value] = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
}
_CITY_TOOL = unwrap(tool.from_json_schema("get_weather", "Weather", {**_CITY, "required": ["city"]}))


def _chat_calls(*arguments: str) -> Value:
    calls: list[Value] = [
        {"id": f"call_{n}", "type": "function", "function": {"name": "get_weather", "arguments": text}}
        for n, text in enumerate(arguments)
    ]
    return {
        "id": "c",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"tool_calls": calls}}],
    }


def _prepared(checks: ToolCallChecks, *, strict: bool = False, **output: Any) -> rq.Prepared:
    config = rq.Config.openai_chat().with_tool_call_checks(checks).with_strict_tools(strict)
    req = rq.request("m", [rq.user("x")]).with_tools([_CITY_TOOL])
    if output:
        req = req.with_output("City", output["codec"])
    prepared = rq.prepare(config, req)
    assert isinstance(prepared, Ok)
    return prepared.value


@pytest.mark.parametrize("checks", list(ToolCallChecks), ids=lambda c: c.name)
class TestResolvePrepared:
    """``resolve(decoded, prepared)`` takes the tools, checks, limits, restore and output from it."""

    def test_checks_come_from_the_config(self, checks: ToolCallChecks) -> None:
        """REJECT fails the response on a bad call; REPORT lists it and admits the others."""
        prepared = _prepared(checks)
        got = resolve(prepared.decode_body(_chat_calls('{"city": "Oslo"}', '{"city": 5}')), prepared)
        if checks is ToolCallChecks.REJECT:
            assert isinstance(got, Failure)
            assert isinstance(got.error, InvalidToolCall)
            assert got.sent is Sent.COMPLETED
        else:
            assert isinstance(got, NeedsTools)
            assert [a.call.id for a in got.admitted] == ["call_0"]
            assert [issue.call_id for issue in got.issues] == ["call_1"]

    def test_strict_restore_is_applied(self, checks: ToolCallChecks) -> None:
        """A null strict mode introduced is removed before validation, without the caller passing it."""
        prepared = _prepared(checks, strict=True)
        assert prepared.strict == {"get_weather": True}
        got = resolve(prepared.decode_body(_chat_calls('{"city": "Oslo", "unit": null}')), prepared)
        assert isinstance(got, NeedsTools)
        assert got.admitted[0].arguments == {"city": "Oslo"}
        loose = _prepared(checks)
        unrestored = resolve(loose.decode_body(_chat_calls('{"city": "Oslo", "unit": null}')), loose)
        assert not isinstance(unrestored, NeedsTools) or unrestored.issues

    def test_limits_come_from_the_config(self, checks: ToolCallChecks) -> None:
        """The calls-per-turn limit of the config bounds admission."""
        config = rq.Config.openai_chat().with_tool_call_checks(checks).with_limit(rq.Limit.CALLS_PER_TURN, 1)
        prepared = unwrap(rq.prepare(config, rq.request("m", [rq.user("x")]).with_tools([_CITY_TOOL])))
        body = _chat_calls('{"city": "Oslo"}', '{"city": "Rome"}')
        got = resolve(prepared.decode_body(body), prepared)
        assert isinstance(got, Failure)
        assert isinstance(got.error, LimitExceeded)
        assert got.error.limit == 1

    def test_output_tool_comes_from_the_request(self, checks: ToolCallChecks) -> None:
        """Structured output is decoded with the request's output codec."""
        prepared = _prepared(checks, codec=codec.derive(City))
        assert prepared.output_tool is not None
        text = '{"city": "Paris", "country": "France"}'
        body: Value = {
            "id": "c",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"content": text}}],
        }
        got = resolve(prepared.decode_body(body), prepared)
        assert isinstance(got, Answer)
        assert got.output == City("Paris", "France")

    def test_a_stream_resolves_against_the_prepared_request(self, checks: ToolCallChecks) -> None:
        """``resolve_stream(prepared.decoder(), prepared)`` admits a streamed call the same way."""
        prepared = _prepared(checks)
        stream = prepared.decoder()
        chunks: list[Value] = [
            {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [_STREAM_CALL]}}]},
            {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]
        for chunk in chunks:
            assert isinstance(stream.feed_bytes(f"data: {render(chunk)}\n\n"), Ok)
        assert isinstance(stream.feed_bytes("data: [DONE]\n\n"), Ok)
        got = resolve_stream(stream, prepared)
        assert isinstance(got, NeedsTools)
        assert got.admitted[0].arguments == {"city": "Oslo"}


_STREAM_CALL: Value = {
    "index": 0,
    "id": "call_0",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
}


class TestTexts:
    """Every failure record's ``str`` is its ``describe()``."""

    def test_failure_and_invalid_output(self) -> None:
        """``Failure`` and ``InvalidOutput`` render their description, never a repr."""
        failure = resolve_with(Ok(terminal(FinishReason.STOP, text='{"city": ')), output=codec.derive(City))
        assert isinstance(failure, Failure)
        assert isinstance(failure.error, InvalidOutput)
        assert str(failure) == failure.describe()
        assert str(failure.error) == failure.error.describe()
        assert failure.describe().endswith("(completed)")

    def test_provider_error(self) -> None:
        """A ``ProviderError`` renders its description."""
        error = anthropic.WIRE.decode_error(529, b"{}", None)
        assert str(error) == error.describe()


class TestBoundaryTypes:
    """``resolve`` given the wrong Python types raises ``TypeError`` naming the parameter."""

    def test_a_non_prepared(self) -> None:
        """A dict where the ``Prepared`` goes is named, not an ``AttributeError`` from inside."""
        with pytest.raises(TypeError, match=r"^prepared must be a Prepared, not dict$"):
            resolve(Ok(terminal(FinishReason.STOP)), {})  # type: ignore[arg-type]

    def test_a_non_result(self) -> None:
        """A bare ``Terminal`` (or anything not a ``Result``) where the decoded result goes is named."""
        prepared = _prepared(ToolCallChecks.REJECT)
        with pytest.raises(TypeError, match=r"^decoded must be an Ok or Err, not Terminal$"):
            resolve(terminal(FinishReason.STOP), prepared)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"^decoded must be an Ok or Err, not int$"):
            resolve_with(5)  # type: ignore[arg-type]

    def test_a_result_of_something_else(self) -> None:
        """An ``Ok`` holding no ``Terminal`` is named too."""
        with pytest.raises(TypeError, match=r"^decoded must hold a Terminal, not str$"):
            resolve_with(Ok("text"))  # type: ignore[arg-type]

    def test_a_non_decoder(self) -> None:
        """``resolve_stream`` names a stream that is no decoder."""
        with pytest.raises(TypeError, match=r"^stream must be a StreamDecoder, not str$"):
            resolve_stream_with("data: {}")  # type: ignore[arg-type]


class TestBoundedTexts:
    """Provider codes echoed in outcome texts are bounded and stripped."""

    def test_a_finish_reason_in_a_failure(self) -> None:
        """An unknown, long, hostile finish reason fails the response with a bounded text."""
        reason = "WEIRD\x1b]0;pwned\x07" + "A" * 5000
        body: Value = {"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": reason}]}
        got = resolve_with(google.WIRE.decode_body(body))
        assert isinstance(got, Failure)
        assert isinstance(got.error, ProviderError)
        assert got.error.code == reason
        assert "\x1b" not in got.describe()
        assert "\x07" not in got.describe()
        assert len(got.describe()) < 200


class TestResponseShapesLoadOnUse:
    """``outcome`` imports what it stands on at the top, but no HTTP transport (an optional extra)."""

    @staticmethod
    def _modules_after(statement: str) -> set[str]:
        code = f"import sys; {statement}; print(' '.join(sys.modules))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        return set(out.stdout.split())

    def test_import_loads_no_transport(self) -> None:
        """``import llm_wire.outcome`` loads the response shapes, not the transport nor httpx."""
        loaded = self._modules_after("import llm_wire.outcome")
        assert "llm_wire.providers.response" in loaded
        assert not {"llm_wire.transport", "httpx"} & loaded

    def test_failure_error_is_the_union(self) -> None:
        """``FailureError`` names every error a ``Failure`` carries, the response errors among them."""
        from llm_wire import outcome
        from llm_wire.providers.response import ProviderError

        assert ProviderError in typing.get_args(outcome.FailureError)
        assert outcome.InvalidOutput in typing.get_args(outcome.FailureError)
        loaded = self._modules_after("from llm_wire.outcome import FailureError")
        assert "llm_wire.providers.response" in loaded
