"""
Demo: two tools (a derived codec and a real MCP ``inputSchema``) and the admission of a model's calls.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from llm_wire import admission, codec, tool
from llm_wire.message import ToolCall
from llm_wire.result import Err, Ok
from llm_wire.tool import ToolCallChecks

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
