"""
Durable rounds per second: llm_wire's ``DurableRunner`` against pydantic-ai's DBOS integration, same run.

Both run the same script on DBOS (a scripted model calls one no-op tool, then answers: one round is one such
run, two model steps and one tool step) on the same database, PostgreSQL (a throwaway server started here,
``fsync`` off, as in the tests) or SQLite (one file). pydantic-ai's side is an ``Agent`` with the
``DBOSDurability`` capability (its successor of the deprecated ``DBOSAgent``) run inside a ``@DBOS.workflow``,
its ``FunctionModel`` as the script and its no-op tool a ``@DBOS.step``, so each tool call is checkpointed on
both sides; llm_wire's side also keeps its run record (``PostgresRunStore`` or ``SqliteRunStore``) in the
same database: the call's start mark, its admission and the projection audit.

Throughput: ``N`` worker processes serve one queue per side (4 runs at once per worker, polled every 20 ms);
the driver enqueues a batch of runs and times it from the first enqueue to the last run's end, alternating
the sides over passes; the ratio is the median of per-pass ratios. On SQLite several workers share the file
as DBOS allows. Overhead: in the driver alone, runs one after another (the four kinds in turn, round after
round), a durable round's median wall time minus a plain one's (the same loop without DBOS: ``Runner.run``,
``Agent.run_sync``).

``python -m benchmarks.bench_durable`` prints the table; ``worker`` and ``drive`` are its subprocesses.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from benchmarks._harness import print_table
from llm_wire import Prepared, config, request, user
from llm_wire.agent import Runner, reflect
from llm_wire.agent.projection import LimitingFactor
from llm_wire.agent.store import PostgresRunStore, RunStore, SqliteRunStore
from llm_wire.message import Provider, ToolCall, ToolResult
from llm_wire.outcome import Outcome, resolve
from llm_wire.providers.response import FinishReason, Terminal
from llm_wire.result import Ok, unwrap

__all__ = ["main"]

WORKERS = {"postgres": (1, 2, 4), "sqlite": (1, 2)}
#: Runs per side in one throughput pass, passes per worker count, runs per side for the overhead.
BATCH, PASSES, SEQUENTIAL = 40, 3, 30
CONCURRENCY, POLL = 4, 0.02


@attrs.frozen
class Noop:
    """Do nothing."""

    def invoke(self) -> str:
        return "ok"


class Script:
    """llm_wire's scripted model: call ``noop`` once, then answer."""

    def complete(self, prepared: Prepared) -> Outcome:
        if not any(isinstance(message, ToolResult) for message in prepared.request.messages):
            terminal = Terminal(
                prepared.provider, FinishReason.TOOL_CALLS, "", (ToolCall("c0", "noop", "{}"),)
            )
        else:
            terminal = Terminal(prepared.provider, FinishReason.STOP, "done")
        return resolve(Ok(terminal), prepared)


class _App:
    """Both sides registered with DBOS in this process (before launch), and their queues' names."""

    def __init__(self, backend: str, where: str) -> None:
        from dbos import DBOS
        from pydantic_ai import Agent
        from pydantic_ai.durable_exec.dbos import DBOSDurability
        from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
        from pydantic_ai.models.function import AgentInfo, FunctionModel

        from llm_wire.durable import DurableRunner

        def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            if sum(isinstance(message, ModelResponse) for message in messages) == 0:
                return ModelResponse(parts=[ToolCallPart("noop", {}, tool_call_id="c0")])
            return ModelResponse(parts=[TextPart("done")])

        agent: Agent[None, str] = Agent(FunctionModel(script), name="peer", capabilities=[DBOSDurability()])

        @agent.tool_plain
        @DBOS.step(name="peer.noop")
        def noop() -> str:
            """Do nothing."""
            return "ok"

        @DBOS.workflow(name="peer.run")
        async def peer_run(prompt: str) -> str:
            result = await agent.run(prompt)
            return result.output

        self.agent, self.peer_run = agent, peer_run
        self.store: RunStore = (
            PostgresRunStore(where) if backend == "postgres" else SqliteRunStore(Path(where) / "runs.sqlite")
        )
        self.ours = DurableRunner(
            "ours", Script(), config(Provider.OPENAI_CHAT), reflect(Noop), store=self.store
        )
        self.plain = Runner(Script(), config(Provider.OPENAI_CHAT), reflect(Noop))
        self.queues = {"ours": self.ours.queue_name, "theirs": "peer.runs"}


