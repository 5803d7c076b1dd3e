"""
The in-memory run store: records in a dict under one lock.
"""

from __future__ import annotations

import threading
from typing import TypeVar

from llm_wire.agent.store._protocol import Step, StoreWrites
from llm_wire.agent.store._record import RunExists, RunNotFound, RunRecord, StoreError
from llm_wire.result import Err, Ok, Result

__all__ = ["MemoryRunStore"]

T = TypeVar("T")


class _Memory:
    def __init__(self) -> None:
        self._runs: dict[str, RunRecord] = {}
        self._lock = threading.Lock()

    def insert(self, record: RunRecord) -> Result[None, StoreError]:
        with self._lock:
            if self._runs.setdefault(record.run_id, record) is not record:
                return Err(RunExists(record.run_id))
            return Ok(None)

    def read(self, run_id: str) -> Result[RunRecord, StoreError]:
        record = self._runs.get(run_id)
        return Err(RunNotFound(run_id)) if record is None else Ok(record)

    def update(self, run_id: str, step: Step[T], call_id: str | None = None) -> Result[T, StoreError]:
        with self._lock:
            record = self._runs.get(run_id)
            if record is None:
                return Err(RunNotFound(run_id))
            match step(record):
                case Err() as failed:
                    return failed
                case Ok((after, answer)):
                    self._runs[run_id] = after
                    return Ok(answer)


class MemoryRunStore(StoreWrites):
    """A ``RunStore`` in this process's memory (tests, single-process runs)."""

    def __init__(self) -> None:
        super().__init__(_Memory())

    def __repr__(self) -> str:
        return "<MemoryRunStore>"
