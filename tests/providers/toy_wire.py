"""
Toy Talk, an API of our own invention, as one wire module: a fifth provider written as the four are.

``POST /toy/talk`` takes ``{"model", "lines", "tools"?, "pick"?, "max"?, "warmth"?, "stream"?}``. A line is
``{"from": "boss", "text"}`` (system), ``{"from": "you", "text"}``, ``{"from": "bot", "text", "calls"}``
(each call ``{"id", "tool", "args"}``, ``args`` the model's argument text) or ``{"from": "tool", "id",
"text", "failed"}``. A tool is ``{"tool", "about", "input"}`` (``input`` its JSON Schema, ``"exact": true``
when strict); ``pick`` is ``"free"``, ``"never"``, ``"some"`` or ``{"tool": name}``. Toy Talk has no stop
sequences, no switch for parallel calls and no structured output: ``encode`` refuses them.

A body answers ``{"id", "text", "calls": [{"id", "tool", "args"}], "end": "done" | "calls" | "cut"}``; a
stream sends one JSON object per SSE event: ``{"text"}``, ``{"call": {"id", "tool"}}``, ``{"args"}`` (for the
call opened last), then ``{"end"}``. An error is ``{"trouble": {"kind", "why"}}``.

The module ends in ``WIRE``, like the package's wire modules, and leans on the same private helpers they do
(the reducer, the error reader); nothing outside it knows Toy Talk. A test registers it with one line,
``WIRES.with_wire(toy_wire.WIRE)``: a new registry value, so the package's ``WIRES`` never changes.
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
    UnsupportedSetting,
    UseTool,
    Wire,
)
from llm_wire.providers._http_errors import lenient, provider_error
from llm_wire.providers._reduce import Fail, Reducer, array, obj, protocol, string
from llm_wire.providers.projection import Profile
from llm_wire.providers.response import (
    _DEFAULT_LIMITS,
    ErrorKind,
    FinishReason,
    ProviderError,
    ResponseLimits,
    Terminal,
    _Headers,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value, render

PROVIDER = Provider("toy-talk")
PATH = "/toy/talk"

#: Non-strict tools take any JSON Schema; strict ones a closed, typed subset.
LOOSE = Profile(name="toy")
STRICT = Profile(
    name="toy-exact",
    keep=frozenset(
        {"type", "properties", "required", "additionalProperties", "items", "enum", "description"}
    ),
    close_objects=True,
    typed=True,
)


def path(model: str, stream: bool) -> str:
    """One endpoint; the model goes in the body."""
    return PATH


def _said(calls: Sequence[ToolCall]) -> list[Value]:
    return [{"id": c.id, "tool": c.name, "args": c.arguments_json} for c in calls]


def encode(out: Outgoing) -> Result[Value, EncodeError]:
    """The Toy Talk body for ``out``; ``Err`` for a setting Toy Talk has no word for."""
    for setting, given in (("stop", out.stop), ("parallel_tool_calls", out.parallel is not None)):
        if given:
            return Err(UnsupportedSetting(setting, PROVIDER, "Toy Talk has no such setting"))
    if out.output is not None:
        return Err(UnsupportedSetting("output", PROVIDER, "Toy Talk has no structured output"))
    lines: list[Value] = []
    for message in out.messages:
        match message:
            case SystemMessage(text=text):
                lines.append({"from": "boss", "text": text})
            case UserMessage(text=text):
                lines.append({"from": "you", "text": text})
            case AssistantTurn(text=text, calls=calls):
                lines.append({"from": "bot", "text": text, "calls": _said(calls)})
            case ToolResult(call_id=call_id, content=content, is_error=failed):
                lines.append({"from": "tool", "id": call_id, "text": content, "failed": failed})
    body: dict[str, Value] = {"model": out.model, "lines": lines}
    if out.tools:
        tools: list[Value] = []
        for tool in out.tools:
            entry: dict[str, Value] = {"tool": tool.name, "about": tool.description}
            entry["input"] = tool.projection.wire_schema
            if tool.strict:
                entry["exact"] = True
            tools.append(entry)
        body["tools"] = tools
    match out.choice:
        case ToolChoice.AUTO:
            body["pick"] = "free"
        case ToolChoice.NONE:
            body["pick"] = "never"
        case ToolChoice.REQUIRED:
            body["pick"] = "some"
        case UseTool(name=name):
            body["pick"] = {"tool": name}
        case AllowedTools():  # a choice the API cannot say is refused, never dropped from the body
            return Err(
                UnsupportedSetting("tool_choice", PROVIDER, "Toy Talk cannot restrict the tools offered")
            )
    if out.max_tokens is not None:
        body["max"] = out.max_tokens
    if out.temperature is not None:
        body["warmth"] = out.temperature
    if out.stream:
        body["stream"] = True
    return Ok(body)


_ENDS = {"done": FinishReason.STOP, "calls": FinishReason.TOOL_CALLS, "cut": FinishReason.LENGTH}


class ToyDecoder(Reducer):
    """Decodes one Toy Talk stream (or, through ``decode_body``, one body)."""

    provider = PROVIDER

    def __init__(
        self, limits: ResponseLimits = _DEFAULT_LIMITS, *, taken_ids: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(limits, taken_ids=taken_ids)
        self._end_word: str | None = None
        self._last: object = None

    def _event(self, name: str | None, data: Value) -> None:
        self._not_ended()
        if not isinstance(data, dict):
            protocol("an event is not an object")
        if "trouble" in data:
            raise Fail(_trouble(data["trouble"], None, None))
        text = string(data, "text", "text")
        if text is not None:
            self._b.text(text)
        call = obj(data, "call", "a call")
        if call is not None:
            self._b.block()
            self._last = len(self._b.calls)
            self._b.open_call(
                self._last, string(call, "id", "a call id"), string(call, "tool", "a tool name")
            )
        args = string(data, "args", "argument text")
        if args is not None:
            if self._last is None:
                protocol("argument text arrived before any call")
            self._b.append(self._b.calls[self._last], args)
        self._finish_on(string(data, "end", "an end"))

    def _body(self, body: Value) -> None:
        if not isinstance(body, dict):
            protocol("the body is not an object")
        if "trouble" in body:
            raise Fail(_trouble(body["trouble"], None, None))
        self._b.response_id = string(body, "id", "a response id")
        self._b.text(string(body, "text", "text") or "")
        for n, raw in enumerate(array(body, "calls", "calls")):
            self._b.block()
            call = self._b.open_call(n, string(raw, "id", "a call id"), string(raw, "tool", "a tool name"))
            self._b.append(call, string(raw, "args", "argument text") or "")
        self._finish_on(string(body, "end", "an end"))
        if self._end_word is None:
            protocol("the body has no end")

    def _finish_on(self, end: str | None) -> None:
        if end is None:
            return
        self._end_word = end
        for call in self._b.calls.values():
            call.done = end != "cut"
        self._end()

    def _complete(self) -> Terminal:
        finish = _ENDS.get(self._end_word or "")
        if finish is None:
            raise Fail(provider_error(None, None, ErrorKind.RESPONSE_FAILED, self._end_word, None))
        return self._b.terminal(finish, self._end_word)


_KINDS = {"busy": ErrorKind.RATE_LIMITED, "bad": ErrorKind.INVALID_REQUEST, "broken": ErrorKind.SERVER}


def _trouble(trouble: Value, status: int | None, headers: _Headers | None) -> ProviderError:
    kind = trouble.get("kind") if isinstance(trouble, dict) else None
    why = trouble.get("why") if isinstance(trouble, dict) else None
    code = kind if isinstance(kind, str) else None
    return provider_error(
        status, headers, _KINDS.get(code or ""), code, why if isinstance(why, str) else None
    )


def decode_error(status: int, body: bytes | str | Value, headers: _Headers | None = None) -> ProviderError:
    """An HTTP error response as a ``ProviderError`` with retry advice."""
    parsed = lenient(body, _DEFAULT_LIMITS.response_body_bytes)
    return _trouble(parsed.get("trouble") if isinstance(parsed, dict) else None, status, headers)


# The server's speech, for the fake provider.


def _speak_body(text: str, calls: Sequence[ToolCall], model: str) -> Value:
    return {"id": "talk-1", "text": text, "calls": _said(calls), "end": "calls" if calls else "done"}


def _speak_events(
    text: str, calls: Sequence[ToolCall], piece: int, model: str
) -> list[tuple[str | None, str]]:
    events: list[Value] = [{"text": text[i : i + piece]} for i in range(0, len(text), piece)]
    for call in calls:
        events.append({"call": {"id": call.id, "tool": call.name}})
        args = call.arguments_json
        events += [{"args": args[i : i + piece]} for i in range(0, len(args), piece)]
    events.append({"end": "calls" if calls else "done"})
    return [(None, render(event)) for event in events]


def _speak_error(status: int, message: str) -> Value:
    return {"trouble": {"kind": "busy" if status == 429 else "broken", "why": message}}


WIRE = Wire(
    provider=PROVIDER,
    loose=LOOSE,
    strict=STRICT,
    encode=encode,
    path=path,
    decoder=ToyDecoder,
    decode_error=decode_error,
    speech=Speech(
        route=re.compile(re.escape(PATH)), body=_speak_body, events=_speak_events, error=_speak_error
    ),
    http=Http(base_url="https://toy.invalid", key_header="x-toy-key", key_env=("TOY_TALK_KEY",)),
    name_rule=re.compile(r"[a-z][a-z0-9_]{0,31}"),
    aliases=("toy",),
)
