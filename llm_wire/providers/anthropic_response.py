"""
Anthropic Messages API, response side: a body or an SSE stream to a ``Terminal``; error bodies to
``ProviderError``.

Content blocks are keyed by ``index``. A ``tool_use`` block's argument text is its concatenated
``input_json_delta`` fragments, exactly as sent; a block that streams none (a tool without parameters, a call
made by code execution, a whole body) takes its ``input`` object, rendered exactly. ``server_tool_use``
blocks are hosted activity and never application calls. Thinking, redacted thinking and hosted tool blocks
make the whole ``content`` list the turn's replay data. A ``message_start`` may already hold finished
blocks and a stop reason; a body is decoded as exactly that.
"""

from __future__ import annotations

from llm_wire.message import Provider
from llm_wire.providers._errors import (
    ErrorKind,
    Headers,
    ProviderError,
    ResponseError,
    lenient,
    provider_error,
)
from llm_wire.providers._terminal import (
    DEFAULT_LIMITS,
    Call,
    Fail,
    FinishReason,
    ResponseLimits,
    Terminal,
    Usage,
    array,
    integer,
    json_text,
    member,
    obj,
    protocol,
    string,
)
from llm_wire.providers._terminal import StreamDecoder as _Base
from llm_wire.result import Ok, Result
from llm_wire.value import Value, parse

__all__ = ["StreamDecoder", "decode_body", "decode_error"]

_KINDS = {
    "invalid_request_error": ErrorKind.INVALID_REQUEST,
    "authentication_error": ErrorKind.AUTHENTICATION,
    "permission_error": ErrorKind.PERMISSION,
    "billing_error": ErrorKind.PERMISSION,
    "not_found_error": ErrorKind.NOT_FOUND,
    "request_too_large": ErrorKind.REQUEST_TOO_LARGE,
    "rate_limit_error": ErrorKind.RATE_LIMITED,
    "api_error": ErrorKind.SERVER,
    "overloaded_error": ErrorKind.OVERLOADED,
    "timeout_error": ErrorKind.TIMEOUT,
}
_FINISH = {
    "tool_use": FinishReason.TOOL_CALLS,
    "end_turn": FinishReason.STOP,
    "stop_sequence": FinishReason.STOP,
    "max_tokens": FinishReason.LENGTH,
    "model_context_window_exceeded": FinishReason.LENGTH,
    "refusal": FinishReason.REFUSAL,
}
_PLAIN = frozenset({"text", "tool_use"})
_DELTAS = {
    "text_delta": ("text", "text"),
    "input_json_delta": ("partial_json", None),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("signature", "thinking"),
}


def _error(
    error: Value, status: int | None, headers: Headers | None, request_id: Value = None
) -> ProviderError:
    kind_name = member(error, "type")
    message = member(error, "message")
    code = kind_name if isinstance(kind_name, str) else None
    kind = _KINDS.get(code or "")
    text = message if isinstance(message, str) else None
    request = request_id if isinstance(request_id, str) else None
    return provider_error(status, headers, kind, code, text, request_id=request)


def decode_error(status: int, body: bytes | str | Value, headers: Headers | None = None) -> ProviderError:
    """
    An HTTP error response as a ``ProviderError`` with retry advice; an unreadable body still gives one.
    """
    parsed = lenient(body, DEFAULT_LIMITS.response_body_bytes)
    return _error(member(parsed, "error"), status, headers, member(parsed, "request_id"))


class _Block:
    __slots__ = ("call", "done", "kind", "parts", "signature", "start")

    def __init__(self, kind: str, start: dict[str, Value], call: Call | None) -> None:
        self.kind = kind
        self.start = start
        self.call = call
        self.parts: list[str] = []
        self.signature: list[str] = []
        self.done = False

    def value(self) -> Value:
        """The finished block as the provider would have sent it whole."""
        block = dict(self.start)
        if self.kind in ("text", "thinking") and self.parts:
            block[self.kind] = "".join((_str(block.get(self.kind)), *self.parts))
        if self.signature:
            block["signature"] = "".join((_str(block.get("signature")), *self.signature))
        text = self.call.text if self.call is not None else "".join(self.parts)
        if self.kind.endswith("tool_use") and text:
            parsed = parse(text)
            block["input"] = parsed.value if isinstance(parsed, Ok) else text
        return block


def _str(value: Value) -> str:
    return value if isinstance(value, str) else ""


