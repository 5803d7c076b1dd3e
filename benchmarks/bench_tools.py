"""
Many tools: declaring 1,000 MCP tools, preparing a request that carries them, a tool round with them all
declared, and the memory each loaded tool keeps, each against its peer in the same run.

The tools are the MCP corpus's input schemas (``../shared/corpora/mcp-tools``) taken in turn under unique
names until there are as many as asked. Rows:

- ``prepare`` (Anthropic, which documents no tool count where OpenAI takes 128; tools cached after the first
  request) against ``json.dumps`` of the same body, and the same at 100, 1,000 and 5,000 tools, whose cost
  per tool shows prepare linear in tools: its growth from 100 to 5,000 tools against the growth of
  ``json.dumps`` of the same bodies (which itself costs more per byte once a body outgrows the caches);
- one tool round (the scripted model of ``bench_agent`` calls a no-op tool, the other 1,000 tools declared)
  against pydantic-ai's ``Agent`` with the same 1,000 tools (``Tool.from_schema``);
- declaring 1,000 tools (``tool.from_json_schema``) against pydantic-ai's ``Tool.from_schema``, which
  compiles no validation, plus jsonschema_rs compiling each schema (``validator_for``);
- memory per loaded tool (tracemalloc, tools kept alive, documents parsed before) against a jsonschema
  validator of the same document, shared or on its own copy.
"""

from __future__ import annotations

import asyncio
import copy
import gc
import json
import statistics
import time
import tracemalloc
from collections.abc import Callable, Sequence
from typing import Any

import jsonschema
import jsonschema_rs
from pydantic_ai import Agent, UsageLimits
from pydantic_ai import Tool as PeerTool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from benchmarks import bench_agent
from benchmarks._harness import CORPORA, interleaved, print_table
from llm_wire import Limit, Request, config, prepare, request, tool, user
from llm_wire.admission import admit
from llm_wire.agent import Runner, ToolDescriptor, ToolOutcome, compose, reflect
from llm_wire.agent import ToolInvocation as Invocation
from llm_wire.message import Provider, ToolCall
from llm_wire.result import unwrap
from llm_wire.tool import Tool

__all__ = ["declarations", "main", "ok_tool", "summary_rows"]

#: The tool counts of the scale rows.
SCALES = (100, 1_000, 5_000)
TOOLS = 1_000
KIB = 1024
Row = list[object]


def declarations(count: int) -> list[tuple[str, str, Any]]:
    """``count`` (name, description, input schema) from the MCP corpus, in turn, under unique names."""
    corpus: list[tuple[str, str, Any]] = [
        (declared["name"], declared.get("description") or "", declared["inputSchema"])
        for path in sorted((CORPORA / "mcp-tools").glob("*.json"))
        for declared in json.loads(path.read_text(encoding="utf-8"))["tools"]
    ]
    return [
        (f"{name[:50]}_{n}", description, schema)
        for n, (name, description, schema) in ((n, corpus[n % len(corpus)]) for n in range(count))
    ]


def _tools(count: int) -> list[Tool]:
    return [unwrap(tool.from_json_schema(*declared)) for declared in declarations(count)]


def _row(what: str, peer: str, ratios: Sequence[float], target: str, met: Callable[[float], bool]) -> Row:
    ratio = statistics.median(ratios)
    return [
        what,
        peer,
        f"{ratio:.2f}x",
        f"{min(ratios):.2f}-{max(ratios):.2f}",
        target,
        "" if met(ratio) else "MISS",
    ]


# ---------------------------------------------------------------------------------------------------------
# prepare


def _prepare_runs(tools: list[Tool]) -> tuple[Callable[[], object], Callable[[], object], int]:
    """``prepare`` of a request declaring ``tools`` (cache warm), ``json.dumps`` of its body, body bytes."""
    cfg = config(Provider.ANTHROPIC).with_limit(Limit.REQUEST_BYTES, 64 << 20)
    req: Request = request("m", [user("What is in the repository?")]).with_tools(tools)
    prepared = unwrap(prepare(cfg, req))
    body = prepared.body

    def dumps() -> str:
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False, default=str)

    assert json.loads(dumps()) == json.loads(prepared.body_json())
    return (lambda: prepare(cfg, req)), dumps, len(prepared.body_bytes())


