"""
Runner overhead per tool call: llm_wire's ``Runner`` against pydantic-ai's ``Agent`` loop, same run.

Both loops run the same script with a no-op async tool: the model calls the tool ``ROUNDS_PER_RUN`` times
(one call per round) and then answers; ``RUNS`` runs make 1,000 tool rounds per loop and pass. The models
are scripted in process (llm_wire: a ``complete(prepared)`` that answers from the conversation, admitted by
``resolve`` like any response; pydantic-ai: its ``FunctionModel``), so the figure is the loop's own cost:
for llm_wire that includes preparing each request's provider body, admission and the contract machinery.
Passes alternate between the loops (CPU time); the ratio is the median of the per-pass ratios.

Then the cost of tracing per round (issue 25): the same runner with no tracer (tracing off: the figure to
compare with an earlier tree's, interleaved) against one given an OpenTelemetry SDK tracer (spans made and
recorded, no exporter), informational.
"""

from __future__ import annotations

import asyncio
import statistics
import time

import attrs
from opentelemetry.sdk.trace import TracerProvider
from pydantic_ai import Agent, UsageLimits
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from benchmarks._harness import print_table
from llm_wire import Prepared, config, request, user
from llm_wire.agent import Runner, reflect
from llm_wire.message import Provider, ToolCall, ToolResult
from llm_wire.outcome import Outcome, resolve
from llm_wire.providers.response import FinishReason, Terminal
from llm_wire.result import Ok

__all__ = ["main", "tracing"]

ROUNDS_PER_RUN = 10
RUNS = 100
PASSES = 5
#: The target: less overhead per tool call than the peer's loop.
TARGET = 1.0


@attrs.frozen
class Noop:
    """Do nothing."""

    async def invoke(self) -> str:
        return "ok"


class Script:
    """The scripted model for llm_wire: call ``noop`` until ``ROUNDS_PER_RUN`` results are in, then answer."""

    async def complete(self, prepared: Prepared) -> Outcome:
        done = sum(1 for message in prepared.request.messages if isinstance(message, ToolResult))
        if done < ROUNDS_PER_RUN:
            calls = (ToolCall(f"c{done}", "noop", "{}"),)
            terminal = Terminal(prepared.provider, FinishReason.TOOL_CALLS, "", calls)
        else:
            terminal = Terminal(prepared.provider, FinishReason.STOP, "done")
        return resolve(Ok(terminal), prepared)


def _script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    done = sum(1 for message in messages if isinstance(message, ModelResponse))
    if done < ROUNDS_PER_RUN:
        return ModelResponse(parts=[ToolCallPart("noop", {}, tool_call_id=f"c{done}")])
    return ModelResponse(parts=[TextPart("done")])


def _peer() -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(_script))

    @agent.tool_plain
    async def noop() -> str:
        """Do nothing."""
        return "ok"

    return agent


async def _ours(runner: Runner) -> None:
    for _ in range(RUNS):
        result = await runner.arun(request("m", [user("go")]))
        assert result.text == "done"


async def _theirs(agent: Agent[None, str]) -> None:
    limits = UsageLimits(request_limit=ROUNDS_PER_RUN + 1)
    for _ in range(RUNS):
        result = await agent.run("go", usage_limits=limits)
        assert result.output == "done"


def _cpu(work: object) -> float:
    start = time.process_time()
    asyncio.run(work)  # type: ignore[arg-type]
    return time.process_time() - start


def _runner(*, traced: bool = False) -> Runner:
    tracer = TracerProvider().get_tracer("bench") if traced else None
    return Runner(
        Script(), config(Provider.OPENAI_CHAT), reflect(Noop), max_tool_rounds=ROUNDS_PER_RUN, tracer=tracer
    )


def tracing(passes: int = PASSES) -> tuple[float, float, list[float]]:
    """
    Microseconds per round with tracing off and on (medians of alternating passes), and the per-pass
    ratios on / off.
    """
    off, on = _runner(), _runner(traced=True)
    _cpu(_ours(off))
    _cpu(_ours(on))
    untraced, traced = [], []
    for _ in range(passes):
        untraced.append(_cpu(_ours(off)))
        traced.append(_cpu(_ours(on)))
    rounds = RUNS * ROUNDS_PER_RUN
    ratios = [a / b for a, b in zip(traced, untraced, strict=True)]
    return statistics.median(untraced) / rounds * 1e6, statistics.median(traced) / rounds * 1e6, ratios


def main() -> None:
    runner = _runner()
    agent = _peer()
    _cpu(_ours(runner))
    _cpu(_theirs(agent))
    ours, theirs = [], []
    for _ in range(PASSES):
        ours.append(_cpu(_ours(runner)))
        theirs.append(_cpu(_theirs(agent)))
    calls = RUNS * ROUNDS_PER_RUN
    ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
    ratio = statistics.median(ratios)
    rows = [
        ["llm_wire Runner", f"{statistics.median(ours) / calls * 1e6:.0f}", "1.00x"],
        ["pydantic-ai Agent", f"{statistics.median(theirs) / calls * 1e6:.0f}", f"{1 / ratio:.2f}x"],
    ]
    print_table(
        f"Agent loop overhead per tool call (no-op tool, {calls} rounds per loop and pass, {PASSES} passes)",
        ["loop", "µs per tool call", "cost vs llm_wire"],
        rows,
    )
    spread = f"{min(ratios):.2f}-{max(ratios):.2f}"
    verdict = "met" if ratio < TARGET else "MISS"
    print(f"\nllm_wire / pydantic-ai = {ratio:.3f} (spread {spread}); target < {TARGET:.1f}: {verdict}")
    off, on, traced = tracing()
    print_table(
        f"Tracing per round (no-op tool, {calls} rounds per pass, {PASSES} passes)",
        ["runner", "µs per round", "cost vs off"],
        [
            ["tracing off (no tracer)", f"{off:.0f}", "1.00x"],
            ["tracing on (SDK tracer, no exporter)", f"{on:.0f}", f"{statistics.median(traced):.2f}x"],
        ],
    )


if __name__ == "__main__":
    main()
