"""
Google Gemini GenerateContent (``POST /v1beta/models/{model}:generateContent``): schema projection, request
encoding, response decoding, and the server's speech for the fake provider.

Tools are ``functionDeclarations`` with the schema in ``parametersJsonSchema`` (plain JSON Schema, the
default) or, where asked, in the legacy ``parameters`` (a subset of OpenAPI 3.0: uppercase types,
``nullable``, string enums, no ``$ref``). "Strict" on Gemini is the ``VALIDATED`` calling mode with the
schema subset it enforces. System messages go to ``systemInstruction``. An assistant (``model``) turn
replays its parts from ``provider_data`` in order; each call is a ``functionCall`` part with ``args`` as
an object, and its ``thoughtSignature`` from ``ToolCall.provider_state`` (a string, or an object whose
members join the part). The results of one turn go together in one ``user`` content of
``functionResponse`` parts whose ``response`` is ``{"result": text}`` or, for an error, ``{"error": text}``.

Responses: only the first candidate is read. Gemini sends call arguments as objects, so their text is the
object rendered exactly (member order and numbers as sent). Gemini 3 may stream one call over several
chunks: a ``functionCall`` with a name and ``willContinue``, then ``partialArgs`` (a JSON path and a value
each; a string may continue over several), ended by a chunk without ``willContinue`` or an empty
``functionCall``. A call without an ``id`` gets ``llm_wire_call_<n>`` (no other call of the response or of
the request's history has it) and no ``provider_id``; encoding the history sends such an id neither on the
call nor on its ``functionResponse`` (Gemini pairs them by name and order). A ``thoughtSignature`` on a
call's part becomes its ``provider_state``.
Signatures, thoughts and hosted tool parts make the ``parts`` the turn's replay data.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from decimal import Decimal

from attrs import evolve

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
from llm_wire.providers.projection import Profile, Refs, Values
from llm_wire.providers.response import (
    _DEFAULT_LIMITS,
    ErrorKind,
    FinishReason,
    ProviderError,
    ResponseLimits,
    RetryAdvice,
    Terminal,
    Usage,
    _Headers,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value, render

__all__ = ["WIRE", "GoogleSchema"]

_PROVIDER = Provider.GOOGLE
#: Gemini's rule for a function name: "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or
#: contain underscores, dots, colons and dashes, with a maximum length of 128." (google-genai
#: ``google/genai/types.py``, ``FunctionDeclaration.name``, since commit 29103464 of 2026-05; 64 before.)
_NAME_RULE = re.compile(r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}")
#: The prefix of the ids the decoder gives calls that came without one (``llm_wire_call_0``...).
_GENERATED_PREFIX = "llm_wire_call_"

#: ``parametersJsonSchema``: nearly all of JSON Schema; a ``$ref`` node may carry only description/default.
_JSON = Profile(name="google", ref_siblings=frozenset({"description", "default"}))

#: ``parametersJsonSchema`` under the ``VALIDATED`` mode: the subset Gemini enforces.
_VALIDATED = Profile(
    name="google-validated",
    keep=frozenset(
        {
            "type",
            "title",
            "description",
            "enum",
            "format",
            "minimum",
            "maximum",
            "items",
            "prefixItems",
            "minItems",
            "maxItems",
            "properties",
            "required",
            "propertyOrdering",
            "additionalProperties",
            "anyOf",
            "$ref",
            "nullable",
        }
    ),
    ref_siblings=frozenset({"description", "default"}),
    one_of=False,
    all_of=False,
)

#: Legacy ``parameters``: the OpenAPI 3.0 subset of Gemini's ``Schema`` (python_ecosystem.md §3.3).
_OPENAPI = Profile(
    name="google-openapi",
    keep=frozenset(
        {
            "type",
            "format",
            "description",
            "nullable",
            "enum",
            "items",
            "minItems",
            "maxItems",
            "properties",
            "required",
            "minProperties",
            "maxProperties",
            "minLength",
            "maxLength",
            "pattern",
            "anyOf",
            "propertyOrdering",
            "minimum",
            "maximum",
        }
    ),
    refs=Refs.INLINE,
    recursion=False,
    one_of=False,
    all_of=False,
    formats=frozenset({"enum", "date-time", "float", "double", "int32", "int64"}),
    typed=True,
    array_items=True,
    root_combinators=False,
    enum_values=Values.STRING,
    openapi=True,
)


class GoogleSchema(enum.Enum):
    """
    Where a function declaration carries its schema: ``Config.with_google_schema`` chooses (``OPENAPI`` is the
    wire's legacy dialect, ``Config.with_legacy_schema(True)``).
    """

    JSON_SCHEMA = "parametersJsonSchema"
    OPENAPI = "parameters"


def _endpoint(model: str, stream: bool) -> str:
    """The endpoint path: the model is part of it, and streaming is another method."""
    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    return f"/v1beta/models/{model}:{method}"


def _wire_id(call: ToolCall) -> str | None:
    """
    The id sent back for a call: the provider's own when it gave one, none for an id the decoder made up
    (Gemini matches those calls and their responses by name and order), else the call's id.
    """
    if call.provider_id is not None:
        return call.provider_id
    return None if call.id.startswith(_GENERATED_PREFIX) else call.id


def _function_call(call: ToolCall) -> dict[str, Value]:
    """A ``functionCall`` part (with its id when Gemini gave it one) and the call's thought signature."""
    wire_id = _wire_id(call)
    function: dict[str, Value] = {} if wire_id is None else {"id": wire_id}
    function.update(name=call.name, args=_replay.arguments_object(call.arguments_json))
    part: dict[str, Value] = {"functionCall": function}
    state = call.provider_state
    if isinstance(state, str):
        part["thoughtSignature"] = state
    elif isinstance(state, dict):
        part.update({k: v for k, v in state.items() if k != "functionCall"})
    return part


def _call_name(part: dict[str, Value]) -> object:
    call = part.get("functionCall")
    return call.get("name") if isinstance(call, dict) else None


_KIND = _replay.Kind(
    is_call=lambda part: "functionCall" in part,
    is_text=lambda part: "text" in part and not part.get("thought"),
    matches=lambda part, call: _call_name(part) == call.name,
    text=lambda text: {"text": text},
)


def _encode(out: Outgoing) -> Result[Value, EncodeError]:
    """The request body for ``out``; ``Err`` for a setting or replay data Gemini cannot take."""
    if out.parallel is False:
        return Err(UnsupportedSetting("parallel_tool_calls", _PROVIDER, "Gemini has no switch for it"))
    contents: list[Value] = []
    results: list[Value] = []
    ids: dict[str, str | None] = {}
    for index, message in enumerate(out.messages):
        if not isinstance(message, ToolResult) and results:
            contents.append({"role": "user", "parts": results})
            results = []
        match message:
            case SystemMessage():
                pass
            case UserMessage(text=text):
                contents.append({"role": "user", "parts": [{"text": text}]})
            case AssistantTurn() as turn:
                ids.update((call.id, _wire_id(call)) for call in turn.calls)
                match _replay.replay(turn, _PROVIDER, _KIND, _function_call):
                    case Err(reason):
                        return Err(InvalidReplay(index, reason))
                    case Ok(None):
                        parts: list[Value] = [{"text": turn.text}] if turn.text else []
                        parts.extend(_function_call(call) for call in turn.calls)
                    case Ok(replayed):
                        parts = list(replayed or ())
                if parts:
                    contents.append({"role": "model", "parts": parts})
            case ToolResult() as result:
                results.append(_function_response(result, ids))
            case _:
                _replay.not_a("Message", f"messages[{index}]", message)
    if results:
        contents.append({"role": "user", "parts": results})
    body: dict[str, Value] = {"contents": contents}
    system = _replay.system_texts(out.messages)
    if system:
        body["systemInstruction"] = {"parts": [{"text": text} for text in system]}
    if out.tools:
        declarations: list[Value] = []
        for tool in out.tools:
            where = GoogleSchema.OPENAPI if tool.projection.profile.openapi else GoogleSchema.JSON_SCHEMA
            key = where.value
            declarations.append(
                {"name": tool.name, "description": tool.description, key: tool.projection.wire_schema}
            )
        body["tools"] = [{"functionDeclarations": declarations}]
    calling = _calling(out)
    if calling is not None:
        body["toolConfig"] = {"functionCallingConfig": calling}
    generation: dict[str, Value] = {}
    if out.max_tokens is not None:
        generation["maxOutputTokens"] = out.max_tokens
    if out.temperature is not None:
        generation["temperature"] = out.temperature
    if out.top_p is not None:
        generation["topP"] = out.top_p
    if out.stop:
        generation["stopSequences"] = list(out.stop)
    if out.output is not None:
        generation["responseMimeType"] = "application/json"
        generation["responseJsonSchema"] = out.output.projection.wire_schema
    if generation:
        body["generationConfig"] = generation
    return Ok(body)


def _function_response(result: ToolResult, ids: dict[str, str | None]) -> dict[str, Value]:
    response: dict[str, Value] = {"error": result.content} if result.is_error else {"result": result.content}
    wire_id = ids.get(result.call_id, result.call_id)
    function: dict[str, Value] = {} if wire_id is None else {"id": wire_id}
    function.update(name=result.name or "", response=response)
    return {"functionResponse": function}


def _calling(out: Outgoing) -> dict[str, Value] | None:
    validated = any(tool.strict for tool in out.tools)
    match out.choice:
        case None:
            return {"mode": "VALIDATED"} if validated else None
        case ToolChoice.AUTO:
            return {"mode": "VALIDATED" if validated else "AUTO"}
        case ToolChoice.NONE:
            return {"mode": "NONE"}
        case ToolChoice.REQUIRED:
            return {"mode": "ANY"}
        case UseTool(name=name):
            return {"mode": "ANY", "allowedFunctionNames": [name]}
        case AllowedTools(names=names, mode=mode):
            # ``allowedFunctionNames`` is read under ANY and VALIDATED only: VALIDATED lets the model answer.
            allowed: list[Value] = list(names)
            return {
                "mode": "ANY" if mode is ToolChoice.REQUIRED else "VALIDATED",
                "allowedFunctionNames": allowed,
            }
        case _:
            _replay.not_a("ToolChoice, UseTool or AllowedTools", "choice", out.choice)


# ---------------------------------------------------------------------------------------------------------
# The response side.

_KINDS = {
    "INVALID_ARGUMENT": ErrorKind.INVALID_REQUEST,
    "FAILED_PRECONDITION": ErrorKind.INVALID_REQUEST,
    "OUT_OF_RANGE": ErrorKind.INVALID_REQUEST,
    "UNAUTHENTICATED": ErrorKind.AUTHENTICATION,
    "PERMISSION_DENIED": ErrorKind.PERMISSION,
    "NOT_FOUND": ErrorKind.NOT_FOUND,
    "RESOURCE_EXHAUSTED": ErrorKind.RATE_LIMITED,
    "UNAVAILABLE": ErrorKind.OVERLOADED,
    "INTERNAL": ErrorKind.SERVER,
    "DEADLINE_EXCEEDED": ErrorKind.TIMEOUT,
}
_FILTERED = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "LANGUAGE",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
    }
)
_TEXT_PART = frozenset({"text", "thought", "thoughtSignature"})
_SEGMENT = re.compile(r"\.([^.\[\]'\"]+)|\[(\d{1,9})\]|\['((?:[^'\\]|\\.)*)'\]|\[\"((?:[^\"\\]|\\.)*)\"\]")
_ESCAPE = re.compile(r"\\(.)")


