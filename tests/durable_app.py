"""
The application the durable crash test runs in real subprocesses: three tools with side effects written to a
file, a scripted model, a SQLite run store that can pause after any write, and a driver that forks workers,
kills them with SIGKILL at chosen points and resumes them.

``python tests/durable_app.py crash BASE SEEDS`` runs SEEDS seeds under BASE (one directory each) and prints
one JSON line per seed; the test reads the directories afterwards. ``replay BASE URL WIRE [KILL_AT]`` runs a
durable run against the fake provider at URL straight through, then one killed in its KILL_AT-th tool call
(the first by default) and resumed. DBOS is imported once here and every worker is a forked child, so a seed
costs a DBOS launch, not an interpreter start.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import select
import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Mapping
from decimal import Decimal
from pathlib import Path

import attrs
from dbos import DBOS

from llm_wire import Config, Prepared, config, user
from llm_wire.agent import (
    Approval,
    Capability,
    CompensatingProvider,
    HeartbeatPolicy,
    Idempotency,
    InvocationContext,
    ProviderCapabilities,
    Risk,
    RunUsage,
    SideEffect,
    ToolContract,
    make_tool,
    reflect,
)
from llm_wire.agent.events import ApprovalRequest, ModelRequest, Verdict
from llm_wire.agent.projection import HeuristicEstimator, ProjectionPolicy
from llm_wire.agent.store import (
    Admission,
    AdmittedResult,
    ProjectionAudit,
    RunRecord,
    RunStatus,
    SqliteRunStore,
    StartedCall,
    StoredResult,
    StoreError,
    Suspended,
)
from llm_wire.durable import DurableRunError, DurableRunner, sqlite_config
from llm_wire.message import AssistantTurn, Provider, ToolCall, ToolResult
from llm_wire.outcome import Outcome, resolve
from llm_wire.providers.response import FinishReason, Terminal, Usage
from llm_wire.result import Err, Ok, Result, unwrap
from llm_wire.transport import Client
from llm_wire.value import Value

RUN_ID = "run-crash"
FINAL = "all six calls answered"
#: The policy the agent runs with: the lookup tool's output (5,000 characters) is always truncated.
POLICY = ProjectionPolicy(max_bytes=1024, max_tokens=256)
#: Which tool each call of the script uses, by call id.
SCRIPT = (
    (("call-0-0", "append_note", '{"text": "first"}'), ("call-0-1", "set_value", '{"value": 1}')),
    (("call-1-0", "lookup", '{"query": "q"}'), ("call-1-1", "append_note", '{"text": "second"}')),
    (("call-2-0", "set_value", '{"value": 2}'), ("call-2-1", "append_note", '{"text": "third"}')),
)

_state: dict[str, object] = {"points": 0, "kill_at": 0, "effects": None}


def point(label: str) -> None:
    """Count a crash point; at the chosen one, say so and wait to be killed."""
    count = int(str(_state["points"])) + 1
    _state["points"] = count
    if count == _state["kill_at"]:
        print(json.dumps({"pause": count, "at": label}), flush=True)
        time.sleep(3600)


def effect(tool: str, ctx: InvocationContext) -> None:
    """The side effect: one line per execution, on disk before the tool returns."""
    path = _state["effects"]
    assert isinstance(path, Path)
    with path.open("a", encoding="utf-8") as out:
        entry: dict[str, object] = {"tool": tool, "call_id": ctx.call_id, "key": ctx.idempotency_key}
        entry.update(run_id=ctx.run_id, trace_id=ctx.trace_id)
        out.write(json.dumps(entry) + "\n")
        out.flush()
        os.fsync(out.fileno())


@attrs.frozen
class AppendNote:
    """Append a note (not idempotent: each run appends again)."""

    text: str

    def invoke(self, ctx: InvocationContext) -> str:
        point("append_note started")
        effect("append_note", ctx)
        point("append_note took effect")
        return f"noted {self.text}"


@attrs.frozen
class SetValue:
    """Set the value (idempotent with its key: the service drops a repeated key)."""

    value: int

    def invoke(self, ctx: InvocationContext) -> str:
        point("set_value started")
        effect("set_value", ctx)
        point("set_value took effect")
        return f"value is {self.value}"


@attrs.frozen
class Lookup:
    """Look something up (a read: idempotent)."""

    query: str

    def invoke(self, ctx: InvocationContext) -> str:
        point("lookup started")
        effect("lookup", ctx)
        point("lookup took effect")
        return "HEAD-" + "r" * 5000 + "-TAIL"


def provider() -> CompensatingProvider:
    """The three tools, with their contracts."""
    return reflect(
        make_tool(AppendNote, contract=ToolContract(idempotency=Idempotency.NON_IDEMPOTENT)),
        make_tool(
            SetValue,
            contract=ToolContract(idempotency=Idempotency.IDEMPOTENT_WITH_KEY),
            capabilities=ProviderCapabilities(idempotency_key=True),
        ),
        make_tool(Lookup, contract=ToolContract(idempotency=Idempotency.IDEMPOTENT)),
    )


class ScriptModel:
    """The scripted model, a function of the conversation: round n makes the calls of ``SCRIPT[n]``."""

    def complete(self, prepared: Prepared) -> Outcome:
        point("model called")
        messages = prepared.request.messages
        rounds = sum(isinstance(m, AssistantTurn) for m in messages)
        if rounds < len(SCRIPT):
            calls = tuple(ToolCall(*call) for call in SCRIPT[rounds])
            terminal = Terminal(prepared.provider, FinishReason.TOOL_CALLS, "", calls)
        else:
            assert sum(isinstance(m, ToolResult) for m in messages) == 6
            terminal = Terminal(prepared.provider, FinishReason.STOP, FINAL)
        return resolve(Ok(terminal), prepared)


class PausingStore:
    """A SQLite run store that counts a crash point after every write."""

    def __init__(self, path: Path) -> None:
        self._inner = SqliteRunStore(path)

    def _after(self, label: str, result: Result[object, StoreError]) -> None:
        point(label)

    def create(
        self, *, run_id: str | None = None, trace_id: str | None = None, metadata: Mapping[str, str] = {}
    ) -> Result[RunRecord, StoreError]:
        result = self._inner.create(run_id=run_id, trace_id=trace_id, metadata=metadata)
        self._after("created", result)
        return result

    def load(self, run_id: str) -> Result[RunRecord, StoreError]:
        return self._inner.load(run_id)

    def transition(
        self, run_id: str, revision: int, status: RunStatus, *, result: StoredResult | None = None
    ) -> Result[RunRecord, StoreError]:
        moved = self._inner.transition(run_id, revision, status, result=result)
        self._after(f"moved to {status.value}", moved)
        return moved

    def start_call(self, run_id: str, revision: int, call: StartedCall) -> Result[Admission, StoreError]:
        started = self._inner.start_call(run_id, revision, call)
        self._after(f"{call.call_id} marked started", started)
        return started

    def admit(self, run_id: str, revision: int, result: AdmittedResult) -> Result[Admission, StoreError]:
        admitted = self._inner.admit(run_id, revision, result)
        self._after(f"{result.call_id} admitted", admitted)
        return admitted

    def record_projection(
        self, run_id: str, revision: int, audit: ProjectionAudit
    ) -> Result[Admission, StoreError]:
        recorded = self._inner.record_projection(run_id, revision, audit)
        self._after(f"{audit.call_id} projection audited", recorded)
        return recorded

    def suspend(
        self,
        run_id: str,
        revision: int,
        pending: tuple[tuple[str, str], ...],
        state: Value,
        policy: ProjectionPolicy,
    ) -> Result[Suspended, StoreError]:
        return self._inner.suspend(run_id, revision, pending, state, policy)

    def resolve_approval(
        self, run_id: str, revision: int, token: str, call_id: str, *, approved: bool, reason: str = ""
    ) -> Result[RunRecord, StoreError]:
        inner = self._inner
        return inner.resolve_approval(run_id, revision, token, call_id, approved=approved, reason=reason)

    def claim(self, run_id: str, revision: int, token: str) -> Result[RunRecord, StoreError]:
        return self._inner.claim(run_id, revision, token)


def worker(directory: Path, kill_at: int, *, start: bool) -> None:
    """One worker process: launch DBOS on the seed's files, then start the run or wait for its recovery."""
    _state.update(points=0, kill_at=kill_at, effects=directory / "effects.jsonl")
    DBOS(config=sqlite_config("crash", str(directory / "dbos.sqlite")))
    runner = DurableRunner(
        "crash",
        ScriptModel(),
        config(Provider.OPENAI_CHAT),
        provider(),
        store=PausingStore(directory / "runs.sqlite"),
        policy=POLICY,
    )
    DBOS.launch()
    ended = runner.run(RUN_ID, "any-model", [user("do the six things")]) if start else runner.wait(RUN_ID)
    assert isinstance(ended, RunRecord)
    print(json.dumps({"done": ended.status.value, "points": _state["points"]}), flush=True)


