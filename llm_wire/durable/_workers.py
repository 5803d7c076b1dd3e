"""
Many durable workers on one PostgreSQL database: ``postgres_config`` and ``Worker``, the lease that tells the
other workers this process is alive, and the watch that hands a dead worker's runs back to the queue.

A worker is alive while it holds a session advisory lock named by its DBOS executor id, on a connection of
its own: PostgreSQL releases the lock when the process dies (``kill -9`` included), so a free lock over an id
with pending runs means its worker is gone. The watch takes that lock itself while it re-enqueues the runs,
so two watchers never hand one run over twice, and reads the dead worker's runs again under the lock.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from dbos import DBOS, DBOSConfig

if TYPE_CHECKING:
    import psycopg

__all__ = ["Worker", "postgres_config"]

#: Every worker's executor id starts so: the watch recovers only the runs of workers that held a lease.
_PREFIX = "llm_wire-worker-"


def postgres_config(name: str, url: str, *, executor_id: str | None = None) -> DBOSConfig:
    """
    A ``DBOS(config=...)`` for application ``name`` whose DBOS state lives in the PostgreSQL database at
    ``url`` (a ``postgresql://`` URL; DBOS creates the database when it is absent), for one worker of many:
    ``executor_id`` names this process among them (``Worker.config`` gives one).
    """
    config: DBOSConfig = {"name": name, "system_database_url": url, "log_level": "WARNING"}
    if executor_id is not None:
        config["executor_id"] = executor_id
    return config


def _lock_key(executor_id: str) -> int:
    """The advisory lock key of an executor id: 64 bits of its SHA-256, signed as PostgreSQL's bigint."""
    return int.from_bytes(hashlib.sha256(executor_id.encode()).digest()[:8], "big", signed=True)


class Worker:
    """
    This process as one worker of many sharing the PostgreSQL database at ``url`` (a libpq URL). Making it
    takes the worker's lease under a new executor id (before ``DBOS.launch()``: a worker must be seen alive
    before it takes a run); ``config(name)`` is DBOS's configuration under that id. After the launch,
    ``watch()`` checks every ``interval`` seconds for runs pending on workers whose lease is free and puts
    them back on their queue, where any live worker takes them up from their last completed step;
    ``recover()`` is one such check. ``close()`` gives the lease up (the process should end then).
    """

    def __init__(self, url: str, *, interval: float = 1.0) -> None:
        if not isinstance(url, str):
            raise TypeError(f"url must be a str, not {type(url).__name__}")
        if not isinstance(interval, int | float) or not interval > 0:
            raise ValueError("interval must be a positive number of seconds")
        import psycopg

        self._url = url
        self._interval = float(interval)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._connection: psycopg.Connection[Any] = psycopg.connect(url, autocommit=True)
        while True:  # a fresh id is free at once; the loop only guards a 64-bit collision
            self.executor_id = f"{_PREFIX}{uuid.uuid4().hex}"
            if self._try_lock(self.executor_id):
                break
        self._held = True

    def __repr__(self) -> str:
        return f"<Worker {self.executor_id}>"

    def config(self, name: str) -> DBOSConfig:
        """``postgres_config(name, url)`` under this worker's executor id."""
        return postgres_config(name, self._url, executor_id=self.executor_id)

    def _try_lock(self, executor_id: str) -> bool:
        key = _lock_key(executor_id)
        row = self._connection.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
        return row is not None and bool(row[0])

    def _unlock(self, executor_id: str) -> None:
        self._connection.execute("SELECT pg_advisory_unlock(%s)", (_lock_key(executor_id),))

    def _leased(self) -> bool:
        """Whether this worker holds its lease, taken again on a new connection when the old one broke."""
        if self._connection.broken:
            import psycopg

            self._connection.close()
            self._connection = psycopg.connect(self._url, autocommit=True)
            # While the connection was down the others saw this worker dead, and may have taken its runs: the
            # store's marks still keep an unsafe call from running twice.
            self._held = False
        if not self._held:
            self._held = self._try_lock(self.executor_id)
        return self._held

    def recover(self) -> list[str]:
        """Put the runs of every dead worker back on their queues; returns their workflow ids."""
        pending = DBOS.list_workflows(status="PENDING", load_input=False, load_output=False)
        others = {w.executor_id for w in pending if w.executor_id and w.executor_id.startswith(_PREFIX)}
        recovered: list[str] = []
        with self._lock:
            if not self._leased():
                return recovered
            for executor_id in sorted(others - {self.executor_id}):
                if not self._try_lock(executor_id):  # alive, or another watcher is recovering it
                    continue
                try:
                    # Read again under the lock: an earlier watcher may have moved some already.
                    for workflow in DBOS.list_workflows(
                        status="PENDING", executor_id=executor_id, load_input=False, load_output=False
                    ):
                        DBOS.resume_workflow(workflow.workflow_id, queue_name=workflow.queue_name)
                        recovered.append(workflow.workflow_id)
                finally:
                    self._unlock(executor_id)
        return recovered

    def watch(self) -> None:
        """Start recovering dead workers' runs every ``interval`` seconds, on a daemon thread."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="llm_wire-worker-watch", daemon=True)
            self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(self._interval):
            # A failed check (the database restarting, DBOS shutting down) is tried again next time.
            with suppress(Exception):
                self.recover()

    def close(self) -> None:
        """Stop watching and give the lease up."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10 * self._interval)
        with self._lock:
            self._connection.close()
