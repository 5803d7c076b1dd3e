"""Response decoders for the four APIs: bodies, streams, progress, bounds, typed errors, and no raising."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import arbitrary_bytes, json_values

from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.message import Provider
from llm_wire.providers import anthropic, google, openai_chat, openai_responses
from llm_wire.providers.response import (
    ArgumentsDelta,
    ErrorKind,
    FinishReason,
    Progress,
    ProviderError,
    ResponseError,
    ResponseLimits,
    Terminal,
    TextDelta,
    ToolCallStarted,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value, render

RESPONSES = openai_responses
CHAT = openai_chat
ANTHROPIC = anthropic
GOOGLE = google
MODULES = (RESPONSES, CHAT, ANTHROPIC, GOOGLE)


def sse(events: list[Value]) -> bytes:
    """Events as an SSE body, named after their ``type`` when they have one."""
    out = []
    for event in events:
        name = event.get("type") if isinstance(event, dict) else None
        head = f"event: {name}\n" if isinstance(name, str) else ""
        out.append(f"{head}data: {event if isinstance(event, str) else render(event)}\n\n")
    return "".join(out).encode()


def run(
    module: ModuleType, events: list[Value], **limits: Any
) -> tuple[list[Progress], Result[Terminal, Any]]:
    decoder = module.WIRE.decoder(ResponseLimits(**limits))
    progress: list[Progress] = []
    got = decoder.feed_bytes(sse(events))
    if isinstance(got, Ok):
        progress.extend(got.value)
    return progress, decoder.finish()


def ok(result: Result[Terminal, ResponseError]) -> Terminal:
    assert isinstance(result, Ok), result
    return result.value


def calls(terminal: Terminal) -> list[tuple[str, str, str]]:
    return [(call.id, call.name, call.arguments_json) for call in terminal.calls]


def deltas(progress: list[Progress]) -> dict[str, str]:
    joined: dict[str, str] = {}
    for item in progress:
        if isinstance(item, ArgumentsDelta):
            joined[item.call_id] = joined.get(item.call_id, "") + item.text
    return joined


# ---------------------------------------------------------------------------------------------------------
# OpenAI Responses


def fc_added(index: int, call_id: str, name: str = "f", item_id: str | None = None) -> Value:
    item = {"type": "function_call", "id": item_id or f"fc_{index}", "call_id": call_id, "name": name}
    return {"type": "response.output_item.added", "output_index": index, "item": {**item, "arguments": ""}}


def fc_delta(index: int, delta: str) -> Value:
    return {
        "type": "response.function_call_arguments.delta",
        "output_index": index,
        "item_id": f"fc_{index}",
        "delta": delta,
    }


def fc_done(index: int, call_id: str, arguments: str, name: str = "f") -> list[Value]:
    item: Value = {
        "type": "function_call",
        "id": f"fc_{index}",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
    }
    return [
        {
            "type": "response.function_call_arguments.done",
            "output_index": index,
            "item_id": f"fc_{index}",
            "arguments": arguments,
        },
        {"type": "response.output_item.done", "output_index": index, "item": item},
    ]


def completed(status: str = "completed", reason: str | None = None) -> Value:
    details: Value = None if reason is None else {"reason": reason}
    usage: Value = {"input_tokens": 5, "output_tokens": 7, "total_tokens": 12}
    response: Value = {"id": "resp_1", "status": status, "incomplete_details": details, "usage": usage}
    return {"type": f"response.{status}", "response": response}


RESPONSES_STREAM: list[Value] = [
    {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
    fc_added(0, "call_a", "get_weather"),
    fc_added(1, "call_b", "get_time"),
    fc_delta(1, '{"tz": '),
    fc_delta(0, '{"city"'),
    fc_delta(1, '"UTC"}'),
    fc_delta(0, ': "Paris"}'),
    *fc_done(1, "call_b", '{"tz": "UTC"}', "get_time"),
    *fc_done(0, "call_a", '{"city": "Paris"}', "get_weather"),
    completed(),
]


class TestOpenAIResponses:
    """Items keyed by output_index and item id; repeated argument text checked; order by output."""

    def test_interleaved_calls_keep_output_order_and_exact_text(self) -> None:
        """Calls come back in output order with their deltas byte-exact; progress is keyed by call id."""
        progress, result = run(RESPONSES, RESPONSES_STREAM)
        terminal = ok(result)
        assert calls(terminal) == [
            ("call_a", "get_weather", '{"city": "Paris"}'),
            ("call_b", "get_time", '{"tz": "UTC"}'),
        ]
        assert terminal.calls[0].provider_id == "fc_0"
        assert terminal.finish is FinishReason.TOOL_CALLS
        assert terminal.usage is not None
        assert terminal.usage.total_tokens == 12
        assert deltas(progress) == {"call_a": '{"city": "Paris"}', "call_b": '{"tz": "UTC"}'}
        assert ToolCallStarted("call_a", "get_weather") in progress

    def test_repeated_text_must_agree(self) -> None:
        """``…arguments.done`` that differs from the deltas is a protocol violation."""
        events = [*RESPONSES_STREAM[:3], fc_delta(0, "{}"), *fc_done(0, "call_a", '{"x":1}')]
        assert run(RESPONSES, events)[1] == Err(
            ProtocolError("the repeated argument text differs from the streamed deltas")
        )

    def test_done_without_deltas_supplies_the_text(self) -> None:
        """When no delta came, the repeated text is the argument text (and one delta reports it)."""
        progress, result = run(RESPONSES, [fc_added(0, "c"), *fc_done(0, "c", '{"a":1}'), completed()])
        assert calls(ok(result)) == [("c", "f", '{"a":1}')]
        assert deltas(progress) == {"c": '{"a":1}'}

    def test_delta_after_completion(self) -> None:
        """A delta for a call that already completed is refused."""
        events = [fc_added(0, "c"), *fc_done(0, "c", "{}"), fc_delta(0, "x")]
        assert run(RESPONSES, events)[1] == Err(
            ProtocolError("argument text arrived after its call completed")
        )

    def test_routing_must_agree(self) -> None:
        """An item_id and an output_index naming different items are refused."""
        events = [fc_added(0, "a"), fc_added(1, "b"), {**fc_delta(0, "x"), "item_id": "fc_1"}]  # type: ignore[dict-item]
        assert run(RESPONSES, events)[1] == Err(ProtocolError("an event's item_id and output_index disagree"))

    def test_cut_for_length_keeps_open_calls_apart(self) -> None:
        """``incomplete`` for max_output_tokens is LENGTH; the open call is incomplete, never callable."""
        events = [fc_added(0, "a"), fc_delta(0, '{"ci'), completed("incomplete", "max_output_tokens")]
        terminal = ok(run(RESPONSES, events)[1])
        assert terminal.finish is FinishReason.LENGTH
        assert terminal.calls == ()
        assert [(c.id, c.arguments_text) for c in terminal.incomplete] == [("a", '{"ci')]

    def test_completed_with_an_open_call(self) -> None:
        """A response that says completed while a call is still open is refused."""
        events = [fc_added(0, "a"), fc_delta(0, "{}"), completed()]
        assert run(RESPONSES, events)[1] == Err(
            ProtocolError("a tool call was still open when the response ended")
        )

    def test_content_filter(self) -> None:
        """``incomplete`` for content_filter is CONTENT_FILTER."""
        assert (
            ok(run(RESPONSES, [completed("incomplete", "content_filter")])[1]).finish
            is FinishReason.CONTENT_FILTER
        )

    def test_cut_stream(self) -> None:
        """A stream that stops before its final event fails, and may have cost a response."""
        decoder = RESPONSES.WIRE.decoder()
        decoder.feed_bytes(sse(RESPONSES_STREAM[:-1]))
        assert decoder.finish() == Err(ProtocolError("the stream ended before the response finished"))
        assert not decoder.completed
        assert decoder.partial_output

    def test_error_event(self) -> None:
        """An ``error`` event is a typed provider error with retry advice."""
        event: Value = {"type": "error", "code": "rate_limit_exceeded", "message": "slow down", "param": None}
        result = run(RESPONSES, [event])[1]
        assert isinstance(result, Err)
        assert isinstance(result.error, ProviderError)
        assert (result.error.kind, result.error.retry.retryable) == (ErrorKind.RATE_LIMITED, True)

    def test_body_with_reasoning_keeps_replay_data(self) -> None:
        """A body's output list is the turn's replay data when it holds more than text and calls."""
        output: Value = [
            {"type": "reasoning", "id": "rs_1", "encrypted_content": "e", "summary": []},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "c1",
                "name": "f",
                "arguments": '{"a": [1, 2.50]}',
            },
        ]
        body = render({"id": "resp_9", "status": "completed", "output": output})
        terminal = ok(RESPONSES.WIRE.decode_body(body))
        assert calls(terminal) == [("c1", "f", '{"a": [1, 2.50]}')]
        assert terminal.turn.provider_data == output
        assert terminal.turn.provider is Provider.OPENAI_RESPONSES
        assert terminal.turn.response_id == "resp_9"

    def test_body_text_and_refusal(self) -> None:
        """Message text is read from the body; a refusal part makes a REFUSAL with its text."""
        content: Value = [{"type": "refusal", "refusal": "No."}]
        body: Value = {"status": "completed", "output": [{"type": "message", "id": "m", "content": content}]}
        terminal = ok(RESPONSES.WIRE.decode_body(body))
        assert (terminal.finish, terminal.refusal, terminal.provider_data) == (
            FinishReason.REFUSAL,
            "No.",
            None,
        )

    def test_failed_response(self) -> None:
        """A failed response is a provider error carrying the provider's code."""
        body: Value = {"status": "failed", "output": [], "error": {"code": "server_error", "message": "oops"}}
        result = RESPONSES.WIRE.decode_body(body)
        assert isinstance(result, Err)
        assert isinstance(result.error, ProviderError)
        assert (result.error.kind, result.error.code) == (ErrorKind.SERVER, "server_error")


