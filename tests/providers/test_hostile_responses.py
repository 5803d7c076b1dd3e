"""Hardened decoders: no coerced arguments, no renamed calls, no colliding ids, no escaping exceptions."""

from __future__ import annotations

from datetime import UTC, timedelta
from decimal import Decimal
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_wire.error import ProtocolError
from llm_wire.providers import anthropic, google, openai_chat, openai_responses
from llm_wire.providers._http_errors import LONGEST, provider_error, seconds
from llm_wire.providers.response import ErrorKind, ProviderError, ResponseLimits, RetryAdvice
from llm_wire.result import Err, Ok
from llm_wire.value import Value

MODULES = (openai_responses, openai_chat, anthropic, google)
NOT_OBJECTS: list[Value] = ["", [], 0, False, None, "{}", [{}], Decimal("1.5")]


def _anthropic_body(given: Value) -> Value:
    block: Value = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": given}
    return {"id": "m", "type": "message", "content": [block], "stop_reason": "tool_use"}


def _gemini_body(*calls: Value) -> Value:
    parts: list[Value] = [{"functionCall": call} for call in calls]
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}


class TestNonObjectArguments:
    """A provider's non-object arguments are a protocol failure, never an empty object."""

    @pytest.mark.parametrize("given", NOT_OBJECTS, ids=repr)
    def test_anthropic_body_input(self, given: Value) -> None:
        """A ``tool_use`` block whose ``input`` is not an object fails the response."""
        got = anthropic.WIRE.decode_body(_anthropic_body(given))
        assert got == Err(ProtocolError("a tool_use input must be an object"))

    @pytest.mark.parametrize("given", NOT_OBJECTS, ids=repr)
    def test_anthropic_streamed_input(self, given: Value) -> None:
        """A streamed ``tool_use`` start whose ``input`` is not an object fails the stream."""
        decoder = anthropic.WIRE.decoder(ResponseLimits())
        decoder.feed_json({"type": "message_start", "message": {"id": "m", "content": []}})
        block: Value = {"type": "tool_use", "id": "t", "name": "f", "input": given}
        decoder.feed_json({"type": "content_block_start", "index": 0, "content_block": block})
        decoder.feed_json({"type": "content_block_stop", "index": 0})
        decoder.feed_json({"type": "message_delta", "delta": {"stop_reason": "tool_use"}})
        decoder.feed_json({"type": "message_stop"})
        assert decoder.finish() == Err(ProtocolError("a tool_use input must be an object"))

    def test_anthropic_absent_input_is_no_arguments(self) -> None:
        """A block with no ``input`` member at all (a tool without parameters) still means ``{}``."""
        body: Any = _anthropic_body({})
        del body["content"][0]["input"]
        got = anthropic.WIRE.decode_body(body)
        assert isinstance(got, Ok)
        assert got.value.calls[0].arguments_json == "{}"

    @pytest.mark.parametrize("given", NOT_OBJECTS, ids=repr)
    def test_gemini_args(self, given: Value) -> None:
        """A ``functionCall`` whose ``args`` is not an object fails the response."""
        got = google.WIRE.decode_body(_gemini_body({"name": "f", "args": given}))
        assert got == Err(ProtocolError("function call args must be an object"))

    @pytest.mark.parametrize("module", [openai_responses, openai_chat, anthropic], ids=lambda m: m.__name__)
    def test_an_index_of_another_type_is_refused(self, module: ModuleType) -> None:
        """An index that is not an integer is a protocol error, never read as absent."""
        events: dict[ModuleType, list[Value]] = {
            openai_responses: [
                {"type": "response.created", "response": {"id": "r"}},
                {
                    "type": "response.output_item.added",
                    "output_index": "0",
                    "item": {"type": "function_call", "id": "fc", "call_id": "c", "name": "f"},
                },
            ],
            openai_chat: [
                {
                    "choices": [
                        {
                            "index": 0,
                            "delta": {"tool_calls": [{"index": "0", "id": "c", "function": {"name": "f"}}]},
                        }
                    ]
                }
            ],
            anthropic: [
                {"type": "message_start", "message": {"id": "m", "content": []}},
                {"type": "content_block_start", "index": "0", "content_block": {"type": "text"}},
            ],
        }
        decoder = module.WIRE.decoder(ResponseLimits())
        results = [decoder.feed_json(event) for event in events[module]]
        assert isinstance(results[-1], Err)
        assert isinstance(results[-1].error, ProtocolError)
        assert "index" in results[-1].error.detail


