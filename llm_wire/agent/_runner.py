"""
The runner: drives ``RunSteps`` against a model and a provider. Per round it authorizes the whole batch
before any call runs, has each call run under its contract (``_execution``; with ``parallel``, stage by
stage as ``stages`` splits the batch at the writes that run alone), then applies
``prepare_tool_result``, output validation and projection, and reports events. ``arun`` is the async
driver; ``run`` is the sync facade (the same driver on the runner's own loop thread, ``_control``);
``stream`` is the same driver again, its events and each model call's progress yielded (``_streaming``).
"""

from __future__ import annotations

import asyncio
import inspect
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar, runtime_checkable

from attrs import evolve

from llm_wire import _public
from llm_wire._request import Config, Prepared, Request, prepare
from llm_wire.agent import _tracing
from llm_wire.agent._control import Cancellation, Portal, RunState
from llm_wire.agent._descriptor import (
    MIN_OUTPUT_BYTES,
    MIN_OUTPUT_TOKENS,
    Approval,
    ToolDescriptor,
    check_capabilities,
)
from llm_wire.agent._execution import Executor
from llm_wire.agent._face import FACE as _FACE
from llm_wire.agent._hooks import (
    HostHookError,
    arrival,
    as_verdict,
    awaited,
    called,
    check_callable,
    check_run,
)
from llm_wire.agent._providers import ToolProvider
from llm_wire.agent._steps import (
    CallModel,
    Finish,
    Planned,
    Recovery,
    RunResult,
    RunSteps,
    RunTools,
    StopReason,
    stages,
)
from llm_wire.agent._streaming import RunStream, run_events, streamed, to_stream
from llm_wire.agent._threads import in_thread
from llm_wire.agent._tool_outcome import MAX_LISTED, ErrorCategory, ErrorCode, ToolOutcome
from llm_wire.agent._usage import Pricing
from llm_wire.agent.events import (
    ApprovalRequest,
    ApprovalRequested,
    ModelCompleted,
    ModelRequest,
    ModelStarted,
    RunEvent,
    ToolCompleted,
    ToolOutputProjectionFailed,
    ToolOutputTruncated,
    Verdict,
)
from llm_wire.agent.projection import projector
from llm_wire.agent.projection._types import (
    LimitingFactor,
    OutputProjectionError,
    ProjectedOutput,
    ProjectionReport,
)
from llm_wire.message import ToolCall
from llm_wire.outcome import Answer, Failure, NeedsTools, Outcome, OutputLimited, Refused
from llm_wire.result import Err, Ok
from llm_wire.schema import DefinitionError
from llm_wire.value import Value

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from llm_wire.agent._spans import RunTrace

__all__ = [
    "AllowToolCall",
    "Approver",
    "ApprovalPolicy",
    "AsyncModel",
    "HostHookError",
    "Model",
    "PrepareModelRequest",
    "PrepareToolResult",
    "ProjectOutput",
    "Replay",
    "Runner",
    "SyncModel",
]

T = TypeVar("T")
#: Seconds a model call cut by the deadline or a cancellation has to finish its cleanup (close its
#: connection) before the run returns; a call that ignores its cancellation is left behind after that.
CANCEL_GRACE = 0.1


@runtime_checkable
class AsyncModel(Protocol):
    """A model client: ``complete(prepared)`` sends one prepared request and returns its ``Outcome``."""

    async def complete(self, prepared: Prepared) -> Outcome:
        """The outcome of one request (a transport failure is a ``Failure`` outcome, not an exception)."""
        ...


@runtime_checkable
class SyncModel(Protocol):
    """A blocking model client (``llm_wire.transport.Client``); the runner calls it in a worker thread."""

    def complete(self, prepared: Prepared) -> Outcome:
        """The outcome of one request."""
        ...


Model: TypeAlias = AsyncModel | SyncModel

