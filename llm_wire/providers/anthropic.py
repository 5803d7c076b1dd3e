"""
Anthropic Messages: schema projection and request encoding (``POST /v1/messages``).

Tools are ``{"name", "description", "input_schema", "strict"?}``. System messages are lifted into the
top-level ``system``. An assistant turn replays its content blocks (thinking, redacted thinking, text) from
``provider_data`` in order, each call as a ``tool_use`` block whose ``input`` is the parsed argument object;
the results of one turn go together in one ``user`` message of ``tool_result`` blocks, with ``is_error`` on
failures. ``max_tokens`` is required by the API: ``Outgoing.max_tokens`` must be set.
"""

from __future__ import annotations

from collections.abc import Sequence

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
from llm_wire.providers.projection import Profile, Projection, ProjectionError, Values
from llm_wire.providers.projection import project as _project
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import Schema
from llm_wire.value import Value

__all__ = [
    "KIND",
    "LOOSE",
    "MAX_OPTIONAL_PARAMETERS",
    "MAX_STRICT_TOOLS",
    "MAX_UNION_PARAMETERS",
    "PATH",
    "PROVIDER",
    "STRICT",
    "encode",
    "over_budget",
    "path",
    "project",
    "tool_use",
]

PROVIDER = Provider.ANTHROPIC
PATH = "/v1/messages"

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


def project(schema: Schema, strict: bool) -> Result[Projection, ProjectionError]:
    """``schema`` as an Anthropic ``input_schema`` (strict tool-use dialect when ``strict``)."""
    return _project(schema, STRICT if strict else LOOSE)


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
    if out.parallel is False:
        choice["disable_parallel_tool_use"] = True
    return choice