def _config(backend: str, where: str, executor_id: str) -> Any:
    from llm_wire.durable import postgres_config, sqlite_config

    if backend == "postgres":
        return postgres_config("bench", where, executor_id=executor_id)
    return {**sqlite_config("bench", str(Path(where) / "dbos.sqlite")), "executor_id": executor_id}


def worker(backend: str, where: str, ready: Path) -> None:
    """Serve both sides' queues until killed."""
    from dbos import DBOS

    DBOS(config=_config(backend, where, f"bench-{uuid.uuid4().hex}"))
    _App(backend, where)
    DBOS.launch()
    ready.touch()
    threading.Event().wait()


def _enqueue_batch(app: _App, side: str, prefix: str) -> None:
    from dbos import DBOS, SetWorkflowID

    queue = DBOS.retrieve_queue(app.queues[side])
    assert queue is not None
    for n in range(BATCH):
        if side == "ours":
            app.ours.enqueue(f"{prefix}-{n}", "m", [user("go")])
        else:
            with SetWorkflowID(f"{prefix}-{n}"):
                queue.enqueue(app.peer_run, "go")


def _batch_seconds(app: _App, side: str) -> float:
    """Wall seconds from the first enqueue of a batch to the end of its last run."""
    from dbos import DBOS

    prefix = f"{side}-{uuid.uuid4().hex[:8]}"
    start = time.time()
    _enqueue_batch(app, side, prefix)
    while True:
        done = DBOS.list_workflows(
            workflow_id_prefix=prefix, status=["SUCCESS", "ERROR"], load_input=False, load_output=False
        )
        if len(done) >= BATCH:
            assert all(w.status == "SUCCESS" for w in done), "a run failed"
            return max((w.updated_at or 0) for w in done) / 1000 - start
        time.sleep(0.05)


def _sequential(runs: dict[str, Callable[[int], object]]) -> dict[str, float]:
    """
    Median wall seconds of one run of each of ``runs`` (``run(n)``), over ``SEQUENTIAL`` rounds that run
    each once in turn, after a warm-up: a load that drifts over the minutes weighs on every side alike.
    """
    for n in range(3):
        for run in runs.values():
            run(-1 - n)
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for n in range(SEQUENTIAL):
        for name, run in runs.items():
            start = time.perf_counter()
            run(n)
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(times) for name, times in samples.items()}


def _overhead(app: _App) -> dict[str, float]:
    """Seconds of one round run alone: durable and plain, ours and theirs."""
    tag = uuid.uuid4().hex[:8]

    def ours_durable(n: int) -> object:
        return app.ours.run(f"seq-{tag}-{n}", "m", [user("go")])

    def ours_plain(n: int) -> object:
        return app.plain.run(request("m", [user("go")]))

    def theirs_durable(n: int) -> object:
        from dbos import SetWorkflowID

        with SetWorkflowID(f"peer-seq-{tag}-{n}"):
            return asyncio.run(app.peer_run("go"))

    def theirs_plain(n: int) -> object:
        return app.agent.run_sync("go")

    runs: dict[str, Callable[[int], object]] = {"ours durable": ours_durable, "ours plain": ours_plain}
    runs |= {"theirs durable": theirs_durable, "theirs plain": theirs_plain}
    return _sequential(runs)


