"""
Demo: the same two tools (a derived codec and an MCP ``inputSchema``) on four provider wires.

For each API: the prepared request body with its projection losses, a recorded-style response decoded and
admitted (one valid call, one invalid), and the next request carrying the turn and its results back.
"""

from __future__ import annotations

from typing import Any

import attrs

import llm_wire as rq
from llm_wire import codec, outcome, tool
from llm_wire.message import Provider
from llm_wire.providers import (
    anthropic_response,
    google_response,
    openai_chat_response,
    openai_responses_response,
)
from llm_wire.result import Err, Ok, unwrap
from llm_wire.tool import ToolCallChecks
from llm_wire.value import Value, render

__all__ = ["run"]

#: The ``convert_time`` tool of the MCP reference time server (its ``tools/list`` entry).
CONVERT_TIME: dict[str, Value] = {
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


_WEATHER = '{"location":{"city":"Oslo"},"days":3}'
_TIME = '{"source_timezone":"UTC","time":1430}'  # "time" must be a string: an issue

#: One response per API in which the model calls both tools, as each provider would send it.
RESPONSES: dict[Provider, tuple[Any, str]] = {
    Provider.OPENAI_RESPONSES: (
        openai_responses_response.decode_body,
        '{"id":"resp_1","object":"response","status":"completed","output":['
        '{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":'
        + render(_WEATHER)
        + '},{"type":"function_call","id":"fc_2","call_id":"call_2","name":"convert_time","arguments":'
        + render(_TIME)
        + "}]}",
    ),
    Provider.OPENAI_CHAT: (
        openai_chat_response.decode_body,
        '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls",'
        '"message":{"role":"assistant","content":null,"tool_calls":['
        '{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":'
        + render(_WEATHER)
        + '}},{"id":"call_2","type":"function","function":{"name":"convert_time","arguments":'
        + render(_TIME)
        + "}}]}}]}",
    ),
    Provider.ANTHROPIC: (
        anthropic_response.decode_body,
        '{"id":"msg_1","type":"message","role":"assistant","stop_reason":"tool_use","content":['
        '{"type":"thinking","thinking":"Two lookups.","signature":"c2ln"},'
        f'{{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{_WEATHER}}},'
        f'{{"type":"tool_use","id":"toolu_2","name":"convert_time","input":{_TIME}}}]}}',
    ),
    Provider.GOOGLE: (
        google_response.decode_body,
        '{"candidates":[{"finishReason":"STOP","content":{"role":"model","parts":['
        f'{{"functionCall":{{"name":"get_weather","args":{_WEATHER}}},"thoughtSignature":"c2ln"}},'
        f'{{"functionCall":{{"name":"convert_time","args":{_TIME}}}}}]}}}}]}}',
    ),
}


def run() -> None:
    """Prepare, decode, admit and continue on each of the four APIs."""
    weather = tool.new("get_weather", "Current weather and a forecast", codec.derive(GetWeather))
    convert = unwrap(tool.from_json_schema("convert_time", "Convert a time between timezones", CONVERT_TIME))
    print(f"declared {weather!r} from a derived codec and {convert!r} from an MCP inputSchema")
    req = rq.request(
        "demo-model", [rq.system("Be brief."), rq.user("Weather in Oslo, and 14:30 UTC in Tokyo?")]
    )
    req = rq.with_tools(req, [weather, convert])
    for provider, (decode, response) in RESPONSES.items():
        config = (
            rq.config(provider)
            .with_strict_tools(rq.Strictness.AUTO)
            .with_tool_call_checks(ToolCallChecks.REPORT)
        )
        print(f"\n--- {provider.value} (strict tools where lossless, REPORT) ---")
        match rq.prepare(config, req):
            case Err(problem):
                print("  refused:", problem.describe())
                continue
            case Ok(prepared):
                pass
        print(f"  POST {prepared.path}")
        print(f"  body: {_short(prepared.body_json())}")
        for name, projection in prepared.projections.items():
            mode = "strict" if prepared.strict[name] else "non-strict"
            print(f"  {name}: sent {mode}, {len(projection.losses)} loss(es)")
            for loss in projection.losses:
                print(f"    {loss.describe()}")
        result = outcome.resolve(
            decode(response),
            prepared.tools,
            checks=config.checks,
            limits=config.admission_limits(),
            adjust=prepared.adjust,
        )
        if not isinstance(result, outcome.NeedsTools):
            print("  outcome:", result)
            continue
        answers = []
        for admitted in result.admitted:
            print(f"  admitted {admitted.call.name}: {admitted.decoded!r}")
            answers.append(rq.tool_result(admitted.call, "sunny, -3 C"))
        for issue in result.issues:
            print(f"  issue: {tool.describe_issue(issue)}")
            failed = next(call for call in result.turn.calls if call.id == issue.call_id)
            answers.append(rq.tool_result(failed, tool.describe_issue(issue), is_error=True))
        follow_up = unwrap(rq.prepare(config, rq.append(req, result.turn, *answers)))
        print(f"  next request: {_short(follow_up.body_json(), 400)}")


def _short(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} bytes)"
