"""
The ``RunStore`` protocol and its writes, defined once over an engine (``_Engine``) that each store supplies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, TypeAlias, TypeVar

from llm_wire.agent.projection import (
    ProjectionPolicy,
)
from llm_wire.agent.store._record import (
    Admission,
    AdmittedResult,
    ProjectionAudit,
    RunExists,
    RunNotFound,
    RunRecord,
    RunStatus,
    StartedCall,
    StoredResult,
    StoreError,
    Suspended,
)
from llm_wire.agent.store._rules import (
    _admit,
    _audit,
    _claim,
    _created,
    _resolve,
    _start_call,
    _suspend,
    _transition,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value

__all__ = ["RunStore", "StoreWrites", "Engine", "Step"]


class RunStore(Protocol):
    """
    Durable run records. Every write takes the revision the caller last saw and returns ``Err`` (never
    raises) on a conflict, a forbidden transition or a malformed write. The record a write returns has the
    run's head and at least the rows of the call it wrote (a store may leave out the others, so that a
    write costs the same late in a long run); ``load`` returns the whole record.
    """

    def create(
        self, *, run_id: str | None = None, trace_id: str | None = None, metadata: Mapping[str, str] = {}
    ) -> Result[RunRecord, StoreError]:
        """A new run, ``created`` at revision 1 (ids generated when absent)."""
        ...

    def load(self, run_id: str) -> Result[RunRecord, StoreError]:
        """The run's current record."""
        ...

    def transition(
        self, run_id: str, revision: int, status: RunStatus, *, result: StoredResult | None = None
    ) -> Result[RunRecord, StoreError]:
        """Move the run to ``status`` (a terminal status keeps ``result``)."""
        ...

    def start_call(self, run_id: str, revision: int, call: StartedCall) -> Result[Admission, StoreError]:
        """Mark a call as about to run; a repeat is a duplicate (the earlier attempt's end is unknown)."""
        ...

    def admit(self, run_id: str, revision: int, result: AdmittedResult) -> Result[Admission, StoreError]:
        """Admit a tool result once per call id; a same-key replay is a duplicate returning the original."""
        ...

    def record_projection(
        self, run_id: str, revision: int, audit: ProjectionAudit
    ) -> Result[Admission, StoreError]:
        """Record what the model was shown for an admitted call; an identical replay is a duplicate."""
        ...

    def suspend(
        self,
        run_id: str,
        revision: int,
        pending: tuple[tuple[str, str], ...],
        state: Value,
        policy: ProjectionPolicy,
    ) -> Result[Suspended, StoreError]:
        """Wait for approval of ``pending`` ``(call_id, tool_name)`` calls, keeping the runner's state."""
        ...

    def resolve_approval(
        self, run_id: str, revision: int, token: str, call_id: str, *, approved: bool, reason: str = ""
    ) -> Result[RunRecord, StoreError]:
        """Approve or deny one pending call; a denial fails the run at once."""
        ...

    def claim(self, run_id: str, revision: int, token: str) -> Result[RunRecord, StoreError]:
        """Take the continuation of an approved run (or reclaim an active one after a crash)."""
        ...


T = TypeVar("T")
#: One write: from the record before it to the record after it and what the caller gets back.
Step: TypeAlias = Callable[[RunRecord], Result[tuple[RunRecord, T], StoreError]]


class Engine(Protocol):
    """Where records live: a store's storage, under the writes ``StoreWrites`` defines once."""

    def insert(self, record: RunRecord) -> Result[None, StoreError]: ...

    def read(self, run_id: str) -> Result[RunRecord, StoreError]: ...

    def update(self, run_id: str, step: Step[T], call_id: str | None = None) -> Result[T, StoreError]:
        """Apply ``step``; the record it sees holds the keyed rows of ``call_id`` at least."""
        ...


