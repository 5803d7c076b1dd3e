"""
The run as sans-I/O steps: a state machine that says what to do next (call the model, run a batch of
tools, finish) from what just happened. The drivers in ``_runner`` do the waiting; nothing here touches a
clock, a thread or the network.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TypeAlias

from attrs import evolve, field, frozen

from llm_wire import _public
from llm_wire._fast import Lean
from llm_wire._request import Config, Prepared, PrepareError, Request, prepare
from llm_wire.admission import (
    AdmittedCall,
    InvalidArguments,
    ToolChoiceViolation,
    UnknownTool,
    describe_issue,
)
from llm_wire.agent._descriptor import SideEffect, ToolDescriptor
from llm_wire.agent._face import FACE as _FACE
from llm_wire.agent._tool_outcome import ToolOutcome
from llm_wire.agent._usage import RunUsage
from llm_wire.message import AssistantTurn, ToolCall, ToolResult, UserMessage
from llm_wire.outcome import Answer, Failure, NeedsTools, Outcome, OutputLimited, Refused, Sent, resolve
from llm_wire.providers.response import FinishReason, Terminal, Usage
from llm_wire.result import Err, Ok
from llm_wire.tool import ToolCallChecks

__all__ = [
    "CallModel",
    "CallRecord",
    "Finish",
    "Planned",
    "Recovery",
    "RunResult",
    "RunSteps",
    "RunTools",
    "Step",
    "StopReason",
    "stages",
]


class StopReason(enum.Enum):
    """Why a run ended."""

    #: The model answered.
    ANSWERED = "answered"
    #: The model still called tools after ``max_tool_rounds`` rounds.
    ROUND_BUDGET = "tool_round_budget_exceeded"
    #: The run's total deadline passed.
    DEADLINE = "deadline_reached"
    CANCELLED = "cancelled"
    #: A call was denied (or named an unknown tool) under ``Recovery.END``.
    TOOL_CALL_DENIED = "tool_call_denied"
    #: The model reused a call id from an earlier round.
    INVALID_TOOL_CALL = "invalid_tool_call"
    #: ``prepare_tool_result`` rejected a result.
    RESULT_REJECTED = "result_rejected"
    #: An approver asked for manual review: the run is suspended with its pending calls.
    APPROVAL_REQUIRED = "approval_required"
    #: The model's response was unusable (``Failure``).
    MODEL_FAILED = "model_failed"
    #: The response was cut for length.
    OUTPUT_LIMITED = "output_limited"
    #: The model refused, or a content filter stopped it.
    REFUSED = "refused"
    #: The next request could not be prepared.
    PREPARE_FAILED = "prepare_failed"
    #: A tool's outcome could not be projected within the model-visible limits (``project_output`` failed).
    TOOL_OUTPUT_PROJECTION_FAILED = "tool_output_projection_failed"

    def describe(self) -> str:
        """The reason as a sentence."""
        return _SENTENCES[self]

    def __str__(self) -> str:
        return self.describe()


_SENTENCES = {
    StopReason.ANSWERED: "The model answered.",
    StopReason.ROUND_BUDGET: "The tool round budget was exceeded before the model produced a final answer.",
    StopReason.DEADLINE: "The run deadline was reached.",
    StopReason.CANCELLED: "The run was cancelled.",
    StopReason.TOOL_CALL_DENIED: "A tool call was denied.",
    StopReason.INVALID_TOOL_CALL: "The model reused a tool call id from an earlier round.",
    StopReason.RESULT_REJECTED: "A tool result was rejected during preparation.",
    StopReason.APPROVAL_REQUIRED: "A tool call needs manual approval.",
    StopReason.MODEL_FAILED: "The model's response could not be used.",
    StopReason.OUTPUT_LIMITED: "The model's response was cut for length.",
    StopReason.REFUSED: "The model refused.",
    StopReason.PREPARE_FAILED: "The next model request could not be prepared.",
    StopReason.TOOL_OUTPUT_PROJECTION_FAILED: "A tool output could not be projected within its limits.",
}


class Recovery(enum.Enum):
    """What a recoverable model mistake (an unknown tool, a denied call) does to the run."""

    #: Answer the call with a tool message the model can act on; the run goes on. The default.
    TELL_MODEL = "tell_model"
    #: End the run (``StopReason.TOOL_CALL_DENIED``).
    END = "end"


@frozen
class Planned(Lean):
    """
    One call of a batch: its descriptor and admitted arguments, or the outcome it already has (an
    unknown tool, refused arguments) and so never runs.
    """

    call: ToolCall
    descriptor: ToolDescriptor | None
    admitted: AdmittedCall | None = field(repr=False)
    preset: ToolOutcome | None = None


#: The side effects whose calls run together under ``Runner(parallel=True)``; any other (a write, a
#: destructive call, or an effect this list does not know) runs alone unless its contract ``commutes``.
_READS = frozenset({SideEffect.NONE, SideEffect.READ})


def _runs_alone(planned: Planned) -> bool:
    """Whether a call of a parallel batch runs alone: it runs, and it is a write that does not commute."""
    if planned.preset is not None or planned.descriptor is None:
        return False  # it already has its outcome: nothing runs
    contract = planned.descriptor.contract
    return contract.side_effect not in _READS and not contract.commutes


def stages(plan: Sequence[Planned]) -> tuple[tuple[Planned, ...], ...]:
    """
    A parallel batch in the order it runs: each stage runs concurrently and ends before the next starts.
    The calls between two barriers (reads, commuting writes, calls that already have their outcome) form
    one stage; a barrier (``_runs_alone``) is a stage of its own. Joined, the stages are the plan in call
    order.
    """
    out: list[tuple[Planned, ...]] = []
    together: list[Planned] = []
    for planned in plan:
        if not _runs_alone(planned):
            together.append(planned)
            continue
        if together:
            out.append(tuple(together))
            together = []
        out.append((planned,))
    if together:
        out.append(tuple(together))
    return tuple(out)


@frozen
class CallRecord(Lean):
    """A call of the run with its full outcome (the model saw ``message``) and how many attempts ran."""

    call: ToolCall
    outcome: ToolOutcome = field(repr=False)
    message: str = field(repr=False)
    round: int = 0


@frozen
class RunResult(Lean):
    """
    How a run ended: the reason, the answer (``ANSWERED`` only), the conversation so far, every call with
    its outcome, the rounds and model calls used, the last model outcome, and any error behind the stop.
    """

    stop: StopReason
    answer: Answer | None
    #: The conversation as sent last, with the final turn appended when the model answered.
    request: Request = field(repr=False)
    calls: tuple[CallRecord, ...] = field(repr=False)
    rounds: int
    model_calls: int
    #: The last model outcome (the final answer, the failure, the budget-breaking call...).
    last: Outcome | None = field(default=None, repr=False)
    #: The failure or prepare error behind ``MODEL_FAILED`` / ``PREPARE_FAILED``.
    error: Failure | PrepareError | None = field(default=None, repr=False)
    #: Diagnostics: the budget, the last call's name and id, the denied tool...
    detail: Mapping[str, str] = field(factory=dict, repr=False)
    #: Usage of every model call, in order.
    usage: tuple[Usage, ...] = field(default=(), repr=False)
    #: The assistant turn whose calls were left unanswered when the run stopped inside a round
    #: (``APPROVAL_REQUIRED``, a denial or rejection, a cancellation); ``resume_request`` sends it again.
    pending: AssistantTurn | None = field(default=None, repr=False)
    #: What the runner's ``pricing`` hook made of ``total_usage`` (``None`` without one).
    cost: Decimal | None = None
    #: The run's correlation ids (a host's ``prepare_model_request`` cannot change them).
    run_id: str = ""
    trace_id: str = ""

    @property
    def total_usage(self) -> RunUsage:
        """``usage`` added up over the run's model calls, cached and reasoning tokens included."""
        return RunUsage.of(self.usage, self.model_calls)

    @property
    def text(self) -> str:
        """The answer text; empty unless the model answered."""
        return "" if self.answer is None else self.answer.text

    @property
    def ok(self) -> bool:
        """Whether the model answered."""
        return self.stop is StopReason.ANSWERED

    def resume_request(self) -> Request:
        """
        The conversation to run again to continue a run that stopped inside a round: it ends with the
        unanswered turn, whose calls the next run admits as this one did (the request's tools and tool
        choice), authorizes (``approved=`` skips their approval) and runs.
        """
        return self.request if self.pending is None else self.request.with_messages(self.pending)


