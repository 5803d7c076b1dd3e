"""
Recorded provider exchanges through the response decoders and ``outcome.resolve`` (issue 6, item 1).

Every exchange in ``../shared/corpora/provider-responses`` is decoded, as a body or as a stream (its raw SSE
text through the framer when recorded, else its parsed events). What each must decode to is read from the
recording by a small extraction written here, independent of the decoders: the calls (id, name, arguments
equal as JSON, and byte-exact where the provider sends text), and the outcome kind from the provider's own
finish reason. Error bodies must decode to typed errors. A few recordings hold several responses in one
stream; they are cut at each new response start after a finished one. Counts are printed per provider.

``TestStreamFuzz`` feeds every stream decoder, and the framer, mutated recordings (events dropped, repeated,
swapped, members given hostile values, non-UTF-8 bytes, cuts at any byte): nothing raises, and every call
admitted is one the recording holds, or, where content moved or went, one an independent reading of the
mutated events finds. The folder absent, the tests are skipped.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_wire import outcome
from llm_wire.error import ProtocolError
from llm_wire.providers import anthropic, google, openai_chat, openai_responses
from llm_wire.providers.response import ErrorKind, ProviderError, ResponseLimits, StreamDecoder, Terminal
from llm_wire.result import Err, Ok, Result, unwrap
from llm_wire.sse import frame
from llm_wire.tool import ToolCallChecks, from_json_schema
from llm_wire.value import NotJson, Value, parse, render

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "provider-responses"
MODULES: dict[str, ModuleType] = {
    "openai-responses": openai_responses,
    "openai-chat": openai_chat,
    "anthropic": anthropic,
    "gemini": google,
}
STARTS = {"response.created", "message_start"}
ENDS = {"response.completed", "response.incomplete", "response.failed", "message_stop"}
FILTERED = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}
KINDS = {
    outcome.Answer: "answer",
    outcome.NeedsTools: "needs_tools",
    outcome.OutputLimited: "limited",
    outcome.Refused: "refused",
    outcome.Failure: "failure",
}

#: (id or None when the provider sent none, name, arguments as text when sent as text, arguments as JSON)
Expected = tuple[str | None, str, str | None, Any]


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)


def _exact(value: Any) -> Value:
    """A recorded value as the strict parser reads it (exact numbers)."""
    parsed = parse(_dumps(value))
    assert isinstance(parsed, Ok)
    return parsed.value


def _dumps(value: Any) -> str:
    """JSON text for a recorded value, its decimals written as recorded."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, list):
        return "[" + ",".join(_dumps(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(key)}:{_dumps(item)}" for key, item in value.items()) + "}"
    return json.dumps(value)


def _as_json(text: str) -> Any:
    return json.loads(text, parse_float=Decimal) if text.strip() else {}


# ---------------------------------------------------------------------------------------------------------
# What each recording must decode to, read directly from the recording.


def expected_calls(api: str, body: Any, events: list[Any] | None) -> list[Expected]:
    """The calls of a recorded response, by the simplest reading of each provider's documented shape."""
    found: list[Expected] = []
    if api == "openai-responses":
        if events is None:
            items = [item for item in body.get("output") or [] if item.get("type") == "function_call"]
        else:
            done = [e for e in events if e.get("type") == "response.output_item.done"]
            items = [e["item"] for e in sorted(done, key=lambda e: e["output_index"])]
            items = [item for item in items if item.get("type") == "function_call"]
        found = [(i["call_id"], i["name"], i["arguments"], _as_json(i["arguments"])) for i in items]
    elif api == "openai-chat":
        if events is None:
            raw = (body["choices"][0]["message"].get("tool_calls") or []) if body.get("choices") else []
            found = [(c["id"], c["function"]["name"], c["function"]["arguments"], None) for c in raw]
        else:
            by_index: dict[int, list[str]] = {}
            for event in events:
                for choice in event.get("choices") or []:
                    for call in (choice.get("delta") or {}).get("tool_calls") or []:
                        entry = by_index.setdefault(call["index"], ["", "", ""])
                        entry[0] = call.get("id") or entry[0]
                        entry[1] = (call.get("function") or {}).get("name") or entry[1]
                        entry[2] += (call.get("function") or {}).get("arguments") or ""
            found = [(i, n, a, None) for i, n, a in by_index.values()]
        found = [(i, n, a, _as_json(a or "")) for i, n, a, _ in found]
    elif api == "anthropic":
        blocks = body.get("content") or [] if events is None else []
        found = [
            (b["id"], b["name"], None, b.get("input") or {}) for b in blocks if b.get("type") == "tool_use"
        ]
        if events is not None:
            found = _anthropic_stream_calls(events)
    else:
        chunks = [body] if events is None else events
        found = _gemini_calls(chunks)
    return found


