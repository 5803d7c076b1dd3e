"""
Recorded provider requests (``../shared/corpora/provider-responses``) re-declared and re-encoded.

Every function tool in a recorded request body is declared again from its JSON Schema and encoded by
``prepare`` for the same API; the encoded declaration must equal the recorded one as JSON, or differ only
where the projection reports a loss, or by a difference this test names. Every recorded history with calls
and results is rebuilt as messages and re-encoded: the calls and results must come out paired with the same
ids, in the same order, with the same arguments. Counts per provider are printed.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator
from pathlib import Path as FilePath
from typing import Any

import pytest

import llm_wire as rq
from llm_wire.demo.recorded import Recorded, lowercase_types, recorded_tools
from llm_wire.message import AssistantTurn, Message, Provider, ToolCall, ToolResult
from llm_wire.providers.google import GoogleSchema
from llm_wire.providers.projection import Projection
from llm_wire.result import Err, Ok, unwrap
from llm_wire.tool import Tool, from_json_schema
from llm_wire.value import Limits, Path, Value, parse, render

CORPUS = FilePath(__file__).resolve().parents[3] / "shared" / "corpora" / "provider-responses"
APIS = {
    "openai-chat": Provider.OPENAI_CHAT,
    "openai-responses": Provider.OPENAI_RESPONSES,
    "anthropic": Provider.ANTHROPIC,
    "gemini": Provider.GOOGLE,
}

pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"provider-responses corpus not found at {CORPUS}"
)


def declare(name: str, description: str, document: Value) -> Tool:
    """A tool from a JSON Schema document, through ``tool.from_json_schema``."""
    return unwrap(from_json_schema(name, description, document))


def records(api: str) -> Iterator[tuple[str, Any]]:
    for path in sorted((CORPUS / api).glob("*.json")):
        document = unwrap(parse(path.read_bytes(), Limits(max_bytes=64 * 1024 * 1024)))
        assert isinstance(document, dict)
        body = document.get("request")
        if isinstance(body, dict):
            yield path.name, body


# ---------------------------------------------------------------------------------------------------------
# Tools.


def wire_tools(api: str, body: Any) -> list[dict[str, Any]]:
    """Our encoded declarations, in the shape ``recorded_tools`` reads."""
    out: list[dict[str, Any]] = []
    for entry in body.get("tools", []):
        if api == "openai-chat":
            fn = entry["function"]
            out.append({**fn, "schema": fn["parameters"]})
        elif api == "openai-responses":
            out.append({**entry, "schema": entry["parameters"]})
        elif api == "anthropic":
            out.append({**entry, "schema": entry["input_schema"]})
        else:
            for fd in entry["functionDeclarations"]:
                key = "parameters" if "parameters" in fd else "parametersJsonSchema"
                out.append({**fd, "schema": fd[key], "strict": None})
    return out


def differences(ours: Any, theirs: Any, path: Path = ()) -> Iterator[Path]:
    """Paths where two JSON values differ (a member on one side only, or unequal leaves)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in {*ours, *theirs}:
            if key not in ours or key not in theirs:
                yield (*path, key)
            else:
                yield from differences(ours[key], theirs[key], (*path, key))
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for n, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            yield from differences(a, b, (*path, n))
    elif render(ours) != render(theirs):
        yield path


def explained(diff: Path, projection: Projection) -> str | None:
    """The loss that explains a difference in the wire schema, by its keyword, or ``None``."""
    for loss in projection.losses:
        full = (*loss.path, loss.keyword)
        if diff[: len(full)] == full or (
            diff[: len(loss.path)] == loss.path and diff[len(loss.path) :] == ()
        ):
            return loss.keyword
    return None


def config_for(api: str, tool: Recorded) -> rq.Config:
    config = rq.config(APIS[api]).with_limit(rq.Limit.REQUEST_BYTES, 64 * 1024 * 1024)
    if tool.strict is True:
        config = config.with_strict_tools(True)
    if tool.key == "parameters":
        config = config.with_google_schema(GoogleSchema.OPENAPI)
    return config


