"""
OpenAI Responses (``POST /v1/responses``): schema projection, request encoding, response decoding, and the
server's speech for the fake provider.

Tools are flat ``{"type": "function", "name", "description", "parameters", "strict"}`` items, in OpenAI's
dialects (``_openai``). The whole history goes in ``input``: an assistant turn replays its output items
(reasoning, messages) from ``provider_data`` in order, each call as a ``function_call`` item whose
``arguments`` is the model's text byte for byte, and each result as a ``function_call_output``. A call's
``provider_id`` (the ``fc_`` item id) is sent only with the replayed items it belongs with: without its
reasoning item a reasoning model refuses it.

Responses: output items are keyed by ``output_index`` and item id; a ``function_call`` item carries the
application's ``call_id``. Argument text is the concatenated ``response.function_call_arguments.delta``
texts, exactly as sent; ``…arguments.done`` and ``response.output_item.done`` repeat the whole text, which
must agree (and is taken as it is when no delta came). Calls keep output order. Every item other than text
and calls (reasoning with its encrypted content, hosted tool calls) makes the whole ``output`` list the
turn's replay data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from llm_wire.message import AssistantTurn, Provider, SystemMessage, ToolCall, ToolResult, UserMessage
from llm_wire.providers import (
    AllowedTools,
    EncodeError,
    Http,
    InvalidReplay,
    Outgoing,
    Speech,
    ToolChoice,
    ToolLimits,
    UnsupportedSetting,
    UseTool,
    Wire,
    _http_errors,
    _openai,
    _reduce,
    _replay,
    _speech,
)
from llm_wire.providers.response import (
    _DEFAULT_LIMITS,
    ErrorKind,
    FinishReason,
    ResponseLimits,
    Terminal,
    Usage,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value, render

__all__ = ["WIRE"]

_T = TypeVar("_T")

_PROVIDER = Provider.OPENAI_RESPONSES
_PATH = "/v1/responses"


def _path(model: str, stream: bool) -> str:
    """The endpoint path (the model goes in the body)."""
    return _PATH


def _is_call(item: dict[str, Value]) -> bool:
    return item.get("type") == "function_call"


def _is_text(item: dict[str, Value]) -> bool:
    return item.get("type") == "message" or (item.get("role") == "assistant" and "type" not in item)


def _matches(item: dict[str, Value], call: ToolCall) -> bool:
    return item.get("call_id") == call.id


def _text(text: str) -> dict[str, Value]:
    return {"role": "assistant", "content": text}


_KIND = _replay.Kind(is_call=_is_call, is_text=_is_text, matches=_matches, text=_text)


def _function_call(call: ToolCall, own: bool = True) -> dict[str, Value]:
    """
    A ``function_call`` input item; ``arguments`` is the model's text, unchanged. ``namespace`` and
    ``caller`` go as received; ``caller`` only on a call of this API (``own``), whose callers it knows.
    """
    item: dict[str, Value] = {
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": call.arguments_json,
    }
    if call.namespace is not None:
        item["namespace"] = call.namespace
    if own and call.caller is not None:
        item["caller"] = call.caller
    return item


def _encode(out: Outgoing) -> Result[Value, EncodeError]:
    """The request body for ``out``; ``Err`` for a setting or replay data this API cannot take."""
    items: list[Value] = []
    for index, message in enumerate(out.messages):
        match message:
            case SystemMessage(text=text):
                items.append({"role": "system", "content": text})
            case UserMessage(text=text):
                items.append({"role": "user", "content": text})
            case AssistantTurn() as turn:
                match _replay.replay(turn, _PROVIDER, _KIND, _replayed_call):
                    case Err(reason):
                        return Err(InvalidReplay(index, reason))
                    case Ok(None):
                        if turn.text or not turn.calls:
                            items.append(_text(turn.text))
                        own = turn.provider == _PROVIDER
                        items.extend(_function_call(call, own) for call in turn.calls)
                    case Ok(replayed):
                        items.extend(replayed or ())
            case ToolResult(call_id=call_id, content=content):
                items.append({"type": "function_call_output", "call_id": call_id, "output": content})
            case _:
                _replay.not_a("Message", f"messages[{index}]", message)
    body: dict[str, Value] = {"model": out.model, "input": items}
    if out.tools:
        body["tools"] = [
            {
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.projection.wire_schema,
                "strict": tool.strict,
            }
            for tool in out.tools
        ]
    match out.choice:
        case ToolChoice() as choice:
            body["tool_choice"] = choice.value
        case UseTool(name=name):
            body["tool_choice"] = {"type": "function", "name": name}
        case AllowedTools(names=names, mode=mode):
            allowed: list[Value] = [{"type": "function", "name": name} for name in names]
            body["tool_choice"] = {"type": "allowed_tools", "mode": mode.value, "tools": allowed}
        case None:
            pass
        case _:
            _replay.not_a("ToolChoice, UseTool or AllowedTools", "choice", out.choice)
    if out.parallel is not None:
        body["parallel_tool_calls"] = out.parallel
    if out.output is not None:
        body["text"] = {
            "format": {
                "type": "json_schema",
                "name": out.output.name,
                "schema": out.output.projection.wire_schema,
                "strict": out.output.strict,
            }
        }
    if out.max_tokens is not None:
        body["max_output_tokens"] = out.max_tokens
    if out.temperature is not None:
        body["temperature"] = out.temperature
    if out.top_p is not None:
        body["top_p"] = out.top_p
    if out.stop:
        return Err(UnsupportedSetting("stop", _PROVIDER, "the Responses API takes no stop sequences"))
    if out.stream:
        body["stream"] = True
    return Ok(body)


def _replayed_call(call: ToolCall) -> dict[str, Value]:
    item = _function_call(call)
    if call.provider_id is not None:
        item["id"] = call.provider_id
    return item


# ---------------------------------------------------------------------------------------------------------
# The response side.

_PLAIN = frozenset({"message", "function_call"})


class _OutputItem:
    __slots__ = ("call", "done", "final", "kind", "text_seen")

    def __init__(self, kind: str, call: _reduce.Call | None) -> None:
        self.kind = kind
        self.call = call
        self.done = False
        self.final: Value = None
        self.text_seen = False


def _extras(item: dict[str, Value]) -> tuple[str | None, dict[str, Value] | None]:
    """A call item's ``namespace`` and ``caller`` (``None`` when absent or null), read in one step."""
    namespace, caller = item.get("namespace"), item.get("caller")
    if namespace is not None and not isinstance(namespace, str):
        _reduce.protocol("a namespace must be a string")
    if caller is not None and not isinstance(caller, dict):
        _reduce.protocol("a caller must be an object")
    return namespace, caller