#: ``allow_tool_call(call, descriptor)``: whether the host lets the call run at all (checked first):
#: ``True``/``ALLOW`` (approval still applies), ``False``/``DENY``, or ``ASK`` the approver. A call code
#: made (``call.by_program``, ``call.caller``) can be refused here.
AllowToolCall: TypeAlias = Callable[[ToolCall, ToolDescriptor], "Verdict | bool | Awaitable[Verdict | bool]"]
#: ``approval_policy(request)`` for ``Approval.POLICY`` tools: allow, deny, or ``ASK`` the approver.
ApprovalPolicy: TypeAlias = Callable[[ApprovalRequest], "Verdict | bool | Awaitable[Verdict | bool]"]
#: ``approver(request)``: allow, deny, or ``ASK`` (suspend the run for manual review).
Approver: TypeAlias = Callable[[ApprovalRequest], "Verdict | bool | Awaitable[Verdict | bool]"]
#: ``prepare_tool_result(call, outcome)``: rewrite an outcome (redact, enrich), or ``None`` to reject it.
PrepareToolResult: TypeAlias = Callable[[ToolCall, ToolOutcome], "ToolOutcome | None"]
#: ``prepare_model_request(model_request)``: the request to send instead (trimmed, annotated), and the
#: execution context to keep (it may clear it); the run and trace ids always stay the run's.
PrepareModelRequest: TypeAlias = Callable[[ModelRequest], "ModelRequest | Awaitable[ModelRequest]"]
#: ``replay(call)``: the outcome a call produced in an earlier run (it is not run again), or ``None``.
Replay: TypeAlias = Callable[[ToolCall], "ToolOutcome | None"]
#: ``project_output(outcome, descriptor)``: the text the model sees, as is or with its projection report
#: (``ProjectedOutput``; a truncated one fires ``ToolOutputTruncated``), or an ``OutputProjectionError``,
#: which ends the run (``StopReason.TOOL_OUTPUT_PROJECTION_FAILED``). The default is ``projector()``: the
#: canonical JSON within 64 KiB and 10,000 estimated tokens, tightened by the tool's ``output_ceilings``;
#: ``projection.unbounded`` opts out.
ProjectOutput: TypeAlias = Callable[
    [ToolOutcome, ToolDescriptor | None], "str | ProjectedOutput | OutputProjectionError"
]


class _Stop(Exception):
    """Internal: a batch ends the run (denied under ``Recovery.END``, rejected result, suspension)."""

    def __init__(self, reason: StopReason, **detail: str) -> None:
        self.reason = reason
        self.detail = detail


