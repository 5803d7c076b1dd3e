"""
Google Gemini GenerateContent: schema projection and request encoding.

Tools are ``functionDeclarations`` with the schema in ``parametersJsonSchema`` (plain JSON Schema, the
default) or, where asked, in the legacy ``parameters`` (a subset of OpenAPI 3.0: uppercase types,
``nullable``, string enums, no ``$ref``). "Strict" on Gemini is the ``VALIDATED`` calling mode with the
schema subset it enforces. System messages go to ``systemInstruction``. An assistant (``model``) turn
replays its parts from ``provider_data`` in order; each call is a ``functionCall`` part with ``args`` as
an object, and its ``thoughtSignature`` from ``ToolCall.provider_state`` (a string, or an object whose
members join the part). The results of one turn go together in one ``user`` content of
``functionResponse`` parts whose ``response`` is ``{"result": text}`` or, for an error, ``{"error": text}``.
"""

from __future__ import annotations

from llm_wire.message import AssistantTurn, Provider, SystemMessage, ToolCall, ToolResult, UserMessage
from llm_wire.providers import (
    EncodeError,
    InvalidReplay,
    Kind,
    Outgoing,
    ToolChoice,
    UnsupportedSetting,
    UseTool,
    arguments_object,
    replay,
    system_texts,
)
from llm_wire.providers.projection import (
    Profile,
    Projection,
    ProjectionError,
    Refs,
    Values,
)
from llm_wire.providers.projection import (
    project as _project,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import Schema
from llm_wire.value import Value

__all__ = [
    "JSON",
    "KIND",
    "OPENAPI",
    "PROVIDER",
    "VALIDATED",
    "encode",
    "function_call",
    "path",
    "project",
]

PROVIDER = Provider.GOOGLE

#: ``parametersJsonSchema``: nearly all of JSON Schema; a ``$ref`` node may carry only description/default.
JSON = Profile(name="google", ref_siblings=frozenset({"description", "default"}))

#: ``parametersJsonSchema`` under the ``VALIDATED`` mode: the subset Gemini enforces.
VALIDATED = Profile(
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
OPENAPI = Profile(
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


def project(schema: Schema, strict: bool, *, openapi: bool = False) -> Result[Projection, ProjectionError]:
    """
    ``schema`` for a Gemini function declaration: ``parametersJsonSchema`` (the ``VALIDATED`` subset when
    ``strict``), or the legacy OpenAPI ``parameters`` when ``openapi``.
    """
    return _project(schema, OPENAPI if openapi else VALIDATED if strict else JSON)


def path(model: str, stream: bool) -> str:
    """The endpoint path: the model is part of it, and streaming is another method."""
    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    return f"/v1beta/models/{model}:{method}"


def wire_id(call: ToolCall) -> str:
    """The id sent back for a call: the provider's own when it gave one, else the call's id."""
    return call.provider_id if call.provider_id is not None else call.id


def function_call(call: ToolCall) -> dict[str, Value]:
    """A ``functionCall`` part with the call's thought signature."""
    part: dict[str, Value] = {
        "functionCall": {
            "id": wire_id(call),
            "name": call.name,
            "args": arguments_object(call.arguments_json),
        }
    }
    state = call.provider_state
    if isinstance(state, str):
        part["thoughtSignature"] = state
    elif isinstance(state, dict):
        part.update({k: v for k, v in state.items() if k != "functionCall"})
    return part


def _call_name(part: dict[str, Value]) -> object:
    call = part.get("functionCall")
    return call.get("name") if isinstance(call, dict) else None


KIND = Kind(
    is_call=lambda part: "functionCall" in part,
    is_text=lambda part: "text" in part and not part.get("thought"),
    matches=lambda part, call: _call_name(part) == call.name,
    text=lambda text: {"text": text},
)


def encode(out: Outgoing) -> Result[Value, EncodeError]:
    """The request body for ``out``; ``Err`` for a setting or replay data Gemini cannot take."""
    if out.parallel is False:
        return Err(UnsupportedSetting("parallel_tool_calls", PROVIDER, "Gemini has no switch for it"))
    contents: list[Value] = []
    results: list[Value] = []
    ids: dict[str, str] = {}
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
                ids.update((call.id, wire_id(call)) for call in turn.calls)
                match replay(turn, PROVIDER, KIND, function_call):
                    case Err(reason):
                        return Err(InvalidReplay(index, reason))
                    case Ok(None):
                        parts: list[Value] = [{"text": turn.text}] if turn.text else []
                        parts.extend(function_call(call) for call in turn.calls)
                    case Ok(replayed):
                        parts = list(replayed or ())
                if parts:
                    contents.append({"role": "model", "parts": parts})
            case ToolResult() as result:
                results.append(_function_response(result, ids))
    if results:
        contents.append({"role": "user", "parts": results})
    body: dict[str, Value] = {"contents": contents}
    system = system_texts(out.messages)
    if system:
        body["systemInstruction"] = {"parts": [{"text": text} for text in system]}
    if out.tools:
        declarations: list[Value] = []
        for tool in out.tools:
            key = "parameters" if tool.projection.profile == OPENAPI.name else "parametersJsonSchema"
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


def _function_response(result: ToolResult, ids: dict[str, str]) -> dict[str, Value]:
    response: dict[str, Value] = {"error": result.content} if result.is_error else {"result": result.content}
    return {
        "functionResponse": {
            "id": ids.get(result.call_id, result.call_id),
            "name": result.name or "",
            "response": response,
        }
    }


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
