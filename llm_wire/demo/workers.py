"""
Demo: many durable workers on PostgreSQL. A throwaway PostgreSQL server holds DBOS's state and the run store;
three worker processes serve one queue of runs, each run sending a few invoices (a tool that is not
idempotent: each call appends a line to a file). One worker is killed with SIGKILL in the middle of its runs;
the others see its lease gone, take its runs back from the queue and finish them, and no invoice is sent
twice. ``make demo-workers`` runs it.

The same module is the fleet's application (``tests/test_durable_workers.py`` drives it):
``python -m llm_wire.demo.workers worker URL FOLDER`` is one worker; ``... enqueue URL COUNT CONCURRENCY
INVOICES SECONDS`` registers the queue (``CONCURRENCY`` runs at once per worker) and puts ``COUNT`` runs on
it, each sending ``INVOICES`` invoices that take ``SECONDS`` each.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import attrs
from dbos import DBOS

from llm_wire import Prepared, config, user
from llm_wire.agent import (
    Idempotency,
    InvocationContext,
    ToolContract,
    ToolProvider,
    make_tool,
    reflect,
)
from llm_wire.agent.store import PostgresRunStore, RunStatus, RunStore
from llm_wire.durable import DurableRunner, Worker, postgres_config
from llm_wire.message import AssistantTurn, Provider, ToolResult, UserMessage, tool_call
from llm_wire.outcome import Outcome, resolve
from llm_wire.providers.response import FinishReason, Terminal
from llm_wire.result import Ok

#: The application's name in DBOS and the runner's name (its queue is ``invoicing.runs``).
NAME = "invoicing"
#: Where this worker writes its invoices (set in a worker process).
_LEDGER: dict[str, Path] = {}


@attrs.frozen
class SendInvoice:
    """Send invoice ``number`` (not idempotent: a second call sends a second invoice)."""

    number: int
    seconds: float

    def invoke(self, ctx: InvocationContext) -> str:
        time.sleep(self.seconds / 2)
        with _LEDGER["invoices"].open("a", encoding="utf-8") as out:
            out.write(f"{ctx.idempotency_key} {os.getpid()}\n")
            out.flush()
            os.fsync(out.fileno())
        print(f"{ctx.run_id} invoice {self.number} sent", flush=True)
        time.sleep(self.seconds / 2)  # sent, not yet recorded: a kill here leaves the outcome unknown
        return f"invoice {self.number} sent"


def tools() -> ToolProvider:
    """The one tool, not idempotent."""
    return reflect(make_tool(SendInvoice, contract=ToolContract(idempotency=Idempotency.NON_IDEMPOTENT)))


class InvoiceModel:
    """
    A scripted model: the run's user message is ``{"invoices": n, "seconds": s}``; it sends invoice 0, 1, ...
    one per round, then answers with how many were sent and how many to check by hand.
    """

    def complete(self, prepared: Prepared) -> Outcome:
        messages = prepared.request.messages
        plan = json.loads(next(m.text for m in messages if isinstance(m, UserMessage)))
        rounds = sum(isinstance(m, AssistantTurn) for m in messages)
        if rounds < plan["invoices"]:
            arguments = json.dumps({"number": rounds, "seconds": plan["seconds"]})
            calls = (tool_call(f"call-{rounds}", "send_invoice", arguments),)
            return resolve(Ok(Terminal(prepared.provider, FinishReason.TOOL_CALLS, "", calls)), prepared)
        unknown = sum(m.is_error for m in messages if isinstance(m, ToolResult))
        text = f"{rounds - unknown} invoices sent, {unknown} to check by hand"
        return resolve(Ok(Terminal(prepared.provider, FinishReason.STOP, text)), prepared)


def runner(store: RunStore) -> DurableRunner:
    """The durable runner of the invoicing runs (made before ``DBOS.launch()`` in every process)."""
    return DurableRunner(NAME, InvoiceModel(), config(Provider.OPENAI_CHAT), tools(), store=store)


def worker(url: str, folder: Path) -> None:
    """One worker: take a lease, launch DBOS under its executor id, watch for dead workers, serve runs."""
    _LEDGER["invoices"] = folder / "invoices.log"
    lease = Worker(url, interval=0.5)
    DBOS(config=lease.config(NAME))
    runner(PostgresRunStore(url))
    DBOS.launch()
    lease.watch()
    (folder / f"ready-{os.getpid()}").touch()
    threading.Event().wait()  # serve until killed


def enqueue(url: str, runs: int, concurrency: int, invoices: int, seconds: float) -> None:
    """Register the queue and put ``runs`` runs on it (this process takes none: it listens to no queue)."""
    DBOS(config=postgres_config(NAME, url))
    DBOS.listen_queues([])
    made = runner(PostgresRunStore(url))
    DBOS.launch()
    DBOS.register_queue(made.queue_name, worker_concurrency=concurrency, polling_interval_sec=0.1)
    plan = json.dumps({"invoices": invoices, "seconds": seconds})
    for n in range(runs):
        made.enqueue(run_id(n), "any-model", [user(plan)])
    os._exit(0)  # DBOS's background threads need not wind down: the runs are on the queue


def run_id(n: int) -> str:
    """The id of the ``n``-th run."""
    return f"invoice-run-{n:03d}"


def start_worker(url: str, folder: Path, **options: object) -> subprocess.Popen[str]:
    """A worker process (``options`` go to ``Popen``)."""
    command = [sys.executable, "-m", "llm_wire.demo.workers", "worker", url, str(folder)]
    return subprocess.Popen(command, text=True, **options)  # type: ignore[call-overload, no-any-return]


def put_runs(url: str, runs: int, concurrency: int, invoices: int, seconds: float) -> None:
    """Run ``enqueue`` in a process of its own."""
    command = [sys.executable, "-m", "llm_wire.demo.workers", "enqueue", url]
    command += [str(runs), str(concurrency), str(invoices), str(seconds)]
    subprocess.run(command, check=True, timeout=120)


def unfinished(store: RunStore, runs: int) -> list[str]:
    """The runs not yet completed."""
    left = []
    for n in range(runs):
        loaded = store.load(run_id(n))
        if not isinstance(loaded, Ok) or loaded.value.status is not RunStatus.COMPLETED:
            left.append(run_id(n))
    return left


def _echo(label: str, process: subprocess.Popen[str], seen: list[str]) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        seen.append(line.split(" ", 1)[0])
        print(f"  {label}: {line.rstrip()}", flush=True)


def run() -> None:
    """Start PostgreSQL and three workers, enqueue a dozen runs, kill one worker, watch the others finish."""
    from llm_wire.demo import postgres_server

    runs, invoices = 12, 3
    print("Starting a throwaway PostgreSQL server (initdb, pg_ctl) ...")
    try:
        cluster = postgres_server.start()
    except postgres_server.ClusterUnavailable as exc:
        print(f"No PostgreSQL server here: {exc}")
        return
    with cluster:
        url = cluster.create_database("invoicing")
        folder = cluster.folder / "fleet"
        folder.mkdir()
        workers: dict[str, subprocess.Popen[str]] = {}
        started: dict[str, list[str]] = {}
        for label in ("worker A", "worker B", "worker C"):
            started[label] = []
            workers[label] = start_worker(url, folder, stdout=subprocess.PIPE)
            threading.Thread(target=_echo, args=(label, workers[label], started[label]), daemon=True).start()
        while len(list(folder.glob("ready-*"))) < len(workers):
            time.sleep(0.1)
        print(f"Three workers launched; {runs} runs go on the queue, {invoices} invoices each.")
        put_runs(url, runs, 2, invoices, 0.6)
        while len(started["worker A"]) < 2:
            time.sleep(0.05)
        workers["worker A"].send_signal(signal.SIGKILL)
        workers["worker A"].wait()
        held = sorted(set(started["worker A"]))
        print(f"Worker A killed with SIGKILL in the middle of {', '.join(held)}.")
        print("B and C see its lease gone (its PostgreSQL lock went with its connection) and take its runs.")
        store = PostgresRunStore(url)
        while unfinished(store, runs):
            time.sleep(0.2)
        for label in ("worker B", "worker C"):
            workers[label].send_signal(signal.SIGKILL)
            workers[label].wait()
        _report(store, folder, runs, held)
        store.close()


def _report(store: RunStore, folder: Path, runs: int, held: Sequence[str]) -> None:
    sent = Counter(line.split()[0] for line in (folder / "invoices.log").read_text().splitlines())
    print(f"\nAll {runs} runs completed. Invoices sent: {sum(sent.values())}, for {len(sent)} calls.")
    print(f"  sent twice for one call: {sum(count > 1 for count in sent.values())}")
    for name in held:
        loaded = store.load(name)
        assert isinstance(loaded, Ok)
        record = loaded.value
        codes = [a.outcome.failure.code if a.outcome.failure else "ok" for a in record.admitted.values()]
        answer = record.result.content if record.result else ""
        print(f"  {name} (worker A's): calls {', '.join(codes)}; the model answered {answer!r}")
    print("  (a call whose invoice went out before the kill but was not recorded is not sent again:")
    print("   the model is told its outcome is unknown, to check by hand)")


if __name__ == "__main__":
    match sys.argv[1:]:
        case ["worker", url, folder]:
            worker(url, Path(folder))
        case ["enqueue", url, runs, concurrency, invoices, seconds]:
            enqueue(url, int(runs), int(concurrency), int(invoices), float(seconds))
        case _:
            run()
