"""
Demo: a durable run on DBOS (SQLite, no server). A worker process starts a run and is killed with SIGKILL in
the middle of a tool call, right after the tool's side effect; a second worker recovers the run and finishes
it, and the side effect is done exactly once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs

from llm_wire import Prepared, config, user
from llm_wire.agent import (
    CompensatingProvider,
    Idempotency,
    InvocationContext,
    ProviderCapabilities,
    ToolContract,
    make_tool,
    reflect,
)
from llm_wire.agent.projection import ProjectionPolicy
from llm_wire.agent.store import RunRecord, SqliteRunStore
from llm_wire.message import AssistantTurn, Provider, ToolCall, ToolResult
from llm_wire.outcome import Outcome, resolve
from llm_wire.providers.response import FinishReason, Terminal
from llm_wire.result import Ok, unwrap

RUN_ID = "run-demo-order-1"
#: Set in the worker: where side effects are written, and whether to stop after sending the email.
_WORKER: dict[str, str] = {}


def _effect(what: str, key: str) -> None:
    with Path(_WORKER["effects"]).open("a", encoding="utf-8") as out:
        out.write(json.dumps({"effect": what, "key": key}) + "\n")
        out.flush()
        os.fsync(out.fileno())


@attrs.frozen
class ChargeCard:
    """Charge the customer's card (the payment service drops a repeated idempotency key)."""

    cents: int

    def invoke(self, ctx: InvocationContext) -> str:
        _effect("charge_card", ctx.idempotency_key)
        return f"charged {self.cents} cents"


@attrs.frozen
class SendEmail:
    """Send the receipt by email (not idempotent: a second call sends a second email)."""

    to: str

    def invoke(self, ctx: InvocationContext) -> str:
        _effect("send_email", ctx.idempotency_key)
        if _WORKER.get("crash") == "yes":
            print("worker: email sent, not yet recorded -- waiting to be killed", flush=True)
            time.sleep(3600)
        return f"receipt sent to {self.to}"


def tools() -> CompensatingProvider:
    """The shop's two tools and their contracts."""
    return reflect(
        make_tool(
            ChargeCard,
            contract=ToolContract(idempotency=Idempotency.IDEMPOTENT_WITH_KEY),
            capabilities=ProviderCapabilities(idempotency_key=True),
        ),
        make_tool(SendEmail, contract=ToolContract(idempotency=Idempotency.NON_IDEMPOTENT)),
    )


class ShopModel:
    """A scripted model: charge, then send the receipt, then answer (a function of the conversation)."""

    def complete(self, prepared: Prepared) -> Outcome:
        rounds = sum(isinstance(m, AssistantTurn) for m in prepared.request.messages)
        if rounds == 0:
            calls = (ToolCall("call-charge", "charge_card", '{"cents": 4200}'),)
        elif rounds == 1:
            calls = (ToolCall("call-email", "send_email", '{"to": "ada@example.com"}'),)
        else:
            results = [m for m in prepared.request.messages if isinstance(m, ToolResult)]
            failed = [r.call_id for r in results if r.is_error]
            text = "Order placed." if not failed else f"Order placed; check {', '.join(failed)} by hand."
            return resolve(Ok(Terminal(prepared.provider, FinishReason.STOP, text)), prepared)
        return resolve(Ok(Terminal(prepared.provider, FinishReason.TOOL_CALLS, "", calls)), prepared)


def worker(directory: Path, *, crash: bool) -> None:
    """One worker process: launch DBOS on the demo's files; start the run, or recover it."""
    from dbos import DBOS

    from llm_wire.durable import DurableRunner, sqlite_config

    _WORKER.update(effects=str(directory / "effects.jsonl"), crash="yes" if crash else "no")
    DBOS(config=sqlite_config("shop", str(directory / "dbos.sqlite")))
    runner = DurableRunner(
        "shop",
        ShopModel(),
        config(Provider.OPENAI_CHAT),
        tools(),
        store=SqliteRunStore(directory / "runs.sqlite"),
        policy=ProjectionPolicy(max_bytes=4096, max_tokens=1024),
    )
    DBOS.launch()
    if crash:
        runner.run(RUN_ID, "any-model", [user("Place the order and send the receipt.")])
    else:
        ended = runner.wait(RUN_ID)
        assert isinstance(ended, RunRecord)
        print(f"worker: recovered {RUN_ID}; it ended {ended.status.value}", flush=True)
    os._exit(0)  # DBOS's background threads need not wind down for a demo


def _start(directory: Path, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "llm_wire.demo.durable", mode, str(directory)],
        stdout=subprocess.PIPE,
        text=True,
    )


def run() -> None:
    """Start a run, kill its worker mid-tool, recover it in a new worker, and count the side effects."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        print("Worker 1 starts the run (DBOS on SQLite in a temporary folder).")
        first = _start(directory, "crash")
        assert first.stdout is not None
        for line in first.stdout:
            print("  " + line.rstrip())
            if "waiting to be killed" in line:
                first.send_signal(signal.SIGKILL)
                break
        first.wait()
        first.stdout.close()
        print(f"Worker 1 killed with SIGKILL (exit status {first.returncode}).")
        print("Worker 2 starts; DBOS recovers the run from its last completed step.")
        second = _start(directory, "recover")
        out, _ = second.communicate(timeout=120)
        for line in out.splitlines():
            print("  " + line)
        store = SqliteRunStore(directory / "runs.sqlite")
        record = unwrap(store.load(RUN_ID))
        store.close()
        effects = [json.loads(line) for line in (directory / "effects.jsonl").read_text().splitlines()]
        print(f"\nThe run ended {record.status.value}: {record.result.content if record.result else ''!r}")
        for name in ("charge_card", "send_email"):
            done = [e for e in effects if e["effect"] == name]
            keys = {e["key"] for e in done}
            print(f"  {name}: done {len(done)} time(s), with {len(keys)} idempotency key(s)")
        email = record.admitted["call-email"].outcome
        print(f"  send_email's recorded outcome: {email.failure.code if email.failure else 'ok'}")
        print("  (its effect happened before the crash, so it was not sent again: the model was told")
        print("   the outcome is unknown instead)")
        counts = f"{len(record.events)} events, {len(record.admitted)} admitted results"
        print(f"  record: revision {record.revision}, {counts}, {len(record.audits)} projection audits")


if __name__ == "__main__":
    worker(Path(sys.argv[2]), crash=sys.argv[1] == "crash")