def prepare_rows(*, rounds: int = 9) -> list[Row]:
    """``prepare`` with 1,000 tools against ``json.dumps``, and its cost per tool at each scale."""
    rows: list[Row] = []
    per_tool: dict[int, tuple[float, float]] = {}
    for count in SCALES:
        ours, theirs, size = _prepare_runs(_tools(count))
        samples = interleaved([ours, theirs], rounds=rounds, min_time=0.05)
        ratios = [a / b for a, b in zip(*samples, strict=True)]
        per_tool[count] = (statistics.median(samples[0]) / count, statistics.median(samples[1]) / count)
        if count == TOOLS:
            what = f"prepare, {count:,} MCP tools (Anthropic body {size // 1000} KB)"
            rows.append(_row(what, "json.dumps of the same body", ratios, "<= 1.5x", lambda r: r <= 1.5))
    # Linear as the peer is: json.dumps itself costs more per byte as the body outgrows the caches.
    (small, small_dumps), (large, large_dumps) = per_tool[SCALES[0]], per_tool[SCALES[-1]]
    growth, dumps_growth = large / small, large_dumps / small_dumps
    scale = ", ".join(f"{count:,}: {per_tool[count][0] * 1e6:.1f} µs" for count in SCALES)
    rows.append(
        [
            f"prepare, cost per tool at {SCALES[-1]:,} / at {SCALES[0]:,} tools: {growth:.2f}x ({scale})",
            f"json.dumps' own growth ({dumps_growth:.2f}x)",
            f"{growth / dumps_growth:.2f}x",
            "-",
            "<= 1.5x",
            "" if growth / dumps_growth <= 1.5 else "MISS",
        ]
    )
    return rows


# ---------------------------------------------------------------------------------------------------------
# A tool round with 1,000 tools declared


class _Declared:
    """A provider of schema tools that each answer ``ok`` (the round calls only ``noop``)."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self._descriptors = tuple(ToolDescriptor(made) for made in tools)

    def descriptors(self) -> Sequence[ToolDescriptor]:
        return self._descriptors

    async def invoke(self, invocation: Invocation) -> ToolOutcome:
        return ToolOutcome.success("ok")

    def capabilities(self, name: str) -> None:
        return None


async def ok_tool(**_: Any) -> str:
    return "ok"


def _script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """pydantic-ai's scripted model: ``bench_agent.Script``'s twin (call ``noop``, then answer)."""
    done = sum(1 for message in messages if isinstance(message, ModelResponse))
    if done < bench_agent.ROUNDS_PER_RUN:
        return ModelResponse(parts=[ToolCallPart("noop", {}, tool_call_id=f"c{done}")])
    return ModelResponse(parts=[TextPart("done")])


def _peer(found: list[tuple[str, str, Any]]) -> Agent[None, str]:
    tools = [PeerTool.from_schema(ok_tool, name, description, schema) for name, description, schema in found]
    agent: Agent[None, str] = Agent(FunctionModel(_script), tools=tools)

    @agent.tool_plain
    async def noop() -> str:
        """Do nothing."""
        return "ok"

    return agent


def round_row(*, passes: int = 5) -> Row:
    """One tool round with 1,000 tools declared, against pydantic-ai's agent loop with the same tools."""
    found = declarations(TOOLS)
    provider = compose(
        reflect(bench_agent.Noop), _Declared([unwrap(tool.from_json_schema(*d)) for d in found])
    )
    runner = Runner(bench_agent.Script(), config(Provider.ANTHROPIC), provider, max_tool_rounds=10)
    agent = _peer(found)
    limits = UsageLimits(request_limit=bench_agent.ROUNDS_PER_RUN + 1)

    async def ours() -> None:
        result = await runner.arun(request("m", [user("go")]))
        assert result.text == "done"

    async def theirs() -> None:
        result = await agent.run("go", usage_limits=limits)
        assert result.output == "done"

    def cpu(work: Callable[[], Any]) -> float:
        start = time.process_time()
        asyncio.run(work())
        return time.process_time() - start

    cpu(ours)
    cpu(theirs)
    ratios, mine = [], []
    for _ in range(passes):
        a, b = cpu(ours), cpu(theirs)
        ratios.append(a / b)
        mine.append(a / (bench_agent.ROUNDS_PER_RUN + 1))
    what = (
        f"a tool round, {TOOLS:,} MCP tools declared ({statistics.median(mine) * 1e3:.1f} ms per model call)"
    )
    return _row(what, "pydantic-ai Agent, same tools", ratios, "<= 1x", lambda r: r <= 1)


# ---------------------------------------------------------------------------------------------------------
# Declaring 1,000 tools