def _fork(work: Callable[[], None]) -> dict[str, object]:
    """Fork a worker running ``work``; SIGKILL it when it pauses. Returns what it said."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its stdout is the pipe; it never returns into the driver
        os.close(read)
        os.dup2(write, 1)
        code = 0
        try:
            work()
        except BaseException as error:  # report and die: the parent fails the seed
            print(json.dumps({"error": type(error).__name__, "detail": str(error)[:300]}), flush=True)
            code = 1
        sys.stdout.flush()
        os._exit(code)
    os.close(write)
    said: dict[str, object] = {}
    buffer = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([read], [], [], 1.0)
        if not ready:
            continue
        chunk = os.read(read, 65536)
        if not chunk:
            break
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            said = json.loads(line)
            if "pause" in said:
                os.kill(pid, signal.SIGKILL)
    else:
        os.kill(pid, signal.SIGKILL)
        said = {"error": "timeout"}
    os.close(read)
    _, status = os.waitpid(pid, 0)
    said["killed"] = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    return said


def _seed(directory: Path, seed: int, total: int) -> dict[str, object]:
    """One seed: a worker killed at its point, maybe a recovering one killed too, then one that finishes."""
    rng = random.Random(seed)
    # The first seeds kill at every point in turn; the rest kill at a random point, then kill the
    # recovering worker too at a random point of its own (if it gets that far).
    kill_at = seed + 1 if seed < total else rng.randint(1, total)
    steps = [_fork(lambda: worker(directory, kill_at, start=True))]
    if seed >= total:
        again = rng.randint(1, 12)
        steps.append(_fork(lambda: worker(directory, again, start=False)))
    steps.append(_fork(lambda: worker(directory, 0, start=False)))
    return {"seed": seed, "kill_at": kill_at, "steps": steps}


#: Seeds run side by side: a recovering worker mostly waits for DBOS's queue poll (one second).
PARALLEL = 6


def crash(base: Path, seeds: int) -> None:
    """A full run to count the points, then one killed-and-resumed run per seed, each at its own point."""
    dry = base / "dry"
    dry.mkdir(parents=True)
    first = _fork(lambda: worker(dry, 0, start=True))
    print(json.dumps({"seed": "dry", "steps": [first]}), flush=True)
    total = int(str(first.get("points", 0)))
    running: dict[int, int] = {}
    pending = list(range(seeds))
    while pending or running:
        while pending and len(running) < PARALLEL:
            seed = pending.pop(0)
            directory = base / f"seed-{seed}"
            directory.mkdir()
            pid = os.fork()
            if pid == 0:  # a seed runner: forks its own workers, writes its report, never returns
                code = 0
                try:
                    report = _seed(directory, seed, total)
                    (directory / "report.json").write_text(json.dumps(report), encoding="utf-8")
                except BaseException:
                    code = 1
                os._exit(code)
            running[pid] = seed
        pid, _ = os.wait()
        running.pop(pid, None)
    for seed in range(seeds):
        report_path = base / f"seed-{seed}" / "report.json"
        missing = {"seed": seed, "steps": [{"error": "no report"}]}
        text = report_path.read_text(encoding="utf-8") if report_path.exists() else json.dumps(missing)
        print(text, flush=True)


# ---------------------------------------------------------------------------------------------------------
# Approvals (§10 scenarios 46 and 47): a durable run suspends for manual review and resumes


@attrs.frozen
class WriteFile:
    """Write a file (needs approval)."""

    path: str

    def invoke(self, ctx: InvocationContext) -> str:
        effect("write_file", ctx)
        return f"wrote {self.path}"


WRITE_CONTRACT = ToolContract(
    approval=Approval.ALWAYS,
    side_effect=SideEffect.WRITE,
    idempotency=Idempotency.IDEMPOTENT_WITH_KEY,
    capabilities=(Capability("filesystem.write", Risk.HIGH, "writes files"),),
)


#: What every model call of the approval runs reports: OpenAI Chat's usage, cached and reasoning tokens in it.
USAGE = Usage(
    10,
    5,
    15,
    {"prompt_tokens_details": {"cached_tokens": 4}, "completion_tokens_details": {"reasoning_tokens": 2}},
)


class BatchModel:
    """One batch of ``paths`` writes (calls to ``tool``), then an answer; counts its calls."""

    def __init__(self, paths: tuple[str, ...], tool: str = "write_file") -> None:
        self.paths = paths
        self.tool = tool
        self.calls = 0

    def complete(self, prepared: Prepared) -> Outcome:
        self.calls += 1
        if any(isinstance(m, ToolResult) for m in prepared.request.messages):
            answer = Terminal(prepared.provider, FinishReason.STOP, "written", usage=USAGE)
            return resolve(Ok(answer), prepared)
        calls = tuple(ToolCall(f"write-{p}", self.tool, json.dumps({"path": p})) for p in self.paths)
        batch = Terminal(prepared.provider, FinishReason.TOOL_CALLS, "", calls, usage=USAGE)
        return resolve(Ok(batch), prepared)


@attrs.frozen
class ReadFile:
    """Read a file (no approval): its text is long."""

    path: str

    def invoke(self) -> str:
        return "HEAD-" + "x" * 2000


class FailsOnLongText(HeuristicEstimator):
    """The heuristic estimator, raising on a tool's long text only (scenario 41)."""

    def estimate(self, text: str) -> int:
        if "HEAD-xx" in text:
            raise RuntimeError("cannot count this")
        return super().estimate(text)


