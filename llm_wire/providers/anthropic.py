"""
Anthropic Messages (``POST /v1/messages``): schema projection, request encoding, response decoding, and
the server's speech for the fake provider.

Tools are ``{"name", "description", "input_schema", "strict"?}``. System messages are lifted into the
top-level ``system``. An assistant turn replays its content blocks (thinking, redacted thinking, text) from
``provider_data`` in order, each call as a ``tool_use`` block whose ``input`` is the parsed argument object;
the results of one turn go together in one ``user`` message of ``tool_result`` blocks, with ``is_error`` on
failures. ``max_tokens`` is required by the API: the wire's default configuration sends 4096.

Responses: content blocks are keyed by ``index``. A ``tool_use`` block's argument text is its concatenated
``input_json_delta`` fragments, exactly as sent; a block that streams none (a tool without parameters, a call
made by code execution, a whole body) takes its ``input`` object, rendered exactly. ``server_tool_use``
blocks are hosted activity and never application calls. Thinking, redacted thinking and hosted tool blocks
make the whole ``content`` list the turn's replay data. A ``message_start`` may already hold finished
blocks and a stop reason; a body is decoded as exactly that.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from llm_wire.message import AssistantTurn, Provider, SystemMessage, ToolCall, ToolResult, UserMessage
from llm_wire.providers._http_errors import lenient, provider_error
from llm_wire.providers._reduce import (
    Call,
    Fail,
    Reducer,
    array,
    index_member,
    integer,
    json_text,
    member,
    obj,
    protocol,
    string,
)
from llm_wire.providers._replay import Kind, arguments_object, not_a, replay, system_texts
from llm_wire.providers._speech import arguments, pieces, words
from llm_wire.providers.projection import Profile, Projection, Values
from llm_wire.providers.response import (
    DEFAULT_LIMITS,
    ErrorKind,
    FinishReason,
    Headers,
    ProviderError,
    ResponseLimits,
    Terminal,
    Usage,
)
from llm_wire.providers.wire import (
    EncodeError,
    Http,
    InvalidReplay,
    Outgoing,
    Speech,
    ToolChoice,
    UnsupportedSetting,
    UseTool,
    Wire,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value, parse, render

__all__ = [
    "HTTP",
    "DEFAULT_MAX_TOKENS",
    "KIND",
    "LOOSE",
    "MAX_OPTIONAL_PARAMETERS",
    "MAX_STRICT_TOOLS",
    "MAX_UNION_PARAMETERS",
    "PATH",
    "PROVIDER",
    "SPEECH",
    "STRICT",
    "WIRE",
    "AnthropicDecoder",
    "decode_body",
    "decode_error",
    "encode",
    "over_budget",
    "path",
    "tool_use",
]

PROVIDER = Provider.ANTHROPIC
PATH = "/v1/messages"
#: Sent when a request sets no ``max_tokens``: the Messages API requires one.
DEFAULT_MAX_TOKENS = 4096

#: Non-strict tools: broad JSON Schema, but no ``anyOf``/``oneOf``/``allOf`` at the root
#: ("input_schema does not support oneOf, allOf, or anyOf at the top level").
LOOSE = Profile(name="anthropic", root_combinators=False)

#: Strict tool use (python_ecosystem.md §3.2): a grammar subset; optional properties stay optional.
STRICT = Profile(
    name="anthropic-strict",
    keep=frozenset(
        {
            "type",
            "enum",
            "const",
            "anyOf",
            "allOf",
            "$ref",
            "required",
            "additionalProperties",
            "properties",
            "items",
            "minItems",
            "format",
            "pattern",
            "description",
            "title",
        }
    ),
    close_objects=True,
    recursion=False,
    one_of=False,
    all_of_refs=False,
    formats=frozenset(
        {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
    ),
    refused_pattern=r"\(\?<?[=!]|\\[1-9]|\\k<|\\[bB]",
    root_combinators=False,
    enum_values=Values.PRIMITIVE,
    max_min_items=1,
)


#: Anthropic's limits across the strict tools of one request: tools, optional parameters, and parameters
#: with ``anyOf`` or a type array (python_ecosystem.md §3.2).
MAX_STRICT_TOOLS = 20
MAX_OPTIONAL_PARAMETERS = 24
MAX_UNION_PARAMETERS = 16


def over_budget(strict: Sequence[Projection]) -> str | None:
    """Why these strict projections together exceed Anthropic's limits, or ``None``."""
    optional = unions = 0
    for projection in strict:
        for node in _objects(projection.wire_schema):
            props = node.get("properties")
            required = node.get("required")
            if not isinstance(props, dict):
                continue
            optional += sum(1 for name in props if not (isinstance(required, list) and name in required))
            unions += sum(1 for sub in props.values() if isinstance(sub, dict) and _is_union(sub))
    if len(strict) > MAX_STRICT_TOOLS:
        return f"more than {MAX_STRICT_TOOLS} strict tools"
    if optional > MAX_OPTIONAL_PARAMETERS:
        return f"more than {MAX_OPTIONAL_PARAMETERS} optional parameters across strict tools"
    if unions > MAX_UNION_PARAMETERS:
        return f"more than {MAX_UNION_PARAMETERS} anyOf or type-array parameters across strict tools"
    return None