# ---------------------------------------------------------------------------------------------------------
# OpenAI Chat Completions


def chunk(delta: Value, finish: str | None = None, usage: Value = None) -> Value:
    return {
        "id": "chatcmpl-1",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        "usage": usage,
    }


def tc(index: int, arguments: str, call_id: str | None = None, name: str | None = None) -> Value:
    call: dict[str, Value] = {"index": index, "function": {"arguments": arguments}}
    if call_id is not None:
        call.update(id=call_id, type="function")
        call["function"] = {"name": name, "arguments": arguments}
    return {"tool_calls": [call]}


CHAT_STREAM: list[Value] = [
    chunk({"role": "assistant", "content": "Let me look."}),
    chunk(tc(0, "", "call_1", "a")),
    chunk(tc(1, '{"y"', "call_2", "b")),
    chunk(tc(0, '{"x": 1}')),
    chunk(tc(1, ": 2}")),
    chunk({}, "tool_calls"),
    {
        "id": "chatcmpl-1",
        "choices": [],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
    },
    "[DONE]",
]


class TestOpenAIChat:
    """Calls keyed by index, completed by the finish reason; the first choice only."""

    def test_parallel_calls(self) -> None:
        """Interleaved calls keep their index order and exact text; the usage chunk after finish counts."""
        progress, result = run(CHAT, CHAT_STREAM)
        terminal = ok(result)
        assert calls(terminal) == [("call_1", "a", '{"x": 1}'), ("call_2", "b", '{"y": 2}')]
        assert terminal.text == "Let me look."
        assert terminal.usage is not None
        assert terminal.usage.output_tokens == 4
        assert TextDelta("Let me look.") in progress

    def test_length_leaves_every_call_incomplete(self) -> None:
        """Chat has no per-call completion: a length cut leaves every call incomplete."""
        terminal = ok(run(CHAT, [*CHAT_STREAM[:4], chunk({}, "length")])[1])
        assert terminal.finish is FinishReason.LENGTH
        assert terminal.calls == ()
        assert [c.id for c in terminal.incomplete] == ["call_1", "call_2"]

    def test_content_after_finish(self) -> None:
        """The first choice may not continue after its finish reason."""
        result = run(CHAT, [chunk({"content": "a"}, "stop"), chunk({"content": "b"})])[1]
        assert result == Err(ProtocolError("the first choice continued after its finish reason"))

    def test_done_before_finish(self) -> None:
        """``[DONE]`` before any finish reason is a cut response."""
        assert run(CHAT, [chunk({"content": "a"}), "[DONE]"])[1] == Err(
            ProtocolError("[DONE] arrived before a finish reason")
        )

    def test_a_call_may_not_change_id(self) -> None:
        """A later chunk naming another id for the same index is refused."""
        events = [chunk(tc(0, "", "c1", "a")), chunk(tc(0, "{}", "c2", "a"))]
        assert run(CHAT, events)[1] == Err(ProtocolError("a streamed tool call changed its id or name"))

    def test_body(self) -> None:
        """A body's message calls and a content-filter finish."""
        message: Value = {
            "content": None,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        }
        body: Value = {
            "id": "x",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        }
        assert calls(ok(CHAT.WIRE.decode_body(body))) == [("c", "f", "{}")]
        filtered: Value = {
            "choices": [{"index": 0, "message": {"content": ""}, "finish_reason": "content_filter"}]
        }
        assert ok(CHAT.WIRE.decode_body(filtered)).finish is FinishReason.CONTENT_FILTER

    def test_refusal(self) -> None:
        """A refusal message is REFUSAL with its text, not answer text."""
        body: Value = {
            "choices": [
                {"index": 0, "message": {"content": None, "refusal": "I can't."}, "finish_reason": "stop"}
            ]
        }
        terminal = ok(CHAT.WIRE.decode_body(body))
        assert (terminal.finish, terminal.refusal, terminal.text) == (FinishReason.REFUSAL, "I can't.", "")


