"""
Run stores: the revisioned record of a durable agent run (reference §5.12).

A ``RunRecord`` moves ``created -> running -> waiting_for_approval -> running -> completed | failed |
cancelled | timed_out``; terminal states are final. Every write names the revision it expects; an applied
write bumps the revision by one and appends one event whose ``sequence`` is the new revision. Tool results are
admitted once per call id (a replay with the same idempotency key is a duplicate that returns the original
outcome); projection audits keep the SHA-256 of the exact model-visible text, never the text. ``RunStore``
is the protocol; ``MemoryRunStore`` and ``SqliteRunStore`` (standard library ``sqlite3``, WAL, one file)
implement it. Records are versioned JSON (``record_to_json``, ``record_from_json``).

::

    StoreError
    ├── RunNotFound(run_id)                no record with this id
    ├── RunExists(run_id)                  a record with this id was already created
    ├── RevisionConflict(expected, actual)   another writer moved the run first
    ├── InvalidTransition(current, target)   the status change is not allowed (terminal runs stay terminal)
    ├── CallRebound(call_id, field)          a call id admitted or audited again with other data
    ├── InvalidWrite(problem)                the write itself is malformed (empty id, bad SHA, no admission)
    ├── SensitiveMetadata(key)               run metadata whose key looks like a secret
    └── UnreadableRecord(problem)            stored JSON that is corrupt or of an unknown format version
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Protocol, TypeAlias, TypeVar

from attrs import evolve, field, frozen

from llm_wire.agent._outcome import ErrorCategory, ToolFailure, ToolOutcome
from llm_wire.agent.projection import (
    LimitingFactor,
    ProjectionMethod,
    ProjectionPolicy,
    ProjectionReport,
    policy_of,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Limits, Value, parse, render

__all__ = [
    "RECORD_FORMAT",
    "Admission",
    "AdmittedResult",
    "ApprovalDecision",
    "ApprovalState",
    "CallRebound",
    "Continuation",
    "InvalidTransition",
    "InvalidWrite",
    "MemoryRunStore",
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
    "StoreError",
    "Suspended",
    "UnreadableRecord",
    "WriteProblem",
    "is_sensitive_key",
    "record_from_json",
    "record_to_json",
    "sha256_hex",
]

#: The format version ``record_to_json`` writes; version 1 (no projection audits) still loads.
RECORD_FORMAT = 2
#: Stored records are ours, but tool data may be large and deep.
_RECORD_LIMITS = Limits(max_bytes=1 << 30, max_depth=1024, max_values=1 << 30)


# ---------------------------------------------------------------------------------------------------------
# States and events


class RunStatus(enum.Enum):
    """Where a run stands."""

    CREATED = "created"
    RUNNING = "running"
    WAITING_FOR_APPROVAL = "waiting_for_approval"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"

    @property
    def terminal(self) -> bool:
        """Whether the run has ended for good."""
        return self in _TERMINAL


_TERMINAL = frozenset({RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.TIMED_OUT})
_ENDINGS = frozenset({RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.TIMED_OUT})
_TRANSITIONS: Mapping[RunStatus, frozenset[RunStatus]] = {
    RunStatus.CREATED: frozenset({RunStatus.RUNNING}) | _ENDINGS,
    RunStatus.RUNNING: frozenset({RunStatus.WAITING_FOR_APPROVAL, RunStatus.COMPLETED}) | _ENDINGS,
    RunStatus.WAITING_FOR_APPROVAL: frozenset({RunStatus.RUNNING}) | _ENDINGS,
}


class RecordEventKind(enum.Enum):
    """What an applied write did."""

    RUN_CREATED = "run_created"
    STATUS_CHANGED = "status_changed"
    TOOL_CALL_STARTED = "tool_call_started"
    TOOL_RESULT_ADMITTED = "tool_result_admitted"
    TOOL_OUTPUT_PROJECTION_RECORDED = "tool_output_projection_recorded"
    TOOL_APPROVAL_REQUIRED = "tool_approval_required"
    APPROVAL_RESOLVED = "approval_resolved"
    CONTINUATION_CLAIMED = "continuation_claimed"


@frozen
class RecordEvent:
    """One applied write: ``sequence`` equals the revision it produced; ``data`` never holds tool content."""

    sequence: int
    kind: RecordEventKind
    data: Mapping[str, Value]
    at: float


# ---------------------------------------------------------------------------------------------------------
# Record parts


@frozen
class StartedCall:
    """A tool call about to run: written before the tool is invoked, so a crash leaves its trace."""

    call_id: str
    idempotency_key: str
    tool_name: str
    #: The attempt (from 1): a retry under the contract starts the next one.
    attempt: int = 1


@frozen
class AdmittedResult:
    """A tool result admitted for a call: the full outcome, before any projection."""

    call_id: str
    idempotency_key: str
    tool_name: str
    outcome: ToolOutcome


@frozen
class ProjectionAudit:
    """What the model was shown for a call: the SHA-256 of the exact UTF-8 text and the report."""

    call_id: str
    tool_name: str
    projected_content_sha256: str
    report: ProjectionReport
    at: float = field(factory=time.time, eq=False)


class ApprovalDecision(enum.Enum):
    """An approval's state."""

    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"


@frozen
class ApprovalState:
    """A call waiting for, or given, approval."""

    call_id: str
    tool_name: str
    decision: ApprovalDecision = ApprovalDecision.PENDING
    reason: str = ""


