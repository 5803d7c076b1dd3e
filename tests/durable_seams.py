"""
The application the seam properties run in one subprocess, under one DBOS launch: the plain ``Runner`` and
the ``DurableRunner`` (DBOS on SQLite) over the same tools and the same model, compared example by example.

``python tests/durable_seams.py DIR`` runs two hypothesis properties and prints one JSON line per example,
then ``{"passed": [...]}``; a falsified property makes the exit status 1, with its example on stderr.

- retry advice: for every contract (side effect x idempotency x compensation) and timeout point, the
  ``retryable`` the model sees is true exactly when repeating is safe by the contract, and exactly when the
  runner itself repeated the call; both runners show the same text.
- output bounds: for any tool output (text, structured, failure) under any tool ceilings of a grid, the
  text the model sees fits both ceilings in both runners (the same text), is JSON for a structured payload,
  and the whole outcome reaches ``on_event`` (``ToolCompleted``) and the run store.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from dbos import DBOS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llm_wire import Prepared, config, request, user
from llm_wire.agent import (
    Compensation,
    ErrorCategory,
    Idempotency,
    OutputCeilings,
    ProviderCapabilities,
    Runner,
    SideEffect,
    ToolContract,
    ToolDescriptor,
    ToolInvocation,
    ToolOutcome,
    ToolRetryPolicy,
)
from llm_wire.agent.events import RunEvent, ToolCompleted
from llm_wire.agent.projection import HeuristicEstimator
from llm_wire.agent.store import RunRecord, SqliteRunStore
from llm_wire.agent.store._rules import sha256_hex
from llm_wire.durable import DurableRunner, sqlite_config
from llm_wire.message import AssistantTurn, Provider, ToolCall, ToolResult, UserMessage
from llm_wire.outcome import Outcome, resolve
from llm_wire.providers.response import FinishReason, Terminal
from llm_wire.result import Ok, unwrap
from llm_wire.value import Value

#: The grid offers 186 tools in one request: over OpenAI's 128 and under no limit Anthropic documents.
CONFIG = config(Provider.ANTHROPIC)
SCHEMA = '{"type":"object"}'
#: The tools' own deadline, and how long a tool that overruns it sleeps.
TIMEOUT = 0.05
OVERRUN = 0.5
POINTS = ("deadline", "raised", "partial")
COMPENSATIONS = ("off", "undone", "fails")
BYTES = (256, 257, 300, 512, 1024, 4096, None)
TOKENS = (64, 65, 100, 400, 2000, None)


def _retry_tool(side: SideEffect, idempotency: Idempotency, compensation: str, point: str) -> str:
    return f"r_{side.value}_{idempotency.value}_{compensation}_{point}"


def _output_tool(max_bytes: int | None, max_tokens: int | None) -> str:
    return f"o_{max_bytes}_{max_tokens}"


def safe(idempotency: Idempotency, compensation: str, point: str) -> bool:
    """The rule, written out on its own: a reported partial effect needs its undo; else idempotency."""
    if point == "partial":
        return compensation == "undone"
    return idempotency in (Idempotency.IDEMPOTENT, Idempotency.IDEMPOTENT_WITH_KEY)


def _contract(side: SideEffect, idempotency: Idempotency, compensation: str, point: str) -> ToolContract:
    enabled = compensation != "off"
    repeatable = idempotency in (Idempotency.IDEMPOTENT, Idempotency.IDEMPOTENT_WITH_KEY) or enabled
    # Two attempts wherever the contract allows them: whether the runner repeats is then observable.
    retry = ToolRetryPolicy(max_attempts=2 if repeatable else 1, initial_backoff=0, maximum_backoff=0)
    return ToolContract(
        side_effect=side,
        idempotency=idempotency,
        # Only the deadline point meets the deadline: the others finish (and compensate) well within theirs.
        timeout=TIMEOUT if point == "deadline" else 30.0,
        retry=retry,
        compensation=Compensation(enabled=enabled),
    )


class SeamTools:
    """
    Every contract of the retry grid and every ceiling of the output grid, as one provider; a call's
    arguments say what it does. It counts attempts per call id.
    """

    def __init__(self) -> None:
        self.table: dict[str, tuple[ToolDescriptor, ProviderCapabilities]] = {}
        grid = itertools.product(SideEffect, Idempotency, COMPENSATIONS, POINTS)
        for side, idempotency, compensation, point in grid:
            name = _retry_tool(side, idempotency, compensation, point)
            capabilities = ProviderCapabilities(
                idempotency_key=idempotency is Idempotency.IDEMPOTENT_WITH_KEY,
                compensation=compensation != "off",
            )
            contract = _contract(side, idempotency, compensation, point)
            described = unwrap(ToolDescriptor.from_json_schema(name, "A seam tool.", SCHEMA, contract))
            self.table[name] = (described, capabilities)
        for max_bytes, max_tokens in itertools.product(BYTES, TOKENS):
            name = _output_tool(max_bytes, max_tokens)
            contract = ToolContract(
                output_ceilings=OutputCeilings(max_bytes=max_bytes, max_tokens=max_tokens)
            )
            described = unwrap(ToolDescriptor.from_json_schema(name, "A seam tool.", SCHEMA, contract))
            self.table[name] = (described, ProviderCapabilities())
        self.attempts: dict[str, int] = {}

    def descriptors(self) -> Sequence[ToolDescriptor]:
        return tuple(descriptor for descriptor, _ in self.table.values())

    def capabilities(self, name: str) -> ProviderCapabilities | None:
        entry = self.table.get(name)
        return None if entry is None else entry[1]

    async def invoke(self, invocation: ToolInvocation) -> ToolOutcome:
        self.attempts[invocation.call_id] = self.attempts.get(invocation.call_id, 0) + 1
        arguments = invocation.arguments
        assert isinstance(arguments, dict)
        if "output" in arguments:
            return outcome_of(arguments["output"])
        match arguments["point"]:
            case "deadline":
                await asyncio.sleep(OVERRUN)
                return ToolOutcome.success("late")
            case "raised":
                raise TimeoutError("the upstream service timed out")
            case _:
                return ToolOutcome.failed(
                    ErrorCategory.TIMEOUT, "upstream_timeout", "half done", compensation_required=True
                )

    async def compensate(self, invocation: ToolInvocation, failure: ToolOutcome) -> ToolOutcome:
        if "_undone_" in invocation.name:
            return ToolOutcome.success("undone")
        return ToolOutcome.failed(ErrorCategory.INTERNAL, "undo_failed", "could not undo")


def outcome_of(spec: Value) -> ToolOutcome:
    """The outcome an output spec describes: ``[kind, piece, times]``."""
    assert isinstance(spec, list)
    kind, piece, times = spec
    assert isinstance(kind, str)
    assert isinstance(piece, str)
    assert isinstance(times, int)
    text = piece * times
    if kind == "text":
        return ToolOutcome.success(text)
    if kind == "structured":
        rows: list[Value] = [{"n": n, "text": piece * (n % 7)} for n in range(times % 3000)]
        return ToolOutcome.success("rows", {"rows": rows, "summary": text})
    return ToolOutcome.failed(ErrorCategory.CONFLICT, "busy", text, details={"log": text})


class SeamModel:
    """Round one calls the tool the user message names with its arguments; round two records and ends."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def complete(self, prepared: Prepared) -> Outcome:
        messages = prepared.request.messages
        asked = next(m for m in messages if isinstance(m, UserMessage)).text
        if not any(isinstance(m, AssistantTurn) for m in messages):
            spec = json.loads(asked)
            call = ToolCall("call-1", spec["tool"], json.dumps(spec["arguments"]))
            terminal = Terminal(prepared.provider, FinishReason.TOOL_CALLS, "", (call,))
        else:
            self.seen[asked] = next(m for m in messages if isinstance(m, ToolResult)).content
            terminal = Terminal(prepared.provider, FinishReason.STOP, "done")
        return resolve(Ok(terminal), prepared)