# ---------------------------------------------------------------------------------------------------------
# Anthropic Messages


def message_start(content: list[Value] | None = None, stop: str | None = None) -> Value:
    message: Value = {
        "id": "msg_1",
        "content": content or [],
        "stop_reason": stop,
        "usage": {"input_tokens": 9, "output_tokens": 1},
    }
    return {"type": "message_start", "message": message}


def block_start(index: int, block: Value) -> Value:
    return {"type": "content_block_start", "index": index, "content_block": block}


def block_delta(index: int, delta: Value) -> Value:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def block_stop(index: int) -> Value:
    return {"type": "content_block_stop", "index": index}


def json_delta(index: int, text: str) -> Value:
    return block_delta(index, {"type": "input_json_delta", "partial_json": text})


def message_end(stop: str) -> list[Value]:
    return [
        {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 30}},
        {"type": "message_stop"},
    ]


def tool_use(call_id: str, name: str = "f", given: Value = None) -> Value:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {} if given is None else given}


ANTHROPIC_STREAM: list[Value] = [
    message_start(),
    block_start(0, {"type": "thinking", "thinking": ""}),
    block_delta(0, {"type": "thinking_delta", "thinking": "Hmm"}),
    block_delta(0, {"type": "signature_delta", "signature": "sig"}),
    block_stop(0),
    block_start(1, {"type": "text", "text": ""}),
    block_delta(1, {"type": "text_delta", "text": "Checking."}),
    block_stop(1),
    block_start(2, tool_use("toolu_1", "get_weather")),
    json_delta(2, '{"city": '),
    json_delta(2, '"Paris"}'),
    block_stop(2),
    block_start(3, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
    json_delta(3, '{"query": "x"}'),
    block_stop(3),
    block_start(4, tool_use("toolu_2", "no_args")),
    block_stop(4),
    block_start(5, tool_use("toolu_3", "roll", {"player": "p1", "n": Decimal("1.50")})),
    block_stop(5),
    *message_end("tool_use"),
]


class TestAnthropic:
    """Blocks keyed by index; input_json_delta text exact; the start input when nothing streams."""

    def test_calls_thinking_and_hosted_tools(self) -> None:
        """Calls in block order; server tools are not calls; thinking makes the content replay data."""
        progress, result = run(ANTHROPIC, ANTHROPIC_STREAM)
        terminal = ok(result)
        assert calls(terminal) == [
            ("toolu_1", "get_weather", '{"city": "Paris"}'),
            ("toolu_2", "no_args", "{}"),
            ("toolu_3", "roll", '{"player":"p1","n":1.50}'),
        ]
        assert terminal.text == "Checking."
        assert isinstance(terminal.provider_data, list)
        assert terminal.provider_data[0] == {"type": "thinking", "thinking": "Hmm", "signature": "sig"}
        assert terminal.provider_data[3] == {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "x"},
        }
        assert terminal.usage is not None
        assert (terminal.usage.input_tokens, terminal.usage.output_tokens) == (
            9,
            30,
        )
        assert deltas(progress)["toolu_1"] == '{"city": "Paris"}'

    def test_max_tokens_keeps_the_open_call_apart(self) -> None:
        """A tool_use block cut by max_tokens is an incomplete call, never callable."""
        events = [
            message_start(),
            block_start(0, tool_use("t")),
            json_delta(0, '{"a'),
            *message_end("max_tokens"),
        ]
        terminal = ok(run(ANTHROPIC, events)[1])
        assert (terminal.finish, terminal.calls) == (FinishReason.LENGTH, ())
        assert [(c.id, c.arguments_text) for c in terminal.incomplete] == [("t", '{"a')]

    def test_open_block_at_end_turn(self) -> None:
        """A block still open when the message ends normally is refused."""
        events = [message_start(), block_start(0, tool_use("t")), *message_end("tool_use")]
        assert run(ANTHROPIC, events)[1] == Err(
            ProtocolError("a content block was still open when the message stopped")
        )

    def test_second_message_start(self) -> None:
        """Two messages spliced into one stream are refused; the first call never becomes callable."""
        events = [message_start(), block_start(0, tool_use("t")), message_start()]
        assert run(ANTHROPIC, events)[1] == Err(ProtocolError("a second message_start arrived"))

    def test_delta_type_must_match(self) -> None:
        """A text delta on a tool_use block is refused."""
        events = [
            message_start(),
            block_start(0, tool_use("t")),
            block_delta(0, {"type": "text_delta", "text": "x"}),
        ]
        assert run(ANTHROPIC, events)[1] == Err(
            ProtocolError("a delta's type does not match its content block")
        )

    @pytest.mark.parametrize(
        ("stop", "finish"),
        [
            ("end_turn", FinishReason.STOP),
            ("stop_sequence", FinishReason.STOP),
            ("refusal", FinishReason.REFUSAL),
        ],
    )
    def test_stop_reasons(self, stop: str, finish: FinishReason) -> None:
        """Stop reasons map to one vocabulary."""
        assert ok(run(ANTHROPIC, [message_start(), *message_end(stop)])[1]).finish is finish

    def test_pause_turn_is_a_failed_response(self) -> None:
        """``pause_turn`` (and any unknown stop reason) is a provider error naming it."""
        result = run(ANTHROPIC, [message_start(), *message_end("pause_turn")])[1]
        assert isinstance(result, Err)
        assert isinstance(result.error, ProviderError)
        assert (result.error.kind, result.error.code) == (ErrorKind.RESPONSE_FAILED, "pause_turn")

    def test_overloaded_mid_stream(self) -> None:
        """An overloaded error event is retryable, and the response may have cost tokens."""
        decoder = ANTHROPIC.WIRE.decoder()
        event: Value = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        got = decoder.feed_bytes(sse([message_start(), event]))
        assert isinstance(got, Err)
        assert isinstance(got.error, ProviderError)
        assert (got.error.kind, got.error.retry.retryable, decoder.completed) == (
            ErrorKind.OVERLOADED,
            True,
            False,
        )

    def test_body(self) -> None:
        """A body is the message whole: its tool_use input is rendered exactly."""
        body: Value = {
            "id": "m",
            "content": [tool_use("t", "f", {"b": 1, "a": [True, None]})],
            "stop_reason": "tool_use",
        }
        assert calls(ok(ANTHROPIC.WIRE.decode_body(body))) == [("t", "f", '{"b":1,"a":[true,null]}')]