def _settled(first: _T, final: _T) -> _T:
    """A call's member as the finished item gives it: sent once, or twice alike (``None``: not sent)."""
    if final is None:
        return first
    if first is not None and first != final:
        _reduce.protocol("an output item changed its call's namespace or caller")
    return final


class _ResponsesDecoder(_reduce.Reducer):
    """Decodes one Responses API stream (or, through ``decode_body``, one body)."""

    provider = Provider.OPENAI_RESPONSES

    def __init__(
        self, limits: ResponseLimits = _DEFAULT_LIMITS, *, taken_ids: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(limits, taken_ids=taken_ids)
        self._items: dict[int, _OutputItem] = {}
        self._by_id: dict[str, int] = {}
        self._response: dict[str, Value] | None = None

    def _event(self, name: str | None, data: Value) -> None:
        self._not_ended()
        if not isinstance(data, dict):
            _reduce.protocol("an event is not an object")
        kind = data.get("type")
        if not kind or not isinstance(kind, str):
            kind = _reduce.string(data, "type", "an event type") or name
            if not kind:
                _reduce.protocol("an event has no type")
        if kind == "response.function_call_arguments.delta":  # the hot event: its readers inline
            self._argument_delta(data)
        elif kind in ("response.created", "response.in_progress", "response.queued"):
            self._b.response_id = _reduce.string(
                _reduce.obj(data, "response", "response"), "id", "a response id"
            )
        elif kind == "response.output_item.added":
            self._added(data)
        elif kind == "response.output_item.done":
            self._done(data)
        elif kind == "response.function_call_arguments.done":
            call = self._call(data)
            whole = _reduce.string(data, "arguments", "arguments")
            if whole is not None:
                self._b.settle(call, whole)
            call.done = True
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            item = self._route(data)
            item.text_seen = True
            self._b.text(
                _reduce.string(data, "delta", "a delta") or "", refusal=kind == "response.refusal.delta"
            )
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            response = _reduce.obj(data, "response", "response")
            if response is None:
                _reduce.protocol("a final event has no response")
            self._finished(response)
        elif kind == "error":
            raise _reduce.Fail(_openai.openai_error(_reduce.obj(data, "error", "error") or data, None, None))

    def _argument_delta(self, data: dict[str, Value]) -> None:
        """``append(_call(data), string(data, "delta", "a delta") or "")``, its readers inline."""
        position = data.get("output_index")
        if position is not None and (not isinstance(position, int) or isinstance(position, bool)):
            _reduce.protocol("an output_index is not an integer")
        item_id = data.get("item_id")
        if item_id is not None and not isinstance(item_id, str):
            _reduce.protocol("an item id must be a string")
        call = self._find(position, item_id).call
        if call is None:
            _reduce.protocol("argument text arrived for an item that is not a function call")
        delta = data.get("delta")
        if delta is not None and not isinstance(delta, str):
            _reduce.protocol("a delta must be a string")
        self._b.append(call, delta or "")

    def _body(self, body: Value) -> None:
        if not isinstance(body, dict):
            _reduce.protocol("the body is not an object")
        if "output" not in body and isinstance(body.get("error"), dict):
            raise _reduce.Fail(_openai.openai_error(body["error"], None, None))
        for index, item in enumerate(_reduce.array(body, "output", "output")):
            event = {"output_index": index, "item": item}
            self._added(event)
            self._done(event)
        self._finished(body)

    def _added(self, data: Value) -> None:
        item = _reduce.obj(data, "item", "an output item")
        position = _reduce.index_member(data, "output_index", "an output_index")
        if item is None:
            _reduce.protocol("an output item event has no item")
        position = len(self._items) if position is None else position
        item_id = _reduce.string(item, "id", "an item id")
        kind = _reduce.string(item, "type", "an item type") or ""
        if position in self._items or (item_id is not None and item_id in self._by_id):
            _reduce.protocol("two output items share one output_index or item id")
        self._b.block()
        call = None
        if kind == "function_call":
            call_id = _reduce.string(item, "call_id", "a call_id")
            name = _reduce.string(item, "name", "a function name")
            namespace, caller = _extras(item) if "namespace" in item or "caller" in item else (None, None)
            call = self._b.open_call(
                position, call_id, name, provider_id=item_id, namespace=namespace, caller=caller
            )
            self._b.append(call, _reduce.string(item, "arguments", "arguments") or "")
        self._items[position] = _OutputItem(kind, call)
        if item_id is not None:
            self._by_id[item_id] = position

    def _done(self, data: Value) -> None:
        item = _reduce.obj(data, "item", "an output item")
        if item is None:
            _reduce.protocol("an output item event has no item")
        item_id = _reduce.string(item, "id", "an item id")
        found = self._find(_reduce.index_member(data, "output_index", "an output_index"), item_id)
        found.done = True
        found.final = item
        if found.call is not None:
            call = found.call
            if _reduce.string(item, "call_id", "a call_id") not in (None, call.id):
                _reduce.protocol("an output item changed its call_id")
            if _reduce.string(item, "name", "a function name") not in (None, call.name):
                _reduce.protocol("an output item changed its call's name")
            if "namespace" in item or "caller" in item:
                namespace, caller = _extras(item)
                call.namespace = _settled(call.namespace, namespace)
                call.caller = _settled(call.caller, caller)
            whole = _reduce.string(item, "arguments", "arguments")
            if whole is not None:
                self._b.settle(call, whole)
            call.done = True
        elif found.kind == "message" and not found.text_seen:
            for part in _reduce.array(item, "content", "message content"):
                part_kind = _reduce.string(part, "type", "a content type")
                if part_kind == "output_text":
                    self._b.text(_reduce.string(part, "text", "text") or "")
                elif part_kind == "refusal":
                    self._b.text(_reduce.string(part, "refusal", "a refusal") or "", refusal=True)

    def _find(self, position: int | None, item_id: str | None) -> _OutputItem:
        by_id = self._by_id.get(item_id) if item_id is not None else None
        if item_id is not None and by_id is None:
            _reduce.protocol("an event names an output item that was never added")
        if position is not None and by_id is not None and position != by_id:
            _reduce.protocol("an event's item_id and output_index disagree")
        key = by_id if by_id is not None else position
        found = self._items.get(key) if key is not None else None
        if found is None:
            _reduce.protocol("an event names an output item that was never added")
        return found

    def _route(self, data: Value) -> _OutputItem:
        return self._find(
            _reduce.index_member(data, "output_index", "an output_index"),
            _reduce.string(data, "item_id", "an item id"),
        )

    def _call(self, data: Value) -> _reduce.Call:
        found = self._route(data)
        if found.call is None:
            _reduce.protocol("argument text arrived for an item that is not a function call")
        return found.call

    def _finished(self, response: dict[str, Value]) -> None:
        self._response = response
        self._b.response_id = _reduce.string(response, "id", "a response id") or self._b.response_id
        usage = _reduce.obj(response, "usage", "usage")
        if usage is not None:
            input_tokens = _reduce.integer(usage, "input_tokens")
            self._b.usage = Usage(
                input_tokens,
                _reduce.integer(usage, "output_tokens"),
                _reduce.integer(usage, "total_tokens"),
                usage,
            )
        self._end()
        if _reduce.string(response, "status", "a status") == "failed":
            raise _reduce.Fail(_openai.openai_error(_reduce.obj(response, "error", "error"), None, None))

    def _complete(self) -> Terminal:
        response = self._response or {}
        status = _reduce.string(response, "status", "a status")
        detail = _reduce.string(
            _reduce.obj(response, "incomplete_details", "incomplete details"), "reason", "a reason"
        )
        if status == "completed":
            finish, detail = FinishReason.STOP, status
        elif status == "incomplete" and detail in (None, "max_output_tokens"):
            finish = FinishReason.LENGTH
        elif status == "incomplete" and detail == "content_filter":
            finish = FinishReason.CONTENT_FILTER
        else:
            raise _reduce.Fail(
                _http_errors.provider_error(None, None, ErrorKind.RESPONSE_FAILED, detail or status, None)
            )
        items = [self._items[index] for index in sorted(self._items)]
        self._b.items = [item.final for item in items if item.done]
        self._b.replay = any(item.kind not in _PLAIN for item in items)
        return self._b.terminal(finish, detail)


# ---------------------------------------------------------------------------------------------------------
# The server's speech, for the fake provider.


def _speak_items(text: str, calls: Sequence[ToolCall]) -> list[Value]:
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
    for n, c in enumerate(calls):
        item: dict[str, Value] = {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": c.id,
            "name": c.name,
            "arguments": c.arguments_json,
            "status": "completed",
        }
        if c.namespace is not None:
            item["namespace"] = c.namespace
        if c.caller is not None:
            item["caller"] = c.caller
        items.append(item)
    return items


def _speak_body(text: str, calls: Sequence[ToolCall], model: str, output: list[Value] | None = None) -> Value:
    return {
        "id": "resp_fake",
        "object": "response",
        "status": "completed",
        "model": model,
        "output": _speak_items(text, calls) if output is None else output,
        "usage": {"input_tokens": 12, "output_tokens": 7, "total_tokens": 19},
    }


def _speak_events(
    text: str, calls: Sequence[ToolCall], piece: int, model: str
) -> list[tuple[str | None, str]]:
    events: list[tuple[str | None, str]] = []

    def emit(kind: str, **members: Value) -> None:
        events.append((kind, render({"type": kind, **members})))

    start: Value = {
        "id": "resp_fake",
        "object": "response",
        "status": "in_progress",
        "model": model,
        "output": [],
    }
    emit("response.created", response=start)
    items = _speak_items(text, calls)
    for index, item in enumerate(items):
        assert isinstance(item, dict)
        if item["type"] == "message":
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "content": [], "status": "in_progress"},
            )
            for word in _speech.words(text):
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
            for part in _speech.pieces(arguments, piece):
                emit(
                    "response.function_call_arguments.delta",
                    output_index=index,
                    item_id=item["id"],
                    delta=part,
                )
        emit("response.output_item.done", output_index=index, item=item)
    emit("response.completed", response=_speak_body(text, calls, model, items))
    return events