def _is_union(node: dict[str, Value]) -> bool:
    return "anyOf" in node or isinstance(node.get("type"), list)


def _objects(schema: Value) -> list[dict[str, Value]]:
    found: list[dict[str, Value]] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "properties" in node:
                found.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def path(model: str, stream: bool) -> str:
    """The endpoint path (the model goes in the body)."""
    return PATH


def tool_use(call: ToolCall) -> dict[str, Value]:
    """A ``tool_use`` block; ``input`` is the argument object (``arguments_object``)."""
    return {
        "type": "tool_use",
        "id": call.id,
        "name": call.name,
        "input": arguments_object(call.arguments_json),
    }


def _text(text: str) -> dict[str, Value]:
    return {"type": "text", "text": text}


KIND = Kind(
    is_call=lambda block: block.get("type") == "tool_use",
    is_text=lambda block: block.get("type") == "text",
    matches=lambda block, call: block.get("id") == call.id,
    text=_text,
)


def encode(out: Outgoing) -> Result[Value, EncodeError]:
    """The request body for ``out``; ``Err`` for replay data that does not fit or no ``max_tokens``."""
    if out.max_tokens is None:
        return Err(UnsupportedSetting("max_tokens", PROVIDER, "the Messages API requires max_tokens"))
    messages: list[Value] = []
    results: list[Value] = []
    for index, message in enumerate(out.messages):
        if not isinstance(message, ToolResult) and results:
            messages.append({"role": "user", "content": results})
            results = []
        match message:
            case SystemMessage():
                pass
            case UserMessage(text=text):
                messages.append({"role": "user", "content": text})
            case AssistantTurn() as turn:
                match replay(turn, PROVIDER, KIND, tool_use):
                    case Err(reason):
                        return Err(InvalidReplay(index, reason))
                    case Ok(None):
                        blocks: list[Value] = [_text(turn.text)] if turn.text else []
                        blocks.extend(tool_use(call) for call in turn.calls)
                    case Ok(replayed):
                        blocks = list(replayed or ())
                if blocks:
                    messages.append({"role": "assistant", "content": blocks})
            case ToolResult(call_id=call_id, content=content, is_error=is_error):
                block: dict[str, Value] = {"type": "tool_result", "tool_use_id": call_id, "content": content}
                if is_error:
                    block["is_error"] = True
                results.append(block)
            case _:
                not_a("Message", f"messages[{index}]", message)
    if results:
        messages.append({"role": "user", "content": results})
    body: dict[str, Value] = {"model": out.model, "max_tokens": out.max_tokens}
    system = system_texts(out.messages)
    if system:
        body["system"] = "\n\n".join(system)
    body["messages"] = messages
    if out.tools:
        tools: list[Value] = []
        for tool in out.tools:
            entry: dict[str, Value] = {
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.projection.wire_schema,
            }
            if tool.strict:
                entry["strict"] = True
            tools.append(entry)
        body["tools"] = tools
    choice = _choice(out)
    if choice is not None:
        body["tool_choice"] = choice
    if out.output is not None:
        body["output_config"] = {
            "format": {"type": "json_schema", "schema": out.output.projection.wire_schema}
        }
    if out.temperature is not None:
        body["temperature"] = out.temperature
    if out.top_p is not None:
        body["top_p"] = out.top_p
    if out.stop:
        body["stop_sequences"] = list(out.stop)
    if out.stream:
        body["stream"] = True
    return Ok(body)


def _choice(out: Outgoing) -> dict[str, Value] | None:
    choice: dict[str, Value]
    match out.choice:
        case None:
            if out.parallel is not False or not out.tools:
                return None
            choice = {"type": "auto"}
        case ToolChoice.AUTO:
            choice = {"type": "auto"}
        case ToolChoice.NONE:
            return {"type": "none"}
        case ToolChoice.REQUIRED:
            choice = {"type": "any"}
        case UseTool(name=name):
            choice = {"type": "tool", "name": name}
        case _:
            not_a("ToolChoice or UseTool", "choice", out.choice)
    if out.parallel is False:
        choice["disable_parallel_tool_use"] = True
    return choice