@frozen
class Continuation:
    """
    What a suspended run needs to go on: the runner's own state (a JSON value it reads back), the resolved
    projection policy, the SHA-256 of the bearer token, and whether a worker has claimed it.
    """

    state: Value = field(eq=False)
    policy: ProjectionPolicy
    token_sha256: str = field(repr=False)
    active: bool = False
    claims: int = 0


@frozen
class StoredResult:
    """How a run ended: content, stop reason, metadata, usage counters and cost."""

    content: str = ""
    stop_reason: str = ""
    metadata: Mapping[str, str] = field(factory=dict)
    usage: Mapping[str, int] = field(factory=dict)
    cost: Decimal | None = None


@frozen
class RunRecord:
    """The whole durable state of one run."""

    run_id: str
    trace_id: str
    status: RunStatus = RunStatus.CREATED
    revision: int = 0
    metadata: Mapping[str, str] = field(factory=dict)
    events: tuple[RecordEvent, ...] = ()
    #: Calls started (about to be invoked) by call id; one without an admitted result had an unknown end.
    started: Mapping[str, StartedCall] = field(factory=dict)
    #: Admitted results by call id, in admission order.
    admitted: Mapping[str, AdmittedResult] = field(factory=dict)
    audits: Mapping[str, ProjectionAudit] = field(factory=dict)
    approvals: Mapping[str, ApprovalState] = field(factory=dict)
    continuation: Continuation | None = None
    result: StoredResult | None = None


@frozen
class Admission:
    """An admission or audit: the record after it, and whether it repeated an earlier identical write."""

    record: RunRecord
    duplicate: bool
    admitted: AdmittedResult | None = None


@frozen
class Suspended:
    """A suspended run and the bearer token that resolves its approval (never log it, nor show a model)."""

    record: RunRecord
    token: str = field(repr=False)


# ---------------------------------------------------------------------------------------------------------
# Errors


@frozen
class RunNotFound:
    """No run has this id."""

    run_id: str

    def describe(self) -> str:
        """``no run with this id``."""
        return "no run with this id"

    def __str__(self) -> str:
        return self.describe()


@frozen
class RunExists:
    """A run with this id was already created."""

    run_id: str

    def describe(self) -> str:
        """``a run with this id already exists``."""
        return "a run with this id already exists"

    def __str__(self) -> str:
        return self.describe()


@frozen
class RevisionConflict:
    """The run changed concurrently: the write expected ``expected`` and the run is at ``actual``."""

    expected: int
    actual: int

    def describe(self) -> str:
        """``run state changed concurrently: expected revision 3, the run is at 4``."""
        return (
            f"run state changed concurrently: expected revision {self.expected}, the run is at {self.actual}"
        )

    def __str__(self) -> str:
        return self.describe()


@frozen
class InvalidTransition:
    """The run cannot go from ``current`` to ``target`` (or take this write in its current state)."""

    current: RunStatus
    target: RunStatus | None = None

    def describe(self) -> str:
        """``a run that is completed cannot become running``."""
        if self.target is None:
            return f"a run that is {self.current.value} cannot take this write"
        return f"a run that is {self.current.value} cannot become {self.target.value}"

    def __str__(self) -> str:
        return self.describe()


@frozen
class CallRebound:
    """A call id already admitted (or audited) arrived again with a different ``field``."""

    call_id: str
    field: str

    def describe(self) -> str:
        """``a call id must not be rebound to a different idempotency_key``."""
        return f"a call id must not be rebound to a different {self.field}"

    def __str__(self) -> str:
        return self.describe()


class WriteProblem(enum.Enum):
    """What is malformed in a write."""

    EMPTY_CALL_ID = "the call id is empty"
    EMPTY_TOOL_NAME = "the tool name is empty"
    BAD_SHA256 = "the projected content SHA-256 is not 64 lowercase hex characters"
    INCONSISTENT_REPORT = "the projection report contradicts itself"
    NOT_ADMITTED = "no tool result with this call id and tool name was admitted"
    BAD_TOKEN = "the continuation token does not match"
    NOT_SUSPENDED = "the run has no continuation to resolve or claim"
    NOT_APPROVED = "the continuation has pending approvals"
    NOTHING_PENDING = "a suspension needs at least one pending call"

    def describe(self) -> str:
        """The problem in words."""
        return self.value

    def __str__(self) -> str:
        return self.describe()


@frozen
class InvalidWrite:
    """The write is malformed; ``problem`` says how."""

    problem: WriteProblem

    def describe(self) -> str:
        """``invalid run store write: the call id is empty``."""
        return f"invalid run store write: {self.problem.value}"

    def __str__(self) -> str:
        return self.describe()


@frozen
class SensitiveMetadata:
    """Run metadata has a key that looks like a secret (token, secret, password, api_key, cookie)."""

    key: str

    def describe(self) -> str:
        """``run metadata must not hold secrets: a key looks like a token, password or cookie``."""
        return "run metadata must not hold secrets: a key looks like a token, secret, password or cookie"

    def __str__(self) -> str:
        return self.describe()


@frozen
class UnreadableRecord:
    """A stored record is corrupt, or of a format version this library does not know (``version``)."""

    problem: str
    version: int | None = None

    def describe(self) -> str:
        """``stored run record is unreadable: the format version is not 1 or 2``."""
        return f"stored run record is unreadable: {self.problem}"

    def __str__(self) -> str:
        return self.describe()