_priced: list[RunUsage] = []


def pricing(usage: RunUsage) -> Decimal:
    """A cent per thousand tokens; counts its calls."""
    _priced.append(usage)
    return Decimal(usage.total_tokens) / 100000


def clear_context(model_request: ModelRequest) -> ModelRequest:
    """A host hook that clears the execution context (and tries to clear the run and trace ids)."""
    return attrs.evolve(model_request, metadata={}, run_id="", trace_id="")


def approvals(directory: Path) -> dict[str, object]:
    """Scenario 46 (one gated call) and 47 (a batch of two), each suspended and resumed; what was seen."""
    _state.update(points=0, kill_at=0, effects=directory / "effects.jsonl")
    DBOS(config=sqlite_config("approvals", str(directory / "dbos.sqlite")))
    store = SqliteRunStore(directory / "runs.sqlite")
    tools = reflect(
        make_tool(WriteFile, contract=WRITE_CONTRACT, capabilities=ProviderCapabilities(idempotency_key=True))
    )
    asked: list[list[str]] = []

    def approver(request: ApprovalRequest) -> Verdict:
        asked.append([request.call_id, *(c.name for c in request.capabilities)])
        return Verdict.ASK

    one, two = BatchModel(("a",)), BatchModel(("a", "b"))
    policy = ProjectionPolicy(max_bytes=1024, max_tokens=128)
    first = DurableRunner(
        "one",
        one,
        config(Provider.OPENAI_CHAT),
        tools,
        store=store,
        policy=policy,
        approver=approver,
        pricing=pricing,
        prepare_model_request=clear_context,
    )
    three = BatchModel(("r",), "read_file")
    third = DurableRunner(
        "three",
        three,
        config(Provider.OPENAI_CHAT),
        reflect(make_tool(ReadFile)),
        store=store,
        estimator=FailsOnLongText(),
    )
    second = DurableRunner(
        "two", two, config(Provider.OPENAI_CHAT), tools, store=store, policy=policy, approver=approver
    )
    DBOS.launch()
    seen: dict[str, object] = {}
    suspended = first.run("run-one", "any-model", [user("write a")])
    assert isinstance(suspended, Suspended)
    record = suspended.record
    assert record.continuation is not None
    seen["46_suspended"] = {
        "status": record.status.value,
        "pending": sorted(record.approvals),
        "policy": [record.continuation.policy.max_bytes, record.continuation.policy.max_tokens],
        "model_calls": one.calls,
        "asked": asked[-1],
    }
    override = ProjectionPolicy(max_bytes=2048, max_tokens=64)
    done = first.resume("run-one", suspended.token, "any-model", approve=["write-a"], policy=override)
    assert isinstance(done, RunRecord)
    seen["46_done"] = {
        "status": done.status.value,
        "content": "" if done.result is None else done.result.content,
        "continuation": done.continuation is not None,
        "admitted": sorted(done.admitted),
        "model_calls": one.calls,
        "sequences_ok": [e.sequence for e in done.events] == list(range(1, done.revision + 1)),
        "usage": {} if done.result is None else dict(done.result.usage),
        "projected_with": [[a.report.max_bytes, a.report.max_tokens] for a in done.audits.values()],
    }
    trace = unwrap(store.load("run-one")).trace_id
    path = directory / "effects.jsonl"
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    seen["48"] = {
        "usage": {} if done.result is None else dict(done.result.usage),
        "cost": None if done.result is None or done.result.cost is None else str(done.result.cost),
        "priced": len(_priced),
        "correlated": [[e["run_id"] == "run-one", e["trace_id"] == trace != ""] for e in entries],
    }
    failed = third.run("run-three", "any-model", [user("read r")])
    assert isinstance(failed, RunRecord)
    seen["41"] = {
        "status": failed.status.value,
        "stop": "" if failed.result is None else failed.result.stop_reason,
        "error": "" if failed.result is None else failed.result.metadata.get("error"),
        "model_calls": three.calls,
        "admitted": sorted(failed.admitted),
        "raw": [a.outcome.content[:5] for a in failed.admitted.values()],
        "audits": len(failed.audits),
    }
    steps: list[object] = []
    outcome = second.run("run-two", "any-model", [user("write a and b")])
    while isinstance(outcome, Suspended):
        pending = sorted(
            a.call_id for a in outcome.record.approvals.values() if a.decision.value == "pending"
        )
        steps.append({"pending": pending, "admitted": sorted(outcome.record.admitted)})
        outcome = second.resume("run-two", outcome.token, "any-model", approve=pending)
    seen["47_steps"] = steps
    seen["47_done"] = {
        "status": outcome.status.value,
        "admitted": sorted(outcome.admitted),
        "model_calls": two.calls,
    }
    path = directory / "effects.jsonl"
    seen["effects"] = [json.loads(line)["call_id"] for line in path.read_text().splitlines()]
    return seen


