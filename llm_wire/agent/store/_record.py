"""
The run record's parts: statuses, events, the records a run keeps, and the typed store errors.
"""

from __future__ import annotations

import enum
import re
import time
from collections.abc import Mapping
from decimal import Decimal
from typing import TypeAlias

from attrs import field, frozen

from llm_wire._described import Described
from llm_wire.agent._tool_outcome import ToolOutcome
from llm_wire.agent.projection import (
    ProjectionPolicy,
    ProjectionReport,
)
from llm_wire.value import Limits, Value

__all__ = [
    "Admission",
    "AdmittedResult",
    "ApprovalDecision",
    "ApprovalState",
    "CallRebound",
    "Continuation",
    "InvalidTransition",
    "InvalidWrite",
    "ProjectionAudit",
    "RECORD_FORMAT",
    "RecordEvent",
    "RecordEventKind",
    "RevisionConflict",
    "RunExists",
    "RunNotFound",
    "RunRecord",
    "RunStatus",
    "SensitiveMetadata",
    "StartedCall",
    "StoreBusy",
    "StoreCorrupt",
    "StoreError",
    "StoreUnavailable",
    "StoredResult",
    "Suspended",
    "UnreadableRecord",
    "WriteProblem",
]

#: The format version ``record_to_json`` writes; version 1 (no projection audits) still loads.
RECORD_FORMAT = 2
#: Stored records are ours, but tool data may be large and deep.
_RECORD_LIMITS = Limits(max_bytes=1 << 30, max_depth=1024, max_values=1 << 30)
#: A projected content SHA-256: 64 lowercase hex characters.
_SHA256 = re.compile(r"[0-9a-f]{64}")


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
    """
    The state of an approval a run record keeps: ``PENDING`` from the suspension until ``resolve_approval``
    makes it ``APPROVED`` or ``DENIED``. Not ``agent.events.Verdict``, a hook's answer in the moment whose
    ``ASK`` is what suspends a run and makes an approval pending; a person's answer is never "ask".
    """

    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"


@frozen
class ApprovalState:
    """
    A call waiting for, or given, approval: the call, its tool, the ``ApprovalDecision`` it is at and the
    reason given (a record around that decision, not a second word for it).
    """

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
    """
    A suspended run and the bearer token that resolves its approval (never log it, nor show a model).
    ``durable.Suspension``, what a durable run returns when it suspends, is this record.
    """

    record: RunRecord
    token: str = field(repr=False)


# ---------------------------------------------------------------------------------------------------------
# Errors


@frozen
class RunNotFound(Described):
    """No run has this id."""

    run_id: str

    TEXT = "no run with this id"


@frozen
class RunExists(Described):
    """A run with this id was already created."""

    run_id: str

    TEXT = "a run with this id already exists"


@frozen
class RevisionConflict(Described):
    """The run changed concurrently: the write expected ``expected`` and the run is at ``actual``."""

    expected: int
    actual: int

    def describe(self) -> str:
        """``run state changed concurrently: expected revision 3, the run is at 4``."""
        return (
            f"run state changed concurrently: expected revision {self.expected}, the run is at {self.actual}"
        )


@frozen
class InvalidTransition(Described):
    """The run cannot go from ``current`` to ``target`` (or take this write in its current state)."""

    current: RunStatus
    target: RunStatus | None = None

    def describe(self) -> str:
        """``a run that is completed cannot become running``."""
        if self.target is None:
            return f"a run that is {self.current.value} cannot take this write"
        return f"a run that is {self.current.value} cannot become {self.target.value}"


@frozen
class CallRebound(Described):
    """A call id already admitted (or audited) arrived again with a different ``field``."""

    call_id: str
    field: str

    def describe(self) -> str:
        """``a call id must not be rebound to a different idempotency_key``."""
        return f"a call id must not be rebound to a different {self.field}"


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
class InvalidWrite(Described):
    """The write is malformed; ``problem`` says how."""

    problem: WriteProblem

    def describe(self) -> str:
        """``invalid run store write: the call id is empty``."""
        return f"invalid run store write: {self.problem.value}"


@frozen
class SensitiveMetadata(Described):
    """Run metadata has a key that looks like a secret (token, secret, password, api_key, cookie)."""

    key: str

    TEXT = "run metadata must not hold secrets: a key looks like a token, secret, password or cookie"


@frozen
class UnreadableRecord(Described):
    """A stored record is corrupt, or of a format version this library does not know (``version``)."""

    problem: str
    version: int | None = None

    def describe(self) -> str:
        """``stored run record is unreadable: the format version is not 1 or 2``."""
        return f"stored run record is unreadable: {self.problem}"


class StoreCorrupt(Described):
    """The store's file is not a database of its kind, or is damaged (truncated, overwritten)."""

    __slots__ = ()
    TEXT = "the run store's file is not a database or is damaged"


@frozen
class StoreBusy(Described):
    """Another writer held the store past the store's ``timeout`` (seconds); nothing was written."""

    timeout: float

    def describe(self) -> str:
        """``the run store stayed locked by another writer for 30 s; nothing was written (retry)``."""
        return (
            f"the run store stayed locked by another writer for {self.timeout:g} s; "
            "nothing was written (retry)"
        )


@frozen
class StoreUnavailable(Described):
    """The store's database failed for another reason (``code``: its engine's error code, for logs)."""

    code: int | None = None

    TEXT = "the run store could not be used (its file cannot be opened or written)"


StoreError: TypeAlias = (
    RunNotFound
    | RunExists
    | RevisionConflict
    | InvalidTransition
    | CallRebound
    | InvalidWrite
    | SensitiveMetadata
    | UnreadableRecord
    | StoreCorrupt
    | StoreBusy
    | StoreUnavailable
)