class Runner:
    """
    Loops a model and a provider until the model answers, within ``max_tool_rounds`` rounds and an
    optional total ``deadline`` (seconds). Every call is admitted, authorized (the whole batch before any
    call runs), validated and run under its descriptor's contract (with ``parallel``, reads together and a
    write that does not commute alone, between the calls around it); every failure reaches the model as a
    tool message it can act on, ``retryable`` only when repeating the call is safe by its contract, and
    every tool message is bounded (``project_output``, by default ``projector()``). Descriptors are read
    and checked against the provider's capabilities here, so a contract the provider cannot honour raises
    ``DefinitionError`` before any run. With a ``tracer`` (OpenTelemetry) each run is traced; tool arguments
    and results reach its spans only with ``trace_content_bytes``, cut to that many bytes (``_tracing``).
    """

    def __init__(
        self,
        model: Model,
        config: Config,
        provider: ToolProvider,
        *,
        max_tool_rounds: int = 8,
        deadline: float | None = None,
        max_in_flight: int = 16,
        parallel: bool = False,
        allow_tool_call: AllowToolCall | None = None,
        approval_policy: ApprovalPolicy | None = None,
        approver: Approver | None = None,
        prepare_tool_result: PrepareToolResult | None = None,
        project_output: ProjectOutput | None = None,
        prepare_model_request: PrepareModelRequest | None = None,
        pricing: Pricing | None = None,
        on_event: Callable[[RunEvent], None] | None = None,
        unknown_tools: Recovery = Recovery.TELL_MODEL,
        denials: Recovery = Recovery.TELL_MODEL,
        log_exception_text: bool = False,
        draw: Callable[[], float] = random.random,
        tracer: Tracer | None = None,
        trace_content_bytes: int = 0,
    ) -> None:
        if not callable(getattr(model, "complete", None)):
            raise TypeError(f"model must have a complete(prepared) method, not {type(model).__name__}")
        if not isinstance(config, Config):
            raise TypeError(f"config must be a Config, not {type(config).__name__}")
        if not isinstance(provider, ToolProvider):
            raise TypeError(f"provider must be a ToolProvider, not {type(provider).__name__}")
        if type(max_tool_rounds) is not int or max_tool_rounds < 0:
            raise ValueError("max_tool_rounds must be an int >= 0")
        if type(max_in_flight) is not int or max_in_flight < 1:
            raise ValueError("max_in_flight must be an int >= 1")
        if deadline is not None and (not isinstance(deadline, int | float) or not deadline > 0):
            raise ValueError("deadline must be a positive number of seconds")
        for name, value, kind in (
            ("parallel", parallel, bool),
            ("unknown_tools", unknown_tools, Recovery),
            ("denials", denials, Recovery),
            ("log_exception_text", log_exception_text, bool),
        ):
            if not isinstance(value, kind):
                raise TypeError(f"{name} must be a {kind.__name__}, not {type(value).__name__}")
        for name, hook in (
            ("allow_tool_call", allow_tool_call),
            ("approval_policy", approval_policy),
            ("approver", approver),
            ("prepare_tool_result", prepare_tool_result),
            ("project_output", project_output),
            ("prepare_model_request", prepare_model_request),
            ("pricing", pricing),
            ("on_event", on_event),
            ("draw", draw),
        ):
            check_callable(name, hook)
        _tracing.check_tracing(tracer, trace_content_bytes)
        self._model = model
        self._async_model = inspect.iscoroutinefunction(model.complete)
        self._config = config
        self._registry: dict[str, ToolDescriptor] = {}
        for descriptor in provider.descriptors():
            if descriptor.name in self._registry:
                raise DefinitionError(f"tool {descriptor.name!r} is offered twice")
            check_capabilities(descriptor, provider.capabilities(descriptor.name))
            self._registry[descriptor.name] = descriptor
        self._max_rounds = max_tool_rounds
        self._deadline = deadline
        self._parallel = parallel
        self._allow = allow_tool_call
        self._policy = approval_policy
        self._approver = approver
        self._prepare_result = prepare_tool_result
        self._project = project_output or _BOUNDED
        self._prepare_request = prepare_model_request
        self._pricing = pricing
        self._on_event = on_event
        self._unknown = unknown_tools
        self._denials = denials
        self._executor = Executor(
            provider,
            max_in_flight=max_in_flight,
            emit=self._emit,
            log_exception_text=log_exception_text,
            draw=draw,
        )
        self._portal: Portal | None = None
        self._tracer = tracer
        self._trace_bytes = trace_content_bytes

    def __repr__(self) -> str:
        return f"<Runner ({len(self._registry)} tools, {self._max_rounds} rounds)>"

    @property
    def in_flight(self) -> int:
        """Attempts still running, abandoned stragglers included."""
        return self._executor.in_flight

    # -- drivers ---------------------------------------------------------------------------------------

    async def arun(
        self,
        request: Request,
        *,
        cancel: Cancellation | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, str] | None = None,
        approved: Collection[str] = (),
        replay: Replay | None = None,
        trace_id: str | None = None,
    ) -> RunResult:
        """
        Run ``request`` to its end; the ``RunResult`` says why it ended. No tool exception escapes; only
        a wrong argument type (``TypeError``) or a model that raises does.

        A request that ends with an unanswered assistant turn (``RunResult.resume_request``) continues with
        that batch: calls whose ids are in ``approved`` skip approval. ``replay(call)`` may return the
        outcome a call already produced (a durable store's admitted result), which is used without running
        the tool again. ``run_id`` and ``trace_id`` correlate the run (generated when absent); the result
        carries them, the ``pricing`` hook's cost of its whole usage, and every tool gets them.
        """
        check_run(request, cancel, replay)
        deadline = None if self._deadline is None else time.monotonic() + self._deadline
        run = RunState(
            run_id or f"run-{uuid.uuid4().hex}", deadline, cancel or Cancellation(), metadata or {}
        )
        run.trace_id = trace_id or uuid.uuid4().hex
        run.approved = frozenset(approved)
        run.replay = replay
        steps = RunSteps(
            self._config,
            request,
            self._registry,
            max_tool_rounds=self._max_rounds,
            unknown_tools=self._unknown,
        )
        trace = _tracing.begin(self._tracer, self._trace_bytes, run, request, self._config.provider)
        try:
            step = steps.start()
            while True:
                if isinstance(step, Finish):
                    return self._ended(run, step.result, trace)
                if run.cancel.cancelled:
                    step = steps.stop(StopReason.CANCELLED)
                elif run.remaining() <= 0:
                    step = steps.stop(StopReason.DEADLINE)
                elif isinstance(step, CallModel):
                    step = await self._call_model(run, steps, step)
                else:
                    step = await self._round(run, steps, step)
        finally:
            run.close()
            if trace is not None:
                _tracing.close(trace)

    def run(
        self,
        request: Request,
        *,
        cancel: Cancellation | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, str] | None = None,
        approved: Collection[str] = (),
        replay: Replay | None = None,
        trace_id: str | None = None,
    ) -> RunResult:
        """
        ``arun`` for synchronous code: the same driver on the runner's own event loop thread, so an
        abandoned straggler never holds the caller. ``close`` stops that thread.
        """
        work = self.arun(
            request,
            cancel=cancel,
            run_id=run_id,
            metadata=metadata,
            approved=approved,
            replay=replay,
            trace_id=trace_id,
        )
        return self._loop().call(work)

    def stream(
        self,
        request: Request,
        *,
        cancel: Cancellation | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, str] | None = None,
        approved: Collection[str] = (),
        replay: Replay | None = None,
        trace_id: str | None = None,
    ) -> RunStream:
        """
        ``arun``, its events yielded as they come (``async for``; ``for`` in synchronous code runs it on
        the runner's loop thread as ``run`` does): each model call's ``TextDelta``, ``ToolCallStarted`` and
        ``ArgumentsDelta`` as ``model.stream`` yields them (a model without ``stream`` completes as in
        ``run``), every event ``on_event`` gets, and last ``RunCompleted`` with the ``RunResult``. The run
        starts at the first event; closing the stream early cancels it.
        """
        check_run(request, cancel, replay)
        start = partial(
            self.arun,
            request,
            run_id=run_id,
            metadata=metadata,
            approved=approved,
            replay=replay,
            trace_id=trace_id,
        )
        return RunStream(run_events(start, cancel), self._loop)

    def _loop(self) -> Portal:
        """The loop thread of ``run`` and the synchronous ``stream``, started again if it is gone."""
        if self._portal is None or not self._portal.alive:
            if self._portal is not None:
                self._portal.loop.close()  # its thread is gone: nothing runs on that loop any more
            self._portal = Portal()
        return self._portal

    def close(self, timeout: float | None = 5.0) -> None:
        """
        Stop the loop thread ``run`` started, once abandoned stragglers finish (at most ``timeout``
        seconds; a straggler's thread still running then runs on alone, and its result is dropped).
        """
        if self._portal is not None:
            started = time.monotonic()
            self._executor.settle(timeout)
            left = None if timeout is None else max(timeout - (time.monotonic() - started), 0.0)
            self._portal.close(left)
            self._portal = None

    def _ended(self, run: RunState, result: RunResult, trace: RunTrace | None) -> RunResult:
        """The result with the run's correlation ids and, once, the cost of its whole usage (traced)."""
        cost = None
        if self._pricing is not None:
            cost = called("pricing", self._pricing, result.total_usage)
            if cost is not None and not isinstance(cost, Decimal):
                raise TypeError(f"pricing must return a Decimal or None, not {type(cost).__name__}")
        ended = evolve(result, cost=cost, run_id=run.run_id, trace_id=run.trace_id)
        if trace is not None:
            trace.ended(ended)
        return ended

    # -- model -----------------------------------------------------------------------------------------

    async def _prepared(self, run: RunState, step: CallModel) -> Prepared | Err[Any]:
        """The request to send: ``prepare_model_request``'s, which may change it and clear the context."""
        hook = self._prepare_request
        if hook is None:
            return step.prepared
        given = ModelRequest(step.prepared.request, dict(run.metadata), run.run_id, run.trace_id, step.round)
        taken = await awaited("prepare_model_request", hook, given)
        if not isinstance(taken, ModelRequest):
            raise TypeError(f"prepare_model_request must return a ModelRequest, not {type(taken).__name__}")
        # The host may clear the execution context, never the correlation: run_id and trace_id stay.
        run.metadata = dict(taken.metadata)
        if taken.request is given.request:
            return step.prepared
        if not isinstance(taken.request, Request):
            kind = type(taken.request).__name__
            raise TypeError(f"prepare_model_request must return a Request, not {kind}")
        match prepare(step.prepared.config, taken.request):  # the run's checks (REPORT), as steps prepare
            case Err() as error:
                return error
            case Ok(prepared):
                return prepared

    async def _call_model(self, run: RunState, steps: RunSteps, step: CallModel) -> Any:
        prepared = await self._prepared(run, step)
        if isinstance(prepared, Err):
            return steps.unprepared(prepared.error)
        trace = _tracing.ACTIVE.get()
        if trace is not None:
            trace.model_call(prepared, step.round)
        self._emit(ModelStarted(step.round))
        streaming = streamed(self._model, prepared)  # None unless a stream reads this run
        if streaming is not None:
            pending: Awaitable[object] = streaming
        elif self._async_model:
            pending = self._model.complete(prepared)  # type: ignore[assignment]
        else:
            pending = in_thread(self._model.complete, prepared)
        task = asyncio.ensure_future(arrival(pending))
        timeout = None if run.deadline is None else max(run.remaining(), 0.0)
        watched: set[asyncio.Future[Any]] = {task, run.stopped}
        await asyncio.wait(watched, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            task.cancel()  # its cleanup (a connection to close) gets a bounded turn before the run returns
            await asyncio.wait({task}, timeout=CANCEL_GRACE)
            reason = StopReason.CANCELLED if run.cancel.cancelled else StopReason.DEADLINE
            return steps.stop(reason)
        outcome, at = task.result()
        if not isinstance(outcome, Answer | NeedsTools | OutputLimited | Refused | Failure):
            raise TypeError(f"model.complete must return an Outcome, not {type(outcome).__name__}")
        if run.deadline is not None and at > run.deadline:  # a model that blocked the loop answered late
            return steps.stop(StopReason.DEADLINE)
        self._emit(ModelCompleted(step.round, outcome))
        return steps.model_returned(outcome, prepared)

    # -- a round ---------------------------------------------------------------------------------------

    async def _round(self, run: RunState, steps: RunSteps, step: RunTools) -> Any:
        try:
            plan = await self._authorize(run, step.plan, step.offered)
            if self._parallel:
                outcomes = []
                for stage in stages(plan):
                    outcomes.extend(await self._together(run, stage))
            else:
                outcomes = [await self._settle(run, planned) for planned in plan]
        except _Stop as stop:
            return steps.stop(stop.reason, step.turn, **stop.detail)
        done = []
        failed: ToolOutputProjectionFailed | None = None
        for planned, outcome in zip(plan, outcomes, strict=True):
            shown = self._shown(outcome, planned.descriptor)
            if isinstance(shown, OutputProjectionError):
                event = ToolOutputProjectionFailed(planned.call, outcome, shown)
                self._emit(event)
                failed = failed or event
                done.append((planned.call, outcome, ""))  # the model saw nothing of it
                continue
            self._emit(ToolCompleted(planned.call, outcome, shown.text))
            if shown.report.truncated:
                self._emit(ToolOutputTruncated(planned.call, shown.report))
            done.append((planned.call, outcome, shown.text))
        if failed is not None:
            for call, outcome, message in done:
                steps.record(call, outcome, message)
            call = failed.call
            detail = {"error": failed.error.name, "tool_call_id": call.id, "tool_name": call.name}
            return steps.stop(StopReason.TOOL_OUTPUT_PROJECTION_FAILED, step.turn, **detail)
        if run.cancel.cancelled:
            for call, outcome, message in done:
                steps.record(call, outcome, message)
            return steps.stop(StopReason.CANCELLED, step.turn)
        return steps.tools_returned(step.turn, done)

    async def _together(self, run: RunState, stage: Sequence[Planned]) -> list[ToolOutcome]:
        """
        The outcomes of a stage's calls, run concurrently, in call order; once all have settled, the first
        exception any raised (``_Stop`` included) is raised, and no later stage starts.
        """
        if len(stage) == 1:
            return [await self._settle(run, stage[0])]
        settled = await asyncio.gather(
            *(self._settle(run, planned) for planned in stage), return_exceptions=True
        )
        for item in settled:
            if isinstance(item, BaseException):
                raise item
        return [item for item in settled if isinstance(item, ToolOutcome)]

    def _shown(
        self, outcome: ToolOutcome, descriptor: ToolDescriptor | None
    ) -> ProjectedOutput | OutputProjectionError:
        """What ``project_output`` made of an outcome; a plain text counts as not truncated."""
        shown = called("project_output", self._project, outcome, descriptor)
        if isinstance(shown, str):
            return ProjectedOutput(shown, _UNREPORTED)
        if not isinstance(shown, ProjectedOutput | OutputProjectionError):
            raise TypeError(
                "project_output must return a str, ProjectedOutput or OutputProjectionError,"
                f" not {type(shown).__name__}"
            )
        return shown

    async def _authorize(
        self, run: RunState, plan: Sequence[Planned], offered: Sequence[str]
    ) -> list[Planned]:
        """
        Decide every call of the batch before any runs; a denial is an outcome (listing the other tools
        ``offered`` in this turn) or the run's end.
        """
        decided = []
        for planned in plan:
            if planned.preset is not None or planned.descriptor is None:
                decided.append(planned)
                continue
            denial = await self._decide(run, planned, planned.descriptor, offered)
            decided.append(planned if denial is None else evolve(planned, preset=denial))
        return decided

    async def _decide(
        self, run: RunState, planned: Planned, descriptor: ToolDescriptor, offered: Sequence[str]
    ) -> ToolOutcome | None:
        call = planned.call
        ask = False
        if self._allow is not None:
            allowed = as_verdict(
                "allow_tool_call", await awaited("allow_tool_call", self._allow, call, descriptor)
            )
            if allowed is Verdict.DENY:
                return self._deny(
                    call,
                    ErrorCode.DENIED,
                    f"the host did not allow this call to tool {descriptor.name}",
                    offered,
                )
            ask = allowed is Verdict.ASK
        contract = descriptor.contract
        if call.id in run.approved or (contract.approval is Approval.NEVER and not ask):
            return None
        request = ApprovalRequest(
            call.id,
            descriptor.name,
            contract.version,
            contract.side_effect,
            contract.idempotency,
            contract.capabilities,
            descriptor.redact(None if planned.admitted is None else planned.admitted.arguments),
            run.run_id,
            call.by_program,
        )
        verdict = Verdict.ASK
        if contract.approval is Approval.POLICY and self._policy is not None and not ask:
            verdict = as_verdict("approval_policy", await awaited("approval_policy", self._policy, request))
        if verdict is Verdict.ASK:
            if self._approver is None:
                return self._deny(
                    call,
                    ErrorCode.APPROVAL_DENIED,
                    f"tool {descriptor.name} needs approval and no approver is configured",
                    offered,
                )
            self._emit(ApprovalRequested(request))
            verdict = as_verdict("approver", await awaited("approver", self._approver, request))
            if verdict is Verdict.ASK:
                raise _Stop(StopReason.APPROVAL_REQUIRED, tool_call_id=call.id, tool_name=descriptor.name)
        if verdict is Verdict.DENY:
            return self._deny(
                call,
                ErrorCode.APPROVAL_DENIED,
                f"the call to tool {descriptor.name} was not approved",
                offered,
            )
        return None

    def _deny(self, call: ToolCall, code: ErrorCode, message: str, offered: Sequence[str]) -> ToolOutcome:
        if self._denials is Recovery.END:
            raise _Stop(StopReason.TOOL_CALL_DENIED, tool_call_id=call.id)
        others = [name for name in offered if name != call.name][:MAX_LISTED]
        listed = f" Other available tools: {', '.join(others)}." if others else ""
        text = f"{message}; do not call it again with these arguments.{listed}"
        details: Value = {"available": list(others)}
        return ToolOutcome.failed(
            ErrorCategory.PERMISSION_DENIED, code, text, retryable=False, details=details
        )

    # -- one call --------------------------------------------------------------------------------------

    async def _settle(self, run: RunState, planned: Planned) -> ToolOutcome:
        trace = _tracing.ACTIVE.get()
        if trace is None:
            return await self._outcome(run, planned)
        return await trace.tool(planned, self._outcome(run, planned))

    async def _outcome(self, run: RunState, planned: Planned) -> ToolOutcome:
        if planned.preset is not None:
            return planned.preset
        descriptor, admitted = planned.descriptor, planned.admitted
        # A plan without a preset has both.
        assert descriptor is not None
        assert admitted is not None
        replayed = None if run.replay is None else called("replay", run.replay, planned.call)
        if replayed is not None:
            if not isinstance(replayed, ToolOutcome):
                raise TypeError(f"replay must return a ToolOutcome or None, not {type(replayed).__name__}")
            return replayed
        outcome = await self._executor.execute(
            run, planned.call, descriptor, admitted.arguments, admitted.decoded
        )
        hook = self._prepare_result
        if hook is not None:
            # The tool has run: a hook that raises is the host's bug, not the tool's failure to retry.
            prepared = called("prepare_tool_result", hook, planned.call, outcome)
            if prepared is None:
                raise _Stop(StopReason.RESULT_REJECTED, tool_call_id=planned.call.id)
            if not isinstance(prepared, ToolOutcome):
                raise TypeError(
                    f"prepare_tool_result must return a ToolOutcome or None, not {type(prepared).__name__}"
                )
            outcome = prepared
        contract = descriptor.contract
        return contract.resource_version.extract_version(contract.validate_output(descriptor.name, outcome))

    def _emit(self, event: RunEvent) -> None:
        if self._on_event is not None:
            self._on_event(event)
        to_stream(event)
        trace = _tracing.ACTIVE.get()
        if trace is not None:
            trace.event(event)


#: The report behind a hook's plain text: nothing is known of it, so nothing was truncated.
_UNREPORTED = ProjectionReport(False, 0, 0, 0, 0, MIN_OUTPUT_BYTES, MIN_OUTPUT_TOKENS, LimitingFactor.NONE)

#: The default ``project_output``: the 64 KiB and 10,000-token ceilings, tightened by each tool's own.
_BOUNDED = projector()


_public.rehome("llm_wire.agent", _FACE[__name__], globals())