def _anthropic_stream_calls(events: list[Any]) -> list[Expected]:
    found: list[Expected] = []
    started: dict[int, tuple[str, str, Any, list[str]]] = {}
    for event in events:
        kind = event.get("type")
        if kind == "message_start":
            blocks = [b for b in event["message"].get("content") or [] if b.get("type") == "tool_use"]
            found.extend((b["id"], b["name"], None, b.get("input") or {}) for b in blocks)
        elif kind == "content_block_start" and event["content_block"].get("type") == "tool_use":
            block = event["content_block"]
            started[event["index"]] = (block["id"], block["name"], block.get("input") or {}, [])
        elif kind == "content_block_delta" and event["index"] in started:
            started[event["index"]][3].append(event["delta"].get("partial_json") or "")
        elif kind == "content_block_stop" and event["index"] in started:
            call_id, name, given, parts = started.pop(event["index"])
            text = "".join(parts)
            found.append((call_id, name, text or None, _as_json(text) if text else given))
    return found


def _gemini_calls(chunks: list[Any]) -> list[Expected]:
    found: list[Expected] = []
    streaming: list[Any] | None = None  # [id, name, args, last string path]
    for chunk in chunks:
        for candidate in (chunk.get("candidates") or [])[:1]:
            for part in (candidate.get("content") or {}).get("parts") or []:
                call = part.get("functionCall")
                if call is None:
                    continue
                if streaming is None and call.get("name"):
                    if not call.get("willContinue"):
                        found.append((call.get("id"), call["name"], None, call.get("args") or {}))
                        continue
                    streaming = [call.get("id"), call["name"], {}, None]
                if streaming is None:
                    continue
                for piece in call.get("partialArgs") or []:
                    _put(streaming, piece)
                if not call.get("willContinue"):
                    found.append((streaming[0], streaming[1], None, streaming[2]))
                    streaming = None
    return found


def _put(streaming: list[Any], piece: dict[str, Any]) -> None:
    """Set one partial argument: ``$.a.b[0].c`` paths, strings joined while ``willContinue``."""
    path = piece["jsonPath"].removeprefix("$").replace("[", ".[").split(".")[1:]
    keys: list[str | int] = [int(p[1:-1]) if p.startswith("[") else p for p in path]
    value = next(piece[k] for k in ("stringValue", "numberValue", "boolValue", "nullValue") if k in piece)
    value = None if "nullValue" in piece else value
    node = streaming[2]
    for key, following in zip(keys, [*keys[1:], None], strict=True):
        if following is None:
            joined = streaming[3] == keys and isinstance(value, str)
            if isinstance(key, int) and key == len(node):
                node.append(value)
            else:
                node[key] = node[key] + value if joined else value
        else:
            if isinstance(key, int) and key == len(node):
                node.append({} if isinstance(following, str) else [])
            elif isinstance(key, str) and key not in node:
                node[key] = {} if isinstance(following, str) else []
            node = node[key]
    streaming[3] = keys if isinstance(value, str) and piece.get("willContinue") else None