_SPEECH = Speech(
    route=re.compile(re.escape(_PATH)), body=_speak_body, events=_speak_events, error=_openai.speak_error
)

#: The API's origin, its key header and variables.
_HTTP = Http(
    base_url="https://api.openai.com",
    key_header="authorization",
    key_prefix="Bearer ",
    key_env=("OPENAI_API_KEY",),
    headers=(),
)

#: OpenAI's tool-name rule: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length
#: of 64." (openai-python ``src/openai/types/shared_params/function_definition.py``,
#: ``FunctionDefinition.name``).
_NAME_RULE = re.compile(r"[a-zA-Z0-9_-]{1,64}")

#: What the Responses API refuses in a request's tools.
_LIMITS = ToolLimits(
    # OpenAI's 128-tool limit (issue 26; stated for Chat Completions: "A max of 128 functions are supported.",
    # openai-python ``src/openai/types/chat/completion_create_params.py`` through v1.99.1). The Responses
    # reference (``src/openai/types/responses/response_create_params.py``, ``tools``) states no figure of its
    # own; GPT-5 clients report the same 400 "Invalid 'tools': array too long. Expected an array with maximum
    # length 128" (zed-industries/zed#42393, anomalyco/opencode#4909).
    tools=128,
)

WIRE = Wire(
    provider=_PROVIDER,
    loose=_openai.LOOSE,
    strict=_openai.STRICT,
    encode=_encode,
    path=_path,
    decoder=_ResponsesDecoder,
    decode_error=_openai.decode_error,
    speech=_SPEECH,
    loose_output=True,
    http=_HTTP,
    name_rule=_NAME_RULE,
    limits=_LIMITS,
    aliases=("openai",),
)

# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
PROVIDER = _PROVIDER
LOOSE = WIRE.loose
STRICT = WIRE.strict
SPEECH = _SPEECH
HTTP = _HTTP
ResponsesDecoder = _ResponsesDecoder
encode = _encode
decode_error = WIRE.decode_error
path = _path
decode_body = WIRE.decode_body
