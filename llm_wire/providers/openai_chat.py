"""
OpenAI Chat Completions (``POST /v1/chat/completions``): schema projection, request encoding, response
decoding, and the server's speech for the fake provider.

Tools are ``{"type": "function", "function": {"name", "description", "parameters", "strict"?}}``; the schema
rules are OpenAI's, shared with the Responses API (``_openai``). An assistant turn with calls is one
``assistant`` message with ``tool_calls`` (``arguments`` is the model's text, byte for byte) and each result
one ``tool`` message, in call order. Chat Completions has no replay data: ``provider_data`` is not sent.

Responses: only the first choice (``index`` 0) is read. Streamed calls are keyed by their ``index``; the
first chunk of a call carries its id and name, later chunks append argument text exactly as sent. Chat has no
per-call completion signal: calls complete with the choice's ``finish_reason``, so a response cut for length
leaves every call incomplete. A stream ends with ``data: [DONE]``; a usage chunk may come between the two.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from llm_wire.message import AssistantTurn, Provider, SystemMessage, ToolCall, ToolResult, UserMessage
from llm_wire.providers import (
    AllowedTools,
    EncodeError,
    Http,
    Outgoing,
    Speech,
    ToolChoice,
    ToolLimits,
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
from llm_wire.result import Ok, Result
from llm_wire.value import Value, render

__all__ = ["WIRE"]

_PROVIDER = Provider.OPENAI_CHAT
_PATH = "/v1/chat/completions"


def _path(model: str, stream: bool) -> str:
    """The endpoint path (the model goes in the body)."""
    return _PATH


def _encode(out: Outgoing) -> Result[Value, EncodeError]:
    """The request body for ``out``; every setting has a Chat Completions field, so it never fails."""
    messages: list[Value] = []
    for index, message in enumerate(out.messages):
        match message:
            case SystemMessage(text=text):
                messages.append({"role": "system", "content": text})
            case UserMessage(text=text):
                messages.append({"role": "user", "content": text})
            case AssistantTurn(text=text, calls=calls):
                entry: dict[str, Value] = {
                    "role": "assistant",
                    "content": text if text or not calls else None,
                }
                if calls:
                    entry["tool_calls"] = [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments_json},
                        }
                        for call in calls
                    ]
                messages.append(entry)
            case ToolResult(call_id=call_id, content=content):
                messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
            case _:
                _replay.not_a("Message", f"messages[{index}]", message)
    body: dict[str, Value] = {"model": out.model, "messages": messages}
    if out.tools:
        tools: list[Value] = []
        for tool in out.tools:
            function: dict[str, Value] = {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.projection.wire_schema,
            }
            if tool.strict:
                function["strict"] = True
            tools.append({"type": "function", "function": function})
        body["tools"] = tools
    match out.choice:
        case ToolChoice() as choice:
            body["tool_choice"] = choice.value
        case UseTool(name=name):
            body["tool_choice"] = {"type": "function", "function": {"name": name}}
        case AllowedTools(names=names, mode=mode):
            allowed: list[Value] = [{"type": "function", "function": {"name": name}} for name in names]
            body["tool_choice"] = {
                "type": "allowed_tools",
                "allowed_tools": {"mode": mode.value, "tools": allowed},
            }
        case None:
            pass
        case _:
            _replay.not_a("ToolChoice, UseTool or AllowedTools", "choice", out.choice)
    if out.parallel is not None:
        body["parallel_tool_calls"] = out.parallel
    if out.output is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": out.output.name,
                "schema": out.output.projection.wire_schema,
                "strict": out.output.strict,
            },
        }
    if out.max_tokens is not None:
        body["max_completion_tokens"] = out.max_tokens
    if out.temperature is not None:
        body["temperature"] = out.temperature
    if out.top_p is not None:
        body["top_p"] = out.top_p
    if out.stop:
        body["stop"] = list(out.stop)
    if out.stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return Ok(body)


# ---------------------------------------------------------------------------------------------------------
# The response side.

_FINISH = {
    "stop": FinishReason.STOP,
    "tool_calls": FinishReason.TOOL_CALLS,
    "function_call": FinishReason.TOOL_CALLS,
    "length": FinishReason.LENGTH,
    "content_filter": FinishReason.CONTENT_FILTER,
}


class _ChatDecoder(_reduce.Reducer):
    """Decodes one Chat Completions stream (or, through ``decode_body``, one body)."""

    provider = Provider.OPENAI_CHAT

    def __init__(
        self, limits: ResponseLimits = _DEFAULT_LIMITS, *, taken_ids: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(limits, taken_ids=taken_ids)
        self._finish: str | None = None
        self._done = False

    def _parse(self, data: str) -> Value:
        return "[DONE]" if data.strip() == "[DONE]" else super()._parse(data)

    def _event(self, name: str | None, data: Value) -> None:
        if self._done:
            _reduce.protocol("an event arrived after [DONE]")
        if data == "[DONE]":
            if self._finish is None:
                _reduce.protocol("[DONE] arrived before a finish reason")
            self._done = True
            return
        error = _reduce.member(data, "error")
        if error is not None:
            raise _reduce.Fail(_openai.openai_error(error, None, None))
        if not isinstance(data, dict):
            _reduce.protocol("a chunk is not an object")
        self._chunk(data, "delta")

    def _body(self, body: Value) -> None:
        if not isinstance(body, dict):
            _reduce.protocol("the body is not an object")
        if isinstance(body.get("error"), dict) and "choices" not in body:
            raise _reduce.Fail(_openai.openai_error(body["error"], None, None))
        self._chunk(body, "message")
        if self._finish is None:
            _reduce.protocol("the first choice has no finish reason")

    def _chunk(self, chunk: dict[str, Value], key: str) -> None:
        self._b.response_id = _reduce.string(chunk, "id", "a completion id") or self._b.response_id
        usage = _reduce.obj(chunk, "usage", "usage")
        if usage is not None:
            prompt = _reduce.integer(usage, "prompt_tokens")
            self._b.usage = Usage(
                prompt,
                _reduce.integer(usage, "completion_tokens"),
                _reduce.integer(usage, "total_tokens"),
                usage,
            )
        for choice in _reduce.array(chunk, "choices", "choices"):
            if not isinstance(choice, dict):
                _reduce.protocol("a choice is not an object")
            if _reduce.index_member(choice, "index", "a choice index") not in (0, None):
                continue
            delta = _reduce.obj(choice, key, key)
            if self._finish is not None:
                if any(_reduce.member(delta, field) for field in ("content", "refusal", "tool_calls")):
                    _reduce.protocol("the first choice continued after its finish reason")
                continue
            self._delta(delta, streamed=key == "delta")
            self._finish = _reduce.string(choice, "finish_reason", "a finish reason")
            if self._finish is not None:
                self._end()
                for call in self._b.calls.values():
                    call.done = self._finish != "length"

    def _delta(self, delta: dict[str, Value] | None, *, streamed: bool) -> None:
        content = _reduce.member(delta, "content")
        if isinstance(content, list):  # OpenAI-compatible servers may send content parts
            for part in content:
                self._b.text(_reduce.string(part, "text", "text") or "")
        elif content is not None:
            self._b.text(_reduce.string(delta, "content", "content") or "")
        self._b.text(_reduce.string(delta, "refusal", "a refusal") or "", refusal=True)
        for position, raw in enumerate(_reduce.array(delta, "tool_calls", "tool calls")):
            key = _reduce.index_member(raw, "index", "a tool call index") if streamed else position
            if key is None:
                _reduce.protocol("a streamed tool call has no index")
            function = _reduce.obj(raw, "function", "a function")
            call_id = _reduce.string(raw, "id", "a call id")
            name = _reduce.string(function, "name", "a function name")
            known = self._b.calls.get(key)
            if known is None:
                if _reduce.string(raw, "type", "a call type") not in (None, "function"):
                    _reduce.protocol("only function tool calls are supported")
                self._b.block()
                known = self._b.open_call(key, call_id, name)
            elif call_id not in (None, "", known.id) or name not in (None, "", known.name):
                _reduce.protocol("a streamed tool call changed its id or name")
            self._b.append(known, _reduce.string(function, "arguments", "arguments") or "")

    def _complete(self) -> Terminal:
        finish = _FINISH.get(self._finish or "")
        if finish is None:
            raise _reduce.Fail(
                _http_errors.provider_error(None, None, ErrorKind.RESPONSE_FAILED, self._finish, None)
            )
        return self._b.terminal(finish, self._finish)


# ---------------------------------------------------------------------------------------------------------
# The server's speech, for the fake provider.


def _speak_body(text: str, calls: Sequence[ToolCall], model: str) -> Value:
    message: dict[str, Value] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
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


def _speak_events(
    text: str, calls: Sequence[ToolCall], piece: int, model: str
) -> list[tuple[str | None, str]]:
    def chunk(delta: Value, finish: Value = None) -> tuple[str | None, str]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return None, render(
            {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model, "choices": [choice]}
        )

    events: list[tuple[str | None, str]] = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": word}) for word in _speech.words(text)]
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
            for part in _speech.pieces(call.arguments_json, piece)
        ]
    events.append(chunk({}, "tool_calls" if calls else "stop"))
    usage: Value = {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}
    done: Value = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [], "usage": usage}
    events.append((None, render(done)))
    events.append((None, "[DONE]"))
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

#: What Chat Completions refuses in a request's tools.
_LIMITS = ToolLimits(
    # "A max of 128 functions are supported." (openai-python
    # ``src/openai/types/chat/completion_create_params.py``, ``tools``, through v1.99.1; the API reference,
    # platform.openai.com/docs/api-reference/chat/create). The API answers a longer list with 400
    # ``array_above_max_length``: "Invalid 'tools': array too long. Expected an array with maximum length
    # 128".
    tools=128,
)

WIRE = Wire(
    provider=_PROVIDER,
    loose=_openai.LOOSE,
    strict=_openai.STRICT,
    encode=_encode,
    path=_path,
    decoder=_ChatDecoder,
    decode_error=_openai.decode_error,
    speech=_SPEECH,
    loose_output=True,
    http=_HTTP,
    name_rule=_NAME_RULE,
    limits=_LIMITS,
)

# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
PROVIDER = _PROVIDER
LOOSE = WIRE.loose
STRICT = WIRE.strict
SPEECH = _SPEECH
HTTP = _HTTP
ChatDecoder = _ChatDecoder
encode = _encode
decode_error = WIRE.decode_error
path = _path
decode_body = WIRE.decode_body