def expected_kind(api: str, body: Any, events: list[Any] | None, has_calls: bool) -> str:
    """The outcome kind a recording's own finish reason calls for."""
    if events is not None and sum(e.get("type") in STARTS for e in events) > 1:
        return "failure"  # two responses spliced into one stream
    if api == "openai-responses":
        final = (
            body if events is None else next(e["response"] for e in reversed(events) if e.get("type") in ENDS)
        )
        status, reason = final.get("status"), (final.get("incomplete_details") or {}).get("reason")
        if status == "incomplete":
            return {"max_output_tokens": "limited", "content_filter": "refused"}.get(str(reason), "failure")
        if status != "completed":
            return "failure"
        outputs = (
            final.get("output") or []
            if events is None
            else [e["item"] for e in events if e.get("type") == "response.output_item.done"]
        )
        refused = any(
            part.get("type") == "refusal"
            for item in outputs
            for part in item.get("content") or []
            if isinstance(part, dict)
        )
        stop = "refused" if refused else "answer"
    elif api == "openai-chat":
        choices = (
            body["choices"][:1]
            if events is None
            else [c for e in events for c in e.get("choices") or [] if c.get("index", 0) == 0]
        )
        reason = next((c["finish_reason"] for c in reversed(choices) if c.get("finish_reason")), None)
        refusal = any((c.get("message") or c.get("delta") or {}).get("refusal") for c in choices)
        if reason == "length":
            return "limited"
        if reason == "content_filter":
            return "refused"
        stop = "refused" if refusal else "answer"
    elif api == "anthropic":
        reasons = (
            [body.get("stop_reason")]
            if events is None
            else [(e.get("delta") or e.get("message") or {}).get("stop_reason") for e in events]
        )
        reason = next((r for r in reversed(reasons) if r), None)
        if reason in ("max_tokens", "refusal"):
            return {"max_tokens": "limited", "refusal": "refused"}[reason]
        if reason not in ("end_turn", "stop_sequence", "tool_use"):
            return "failure"
        stop = "answer"
    else:
        chunks = [body] if events is None else events
        reasons = [c.get("finishReason") for chunk in chunks for c in (chunk.get("candidates") or [])[:1]]
        reason = next((r for r in reversed(reasons) if r), None)
        if reason == "MAX_TOKENS":
            return "limited"
        if reason in FILTERED:
            return "refused"
        if reason != "STOP":
            return "failure"
        stop = "answer"
    return "needs_tools" if has_calls else stop


# ---------------------------------------------------------------------------------------------------------
# Driving the decoders


def segments(events: list[Any]) -> list[list[Any]]:
    """A stream cut before each response start that follows a finished response."""
    out: list[list[Any]] = [[]]
    for event in events:
        kind = event.get("type") if isinstance(event, dict) else None
        if kind in STARTS and any(isinstance(e, dict) and e.get("type") in ENDS for e in out[-1]):
            out.append([])
        out[-1].append(event)
    return out


def decode_sse(module: ModuleType, text: str) -> tuple[Result[Terminal, Any], StreamDecoder]:
    decoder: StreamDecoder = module.WIRE.decoder(ResponseLimits())
    data = text.encode()
    for start in range(0, len(data), 61):  # odd chunks: boundaries fall inside lines, CRLFs and UTF-8
        decoder.feed_bytes(data[start : start + 61])
    return decoder.finish(), decoder


def decode_events(module: ModuleType, events: list[Any]) -> tuple[Result[Terminal, Any], StreamDecoder]:
    decoder: StreamDecoder = module.WIRE.decoder(ResponseLimits())
    for event in events:
        decoder.feed_json(event if isinstance(event, str) else _exact(event))
    return decoder.finish(), decoder