def drive(backend: str, where: str) -> None:
    """Overhead alone, then throughput with each worker count; prints one JSON line per figure."""
    from dbos import DBOS

    DBOS(config=_config(backend, where, f"driver-{uuid.uuid4().hex}"))
    DBOS.listen_queues([])
    app = _App(backend, where)
    DBOS.launch()
    for name in app.queues.values():
        DBOS.register_queue(name, worker_concurrency=CONCURRENCY, polling_interval_sec=POLL)
    print(json.dumps({"overhead": _overhead(app)}), flush=True)
    for count in WORKERS[backend]:
        with tempfile.TemporaryDirectory() as folder:
            workers = [_start(backend, where, Path(folder) / f"ready-{n}") for n in range(count)]
            try:
                while not all((Path(folder) / f"ready-{n}").exists() for n in range(count)):
                    time.sleep(0.05)
                _batch_seconds(app, "ours")  # warm-up: every worker has its threads and connections
                _batch_seconds(app, "theirs")
                passes = [(_batch_seconds(app, "ours"), _batch_seconds(app, "theirs")) for _ in range(PASSES)]
            finally:
                for process in workers:
                    process.send_signal(signal.SIGKILL)
                    process.wait()
        print(json.dumps({"workers": count, "passes": passes}), flush=True)
    os._exit(0)


def _start(backend: str, where: str, ready: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "benchmarks.bench_durable", "worker", backend, where, str(ready)]
    return subprocess.Popen(command, stderr=subprocess.DEVNULL)


def _figures(backend: str, where: str) -> list[dict[str, Any]]:
    command = [sys.executable, "-m", "benchmarks.bench_durable", "drive", backend, where]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"bench_durable {backend}: {done.stderr[-1500:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


#: The figures of this process's run, measured once: ``make bench`` prints them here and in the summary.
_MEASURED: dict[str, list[dict[str, Any]]] = {}


def measure() -> dict[str, list[dict[str, Any]]]:
    """Every figure by backend (PostgreSQL: a throwaway server; SQLite: a temporary folder), measured once."""
    from llm_wire.demo import postgres_server

    if not _MEASURED:
        with postgres_server.start() as cluster:
            _MEASURED["postgres"] = _figures("postgres", cluster.create_database("bench"))
        with tempfile.TemporaryDirectory() as folder:
            _MEASURED["sqlite"] = _figures("sqlite", folder)
    return _MEASURED


def _overhead_ms(seen: dict[str, float]) -> tuple[float, float]:
    """Milliseconds a durable round adds to a plain one: ours, theirs."""
    ours = seen["ours durable"] - seen["ours plain"]
    return ours * 1e3, (seen["theirs durable"] - seen["theirs plain"]) * 1e3


def rows(figures: dict[str, list[dict[str, Any]]]) -> tuple[list[list[object]], list[list[object]]]:
    """The throughput rows and the overhead rows."""
    throughput: list[list[object]] = []
    overhead: list[list[object]] = []
    for backend, lines in figures.items():
        for line in lines:
            if "overhead" in line:
                ours, theirs = _overhead_ms(line["overhead"])
                overhead.append([backend, f"{ours:.1f}", f"{theirs:.1f}", f"{ours / theirs:.2f}x"])
                continue
            passes = line["passes"]
            ratios = [theirs / ours for ours, theirs in passes]  # rounds/s ours / theirs
            ours = statistics.median(BATCH / o for o, _ in passes)
            theirs = statistics.median(BATCH / t for _, t in passes)
            spread = f"{min(ratios):.2f}-{max(ratios):.2f}"
            ratio = f"{statistics.median(ratios):.2f}x"
            throughput.append([backend, line["workers"], f"{ours:.1f}", f"{theirs:.1f}", ratio, spread])
    return throughput, overhead


def summary_rows() -> list[list[object]]:
    """
    The summary's rows, ours / pydantic-ai's (below 1: ours is faster), from this process's figures: the
    overhead of a durable round over a plain one, whose target (issue 28) is at most the peer's, and the
    time per round queued to workers (informational).
    """
    out: list[list[object]] = []
    for backend, lines in measure().items():
        for line in lines:
            peer = "pydantic-ai DBOSDurability, same database"
            if "overhead" in line:
                ours, theirs = _overhead_ms(line["overhead"])
                what = f"durable round overhead over a plain one, {backend} ({ours:.1f} ms)"
                mark = "" if ours <= theirs else "MISS"
                out.append([what, f"{peer} ({theirs:.1f} ms)", f"{ours / theirs:.2f}x", "-", "<= 1x", mark])
                continue
            ratios = [ours / theirs for ours, theirs in line["passes"]]
            count = line["workers"]
            what = f"durable round, {backend}, {count} worker{'s' * (count > 1)} (time per round, queued)"
            spread = f"{min(ratios):.2f}-{max(ratios):.2f}"
            out.append([what, peer, f"{statistics.median(ratios):.2f}x", spread, "-", ""])
    return out


