"""
What a run reports as it goes (``on_event``), and what an approver is asked.

::

    RunEvent
    ├── ModelStarted(round)            ├── ToolHeartbeat(call, heartbeat)
    ├── ModelCompleted(round, outcome) ├── ToolRetrying(call, attempt, delay, outcome)
    ├── ApprovalRequested(request)     ├── ToolCompensated(call, outcome)
    ├── ToolStarted(call, attempt)     └── ToolCompleted(call, outcome, message)
"""

from __future__ import annotations

import enum
from typing import TypeAlias

from attrs import field, frozen

from llm_wire.agent._descriptor import Capability, Idempotency, SideEffect
from llm_wire.agent._invocation import Heartbeat
from llm_wire.agent._outcome import ToolOutcome
from llm_wire.message import ToolCall
from llm_wire.outcome import Outcome
from llm_wire.value import Value

__all__ = [
    "ApprovalRequest",
    "ApprovalRequested",
    "ModelCompleted",
    "ModelStarted",
    "RunEvent",
    "ToolCompensated",
    "ToolCompleted",
    "ToolHeartbeat",
    "ToolRetrying",
    "ToolStarted",
    "Verdict",
]


class Verdict(enum.Enum):
    """A policy's or an approver's answer about one call."""

    ALLOW = "allow"
    DENY = "deny"
    #: The policy cannot decide: ask the approver (from an approver: suspend the run for manual review).
    ASK = "ask"


@frozen
class ApprovalRequest:
    """
    What an approver needs to decide on a call: the tool, its version, side effect, idempotency and
    capabilities, and the arguments with secrets redacted.
    """

    call_id: str
    tool: str
    version: str
    side_effect: SideEffect
    idempotency: Idempotency
    capabilities: tuple[Capability, ...]
    #: The admitted arguments, members marked secret shown as ``"[redacted]"``.
    arguments: Value = field(eq=False)
    run_id: str = ""


@frozen
class ModelStarted:
    """A model call began (round 0 is the first call)."""

    round: int


@frozen
class ModelCompleted:
    """A model call returned."""

    round: int
    outcome: Outcome = field(repr=False)


@frozen
class ApprovalRequested:
    """An approver was asked about a call."""

    request: ApprovalRequest


@frozen
class ToolStarted:
    """An attempt of a call began."""

    call: ToolCall
    attempt: int


@frozen
class ToolHeartbeat:
    """A running call reported liveness (rate-limited by the contract's minimum interval)."""

    call: ToolCall
    heartbeat: Heartbeat


@frozen
class ToolRetrying:
    """Attempt ``attempt`` failed and the call runs again after ``delay`` seconds."""

    call: ToolCall
    attempt: int
    delay: float
    outcome: ToolOutcome = field(repr=False)


@frozen
class ToolCompensated:
    """Compensation ran for a failed attempt; ``outcome`` is the compensation's."""

    call: ToolCall
    outcome: ToolOutcome = field(repr=False)


@frozen
class ToolCompleted:
    """A call has its final outcome (full, for logs) and the ``message`` the model will see."""

    call: ToolCall
    outcome: ToolOutcome = field(repr=False)
    message: str = field(repr=False)


RunEvent: TypeAlias = (
    ModelStarted
    | ModelCompleted
    | ApprovalRequested
    | ToolStarted
    | ToolHeartbeat
    | ToolRetrying
    | ToolCompensated
    | ToolCompleted
)