# ---------------------------------------------------------------------------------------------------------
# Replay data across a kill (issue 23, item 5): the provider's thinking, reasoning and signatures come back


#: What the replayed runs ask, of which model, and what their tool answers.
REPLAY_MODEL = "recorded-model"
REPLAY_PROMPT = "use the tool, then answer"
TOOL_TEXT = "the tool answered"


@attrs.frozen
class GetUserCountry:
    """The user's country (a read: idempotent)."""

    def invoke(self) -> str:
        point("tool started")
        return TOOL_TEXT


@attrs.frozen
class UpdatePlan:
    """Update the plan (idempotent: the same plan again changes nothing)."""

    plan: str

    def invoke(self) -> str:
        point("tool started")
        return TOOL_TEXT


@attrs.frozen
class GenerateTopic:
    """Generate a topic (idempotent: a topic is as good as another)."""

    def invoke(self) -> str:
        point("tool started")
        return TOOL_TEXT


#: The card charge's deadline; the service takes four times as long.
CHARGE_TIMEOUT = 0.3


@attrs.frozen
class ChargeCard:
    """Charge the card (destructive, not idempotent); the payment service is slower than the deadline."""

    async def invoke(self) -> str:
        point("tool started")
        await asyncio.sleep(CHARGE_TIMEOUT * 4)
        return TOOL_TEXT