# ---------------------------------------------------------------------------------------------------------
# Google Gemini


def candidate(parts: list[Value], finish: str | None = None) -> Value:
    found: dict[str, Value] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish is not None:
        found["finishReason"] = finish
    return {
        "candidates": [found],
        "responseId": "r1",
        "usageMetadata": {"promptTokenCount": 2, "totalTokenCount": 5},
    }


def fcall(**members: Value) -> dict[str, Value]:
    return {"functionCall": members}


class TestGoogle:
    """Objects rendered exactly; ids synthesised when absent; partialArgs assembled by JSON path."""

    def test_args_rendered_exactly(self) -> None:
        """Member order and number spelling survive; ids are synthesised; signatures are provider state."""
        body = (
            '{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"b":1.10,"a":[1e2,-0.0]}},'
            '"thoughtSignature":"sig"},{"functionCall":{"name":"g","id":"given"}}]},"finishReason":"STOP"}]}'
        )
        terminal = ok(GOOGLE.WIRE.decode_body(body))
        first = ("llm_wire_call_0", "f", '{"b":1.10,"a":[1E+2,-0.0]}')
        assert calls(terminal) == [first, ("given", "g", "{}")]
        assert [(c.provider_id, c.provider_state) for c in terminal.calls] == [(None, "sig"), ("given", None)]
        assert isinstance(terminal.provider_data, list)
        assert len(terminal.provider_data) == 2

    def test_partial_args(self) -> None:
        """A streamed call is assembled from its partial arguments, strings continuing across chunks."""
        events = [
            candidate([{**fcall(name="w", willContinue=True), "thoughtSignature": "s"}]),
            candidate(
                [
                    fcall(
                        partialArgs=[
                            {"jsonPath": "$.items[0].name", "stringValue": "ap", "willContinue": True}
                        ],
                        willContinue=True,
                    )
                ]
            ),
            candidate(
                [
                    fcall(
                        partialArgs=[{"jsonPath": "$.items[0].name", "stringValue": "ple"}], willContinue=True
                    )
                ]
            ),
            candidate(
                [
                    fcall(
                        partialArgs=[{"jsonPath": "$.items[0].n", "numberValue": Decimal("0.5")}],
                        willContinue=True,
                    )
                ]
            ),
            candidate(
                [
                    fcall(
                        partialArgs=[
                            {"jsonPath": "$['odd key']", "boolValue": True},
                            {"jsonPath": "$.z", "nullValue": "NULL_VALUE"},
                        ],
                        willContinue=True,
                    )
                ]
            ),
            candidate([fcall()]),
            candidate([{"text": "done"}], "STOP"),
        ]
        progress, result = run(GOOGLE, events)
        terminal = ok(result)
        expected = '{"items":[{"name":"apple","n":0.5}],"odd key":true,"z":null}'
        assert calls(terminal) == [("llm_wire_call_0", "w", expected)]
        assert terminal.calls[0].provider_state == "s"
        assert deltas(progress) == {"llm_wire_call_0": expected}
        assert terminal.text == "done"

    def test_partial_args_without_a_call(self) -> None:
        """Arguments with no call open are refused; so is a new call while one streams."""
        orphan = [candidate([fcall(partialArgs=[{"jsonPath": "$.a", "stringValue": "x"}])])]
        assert run(GOOGLE, orphan)[1] == Err(
            ProtocolError("function call arguments arrived with no call open")
        )
        nested = [candidate([fcall(name="a", willContinue=True)]), candidate([fcall(name="b")])]
        assert run(GOOGLE, nested)[1] == Err(
            ProtocolError("a function call started while another was still streaming")
        )

    def test_finish_reasons(self) -> None:
        """SAFETY filters; a blocked prompt filters; MALFORMED_FUNCTION_CALL is a retryable failure."""
        assert ok(GOOGLE.WIRE.decode_body(candidate([], "SAFETY"))).finish is FinishReason.CONTENT_FILTER
        blocked = ok(GOOGLE.WIRE.decode_body({"promptFeedback": {"blockReason": "OTHER"}}))
        assert (blocked.finish, blocked.finish_detail) == (FinishReason.CONTENT_FILTER, "PROMPT_OTHER")
        malformed = GOOGLE.WIRE.decode_body(candidate([], "MALFORMED_FUNCTION_CALL"))
        assert isinstance(malformed, Err)
        assert isinstance(malformed.error, ProviderError)
        assert malformed.error.retry.retryable
        assert (
            ok(GOOGLE.WIRE.decode_body(candidate([fcall(name="f")], "MAX_TOKENS"))).finish
            is FinishReason.LENGTH
        )

    def test_content_after_finish(self) -> None:
        """A usage-only chunk may follow the finish; content may not."""
        assert isinstance(run(GOOGLE, [candidate([{"text": "a"}], "STOP"), {"usageMetadata": {}}])[1], Ok)
        result = run(GOOGLE, [candidate([{"text": "a"}], "STOP"), candidate([{"text": "b"}])])[1]
        assert result == Err(ProtocolError("content arrived after the finish reason"))