class Seams:
    """One model, one provider, both runners; ``both(spec)`` runs a spec in each."""

    def __init__(self, directory: Path) -> None:
        self.model = SeamModel()
        self.tools = SeamTools()
        self.completed: dict[str, ToolOutcome] = {}
        self.store = SqliteRunStore(directory / "runs.sqlite")
        self.plain = Runner(self.model, CONFIG, self.tools, on_event=self._completed)
        self.durable = DurableRunner("seams", self.model, CONFIG, self.tools, store=self.store)
        self.runs = itertools.count()

    def _completed(self, event: RunEvent) -> None:
        if isinstance(event, ToolCompleted):
            self.completed[event.call.id] = event.outcome

    def both(self, tool: str, arguments: dict[str, Value]) -> dict[str, object]:
        """What the model saw and how often the tool ran, in each runner."""
        n = next(self.runs)
        plain_asked = json.dumps({"tool": tool, "arguments": arguments, "run": f"plain-{n}"})
        self.tools.attempts.clear()
        self.plain.run(request("m", [user(plain_asked)]))
        plain_attempts = self.tools.attempts.get("call-1", 0)
        plain_outcome = self.completed.pop("call-1")
        durable_asked = json.dumps({"tool": tool, "arguments": arguments, "run": f"durable-{n}"})
        self.tools.attempts.clear()
        record = self.durable.run(f"run-{n}", "m", [user(durable_asked)])
        assert isinstance(record, RunRecord)
        return {
            "plain": self.model.seen[plain_asked],
            "durable": self.model.seen[durable_asked],
            "plain_attempts": plain_attempts,
            "durable_attempts": self.tools.attempts.get("call-1", 0),
            "plain_outcome": plain_outcome,
            "record": record,
        }