@attrs.frozen
class TransferFunds:
    """Transfer funds (destructive, not idempotent); the bank goes quiet (no heartbeat), then answers."""

    async def invoke(self, ctx: InvocationContext) -> str:
        point("tool started")
        await asyncio.sleep(CHARGE_TIMEOUT * 4)
        return TOOL_TEXT


#: How long the settlement check waits: past the card charge's late answer, so DBOS has recorded that step.
SETTLE_WAIT = CHARGE_TIMEOUT * 4 + 0.4


@attrs.frozen
class CheckSettlement:
    """Check whether the payment settled (a read: idempotent); it answers only once the charge's did."""

    def invoke(self) -> str:
        time.sleep(SETTLE_WAIT)
        point("tool started")
        return TOOL_TEXT


#: Each wire whose recorded responses carry replay data, and the tools its recorded calls ask for
#: (``gemini-rounds``: two rounds of id-less Gemini calls, each with its thought signature; ``chat-charge``:
#: one call that must not run twice; ``chat-charge-late``: that call, answering after its deadline, then a
#: settlement check; ``chat-transfer-late``: the same with a transfer abandoned when its heartbeats stop;
#: ``gemini-stream``: Gemini 3 over SSE).
REPLAY_WIRES: dict[str, tuple[Provider, tuple[type, ...]]] = {
    "anthropic": (Provider.ANTHROPIC, (GetUserCountry,)),
    "openai-responses": (Provider.OPENAI_RESPONSES, (UpdatePlan,)),
    "gemini": (Provider.GOOGLE, (GetUserCountry,)),
    "gemini-rounds": (Provider.GOOGLE, (GetUserCountry, GenerateTopic)),
    "chat-charge": (Provider.OPENAI_CHAT, (ChargeCard,)),
    "chat-charge-late": (Provider.OPENAI_CHAT, (ChargeCard, CheckSettlement)),
    "chat-transfer-late": (Provider.OPENAI_CHAT, (TransferFunds, CheckSettlement)),
    "gemini-stream": (Provider.GOOGLE, (GetUserCountry,)),
}
#: The contract of each replayed tool: idempotent (a killed call runs again), but for the card charge and
#: the transfer.
REPLAY_CONTRACTS: dict[type, ToolContract] = {
    ChargeCard: ToolContract(
        side_effect=SideEffect.DESTRUCTIVE, idempotency=Idempotency.NON_IDEMPOTENT, timeout=CHARGE_TIMEOUT
    ),
    TransferFunds: ToolContract(
        side_effect=SideEffect.DESTRUCTIVE,
        idempotency=Idempotency.NON_IDEMPOTENT,
        heartbeat=HeartbeatPolicy(timeout=CHARGE_TIMEOUT),
    ),
}