class TestRenamedCalls:
    """OpenAI Responses: ``output_item.done`` may not rename the call ``output_item.added`` opened."""

    def _stream(self, done: dict[str, Value]) -> Any:
        decoder = openai_responses.WIRE.decoder(ResponseLimits())
        item: dict[str, Value] = {"type": "function_call", "id": "fc", "call_id": "c", "name": "f"}
        decoder.feed_json({"type": "response.created", "response": {"id": "r"}})
        decoder.feed_json({"type": "response.output_item.added", "output_index": 0, "item": item})
        final: Value = {**item, "arguments": "{}", **done}
        decoder.feed_json({"type": "response.output_item.done", "output_index": 0, "item": final})
        decoder.feed_json({"type": "response.completed", "response": {"id": "r", "status": "completed"}})
        return decoder.finish()

    def test_a_changed_name_is_refused(self) -> None:
        """The final item naming another tool is a protocol error, not a call under the first name."""
        assert self._stream({"name": "delete_everything"}) == Err(
            ProtocolError("an output item changed its call's name")
        )

    def test_a_changed_call_id_is_refused(self) -> None:
        """The final item with another ``call_id`` is a protocol error."""
        assert self._stream({"call_id": "other"}) == Err(ProtocolError("an output item changed its call_id"))

    def test_the_same_item_is_admitted(self) -> None:
        """The final item repeating the name and id completes the call."""
        got = self._stream({})
        assert isinstance(got, Ok)
        assert [(c.id, c.name) for c in got.value.calls] == [("c", "f")]


class TestGeneratedIds:
    """Gemini ids the decoder makes up never collide with the provider's own."""

    def test_a_provider_id_like_a_generated_one(self) -> None:
        """A call without an id and a call whose id looks generated are both admitted, ids distinct."""
        got = google.WIRE.decode_body(_gemini_body({"name": "f", "args": {}}, {"name": "g", "id": "call_0"}))
        assert isinstance(got, Ok), got
        ids = [call.id for call in got.value.calls]
        assert ids[1] == "call_0"
        assert len(set(ids)) == 2
        assert [call.provider_id for call in got.value.calls] == [None, "call_0"]

    def test_a_generated_id_skips_ids_seen(self) -> None:
        """An earlier provider id equal to the next generated one is skipped."""
        first = google.WIRE.decode_body(_gemini_body({"name": "f"}))
        assert isinstance(first, Ok)
        taken = first.value.calls[0].id
        got = google.WIRE.decode_body(_gemini_body({"name": "g", "id": taken}, {"name": "f"}))
        assert isinstance(got, Ok), got
        assert len({call.id for call in got.value.calls}) == 2


class TestDeepPayloads:
    """Deeply nested parsed payloads are refused with a value, never a ``RecursionError``."""

    @pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
    def test_deep_lists(self, module: ModuleType) -> None:
        """A body of nested arrays far deeper than the interpreter stack decodes to an error."""
        deep: Value = {"candidates": []}
        for _ in range(50_000):
            deep = [deep]
        assert isinstance(module.WIRE.decode_body(deep), Err)
        decoder = module.WIRE.decoder(ResponseLimits())
        assert isinstance(decoder.feed_json(deep), Err)

    def test_a_nested_array_chunk_is_refused(self) -> None:
        """Gemini's array form holds chunks, never arrays of arrays."""
        got = google.WIRE.decode_body([[{"candidates": []}]])
        assert got == Err(ProtocolError("a chunk is not an object"))