def check_retry(
    seams: Seams, side: SideEffect, idempotency: Idempotency, compensation: str, point: str
) -> None:
    seen = seams.both(_retry_tool(side, idempotency, compensation, point), {"point": point})
    assert seen["plain"] == seen["durable"], seen
    assert seen["plain_attempts"] == seen["durable_attempts"], seen
    shown = json.loads(str(seen["plain"]))
    error = shown["error"]
    # The runner decided to repeat: it ran the call again, or found no time left for the repeat.
    repeated = int(str(seen["plain_attempts"])) > 1 or error["code"] == "retry_deadline"
    expected = safe(idempotency, compensation, point)
    assert error["retryable"] is expected, (error, expected)
    assert repeated is expected, (seen["plain_attempts"], expected)
    if not expected:
        assert (error["category"], error["code"]) == ("timeout", "outcome_unknown"), error
    print(json.dumps({"retry": [side.value, idempotency.value, compensation, point], "code": error["code"]}))


def check_output(
    seams: Seams, kind: str, piece: str, times: int, max_bytes: int | None, max_tokens: int | None
) -> None:
    spec: list[Value] = [kind, piece, times]
    seen = seams.both(_output_tool(max_bytes, max_tokens), {"output": spec})
    text = str(seen["plain"])
    assert text == seen["durable"]
    limit_bytes = 65536 if max_bytes is None else max_bytes
    limit_tokens = 10000 if max_tokens is None else max_tokens
    assert len(text.encode()) <= limit_bytes, (len(text.encode()), limit_bytes)
    assert HeuristicEstimator().estimate(text) <= limit_tokens
    if kind != "text" or text.startswith("{"):
        json.loads(text)  # a structured payload (or any envelope) stays JSON
    full = outcome_of(spec)
    plain = seen["plain_outcome"]
    assert isinstance(plain, ToolOutcome)
    assert plain == full
    assert plain.data == full.data
    record = seen["record"]
    assert isinstance(record, RunRecord)
    admitted = record.admitted["call-1"].outcome
    assert admitted == full
    assert admitted.data == full.data
    assert record.audits["call-1"].projected_content_sha256 == sha256_hex(text)
    cut = text != full.model_text()
    print(
        json.dumps({"output": [kind, times, max_bytes, max_tokens], "bytes": len(text.encode()), "cut": cut})
    )


_FEW = settings(
    max_examples=14,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def main(directory: Path) -> int:
    DBOS(config=sqlite_config("seams", str(directory / "dbos.sqlite")))
    seams = Seams(directory)
    DBOS.launch()

    @_FEW
    @given(
        st.sampled_from(SideEffect),
        st.sampled_from(Idempotency),
        st.sampled_from(COMPENSATIONS),
        st.sampled_from(POINTS),
    )
    def retry_property(side: SideEffect, idempotency: Idempotency, compensation: str, point: str) -> None:
        check_retry(seams, side, idempotency, compensation, point)

    @_FEW
    @given(
        st.sampled_from(["text", "structured", "failure"]),
        st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=6),
        st.integers(0, 40_000),
        st.sampled_from(BYTES),
        st.sampled_from(TOKENS),
    )
    def output_property(
        kind: str, piece: str, times: int, max_bytes: int | None, max_tokens: int | None
    ) -> None:
        check_output(seams, kind, piece, times, max_bytes, max_tokens)

    passed = []
    for name, prop in (("retry", retry_property), ("output", output_property)):
        try:
            prop()
        except Exception:
            print(f"the {name} property failed:", file=sys.stderr)
            traceback.print_exc()
        else:
            passed.append(name)
    print(json.dumps({"passed": passed}), flush=True)
    return 0 if len(passed) == 2 else 1


if __name__ == "__main__":
    status = main(Path(sys.argv[1]))
    sys.stdout.flush()
    os._exit(status)  # DBOS's background threads (and abandoned tool steps) need not wind down
