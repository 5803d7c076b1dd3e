"""
Demo: the same two tools (a derived codec and an MCP ``inputSchema``) on four provider wires.

For each API: the prepared request body with its projection losses, a hand-written response decoded by the
prepared request and resolved against it (one valid call, one invalid), and the next request carrying the
turn and its results back. Then one real recorded exchange (``../shared/corpora/provider-responses``): its
tools re-declared from the recorded request and prepared, its body or SSE stream decoded by that prepared
request's decoder, and its calls admitted. Nothing is carried by hand from the request to the response.
Last, 600 tools in one request: refused before sending by each API whose limits table says so.
"""

from __future__ import annotations

from pathlib import Path

import llm_wire as rq
from llm_wire import admission, codec, outcome, tool
from llm_wire.demo.admission import CONVERT_TIME, GetWeather  # the same two tools as the admission section
from llm_wire.demo.recorded import recorded_tools
from llm_wire.message import Provider
from llm_wire.providers.response import ArgumentsDelta
from llm_wire.result import Err, Ok, unwrap
from llm_wire.tool import Tool, ToolCallChecks
from llm_wire.value import Limits, parse, render

__all__ = ["run"]

_WEATHER = '{"location":{"city":"Oslo"},"days":3}'
_TIME = '{"source_timezone":"UTC","time":1430}'  # "time" must be a string: an issue

#: One response per API in which the model calls both tools, written the way each provider sends it.
RESPONSES: dict[Provider, str] = {
    Provider.OPENAI_RESPONSES: (
        '{"id":"resp_1","object":"response","status":"completed","output":['
        '{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":'
        + render(_WEATHER)
        + '},{"type":"function_call","id":"fc_2","call_id":"call_2","name":"convert_time","arguments":'
        + render(_TIME)
        + "}]}"
    ),
    Provider.OPENAI_CHAT: (
        '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls",'
        '"message":{"role":"assistant","content":null,"tool_calls":['
        '{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":'
        + render(_WEATHER)
        + '}},{"id":"call_2","type":"function","function":{"name":"convert_time","arguments":'
        + render(_TIME)
        + "}}]}}]}"
    ),
    Provider.ANTHROPIC: (
        '{"id":"msg_1","type":"message","role":"assistant","stop_reason":"tool_use","content":['
        '{"type":"thinking","thinking":"Two lookups.","signature":"c2ln"},'
        f'{{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{_WEATHER}}},'
        f'{{"type":"tool_use","id":"toolu_2","name":"convert_time","input":{_TIME}}}]}}'
    ),
    Provider.GOOGLE: (
        '{"candidates":[{"finishReason":"STOP","content":{"role":"model","parts":['
        f'{{"functionCall":{{"name":"get_weather","args":{_WEATHER}}},"thoughtSignature":"c2ln"}},'
        f'{{"functionCall":{{"name":"convert_time","args":{_TIME}}}}}]}}}}]}}'
    ),
}

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "provider-responses"

#: The recorded exchange shown per API (its folder, its file): two SSE streams, two bodies. The Gemini one
#: holds a real mistake: the model sent an argument the declared schema does not allow.
RECORDINGS: dict[Provider, tuple[str, str]] = {
    Provider.OPENAI_RESPONSES: (
        "openai-responses",
        "pydantic-ai--test_openai_responses--test_openai_responses_stream--0.json",
    ),
    Provider.OPENAI_CHAT: (
        "openai-chat",
        "pydantic-ai--test_tool_choice_matrix--test_tool_choice_matrix_list_single-openai--0.json",
    ),
    Provider.ANTHROPIC: (
        "anthropic",
        "anthropic-sdk-python--test_runners--TestSyncRunTools--771c64ff--0.json",
    ),
    Provider.GOOGLE: (
        "gemini",
        "pydantic-ai--test_multimodal_tool_returns--"
        "test_multimodal_tool_return_matrix_direct-url-audio-google_gemini3--1.json",
    ),
}


