"""
The runner: drives ``RunSteps`` against a model and a provider, and runs each call under its contract
(authorization before any call runs, deadlines with cooperative cancellation, an in-flight cap, safe
retries with one idempotency key, compensation, ``prepare_tool_result``, output validation, events).
``arun`` is the async driver; ``run`` is the sync facade (the same driver on the runner's own loop thread).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import logging
import math
import random
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping, Sequence
from typing import Any, Protocol, TypeAlias, TypeVar, runtime_checkable

from attrs import evolve

from llm_wire._request import Config, Prepared, Request
from llm_wire.agent._descriptor import (
    Approval,
    HeartbeatPolicy,
    ProviderCapabilities,
    ToolDescriptor,
    check_capabilities,
)
from llm_wire.agent._events import (
    ApprovalRequest,
    ApprovalRequested,
    ModelCompleted,
    ModelStarted,
    RunEvent,
    ToolCompensated,
    ToolCompleted,
    ToolHeartbeat,
    ToolRetrying,
    ToolStarted,
    Verdict,
)
from llm_wire.agent._invocation import Heartbeat, InvocationContext, ToolInvocation
from llm_wire.agent._outcome import ErrorCategory, ErrorCode, ToolOutcome, outcome_for_exception
from llm_wire.agent._policy import expected_version, extract_version, redact, retry_delay, validate_output
from llm_wire.agent._providers import CompensatingProvider, ToolProvider
from llm_wire.agent._steps import (
    CallModel,
    Finish,
    Planned,
    Recovery,
    RunResult,
    RunSteps,
    RunTools,
    StopReason,
)
from llm_wire.message import ToolCall
from llm_wire.outcome import Outcome
from llm_wire.schema import DefinitionError

__all__ = [
    "AllowToolCall",
    "Approver",
    "ApprovalPolicy",
    "AsyncModel",
    "Cancellation",
    "Model",
    "PrepareToolResult",
    "ProjectOutput",
    "Replay",
    "Runner",
    "SyncModel",
]

T = TypeVar("T")

_LOG = logging.getLogger("llm_wire.agent")


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

#: ``allow_tool_call(call, descriptor)``: whether the host lets the call run at all (checked first).
AllowToolCall: TypeAlias = Callable[[ToolCall, ToolDescriptor], "bool | Awaitable[bool]"]
#: ``approval_policy(request)`` for ``Approval.POLICY`` tools: allow, deny, or ``ASK`` the approver.
ApprovalPolicy: TypeAlias = Callable[[ApprovalRequest], "Verdict | Awaitable[Verdict]"]
#: ``approver(request)``: allow, deny, or ``ASK`` (suspend the run for manual review).
Approver: TypeAlias = Callable[[ApprovalRequest], "Verdict | bool | Awaitable[Verdict | bool]"]
#: ``prepare_tool_result(call, outcome)``: rewrite an outcome (redact, enrich), or ``None`` to reject it.
PrepareToolResult: TypeAlias = Callable[[ToolCall, ToolOutcome], "ToolOutcome | None"]
#: ``replay(call)``: the outcome a call produced in an earlier run (it is not run again), or ``None``.
Replay: TypeAlias = Callable[[ToolCall], "ToolOutcome | None"]
#: ``project_output(outcome, descriptor)``: the text the model sees (default: the canonical JSON).
ProjectOutput: TypeAlias = Callable[[ToolOutcome, ToolDescriptor | None], str]


class Cancellation:
    """Ask a run to stop, from any thread; the run ends with ``StopReason.CANCELLED``."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    @property
    def cancelled(self) -> bool:
        """Whether ``cancel`` was called."""
        return self._event.is_set()

    def cancel(self) -> None:
        """Stop the runs watching this (idempotent)."""
        with self._lock:
            self._event.set()
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            loop.call_soon_threadsafe(_resolve, future)

    def _watch(self) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._event.is_set():
                future.set_result(None)
            else:
                self._waiters.append((loop, future))
        return future


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def _maybe(value: T | Awaitable[T]) -> T:
    return await value if inspect.isawaitable(value) else value


def _check_callable(name: str, value: object) -> None:
    if value is not None and not callable(value):
        raise TypeError(f"{name} must be callable, not {type(value).__name__}")