def check_truncations(
    module: ModuleType, text: str, whole: Result[Terminal, Any], counts: Counter[str]
) -> list[str]:
    """The stream cut at eleven points: never an exception, never a call the whole stream does not hold."""
    complete = set(whole.value.calls) if isinstance(whole, Ok) else set()
    problems: list[str] = []
    for n in range(1, 12):
        cut, _ = decode_sse(module, text[: len(text) * n // 12])
        counts["truncations"] += 1
        if isinstance(cut, Ok) and not set(cut.value.calls) <= complete:
            problems.append(f"cut at {n}/12, the stream returned a call it never completed")
    return problems


def check_calls(api: str, terminal: Terminal, expected: list[Expected]) -> list[str]:
    problems: list[str] = []
    got = terminal.calls
    if [call.name for call in got] != [e[1] for e in expected]:
        return [f"calls {[c.name for c in got]} != recorded {[e[1] for e in expected]}"]
    for call, (call_id, _, text, arguments) in zip(got, expected, strict=True):
        if call_id is not None and call.id != call_id:
            problems.append(f"call id {call.id!r} != recorded {call_id!r}")
        if call_id is None and call.provider_id is not None:
            problems.append("a synthesised id claims to be the provider's")
        if _as_json(call.arguments_json) != _as_json(_dumps(arguments)):
            problems.append(f"arguments of {call.name} differ as JSON")
        if text is not None and call.arguments_json != text:
            problems.append(f"arguments of {call.name} are not byte-exact")
    if len({call.id for call in got}) != len(got):
        problems.append("call ids are not unique")
    return problems


def check_exchange(api: str, record: dict[str, Any], counts: Counter[str]) -> list[str]:
    module = MODULES[api]
    status = record.get("http_status")
    if status not in (None, 200):
        error = module.WIRE.decode_error(status, _dumps(record["response"]))
        counts["error bodies"] += 1
        body_error = record["response"].get("error") or {}
        code = body_error.get("status") or body_error.get("code") or body_error.get("type")
        wanted = {400: ErrorKind.INVALID_REQUEST, 429: ErrorKind.RATE_LIMITED}.get(status)
        if (
            not isinstance(error, ProviderError)
            or (wanted and error.kind is not wanted)
            or error.code != code
        ):
            return [f"error body decoded to {error}"]
        return []
    problems: list[str] = []
    runs: list[tuple[Any, list[Any] | None, Result[Terminal, Any], StreamDecoder | None]]
    if not record["stream"]:
        runs = [(record["response"], None, *_decoded_body(module, record["response"]))]
    else:
        events = [e["data"] for e in record["response_events"]]
        if "response_sse" in record:
            text = record["response_sse"]
            closed = text
            if not text.endswith(("\n\n", "\r\n\r\n", "\r\r")):
                # The official SDKs take a last event that lacks its blank line; so do the decoders (the
                # text decoded below is the recorded one). The framer alone dispatches it once closed.
                counts["SSE without closing blank line"] += 1
                closed = text.rstrip("\r\n") + "\n\n"
            framed = frame(closed)
            assert isinstance(framed, Ok)
            datas = [e.data if e.data.strip() == "[DONE]" else _as_json(e.data) for e in framed.value]
            names = [e["event"] for e in record["response_events"]]
            if datas != events or [e.event for e in framed.value] != names:
                problems.append("the framer's events differ from the recorded parsed events")
            runs = [(None, events, *decode_sse(module, text))]
            problems += check_truncations(module, text, runs[0][2], counts)
        else:
            parts = segments(events)
            counts["stream segments"] += len(parts)
            runs = [(None, part, *decode_events(module, part)) for part in parts]
    for body, events_, decoded, stream in runs:
        counts["decoded"] += 1
        payloads = None if events_ is None else [e for e in events_ if isinstance(e, dict)]
        calls = expected_calls(api, body, payloads)
        kind = expected_kind(api, body, payloads, bool(calls))
        if stream is None:
            got = outcome.resolve_with(decoded, (), checks=ToolCallChecks.REPORT)
        else:
            got = outcome.resolve_stream_with(stream, (), checks=ToolCallChecks.REPORT)
        got_kind = KINDS[type(got)]
        if got_kind != kind:
            problems.append(f"outcome {got_kind} ({getattr(got, 'error', '')}) != recorded {kind}")
            continue
        if kind == "failure":
            counts["refused as unusable"] += 1
            assert isinstance(decoded, Err)
            continue
        assert isinstance(decoded, Ok)
        terminal = decoded.value
        if kind == "needs_tools":
            counts["with calls"] += 1
            counts["calls"] += len(calls)
            problems += check_calls(api, terminal, calls)
            assert isinstance(got, outcome.NeedsTools)
            if got.turn.calls != terminal.calls or len(got.issues) != len(calls):
                problems.append("the outcome's turn does not carry every call with its issue")
        elif kind == "limited":
            counts["cut for length"] += 1
            if any(call.id in {c.id for c in terminal.calls} for call in terminal.incomplete):
                problems.append("an incomplete call is also callable")
        elif calls:
            problems.append("a recording with calls did not finish for them")
    return problems


def _decoded_body(module: ModuleType, body: Any) -> tuple[Result[Terminal, Any], StreamDecoder | None]:
    return module.WIRE.decode_body(_dumps(body)), None


def _index() -> list[dict[str, Any]]:
    if not (CORPUS / "index.json").is_file():
        pytest.skip(f"provider-responses corpus not found at {CORPUS}")
    entries: list[dict[str, Any]] = _load(CORPUS / "index.json")
    return entries


class TestRecordedExchanges:
    """Recorded responses decode, whole and streamed, to the same terminal."""

    @pytest.mark.parametrize("api", sorted(MODULES))
    def test_recorded_exchanges(self, api: str, capsys: pytest.CaptureFixture[str]) -> None:
        """Each recorded exchange decodes to its recorded calls, outcome kind, or typed error."""
        counts: Counter[str] = Counter()
        failures: list[str] = []
        for entry in _index():
            if entry["provider"] != api:
                continue
            counts["exchanges"] += 1
            record = _load(CORPUS / entry["file"])
            failures += [f"{entry['file']}: {problem}" for problem in check_exchange(api, record, counts)]
        shown = ["exchanges", "decoded", "with calls", "calls", "error bodies", "cut for length"]
        shown += ["refused as unusable", "skipped"]
        extra = sorted(set(counts) - set(shown))
        with capsys.disabled():
            print(f"\n{api}: " + ", ".join(f"{counts[what]} {what}" for what in [*shown, *extra]))
        assert counts["exchanges"] > 0
        assert not failures, "\n".join(failures)

    def test_a_last_event_without_its_blank_line_decodes(self) -> None:
        """
        The recordings whose final event lacks its closing blank line (the official SDKs accept them)
        decode to their recorded outcome; cut inside that event, they are refused (issue 23, item 8).
        """
        unclosed = 0
        for entry in _index():
            record = _load(CORPUS / entry["file"])
            text = record.get("response_sse")
            if text is None or text.endswith(("\n\n", "\r\n\r\n", "\r\r")):
                continue
            unclosed += 1
            module = MODULES[entry["provider"]]
            assert check_exchange(entry["provider"], record, Counter()) == [], entry["file"]
            decoded, _ = decode_sse(module, text)
            assert isinstance(decoded, Ok), entry["file"]
            body = text.rstrip("\r\n")
            for cut in range(body.rindex("data:"), len(body) - 1):
                decoded, _ = decode_sse(module, body[:cut])
                assert decoded == Err(ProtocolError("the stream ended before the response finished")), cut
        assert unclosed == 4

    def test_a_spliced_stream_never_yields_the_first_call(self) -> None:
        """The recording that splices a second message_start into a stream is refused outright."""
        path = CORPUS / "anthropic" / "vercel-ai--spliced-message-start.stream.json"
        if not path.is_file():
            pytest.skip(f"recording not found: {path}")
        events = [e["data"] for e in _load(path)["response_events"]]
        assert decode_events(anthropic, events)[0] == Err(ProtocolError("a second message_start arrived"))


# ---------------------------------------------------------------------------------------------------------
# Stream fuzz: every stream decoder and the framer, fed mutated recordings (issue "hardening the wire", 5).

#: Members whose value is the model's arguments (or a piece of them): replaced whole, never entered, since a
#: changed argument is what the model said, not a broken stream.
ARGUMENT_MEMBERS = {"args", "input", "arguments", "partial_json", "partialArgs", "stringValue", "numberValue"}
#: APIs whose streams repeat no whole argument text: a dropped or repeated fragment that still parses is what
#: the stream says, so such a call is checked against an independent reading of the mutated events.
NO_REPEAT = {"openai-chat", "anthropic", "gemini"}


def _deep(depth: int) -> Any:
    nested: Any = []
    for _ in range(depth):
        nested = [nested]
    return nested


DEEP = _deep(5000)
HOSTILE: list[Any] = [
    10**400,
    -(10**30),
    Decimal("1E+999999"),
    Decimal("-0.0"),
    True,
    None,
    "",
    "x" * 5000,
    "\x00\ud800\u202e",
    [],
    {},
    DEEP,
    {"type": DEEP, "index": 10**400},
    [None, {"x": [1]}],
]


class Recorded:
    """One recorded stream, decoded whole: its SSE bytes, parsed events, calls and declared tools."""

    def __init__(self, api: str, name: str, text: str, events: list[Any]) -> None:
        self.api = api
        self.name = name
        self.module = MODULES[api]
        self.body = text.encode("utf-8")
        self.events = [e if isinstance(e, str) else _exact(e) for e in events]
        self.names: list[str | None] = [None] * len(events)
        whole, decoder = decode_sse(self.module, text)
        self.whole = whole
        calls = whole.value.calls if isinstance(whole, Ok) else ()
        self.tools = [unwrap(from_json_schema(n, "", {"type": "object"})) for n in {c.name for c in calls}]
        self.outcome = outcome.resolve_stream_with(decoder, self.tools, checks=ToolCallChecks.REPORT)
        self.keys = {_key(self.api, call) for call in calls}


def _key(api: str, call: Any) -> tuple[str | None, str, str]:
    """A call as the fuzz compares it: ids the Gemini decoder made up are not the provider's and may move."""
    made_up = api == "gemini" and call.provider_id is None
    return (None if made_up else call.id, call.name, call.arguments_json)


@functools.cache
def _recorded_streams() -> tuple[Recorded, ...]:
    found: list[Recorded] = []
    for entry in _index():
        record = _load(CORPUS / entry["file"])
        if not record.get("stream") or record.get("http_status") not in (None, 200):
            continue
        events = [e["data"] for e in record["response_events"]]
        if len(segments(events)) > 1:
            continue  # spliced: refused whole (test_a_spliced_stream_never_yields_the_first_call)
        text = record.get("response_sse") or "".join(
            f"data: {e if isinstance(e, str) else _dumps(e)}\n\n" for e in events
        )
        if not text.endswith(("\n\n", "\r\n\r\n", "\r\r")):
            text += "\n\n"
        found.append(Recorded(entry["provider"], entry["file"], text, events))
    return tuple(found)


def _streams() -> tuple[Recorded, ...]:
    found = _recorded_streams()
    if not found:
        pytest.skip(f"no recorded streams found under {CORPUS}")
    return found


def _replace(draw: st.DrawFn, value: Any, nulled: list[bool]) -> Any:
    """
    ``value`` with one member somewhere inside replaced by a hostile value of another JSON type; ``nulled``
    records a ``null``, which a decoder may read as an absent member (content dropped, as by a lost event).
    """
    if isinstance(value, dict) and value and draw(st.integers(0, 3)) > 0:
        key = draw(st.sampled_from(sorted(value)))
        inner = value[key]
        if key not in ARGUMENT_MEMBERS or not isinstance(inner, dict | list | str):
            return {**value, key: _replace(draw, inner, nulled)}
        return {**value, key: _other_type(draw, inner, nulled)}
    if isinstance(value, list) and value and draw(st.integers(0, 3)) > 0:
        at = draw(st.integers(0, len(value) - 1))
        return [*value[:at], _replace(draw, value[at], nulled), *value[at + 1 :]]
    if isinstance(value, dict) and draw(st.booleans()):
        nulled.append(True)
        return {**value, draw(st.sampled_from(["index", "type", "id", "name", "willContinue"])): None}
    return _other_type(draw, value, nulled)


def _json_type(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    return "number" if isinstance(value, int | Decimal) else type(value).__name__


def _other_type(draw: st.DrawFn, value: Any, nulled: list[bool]) -> Any:
    """A hostile value whose JSON type differs from ``value``'s (a changed number is a changed argument)."""
    chosen = draw(st.sampled_from([h for h in HOSTILE if _json_type(h) != _json_type(value)]))
    nulled.append(chosen is None)
    return chosen


@st.composite
def mutated(draw: st.DrawFn) -> tuple[Recorded, list[Any], bool]:
    """
    A recorded stream with events dropped, repeated, swapped or given hostile members, and whether content
    may have moved or gone (an event dropped, repeated or swapped, a member nulled).
    """
    recorded = draw(st.sampled_from(_streams()))
    events = list(recorded.events)
    nulled: list[bool] = []
    moved = False
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(events) - 1)) if events else 0
        kind = draw(st.sampled_from(["drop", "repeat", "swap", "field", "field"]))
        if kind == "drop" and events:
            del events[at]
            moved = True
        elif kind == "repeat" and events:
            events.insert(at, events[at])
            moved = True
        elif kind == "swap" and len(events) > 1:
            other = draw(st.integers(0, len(events) - 1))
            events[at], events[other] = events[other], events[at]
            moved = True
        elif kind == "field" and events:
            events[at] = _replace(draw, events[at], nulled)
            # A whole event of another type (``[]``: a chunk array with no chunk) is an event gone.
            moved = moved or not isinstance(events[at], dict)
    return recorded, events, moved or any(nulled)


def _independent(api: str, events: list[Any]) -> set[tuple[str | None, str, str]] | None:
    """The calls an independent reading finds in mutated events, or ``None`` when it cannot read them."""
    try:
        calls = expected_calls(api, None, [e for e in events if isinstance(e, dict)])
        # A hostile id or name (a list, say) is no call it can read either.
        return {(None if api == "gemini" and i is None else i, n, _dumps(a)) for i, n, _, a in calls}
    except (KeyError, TypeError, AttributeError, IndexError, ValueError, RecursionError):
        return None


def _admitted_faithfully(
    recorded: Recorded, got: Any, allowed: set[tuple[str | None, str, str]] | None
) -> None:
    """Every admitted call is one the recording holds (or, after moved fragments, one the stream says)."""
    if not isinstance(got, outcome.NeedsTools):
        return
    for admitted in got.admitted:
        key = _key(recorded.api, admitted.call)
        if key in recorded.keys:
            continue
        as_json = (key[0], key[1], _dumps(_as_json(key[2])))
        assert allowed is not None, f"{recorded.name}: an altered call was admitted"
        assert as_json in {(i, n, _dumps(_as_json(a))) for i, n, a in allowed}, (
            f"{recorded.name}: an altered call was admitted"
        )


def _sse(events: list[Any]) -> bytes:
    """Events as SSE text again (hostile values included), through the framer."""
    out = []
    for event in events:
        try:
            data = event if isinstance(event, str) else render(event)
        except NotJson:
            data = "{"
        out.append(f"data: {data}\n\n")
    return "".join(out).encode("utf-8", "surrogatepass")


class TestStreamFuzz:
    """Mutated recordings never raise and never admit a call the recording does not hold."""

    @given(mutated(), st.integers(1, 97))
    def test_mutated_events(self, case: tuple[Recorded, list[Any], bool], chunk: int) -> None:
        """Events dropped, repeated, swapped or given hostile members: no raise, no altered call admitted."""
        recorded, events, moved = case
        allowed = _independent(recorded.api, events) if moved and recorded.api in NO_REPEAT else set()
        decoder = recorded.module.WIRE.decoder(ResponseLimits())
        for event in events:
            decoder.feed_json(event)
        got = outcome.resolve_stream_with(decoder, recorded.tools, checks=ToolCallChecks.REPORT)
        _admitted_faithfully(recorded, got, allowed)
        body = _sse(events)
        framed = recorded.module.WIRE.decoder(ResponseLimits())
        for start in range(0, len(body), chunk):
            framed.feed_bytes(body[start : start + chunk])
        got = outcome.resolve_stream_with(framed, recorded.tools, checks=ToolCallChecks.REPORT)
        _admitted_faithfully(recorded, got, allowed)

    @given(st.data())
    def test_cut_anywhere(self, data: st.DataObject) -> None:
        """A stream cut at any byte never yields ``NeedsTools`` with other calls than the whole stream's."""
        recorded = data.draw(st.sampled_from(_streams()))
        cut = data.draw(st.integers(0, len(recorded.body)))
        decoder = recorded.module.WIRE.decoder(ResponseLimits())
        decoder.feed_bytes(recorded.body[:cut])
        got = outcome.resolve_stream_with(decoder, recorded.tools, checks=ToolCallChecks.REPORT)
        if isinstance(got, outcome.NeedsTools):
            assert isinstance(recorded.outcome, outcome.NeedsTools), recorded.name
            assert got.turn.calls == recorded.outcome.turn.calls, recorded.name
            assert got.admitted == recorded.outcome.admitted, recorded.name

    @given(st.data())
    def test_hostile_bytes(self, data: st.DataObject) -> None:
        """Non-UTF-8 bytes, stray line ends or NULs anywhere in the raw stream: never an altered call."""
        recorded = data.draw(st.sampled_from(_streams()))
        body = bytearray(recorded.body)
        for _ in range(data.draw(st.integers(1, 3))):
            at = data.draw(st.integers(0, len(body)))
            body[at:at] = data.draw(
                st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\r", b"\n\n"])
            )
        decoder = recorded.module.WIRE.decoder(ResponseLimits())
        chunk = data.draw(st.integers(1, 4096))
        for start in range(0, len(body), chunk):
            decoder.feed_bytes(bytes(body[start : start + chunk]))
        got = outcome.resolve_stream_with(decoder, recorded.tools, checks=ToolCallChecks.REPORT)
        _admitted_faithfully(recorded, got, None)

    def test_a_stray_byte_before_a_data_line_fails_the_stream(self) -> None:
        """
        A NUL before ``data:``, or a CR inside it, hides that event from SSE framing (a line with an unknown
        field, which the standard ignores): the stream is refused, never read short (a case
        ``test_hostile_bytes`` found).
        """
        for recorded in _streams():
            if not recorded.keys:
                continue
            starts = [at for at in range(len(recorded.body)) if recorded.body.startswith(b"data:", at)]
            for at in starts:
                for where, stray in ((at, b"\x00"), (at + 2, b"\r")):
                    body = recorded.body[:where] + stray + recorded.body[where:]
                    decoder = recorded.module.WIRE.decoder(ResponseLimits())
                    decoder.feed_bytes(body)
                    got = outcome.resolve_stream_with(decoder, recorded.tools, checks=ToolCallChecks.REPORT)
                    assert isinstance(got, outcome.Failure), recorded.name
                    assert isinstance(got.error, ProtocolError), recorded.name

    def test_the_corpus_has_streams_with_calls(self) -> None:
        """The fuzz runs over every API's recorded streams, with calls to admit."""
        streams = _streams()
        assert {s.api for s in streams} == set(MODULES)
        assert all(any(s.keys for s in streams if s.api == api) for api in MODULES)
