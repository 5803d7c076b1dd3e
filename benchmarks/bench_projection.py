"""
Output projection and the SQLite run store.

Projection: a structured tool result of 1, 4 and 16 MiB (rows of ids, names, tags and text) projected to the
default 64 KiB / 10,000 tokens, against ``json.dumps`` of the same result with the canonical settings (sorted
keys, compact, UTF-8): the least any projection does, since it must measure the whole text. Passes alternate
between the two; the ratio is the median of the per-round ratios, and the per-MiB cost shows the growth.

Store: recorded tool calls per second in one SQLite file (WAL): each call is marked started, its outcome
admitted and its projection audited, three revision-checked transactions, against the in-memory store doing
the same writes.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks._harness import paired_ratios, print_table
from llm_wire.agent import ToolOutcome
from llm_wire.agent.projection import SuccessPayload, project_payload
from llm_wire.agent.store import (
    AdmittedResult,
    MemoryRunStore,
    ProjectionAudit,
    RunStatus,
    RunStore,
    SqliteRunStore,
    StartedCall,
)
from llm_wire.agent.store._rules import sha256_hex
from llm_wire.result import unwrap
from llm_wire.value import Value

__all__ = ["CALLS", "SIZES", "TARGET", "main", "measure_projection", "measure_store", "result_of"]

#: Projection may cost at most this many times ``json.dumps`` of the same result.
TARGET = 2.0
#: Result sizes in MiB.
SIZES = (1, 4, 16)
LOREM = "lorem ipsum dolor sit " * 4
#: Tool calls recorded per store measurement.
CALLS = 300


def result_of(mib: int) -> Value:
    """A structured result of about ``mib`` MiB of canonical JSON."""
    row_bytes = 160
    rows: list[Value] = [
        {
            "id": n,
            "name": f"row {n}",
            "tags": ["alpha", "beta", "gamma"],
            "text": "lorem ipsum dolor sit " * 4,
        }
        for n in range(mib * (1 << 20) // row_bytes)
    ]
    return {"rows": rows, "source": "bench"}


def measure_projection(mib: int) -> tuple[float, float, list[float]]:
    """Median seconds of projection and of ``json.dumps``, and the per-round ratios."""
    data = result_of(mib)
    payload = SuccessPayload("query result", data)

    def projected() -> object:
        return unwrap(project_payload(payload))

    def dumped() -> object:
        return json.dumps(
            {"artifacts": [], "data": data, "message": "query result", "ok": True},
            separators=(",", ":"),
            sort_keys=True,
            ensure_ascii=False,
        ).encode("utf-8")

    (ours, peer), ratios = paired_ratios([projected, dumped], rounds=5, min_time=0.0)
    return ours, peer, ratios


def _record_calls(store: RunStore, calls: int) -> float:
    """Seconds to record ``calls`` tool calls (start, admit, audit) in one run."""
    record = unwrap(store.create())
    record = unwrap(store.transition(record.run_id, record.revision, RunStatus.RUNNING))
    outcome = ToolOutcome.success("done", {"value": 1})
    text = outcome.model_text()
    report = unwrap(project_payload(SuccessPayload("done", {"value": 1}))).report
    revision = record.revision
    start = time.perf_counter()
    for n in range(calls):
        call_id = f"call-{n}"
        key = f"{record.run_id}:{call_id}"
        revision = unwrap(
            store.start_call(record.run_id, revision, StartedCall(call_id, key, "t"))
        ).record.revision
        admitted = AdmittedResult(call_id, key, "t", outcome)
        revision = unwrap(store.admit(record.run_id, revision, admitted)).record.revision
        audit = ProjectionAudit(call_id, "t", sha256_hex(text), report)
        revision = unwrap(store.record_projection(record.run_id, revision, audit)).record.revision
    return time.perf_counter() - start


def measure_store() -> tuple[float, float]:
    """Recorded tool calls per second: SQLite file, in-memory store (medians of three runs)."""
    sqlite_rates, memory_rates = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(3):
            store = SqliteRunStore(Path(tmp) / f"bench-{n}.sqlite")
            sqlite_rates.append(CALLS / _record_calls(store, CALLS))
            store.close()
            memory_rates.append(CALLS / _record_calls(MemoryRunStore(), CALLS))
    return statistics.median(sqlite_rates), statistics.median(memory_rates)


def main() -> None:
    """Print the projection and store tables."""
    rows: list[list[object]] = []
    for mib in SIZES:
        ours, peer, ratios = measure_projection(mib)
        ratio = statistics.median(ratios)
        rows.append(
            [
                f"{mib} MiB",
                ours * 1000,
                peer * 1000,
                ours * 1000 / mib,
                ratio,
                f"{min(ratios):.2f}-{max(ratios):.2f}",
                "yes" if ratio <= TARGET else "NO",
            ]
        )
    print_table(
        "Output projection to 64 KiB / 10,000 tokens, against json.dumps of the same result",
        ["result", "project ms", "json.dumps ms", "project ms/MiB", "ratio", "round ratios", f"<= {TARGET}x"],
        rows,
    )
    sqlite_rate, memory_rate = measure_store()
    print_table(
        f"Run store: recorded tool calls per second ({CALLS} calls in one run; start, admit, audit each)",
        ["SQLite (WAL, one file) calls/s", "in-memory calls/s", "SQLite / memory"],
        [[sqlite_rate, memory_rate, sqlite_rate / memory_rate]],
    )


if __name__ == "__main__":
    main()