def declare_rows(*, rounds: int = 7) -> list[Row]:
    """``tool.from_json_schema`` x 1,000 against ``Tool.from_schema`` plus jsonschema_rs compiling each."""
    found = declarations(TOOLS)

    def ours() -> object:
        return [tool.from_json_schema(*declared) for declared in found]

    def peer() -> object:
        return [
            PeerTool.from_schema(ok_tool, name, description, schema) for name, description, schema in found
        ]

    def rust() -> object:
        return [jsonschema_rs.validator_for(schema) for _, _, schema in found]

    samples = interleaved([ours, peer, rust], rounds=rounds, min_time=0.1)
    to_sum = [a / (b + c) for a, b, c in zip(*samples, strict=True)]
    to_peer = [a / b for a, b in zip(samples[0], samples[1], strict=True)]
    ms = [statistics.median(s) * 1e3 for s in samples]
    what = f"declare {TOOLS:,} MCP tools (from_json_schema, {ms[0]:.0f} ms)"
    peers = f"pydantic-ai Tool.from_schema {ms[1]:.0f} ms + jsonschema_rs compile {ms[2]:.0f} ms"
    return [
        _row(what, peers, to_sum, "<= 1x", lambda r: r <= 1),
        _row(what, "pydantic-ai Tool.from_schema alone (informational)", to_peer, "-", lambda _: True),
    ]


# ---------------------------------------------------------------------------------------------------------
# Memory per loaded tool


def _kept_bytes(make: Callable[[], list[Any]]) -> float:
    """Bytes per item ``make`` allocates and keeps, by tracemalloc (after a warm-up run)."""
    make()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = make()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return (after - before) / len(kept)


def _minimal(schema: Any) -> Any:
    """Arguments the schema accepts for its required members, when simple."""
    if not isinstance(schema, dict):
        return {}
    required = schema.get("required") or []
    properties = schema.get("properties") or {}
    simple = {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}
    arguments: dict[str, Any] = {}
    for name in required:
        sub = properties.get(name, {})
        kind = sub.get("type") if isinstance(sub, dict) else None
        if isinstance(sub, dict) and "enum" in sub:
            arguments[name] = sub["enum"][0]
        elif isinstance(kind, str) and kind in simple:
            arguments[name] = simple[kind]
    return arguments


def memory_rows() -> list[Row]:
    """Memory per loaded MCP tool, against a jsonschema validator of the document (shared and copied)."""
    found = declarations(270)
    found = [copy.deepcopy(declared) for declared in found]  # the documents exist before the count

    def ours() -> list[Any]:
        return [unwrap(tool.from_json_schema(*declared)) for declared in found]

    def used() -> list[Any]:
        made = ours()
        for n, (declared, (_, _, schema)) in enumerate(zip(made, found, strict=True)):
            call = ToolCall(f"c{n}", declared.name, json.dumps(_minimal(schema)))
            admit([call], [declared])
        return made

    def shared() -> list[Any]:
        return [jsonschema.Draft202012Validator(schema) for _, _, schema in found]

    def copied() -> list[Any]:
        return [jsonschema.Draft202012Validator(copy.deepcopy(schema)) for _, _, schema in found]

    loaded = _kept_bytes(ours) / KIB
    after = _kept_bytes(used) / KIB
    peer, own = _kept_bytes(shared) / KIB, _kept_bytes(copied) / KIB
    document = _kept_bytes(lambda: [copy.deepcopy(schema) for _, _, schema in found]) / KIB
    peers = (
        f"jsonschema validator {peer:.1f} KiB ({own:.1f} KiB on its own copy); document {document:.1f} KiB"
    )
    return [
        [
            f"memory per loaded MCP tool, {len(found)} tools ({loaded:.1f} KiB)",
            peers,
            f"{loaded:.1f} KiB",
            "-",
            "<= 3 KiB",
            "" if loaded <= 3 else "MISS",
        ],
        [
            f"memory per MCP tool after its first admission ({after:.1f} KiB, contract compiled)",
            peers,
            f"{after:.1f} KiB",
            "-",
            "- (informational)",
            "",
        ],
    ]


def summary_rows() -> list[Row]:
    """The rows ``bench_summary`` adds to its table (the MCP corpus is needed)."""
    if not (CORPORA / "mcp-tools").is_dir():
        print(f"\nsummary: many-tools rows skipped, {CORPORA / 'mcp-tools'} not found")
        return []
    return [*prepare_rows(), round_row(), *declare_rows(), *memory_rows()]


def main() -> None:
    """Print the many-tools table."""
    rows = summary_rows()
    if rows:
        print_table(
            "Many tools: 1,000 MCP tools per request, declared, in a round, and in memory",
            ["row", "peer", "ratio", "spread (min-max)", "target", "mark"],
            rows,
        )


if __name__ == "__main__":
    main()