def _error(error: Value, status: int | None, headers: _Headers | None) -> ProviderError:
    code = _reduce.member(error, "status")
    message = _reduce.member(error, "message")
    code = code if isinstance(code, str) else None
    kind = _KINDS.get(code or "")
    delay = None
    details = _reduce.member(error, "details")
    for detail in details if isinstance(details, list) else []:
        retry_delay = _reduce.member(detail, "retryDelay")
        if isinstance(retry_delay, str):
            delay = _http_errors.seconds(retry_delay)
    text = message if isinstance(message, str) else None
    return _http_errors.provider_error(status, headers, kind, code, text, delay=delay)


def _decode_error(status: int, body: bytes | str | Value, headers: _Headers | None = None) -> ProviderError:
    """
    An HTTP error response as a ``ProviderError`` with retry advice; an unreadable body still gives one.
    """
    parsed = _http_errors.lenient(body, _DEFAULT_LIMITS.response_body_bytes)
    if isinstance(parsed, list) and len(parsed) == 1:  # streamed endpoints wrap the error in an array
        parsed = parsed[0]
    return _error(_reduce.member(parsed, "error"), status, headers)


def _path(text: str | None) -> tuple[str | int, ...]:
    if text is None or not text.startswith("$"):
        _reduce.protocol("a partial argument has no JSON path")
    segments: list[str | int] = []
    position = 1
    while position < len(text):
        match = _SEGMENT.match(text, position)
        if match is None or len(segments) >= 64:
            _reduce.protocol("a partial argument's JSON path is not supported")
        name, index, single, double = match.groups()
        quoted = single if single is not None else double
        segments.append(int(index) if index is not None else name or _ESCAPE.sub(r"\1", quoted or ""))
        position = match.end()
    if not segments:
        _reduce.protocol("a partial argument's JSON path names no member")
    return tuple(segments)