def replay_config(wire: str) -> Config:
    """The configuration a replayed run sends with: the wire's provider, streaming for ``*-stream``."""
    provider, _ = REPLAY_WIRES[wire]
    return config(provider).with_stream(wire.endswith("-stream"))


def replay_tools(wire: str) -> CompensatingProvider:
    """The tools the wire's recorded calls ask for, under their contracts."""
    _, tools = REPLAY_WIRES[wire]
    idempotent = ToolContract(idempotency=Idempotency.IDEMPOTENT)
    contracts = {tool: REPLAY_CONTRACTS.get(tool, idempotent) for tool in tools}
    beating = ProviderCapabilities(heartbeat=True)
    return reflect(
        *(
            make_tool(tool, contract=contract, capabilities=beating if contract.heartbeat.enabled else None)
            for tool, contract in contracts.items()
        )
    )


def replay_worker(directory: Path, url: str, wire: str, kill_at: int, *, start: bool) -> None:
    """One worker of the replay runs: the model is the fake provider at ``url``, over HTTP."""
    _state.update(points=0, kill_at=kill_at)
    DBOS(config=sqlite_config("replay", str(directory / "dbos.sqlite")))
    store = SqliteRunStore(directory / "runs.sqlite")
    runner = DurableRunner(
        "replay", Client(base_url=url), replay_config(wire), replay_tools(wire), store=store
    )
    DBOS.launch()
    messages = [user(REPLAY_PROMPT)]
    ended = runner.run(RUN_ID, REPLAY_MODEL, messages) if start else runner.wait(RUN_ID)
    assert isinstance(ended, RunRecord)
    answer = "" if ended.result is None else ended.result.content
    ids = list(ended.admitted)
    audits = {call_id: audit.projected_content_sha256 for call_id, audit in ended.audits.items()}
    said = {"done": ended.status.value, "answer": answer, "ids": ids, "audits": audits}
    print(json.dumps(said), flush=True)