class StreamDecoder(_Base):
    """Decodes one Messages API stream (or, through ``decode_body``, one body)."""

    provider = Provider.ANTHROPIC

    def __init__(self, limits: ResponseLimits = DEFAULT_LIMITS) -> None:
        super().__init__(limits)
        self._blocks: dict[object, _Block] = {}
        self._started = False
        self._stop: str | None = None

    def _event(self, name: str | None, data: Value) -> None:
        self._not_ended()
        kind = string(data, "type", "an event type") or name
        if kind == "message_start":
            message = obj(data, "message", "a message")
            if message is None:
                protocol("message_start has no message")
            self._message(message)
        elif not self._started and kind not in ("ping", "error"):
            protocol("an event arrived before message_start")
        elif kind == "content_block_start":
            block = obj(data, "content_block", "a content block")
            if block is None:
                protocol("content_block_start has no content block")
            self._start(integer(data, "index"), block)
        elif kind == "content_block_delta":
            self._delta(self._open(data), obj(data, "delta", "a delta"))
        elif kind == "content_block_stop":
            self._close(self._open(data))
        elif kind == "message_delta":
            self._stop = string(obj(data, "delta", "a delta"), "stop_reason", "a stop reason") or self._stop
            self._usage(obj(data, "usage", "usage"))
        elif kind == "message_stop":
            self._end()
        elif kind == "error":
            raise Fail(_error(member(data, "error"), None, None))

    def _body(self, body: Value) -> None:
        if member(body, "type") == "error":
            raise Fail(_error(member(body, "error"), None, None, member(body, "request_id")))
        if not isinstance(body, dict):
            protocol("the body is not an object")
        self._message(body)
        self._end()

    def _message(self, message: dict[str, Value]) -> None:
        if self._started:
            protocol("a second message_start arrived")
        self._started = True
        self._b.response_id = string(message, "id", "a message id")
        self._stop = string(message, "stop_reason", "a stop reason")
        self._usage(obj(message, "usage", "usage"))
        for block in array(message, "content", "content"):
            if not isinstance(block, dict):
                protocol("a content block is not an object")
            self._close(self._start(("whole", len(self._blocks)), block))

    def _usage(self, usage: dict[str, Value] | None) -> None:
        if usage is None:
            return
        before = self._b.usage or Usage()
        input_tokens = integer(usage, "input_tokens")
        output_tokens = integer(usage, "output_tokens")
        self._b.usage = Usage(
            before.input_tokens if input_tokens is None else input_tokens,
            before.output_tokens if output_tokens is None else output_tokens,
            None,
            usage,
        )

    def _start(self, index: object, block: dict[str, Value]) -> _Block:
        if index is None:
            protocol("a content block has no index")
        if index in self._blocks:
            protocol("two content blocks share one index")
        self._b.block()
        kind = string(block, "type", "a block type") or ""
        call = None
        if kind == "tool_use":
            call = self._b.open_call(
                index, string(block, "id", "a tool_use id"), string(block, "name", "a name")
            )
        elif kind == "text":
            self._b.text(string(block, "text", "text") or "")
        found = self._blocks[index] = _Block(kind, block, call)
        return found

    def _open(self, data: Value) -> _Block:
        found = self._blocks.get(integer(data, "index"))
        if found is None:
            protocol("an event names a content block that was never started")
        if found.done:
            protocol("an event names a content block that already stopped")
        return found

    def _delta(self, block: _Block, delta: dict[str, Value] | None) -> None:
        kind = string(delta, "type", "a delta type") or ""
        if kind not in _DELTAS:
            return
        key, block_kind = _DELTAS[kind]
        piece = string(delta, key, kind) or ""
        if block_kind is None:
            if block.call is not None:
                self._b.append(block.call, piece)
            elif block.kind.endswith("tool_use"):
                block.parts.append(piece)
            else:
                protocol("input_json_delta arrived for a block that takes no input")
        elif block.kind != block_kind and not (
            block_kind == "thinking" and block.kind == "redacted_thinking"
        ):
            protocol("a delta's type does not match its content block")
        elif key == "signature":
            block.signature.append(piece)
        else:
            block.parts.append(piece)
            if block.kind == "text":
                self._b.text(piece)

    def _close(self, block: _Block) -> _Block:
        block.done = True
        if block.call is not None:
            if not block.call.parts:
                self._b.settle(block.call, json_text(block.start.get("input") or {}, "a tool_use input"))
            block.call.done = True
        return block

    def _complete(self) -> Terminal:
        finish = _FINISH.get(self._stop or "")
        if finish is None:
            raise Fail(
                provider_error(None, None, ErrorKind.RESPONSE_FAILED, self._stop or "no_stop_reason", None)
            )
        blocks = list(self._blocks.values())
        if finish in (FinishReason.STOP, FinishReason.TOOL_CALLS) and not all(block.done for block in blocks):
            protocol("a content block was still open when the message stopped")
        self._b.replay = any(block.kind not in _PLAIN for block in blocks)
        self._b.items = [block.value() for block in blocks if block.done]
        return self._b.terminal(finish, self._stop)


def decode_body(
    body: bytes | str | Value, limits: ResponseLimits = DEFAULT_LIMITS
) -> Result[Terminal, ResponseError]:
    """
    A whole Messages API body as a ``Terminal``; ``Err`` with a typed error for anything unusable.
    """
    return StreamDecoder(limits).decode_body(body)