StoreError: TypeAlias = (
    RunNotFound
    | RunExists
    | RevisionConflict
    | InvalidTransition
    | CallRebound
    | InvalidWrite
    | SensitiveMetadata
    | UnreadableRecord
)


# ---------------------------------------------------------------------------------------------------------
# The pure core: one function per write, from a record to the next


_SENSITIVE = ("token", "secret", "password", "passwd", "api_key", "apikey", "cookie", "credential")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def is_sensitive_key(key: str) -> bool:
    """Whether a metadata key looks like a secret: ``token``, ``apiKey``, ``session.cookie``, ``x_secret``."""
    normal = _CAMEL.sub("_", key).lower().replace(".", "_").replace("-", "_")
    return any(normal == word or normal.endswith("_" + word) for word in _SENSITIVE)


def sha256_hex(text: str) -> str:
    """The lowercase hex SHA-256 of the UTF-8 bytes of ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _event(record: RunRecord, kind: RecordEventKind, data: Mapping[str, Value]) -> RunRecord:
    revision = record.revision + 1
    event = RecordEvent(revision, kind, dict(data), time.time())
    return evolve(record, revision=revision, events=(*record.events, event))


def _expect(record: RunRecord, revision: int) -> Result[None, StoreError]:
    if record.revision != revision:
        return Err(RevisionConflict(revision, record.revision))
    return Ok(None)


def _created(
    run_id: str | None, trace_id: str | None, metadata: Mapping[str, str]
) -> Result[RunRecord, StoreError]:
    for key in metadata:
        if is_sensitive_key(key):
            return Err(SensitiveMetadata(key))
    record = RunRecord(
        run_id or f"run-{secrets.token_hex(16)}",
        trace_id or secrets.token_hex(16),
        metadata=dict(metadata),
    )
    return Ok(_event(record, RecordEventKind.RUN_CREATED, {"trace_id": record.trace_id}))


def _transition(
    record: RunRecord, revision: int, target: RunStatus, result: StoredResult | None
) -> Result[RunRecord, StoreError]:
    if target not in _TRANSITIONS.get(record.status, frozenset()):
        return Err(InvalidTransition(record.status, target))
    if isinstance(conflict := _expect(record, revision), Err):
        return conflict
    continuation = record.continuation
    if target.terminal:
        continuation = None
    elif target is RunStatus.RUNNING and continuation is not None and record.status is not RunStatus.CREATED:
        return Err(InvalidWrite(WriteProblem.NOT_APPROVED))  # a suspended run resumes through ``claim``
    moved = evolve(
        record, status=target, result=result if target.terminal else None, continuation=continuation
    )
    data: dict[str, Value] = {"from": record.status.value, "to": target.value}
    if result is not None and target.terminal:
        data["stop_reason"] = result.stop_reason
    return Ok(_event(moved, RecordEventKind.STATUS_CHANGED, data))


def _start_call(record: RunRecord, revision: int, call: StartedCall) -> Result[Admission, StoreError]:
    if not call.call_id:
        return Err(InvalidWrite(WriteProblem.EMPTY_CALL_ID))
    if not call.tool_name:
        return Err(InvalidWrite(WriteProblem.EMPTY_TOOL_NAME))
    earlier = record.started.get(call.call_id)
    if earlier is not None:
        if (earlier.idempotency_key, earlier.tool_name) != (call.idempotency_key, call.tool_name):
            return Err(CallRebound(call.call_id, "idempotency_key or tool_name"))
        if call.attempt <= earlier.attempt:
            return Ok(Admission(record, duplicate=True, admitted=record.admitted.get(call.call_id)))
    if record.status is not RunStatus.RUNNING:
        return Err(InvalidTransition(record.status))
    if isinstance(conflict := _expect(record, revision), Err):
        return conflict
    started = evolve(record, started={**record.started, call.call_id: call})
    data: dict[str, Value] = {
        "call_id": call.call_id,
        "tool_name": call.tool_name,
        "idempotency_key": call.idempotency_key,
        "attempt": call.attempt,
    }
    return Ok(Admission(_event(started, RecordEventKind.TOOL_CALL_STARTED, data), False))


def _admit(record: RunRecord, revision: int, result: AdmittedResult) -> Result[Admission, StoreError]:
    if not result.call_id:
        return Err(InvalidWrite(WriteProblem.EMPTY_CALL_ID))
    if not result.tool_name:
        return Err(InvalidWrite(WriteProblem.EMPTY_TOOL_NAME))
    earlier = record.admitted.get(result.call_id)
    if earlier is not None:
        # A replay after a crash: the original outcome, whatever the revision, and no new event.
        if earlier.idempotency_key != result.idempotency_key:
            return Err(CallRebound(result.call_id, "idempotency_key"))
        if earlier.tool_name != result.tool_name:
            return Err(CallRebound(result.call_id, "tool_name"))
        return Ok(Admission(record, duplicate=True, admitted=earlier))
    if record.status is not RunStatus.RUNNING:
        return Err(InvalidTransition(record.status))
    if isinstance(conflict := _expect(record, revision), Err):
        return conflict
    outcome = result.outcome
    admitted = evolve(record, admitted={**record.admitted, result.call_id: result})
    data: dict[str, Value] = {
        "call_id": result.call_id,
        "tool_name": result.tool_name,
        "idempotency_key": result.idempotency_key,
        "succeeded": outcome.ok,
        "error_category": None if outcome.category is None else outcome.category.value,
    }
    return Ok(Admission(_event(admitted, RecordEventKind.TOOL_RESULT_ADMITTED, data), False, result))


def _audit(record: RunRecord, revision: int, audit: ProjectionAudit) -> Result[Admission, StoreError]:
    if not audit.call_id:
        return Err(InvalidWrite(WriteProblem.EMPTY_CALL_ID))
    if not audit.tool_name:
        return Err(InvalidWrite(WriteProblem.EMPTY_TOOL_NAME))
    if not _SHA256.fullmatch(audit.projected_content_sha256):
        return Err(InvalidWrite(WriteProblem.BAD_SHA256))
    if not audit.report.is_consistent():
        return Err(InvalidWrite(WriteProblem.INCONSISTENT_REPORT))
    raw = record.admitted.get(audit.call_id)
    if raw is None or raw.tool_name != audit.tool_name:
        return Err(InvalidWrite(WriteProblem.NOT_ADMITTED))
    earlier = record.audits.get(audit.call_id)
    if earlier is not None:
        if earlier == audit:
            return Ok(Admission(record, duplicate=True))
        return Err(CallRebound(audit.call_id, "model-visible projection"))
    if record.status is not RunStatus.RUNNING:
        return Err(InvalidTransition(record.status))
    if isinstance(conflict := _expect(record, revision), Err):
        return conflict
    audited = evolve(record, audits={**record.audits, audit.call_id: audit})
    data: dict[str, Value] = {
        "call_id": audit.call_id,
        "tool_name": audit.tool_name,
        "projected_content_sha256": audit.projected_content_sha256,
        "report": _report_value(audit.report),
    }
    return Ok(Admission(_event(audited, RecordEventKind.TOOL_OUTPUT_PROJECTION_RECORDED, data), False))


def _suspend(
    record: RunRecord,
    revision: int,
    pending: tuple[tuple[str, str], ...],
    state: Value,
    policy: ProjectionPolicy,
) -> Result[Suspended, StoreError]:
    if not pending:
        return Err(InvalidWrite(WriteProblem.NOTHING_PENDING))
    if record.status is not RunStatus.RUNNING:
        return Err(InvalidTransition(record.status, RunStatus.WAITING_FOR_APPROVAL))
    if isinstance(conflict := _expect(record, revision), Err):
        return conflict
    token = secrets.token_urlsafe(32)
    approvals = dict(record.approvals)
    for call_id, tool_name in pending:
        approvals[call_id] = ApprovalState(call_id, tool_name)
    continuation = Continuation(state, policy, sha256_hex(token))
    waiting = evolve(
        record, status=RunStatus.WAITING_FOR_APPROVAL, approvals=approvals, continuation=continuation
    )
    calls: list[Value] = [{"call_id": c, "tool_name": t} for c, t in pending]
    return Ok(Suspended(_event(waiting, RecordEventKind.TOOL_APPROVAL_REQUIRED, {"calls": calls}), token))


def _token_matches(record: RunRecord, token: str) -> bool:
    continuation = record.continuation
    return continuation is not None and hmac.compare_digest(sha256_hex(token), continuation.token_sha256)


def _resolve(
    record: RunRecord, revision: int, token: str, call_id: str, approved: bool, reason: str
) -> Result[RunRecord, StoreError]:
    if record.status is not RunStatus.WAITING_FOR_APPROVAL or record.continuation is None:
        return Err(InvalidWrite(WriteProblem.NOT_SUSPENDED))
    if not _token_matches(record, token):
        return Err(InvalidWrite(WriteProblem.BAD_TOKEN))
    state = record.approvals.get(call_id)
    if state is None or state.decision is not ApprovalDecision.PENDING:
        return Err(InvalidWrite(WriteProblem.NOT_SUSPENDED))
    if isinstance(conflict := _expect(record, revision), Err):
        return conflict
    decision = ApprovalDecision.APPROVED if approved else ApprovalDecision.DENIED
    approvals = {**record.approvals, call_id: evolve(state, decision=decision, reason=reason)}
    data: dict[str, Value] = {"call_id": call_id, "decision": decision.value}
    resolved = _event(evolve(record, approvals=approvals), RecordEventKind.APPROVAL_RESOLVED, data)
    if approved:
        return Ok(resolved)
    ended = StoredResult(reason or "tool approval denied", "tool_call_denied", {"tool_call_id": call_id})
    return _transition(resolved, resolved.revision, RunStatus.FAILED, ended)


def _claim(record: RunRecord, revision: int, token: str) -> Result[RunRecord, StoreError]:
    continuation = record.continuation
    if continuation is None:
        return Err(InvalidWrite(WriteProblem.NOT_SUSPENDED))
    if not _token_matches(record, token):
        return Err(InvalidWrite(WriteProblem.BAD_TOKEN))
    waiting = record.status is RunStatus.WAITING_FOR_APPROVAL
    recovery = record.status is RunStatus.RUNNING and continuation.active
    if not (waiting or recovery):
        return Err(InvalidTransition(record.status, RunStatus.RUNNING))
    if waiting and any(s.decision is ApprovalDecision.PENDING for s in record.approvals.values()):
        return Err(InvalidWrite(WriteProblem.NOT_APPROVED))
    if isinstance(conflict := _expect(record, revision), Err):
        return conflict
    claimed = evolve(continuation, active=True, claims=continuation.claims + 1)
    moved = evolve(record, status=RunStatus.RUNNING, continuation=claimed)
    data: dict[str, Value] = {"recovery": recovery, "claims": claimed.claims}
    return Ok(_event(moved, RecordEventKind.CONTINUATION_CLAIMED, data))


# ---------------------------------------------------------------------------------------------------------
# JSON


def _outcome_value(outcome: ToolOutcome) -> dict[str, Value]:
    failure = outcome.failure
    failure_value: Value = None
    if failure is not None:
        failure_value = {
            "category": failure.category.value,
            "code": failure.code,
            "message": failure.message,
            "retryable": failure.retryable,
            "details": failure.details,
            "retry_after": None if failure.retry_after is None else Decimal(repr(failure.retry_after)),
        }
    return {
        "content": outcome.content,
        "data": outcome.data,
        "failure": failure_value,
        "artifacts": list(outcome.artifacts),
        "resource_version": outcome.resource_version,
        "compensation_required": outcome.compensation_required,
        "compensation_token": outcome.compensation_token,
        "metadata": dict(outcome.metadata),
    }


def _report_value(report: ProjectionReport) -> dict[str, Value]:
    return {
        "truncated": report.truncated,
        "original_bytes": report.original_bytes,
        "projected_bytes": report.projected_bytes,
        "original_estimated_tokens": report.original_estimated_tokens,
        "projected_estimated_tokens": report.projected_estimated_tokens,
        "max_bytes": report.max_bytes,
        "max_tokens": report.max_tokens,
        "limiting_factor": report.limiting_factor.value,
        "method": report.method.value,
    }


def _head_value(record: RunRecord) -> dict[str, Value]:
    continuation: Value = None
    if record.continuation is not None:
        c = record.continuation
        continuation = {
            "state": c.state,
            "max_bytes": c.policy.max_bytes,
            "max_tokens": c.policy.max_tokens,
            "token_sha256": c.token_sha256,
            "active": c.active,
            "claims": c.claims,
        }
    result: Value = None
    if record.result is not None:
        r = record.result
        result = {
            "content": r.content,
            "stop_reason": r.stop_reason,
            "metadata": dict(r.metadata),
            "usage": dict(r.usage),
            "cost": r.cost,
        }
    approvals: list[Value] = [
        {"call_id": a.call_id, "tool_name": a.tool_name, "decision": a.decision.value, "reason": a.reason}
        for a in record.approvals.values()
    ]
    return {
        "run_id": record.run_id,
        "trace_id": record.trace_id,
        "status": record.status.value,
        "revision": record.revision,
        "metadata": dict(record.metadata),
        "approvals": approvals,
        "continuation": continuation,
        "result": result,
    }


def _event_value(event: RecordEvent) -> dict[str, Value]:
    return {
        "sequence": event.sequence,
        "kind": event.kind.value,
        "data": dict(event.data),
        "at": Decimal(repr(event.at)),
    }


def _started_value(call: StartedCall) -> dict[str, Value]:
    return {
        "call_id": call.call_id,
        "idempotency_key": call.idempotency_key,
        "tool_name": call.tool_name,
        "attempt": call.attempt,
    }


def _admitted_value(admitted: AdmittedResult) -> dict[str, Value]:
    return {
        "call_id": admitted.call_id,
        "idempotency_key": admitted.idempotency_key,
        "tool_name": admitted.tool_name,
        "outcome": _outcome_value(admitted.outcome),
    }


def _audit_value(audit: ProjectionAudit) -> dict[str, Value]:
    return {
        "call_id": audit.call_id,
        "tool_name": audit.tool_name,
        "projected_content_sha256": audit.projected_content_sha256,
        "report": _report_value(audit.report),
        "at": Decimal(repr(audit.at)),
    }


def record_to_json(record: RunRecord) -> str:
    """The record as versioned JSON (format ``RECORD_FORMAT``)."""
    document: dict[str, Value] = {
        "format": RECORD_FORMAT,
        **_head_value(record),
        "events": [_event_value(e) for e in record.events],
        "started": [_started_value(c) for c in record.started.values()],
        "admitted": [_admitted_value(a) for a in record.admitted.values()],
        "audits": [_audit_value(a) for a in record.audits.values()],
    }
    return render(document)


class _Bad(Exception):
    """A stored value has the wrong shape."""


def _get(document: Value, key: str, kind: type | tuple[type, ...]) -> object:
    if not isinstance(document, dict) or key not in document:
        raise _Bad(key)
    value = document[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, (int,))):
        raise _Bad(key)
    return value


def _str(document: Value, key: str) -> str:
    value = _get(document, key, str)
    assert isinstance(value, str)
    return value


def _int(document: Value, key: str) -> int:
    value = _get(document, key, int)
    assert isinstance(value, int)
    return value


def _bool(document: Value, key: str) -> bool:
    value = _get(document, key, bool)
    assert isinstance(value, bool)
    return value


def _list(document: Value, key: str) -> list[Value]:
    value = _get(document, key, list)
    assert isinstance(value, list)
    return value


def _strings(document: Value, key: str) -> dict[str, str]:
    value = _get(document, key, dict)
    assert isinstance(value, dict)
    if not all(isinstance(v, str) for v in value.values()):
        raise _Bad(key)
    return {k: str(v) for k, v in value.items()}


def _float(document: Value, key: str) -> float:
    value = _get(document, key, (int, Decimal))
    assert isinstance(value, int | Decimal)
    return float(value)


def _value(document: Value, key: str) -> Value:
    if not isinstance(document, dict) or key not in document:
        raise _Bad(key)
    return document[key]


def _enum(kind: type[enum.Enum], raw: str) -> enum.Enum:
    try:
        return kind(raw)
    except ValueError:
        raise _Bad(raw) from None


def _outcome_of(document: Value) -> ToolOutcome:
    failure_value = _value(document, "failure")
    failure = None
    if failure_value is not None:
        category = _enum(ErrorCategory, _str(failure_value, "category"))
        assert isinstance(category, ErrorCategory)
        after = _value(failure_value, "retry_after")
        if after is not None and (isinstance(after, bool) or not isinstance(after, int | Decimal)):
            raise _Bad("retry_after")
        failure = ToolFailure(
            category,
            _str(failure_value, "code"),
            _str(failure_value, "message"),
            _bool(failure_value, "retryable"),
            _value(failure_value, "details"),
            None if after is None else float(after),
        )
    artifacts = _list(document, "artifacts")
    if not all(isinstance(a, str) for a in artifacts):
        raise _Bad("artifacts")
    version = _value(document, "resource_version")
    if version is not None and not isinstance(version, str):
        raise _Bad("resource_version")
    return ToolOutcome(
        _str(document, "content"),
        _value(document, "data"),
        failure,
        tuple(str(a) for a in artifacts),
        version,
        _bool(document, "compensation_required"),
        _str(document, "compensation_token"),
        _strings(document, "metadata"),
    )


def _report_of(document: Value) -> ProjectionReport:
    factor = _enum(LimitingFactor, _str(document, "limiting_factor"))
    method = _enum(ProjectionMethod, _str(document, "method"))
    assert isinstance(factor, LimitingFactor)
    assert isinstance(method, ProjectionMethod)
    report = ProjectionReport(
        truncated=_bool(document, "truncated"),
        original_bytes=_int(document, "original_bytes"),
        projected_bytes=_int(document, "projected_bytes"),
        original_estimated_tokens=_int(document, "original_estimated_tokens"),
        projected_estimated_tokens=_int(document, "projected_estimated_tokens"),
        max_bytes=_int(document, "max_bytes"),
        max_tokens=_int(document, "max_tokens"),
        limiting_factor=factor,
        method=method,
    )
    if not report.is_consistent():
        raise _Bad("report")
    return report


def _head_of(document: Value) -> RunRecord:
    status = _enum(RunStatus, _str(document, "status"))
    assert isinstance(status, RunStatus)
    approvals = {}
    for item in _list(document, "approvals"):
        decision = _enum(ApprovalDecision, _str(item, "decision"))
        assert isinstance(decision, ApprovalDecision)
        call_id = _str(item, "call_id")
        approvals[call_id] = ApprovalState(call_id, _str(item, "tool_name"), decision, _str(item, "reason"))
    continuation = None
    c = _value(document, "continuation")
    if c is not None:
        match policy_of(_value(c, "max_bytes"), _value(c, "max_tokens")):
            case Err():
                raise _Bad("policy")
            case Ok(policy):
                pass
        continuation = Continuation(
            _value(c, "state"), policy, _str(c, "token_sha256"), _bool(c, "active"), _int(c, "claims")
        )
    result = None
    r = _value(document, "result")
    if r is not None:
        usage = _get(r, "usage", dict)
        assert isinstance(usage, dict)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in usage.values()):
            raise _Bad("usage")
        cost = _value(r, "cost")
        if cost is not None and (isinstance(cost, bool) or not isinstance(cost, int | Decimal)):
            raise _Bad("cost")
        result = StoredResult(
            _str(r, "content"),
            _str(r, "stop_reason"),
            _strings(r, "metadata"),
            {k: int(v) for k, v in usage.items() if isinstance(v, int)},
            None if cost is None else Decimal(cost),
        )
    return RunRecord(
        _str(document, "run_id"),
        _str(document, "trace_id"),
        status,
        _int(document, "revision"),
        _strings(document, "metadata"),
        approvals=approvals,
        continuation=continuation,
        result=result,
    )


def _event_of(document: Value) -> RecordEvent:
    kind = _enum(RecordEventKind, _str(document, "kind"))
    assert isinstance(kind, RecordEventKind)
    data = _get(document, "data", dict)
    assert isinstance(data, dict)
    return RecordEvent(_int(document, "sequence"), kind, data, _float(document, "at"))


def _started_of(document: Value) -> StartedCall:
    return StartedCall(
        _str(document, "call_id"),
        _str(document, "idempotency_key"),
        _str(document, "tool_name"),
        _int(document, "attempt"),
    )


def _admitted_of(document: Value) -> AdmittedResult:
    return AdmittedResult(
        _str(document, "call_id"),
        _str(document, "idempotency_key"),
        _str(document, "tool_name"),
        _outcome_of(_value(document, "outcome")),
    )


def _audit_of(document: Value) -> ProjectionAudit:
    sha = _str(document, "projected_content_sha256")
    if not _SHA256.fullmatch(sha):
        raise _Bad("projected_content_sha256")
    return ProjectionAudit(
        _str(document, "call_id"),
        _str(document, "tool_name"),
        sha,
        _report_of(_value(document, "report")),
        _float(document, "at"),
    )


def _checked_format(version: object) -> Result[int, StoreError]:
    if isinstance(version, bool) or not isinstance(version, int):
        return Err(UnreadableRecord("the format version is missing"))
    if version not in (1, RECORD_FORMAT):
        return Err(UnreadableRecord("the format version is not 1 or 2", version))
    return Ok(version)


def record_from_json(text: str | bytes) -> Result[RunRecord, StoreError]:
    """
    A record from its versioned JSON; format 1 loads with no audits. ``Err(UnreadableRecord)`` for corrupt
    JSON, a wrong shape, an inconsistent audit report, or an unknown format version.
    """
    if not isinstance(text, str | bytes):
        raise TypeError(f"text must be a str or bytes, not {type(text).__name__}")
    match parse(text, _RECORD_LIMITS):
        case Err():
            return Err(UnreadableRecord("the record is not valid JSON"))
        case Ok(document):
            pass
    version = document.get("format") if isinstance(document, dict) else None
    if isinstance(checked := _checked_format(version), Err):
        return checked
    try:
        head = _head_of(document)
        events = tuple(_event_of(e) for e in _list(document, "events"))
        admitted = {a.call_id: a for a in map(_admitted_of, _list(document, "admitted"))}
        audits, started = {}, {}
        if checked.value >= 2:
            audits = {a.call_id: a for a in map(_audit_of, _list(document, "audits"))}
            started = {c.call_id: c for c in map(_started_of, _list(document, "started"))}
    except _Bad:
        return Err(UnreadableRecord("a member is missing or has the wrong type"))
    return Ok(evolve(head, events=events, started=started, admitted=admitted, audits=audits))


# ---------------------------------------------------------------------------------------------------------
# The protocol and the two stores


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
_Step: TypeAlias = Callable[[RunRecord], Result[tuple[RunRecord, T], StoreError]]


class _Engine(Protocol):
    """Where records live: a store's storage, under the writes ``_Writes`` defines once."""

    def insert(self, record: RunRecord) -> None: ...

    def read(self, run_id: str) -> Result[RunRecord, StoreError]: ...

    def update(self, run_id: str, step: _Step[T], call_id: str | None = None) -> Result[T, StoreError]:
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