def replay(base: Path, url: str, wire: str, kill_at: int = 1) -> dict[str, object]:
    """
    A durable run straight through, then one killed in its ``kill_at``-th tool call and resumed by a new
    worker.
    """
    straight, killed = base / "straight", base / "killed"
    straight.mkdir(parents=True)
    killed.mkdir(parents=True)
    return {
        "straight": _fork(lambda: replay_worker(straight, url, wire, 0, start=True)),
        "killed": _fork(lambda: replay_worker(killed, url, wire, kill_at, start=True)),
        "resumed": _fork(lambda: replay_worker(killed, url, wire, 0, start=False)),
    }


# ---------------------------------------------------------------------------------------------------------
# A run store that is damaged or locked (issue 23, item 14 at the durable runner's join)


class Held:
    """A write lock on a SQLite file, held by another connection (another process would do the same)."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)

    def take(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def release(self) -> None:
        self._db.execute("ROLLBACK")


_held: dict[str, Held] = {}
#: How often ``LockStore`` ran.
_taken = [0]


@attrs.frozen
class LockStore:
    """Take the store's write lock while running (a host's own transaction gone wrong); idempotent."""

    path: str

    def invoke(self) -> str:
        _taken[0] += 1
        _held["runs"].take()
        return "locked"


def _failed(work: Callable[..., object], *arguments: object) -> dict[str, object]:
    """
    How ``work(*arguments)`` failed: the exception's type, its typed store error and text, or that it did
    not.
    """
    try:
        work(*arguments)
    except DurableRunError as error:
        return {"raised": "DurableRunError", "error": type(error.error).__name__, "text": str(error)}
    except Exception as error:  # what the test must not see: a raw exception from the database
        return {"raised": type(error).__name__, "module": type(error).__module__}
    return {"raised": None}


def stores(directory: Path) -> dict[str, object]:
    """
    A durable run over a store file that is no database, over one truncated, over one locked before the
    run, and over one a tool locks mid-run; what each raised, and what the store holds afterwards.
    """
    DBOS(config=sqlite_config("stores", str(directory / "dbos.sqlite")))
    notes, cut, locked = directory / "notes.sqlite", directory / "cut.sqlite", directory / "locked.sqlite"
    notes.write_bytes(b"these are my notes, not a database\n" * 200)
    whole = SqliteRunStore(cut)
    for n in range(150):
        unwrap(whole.create(run_id=f"old-{n}", metadata={"note": "x" * 400}))
    whole.close()
    cut.write_bytes(cut.read_bytes()[: cut.stat().st_size // 2])
    before = {path.name: path.read_bytes() for path in (notes, cut)}
    tools = reflect(make_tool(ReadFile, contract=ToolContract(idempotency=Idempotency.IDEMPOTENT)))
    locking = reflect(make_tool(LockStore, contract=ToolContract(idempotency=Idempotency.IDEMPOTENT)))
    model = BatchModel(("x",), "read_file")
    chat = config(Provider.OPENAI_CHAT)
    runners = {
        name: DurableRunner(name, model, chat, tools, store=SqliteRunStore(path, timeout=0.2))
        for name, path in (("notes", notes), ("cut", cut))
    }
    store = SqliteRunStore(locked, timeout=0.2)
    runners["locked"] = DurableRunner("locked", model, chat, tools, store=store)
    midrun = DurableRunner("midrun", BatchModel(("y",), "lock_store"), chat, locking, store=store)
    DBOS.launch()
    _held["runs"] = held = Held(locked)
    seen: dict[str, object] = {}
    for name in ("notes", "cut"):
        seen[name] = _failed(runners[name].run, f"run-{name}", "m", [user("go")])
    seen["unchanged"] = before == {path.name: path.read_bytes() for path in (notes, cut)}
    held.take()
    seen["locked"] = _failed(runners["locked"].run, "run-locked", "m", [user("go")])
    held.release()
    seen["locked_then"] = _failed(runners["locked"].run, "run-unlocked", "m", [user("go")])
    seen["midrun"] = _failed(midrun.run, "run-midrun", "m", [user("go")])
    held.release()
    # The failure as DBOS kept it: another worker waiting for the run, or a second start of it.
    seen["midrun_waited"] = _failed(midrun.wait, "run-midrun")
    seen["midrun_again"] = _failed(midrun.run, "run-midrun", "m", [user("go")])
    left = unwrap(store.load("run-midrun"))
    seen["midrun_record"] = {
        "status": left.status.value,
        "started": sorted(left.started),
        "admitted": sorted(left.admitted),
        "lock_taken": _taken[0],
    }
    missing = store.load("run-locked")
    seen["locked_record"] = type(missing.error).__name__ if isinstance(missing, Err) else "found"
    done = unwrap(store.load("run-unlocked"))
    seen["unlocked_record"] = {"status": done.status.value, "admitted": sorted(done.admitted)}
    return seen


# ---------------------------------------------------------------------------------------------------------
# What a round costs the store (issue 28, item 3): its reads and writes, and a write another party made


class CountingStore(PausingStore):
    """A SQLite run store that counts its whole reads and its writes (no crash points)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.inner = self._inner
        self.counts = {"loads": 0, "writes": 0}

    def _after(self, label: str, result: Result[object, StoreError]) -> None:
        self.counts["writes"] += 1

    def load(self, run_id: str) -> Result[RunRecord, StoreError]:
        self.counts["loads"] += 1
        return super().load(run_id)