class _Streaming:
    """A call whose arguments arrive as ``partialArgs``."""

    __slots__ = ("args", "call", "continuing", "signature", "size", "source")

    def __init__(self, call: _reduce.Call, source: dict[str, Value], signature: str | None) -> None:
        self.call = call
        self.source = source
        self.signature = signature
        self.args: dict[str, Value] = {}
        self.continuing: tuple[str | int, ...] | None = None
        self.size = 0

    def put(self, path: tuple[str | int, ...], value: Value, *, extend: bool) -> None:
        node: Value = self.args
        for depth, segment in enumerate(path):
            last = depth == len(path) - 1
            fresh: Value = value if last else ({} if isinstance(path[depth + 1], str) else [])
            if isinstance(segment, str) and isinstance(node, dict):
                if segment not in node or last:
                    previous = node.get(segment)
                    node[segment] = f"{previous}{value}" if extend and isinstance(previous, str) else fresh
                node = node[segment]
            elif isinstance(segment, int) and isinstance(node, list) and segment <= len(node):
                if segment == len(node):
                    node.append(fresh)
                elif last:
                    previous = node[segment]
                    node[segment] = f"{previous}{value}" if extend and isinstance(previous, str) else fresh
                node = node[segment]
            else:
                _reduce.protocol("a partial argument's JSON path does not fit the arguments so far")


