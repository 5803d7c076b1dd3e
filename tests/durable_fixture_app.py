"""
Durable runs whose records are fixtures: ``write`` makes them with the ``llm_wire`` on the path (an older
``main`` wrote ``tests/fixtures/durable/``), ``resume`` goes on with a run that code left suspended.

``python tests/durable_fixture_app.py write WORK OUT`` runs, in WORK: a run with a tool that answers and one
that fails (completed), a run suspended for approval and resumed (completed), and one left suspended; it
writes what DBOS recorded of them to ``OUT/dbos-records.json``, the run store to ``OUT/runs.sqlite`` and the
suspended run's token to ``OUT/suspended.json``. ``python tests/durable_fixture_app.py resume WORK FIXTURES``
copies that store into WORK, approves the suspended run with today's code and prints the record as JSON.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path

import attrs
from dbos import DBOS

from llm_wire import Prepared, config, user
from llm_wire.agent import Approval, CompensatingProvider, ToolContract, make_tool, reflect
from llm_wire.agent.events import ApprovalRequest, Verdict
from llm_wire.agent.projection import ProjectionPolicy
from llm_wire.agent.store import RunRecord, SqliteRunStore, Suspended
from llm_wire.durable import DurableRunner, sqlite_config
from llm_wire.message import Provider, ToolCall, ToolResult
from llm_wire.outcome import Outcome, resolve
from llm_wire.providers.response import FinishReason, Terminal, Usage
from llm_wire.result import Ok

#: What each model call reports.
USAGE = Usage(10, 5, 15, {"prompt_tokens_details": {"cached_tokens": 4}})
POLICY = ProjectionPolicy(max_bytes=1024, max_tokens=128)
#: The suspended run the fixture keeps, and the call it waits on.
SUSPENDED = "run-suspended"
PENDING = "note-1"


@attrs.frozen
class Lookup:
    """Look a word up."""

    word: str

    def invoke(self) -> str:
        return f"{self.word}: a word"


@attrs.frozen
class Flaky:
    """A service that is down."""

    def invoke(self) -> str:
        raise ConnectionError("down")


@attrs.frozen
class Note:
    """Write a note (an approver reviews each one)."""

    text: str

    def invoke(self) -> str:
        return f"noted {self.text}"


def tools() -> CompensatingProvider:
    """The three tools; ``note`` always needs approval."""
    return reflect(
        make_tool(Lookup),
        make_tool(Flaky),
        make_tool(Note, contract=ToolContract(approval=Approval.ALWAYS)),
    )


class Model:
    """One batch of calls (``lookup`` and ``flaky``, or a ``note``), then an answer."""

    def __init__(self, calls: tuple[ToolCall, ...]) -> None:
        self.calls = calls

    def complete(self, prepared: Prepared) -> Outcome:
        if any(isinstance(m, ToolResult) for m in prepared.request.messages):
            return resolve(Ok(Terminal(prepared.provider, FinishReason.STOP, "done", usage=USAGE)), prepared)
        batch = Terminal(prepared.provider, FinishReason.TOOL_CALLS, "", self.calls, usage=USAGE)
        return resolve(Ok(batch), prepared)


def ask(request: ApprovalRequest) -> Verdict:
    """Every note goes to manual review."""
    return Verdict.ASK


def runners(work: Path) -> tuple[DurableRunner, DurableRunner, SqliteRunStore]:
    """DBOS configured in ``work``, the two runners over ``work/runs.sqlite``, and that store."""
    DBOS(config=sqlite_config("fixtures", str(work / "dbos.sqlite")))
    store = SqliteRunStore(work / "runs.sqlite")
    lookups = (ToolCall("look-1", "lookup", '{"word": "wire"}'), ToolCall("flaky-1", "flaky", "{}"))
    plain = DurableRunner("plain", Model(lookups), config(Provider.OPENAI_CHAT), tools(), store=store)
    notes = (ToolCall(PENDING, "note", '{"text": "hello"}'),)
    gated = DurableRunner(
        "gated", Model(notes), config(Provider.OPENAI_CHAT), tools(), store=store, policy=POLICY, approver=ask
    )
    return plain, gated, store


def write(work: Path, out: Path) -> None:
    plain, gated, store = runners(work)
    DBOS.launch()
    assert isinstance(plain.run("run-plain", "any-model", [user("look up wire")]), RunRecord)
    first = gated.run("run-resumed", "any-model", [user("note hello")])
    assert isinstance(first, Suspended)
    assert isinstance(gated.resume("run-resumed", first.token, "any-model", approve=[PENDING]), RunRecord)
    left = gated.run(SUSPENDED, "any-model", [user("note hello")])
    assert isinstance(left, Suspended)
    DBOS.destroy()
    store.close()
    out.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(work / "dbos.sqlite") as db:
        db.row_factory = sqlite3.Row
        workflows = [
            {key: row[key] for key in ("workflow_uuid", "name", "inputs", "output")}
            for row in db.execute(
                "SELECT s.workflow_uuid, s.name, i.inputs, o.output FROM workflow_status AS s"
                " JOIN workflow_input AS i USING (workflow_uuid)"
                " JOIN workflow_output AS o USING (workflow_uuid)"
                " ORDER BY s.created_at"
            )
        ]
        steps = [
            {key: row[key] for key in ("workflow_uuid", "function_id", "function_name", "output")}
            for row in db.execute("SELECT * FROM operation_outputs ORDER BY workflow_uuid, function_id")
        ]
    records = {"workflows": workflows, "steps": steps}
    (out / "dbos-records.json").write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
    shutil.copy(work / "runs.sqlite", out / "runs.sqlite")
    with sqlite3.connect(out / "runs.sqlite") as db:
        db.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
    suspended = {"run_id": SUSPENDED, "token": left.token, "pending": [PENDING]}
    (out / "suspended.json").write_text(json.dumps(suspended, indent=1) + "\n", encoding="utf-8")


def resume(work: Path, fixtures: Path) -> dict[str, object]:
    shutil.copy(fixtures / "runs.sqlite", work / "runs.sqlite")
    token = json.loads((fixtures / "suspended.json").read_text(encoding="utf-8"))["token"]
    _, gated, store = runners(work)
    DBOS.launch()
    done = gated.resume(SUSPENDED, token, "any-model", approve=[PENDING])
    assert isinstance(done, RunRecord)
    DBOS.destroy()
    store.close()
    return {
        "status": done.status.value,
        "content": "" if done.result is None else done.result.content,
        "usage": {} if done.result is None else dict(done.result.usage),
        "admitted": {k: a.outcome.content for k, a in done.admitted.items()},
        "audited": [[a.report.max_bytes, a.report.max_tokens] for a in done.audits.values()],
        "sequences_ok": [e.sequence for e in done.events] == list(range(1, done.revision + 1)),
    }


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        print(json.dumps(resume(Path(sys.argv[2]), Path(sys.argv[3]))), flush=True)
