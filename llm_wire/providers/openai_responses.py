"""
OpenAI Responses: schema projection and request encoding (``POST /v1/responses``).

Tools are flat ``{"type": "function", "name", "description", "parameters", "strict"}`` items. The whole
history goes in ``input``: an assistant turn replays its output items (reasoning, messages) from
``provider_data`` in order, each call as a ``function_call`` item whose ``arguments`` is the model's text
byte for byte, and each result as a ``function_call_output``. A call's ``provider_id`` (the ``fc_`` item id)
is sent only with the replayed items it belongs with: without its reasoning item a reasoning model
refuses it.
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
    replay,
)
from llm_wire.providers.projection import Optionals, Profile, Projection, ProjectionError
from llm_wire.providers.projection import project as _project
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import Schema
from llm_wire.value import Value

__all__ = ["KIND", "LOOSE", "PATH", "PROVIDER", "STRICT", "encode", "function_call", "path", "project"]

PROVIDER = Provider.OPENAI_RESPONSES
PATH = "/v1/responses"

#: Non-strict tools: any JSON Schema, but every array needs ``items`` ("array schema missing items").
LOOSE = Profile(name="openai", array_items=True)

#: Strict tools and structured output (python_ecosystem.md §3.1).
STRICT = Profile(
    name="openai-strict",
    keep=frozenset(
        {
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "anyOf",
            "enum",
            "const",
            "$ref",
            "description",
            "title",
            "pattern",
            "format",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minItems",
            "maxItems",
        }
    ),
    close_objects=True,
    optionals=Optionals.NULLABLE,
    ref_siblings=frozenset(),
    one_of=False,
    all_of=False,
    formats=frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}),
    refused_pattern=r"\(\?<?[=!]",
    typed=True,
    array_items=True,
    root_combinators=False,
)


def project(schema: Schema, strict: bool) -> Result[Projection, ProjectionError]:
    """``schema`` as an OpenAI function's ``parameters`` (strict dialect when ``strict``)."""
    return _project(schema, STRICT if strict else LOOSE)


def path(model: str, stream: bool) -> str:
    """The endpoint path (the model goes in the body)."""
    return PATH


def _is_call(item: dict[str, Value]) -> bool:
    return item.get("type") == "function_call"


def _is_text(item: dict[str, Value]) -> bool:
    return item.get("type") == "message" or (item.get("role") == "assistant" and "type" not in item)


def _matches(item: dict[str, Value], call: ToolCall) -> bool:
    return item.get("call_id") == call.id


def _text(text: str) -> dict[str, Value]:
    return {"role": "assistant", "content": text}


KIND = Kind(is_call=_is_call, is_text=_is_text, matches=_matches, text=_text)


def function_call(call: ToolCall) -> dict[str, Value]:
    """A ``function_call`` input item; ``arguments`` is the model's text, unchanged."""
    return {"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments_json}


def encode(out: Outgoing) -> Result[Value, EncodeError]:
    """The request body for ``out``; ``Err`` for a setting or replay data this API cannot take."""
    items: list[Value] = []
    for index, message in enumerate(out.messages):
        match message:
            case SystemMessage(text=text):
                items.append({"role": "system", "content": text})
            case UserMessage(text=text):
                items.append({"role": "user", "content": text})
            case AssistantTurn() as turn:
                match replay(turn, PROVIDER, KIND, _replayed_call):
                    case Err(reason):
                        return Err(InvalidReplay(index, reason))
                    case Ok(None):
                        if turn.text or not turn.calls:
                            items.append(_text(turn.text))
                        items.extend(function_call(call) for call in turn.calls)
                    case Ok(replayed):
                        items.extend(replayed or ())
            case ToolResult(call_id=call_id, content=content):
                items.append({"type": "function_call_output", "call_id": call_id, "output": content})
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
        return Err(UnsupportedSetting("stop", PROVIDER, "the Responses API takes no stop sequences"))
    if out.stream:
        body["stream"] = True
    return Ok(body)


def _replayed_call(call: ToolCall) -> dict[str, Value]:
    item = function_call(call)
    if call.provider_id is not None:
        item["id"] = call.provider_id
    return item