class _GoogleDecoder(_reduce.Reducer):
    """Decodes one GenerateContent stream (or, through ``decode_body``, one body)."""

    provider = Provider.GOOGLE

    def __init__(
        self, limits: ResponseLimits = _DEFAULT_LIMITS, *, taken_ids: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(limits, taken_ids=taken_ids)
        self._streaming: _Streaming | None = None
        self._finish: str | None = None
        self._calls = 0

    def _event(self, name: str | None, data: Value) -> None:
        # The JSON-array form of a stream holds chunks, one level deep.
        for chunk in data if isinstance(data, list) else [data]:
            if not isinstance(chunk, dict):
                _reduce.protocol("a chunk is not an object")
            self._chunk(chunk)

    def _chunk(self, data: dict[str, Value]) -> None:
        if _reduce.member(data, "error") is not None:
            raise _reduce.Fail(_error(data["error"], None, None))
        self._b.response_id = _reduce.string(data, "responseId", "a response id") or self._b.response_id
        usage = _reduce.obj(data, "usageMetadata", "usage")
        if usage is not None:
            prompt = _reduce.integer(usage, "promptTokenCount")
            output = _reduce.integer(usage, "candidatesTokenCount")
            self._b.usage = Usage(prompt, output, _reduce.integer(usage, "totalTokenCount"), usage)
        blocked = _reduce.string(
            _reduce.obj(data, "promptFeedback", "prompt feedback"), "blockReason", "a block reason"
        )
        candidates = _reduce.array(data, "candidates", "candidates")
        if blocked is not None and not candidates:
            self._finish = f"PROMPT_{blocked}"
            self._end()
        candidate = candidates[0] if candidates else None
        if candidate is not None and not isinstance(candidate, dict):
            _reduce.protocol("a candidate is not an object")
        parts = _reduce.array(_reduce.obj(candidate, "content", "content"), "parts", "parts")
        if self._finish is not None and parts:
            _reduce.protocol("content arrived after the finish reason")
        for part in parts:
            if not isinstance(part, dict):
                _reduce.protocol("a part is not an object")
            self._part(part)
        finish = _reduce.string(candidate, "finishReason", "a finish reason")
        if finish is not None and self._finish is None:
            self._finish = finish
            self._end()

    def _body(self, body: Value) -> None:
        self._event(None, body)

    def _part(self, part: dict[str, Value]) -> None:
        signature = _reduce.string(part, "thoughtSignature", "a thought signature")
        if "functionCall" in part:
            call = _reduce.obj(part, "functionCall", "a functionCall")
            if call is None:
                _reduce.protocol("a functionCall must be an object")
            self._function_call(part, call, signature)
            return
        thought = _reduce.flag(part, "thought")
        if signature is not None or thought or not set(part) <= _TEXT_PART:
            self._b.replay = True
        text = _reduce.string(part, "text", "text")
        if text is not None and not thought:
            self._b.text(text)
        self._keep(part)

    def _function_call(self, part: dict[str, Value], call: dict[str, Value], signature: str | None) -> None:
        name = _reduce.string(call, "name", "a function name")
        partial = _reduce.array(call, "partialArgs", "partial arguments")
        going = _reduce.flag(call, "willContinue")
        streaming = self._streaming
        if streaming is None:
            if not name:
                _reduce.protocol("function call arguments arrived with no call open")
            self._b.block()
            self._calls += 1
            given = _reduce.string(call, "id", "a call id")
            call_id = given or self._generated()
            opened = self._b.open_call(
                len(self._b.calls), call_id, name, provider_id=given or None, state=signature
            )
            if not going:
                args = call.get("args", {})
                if not isinstance(args, dict):
                    _reduce.protocol("function call args must be an object")
                self._close(opened, args, part)
                return
            streaming = self._streaming = _Streaming(opened, call, signature)
        elif name:
            _reduce.protocol("a function call started while another was still streaming")
        for piece in partial:
            self._partial(streaming, piece)
        if not going:
            whole = dict(streaming.source)
            whole.pop("willContinue", None)
            whole["args"] = streaming.args
            kept: dict[str, Value] = {"functionCall": whole}
            if streaming.signature is not None:
                kept["thoughtSignature"] = streaming.signature
            self._streaming = None
            self._close(streaming.call, streaming.args, kept)

    def _generated(self) -> str:
        """
        An id for a call the provider gave none: prefixed as no provider id is, used by no call so far in
        this response or in the request's history (so ids stay unique over a run, and stable on replay).
        """
        taken = self._taken_ids
        while (call_id := f"{_GENERATED_PREFIX}{self._calls - 1}") in self._b.ids or call_id in taken:
            self._calls += 1
        return call_id

    def _partial(self, streaming: _Streaming, piece: Value) -> None:
        if not isinstance(piece, dict):
            _reduce.protocol("a partial argument is not an object")
        path = _path(_reduce.string(piece, "jsonPath", "a JSON path"))
        if "stringValue" in piece:
            value: Value = _reduce.string(piece, "stringValue", "a string value")
        elif "numberValue" in piece:
            value = _reduce.member(piece, "numberValue")
            if isinstance(value, bool) or not isinstance(value, int | Decimal):
                _reduce.protocol("a partial argument's number is not a number")
        elif "boolValue" in piece:
            value = _reduce.member(piece, "boolValue")
            if not isinstance(value, bool):
                _reduce.protocol("a partial argument's boolean is not a boolean")
        elif "nullValue" in piece:
            value = None
        else:
            _reduce.protocol("a partial argument has no value")
        streaming.put(path, value, extend=streaming.continuing == path and isinstance(value, str))
        streaming.continuing = (
            path if isinstance(value, str) and _reduce.flag(piece, "willContinue") else None
        )
        streaming.size += len(_reduce.json_text(value, "a partial argument")) + len(path) * 2
        if streaming.size > self._limits.argument_bytes_per_call:
            raise _reduce.Fail(_reduce.over(self._limits, "argument_bytes_per_call", streaming.size))

    def _close(self, call: _reduce.Call, args: Value, part: dict[str, Value]) -> None:
        self._b.settle(call, _reduce.json_text(args, "function call arguments"))
        call.done = True
        if call.state is not None:
            self._b.replay = True
        self._keep(part)

    def _keep(self, part: dict[str, Value]) -> None:
        last = self._b.items[-1] if self._b.items else None
        mergeable = set(part) <= _TEXT_PART and "text" in part
        if (
            mergeable
            and isinstance(last, dict)
            and set(last) <= _TEXT_PART
            and isinstance(last.get("text"), str)
            and "thoughtSignature" not in last
            and last.get("thought") == part.get("thought")
        ):
            merged = dict(last)
            merged["text"] = f"{last['text']}{part['text']}"
            if "thoughtSignature" in part:
                merged["thoughtSignature"] = part["thoughtSignature"]
            self._b.items[-1] = merged
        elif not (mergeable and part.get("text") == "" and "thoughtSignature" not in part):
            self._b.items.append(part)

    def _complete(self) -> Terminal:
        reason = self._finish or ""
        if reason == "STOP":
            finish = FinishReason.STOP
        elif reason == "MAX_TOKENS":
            finish = FinishReason.LENGTH
        elif reason in _FILTERED or reason.startswith("PROMPT_"):
            finish = FinishReason.CONTENT_FILTER
        else:
            error = _http_errors.provider_error(None, None, ErrorKind.RESPONSE_FAILED, reason, None)
            if reason == "MALFORMED_FUNCTION_CALL":  # the model may well get it right next time
                error = evolve(error, retry=RetryAdvice(True))
            raise _reduce.Fail(error)
        if self._streaming is not None and finish is not FinishReason.LENGTH:
            _reduce.protocol("a function call was still streaming when the response finished")
        return self._b.terminal(finish, reason)


# ---------------------------------------------------------------------------------------------------------
# The server's speech, for the fake provider.


def _speak_parts(text: str, calls: Sequence[ToolCall]) -> list[Value]:
    parts: list[Value] = [{"text": text}] if text else []
    parts += [
        {"functionCall": {"id": c.id, "name": c.name, "args": _speech.arguments(c.arguments_json)}}
        for c in calls
    ]
    return parts


def _speak_chunk(parts: list[Value], finish: str | None, model: str) -> Value:
    candidate: dict[str, Value] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    usage: Value = {"promptTokenCount": 12, "candidatesTokenCount": 7, "totalTokenCount": 19}
    return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": model}


def _speak_body(text: str, calls: Sequence[ToolCall], model: str) -> Value:
    return _speak_chunk(_speak_parts(text, calls), "STOP", model)


def _speak_events(
    text: str, calls: Sequence[ToolCall], piece: int, model: str
) -> list[tuple[str | None, str]]:
    chunks: list[list[Value]] = [[{"text": word}] for word in _speech.words(text)]
    chunks += [[part] for part in _speak_parts("", calls)]
    chunks = chunks or [[]]
    return [
        (None, render(_speak_chunk(parts, "STOP" if n == len(chunks) - 1 else None, model)))
        for n, parts in enumerate(chunks)
    ]


#: The error ``status`` the fake provider sends for an HTTP status.
_SPOKEN = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 400: "INVALID_ARGUMENT"}


