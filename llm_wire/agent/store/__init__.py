"""
Run stores: the revisioned record of a durable agent run (reference §5.12).

A ``RunRecord`` moves ``created -> running -> waiting_for_approval -> running -> completed | failed |
cancelled | timed_out``; terminal states are final. Every write names the revision it expects; an applied
write bumps the revision by one and appends one event whose ``sequence`` is the new revision. Tool results are
admitted once per call id (a replay with the same idempotency key is a duplicate that returns the original
outcome); projection audits keep the SHA-256 of the exact model-visible text, never the text. ``RunStore``
is the protocol; ``MemoryRunStore``, ``SqliteRunStore`` (standard library ``sqlite3``, WAL, one file) and
``PostgresRunStore`` (``psycopg``, extra ``postgres``, for many workers) implement it. Records are versioned
JSON (``record_to_json``, ``record_from_json``).

::

    StoreError
    ├── RunNotFound(run_id)                no record with this id
    ├── RunExists(run_id)                  a record with this id was already created
    ├── RevisionConflict(expected, actual)   another writer moved the run first
    ├── InvalidTransition(current, target)   the status change is not allowed (terminal runs stay terminal)
    ├── CallRebound(call_id, field)          a call id admitted or audited again with other data
    ├── InvalidWrite(problem)                the write itself is malformed (empty id, bad SHA, no admission)
    ├── SensitiveMetadata(key)               run metadata whose key looks like a secret
    ├── UnreadableRecord(problem)            stored JSON that is corrupt or of an unknown format version
    ├── StoreCorrupt()                       the store's file is not a database or is damaged
    ├── StoreBusy(timeout)                   another writer held the store past its timeout; nothing written
    └── StoreUnavailable(code)               the store's database failed otherwise (cannot open, disk full)
"""

from __future__ import annotations

from llm_wire import _public
from llm_wire.agent.store._codecs import (
    record_from_json,
    record_to_json,
)
from llm_wire.agent.store._memory import MemoryRunStore
from llm_wire.agent.store._postgres import PostgresRunStore
from llm_wire.agent.store._protocol import RunStore
from llm_wire.agent.store._record import (
    Admission,
    AdmittedResult,
    ApprovalDecision,
    ApprovalState,
    CallRebound,
    Continuation,
    InvalidTransition,
    InvalidWrite,
    ProjectionAudit,
    RecordEvent,
    RecordEventKind,
    RevisionConflict,
    RunExists,
    RunNotFound,
    RunRecord,
    RunStatus,
    SensitiveMetadata,
    StartedCall,
    StoreBusy,
    StoreCorrupt,
    StoredResult,
    StoreError,
    StoreUnavailable,
    Suspended,
    UnreadableRecord,
    WriteProblem,
)
from llm_wire.agent.store._sqlite import (
    SqliteRunStore,
)

__all__ = [
    "Admission",
    "AdmittedResult",
    "ApprovalDecision",
    "ApprovalState",
    "CallRebound",
    "Continuation",
    "InvalidTransition",
    "InvalidWrite",
    "MemoryRunStore",
    "PostgresRunStore",
    "ProjectionAudit",
    "RevisionConflict",
    "RecordEvent",
    "RecordEventKind",
    "RunExists",
    "RunNotFound",
    "RunRecord",
    "StoredResult",
    "RunStatus",
    "RunStore",
    "SensitiveMetadata",
    "SqliteRunStore",
    "StartedCall",
    "StoreBusy",
    "StoreCorrupt",
    "StoreError",
    "StoreUnavailable",
    "Suspended",
    "UnreadableRecord",
    "WriteProblem",
    "record_from_json",
    "record_to_json",
]

_public.rehome(__name__, __all__, globals())
