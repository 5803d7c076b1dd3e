"""
Demo: two tools (a derived codec and a real MCP ``inputSchema``) and the admission of a model's calls, then
a response that breaks the request's tool choice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

import llm_wire as rq
from llm_wire import admission, codec, tool
from llm_wire.message import ToolCall
from llm_wire.result import Err, Ok, unwrap
from llm_wire.tool import Tool, ToolCallChecks
from llm_wire.value import Value

_CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "mcp-tools" / "python-time.json"

#: The ``convert_time`` tool of the MCP reference time server, used when the corpus is absent.
CONVERT_TIME: dict[str, Any] = {
    "type": "object",
    "title": "convert_timeArguments",
    "properties": {
        "source_timezone": {"type": "string", "title": "Source Timezone"},
        "time": {"type": "string", "title": "Time", "description": "Time in 24-hour format (HH:MM)"},
        "target_timezone": {"type": "string", "title": "Target Timezone"},
    },
    "required": ["source_timezone", "time", "target_timezone"],
}


@attrs.frozen
class Location:
    city: str
    country: str | None = None


@attrs.frozen
class GetWeather:
    """Current weather and a forecast for a place."""

    location: Location
    days: int = codec.field(default=1, codec=codec.integer(minimum=1, maximum=14))


def _mcp_schema() -> tuple[str, dict[str, Any]]:
    if _CORPUS.is_file():
        for declared in json.loads(_CORPUS.read_text())["tools"]:
            if declared["name"] == "convert_time":
                return "MCP corpus (python-time server)", declared["inputSchema"]
    return "bundled copy", CONVERT_TIME


def run() -> None:
    """Declare, then admit a valid, an invalid and an unknown call under both policies."""
    weather = tool.new("get_weather", "Current weather", codec.derive(GetWeather))
    source, schema = _mcp_schema()
    made = tool.from_json_schema("convert_time", "Convert time between timezones", schema)
    if isinstance(made, Err):
        print("refused:", made.error.describe())
        return
    convert = made.value
    print(f"declared {weather!r} from a derived codec")
    print(f"declared {convert!r} from an MCP inputSchema ({source})")
    calls = [
        ToolCall("call_1", "get_weather", '{"location": {"city": "Paris"}, "days": 3}'),
        ToolCall("call_2", "convert_time", '{"source_timezone": "UTC", "time": 1430}'),
        ToolCall("call_3", "book_flight", '{"to": "Oslo"}'),
        ToolCall("call_4", "get_weather", '{"location": {"city": "Oslo", "country": "NO"}, "days": 2.0}'),
    ]
    for call in calls:
        print(f"  model called {call.name}({call.arguments_json})")
    for checks in ToolCallChecks:
        print(f"\nadmit under {checks.name}:")
        match admission.admit(calls, [weather, convert], checks):
            case Err(error):
                print(f"  response failed: {error.name}: {error.describe()}")
            case Ok(admitted):
                for good in admitted.admitted:
                    print(f"  {good.call.id} admitted, decoded: {good.decoded!r}")
                    # Numbers are exact Decimals inside; an SDK or json.dumps gets plain ints and floats.
                    match good.plain_arguments():
                        case Ok(plain):
                            print(f"    handed on as {json.dumps(plain)}")
                        case Err(unrepresentable):
                            print(f"    not handed on: {unrepresentable.describe()}")
                for issue in admitted.issues:
                    print(f"  {issue.call_id} {type(issue).__name__}; answer with:")
                    print(f"    {admission.describe_issue(issue)}")
    _choice_broken(weather, convert)


#: An OpenAI Chat response that calls ``convert_time``.
_CALLS_CONVERT: Value = {
    "id": "chatcmpl-demo",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "call_5",
                        "type": "function",
                        "function": {
                            "name": "convert_time",
                            "arguments": '{"source_timezone": "UTC", "time": "14:30"}',
                        },
                    }
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
}


def _choice_broken(weather: Tool, convert: Tool) -> None:
    """A request forcing ``get_weather``, answered with a call to ``convert_time``, under both policies."""
    forced = (
        rq.request("demo-model", [rq.user("Weather in Paris?")])
        .with_tools([weather, convert])
        .with_tool_choice(rq.UseTool("get_weather"))
    )
    print("\nthe request forces get_weather (tool_choice), the model calls convert_time:")
    for checks in ToolCallChecks:
        prepared = unwrap(rq.prepare(rq.Config.openai_chat().with_tool_call_checks(checks), forced))
        print(f"  sent tool_choice {json.dumps(_tool_choice(prepared.body))}; resolved under {checks.name}:")
        match rq.resolve(prepared.decode_body(_CALLS_CONVERT), prepared):
            case rq.Failure() as failed:
                print(f"    response failed: {failed.error.name}: {failed.error.describe()}")
            case rq.NeedsTools(issues=issues):
                for issue in issues:
                    print(f"    {issue.call_id} {type(issue).__name__}; answer with:")
                    print(f"      {admission.describe_issue(issue)}")
            case other:
                print(f"    {other!r}")


def _tool_choice(body: Value) -> Value:
    return body.get("tool_choice") if isinstance(body, dict) else None