# ---------------------------------------------------------------------------------------------------------
# The response side.

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


class AnthropicDecoder(Reducer):
    """Decodes one Messages API stream (or, through ``decode_body``, one body)."""

    provider = Provider.ANTHROPIC

    def __init__(
        self, limits: ResponseLimits = DEFAULT_LIMITS, *, taken_ids: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(limits, taken_ids=taken_ids)
        self._blocks: dict[object, _Block] = {}
        self._started = False
        self._stop: str | None = None

    def _event(self, name: str | None, data: Value) -> None:
        self._not_ended()
        if not isinstance(data, dict):
            protocol("an event is not an object")
        kind = string(data, "type", "an event type") or name
        if not kind:
            protocol("an event has no type")
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
            self._start(index_member(data, "index", "a content block index"), block)
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

    def _start(self, key: object, block: dict[str, Value]) -> _Block:
        if key is None:
            protocol("a content block has no index")
        if key in self._blocks:
            protocol("two content blocks share one index")
        self._b.block()
        kind = string(block, "type", "a block type") or ""
        call = None
        if kind == "tool_use":
            if not isinstance(block.get("input", {}), dict):
                protocol("a tool_use input must be an object")
            call = self._b.open_call(
                key, string(block, "id", "a tool_use id"), string(block, "name", "a name")
            )
        elif kind == "text":
            self._b.text(string(block, "text", "text") or "")
        found = self._blocks[key] = _Block(kind, block, call)
        return found

    def _open(self, data: Value) -> _Block:
        found = self._blocks.get(index_member(data, "index", "a content block index"))
        if found is None:
            protocol("an event names a content block that was never started")
        if found.done:
            protocol("an event names a content block that already stopped")
        return found

    def _delta(self, block: _Block, delta: dict[str, Value] | None) -> None:
        kind = string(delta, "type", "a delta type")
        if not kind:
            protocol("a delta has no type")
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
                self._b.settle(block.call, json_text(block.start.get("input", {}), "a tool_use input"))
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


# ---------------------------------------------------------------------------------------------------------
# The server's speech, for the fake provider.


def _speak_body(text: str, calls: Sequence[ToolCall], model: str) -> Value:
    blocks: list[Value] = [{"type": "text", "text": text}] if text else []
    blocks += [
        {"type": "tool_use", "id": c.id, "name": c.name, "input": arguments(c.arguments_json)} for c in calls
    ]
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 7},
    }


def _speak_events(
    text: str, calls: Sequence[ToolCall], piece: int, model: str
) -> list[tuple[str | None, str]]:
    events: list[tuple[str | None, str]] = []

    def emit(kind: str, **members: Value) -> None:
        events.append((kind, render({"type": kind, **members})))

    message = {**_speak_body("", [], model), "content": [], "stop_reason": None}  # type: ignore[dict-item]
    emit("message_start", message=message)
    index = 0
    if text:
        emit("content_block_start", index=index, content_block={"type": "text", "text": ""})
        for word in words(text):
            emit("content_block_delta", index=index, delta={"type": "text_delta", "text": word})
        emit("content_block_stop", index=index)
        index += 1
    for call in calls:
        block: Value = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        emit("content_block_start", index=index, content_block=block)
        for part in pieces(call.arguments_json, piece):
            emit("content_block_delta", index=index, delta={"type": "input_json_delta", "partial_json": part})
        emit("content_block_stop", index=index)
        index += 1
    stop = "tool_use" if calls else "end_turn"
    emit("message_delta", delta={"stop_reason": stop, "stop_sequence": None}, usage={"output_tokens": 7})
    emit("message_stop")
    return events


#: The error ``type`` the fake provider sends for an HTTP status.
_SPOKEN = {
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
    400: "invalid_request_error",
}


def _speak_error(status: int, message: str) -> Value:
    return {"type": "error", "error": {"type": _SPOKEN.get(status, "api_error"), "message": message}}


SPEECH = Speech(route=re.compile(re.escape(PATH)), body=_speak_body, events=_speak_events, error=_speak_error)

#: The API's origin, its key header and variables, and the API version every request names.
HTTP = Http(
    base_url="https://api.anthropic.com",
    key_header="x-api-key",
    key_prefix="",
    key_env=("ANTHROPIC_API_KEY",),
    headers=(("anthropic-version", "2023-06-01"),),
)

WIRE = Wire(
    provider=PROVIDER,
    loose=LOOSE,
    strict=STRICT,
    encode=encode,
    path=path,
    decoder=AnthropicDecoder,
    decode_error=decode_error,
    over_budget=over_budget,
    speech=SPEECH,
    default_max_tokens=DEFAULT_MAX_TOKENS,
    http=HTTP,
)
decode_body = WIRE.decode_body
