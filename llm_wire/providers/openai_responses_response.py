"""
OpenAI Responses API, response side: a body or an SSE stream to a ``Terminal``; error bodies to
``ProviderError``.

Output items are keyed by ``output_index`` and item id; a ``function_call`` item carries the application's
``call_id``. Argument text is the concatenated ``response.function_call_arguments.delta`` texts, exactly as
sent; ``…arguments.done`` and ``response.output_item.done`` repeat the whole text, which must agree (and is
taken as it is when no delta came). Calls keep output order. Every item other than text and calls
(reasoning with its encrypted content, hosted tool calls) makes the whole ``output`` list the turn's replay
data.
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
    obj,
    protocol,
    string,
)
from llm_wire.providers._terminal import StreamDecoder as _Base
from llm_wire.result import Result
from llm_wire.value import Value

__all__ = ["StreamDecoder", "decode_body", "decode_error"]

_KINDS = {
    "invalid_request_error": ErrorKind.INVALID_REQUEST,
    "authentication_error": ErrorKind.AUTHENTICATION,
    "invalid_api_key": ErrorKind.AUTHENTICATION,
    "permission_error": ErrorKind.PERMISSION,
    "not_found_error": ErrorKind.NOT_FOUND,
    "model_not_found": ErrorKind.NOT_FOUND,
    "rate_limit_exceeded": ErrorKind.RATE_LIMITED,
    "rate_limit_error": ErrorKind.RATE_LIMITED,
    "insufficient_quota": ErrorKind.RATE_LIMITED,
    "server_error": ErrorKind.SERVER,
    "server_is_overloaded": ErrorKind.OVERLOADED,
    "slow_down": ErrorKind.OVERLOADED,
}
_PLAIN = frozenset({"message", "function_call"})


def openai_error(error: Value, status: int | None, headers: Headers | None) -> ProviderError:
    """An OpenAI error object (``{message, type, code, param}``) as a ``ProviderError``."""
    code = error.get("code") if isinstance(error, dict) else None
    kind_name = error.get("type") if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    code = code if isinstance(code, str) else None
    kind_name = kind_name if isinstance(kind_name, str) else None
    kind = _KINDS.get(code or "") or _KINDS.get(kind_name or "")
    text = message if isinstance(message, str) else None
    return provider_error(status, headers, kind, code or kind_name, text)


def decode_error(status: int, body: bytes | str | Value, headers: Headers | None = None) -> ProviderError:
    """
    An HTTP error response as a ``ProviderError`` with retry advice; an unreadable body still gives one.
    """
    parsed = lenient(body, DEFAULT_LIMITS.response_body_bytes)
    found = parsed.get("error") if isinstance(parsed, dict) else None
    return openai_error(found, status, headers)


class _Item:
    __slots__ = ("call", "done", "final", "kind", "text_seen")

    def __init__(self, kind: str, call: Call | None) -> None:
        self.kind = kind
        self.call = call
        self.done = False
        self.final: Value = None
        self.text_seen = False


class StreamDecoder(_Base):
    """Decodes one Responses API stream (or, through ``decode_body``, one body)."""

    provider = Provider.OPENAI_RESPONSES

    def __init__(self, limits: ResponseLimits = DEFAULT_LIMITS) -> None:
        super().__init__(limits)
        self._items: dict[int, _Item] = {}
        self._by_id: dict[str, int] = {}
        self._response: dict[str, Value] | None = None

    def _event(self, name: str | None, data: Value) -> None:
        self._not_ended()
        kind = string(data, "type", "an event type") or name
        if kind in ("response.created", "response.in_progress", "response.queued"):
            self._b.response_id = string(obj(data, "response", "response"), "id", "a response id")
        elif kind == "response.output_item.added":
            self._added(data)
        elif kind == "response.output_item.done":
            self._done(data)
        elif kind == "response.function_call_arguments.delta":
            self._b.append(self._call(data), string(data, "delta", "a delta") or "")
        elif kind == "response.function_call_arguments.done":
            call = self._call(data)
            whole = string(data, "arguments", "arguments")
            if whole is not None:
                self._b.settle(call, whole)
            call.done = True
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            item = self._route(data)
            item.text_seen = True
            self._b.text(string(data, "delta", "a delta") or "", refusal=kind == "response.refusal.delta")
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            response = obj(data, "response", "response")
            if response is None:
                protocol("a final event has no response")
            self._finished(response)
        elif kind == "error":
            raise Fail(openai_error(obj(data, "error", "error") or data, None, None))

    def _body(self, body: Value) -> None:
        if not isinstance(body, dict):
            protocol("the body is not an object")
        if "output" not in body and isinstance(body.get("error"), dict):
            raise Fail(openai_error(body["error"], None, None))
        for index, item in enumerate(array(body, "output", "output")):
            event = {"output_index": index, "item": item}
            self._added(event)
            self._done(event)
        self._finished(body)

    def _added(self, data: Value) -> None:
        item = obj(data, "item", "an output item")
        index = integer(data, "output_index")
        if item is None:
            protocol("an output item event has no item")
        index = len(self._items) if index is None else index
        item_id = string(item, "id", "an item id")
        kind = string(item, "type", "an item type") or ""
        if index in self._items or (item_id is not None and item_id in self._by_id):
            protocol("two output items share one output_index or item id")
        self._b.block()
        call = None
        if kind == "function_call":
            call_id = string(item, "call_id", "a call_id")
            name = string(item, "name", "a function name")
            call = self._b.open_call(index, call_id, name, provider_id=item_id)
            self._b.append(call, string(item, "arguments", "arguments") or "")
        self._items[index] = _Item(kind, call)
        if item_id is not None:
            self._by_id[item_id] = index

    def _done(self, data: Value) -> None:
        item = obj(data, "item", "an output item")
        if item is None:
            protocol("an output item event has no item")
        index = integer(data, "output_index")
        item_id = string(item, "id", "an item id")
        found = self._find(index, item_id)
        found.done = True
        found.final = item
        if found.call is not None:
            call = found.call
            if string(item, "call_id", "a call_id") not in (None, call.id):
                protocol("an output item changed its call_id")
            whole = string(item, "arguments", "arguments")
            if whole is not None:
                self._b.settle(call, whole)
            call.done = True
        elif found.kind == "message" and not found.text_seen:
            for part in array(item, "content", "message content"):
                part_kind = string(part, "type", "a content type")
                if part_kind == "output_text":
                    self._b.text(string(part, "text", "text") or "")
                elif part_kind == "refusal":
                    self._b.text(string(part, "refusal", "a refusal") or "", refusal=True)

    def _find(self, index: int | None, item_id: str | None) -> _Item:
        by_id = self._by_id.get(item_id) if item_id is not None else None
        if item_id is not None and by_id is None:
            protocol("an event names an output item that was never added")
        if index is not None and by_id is not None and index != by_id:
            protocol("an event's item_id and output_index disagree")
        key = by_id if by_id is not None else index
        found = self._items.get(key) if key is not None else None
        if found is None:
            protocol("an event names an output item that was never added")
        return found

    def _route(self, data: Value) -> _Item:
        return self._find(integer(data, "output_index"), string(data, "item_id", "an item id"))

    def _call(self, data: Value) -> Call:
        found = self._route(data)
        if found.call is None:
            protocol("argument text arrived for an item that is not a function call")
        return found.call

    def _finished(self, response: dict[str, Value]) -> None:
        self._response = response
        self._b.response_id = string(response, "id", "a response id") or self._b.response_id
        usage = obj(response, "usage", "usage")
        if usage is not None:
            input_tokens = integer(usage, "input_tokens")
            self._b.usage = Usage(
                input_tokens, integer(usage, "output_tokens"), integer(usage, "total_tokens"), usage
            )
        self._end()
        if string(response, "status", "a status") == "failed":
            raise Fail(openai_error(obj(response, "error", "error"), None, None))

    def _complete(self) -> Terminal:
        response = self._response or {}
        status = string(response, "status", "a status")
        detail = string(obj(response, "incomplete_details", "incomplete details"), "reason", "a reason")
        if status == "completed":
            finish, detail = FinishReason.STOP, status
        elif status == "incomplete" and detail in (None, "max_output_tokens"):
            finish = FinishReason.LENGTH
        elif status == "incomplete" and detail == "content_filter":
            finish = FinishReason.CONTENT_FILTER
        else:
            raise Fail(provider_error(None, None, ErrorKind.RESPONSE_FAILED, detail or status, None))
        items = [self._items[index] for index in sorted(self._items)]
        self._b.items = [item.final for item in items if item.done]
        self._b.replay = any(item.kind not in _PLAIN for item in items)
        return self._b.terminal(finish, detail)


def decode_body(
    body: bytes | str | Value, limits: ResponseLimits = DEFAULT_LIMITS
) -> Result[Terminal, ResponseError]:
    """
    A whole Responses API body as a ``Terminal``; ``Err`` with a typed error for anything unusable.
    """
    return StreamDecoder(limits).decode_body(body)