# ---------------------------------------------------------------------------------------------------------
# Bounds


class TestResponseBounds:
    """Every response bound is enforced and names its setting."""

    @pytest.mark.parametrize(
        ("limit", "value", "measured"),
        [("argument_bytes_per_call", 10, 13), ("total_argument_bytes", 20, 26)],
    )
    def test_argument_bounds(self, limit: str, value: int, measured: int) -> None:
        """Argument deltas are bounded per call and in total, with the limit's name."""
        events: list[Value] = [
            fc_added(0, "a"),
            fc_added(1, "b"),
            fc_delta(0, "1234567890123"),
            fc_delta(1, "1234567890123"),
        ]
        other = (
            {"argument_bytes_per_call": 100}
            if limit == "total_argument_bytes"
            else {"total_argument_bytes": 100}
        )
        assert run(RESPONSES, events, **{limit: value, **other})[1] == Err(
            LimitExceeded(f"ResponseLimits({limit}=)", value, measured)
        )

    def test_text_and_block_bounds(self) -> None:
        """Answer text and the number of output items are bounded too."""
        events = [chunk({"content": "12345"}), chunk({"content": "678"})]
        assert run(CHAT, events, total_text_bytes=6)[1] == Err(
            LimitExceeded("ResponseLimits(total_text_bytes=)", 6, 8)
        )
        many = [fc_added(n, f"c{n}") for n in range(4)]
        assert run(RESPONSES, many, active_blocks=3)[1] == Err(
            LimitExceeded("ResponseLimits(active_blocks=)", 3, 4)
        )

    def test_event_and_body_bounds(self) -> None:
        """One event, one line and a whole body are bounded."""
        big = render({"type": "response.created", "response": {"id": "x" * 100}})
        assert isinstance(run(RESPONSES, [big], event_bytes=50)[1], Err)
        assert RESPONSES.WIRE.decode_body(big, ResponseLimits(response_body_bytes=50)) == Err(
            LimitExceeded("ResponseLimits(response_body_bytes=)", 50, len(big))
        )

    @pytest.mark.parametrize("wire", [RESPONSES, CHAT, anthropic, google], ids=lambda w: w.__name__)
    def test_every_byte_of_a_stream_counts(self, wire: ModuleType) -> None:
        """Comment lines and field names count against the body bound, fed in any chunks: nothing is free."""
        limits = ResponseLimits(response_body_bytes=1000)
        decoder = wire.WIRE.decoder(limits)
        comments = b": keep-alive\n" * 100
        fed = [decoder.feed_bytes(comments[i : i + 7]) for i in range(0, len(comments), 7)]
        refused = [n for n, result in enumerate(fed) if isinstance(result, Err)]
        assert refused[0] == 1000 // 7  # the chunk that brings the count past 1,000 bytes
        assert fed[-1] == Err(LimitExceeded("ResponseLimits(response_body_bytes=)", 1000, 1001))