def _with_record(result: Result[RunRecord, StoreError]) -> Result[tuple[RunRecord, RunRecord], StoreError]:
    return result if isinstance(result, Err) else Ok((result.value, result.value))


def _with_admission(result: Result[Admission, StoreError]) -> Result[tuple[RunRecord, Admission], StoreError]:
    return result if isinstance(result, Err) else Ok((result.value.record, result.value))


def _with_suspension(
    result: Result[Suspended, StoreError],
) -> Result[tuple[RunRecord, Suspended], StoreError]:
    return result if isinstance(result, Err) else Ok((result.value.record, result.value))


class StoreWrites:
    """The ``RunStore`` writes, once, over an engine."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def create(
        self, *, run_id: str | None = None, trace_id: str | None = None, metadata: Mapping[str, str] = {}
    ) -> Result[RunRecord, StoreError]:
        """A new run, ``created`` at revision 1 (ids generated when absent)."""
        match _created(run_id, trace_id, metadata):
            case Err() as failed:
                return failed
            case Ok(record):
                pass
        match self._engine.insert(record):
            case Err(RunExists()):
                # Taken: an existing record the store cannot read is that failure, as a read gives it.
                match self._engine.read(record.run_id):
                    case Err(error) if not isinstance(error, RunNotFound):
                        return Err(error)
                return Err(RunExists(record.run_id))
            case Err() as failed:
                return failed
        return Ok(record)

    def load(self, run_id: str) -> Result[RunRecord, StoreError]:
        """The run's current record, events included."""
        return self._engine.read(run_id)

    def transition(
        self, run_id: str, revision: int, status: RunStatus, *, result: StoredResult | None = None
    ) -> Result[RunRecord, StoreError]:
        """Move the run to ``status`` (a terminal status keeps ``result``)."""
        return self._engine.update(run_id, lambda r: _with_record(_transition(r, revision, status, result)))

    def start_call(self, run_id: str, revision: int, call: StartedCall) -> Result[Admission, StoreError]:
        """Mark a call as about to run; a repeat is a duplicate (the earlier attempt's end is unknown)."""
        return self._engine.update(
            run_id, lambda r: _with_admission(_start_call(r, revision, call)), call.call_id
        )

    def admit(self, run_id: str, revision: int, result: AdmittedResult) -> Result[Admission, StoreError]:
        """Admit a tool result once per call id; a same-key replay is a duplicate returning the original."""
        return self._engine.update(
            run_id, lambda r: _with_admission(_admit(r, revision, result)), result.call_id
        )

    def record_projection(
        self, run_id: str, revision: int, audit: ProjectionAudit
    ) -> Result[Admission, StoreError]:
        """Record what the model was shown for an admitted call; an identical replay is a duplicate."""
        return self._engine.update(
            run_id, lambda r: _with_admission(_audit(r, revision, audit)), audit.call_id
        )

    def suspend(
        self,
        run_id: str,
        revision: int,
        pending: tuple[tuple[str, str], ...],
        state: Value,
        policy: ProjectionPolicy,
    ) -> Result[Suspended, StoreError]:
        """Wait for approval of ``pending`` ``(call_id, tool_name)`` calls, keeping the runner's state."""
        return self._engine.update(
            run_id, lambda r: _with_suspension(_suspend(r, revision, tuple(pending), state, policy))
        )

    def resolve_approval(
        self, run_id: str, revision: int, token: str, call_id: str, *, approved: bool, reason: str = ""
    ) -> Result[RunRecord, StoreError]:
        """Approve or deny one pending call; a denial fails the run at once."""
        return self._engine.update(
            run_id, lambda r: _with_record(_resolve(r, revision, token, call_id, approved, reason))
        )

    def claim(self, run_id: str, revision: int, token: str) -> Result[RunRecord, StoreError]:
        """Take the continuation of an approved run (or reclaim an active one after a crash)."""
        return self._engine.update(run_id, lambda r: _with_record(_claim(r, revision, token)))
