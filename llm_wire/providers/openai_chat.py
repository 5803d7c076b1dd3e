"""
OpenAI Chat Completions: schema projection and request encoding (``POST /v1/chat/completions``).

Tools are ``{"type": "function", "function": {"name", "description", "parameters", "strict"?}}``; the schema
rules are OpenAI's, shared with the Responses API. An assistant turn with calls is one ``assistant``
message with ``tool_calls`` (``arguments`` is the model's text, byte for byte) and each result one ``tool``
message, in call order. Chat Completions has no replay data: ``provider_data`` is not sent.
"""

from __future__ import annotations

from llm_wire.message import AssistantTurn, Provider, SystemMessage, ToolResult, UserMessage
from llm_wire.providers import EncodeError, Outgoing, ToolChoice, UseTool
from llm_wire.providers.openai_responses import LOOSE, STRICT
from llm_wire.providers.projection import Projection, ProjectionError
from llm_wire.providers.projection import project as _project
from llm_wire.result import Ok, Result
from llm_wire.schema import Schema
from llm_wire.value import Value

__all__ = ["LOOSE", "PATH", "PROVIDER", "STRICT", "encode", "path", "project"]

PROVIDER = Provider.OPENAI_CHAT
PATH = "/v1/chat/completions"


def project(schema: Schema, strict: bool) -> Result[Projection, ProjectionError]:
    """``schema`` as a Chat Completions function's ``parameters`` (strict dialect when ``strict``)."""
    return _project(schema, STRICT if strict else LOOSE)


def path(model: str, stream: bool) -> str:
    """The endpoint path (the model goes in the body)."""
    return PATH


def encode(out: Outgoing) -> Result[Value, EncodeError]:
    """The request body for ``out``; every setting has a Chat Completions field, so it never fails."""
    messages: list[Value] = []
    for message in out.messages:
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
