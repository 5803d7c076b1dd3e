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
    _reduce,
    _replay,
    _speech,
)
from llm_wire.providers.projection import Profile, Projection, Values
from llm_wire.providers.response import (
    _DEFAULT_LIMITS,
    ErrorKind,
    FinishReason,
    ProviderError,
    ResponseLimits,
    Terminal,
    Usage,
    _Headers,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value, parse, render

__all__ = ["WIRE"]

_PROVIDER = Provider.ANTHROPIC
_NO_SUBSET = (
    "its tool_choice cannot limit calls to some of the declared tools; declare only those tools, or force one"
    " with UseTool"
)
_PATH = "/v1/messages"
#: Sent when a request sets no ``max_tokens``: the Messages API requires one.
_DEFAULT_MAX_TOKENS = 4096

#: Non-strict tools: broad JSON Schema, but no ``anyOf``/``oneOf``/``allOf`` at the root
#: ("input_schema does not support oneOf, allOf, or anyOf at the top level").
_LOOSE = Profile(name="anthropic", root_combinators=False)

#: Strict tool use (python_ecosystem.md §3.2): a grammar subset; optional properties stay optional.
_STRICT = Profile(
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
_MAX_STRICT_TOOLS = 20
_MAX_OPTIONAL_PARAMETERS = 24
_MAX_UNION_PARAMETERS = 16


def _over_budget(strict: Sequence[Projection]) -> str | None:
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
    if len(strict) > _MAX_STRICT_TOOLS:
        return f"more than {_MAX_STRICT_TOOLS} strict tools"
    if optional > _MAX_OPTIONAL_PARAMETERS:
        return f"more than {_MAX_OPTIONAL_PARAMETERS} optional parameters across strict tools"
    if unions > _MAX_UNION_PARAMETERS:
        return f"more than {_MAX_UNION_PARAMETERS} anyOf or type-array parameters across strict tools"
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


def _path(model: str, stream: bool) -> str:
    """The endpoint path (the model goes in the body)."""
    return _PATH


def _tool_use(call: ToolCall, own: bool = True) -> dict[str, Value]:
    """
    A ``tool_use`` block; ``input`` is the argument object (``arguments_object``); ``caller`` as received,
    on a call of this API (``own``) only.
    """
    block: dict[str, Value] = {
        "type": "tool_use",
        "id": call.id,
        "name": call.name,
        "input": _replay.arguments_object(call.arguments_json),
    }
    if own and call.caller is not None:
        block["caller"] = call.caller
    return block


def _text(text: str) -> dict[str, Value]:
    return {"type": "text", "text": text}


_KIND = _replay.Kind(
    is_call=lambda block: block.get("type") == "tool_use",
    is_text=lambda block: block.get("type") == "text",
    matches=lambda block, call: block.get("id") == call.id,
    text=_text,
)


def _encode(out: Outgoing) -> Result[Value, EncodeError]:
    """The request body for ``out``; ``Err`` for replay data that does not fit or no ``max_tokens``."""
    if out.max_tokens is None:
        return Err(UnsupportedSetting("max_tokens", _PROVIDER, "the Messages API requires max_tokens"))
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
                match _replay.replay(turn, _PROVIDER, _KIND, _tool_use):
                    case Err(reason):
                        return Err(InvalidReplay(index, reason))
                    case Ok(None):
                        blocks: list[Value] = [_text(turn.text)] if turn.text else []
                        own = turn.provider == _PROVIDER
                        blocks.extend(_tool_use(call, own) for call in turn.calls)
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
                _replay.not_a("Message", f"messages[{index}]", message)
    if results:
        messages.append({"role": "user", "content": results})
    body: dict[str, Value] = {"model": out.model, "max_tokens": out.max_tokens}
    system = _replay.system_texts(out.messages)
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
    if isinstance(choice, UnsupportedSetting):
        return Err(choice)
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


def _choice(out: Outgoing) -> dict[str, Value] | UnsupportedSetting | None:
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
        case AllowedTools(names=names, mode=mode):
            # ``tool_choice`` has no subset: only an exact equivalent is sent.
            required = mode is ToolChoice.REQUIRED
            if set(names) == {tool.name for tool in out.tools}:
                choice = {"type": "any" if required else "auto"}
            elif required and len(names) == 1:
                choice = {"type": "tool", "name": names[0]}
            else:
                return UnsupportedSetting("tool_choice", _PROVIDER, _NO_SUBSET)
        case _:
            _replay.not_a("ToolChoice, UseTool or AllowedTools", "choice", out.choice)
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
    error: Value, status: int | None, headers: _Headers | None, request_id: Value = None
) -> ProviderError:
    kind_name = _reduce.member(error, "type")
    message = _reduce.member(error, "message")
    code = kind_name if isinstance(kind_name, str) else None
    kind = _KINDS.get(code or "")
    text = message if isinstance(message, str) else None
    request = request_id if isinstance(request_id, str) else None
    return _http_errors.provider_error(status, headers, kind, code, text, request_id=request)


def _decode_error(status: int, body: bytes | str | Value, headers: _Headers | None = None) -> ProviderError:
    """
    An HTTP error response as a ``ProviderError`` with retry advice; an unreadable body still gives one.
    """
    parsed = _http_errors.lenient(body, _DEFAULT_LIMITS.response_body_bytes)
    return _error(_reduce.member(parsed, "error"), status, headers, _reduce.member(parsed, "request_id"))


class _Block:
    __slots__ = ("call", "done", "kind", "parts", "signature", "start")

    def __init__(self, kind: str, start: dict[str, Value], call: _reduce.Call | None) -> None:
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


class _AnthropicDecoder(_reduce.Reducer):
    """Decodes one Messages API stream (or, through ``decode_body``, one body)."""

    provider = Provider.ANTHROPIC

    def __init__(
        self, limits: ResponseLimits = _DEFAULT_LIMITS, *, taken_ids: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(limits, taken_ids=taken_ids)
        self._blocks: dict[object, _Block] = {}
        self._started = False
        self._stop: str | None = None

    def _event(self, name: str | None, data: Value) -> None:
        self._not_ended()
        if not isinstance(data, dict):
            _reduce.protocol("an event is not an object")
        kind = _reduce.string(data, "type", "an event type") or name
        if not kind:
            _reduce.protocol("an event has no type")
        if kind == "message_start":
            message = _reduce.obj(data, "message", "a message")
            if message is None:
                _reduce.protocol("message_start has no message")
            self._message(message)
        elif not self._started and kind not in ("ping", "error"):
            _reduce.protocol("an event arrived before message_start")
        elif kind == "content_block_start":
            block = _reduce.obj(data, "content_block", "a content block")
            if block is None:
                _reduce.protocol("content_block_start has no content block")
            self._start(_reduce.index_member(data, "index", "a content block index"), block)
        elif kind == "content_block_delta":
            self._delta(self._open(data), _reduce.obj(data, "delta", "a delta"))
        elif kind == "content_block_stop":
            self._close(self._open(data))
        elif kind == "message_delta":
            self._stop = (
                _reduce.string(_reduce.obj(data, "delta", "a delta"), "stop_reason", "a stop reason")
                or self._stop
            )
            self._usage(_reduce.obj(data, "usage", "usage"))
        elif kind == "message_stop":
            self._end()
        elif kind == "error":
            raise _reduce.Fail(_error(_reduce.member(data, "error"), None, None))

    def _body(self, body: Value) -> None:
        if _reduce.member(body, "type") == "error":
            raise _reduce.Fail(
                _error(_reduce.member(body, "error"), None, None, _reduce.member(body, "request_id"))
            )
        if not isinstance(body, dict):
            _reduce.protocol("the body is not an object")
        self._message(body)
        self._end()

    def _message(self, message: dict[str, Value]) -> None:
        if self._started:
            _reduce.protocol("a second message_start arrived")
        self._started = True
        self._b.response_id = _reduce.string(message, "id", "a message id")
        self._stop = _reduce.string(message, "stop_reason", "a stop reason")
        self._usage(_reduce.obj(message, "usage", "usage"))
        for block in _reduce.array(message, "content", "content"):
            if not isinstance(block, dict):
                _reduce.protocol("a content block is not an object")
            self._close(self._start(("whole", len(self._blocks)), block))

    def _usage(self, usage: dict[str, Value] | None) -> None:
        if usage is None:
            return
        before = self._b.usage or Usage()
        input_tokens = _reduce.integer(usage, "input_tokens")
        output_tokens = _reduce.integer(usage, "output_tokens")
        self._b.usage = Usage(
            before.input_tokens if input_tokens is None else input_tokens,
            before.output_tokens if output_tokens is None else output_tokens,
            None,
            usage,
        )

    def _start(self, key: object, block: dict[str, Value]) -> _Block:
        if key is None:
            _reduce.protocol("a content block has no index")
        if key in self._blocks:
            _reduce.protocol("two content blocks share one index")
        self._b.block()
        kind = _reduce.string(block, "type", "a block type") or ""
        call = None
        if kind == "tool_use":
            if not isinstance(block.get("input", {}), dict):
                _reduce.protocol("a tool_use input must be an object")
            caller = block.get("caller")
            if caller is not None and not isinstance(caller, dict):
                _reduce.protocol("a caller must be an object")
            call = self._b.open_call(
                key,
                _reduce.string(block, "id", "a tool_use id"),
                _reduce.string(block, "name", "a name"),
                caller=caller,
            )
        elif kind == "text":
            self._b.text(_reduce.string(block, "text", "text") or "")
        found = self._blocks[key] = _Block(kind, block, call)
        return found

    def _open(self, data: Value) -> _Block:
        found = self._blocks.get(_reduce.index_member(data, "index", "a content block index"))
        if found is None:
            _reduce.protocol("an event names a content block that was never started")
        if found.done:
            _reduce.protocol("an event names a content block that already stopped")
        return found

    def _delta(self, block: _Block, delta: dict[str, Value] | None) -> None:
        kind = _reduce.string(delta, "type", "a delta type")
        if not kind:
            _reduce.protocol("a delta has no type")
        if kind not in _DELTAS:
            return
        key, block_kind = _DELTAS[kind]
        piece = _reduce.string(delta, key, kind) or ""
        if block_kind is None:
            if block.call is not None:
                self._b.append(block.call, piece)
            elif block.kind.endswith("tool_use"):
                block.parts.append(piece)
            else:
                _reduce.protocol("input_json_delta arrived for a block that takes no input")
        elif block.kind != block_kind and not (
            block_kind == "thinking" and block.kind == "redacted_thinking"
        ):
            _reduce.protocol("a delta's type does not match its content block")
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
                self._b.settle(
                    block.call, _reduce.json_text(block.start.get("input", {}), "a tool_use input")
                )
            block.call.done = True
        return block

    def _complete(self) -> Terminal:
        finish = _FINISH.get(self._stop or "")
        if finish is None:
            raise _reduce.Fail(
                _http_errors.provider_error(
                    None, None, ErrorKind.RESPONSE_FAILED, self._stop or "no_stop_reason", None
                )
            )
        blocks = list(self._blocks.values())
        if finish in (FinishReason.STOP, FinishReason.TOOL_CALLS) and not all(block.done for block in blocks):
            _reduce.protocol("a content block was still open when the message stopped")
        self._b.replay = any(block.kind not in _PLAIN for block in blocks)
        self._b.items = [block.value() for block in blocks if block.done]
        return self._b.terminal(finish, self._stop)


# ---------------------------------------------------------------------------------------------------------
# The server's speech, for the fake provider.


def _spoken_call(call: ToolCall, arguments: Value) -> dict[str, Value]:
    block: dict[str, Value] = {"type": "tool_use", "id": call.id, "name": call.name, "input": arguments}
    if call.caller is not None:
        block["caller"] = call.caller
    return block


def _speak_body(text: str, calls: Sequence[ToolCall], model: str) -> Value:
    blocks: list[Value] = [{"type": "text", "text": text}] if text else []
    blocks += [_spoken_call(c, _speech.arguments(c.arguments_json)) for c in calls]
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
        for word in _speech.words(text):
            emit("content_block_delta", index=index, delta={"type": "text_delta", "text": word})
        emit("content_block_stop", index=index)
        index += 1
    for call in calls:
        emit("content_block_start", index=index, content_block=_spoken_call(call, {}))
        for part in _speech.pieces(call.arguments_json, piece):
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


_SPEECH = Speech(
    route=re.compile(re.escape(_PATH)), body=_speak_body, events=_speak_events, error=_speak_error
)

#: The API's origin, its key header and variables, and the API version every request names.
_HTTP = Http(
    base_url="https://api.anthropic.com",
    key_header="x-api-key",
    key_prefix="",
    key_env=("ANTHROPIC_API_KEY",),
    headers=(("anthropic-version", "2023-06-01"),),
)

#: Anthropic's tool-name rule: "Must match the regex ^[a-zA-Z0-9_-]{1,64}$" (the tool-use guide's table of
#: tool parameters, docs.anthropic.com/en/docs/build-with-claude/tool-use; the SDK's types state none).
_NAME_RULE = re.compile(r"[a-zA-Z0-9_-]{1,64}")

#: What the Messages API refuses in a request's tools. It documents no tool count.
_LIMITS = ToolLimits(
    # The API's own answer: "tools.N.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf
    # at the top level" (400 invalid_request_error, in strict and non-strict mode alike;
    # anthropics/claude-code#5319, #5973). The tool-use guide does not state it (marianfoo/mcp-sap-docs#51).
    # Both profiles rewrite or drop them (``Profile.root_combinators``), so only a wire with another profile
    # can meet it.
    root_combinators=frozenset({"anyOf", "oneOf", "allOf"}),
)

WIRE = Wire(
    provider=_PROVIDER,
    loose=_LOOSE,
    strict=_STRICT,
    encode=_encode,
    path=_path,
    decoder=_AnthropicDecoder,
    decode_error=_decode_error,
    over_budget=_over_budget,
    speech=_SPEECH,
    default_max_tokens=_DEFAULT_MAX_TOKENS,
    http=_HTTP,
    name_rule=_NAME_RULE,
    limits=_LIMITS,
)

# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
PROVIDER = _PROVIDER
DEFAULT_MAX_TOKENS = _DEFAULT_MAX_TOKENS
LOOSE = _LOOSE
STRICT = _STRICT
SPEECH = _SPEECH
HTTP = _HTTP
AnthropicDecoder = _AnthropicDecoder
encode = _encode
decode_error = _decode_error
over_budget = _over_budget
path = _path
decode_body = WIRE.decode_body