class _Writes:
    """The ``RunStore`` writes, once, over an engine."""

    def __init__(self, engine: _Engine) -> None:
        self._engine = engine

    def create(
        self, *, run_id: str | None = None, trace_id: str | None = None, metadata: Mapping[str, str] = {}
    ) -> Result[RunRecord, StoreError]:
        """A new run, ``created`` at revision 1 (ids generated when absent)."""
        match _created(run_id, trace_id, metadata):
            case Err() as failed:
                return failed
            case Ok(record):
                if isinstance(self._engine.read(record.run_id), Ok):
                    return Err(RunExists(record.run_id))
                self._engine.insert(record)
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


class _Memory:
    def __init__(self) -> None:
        self._runs: dict[str, RunRecord] = {}
        self._lock = threading.Lock()

    def insert(self, record: RunRecord) -> None:
        with self._lock:
            self._runs[record.run_id] = record

    def read(self, run_id: str) -> Result[RunRecord, StoreError]:
        record = self._runs.get(run_id)
        return Err(RunNotFound(run_id)) if record is None else Ok(record)

    def update(self, run_id: str, step: _Step[T], call_id: str | None = None) -> Result[T, StoreError]:
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


class MemoryRunStore(_Writes):
    """A ``RunStore`` in this process's memory (tests, single-process runs)."""

    def __init__(self) -> None:
        super().__init__(_Memory())

    def __repr__(self) -> str:
        return "<MemoryRunStore>"


