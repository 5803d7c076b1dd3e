"""
Many durable workers on one PostgreSQL server (issue 27): four worker processes serve forty runs from one
queue while workers are killed with SIGKILL at random and started again; every run completes, and the tool
that is not idempotent (it appends a line to a file per call) took effect at most once per call id. The
fleet's application is ``llm_wire.demo.workers``, run in real processes.
"""

from __future__ import annotations

import random
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from llm_wire.agent.store import PostgresRunStore, RunStatus
from llm_wire.demo import workers
from llm_wire.demo.postgres_server import Cluster
from llm_wire.result import unwrap

WORKERS, RUNS, INVOICES, KILLS = 4, 40, 3, 20


def _ready(folder: Path, process: subprocess.Popen[str]) -> bool:
    return (folder / f"ready-{process.pid}").exists()


class TestFleet:
    def test_sigkill_at_random_finishes_every_run_once(self, postgres: Cluster, tmp_path: Path) -> None:
        """
        20 kills of launched workers while runs remain, each worker started again at once: all 40 runs
        complete, no call's invoice is sent twice, an ``ok`` call's exactly once, and the kills landed
        inside calls (some outcomes are unknown).
        """
        url = postgres.create_database("fleet")
        seed = random.randrange(1 << 30)
        chance = random.Random(seed)
        logs = (tmp_path / "stderr.log").open("w")
        quiet = {"stdout": subprocess.DEVNULL, "stderr": logs}
        fleet = [workers.start_worker(url, tmp_path, **quiet) for _ in range(WORKERS)]
        store = PostgresRunStore(url)
        try:
            deadline = time.monotonic() + 120
            while not all(_ready(tmp_path, p) for p in fleet):
                assert time.monotonic() < deadline, "the workers did not launch"
                time.sleep(0.1)
            workers.put_runs(url, RUNS, 2, INVOICES, 0.4)
            kills, left_at_kill = 0, []
            while kills < KILLS:
                time.sleep(chance.uniform(0.2, 0.8))
                launched = [n for n, p in enumerate(fleet) if _ready(tmp_path, p)]
                if not launched:
                    continue
                n = chance.choice(launched)
                fleet[n].send_signal(signal.SIGKILL)
                fleet[n].wait()
                kills += 1
                left_at_kill.append(len(workers.unfinished(store, RUNS)))
                fleet[n] = workers.start_worker(url, tmp_path, **quiet)
            deadline = time.monotonic() + 240
            while left := workers.unfinished(store, RUNS):
                assert time.monotonic() < deadline, f"seed {seed}: {len(left)} runs never finished"
                time.sleep(0.5)
        finally:
            for process in fleet:
                process.send_signal(signal.SIGKILL)
                process.wait()
            logs.close()
        assert all(left > 0 for left in left_at_kill), f"seed {seed}: a kill came after the last run ended"
        sent = Counter(line.split()[0] for line in (tmp_path / "invoices.log").read_text().splitlines())
        assert max(sent.values()) == 1, f"seed {seed}: an invoice was sent twice"
        unknown = 0
        for n in range(RUNS):
            record = unwrap(store.load(workers.run_id(n)))
            assert record.status is RunStatus.COMPLETED
            assert [e.sequence for e in record.events] == list(range(1, record.revision + 1))
            assert sorted(record.admitted) == [f"call-{k}" for k in range(INVOICES)]
            for call_id, admitted in record.admitted.items():
                key = f"{record.run_id}:{call_id}"
                if admitted.outcome.ok:
                    assert sent[key] == 1, f"seed {seed}: {key} answered ok but was not sent"
                else:
                    assert admitted.outcome.failure is not None
                    assert admitted.outcome.failure.code == "outcome_unknown"
                    unknown += 1
        store.close()
        calls = {f"{workers.run_id(n)}:call-{k}" for n in range(RUNS) for k in range(INVOICES)}
        assert set(sent) <= calls
        assert unknown >= 1, f"seed {seed}: no kill landed between a call's effect and its record"


@pytest.mark.parametrize("interval", [0, -1.0])
def test_a_worker_needs_a_positive_interval(interval: float) -> None:
    """``Worker(url, interval=...)`` refuses a non-positive interval before it connects."""
    from llm_wire.durable import Worker

    with pytest.raises(ValueError, match="interval"):
        Worker("postgresql://nowhere", interval=interval)


def test_postgres_config_names_the_executor() -> None:
    """``postgres_config`` points DBOS at the URL; an executor id is set only when given."""
    from llm_wire.durable import postgres_config

    url = "postgresql://app@127.0.0.1:5432/shop"
    expected = {"name": "shop", "system_database_url": url, "log_level": "WARNING"}
    assert postgres_config("shop", url) == expected
    assert postgres_config("shop", url, executor_id="w-1")["executor_id"] == "w-1"