@frozen
class CallModel(Lean):
    """Send ``prepared`` to the model (round ``round``, from 0)."""

    prepared: Prepared
    round: int


@frozen
class RunTools(Lean):
    """Authorize every call of the batch, then run those still without an outcome."""

    turn: AssistantTurn
    plan: tuple[Planned, ...]
    round: int
    #: The tools the answered request offered that the runner can run, in order: what a denial lists.
    offered: tuple[str, ...] = ()


@frozen
class Finish(Lean):
    """The run is over."""

    result: RunResult


Step: TypeAlias = CallModel | RunTools | Finish


class RunSteps:
    """
    One run's state: the conversation, the rounds used, the call ids seen, the records. ``start`` gives
    the first step; ``model_returned`` and ``tools_returned`` the next one; ``stop`` ends the run.
    """

    def __init__(
        self,
        config: Config,
        request: Request,
        registry: Mapping[str, ToolDescriptor],
        *,
        max_tool_rounds: int,
        unknown_tools: Recovery,
    ) -> None:
        self._config = config.with_tool_call_checks(ToolCallChecks.REPORT)
        tools = tuple(descriptor.tool for descriptor in registry.values())
        self._request = request.with_tools(tools)
        self._registry = registry
        self._max_rounds = max_tool_rounds
        self._unknown = unknown_tools
        self._rounds = 0
        self._model_calls = 0
        self._seen: set[str] = set()
        self._records: list[CallRecord] = []
        self._usage: list[Usage] = []
        self._last: Outcome | None = None
        #: The tools offered by the request the model answers now (``model_returned``).
        self._offered: tuple[str, ...] = tuple(registry)

    @property
    def request(self) -> Request:
        """The conversation so far."""
        return self._request

    def start(self) -> Step:
        """
        The first step: a model call, or the end when the request cannot be prepared. A conversation that
        ends with an unanswered assistant turn (``RunResult.resume_request``) resumes with that batch.
        """
        messages = self._request.messages
        last = messages[-1] if messages else None
        if isinstance(last, AssistantTurn) and last.calls:
            self._request = evolve(self._request, messages=messages[:-1])
            return self._resumed(last)
        return self._next_call()

    def _resumed(self, turn: AssistantTurn) -> Step:
        """
        The pending ``turn``'s batch, admitted as the first run admitted it: against the tools the request
        offers, under its tool choice, each call's arguments restored from the wire's projection.
        """
        match prepare(self._config, self._request):
            case Err(error):
                return self._finish(StopReason.PREPARE_FAILED, error=error)
            case Ok(prepared):
                self._offered = self._runnable(prepared)
        answered = Terminal(prepared.provider, FinishReason.TOOL_CALLS, turn.text, turn.calls)
        match resolve(Ok(answered), prepared, sent=Sent.COMPLETED):
            case NeedsTools(issues=issues, admitted=admitted):
                return self._tools(NeedsTools(turn, issues, None, admitted))
            case failure:  # a batch error: an empty batch, a repeated id, over the admission limits
                self._last = failure
                return self._finish(
                    StopReason.MODEL_FAILED, error=failure if isinstance(failure, Failure) else None
                )

    def _next_call(self) -> Step:
        match prepare(self._config, self._request):
            case Err(error):
                return self._finish(StopReason.PREPARE_FAILED, error=error)
            case Ok(prepared):
                self._model_calls += 1
                self._offered = self._runnable(prepared)
                return CallModel(prepared, self._model_calls - 1)

    def _runnable(self, prepared: Prepared) -> tuple[str, ...]:
        """The tools ``prepared`` offers that the registry can run, in the request's order."""
        return tuple(name for name in prepared.tools if name in self._registry)

    def model_returned(self, outcome: Outcome, answered: Prepared | None = None) -> Step:
        """
        The next step after a model outcome: finish on an answer or a dead end, else run the batch.
        ``answered`` is the request the model answered when a driver sent another than ``CallModel``'s
        (``prepare_model_request``): a call is admitted only to a tool that request offered.
        """
        if answered is not None:
            self._offered = self._runnable(answered)
        self._last = outcome
        if outcome.usage is not None:
            self._usage.append(outcome.usage)
        match outcome:
            case Answer(turn=turn):
                self._request = self._request.with_messages(turn)
                return self._finish(StopReason.ANSWERED, answer=outcome)
            case Failure():
                return self._finish(StopReason.MODEL_FAILED, error=outcome)
            case OutputLimited():
                return self._finish(StopReason.OUTPUT_LIMITED)
            case Refused():
                return self._finish(StopReason.REFUSED)
            case NeedsTools():
                return self._tools(outcome)

    def _tools(self, outcome: NeedsTools) -> Step:
        calls = outcome.turn.calls
        if self._rounds >= self._max_rounds:
            last = calls[-1] if calls else None
            detail = {
                "used_tool_rounds": str(self._rounds),
                "max_tool_rounds": str(self._max_rounds),
                "last_tool_call": last.name if last is not None and last.name in self._registry else "",
                "last_tool_call_id": "" if last is None else last.id,
            }
            return self._finish(StopReason.ROUND_BUDGET, detail=detail)
        if not calls:
            # The tool choice required a call and the model answered instead: tell it, and ask again.
            self._rounds += 1
            told = [UserMessage(describe_issue(issue)) for issue in outcome.issues]
            self._request = self._request.with_messages(outcome.turn, *told)
            return self._next_call()
        reused = [call for call in calls if call.id in self._seen]
        if reused:
            return self._finish(StopReason.INVALID_TOOL_CALL, detail={"tool_call_id": reused[0].id})
        self._rounds += 1
        issues = {issue.call_id: issue for issue in outcome.issues}
        offered = self._offered
        plan: list[Planned] = []
        for call in calls:
            self._seen.add(call.id)
            issue = issues.get(call.id)
            # Admitted against this turn's request only: a tool offered in an earlier turn is unknown now.
            descriptor = self._registry.get(call.name) if call.name in offered else None
            if isinstance(issue, ToolChoiceViolation):
                plan.append(Planned(call, descriptor, None, ToolOutcome.choice_violation(issue)))
            elif descriptor is None or isinstance(issue, UnknownTool):
                if self._unknown is Recovery.END:
                    return self._finish(StopReason.TOOL_CALL_DENIED, detail={"tool_call_id": call.id})
                plan.append(Planned(call, None, None, ToolOutcome.unknown_tool(offered)))
            elif isinstance(issue, InvalidArguments):
                plan.append(
                    Planned(
                        call, descriptor, None, ToolOutcome.invalid_arguments(descriptor.name, issue.failure)
                    )
                )
            else:
                plan.append(Planned(call, descriptor, outcome.arguments(call.id)))
        return RunTools(outcome.turn, tuple(plan), self._rounds, offered)

    def tools_returned(self, turn: AssistantTurn, done: Sequence[tuple[ToolCall, ToolOutcome, str]]) -> Step:
        """Append the turn and one tool message per call (in call order), then call the model again."""
        results = []
        for call, outcome, message in done:
            self._records.append(CallRecord(call, outcome, message, self._rounds))
            results.append(ToolResult(call.id, message, not outcome.ok, call.name))
        self._request = self._request.with_messages(turn, *results)
        return self._next_call()

    def unprepared(self, error: PrepareError) -> Finish:
        """End the run: the request a host hook gave for the next model call cannot be prepared."""
        self._model_calls -= 1  # the call was never made
        return self._finish(StopReason.PREPARE_FAILED, error=error)

    def record(self, call: ToolCall, outcome: ToolOutcome, message: str) -> None:
        """Keep a call's outcome when the run ends before its batch is answered."""
        self._records.append(CallRecord(call, outcome, message, self._rounds))

    def stop(self, reason: StopReason, pending: AssistantTurn | None = None, **detail: str) -> Finish:
        """End the run now (cancelled, deadline, denied, rejected, suspended), inside ``pending``'s round."""
        return self._finish(reason, detail=detail, pending=pending)

    def _finish(
        self,
        reason: StopReason,
        *,
        answer: Answer | None = None,
        error: Failure | PrepareError | None = None,
        detail: Mapping[str, str] | None = None,
        pending: AssistantTurn | None = None,
    ) -> Finish:
        result = RunResult(
            reason,
            answer,
            self._request,
            tuple(self._records),
            self._rounds,
            self._model_calls,
            self._last,
            error,
            dict(detail or {}),
            tuple(self._usage),
            pending,
        )
        return Finish(result)


_public.rehome("llm_wire.agent", _FACE[__name__], globals())