def run() -> None:
    """Prepare, decode, admit and continue on each of the four APIs; then replay one recording per API."""
    weather = tool.new("get_weather", "Current weather and a forecast", codec.derive(GetWeather))
    convert = unwrap(tool.from_json_schema("convert_time", "Convert a time between timezones", CONVERT_TIME))
    print(f"declared {weather!r} from a derived codec and {convert!r} from an MCP inputSchema")
    if CORPUS.is_dir():
        print(f"recorded exchanges: one per API from {CORPUS}")
    else:
        print(f"recorded exchanges: {CORPUS} not found, so only the hand-written responses are decoded")
    req = rq.request(
        "demo-model", [rq.system("Be brief."), rq.user("Weather in Oslo, and 14:30 UTC in Tokyo?")]
    )
    req = req.with_tools([weather, convert])
    for provider, response in RESPONSES.items():
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
        result = rq.resolve(prepared.decode_body(response), prepared)
        if not isinstance(result, outcome.NeedsTools):
            print("  hand-written response:", result)
            continue
        print("  hand-written response: one valid call, one invalid")
        answers = []
        for admitted in result.admitted:
            print(f"    admitted {admitted.call.name}: {admitted.decoded!r}")
            answers.append(rq.tool_result(admitted.call, "sunny, -3 C"))
        for issue in result.issues:
            print(f"    issue: {admission.describe_issue(issue)}")
            failed = next(call for call in result.turn.calls if call.id == issue.call_id)
            answers.append(rq.tool_result(failed, admission.describe_issue(issue), is_error=True))
        follow_up = unwrap(rq.prepare(config, req.with_messages(result.turn, *answers)))
        print(f"  next request: {_short(follow_up.body_json())}")
        if CORPUS.is_dir():
            _replay(provider)
    _limits()


def _limits() -> None:
    """A request over a provider's known limits is refused before it is sent, naming the limit."""
    print("\n--- provider limits, checked before sending ---")
    many = [unwrap(tool.from_json_schema(f"tool_{n}", "A tool", {"type": "object"})) for n in range(600)]
    for provider in Provider:
        prepared = rq.prepare(rq.config(provider), rq.request("demo-model", [rq.user("Hi")]).with_tools(many))
        match prepared:
            case Err(problem):
                print(f"  {provider.value}, 600 tools: refused: {problem.describe()}")
            case Ok(_):
                print(f"  {provider.value}, 600 tools: sent (the API documents no tool count)")


def _replay(provider: Provider) -> None:
    """Decode one recorded exchange of ``provider`` with tools re-declared from its recorded request."""
    folder, name = RECORDINGS[provider]
    path = CORPUS / folder / name
    record = parse(path.read_bytes(), Limits(max_bytes=16 * 1024 * 1024)) if path.is_file() else None
    if not isinstance(record, Ok) or not isinstance(record.value, dict):
        print(f"  recorded: {folder}/{name} is missing or unreadable")
        return
    exchange = record.value
    print(f"  recorded: {name}")
    tools: list[Tool] = []
    for declared in recorded_tools(provider, exchange.get("request")):
        description = declared.description if isinstance(declared.description, str) else ""
        match tool.from_json_schema(declared.name, description, declared.json_schema):
            case Ok(made):
                tools.append(made)
            case Err(error):
                print(f"    tool {declared.name} cannot be declared: {error.describe()}")
    print(f"    tools re-declared from its request: {', '.join(map(repr, tools)) or 'none'}")
    sse = exchange.get("response_sse")
    streamed = exchange.get("stream") is True and isinstance(sse, str)
    config = rq.config(provider).with_tool_call_checks(ToolCallChecks.REPORT).with_stream(streamed)
    match rq.prepare(config, rq.request("recorded-model", [rq.user("(recorded)")]).with_tools(tools)):
        case Err(problem):
            print(f"    the re-declared tools cannot be prepared: {problem}")
            return
        case Ok(prepared):
            pass
    if streamed and isinstance(sse, str):
        stream = prepared.decoder()
        deltas = 0
        data = sse.encode()
        for start in range(0, len(data), 64):  # as a network delivers it: boundaries fall anywhere
            fed = stream.feed_bytes(data[start : start + 64])
            deltas += sum(isinstance(p, ArgumentsDelta) for p in fed.value) if isinstance(fed, Ok) else 0
        events = exchange.get("response_events")
        count = f"{len(events)} events" if isinstance(events, list) else f"{len(data)} bytes"
        print(f"    decoded: an SSE stream of {count}, fed in 64-byte chunks: {deltas} argument deltas")
        result = outcome.resolve_stream(stream, prepared)
    else:
        print("    decoded: a whole body")
        result = rq.resolve(prepared.decode_body(exchange.get("response")), prepared)
    print(f"    outcome: {type(result).__name__}")
    if not isinstance(result, outcome.NeedsTools):
        return
    for admitted in result.admitted:
        call = admitted.call
        print(f"    admitted {call.id} {call.name} {call.arguments_json}")
    for issue in result.issues:
        print(f"    issue with {issue.call_id} {issue.name}: {admission.describe_issue(issue)}")
    if not result.issues:
        print("    no issues")


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} bytes)"