_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, format INTEGER NOT NULL, revision INTEGER NOT NULL, head TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL, sequence INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, sequence)
);
CREATE TABLE IF NOT EXISTS started (
    run_id TEXT NOT NULL, position INTEGER NOT NULL, call_id TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (run_id, call_id)
);
CREATE TABLE IF NOT EXISTS admitted (
    run_id TEXT NOT NULL, position INTEGER NOT NULL, call_id TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (run_id, call_id)
);
CREATE TABLE IF NOT EXISTS audits (
    run_id TEXT NOT NULL, position INTEGER NOT NULL, call_id TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (run_id, call_id)
);
"""


def _parsed(text: str) -> Value:
    match parse(text, _RECORD_LIMITS):
        case Ok(value):
            return value
        case Err():
            raise _Bad("json")


def _write_started(item: object) -> Value:
    assert isinstance(item, StartedCall)
    return _started_value(item)


def _write_admitted(item: object) -> Value:
    assert isinstance(item, AdmittedResult)
    return _admitted_value(item)


def _write_audit(item: object) -> Value:
    assert isinstance(item, ProjectionAudit)
    return _audit_value(item)


#: The tables keyed by call id: how a row is read back and written.
_KEYED_READS: Mapping[str, tuple[str, Callable[[Value], object]]] = {
    "started": ("SELECT body FROM started WHERE run_id = ? ORDER BY position", _started_of),
    "admitted": ("SELECT body FROM admitted WHERE run_id = ? ORDER BY position", _admitted_of),
    "audits": ("SELECT body FROM audits WHERE run_id = ? ORDER BY position", _audit_of),
}
_KEYED_WRITES: Mapping[str, Callable[[object], Value]] = {
    "started": _write_started,
    "admitted": _write_admitted,
    "audits": _write_audit,
}


class _Sqlite:
    def __init__(self, path: Path, timeout: float) -> None:
        # Autocommit mode: every write opens its own ``BEGIN IMMEDIATE`` transaction.
        self._db = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        with self._transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def insert(self, record: RunRecord) -> None:
        with self._lock, self._transaction() as db:
            db.execute(
                "INSERT INTO runs (run_id, format, revision, head) VALUES (?, ?, ?, ?)",
                (record.run_id, RECORD_FORMAT, record.revision, render(_head_value(record))),
            )
            self._append(db, RunRecord(record.run_id, record.trace_id), record)

    def _head(
        self, db: sqlite3.Connection, run_id: str, call_id: str | None, *, whole: bool = False
    ) -> Result[RunRecord, StoreError]:
        """The run's head with its keyed rows: all of them (``whole``), those of ``call_id``, or none."""
        row = db.execute("SELECT format, head FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            return Err(RunNotFound(run_id))
        if isinstance(checked := _checked_format(row[0]), Err):
            return checked
        try:
            head = _head_of(_parsed(row[1]))
            parts: dict[str, list[object]] = {table: [] for table in _KEYED_READS}
            if whole or call_id is not None:
                for table, (query, read) in _KEYED_READS.items():
                    where = query if whole else query.replace("run_id = ?", "run_id = ? AND call_id = ?")
                    arguments = (run_id,) if whole else (run_id, call_id)
                    parts[table] = [read(_parsed(body)) for (body,) in db.execute(where, arguments)]
        except _Bad:
            return Err(UnreadableRecord("a member is missing or has the wrong type"))
        return Ok(
            evolve(
                head,
                started={c.call_id: c for c in parts["started"] if isinstance(c, StartedCall)},
                admitted={a.call_id: a for a in parts["admitted"] if isinstance(a, AdmittedResult)},
                audits={a.call_id: a for a in parts["audits"] if isinstance(a, ProjectionAudit)},
            )
        )

    def read(self, run_id: str) -> Result[RunRecord, StoreError]:
        with self._lock:
            match self._head(self._db, run_id, None, whole=True):
                case Err() as failed:
                    return failed
                case Ok(head):
                    pass
            rows = self._db.execute(
                "SELECT body FROM events WHERE run_id = ? ORDER BY sequence", (run_id,)
            ).fetchall()
        try:
            events = tuple(_event_of(_parsed(body)) for (body,) in rows)
        except _Bad:
            return Err(UnreadableRecord("a member is missing or has the wrong type"))
        return Ok(evolve(head, events=events))

    def _append(self, db: sqlite3.Connection, before: RunRecord, after: RunRecord) -> None:
        db.executemany(
            "INSERT INTO events (run_id, sequence, body) VALUES (?, ?, ?)",
            [(after.run_id, e.sequence, render(_event_value(e))) for e in after.events[len(before.events) :]],
        )
        keyed: list[tuple[str, Mapping[str, object], Mapping[str, object]]] = [
            ("started", before.started, after.started),
            ("admitted", before.admitted, after.admitted),
            ("audits", before.audits, after.audits),
        ]
        for table, old, new in keyed:
            db.executemany(
                f"INSERT OR REPLACE INTO {table} (run_id, position, call_id, body) VALUES (?, ?, ?, ?)",
                [
                    (after.run_id, after.revision, call_id, render(_KEYED_WRITES[table](item)))
                    for call_id, item in new.items()
                    if old.get(call_id) != item
                ],
            )

    def update(self, run_id: str, step: _Step[T], call_id: str | None = None) -> Result[T, StoreError]:
        with self._lock, self._transaction() as db:
            match self._head(db, run_id, call_id):
                case Err() as failed:
                    return failed
                case Ok(before):
                    pass
            match step(before):
                case Err() as failed:
                    return failed
                case Ok((after, answer)):
                    pass
            if after.revision != before.revision:
                db.execute(
                    "UPDATE runs SET format = ?, revision = ?, head = ? WHERE run_id = ? AND revision = ?",
                    (RECORD_FORMAT, after.revision, render(_head_value(after)), run_id, before.revision),
                )
                self._append(db, before, after)
            return Ok(answer)


class SqliteRunStore(_Writes):
    """
    A ``RunStore`` in one SQLite file (standard library ``sqlite3``, WAL): every write is one
    ``BEGIN IMMEDIATE`` transaction, so several processes can share the file. ``close()`` when done.
    """

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        if not isinstance(path, str | Path):
            raise TypeError(f"path must be a str or Path, not {type(path).__name__}")
        self.path = Path(path)
        self._sqlite = _Sqlite(self.path, timeout)
        super().__init__(self._sqlite)

    def __repr__(self) -> str:
        return f"<SqliteRunStore {self.path.name}>"

    def close(self) -> None:
        """Close the connection."""
        self._sqlite.close()