def check_tool(api: str, tool: Recorded, named: Counter[str]) -> str:
    """``"equal"`` or ``"losses"``; fails the test on any unexplained difference."""
    source = tool.json_schema
    description = tool.description if isinstance(tool.description, str) else ""
    if not isinstance(tool.description, str):
        named["description absent or null, sent as empty text"] += 1
    declared = declare(tool.name, description, source)
    req = rq.request("model", [rq.user("x")]).with_tools([declared])
    prepared = unwrap(rq.prepare(config_for(api, tool), req))
    [ours] = wire_tools(api, prepared.body)
    projection = prepared.projections[tool.name]
    theirs = tool.schema
    if tool.key == "parameters" and render(lowercase_types(theirs)) == render(theirs):
        named["legacy parameters recorded with lowercase types (Gemini reads either case)"] += 1
        theirs = copy.deepcopy(ours["schema"])
        assert render(lowercase_types(theirs)) == render(lowercase_types(tool.schema))
    assert ours["name"] == tool.name
    assert ours["description"] == description
    assert bool(ours.get("strict")) is (tool.strict is True), tool.name
    for member in set(tool.raw) - {"name", "description", "parameters", "input_schema", "strict", "type"}:
        if member not in ("parametersJsonSchema", "parameters_json_schema"):
            named[f"tool option not modelled: {member}"] += 1
    diffs = list(differences(ours["schema"], theirs))
    if not diffs:
        return "equal"
    for diff in diffs:
        keyword = explained(diff, projection)
        assert keyword is not None, f"{tool.name}: unexplained difference at {diff}"
        named[f"projection loss: {keyword}"] += 1
    return "losses"


class TestRecordedTools:
    """Recorded tool declarations re-encode to what was sent."""

    @pytest.mark.parametrize("api", list(APIS))
    def test_recorded_tools_re_encode(self, api: str) -> None:
        counts: Counter[str] = Counter()
        named: Counter[str] = Counter()
        for _, body in records(api):
            for tool in recorded_tools(APIS[api], body):
                counts[check_tool(api, tool, named)] += 1
        print(f"\n{api}: {sum(counts.values())} tools re-encoded: {dict(counts)}")
        for reason, n in sorted(named.items()):
            print(f"  named difference x{n}: {reason}")
        assert sum(counts.values()) > 0


# ---------------------------------------------------------------------------------------------------------
# Histories: rebuild the messages, re-encode, compare the call/result pairing.


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [part.get("text", "") for part in content if isinstance(part, dict) and "text" in part]
        return "\n".join(texts) if texts else render(content)
    return render(content)


