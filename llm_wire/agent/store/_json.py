"""
Run records as versioned JSON (``record_to_json``, ``record_from_json``), read back defensively.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from decimal import Decimal
from typing import TypeVar

from attrs import evolve

from llm_wire.agent._outcome import ErrorCategory, ToolFailure, ToolOutcome
from llm_wire.agent.projection import (
    LimitingFactor,
    ProjectionMethod,
    ProjectionReport,
    policy_of,
)
from llm_wire.agent.store._record import (
    _RECORD_LIMITS,
    _SHA256,
    RECORD_FORMAT,
    AdmittedResult,
    ApprovalDecision,
    ApprovalState,
    Continuation,
    ProjectionAudit,
    RecordEvent,
    RecordEventKind,
    RunRecord,
    RunStatus,
    StartedCall,
    StoredResult,
    StoreError,
    UnreadableRecord,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value, parse, render

__all__ = [
    "record_from_json",
    "record_to_json",
]

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


T = TypeVar("T")


def _reading(read: Callable[[], T]) -> Result[T, StoreError]:
    """
    ``read()`` over stored parts, as a result: a part of the wrong shape, or one a record's constructor
    refuses (an empty code, a number out of range), is ``UnreadableRecord``, never an exception.
    """
    try:
        return Ok(read())
    except (_Bad, ValueError, TypeError, OverflowError):
        return Err(UnreadableRecord("a member is missing or has the wrong type"))


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
    try:
        number = float(value)
    except OverflowError:
        raise _Bad(key) from None
    if not math.isfinite(number):
        raise _Bad(key)
    return number


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
    return _reading(lambda: _whole_of(document, checked.value))


def _whole_of(document: Value, version: int) -> RunRecord:
    head = _head_of(document)
    events = tuple(_event_of(e) for e in _list(document, "events"))
    admitted = {a.call_id: a for a in map(_admitted_of, _list(document, "admitted"))}
    audits, started = {}, {}
    if version >= 2:
        audits = {a.call_id: a for a in map(_audit_of, _list(document, "audits"))}
        started = {c.call_id: c for c in map(_started_of, _list(document, "started"))}
    return evolve(head, events=events, started=started, admitted=admitted, audits=audits)
