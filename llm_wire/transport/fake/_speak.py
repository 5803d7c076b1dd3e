"""
Replies in each API's own words: an answer (text and calls) as a body or an SSE stream, and error bodies.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from attrs import frozen

from llm_wire.message import Provider
from llm_wire.result import Ok
from llm_wire.transport.fake._reply import Reply
from llm_wire.value import Value, parse, render

__all__ = ["FakeCall", "answer", "error", "sse"]


@frozen
class FakeCall:
    """A tool call the fake model makes: its id, tool name and argument JSON text."""

    id: str
    name: str
    arguments: str


def sse(events: Iterable[tuple[str | None, str]]) -> tuple[bytes, ...]:
    """SSE bytes, one chunk per event: each ``(event name or None, data text)``."""
    chunks = []
    for name, data in events:
        head = f"event: {name}\n" if name is not None else ""
        chunks.append((head + "".join(f"data: {line}\n" for line in data.split("\n")) + "\n").encode())
    return tuple(chunks)


def _j(value: Value) -> str:
    return render(value)


def _args(text: str) -> Value:
    parsed = parse(text)
    return parsed.value if isinstance(parsed, Ok) else {}


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _words(text: str) -> list[str]:
    words = text.split(" ")
    return [w + (" " if n < len(words) - 1 else "") for n, w in enumerate(words)] if text else []


_USAGE: dict[str, Value] = {"input_tokens": 12, "output_tokens": 7}


def answer(
    provider: Provider,
    text: str = "",
    calls: Sequence[FakeCall] = (),
    *,
    stream: bool = False,
    piece: int = 16,
    model: str = "fake-model",
    gap: float = 0.0,
) -> Reply:
    """
    A finished response of ``provider``'s API holding ``text`` and ``calls``: one JSON body, or (``stream``)
    its SSE events with text in word deltas and arguments in ``piece``-character deltas.
    """
    if stream:
        events = _STREAMS[provider](text, list(calls), piece, model)
        return Reply(chunks=sse(events), stream=True, gap=gap, content_type="text/event-stream")
    body = _BODIES[provider](text, list(calls), model)
    return Reply(chunks=(render(body).encode(),), gap=gap)


# --- OpenAI Chat Completions -------------------------------------------------------------------------


def _chat_body(text: str, calls: list[FakeCall], model: str) -> Value:
    message: dict[str, Value] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
    }


def _chat_stream(text: str, calls: list[FakeCall], piece: int, model: str) -> list[tuple[str | None, str]]:
    def chunk(delta: Value, finish: Value = None) -> tuple[str | None, str]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return None, _j(
            {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model, "choices": [choice]}
        )

    events: list[tuple[str | None, str]] = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": word}) for word in _words(text)]
    for n, call in enumerate(calls):
        head: Value = {
            "index": n,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        events.append(chunk({"tool_calls": [head]}))
        events += [
            chunk({"tool_calls": [{"index": n, "function": {"arguments": part}}]})
            for part in _pieces(call.arguments, piece)
        ]
    events.append(chunk({}, "tool_calls" if calls else "stop"))
    usage: Value = {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}
    events.append(
        (None, _j({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [], "usage": usage}))
    )
    events.append((None, "[DONE]"))
    return events


# --- OpenAI Responses --------------------------------------------------------------------------------


def _responses_items(text: str, calls: list[FakeCall]) -> list[Value]:
    items: list[Value] = []
    if text:
        content: list[Value] = [{"type": "output_text", "text": text, "annotations": []}]
        items.append(
            {
                "type": "message",
                "id": "msg_fake",
                "role": "assistant",
                "status": "completed",
                "content": content,
            }
        )
    items += [
        {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": c.id,
            "name": c.name,
            "arguments": c.arguments,
            "status": "completed",
        }
        for n, c in enumerate(calls)
    ]
    return items


def _responses_body(text: str, calls: list[FakeCall], model: str, output: list[Value] | None = None) -> Value:
    return {
        "id": "resp_fake",
        "object": "response",
        "status": "completed",
        "model": model,
        "output": _responses_items(text, calls) if output is None else output,
        "usage": {**_USAGE, "total_tokens": 19},
    }


def _responses_stream(
    text: str, calls: list[FakeCall], piece: int, model: str
) -> list[tuple[str | None, str]]:
    events: list[tuple[str | None, str]] = []

    def emit(kind: str, **members: Value) -> None:
        events.append((kind, _j({"type": kind, **members})))

    start: Value = {
        "id": "resp_fake",
        "object": "response",
        "status": "in_progress",
        "model": model,
        "output": [],
    }
    emit("response.created", response=start)
    items = _responses_items(text, calls)
    for index, item in enumerate(items):
        assert isinstance(item, dict)
        if item["type"] == "message":
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "content": [], "status": "in_progress"},
            )
            for word in _words(text):
                emit(
                    "response.output_text.delta",
                    output_index=index,
                    item_id="msg_fake",
                    content_index=0,
                    delta=word,
                )
        else:
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            arguments = item["arguments"]
            assert isinstance(arguments, str)
            for part in _pieces(arguments, piece):
                emit(
                    "response.function_call_arguments.delta",
                    output_index=index,
                    item_id=item["id"],
                    delta=part,
                )
        emit("response.output_item.done", output_index=index, item=item)
    emit("response.completed", response=_responses_body(text, calls, model, items))
    return events


# --- Anthropic Messages ------------------------------------------------------------------------------


def _anthropic_blocks(text: str, calls: list[FakeCall]) -> list[Value]:
    blocks: list[Value] = [{"type": "text", "text": text}] if text else []
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": _args(c.arguments)} for c in calls]
    return blocks


def _anthropic_body(text: str, calls: list[FakeCall], model: str) -> Value:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _anthropic_blocks(text, calls),
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": dict(_USAGE),
    }


def _anthropic_stream(
    text: str, calls: list[FakeCall], piece: int, model: str
) -> list[tuple[str | None, str]]:
    events: list[tuple[str | None, str]] = []

    def emit(kind: str, **members: Value) -> None:
        events.append((kind, _j({"type": kind, **members})))

    message = {**_anthropic_body("", [], model), "content": [], "stop_reason": None}  # type: ignore[dict-item]
    emit("message_start", message=message)
    index = 0
    if text:
        emit("content_block_start", index=index, content_block={"type": "text", "text": ""})
        for word in _words(text):
            emit("content_block_delta", index=index, delta={"type": "text_delta", "text": word})
        emit("content_block_stop", index=index)
        index += 1
    for call in calls:
        block: Value = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        emit("content_block_start", index=index, content_block=block)
        for part in _pieces(call.arguments, piece):
            emit("content_block_delta", index=index, delta={"type": "input_json_delta", "partial_json": part})
        emit("content_block_stop", index=index)
        index += 1
    stop = "tool_use" if calls else "end_turn"
    emit("message_delta", delta={"stop_reason": stop, "stop_sequence": None}, usage={"output_tokens": 7})
    emit("message_stop")
    return events


# --- Google Gemini -----------------------------------------------------------------------------------


def _google_parts(text: str, calls: list[FakeCall]) -> list[Value]:
    parts: list[Value] = [{"text": text}] if text else []
    parts += [{"functionCall": {"id": c.id, "name": c.name, "args": _args(c.arguments)}} for c in calls]
    return parts


def _google_chunk(parts: list[Value], finish: str | None, model: str) -> Value:
    candidate: dict[str, Value] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    usage: Value = {"promptTokenCount": 12, "candidatesTokenCount": 7, "totalTokenCount": 19}
    return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": model}


def _google_body(text: str, calls: list[FakeCall], model: str) -> Value:
    return _google_chunk(_google_parts(text, calls), "STOP", model)


def _google_stream(text: str, calls: list[FakeCall], piece: int, model: str) -> list[tuple[str | None, str]]:
    words = _words(text)
    chunks: list[list[Value]] = [[{"text": word}] for word in words]
    chunks += [[part] for part in _google_parts("", calls)]
    chunks = chunks or [[]]
    return [
        (
            None,
            _j(_google_chunk(parts, "STOP" if n == len(chunks) - 1 else None, model)),
        )
        for n, parts in enumerate(chunks)
    ]


_BODIES = {
    Provider.OPENAI_CHAT: _chat_body,
    Provider.OPENAI_RESPONSES: _responses_body,
    Provider.ANTHROPIC: _anthropic_body,
    Provider.GOOGLE: _google_body,
}
_STREAMS = {
    Provider.OPENAI_CHAT: _chat_stream,
    Provider.OPENAI_RESPONSES: _responses_stream,
    Provider.ANTHROPIC: _anthropic_stream,
    Provider.GOOGLE: _google_stream,
}

_OPENAI_TYPES = {
    429: "rate_limit_exceeded",
    500: "server_error",
    503: "server_error",
    400: "invalid_request_error",
}
_ANTHROPIC_TYPES = {
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
    400: "invalid_request_error",
}
_GOOGLE_STATUS = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 400: "INVALID_ARGUMENT"}


def error(
    provider: Provider,
    status: int,
    *,
    retry_after: str | None = None,
    message: str = "fake provider error",
    headers: Sequence[tuple[str, str]] = (),
) -> Reply:
    """An HTTP error of ``provider``'s API: its error body, and ``Retry-After`` when given."""
    body: Value
    if provider in (Provider.OPENAI_CHAT, Provider.OPENAI_RESPONSES):
        kind = _OPENAI_TYPES.get(status, "server_error")
        body = {"error": {"message": message, "type": kind, "param": None, "code": kind}}
    elif provider is Provider.ANTHROPIC:
        body = {
            "type": "error",
            "error": {"type": _ANTHROPIC_TYPES.get(status, "api_error"), "message": message},
        }
    else:
        body = {
            "error": {"code": status, "message": message, "status": _GOOGLE_STATUS.get(status, "INTERNAL")}
        }
    extra = (*headers, *((("retry-after", retry_after),) if retry_after is not None else ()))
    return Reply(status=status, chunks=(render(body).encode(),), headers=extra)