class TestProviderNumbers:
    """Numbers in provider text (retry headers, delays) are bounded before any conversion."""

    @pytest.mark.parametrize("text", ["-1", "NaN", "Infinity", "1" * 19 + "x", "0x10", ""])
    def test_hostile_delays(self, text: str) -> None:
        """A negative or malformed delay is ignored."""
        assert seconds(text) is None
        error = provider_error(429, {"retry-after": text, "retry-after-ms": text}, None, None, None)
        assert error.retry == RetryAdvice(True, None, None)

    @pytest.mark.parametrize("text", ["9" * 5000, "1e999999", "1" * 21, "99999999999"])
    def test_huge_delays_are_the_longest_wait(self, text: str) -> None:
        """A delay too large to hold is the longest wait, not none (which would mean "retry now")."""
        assert seconds(text) == LONGEST
        error = provider_error(429, {"retry-after": text}, None, None, None)
        assert error.retry == RetryAdvice(True, LONGEST, None)

    @given(st.text(max_size=60) | st.from_regex(r"[A-Za-z]{3,9}, [0-9 -A-Za-z:+]{1,30}", fullmatch=True))
    def test_any_retry_after_is_advice_or_ignored(self, text: str) -> None:
        """Any header text gives a bounded delay, an aware UTC time, or nothing; never an exception."""
        advice = provider_error(429, {"retry-after": text}, None, None, None).retry
        assert advice.delay is None or timedelta(0) <= advice.delay <= LONGEST
        assert advice.at is None or advice.at.tzinfo is UTC

    def test_a_hostile_http_date(self) -> None:
        """A malformed or out-of-range HTTP date is ignored."""
        for text in ["Mon, 99 Foo 99999999999 25:61:61 GMT", "x" * 10_000, "Wed, 21 Oct 10000 07:28:00 GMT"]:
            error = provider_error(503, {"retry-after": text}, None, None, None)
            assert error.retry.at is None

    def test_a_gemini_path_index_with_many_digits(self) -> None:
        """A partial argument's path index is bounded in digits."""
        decoder = google.WIRE.decoder(ResponseLimits())
        decoder.feed_json(
            {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "willContinue": True}}]}}]}
        )
        piece: Value = {"jsonPath": "$.a[" + "9" * 5000 + "]", "numberValue": 1}
        got = decoder.feed_json(
            {"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [piece]}}]}}]}
        )
        assert got == Err(ProtocolError("a partial argument's JSON path is not supported"))


class TestEntryTypes:
    """A decoder given the wrong Python type raises ``TypeError`` naming the parameter."""

    @pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
    def test_feed_bytes(self, module: ModuleType) -> None:
        """``feed_bytes(5)`` names ``chunk``."""
        with pytest.raises(TypeError, match=r"^chunk must be bytes or str, not int$"):
            module.WIRE.decoder(ResponseLimits()).feed_bytes(5)

    @pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
    def test_feed(self, module: ModuleType) -> None:
        """``feed`` takes an ``sse.Event``."""
        with pytest.raises(TypeError, match=r"^event must be an Event, not str$"):
            module.WIRE.decoder(ResponseLimits()).feed("data: {}")

    @pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
    def test_feed_json_and_bodies(self, module: ModuleType) -> None:
        """A Python object that is no JSON value is refused at the boundary; a JSON scalar is data."""
        decoder = module.WIRE.decoder(ResponseLimits())
        with pytest.raises(TypeError, match=r"^data must be a JSON value, not object$"):
            decoder.feed_json(object())
        with pytest.raises(TypeError, match=r"^body must be bytes, str or a JSON value, not set$"):
            module.WIRE.decoder(ResponseLimits()).decode_body({1, 2})
        assert isinstance(module.WIRE.decode_body(5), Err)


class TestBoundedTexts:
    """Provider codes and reasons are capped and sanitized in texts, and kept raw in typed fields."""

    def test_a_hostile_code(self) -> None:
        """A long code with control characters and spaces is cut to a safe token in ``describe``."""
        code = "rate\x1b[31m limit\n" + "x" * 500
        error = ProviderError(ErrorKind.RATE_LIMITED, 429, code, RetryAdvice(True))
        text = error.describe()
        assert error.code == code
        assert "\x1b" not in text
        assert "\n" not in text
        assert " limit" not in text
        assert len(text) < 150

    @pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
    def test_an_error_body_code(self, module: ModuleType) -> None:
        """A decoded error body's codes come back raw in the record, bounded in its text."""
        hostile = "bad code\u202e\x00" + "z" * 10_000
        body: Value = {"error": {"type": hostile, "code": hostile, "status": hostile, "message": hostile}}
        error = module.WIRE.decode_error(400, body, None)
        assert error.code == hostile
        assert "\x00" not in error.describe()
        assert "\u202e" not in error.describe()
        assert len(error.describe()) < 150


class TestInvalidUtf8:
    """A raw stream that is not UTF-8 fails; the framer's replacement characters never reach a call."""

    @pytest.mark.parametrize("bad", [b"\xff", b"\xc3", b"\xed\xa0\x80"], ids=repr)
    def test_a_bad_byte_in_arguments(self, bad: bytes) -> None:
        """A bad byte inside a call's argument text is a protocol error, not a U+FFFD in the arguments."""
        call = b'{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{\\"a\\":\\"x'
        body = (
            b'data: {"choices":[{"index":0,"delta":{"tool_calls":[' + call + bad + b'\\"}"}}]}}]}\n\n'
            b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
            b"data: [DONE]\n\n"
        )
        decoder = openai_chat.WIRE.decoder(ResponseLimits())
        for at in range(len(body)):
            decoder.feed_bytes(body[at : at + 1])
        assert decoder.finish() == Err(ProtocolError("the stream is not valid UTF-8"))

    def test_a_lone_surrogate_in_text(self) -> None:
        """A text chunk holding a lone surrogate is refused the same way."""
        decoder = anthropic.WIRE.decoder(ResponseLimits())
        assert decoder.feed_bytes("data: {}\ud800\n\n") == Err(ProtocolError("the stream is not valid UTF-8"))


class TestFlags:
    """Gemini flags (``willContinue``, ``thought``) of another type than a boolean are protocol errors."""

    @pytest.mark.parametrize("flag", ["yes", 1, [], {}], ids=repr)
    def test_will_continue(self, flag: Value) -> None:
        """A call whose ``willContinue`` is no boolean is never closed early with part of its arguments."""
        decoder = google.WIRE.decoder(ResponseLimits())
        opening: Value = {
            "name": "f",
            "willContinue": flag,
            "partialArgs": [{"jsonPath": "$.a", "numberValue": 1}],
        }
        got = decoder.feed_json({"candidates": [{"content": {"parts": [{"functionCall": opening}]}}]})
        assert got == Err(ProtocolError("willContinue must be a boolean"))

    @pytest.mark.parametrize("flag", ["yes", 1, [], {}], ids=repr)
    def test_a_partial_arguments_will_continue(self, flag: Value) -> None:
        """A partial argument whose ``willContinue`` is no boolean is refused the same way."""
        decoder = google.WIRE.decoder(ResponseLimits())
        piece: Value = {"jsonPath": "$.a", "stringValue": "x", "willContinue": flag}
        opening: Value = {"name": "f", "willContinue": True, "partialArgs": [piece]}
        got = decoder.feed_json({"candidates": [{"content": {"parts": [{"functionCall": opening}]}}]})
        assert got == Err(ProtocolError("willContinue must be a boolean"))

    def test_thought(self) -> None:
        """A part whose ``thought`` is no boolean is refused, not read as answer text."""
        got = google.WIRE.decode_body(
            {"candidates": [{"content": {"parts": [{"text": "t", "thought": "yes"}]}}]}
        )
        assert got == Err(ProtocolError("thought must be a boolean"))


class TestNothingReadAsAbsent:
    """A member of the wrong type is a protocol error, never read as absent (which would drop content)."""

    def test_a_gemini_candidate(self) -> None:
        """A candidate that is not an object fails the chunk instead of being skipped."""
        assert google.WIRE.decode_body({"candidates": [5]}) == Err(
            ProtocolError("a candidate is not an object")
        )

    def test_a_gemini_null_function_call(self) -> None:
        """``functionCall: null`` does not end a streaming call as an empty ``functionCall`` would."""
        decoder = google.WIRE.decoder(ResponseLimits())
        opening: Value = {"name": "f", "willContinue": True}
        decoder.feed_json({"candidates": [{"content": {"parts": [{"functionCall": opening}]}}]})
        got = decoder.feed_json({"candidates": [{"content": {"parts": [{"functionCall": None}]}}]})
        assert got == Err(ProtocolError("a functionCall must be an object"))

    def test_a_chat_choice(self) -> None:
        """A choice that is not an object fails the chunk instead of being read as choice 0 with no delta."""
        decoder = openai_chat.WIRE.decoder(ResponseLimits())
        assert decoder.feed_json({"choices": ["x"]}) == Err(ProtocolError("a choice is not an object"))

    @pytest.mark.parametrize("module", [openai_responses, anthropic], ids=lambda m: m.__name__)
    def test_an_event_without_a_type(self, module: ModuleType) -> None:
        """An event with no type (in its data or its SSE name) is refused, never skipped."""
        decoder = module.WIRE.decoder(ResponseLimits())
        assert decoder.feed_json({"type": None, "delta": "x"}) == Err(ProtocolError("an event has no type"))

    def test_an_anthropic_delta_without_a_type(self) -> None:
        """A ``content_block_delta`` whose delta has no type is refused, never skipped."""
        decoder = anthropic.WIRE.decoder(ResponseLimits())
        decoder.feed_json({"type": "message_start", "message": {"id": "m", "content": []}})
        block: Value = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
        decoder.feed_json({"type": "content_block_start", "index": 0, "content_block": block})
        delta: Value = {"type": None, "partial_json": '{"a": 1}'}
        got = decoder.feed_json({"type": "content_block_delta", "index": 0, "delta": delta})
        assert got == Err(ProtocolError("a delta has no type"))