# ---------------------------------------------------------------------------------------------------------
# Error bodies


class TestDecodeError:
    """HTTP error bodies become typed errors with retry advice."""

    def test_anthropic_overloaded(self) -> None:
        """529 overloaded_error is retryable after Retry-After seconds; the request id is kept."""
        body = (
            '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}'
        )
        error = ANTHROPIC.WIRE.decode_error(529, body, {"Retry-After": "20"})
        assert (error.kind, error.code, error.retry.retryable) == (
            ErrorKind.OVERLOADED,
            "overloaded_error",
            True,
        )
        assert (error.retry.delay, error.request_id) == (timedelta(seconds=20), "req_1")

    def test_openai_rate_limit_and_quota(self) -> None:
        """A rate limit is retryable (``retry-after-ms`` wins); an exhausted quota is not."""
        body: Value = {"error": {"message": "x", "type": "requests", "code": "rate_limit_exceeded"}}
        error = RESPONSES.WIRE.decode_error(429, body, [("retry-after-ms", "1500"), ("retry-after", "9")])
        assert (error.kind, error.retry.retryable, error.retry.delay) == (
            ErrorKind.RATE_LIMITED,
            True,
            timedelta(milliseconds=1500),
        )
        quota: Value = {"error": {"message": "x", "type": "insufficient_quota", "code": "insufficient_quota"}}
        assert not CHAT.WIRE.decode_error(429, quota, None).retry.retryable

    def test_google_retry_info(self) -> None:
        """Gemini's RetryInfo delay is read from the error details."""
        details: Value = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}]
        body: Value = [
            {"error": {"code": 429, "message": "Quota", "status": "RESOURCE_EXHAUSTED", "details": details}}
        ]
        error = GOOGLE.WIRE.decode_error(429, render(body), None)
        assert (error.kind, error.code, error.retry.delay) == (
            ErrorKind.RATE_LIMITED,
            "RESOURCE_EXHAUSTED",
            timedelta(seconds=37),
        )

    def test_http_date_and_should_retry(self) -> None:
        """An HTTP-date Retry-After gives a time; ``x-should-retry`` overrides the kind's default."""
        error = CHAT.WIRE.decode_error(503, "<html>", {"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"})
        assert (error.kind, error.retry.retryable) == (ErrorKind.OVERLOADED, True)
        assert error.retry.at is not None
        assert error.retry.at.year == 2026
        assert not CHAT.WIRE.decode_error(500, b"", {"x-should-retry": "false"}).retry.retryable
        assert CHAT.WIRE.decode_error(400, b"", {"x-should-retry": "true"}).retry.retryable

    def test_describe_leaves_the_message_out(self) -> None:
        """The text names kind, status, code and advice, never the provider's message."""
        body: Value = {"error": {"type": "invalid_request_error", "message": "secret-token in messages.0"}}
        error = ANTHROPIC.WIRE.decode_error(400, body, {"retry-after": "nonsense"})
        assert error.message == "secret-token in messages.0"
        assert (
            error.describe()
            == "provider error: invalid_request, HTTP 400, invalid_request_error (not retryable)"
        )

    @pytest.mark.parametrize("module", MODULES)
    @given(body=arbitrary_bytes(), status=st.integers(100, 999), retry=st.text(max_size=30))
    def test_any_body_gives_an_error(self, module: ModuleType, body: bytes, status: int, retry: str) -> None:
        """Any body and any Retry-After give a ``ProviderError``, never an exception."""
        error = module.WIRE.decode_error(status, body, {"retry-after": retry, "retry-after-ms": retry})
        assert isinstance(error, ProviderError)
        assert error.describe()