def floor() -> None:
    """
    What the run record adds to a durable round beyond DBOS's own work (``bench_floor``): the round's six
    store writes (created, running, call started, admitted, audited, stopped), alone, against the round's
    one whole read that ``run`` returns, on a SQLite file and on PostgreSQL (a throwaway server). Each write
    starts from the record the store's last write left and is one statement on PostgreSQL (seven statements
    a round with the read, none in an explicit transaction); DBOS's work per round (a workflow and three
    steps, eight transactions) is the same on both sides.
    """
    from llm_wire.demo import postgres_server

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        rows.append(["SQLite", *_store_floor(SqliteRunStore(Path(folder) / "runs.sqlite"))])
    try:
        with postgres_server.start() as cluster:
            rows.append(["PostgreSQL", *_store_floor(PostgresRunStore(cluster.create_database("floor")))])
    except postgres_server.ClusterUnavailable as exc:
        print(f"(PostgreSQL floor skipped: {exc})")
    print_table(
        "What the run record adds to a durable round (alone, median ms)",
        ["database", "the round's six store writes", "one whole read of the record (run's answer)"],
        rows,
    )


def _store_floor(store: SqliteRunStore | PostgresRunStore) -> list[str]:
    """Median milliseconds of a round's six writes and of one whole read, on ``store`` (closed after)."""
    from llm_wire.agent import ToolOutcome
    from llm_wire.agent.projection import ProjectionReport
    from llm_wire.agent.store import AdmittedResult, ProjectionAudit, RunStatus, StartedCall, StoredResult
    from llm_wire.agent.store._rules import sha256_hex

    report = ProjectionReport(False, 16, 16, 4, 4, 65536, 10000, LimitingFactor.NONE)
    count = iter(range(1 << 30))

    def writes() -> None:
        run = f"r{next(count)}"
        record = unwrap(store.create(run_id=run))
        record = unwrap(store.transition(run, record.revision, RunStatus.RUNNING))
        mark = unwrap(store.start_call(run, record.revision, StartedCall("c0", f"{run}:c0", "noop", 1)))
        admitted = AdmittedResult("c0", f"{run}:c0", "noop", ToolOutcome.success("ok"))
        admission = unwrap(store.admit(run, mark.record.revision, admitted))
        audit = ProjectionAudit("c0", "noop", sha256_hex("ok"), report)
        audited = unwrap(store.record_projection(run, admission.record.revision, audit))
        ended = StoredResult("done", "answered", {}, {}, None)
        unwrap(store.transition(run, audited.record.revision, RunStatus.COMPLETED, result=ended))

    try:
        writes()
        samples = [(_timed(writes), _timed(lambda: store.load("r0"))) for _ in range(SEQUENTIAL)]
    finally:
        store.close()
    return [
        f"{statistics.median(w for w, _ in samples) * 1e3:.2f}",
        f"{statistics.median(r for _, r in samples) * 1e3:.2f}",
    ]


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    throughput, overhead = rows(measure())
    print_table(
        f"Durable rounds per second (a round: model, no-op tool, model; {BATCH} runs, {PASSES} passes)",
        ["database", "workers", "llm_wire rounds/s", "pydantic-ai rounds/s", "ratio (ours/theirs)", "spread"],
        throughput,
    )
    print_table(
        f"Durable round overhead over a plain one, run alone (median of {SEQUENTIAL} rounds)",
        ["database", "llm_wire ms", "pydantic-ai ms", "ratio (ours/theirs)"],
        overhead,
    )


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    match sys.argv[1:]:
        case ["worker", backend, where, ready]:
            worker(backend, where, Path(ready))
        case ["drive", backend, where]:
            drive(backend, where)
        case _:
            main()
