"""
The pure core of a run store: one function per write, from a record to the next (revision-checked).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Mapping

from attrs import evolve

from llm_wire.agent.projection import (
    ProjectionPolicy,
)
from llm_wire.agent.store._codecs import codecs, encoded
from llm_wire.agent.store._record import (
    _SHA256,
    _TRANSITIONS,
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
    RunRecord,
    RunStatus,
    SensitiveMetadata,
    StartedCall,
    StoredResult,
    StoreError,
    Suspended,
    WriteProblem,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value

__all__ = [
    "is_sensitive_key",
    "sha256_hex",
]

# ---------------------------------------------------------------------------------------------------------
# The pure core: one function per write, from a record to the next


_SENSITIVE = ("token", "secret", "password", "passwd", "api_key", "apikey", "cookie", "credential")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


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
        "report": encoded(codecs().report, audit.report),
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