def camel(value: Any) -> Any:
    """Gemini parts recorded by the Python SDK in snake_case, in the REST API's camelCase."""
    if isinstance(value, dict):
        return {
            (k.split("_")[0] + "".join(w.title() for w in k.split("_")[1:]) if k != "$ref" else k): camel(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [camel(v) for v in value]
    return value


def rebuild(api: str, body: dict[str, Any]) -> list[Message]:
    """The recorded history as llm_wire messages (text and calls; media is out of scope)."""
    messages: list[Message] = []
    provider = APIS[api]
    if api == "openai-chat":
        for m in body["messages"]:
            role = m["role"]
            if role == "assistant":
                calls = tuple(
                    ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
                    for c in m.get("tool_calls", [])
                )
                messages.append(AssistantTurn(text_of(m.get("content") or ""), calls, provider))
            elif role == "tool":
                messages.append(ToolResult(m["tool_call_id"], text_of(m["content"])))
            elif role in ("system", "developer"):
                messages.append(rq.system(text_of(m["content"])))
            else:
                messages.append(rq.user(text_of(m["content"])))
    elif api == "openai-responses":
        items: list[Any] = body["input"] if isinstance(body.get("input"), list) else []
        pending: list[Any] = []

        def flush() -> None:
            if pending:
                calls = tuple(
                    ToolCall(i["call_id"], i["name"], i["arguments"], i.get("id"))
                    for i in pending
                    if i.get("type") == "function_call"
                )
                text = "".join(text_of(i.get("content")) for i in pending if i.get("role") == "assistant")
                messages.append(AssistantTurn(text, calls, provider, None, list(pending)))
                pending.clear()

        for item in items:
            kind = item.get("type")
            if kind in ("function_call", "reasoning") or (item.get("role") == "assistant"):
                pending.append(item)
                continue
            flush()
            if kind == "function_call_output":
                messages.append(ToolResult(item["call_id"], text_of(item["output"])))
            elif item.get("role") in ("system", "developer"):
                messages.append(rq.system(text_of(item.get("content"))))
            elif item.get("role") == "user":
                messages.append(rq.user(text_of(item.get("content"))))
        flush()
    elif api == "anthropic":
        for m in body["messages"]:
            content = m["content"]
            if m["role"] == "assistant":
                blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
                calls = tuple(
                    ToolCall(b["id"], b["name"], render(b["input"]))
                    for b in blocks
                    if b.get("type") == "tool_use"
                )
                text = "".join(b["text"] for b in blocks if b.get("type") == "text")
                messages.append(AssistantTurn(text, calls, provider, None, blocks))
                continue
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            rest = [b for b in blocks if b.get("type") != "tool_result"]
            messages.extend(
                ToolResult(b["tool_use_id"], text_of(b.get("content", "")), b.get("is_error") is True)
                for b in blocks
                if b.get("type") == "tool_result"
            )
            if rest:
                messages.append(rq.user(text_of(rest)))
    else:
        for content in camel(body.get("contents", [])):
            parts = content.get("parts", [])
            if content.get("role") == "model":
                calls = tuple(
                    ToolCall(
                        p["functionCall"].get("id") or f"call_{n}",
                        p["functionCall"]["name"],
                        render(p["functionCall"].get("args", {})),
                        p["functionCall"].get("id"),
                        p.get("thoughtSignature"),
                    )
                    for n, p in enumerate(parts)
                    if "functionCall" in p
                )
                text = "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
                messages.append(AssistantTurn(text, calls, provider, None, parts))
                continue
            answered = [p["functionResponse"] for p in parts if "functionResponse" in p]
            for n, r in enumerate(answered):
                messages.append(ToolResult(r.get("id") or f"call_{n}", render(r.get("response", {}))))
            rest = [p for p in parts if "functionResponse" not in p]
            if rest:
                messages.append(rq.user(text_of(rest)))
    return messages


def pairing(api: str, body: Any) -> list[tuple[str, ...]]:
    """The calls (id, name, arguments) and results (id) of a body, in order."""
    found: list[tuple[str, ...]] = []
    if api == "openai-chat":
        for m in body["messages"]:
            found.extend(
                ("call", c["id"], c["function"]["name"], c["function"]["arguments"])
                for c in m.get("tool_calls") or []
            )
            if m["role"] == "tool":
                found.append(("result", m["tool_call_id"]))
    elif api == "openai-responses":
        for item in body["input"] if isinstance(body.get("input"), list) else []:
            if item.get("type") == "function_call":
                found.append(("call", item["call_id"], item["name"], item["arguments"], item.get("id") or ""))
            elif item.get("type") == "function_call_output":
                found.append(("result", item["call_id"]))
            elif item.get("type") == "reasoning":
                found.append(("reasoning", render(item)))
    elif api == "anthropic":
        for m in body["messages"]:
            for b in m["content"] if isinstance(m["content"], list) else []:
                if b.get("type") == "tool_use":
                    found.append(("call", b["id"], b["name"], render(b["input"])))
                elif b.get("type") == "tool_result":
                    found.append(("result", b["tool_use_id"], str(b.get("is_error") is True)))
                elif b.get("type") in ("thinking", "redacted_thinking"):
                    found.append(("thinking", render(b)))
    else:
        for content in camel(body.get("contents", [])):
            for p in content.get("parts", []):
                if "functionCall" in p:
                    call = p["functionCall"]
                    found.append(("call", call.get("id") or "", call["name"], render(call.get("args", {}))))
                    found.append(("signature", p.get("thoughtSignature") or ""))
                elif "functionResponse" in p:
                    found.append(
                        ("result", p["functionResponse"].get("id") or "", p["functionResponse"]["name"])
                    )
    return found


class TestRecordedHistories:
    """Recorded histories re-encode with every call paired to its result."""

    @pytest.mark.parametrize("api", list(APIS))
    def test_recorded_histories_re_encode_paired(self, api: str) -> None:
        histories = pairs = continuations = orphans = 0
        for name, body in records(api):
            expected = pairing(api, body)
            if not any(entry[0] == "result" for entry in expected):
                continue
            if "previous_response_id" in body or "conversation" in body:
                # The calls live in a server-side conversation; llm_wire always sends the whole history.
                continuations += 1
                continue
            messages = rebuild(api, body)
            config = rq.config(APIS[api]).with_limit(rq.Limit.REQUEST_BYTES, 64 * 1024 * 1024)
            match rq.prepare(config, rq.request("model", messages)):
                case Err(rq.OrphanResult(call_id=call_id)) if not any(
                    e[0] == "call" and e[1] == call_id for e in expected
                ):
                    # The recorded body itself answers a call it does not contain: prepare rightly refuses it.
                    orphans += 1
                    continue
                case Err(error):
                    pytest.fail(f"{name}: {error.describe()}")
                case Ok(prepared):
                    pass
            ours = pairing(api, prepared.body)
            if api == "gemini":
                # Gemini pairs by id where the call has one; a call without one is answered by name and order.
                expected = [e for e in expected if e[:2] != ("result", "")]
                ours = [o for o in ours if not (o[0] == "result" and o[1].startswith("call_"))]
            assert ours == expected, name
            histories += 1
            pairs += sum(1 for entry in expected if entry[0] == "result")
        print(f"\n{api}: {histories} recorded histories re-encoded with {pairs} call/result pairs matched")
        if orphans:
            print(
                f"  named difference x{orphans}: "
                "recorded result answers a call absent from the body (refused)"
            )
        if continuations:
            print(
                f"  named difference x{continuations}: "
                "server-side continuation (previous_response_id), not sent"
            )
        assert histories > 0