def _speak_error(status: int, message: str) -> Value:
    return {"error": {"code": status, "message": message, "status": _SPOKEN.get(status, "INTERNAL")}}


def _streams(path: str, body: Value) -> bool:
    return ":streamGenerateContent" in path


_SPEECH = Speech(
    route=re.compile(r"/v1beta/models/.*:(?:generateContent|streamGenerateContent)", re.DOTALL),
    body=_speak_body,
    events=_speak_events,
    error=_speak_error,
    streams=_streams,
)

#: The API's origin, its key header and variables.
_HTTP = Http(
    base_url="https://generativelanguage.googleapis.com",
    key_header="x-goog-api-key",
    key_prefix="",
    key_env=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    headers=(),
)

#: What GenerateContent refuses in a request's tools. Its nesting depth is unpublished ("A FunctionDeclaration
#: in the request exceeds the maximum allowed nesting depth.", google-gemini/gemini-cli#5923; third parties
#: say 4 or 5), so ``schema_depth`` stays unset rather than guessed.
_LIMITS = ToolLimits(
    # "Maximum 512 function declarations can be provided." (google-genai ``google/genai/types.py``,
    # ``Tool.function_declarations``, since 2025-12; older Vertex AI references said 64, then 128.)
    tools=512,
)

WIRE = Wire(
    provider=_PROVIDER,
    loose=_JSON,
    strict=_VALIDATED,
    legacy=_OPENAPI,
    encode=_encode,
    path=_endpoint,
    decoder=_GoogleDecoder,
    decode_error=_decode_error,
    speech=_SPEECH,
    http=_HTTP,
    limits=_LIMITS,
    name_rule=_NAME_RULE,
    aliases=("gemini",),
)

# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
PROVIDER = _PROVIDER
JSON = _JSON
VALIDATED = _VALIDATED
OPENAPI = _OPENAPI
SPEECH = _SPEECH
HTTP = _HTTP
GoogleDecoder = _GoogleDecoder
encode = _encode
decode_error = _decode_error
path = _endpoint
decode_body = WIRE.decode_body