# ---------------------------------------------------------------------------------------------------------
# Properties: split invariance, truncation, and no raising on any input


SAMPLES: dict[ModuleType, list[Value]] = {
    RESPONSES: RESPONSES_STREAM,
    CHAT: CHAT_STREAM,
    ANTHROPIC: ANTHROPIC_STREAM,
    GOOGLE: [
        candidate([{"text": "Hi "}]),
        candidate([fcall(name="w", willContinue=True)]),
        candidate(
            [
                fcall(
                    partialArgs=[{"jsonPath": "$.a", "stringValue": "x", "willContinue": True}],
                    willContinue=True,
                )
            ]
        ),
        candidate([fcall(partialArgs=[{"jsonPath": "$.a", "stringValue": "y"}])]),
        candidate([fcall(name="v", args={"k": [1, 2]})], "STOP"),
    ],
}
_modules = st.sampled_from(MODULES)


class TestChunking:
    """However a stream is split, it decodes alike, and like its body."""

    @given(_modules, st.lists(st.integers(0, 5000), max_size=20))
    def test_any_split_decodes_alike(self, module: ModuleType, cuts: list[int]) -> None:
        """Feeding a stream in any chunks gives the same progress and terminal as feeding it whole."""
        body = sse(SAMPLES[module])
        whole_progress, whole = run(module, SAMPLES[module])
        decoder = module.WIRE.decoder(ResponseLimits())
        progress: list[Progress] = []
        start = 0
        for cut in [*sorted({c for c in cuts if c <= len(body)}), len(body)]:
            got = decoder.feed_bytes(body[start:cut])
            assert isinstance(got, Ok)
            progress.extend(got.value)
            start = cut
        assert decoder.finish() == whole
        assert progress == whole_progress

    @pytest.mark.parametrize("module", MODULES)
    def test_a_last_event_without_its_blank_line_decodes(self, module: ModuleType) -> None:
        """
        The provider's final event, whole but without its closing blank line (or its last line end), ends
        the stream as if the blank line had come; a cut one, or an unclosed event that is not the final one,
        counts as not sent (a stream that needed it is refused).
        """
        events = SAMPLES[module]
        body = sse(events)
        whole = run(module, events)[1]
        assert isinstance(whole, Ok)
        if module is not CHAT:  # Chat ends at its finish reason; [DONE] only confirms it
            assert run(module, events[:-1])[1] == Err(
                ProtocolError("the stream ended before the response finished")
            )
        for unclosed, expected in [
            (body[:-1], whole),
            (body[:-2], whole),
            (body[:-3], run(module, events[:-1])[1]),
            (sse(events[:-1])[:-2], run(module, events[:-2])[1]),
        ]:
            decoder = module.WIRE.decoder(ResponseLimits())
            decoder.feed_bytes(unclosed)
            assert decoder.finish() == expected

    @given(_modules, st.integers(0, 5000))
    def test_a_cut_stream_never_yields_a_partial_call(self, module: ModuleType, cut: int) -> None:
        """A stream cut anywhere fails or returns only calls the whole stream also returns, text intact."""
        body = sse(SAMPLES[module])
        full = ok(run(module, SAMPLES[module])[1])
        decoder = module.WIRE.decoder(ResponseLimits())
        decoder.feed_bytes(body[:cut])
        result = decoder.finish()
        if isinstance(result, Ok):
            assert set(result.value.calls) <= set(full.calls)