class _Run:
    """One run's moving parts: its id, deadline, cancellation and metadata."""

    def __init__(
        self, run_id: str, deadline: float | None, cancel: Cancellation, metadata: Mapping[str, str]
    ):
        self.run_id = run_id
        self.deadline = deadline
        self.cancel = cancel
        self.metadata = dict(metadata)
        self.stopped: asyncio.Future[None] = cancel._watch()
        self.approved: frozenset[str] = frozenset()
        self.replay: Replay | None = None

    def remaining(self) -> float:
        return math.inf if self.deadline is None else self.deadline - time.monotonic()


class _Stop(Exception):
    """Internal: a batch ends the run (denied under ``Recovery.END``, rejected result, suspension)."""

    def __init__(self, reason: StopReason, **detail: str) -> None:
        self.reason = reason
        self.detail = detail


class Runner:
    """
    Loops a model and a provider until the model answers, within ``max_tool_rounds`` rounds and an
    optional total ``deadline`` (seconds). Every call is admitted, authorized (the whole batch before any
    call runs), validated and run under its descriptor's contract; every failure reaches the model as a
    tool message it can act on. Descriptors are read and checked against the provider's capabilities
    here, so a contract the provider cannot honour raises ``DefinitionError`` before any run.
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
        on_event: Callable[[RunEvent], None] | None = None,
        unknown_tools: Recovery = Recovery.TELL_MODEL,
        denials: Recovery = Recovery.TELL_MODEL,
        log_exception_text: bool = False,
        draw: Callable[[], float] = random.random,
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
        for name, hook in (
            ("allow_tool_call", allow_tool_call),
            ("approval_policy", approval_policy),
            ("approver", approver),
            ("prepare_tool_result", prepare_tool_result),
            ("project_output", project_output),
            ("on_event", on_event),
            ("draw", draw),
        ):
            _check_callable(name, hook)
        self._model = model
        self._async_model = inspect.iscoroutinefunction(model.complete)
        self._config = config
        self._provider = provider
        self._registry: dict[str, ToolDescriptor] = {}
        self._capabilities: dict[str, ProviderCapabilities] = {}
        for descriptor in provider.descriptors():
            if descriptor.name in self._registry:
                raise DefinitionError(f"tool {descriptor.name!r} is offered twice")
            declared = provider.capabilities(descriptor.name)
            check_capabilities(descriptor, declared)
            self._registry[descriptor.name] = descriptor
            self._capabilities[descriptor.name] = declared or ProviderCapabilities()
        self._compensates = isinstance(provider, CompensatingProvider)
        self._max_rounds = max_tool_rounds
        self._deadline = deadline
        self._max_in_flight = max_in_flight
        self._in_flight = 0
        self._flight_lock = threading.Lock()
        self._parallel = parallel
        self._allow = allow_tool_call
        self._policy = approval_policy
        self._approver = approver
        self._prepare_result = prepare_tool_result
        self._project = project_output or _canonical_text
        self._on_event = on_event
        self._unknown = unknown_tools
        self._denials = denials
        self._log_text = log_exception_text
        self._draw = draw
        self._portal: _Portal | None = None

    def __repr__(self) -> str:
        return f"<Runner ({len(self._registry)} tools, {self._max_rounds} rounds)>"

    @property
    def in_flight(self) -> int:
        """Attempts still running, abandoned stragglers included."""
        return self._in_flight

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
    ) -> RunResult:
        """
        Run ``request`` to its end; the ``RunResult`` says why it ended. No tool exception escapes; only
        a wrong argument type (``TypeError``) or a model that raises does.

        A request that ends with an unanswered assistant turn (``RunResult.resume_request``) continues with
        that batch: calls whose ids are in ``approved`` skip approval. ``replay(call)`` may return the
        outcome a call already produced (a durable store's admitted result), which is used without running
        the tool again.
        """
        if not isinstance(request, Request):
            raise TypeError(f"request must be a Request, not {type(request).__name__}")
        if cancel is not None and not isinstance(cancel, Cancellation):
            raise TypeError(f"cancel must be a Cancellation, not {type(cancel).__name__}")
        deadline = None if self._deadline is None else time.monotonic() + self._deadline
        _check_callable("replay", replay)
        run = _Run(run_id or f"run-{uuid.uuid4().hex}", deadline, cancel or Cancellation(), metadata or {})
        run.approved = frozenset(approved)
        run.replay = replay
        steps = RunSteps(
            self._config,
            request,
            self._registry,
            max_tool_rounds=self._max_rounds,
            unknown_tools=self._unknown,
        )
        try:
            step = steps.start()
            while True:
                if isinstance(step, Finish):
                    return step.result
                if run.cancel.cancelled:
                    step = steps.stop(StopReason.CANCELLED)
                elif run.remaining() <= 0:
                    step = steps.stop(StopReason.DEADLINE)
                elif isinstance(step, CallModel):
                    step = await self._call_model(run, steps, step)
                else:
                    step = await self._round(run, steps, step)
        finally:
            _resolve(run.stopped)

    def run(
        self,
        request: Request,
        *,
        cancel: Cancellation | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, str] | None = None,
        approved: Collection[str] = (),
        replay: Replay | None = None,
    ) -> RunResult:
        """
        ``arun`` for synchronous code: the same driver on the runner's own event loop thread, so an
        abandoned straggler never holds the caller. ``close`` stops that thread.
        """
        if self._portal is None:
            self._portal = _Portal()
        work = self.arun(
            request, cancel=cancel, run_id=run_id, metadata=metadata, approved=approved, replay=replay
        )
        return self._portal.call(work)

    def close(self, timeout: float | None = 5.0) -> None:
        """
        Stop the loop thread ``run`` started, once abandoned stragglers finish (at most ``timeout``
        seconds; a straggler still running then keeps the daemon thread until it ends).
        """
        if self._portal is not None:
            self._portal.close(timeout)
            self._portal = None

    # -- model -----------------------------------------------------------------------------------------

    async def _call_model(self, run: _Run, steps: RunSteps, step: CallModel) -> Any:
        self._emit(ModelStarted(step.round))
        if self._async_model:
            pending: Awaitable[Outcome] = self._model.complete(step.prepared)  # type: ignore[assignment]
        else:
            pending = asyncio.to_thread(self._model.complete, step.prepared)  # type: ignore[arg-type]
        task = asyncio.ensure_future(pending)
        timeout = None if run.deadline is None else max(run.remaining(), 0.0)
        watched: set[asyncio.Future[Any]] = {task, run.stopped}
        await asyncio.wait(watched, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            task.cancel()
            reason = StopReason.CANCELLED if run.cancel.cancelled else StopReason.DEADLINE
            return steps.stop(reason)
        outcome = task.result()
        self._emit(ModelCompleted(step.round, outcome))
        return steps.model_returned(outcome)

    # -- a round ---------------------------------------------------------------------------------------

    async def _round(self, run: _Run, steps: RunSteps, step: RunTools) -> Any:
        try:
            plan = await self._authorize(run, step.plan)
            if self._parallel:
                settled = await asyncio.gather(
                    *(self._settle(run, planned) for planned in plan), return_exceptions=True
                )
                for item in settled:
                    if isinstance(item, BaseException):
                        raise item
                outcomes = [item for item in settled if isinstance(item, ToolOutcome)]
            else:
                outcomes = [await self._settle(run, planned) for planned in plan]
        except _Stop as stop:
            return steps.stop(stop.reason, step.turn, **stop.detail)
        done = []
        for planned, outcome in zip(plan, outcomes, strict=True):
            message = self._project(outcome, planned.descriptor)
            self._emit(ToolCompleted(planned.call, outcome, message))
            done.append((planned.call, outcome, message))
        if run.cancel.cancelled:
            for call, outcome, message in done:
                steps.record(call, outcome, message)
            return steps.stop(StopReason.CANCELLED, step.turn)
        return steps.tools_returned(step.turn, done)

    async def _authorize(self, run: _Run, plan: Sequence[Planned]) -> list[Planned]:
        """Decide every call of the batch before any runs; a denial is an outcome or the run's end."""
        decided = []
        for planned in plan:
            if planned.preset is not None or planned.descriptor is None:
                decided.append(planned)
                continue
            denial = await self._decide(run, planned, planned.descriptor)
            decided.append(planned if denial is None else evolve(planned, preset=denial))
        return decided

    async def _decide(self, run: _Run, planned: Planned, descriptor: ToolDescriptor) -> ToolOutcome | None:
        call = planned.call
        if self._allow is not None and not await _maybe(self._allow(call, descriptor)):
            return self._deny(
                call, ErrorCode.DENIED, f"the host did not allow this call to tool {descriptor.name}"
            )
        contract = descriptor.contract
        if contract.approval is Approval.NEVER or call.id in run.approved:
            return None
        request = ApprovalRequest(
            call.id,
            descriptor.name,
            contract.version,
            contract.side_effect,
            contract.idempotency,
            contract.capabilities,
            redact(descriptor, None if planned.admitted is None else planned.admitted.arguments),
            run.run_id,
        )
        verdict = Verdict.ASK
        if contract.approval is Approval.POLICY and self._policy is not None:
            verdict = await _maybe(self._policy(request))
        if verdict is Verdict.ASK:
            if self._approver is None:
                return self._deny(
                    call,
                    ErrorCode.APPROVAL_DENIED,
                    f"tool {descriptor.name} needs approval and no approver is configured",
                )
            self._emit(ApprovalRequested(request))
            answer = await _maybe(self._approver(request))
            verdict = (
                answer if isinstance(answer, Verdict) else Verdict.ALLOW if answer is True else Verdict.DENY
            )
            if verdict is Verdict.ASK:
                raise _Stop(StopReason.APPROVAL_REQUIRED, tool_call_id=call.id, tool_name=descriptor.name)
        if verdict is Verdict.DENY:
            return self._deny(
                call, ErrorCode.APPROVAL_DENIED, f"the call to tool {descriptor.name} was not approved"
            )
        return None

    def _deny(self, call: ToolCall, code: ErrorCode, message: str) -> ToolOutcome:
        if self._denials is Recovery.END:
            raise _Stop(StopReason.TOOL_CALL_DENIED, tool_call_id=call.id)
        return ToolOutcome.failed(
            ErrorCategory.PERMISSION_DENIED, code, message + "; do not retry it", retryable=False
        )

    # -- one call --------------------------------------------------------------------------------------

    async def _settle(self, run: _Run, planned: Planned) -> ToolOutcome:
        if planned.preset is not None:
            return planned.preset
        descriptor, admitted = planned.descriptor, planned.admitted
        # A plan without a preset has both.
        assert descriptor is not None
        assert admitted is not None
        replayed = None if run.replay is None else run.replay(planned.call)
        if replayed is not None:
            if not isinstance(replayed, ToolOutcome):
                raise TypeError(f"replay must return a ToolOutcome or None, not {type(replayed).__name__}")
            return replayed
        outcome = await self._execute(run, planned.call, descriptor, admitted.arguments, admitted.decoded)
        hook = self._prepare_result
        if hook is not None:
            try:
                prepared = hook(planned.call, outcome)
            except Exception as exc:
                self._log(exc, descriptor.name, "prepare_tool_result")
                prepared = outcome_for_exception(exc, descriptor.name)
            if prepared is None:
                raise _Stop(StopReason.RESULT_REJECTED, tool_call_id=planned.call.id)
            if not isinstance(prepared, ToolOutcome):
                raise TypeError(
                    f"prepare_tool_result must return a ToolOutcome or None, not {type(prepared).__name__}"
                )
            outcome = prepared
        outcome = validate_output(descriptor, outcome)
        return extract_version(descriptor.contract.resource_version, outcome)

    async def _execute(
        self, run: _Run, call: ToolCall, descriptor: ToolDescriptor, arguments: Any, decoded: Any
    ) -> ToolOutcome:
        contract = descriptor.contract
        expected = expected_version(contract.resource_version, descriptor.name, arguments)
        if isinstance(expected, ToolOutcome):
            return expected
        deadline = run.deadline
        if contract.timeout is not None:
            own = time.monotonic() + contract.timeout
            deadline = own if deadline is None else min(deadline, own)
        key = f"{run.run_id}:{call.id}"
        attempt = 1
        while True:
            invocation = ToolInvocation(call, descriptor, arguments, decoded, key, attempt, expected)
            outcome = await self._attempt(run, invocation, deadline)
            outcome = outcome.with_metadata(tool_attempt=str(attempt))
            if outcome.ok:
                return outcome
            compensated = False
            if outcome.compensation_required:
                compensated = await self._compensate(run, invocation, outcome)
                outcome = outcome.with_metadata(compensation_succeeded=str(compensated).lower())
                if not compensated:
                    return _not_retryable(outcome)
            delay = retry_delay(contract, outcome, attempt, compensated, self._draw())
            if delay is None:
                return outcome
            left = math.inf if deadline is None else deadline - time.monotonic()
            if left <= delay:
                message = f"tool {descriptor.name} could not be retried before its deadline"
                return ToolOutcome.failed(
                    ErrorCategory.TIMEOUT, ErrorCode.RETRY_DEADLINE, message
                ).with_metadata(tool_attempt=str(attempt))
            self._emit(ToolRetrying(call, attempt, delay, outcome))
            if delay > 0:
                await asyncio.wait({run.stopped}, timeout=delay)
            if run.cancel.cancelled:
                message = f"the call to tool {descriptor.name} was cancelled during its retry backoff"
                return ToolOutcome.failed(
                    ErrorCategory.CANCELLED, ErrorCode.CANCELLED, message, retryable=False
                )
            attempt += 1

    async def _compensate(self, run: _Run, invocation: ToolInvocation, failure: ToolOutcome) -> bool:
        settings = invocation.descriptor.contract.compensation
        provider = self._provider
        if not settings.enabled or not self._compensates or not isinstance(provider, CompensatingProvider):
            return False
        for _ in range(settings.max_attempts):
            deadline = run.deadline
            if settings.timeout is not None:
                own = time.monotonic() + settings.timeout
                deadline = own if deadline is None else min(deadline, own)
            outcome = await self._attempt(run, invocation, deadline, compensating=failure)
            self._emit(ToolCompensated(invocation.call, outcome))
            if outcome.ok:
                return True
        return False

    async def _attempt(
        self,
        run: _Run,
        invocation: ToolInvocation,
        deadline: float | None,
        *,
        compensating: ToolOutcome | None = None,
    ) -> ToolOutcome:
        """One attempt: the in-flight slot, the task, and the wait for its end, a deadline or a stop."""
        name = invocation.name
        if run.cancel.cancelled:
            message = f"the call to tool {name} was cancelled before it started"
            return ToolOutcome.failed(ErrorCategory.CANCELLED, ErrorCode.CANCELLED, message, retryable=False)
        with self._flight_lock:
            if self._in_flight >= self._max_in_flight:
                message = f"tool {name} cannot run now: too many calls are in flight; retry later"
                busy = ToolOutcome.failed(ErrorCategory.UNAVAILABLE, ErrorCode.CAPACITY_EXHAUSTED, message)
                return busy.with_metadata(tool_execution_capacity_exhausted="true")
            self._in_flight += 1
        contract = invocation.descriptor.contract
        heartbeat = contract.heartbeat if compensating is None else None
        beats = _Beats(self, invocation.call, heartbeat.minimum_interval if heartbeat else 0.0)
        context = InvocationContext(
            run.run_id,
            invocation.call_id,
            invocation.attempt,
            invocation.idempotency_key,
            deadline,
            run.metadata,
            _beat=beats.beat if heartbeat is not None and heartbeat.enabled else None,
        )
        invocation = evolve(invocation, context=context)
        if compensating is None:
            self._emit(ToolStarted(invocation.call, invocation.attempt))
            work = self._guarded(self._provider.invoke(invocation), name, "invoke")
        else:
            provider = self._provider
            assert isinstance(provider, CompensatingProvider)
            work = self._guarded(provider.compensate(invocation, compensating), name, "compensate")
        task = asyncio.ensure_future(work)
        task.add_done_callback(self._release)
        try:
            return await self._await_attempt(run, task, context, beats, heartbeat, deadline, name)
        except asyncio.CancelledError:  # the run itself was cancelled by its caller: stop the call too
            context.cancel()
            task.cancel()
            raise

    async def _await_attempt(
        self,
        run: _Run,
        task: asyncio.Future[ToolOutcome],
        context: InvocationContext,
        beats: _Beats,
        heartbeat: HeartbeatPolicy | None,
        deadline: float | None,
        name: str,
    ) -> ToolOutcome:
        limit = heartbeat.timeout if heartbeat is not None and heartbeat.enabled else None
        while True:
            wait = None if deadline is None else deadline - time.monotonic()
            if limit is not None:
                silent = time.monotonic() - beats.last
                wait = limit - silent if wait is None else min(wait, limit - silent)
            if wait is not None and wait <= 0 and not task.done():
                break
            watched: set[asyncio.Future[Any]] = {task, run.stopped}
            await asyncio.wait(watched, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
            beats.flush()
            if task.done():
                return task.result()
            if run.cancel.cancelled:
                break
        context.cancel()
        task.cancel()
        if run.cancel.cancelled:
            message = f"the call to tool {name} was cancelled"
            outcome = ToolOutcome.failed(
                ErrorCategory.CANCELLED, ErrorCode.CANCELLED, message, retryable=False
            )
        elif (
            limit is not None
            and time.monotonic() - beats.last >= limit
            and (deadline is None or time.monotonic() < deadline)
        ):
            message = f"tool {name} stopped reporting heartbeats and was abandoned"
            outcome = ToolOutcome.failed(ErrorCategory.TIMEOUT, ErrorCode.HEARTBEAT_TIMEOUT, message)
            outcome = outcome.with_metadata(heartbeat_timeout="true")
        else:
            message = f"tool {name} did not finish before its deadline"
            outcome = ToolOutcome.failed(ErrorCategory.TIMEOUT, ErrorCode.TIMEOUT, message)
        return outcome.with_metadata(late_result_discarded="true")

    def _release(self, _: object) -> None:
        with self._flight_lock:
            self._in_flight -= 1

    async def _guarded(self, work: Coroutine[Any, Any, object], name: str, step: str) -> ToolOutcome:
        """The provider's answer; any exception it raises becomes a sanitized outcome."""
        try:
            result = await work
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._log(exc, name, step)
            return outcome_for_exception(exc, name)
        if not isinstance(result, ToolOutcome):
            message = f"the provider of tool {name} returned something that is not a ToolOutcome"
            return ToolOutcome.failed(ErrorCategory.INTERNAL, ErrorCode.INTERNAL, message, retryable=False)
        return result

    def _log(self, exc: BaseException, name: str, step: str) -> None:
        if self._log_text:
            _LOG.warning("tool %s raised %s in %s: %s", name, type(exc).__name__, step, exc)
        else:
            _LOG.warning("tool %s raised %s in %s", name, type(exc).__name__, step)

    def _emit(self, event: RunEvent) -> None:
        if self._on_event is not None:
            self._on_event(event)


def _not_retryable(outcome: ToolOutcome) -> ToolOutcome:
    failure = outcome.failure
    return outcome if failure is None else evolve(outcome, failure=evolve(failure, retryable=False))


def _canonical_text(outcome: ToolOutcome, descriptor: ToolDescriptor | None) -> str:
    try:
        return outcome.model_text()
    except Exception:  # data that is no JSON value (a lone surrogate): say so instead
        name = "the tool" if descriptor is None else f"tool {descriptor.name}"
        failed = ToolOutcome.failed(
            ErrorCategory.INTERNAL,
            ErrorCode.NOT_JSON,
            f"{name} returned a result that is not JSON",
            retryable=False,
        )
        return failed.model_text()


class _Beats:
    """A call's heartbeats: liveness from any thread, events rate-limited and emitted on the loop."""

    def __init__(self, runner: Runner, call: ToolCall, interval: float) -> None:
        self.runner = runner
        self.call = call
        self.interval = interval
        self.last = time.monotonic()
        self.emitted = -math.inf
        self.pending: Heartbeat | None = None
        self.lock = threading.Lock()
        self.loop = asyncio.get_running_loop()

    def beat(self, heartbeat: Heartbeat) -> None:
        with self.lock:
            self.last = time.monotonic()
            progress = heartbeat.progress
            if progress is not None and not 0 <= progress <= 1:
                return
            if self.last - self.emitted < self.interval:
                return
            first = self.pending is None
            self.pending = heartbeat
            self.emitted = self.last
        if first:
            self.loop.call_soon_threadsafe(self.flush)

    def flush(self) -> None:
        with self.lock:
            pending, self.pending = self.pending, None
        if pending is not None:
            self.runner._emit(ToolHeartbeat(self.call, pending))


class _Portal:
    """An event loop on its own daemon thread, for the sync facade."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="llm_wire.agent", daemon=True)
        self.thread.start()

    def call(self, work: Coroutine[Any, Any, T]) -> T:
        future: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(work, self.loop)
        return future.result()

    def close(self, timeout: float | None) -> None:
        pending = asyncio.run_coroutine_threadsafe(_settled(timeout), self.loop).result()
        if pending:  # a straggler still runs: leave the daemon thread to it rather than destroy its task
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


async def _settled(timeout: float | None) -> int:
    """Wait for the loop's other tasks (abandoned stragglers) at most ``timeout``; how many remain."""
    others = {task for task in asyncio.all_tasks() if task is not asyncio.current_task()}
    if not others:
        return 0
    _, pending = await asyncio.wait(others, timeout=timeout)
    return len(pending)