_bumped: dict[str, SqliteRunStore] = {}


@attrs.frozen
class Bump:
    """Mark another call started in the run's record while running: the run moves on under the runner."""

    path: str

    def invoke(self, ctx: InvocationContext) -> str:
        store = _bumped["store"]
        record = unwrap(store.load(ctx.run_id))
        unwrap(store.start_call(ctx.run_id, record.revision, StartedCall("side", "side-key", "side", 1)))
        return "bumped"


def reads(directory: Path) -> dict[str, object]:
    """
    One fresh run of a round (a call, then the answer): the store's whole reads and writes it cost; then a
    run whose tool writes to the record meanwhile: how it ended and what its record holds.
    """
    DBOS(config=sqlite_config("reads", str(directory / "dbos.sqlite")))
    chat = config(Provider.OPENAI_CHAT)
    counting = CountingStore(directory / "runs.sqlite")
    reading = reflect(make_tool(ReadFile, contract=ToolContract(idempotency=Idempotency.IDEMPOTENT)))
    runner = DurableRunner("reads", BatchModel(("x",), "read_file"), chat, reading, store=counting)
    bumping = reflect(make_tool(Bump, contract=ToolContract(idempotency=Idempotency.IDEMPOTENT)))
    bumped = DurableRunner("bumped", BatchModel(("z",), "bump"), chat, bumping, store=counting)
    _bumped["store"] = counting.inner
    DBOS.launch()
    runner.run("run-warm", "m", [user("go")])
    counting.counts.update(loads=0, writes=0)
    ended = runner.run("run-reads", "m", [user("go")])
    assert isinstance(ended, RunRecord)
    seen: dict[str, object] = {"status": ended.status.value, **counting.counts}
    moved = bumped.run("run-bumped", "m", [user("go")])
    assert isinstance(moved, RunRecord)
    seen["bumped"] = {
        "status": moved.status.value,
        "started": sorted(moved.started),
        "admitted": sorted(moved.admitted),
        "audited": sorted(moved.audits),
    }
    return seen


if __name__ == "__main__":
    if sys.argv[1] == "crash":
        crash(Path(sys.argv[2]), int(sys.argv[3]))
    elif sys.argv[1] == "approvals":
        print(json.dumps(approvals(Path(sys.argv[2]))), flush=True)
    elif sys.argv[1] == "stores":
        print(json.dumps(stores(Path(sys.argv[2]))), flush=True)
    elif sys.argv[1] == "reads":
        print(json.dumps(reads(Path(sys.argv[2]))), flush=True)
    elif sys.argv[1] == "replay":
        kill_at = int(sys.argv[5]) if len(sys.argv) > 5 else 1
        print(json.dumps(replay(Path(sys.argv[2]), sys.argv[3], sys.argv[4], kill_at)), flush=True)