@st.composite
def mutated_events(draw: st.DrawFn) -> tuple[ModuleType, list[Value]]:
    """A sample stream with events dropped, repeated, swapped, cut or replaced by arbitrary values."""
    module = draw(_modules)
    events = list(SAMPLES[module])
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, max(len(events) - 1, 0)))
        match draw(st.sampled_from(["drop", "repeat", "swap", "replace", "field"])):
            case "drop" if events:
                del events[at]
            case "repeat" if events:
                events.insert(at, events[at])
            case "swap" if len(events) > 1:
                other = draw(st.integers(0, len(events) - 1))
                events[at], events[other] = events[other], events[at]
            case "replace":
                events.insert(at, draw(json_values(max_leaves=8)))
            case "field" if events and isinstance(events[at], dict):
                changed = dict(events[at])  # type: ignore[arg-type]
                key = draw(st.sampled_from([*changed, "index", "output_index", "delta", "type"]))
                changed[key] = draw(json_values(max_leaves=4))
                events[at] = changed
            case _:
                pass
    return module, events


class TestMutatedStreams:
    """Mutated streams decode to a value, never an exception."""

    @given(mutated_events())
    def test_mutated_streams_never_raise(self, case: tuple[ModuleType, list[Value]]) -> None:
        """Whatever events arrive, in whatever order, the decoder returns values and never raises."""
        module, events = case
        decoder = module.WIRE.decoder(ResponseLimits())
        for event in events:
            decoder.feed_json(event)
        result = decoder.finish()
        assert isinstance(result, Ok | Err)
        if isinstance(result, Ok):
            assert all(call.id and call.name for call in result.value.calls)


BODIES: dict[ModuleType, str] = {
    RESPONSES: render(
        {
            "id": "r",
            "status": "completed",
            "output": [
                {"type": "reasoning", "id": "rs", "summary": []},
                {"type": "message", "id": "m", "content": [{"type": "output_text", "text": "Hi"}]},
                {"type": "function_call", "id": "fc", "call_id": "c", "name": "f", "arguments": '{"a": 1}'},
            ],
            "usage": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
        }
    ),
    CHAT: render(
        {
            "id": "x",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "content": "Hi",
                        "tool_calls": [
                            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
        }
    ),
    ANTHROPIC: render(
        {
            "id": "m",
            "content": [{"type": "text", "text": "Hi"}, tool_use("t", "f", {"a": [1, 2]})],
            "stop_reason": "tool_use",
        }
    ),
    GOOGLE: render(
        candidate([{"text": "Hi"}, {**fcall(name="f", args={"a": 1}), "thoughtSignature": "s"}], "STOP")
    ),
}


class TestHostileBodies:
    """Cut, arbitrary or foreign bodies are refused, never raised on."""

    @given(_modules, st.integers(0, 2000))
    def test_a_cut_body_never_raises(self, module: ModuleType, cut: int) -> None:
        """A body cut anywhere is refused with a value; only the whole body decodes."""
        body = BODIES[module]
        assert isinstance(module.WIRE.decode_body(body), Ok)
        got = module.WIRE.decode_body(body[:cut])
        assert isinstance(got, Err) or cut >= len(body)

    @given(_modules, arbitrary_bytes())
    def test_arbitrary_bytes_never_raise(self, module: ModuleType, body: bytes) -> None:
        """Any bytes as a body, or as a stream, decode to a value."""
        assert isinstance(module.WIRE.decode_body(body), Ok | Err)
        decoder = module.WIRE.decoder(ResponseLimits())
        decoder.feed_bytes(body)
        assert isinstance(decoder.finish(), Ok | Err)

    @given(_modules, json_values())
    def test_arbitrary_values_never_raise(self, module: ModuleType, body: Value) -> None:
        """Any JSON value as a body or as an event decodes to a value."""
        assert isinstance(module.WIRE.decode_body(body), Ok | Err)
        decoder = module.WIRE.decoder(ResponseLimits())
        decoder.feed_json(body)
        assert isinstance(decoder.finish(), Ok | Err)

    def test_foreign_values_are_refused_not_raised(self) -> None:
        """A NaN or a non-JSON object inside a parsed body is a protocol error, not an exception."""
        body: Any = {
            "candidates": [
                {"content": {"parts": [{"functionCall": {"name": "f", "args": {"x": float("nan")}}}]}}
            ]
        }
        assert GOOGLE.WIRE.decode_body(body) == Err(
            ProtocolError("function call arguments is not a JSON value")
        )

    def test_python_floats_in_a_parsed_body_are_read_exactly(self) -> None:
        """A body parsed by ``json.loads`` or an SDK holds floats: each is written as its shortest repr."""
        body: Any = {
            "candidates": [
                {
                    "content": {"parts": [{"functionCall": {"name": "f", "args": {"x": 0.5, "y": 1e-7}}}]},
                    "finishReason": "STOP",
                }
            ]
        }
        decoded = GOOGLE.WIRE.decode_body(body)
        assert isinstance(decoded, Ok)
        assert [call.arguments_json for call in decoded.value.calls] == ['{"x":0.5,"y":1e-07}']
