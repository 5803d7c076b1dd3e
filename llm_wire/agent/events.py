"""
What a run tells its host, for the code that watches a run or takes part in it through the ``Runner``'s
hooks: the events ``on_event`` receives as the run goes (each tool attempt, heartbeat, retry and final
outcome), what ``approver``, ``approval_policy`` and ``allow_tool_call`` are asked and answer
(``ApprovalRequest``, ``Verdict``), and the ``ModelRequest`` that ``prepare_model_request`` sees before each
model call. A heartbeat is what a running tool reports (``InvocationContext.heartbeat``). ``Runner.stream``
yields the same events, with each model call's progress (``llm_wire.providers.response``'s ``TextDelta``,
``ToolCallStarted`` and ``ArgumentsDelta``) between its ``ModelStarted`` and ``ModelCompleted``, and ends with
``RunCompleted`` (a ``StreamEvent`` is any of them).

::

    RunEvent
    ├── ModelStarted(round)            ├── ToolHeartbeat(call, heartbeat)
    ├── ModelCompleted(round, outcome) ├── ToolRetrying(call, attempt, delay, outcome)
    ├── ApprovalRequested(request)     ├── ToolCompensated(call, outcome)
    ├── ToolStarted(call, attempt)     ├── ToolCompleted(call, outcome, message)
    ├── ToolOutputTruncated(call, report)
    └── ToolOutputProjectionFailed(call, outcome, error)

    StreamEvent = RunEvent | TextDelta | ToolCallStarted | ArgumentsDelta | RunCompleted(result)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import TypeAlias

from attrs import field, frozen

from llm_wire import _public
from llm_wire._fast import Lean as _Lean
from llm_wire._request import Request
from llm_wire.agent._descriptor import Capability, Idempotency, SideEffect
from llm_wire.agent._invocation import Heartbeat
from llm_wire.agent._steps import RunResult
from llm_wire.agent._tool_outcome import ToolOutcome
from llm_wire.agent.projection._types import OutputProjectionError, ProjectionReport
from llm_wire.message import ToolCall
from llm_wire.outcome import Outcome
from llm_wire.providers.response import ArgumentsDelta, TextDelta, ToolCallStarted
from llm_wire.value import Value

__all__ = [
    "ApprovalRequest",
    "ApprovalRequested",
    "Heartbeat",
    "ModelCompleted",
    "ModelRequest",
    "ModelStarted",
    "RunCompleted",
    "RunEvent",
    "StreamEvent",
    "ToolCompensated",
    "ToolCompleted",
    "ToolHeartbeat",
    "ToolOutputProjectionFailed",
    "ToolOutputTruncated",
    "ToolRetrying",
    "ToolStarted",
    "Verdict",
]


class Verdict(enum.Enum):
    """
    A policy's or an approver's answer about one call, given while the run goes on. Not the store's
    ``ApprovalDecision``: a verdict is code answering now, and its ``ASK`` hands the call to a person (the
    run suspends); an approval decision is what the run record keeps of that person's answer, pending until
    it is given, and never "ask".
    """

    ALLOW = "allow"
    DENY = "deny"
    #: The policy cannot decide: ask the approver (from an approver: suspend the run for manual review).
    ASK = "ask"


@frozen
class ApprovalRequest(_Lean):
    """
    What an approver needs to decide on a call: the tool, its version, side effect, idempotency and
    capabilities, the arguments with secrets redacted, and whether a program made the call.
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
    #: Whether code the model ran made the call rather than the model itself (``ToolCall.by_program``).
    by_program: bool = False


@frozen
class ModelStarted(_Lean):
    """A model call began (round 0 is the first call)."""

    round: int


@frozen
class ModelCompleted(_Lean):
    """A model call returned."""

    round: int
    outcome: Outcome = field(repr=False)


@frozen
class ApprovalRequested(_Lean):
    """An approver was asked about a call."""

    request: ApprovalRequest


@frozen
class ToolStarted(_Lean):
    """An attempt of a call began."""

    call: ToolCall
    attempt: int


@frozen
class ToolHeartbeat(_Lean):
    """A running call reported liveness (rate-limited by the contract's minimum interval)."""

    call: ToolCall
    heartbeat: Heartbeat


@frozen
class ToolRetrying(_Lean):
    """Attempt ``attempt`` failed and the call runs again after ``delay`` seconds."""

    call: ToolCall
    attempt: int
    delay: float
    outcome: ToolOutcome = field(repr=False)


@frozen
class ToolCompensated(_Lean):
    """Compensation ran for a failed attempt; ``outcome`` is the compensation's."""

    call: ToolCall
    outcome: ToolOutcome = field(repr=False)


@frozen
class ToolCompleted(_Lean):
    """A call has its final outcome (full, for logs) and the ``message`` the model will see."""

    call: ToolCall
    outcome: ToolOutcome = field(repr=False)
    message: str = field(repr=False)


@frozen
class ToolOutputTruncated(_Lean):
    """
    A call's model-visible text was cut to fit its ceilings (once per truncated projection, after its
    ``ToolCompleted``); ``report`` says by how much.
    """

    call: ToolCall
    report: ProjectionReport = field(repr=False)

    @property
    def max_bytes(self) -> int:
        """The byte ceiling the text was cut to (the run's, tightened by the tool's)."""
        return self.report.max_bytes

    @property
    def max_tokens(self) -> int:
        """The token ceiling the text was cut to."""
        return self.report.max_tokens


@frozen
class ToolOutputProjectionFailed(_Lean):
    """
    A call's outcome could not be projected for the model, so the run ends
    (``StopReason.TOOL_OUTPUT_PROJECTION_FAILED``); ``outcome`` is the raw result, ``error`` says why.
    """

    call: ToolCall
    outcome: ToolOutcome = field(repr=False)
    error: OutputProjectionError

    @property
    def code(self) -> str:
        """``tool_output_projection_failed``: the stop reason the run ends with."""
        return "tool_output_projection_failed"


RunEvent: TypeAlias = (
    ModelStarted
    | ModelCompleted
    | ApprovalRequested
    | ToolStarted
    | ToolHeartbeat
    | ToolRetrying
    | ToolCompensated
    | ToolCompleted
    | ToolOutputTruncated
    | ToolOutputProjectionFailed
)


@frozen
class RunCompleted(_Lean):
    """The last event of ``Runner.stream``: the run is over, and ``result`` is what ``run`` would return."""

    result: RunResult = field(repr=False)


#: What ``Runner.stream`` yields: the run's events, each model call's progress as it arrives, and at the
#: end ``RunCompleted``.
StreamEvent: TypeAlias = RunEvent | TextDelta | ToolCallStarted | ArgumentsDelta | RunCompleted


@frozen
class ModelRequest(_Lean):
    """
    What ``prepare_model_request`` sees before a model call: the request about to be sent, the run's
    execution-context metadata (what tools get as ``InvocationContext.metadata``), the run's correlation ids
    and the round. The hook returns it, changed or not; the run and trace ids it returns are ignored.
    """

    request: Request = field(repr=False)
    metadata: Mapping[str, str] = field(repr=False)
    run_id: str
    trace_id: str
    round: int


_public.rehome(__name__, __all__, globals())
