"""
The durable runner: a ``Runner`` whose model calls and tool attempts are DBOS steps, with every outcome in a
run store.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
import time
from collections.abc import Awaitable, Collection, Mapping, Sequence
from decimal import Decimal
from typing import Any

from attrs import evolve
from dbos import DBOS, DBOSConfig, SetWorkflowID

from llm_wire import message
from llm_wire._request import Config, Prepared, request
from llm_wire.agent import (
    CompensatingProvider,
    Runner,
    RunUsage,
    StopReason,
    ToolDescriptor,
    ToolInvocation,
    ToolOutcome,
    ToolProvider,
)
from llm_wire.agent import RunResult as AgentResult
from llm_wire.agent._usage import Pricing as _Pricing
from llm_wire.agent.events import ToolCompleted, ToolOutputProjectionFailed
from llm_wire.agent.projection import (
    OutputProjectionError,
    ProjectedOutput,
    ProjectionPolicy,
    ProjectionReport,
    TokenEstimator,
    check_policy,
    project_tool_outcome,
)
from llm_wire.agent.projection._types import DEFAULT_POLICY as _DEFAULT_POLICY
from llm_wire.agent.steps import Model as AgentModel
from llm_wire.agent.steps import in_thread
from llm_wire.agent.store import (
    Admission,
    AdmittedResult,
    ApprovalDecision,
    ProjectionAudit,
    RevisionConflict,
    RunExists,
    RunRecord,
    RunStatus,
    RunStore,
    StartedCall,
    StoredResult,
    StoreError,
    Suspended,
    UnreadableRecord,
)
from llm_wire.agent.store._rules import sha256_hex as _sha256_hex
from llm_wire.durable._records import (
    _CARRIED,
    _START,
    _STOPPED,
    DurableRunError,
    _Carried,
    _outcome_of,
    _Start,
    _start_of,
    _Stopped,
    _stopped_of,
    _terminal_value,
    _tool_outcome_of,
    _tool_step_value,
)
from llm_wire.message import Message, ToolCall
from llm_wire.outcome import Outcome
from llm_wire.result import Err, Ok, Result, unwrap
from llm_wire.value import Value

__all__ = ["DurableRunner", "sqlite_config"]


def sqlite_config(name: str, path: str) -> DBOSConfig:
    """A ``DBOS(config=...)`` for application ``name`` whose DBOS state lives in the SQLite file ``path``."""
    return {"name": name, "system_database_url": f"sqlite:///{path}", "log_level": "WARNING"}


def _checked(result: Result[Any, StoreError]) -> Any:
    match result:
        case Ok(value):
            return value
        case Err(error):
            raise DurableRunError(error)


async def _awaited(pending: Awaitable[Outcome]) -> Outcome:
    return await pending


class _Execution:
    """
    What one execution of a run's workflow knows of its record from its own writes: the head it last wrote
    or read (``record``) and the calls admitted so far. Every write names the revision it last saw and the
    store refuses a stale one (``RevisionConflict``); on that refusal, and only then, the record is read
    again and the write repeated, so a round reads its record once instead of before every write.
    """

    def __init__(self, record: RunRecord) -> None:
        self._lock = threading.Lock()
        self.record = record
        self.admitted = dict(record.admitted)

    def saw(self, record: RunRecord) -> None:
        """Keep ``record`` if it is newer than the one known (an abandoned attempt may report late)."""
        with self._lock:
            if record.revision >= self.record.revision:
                self.record = record

    def read(self, record: RunRecord) -> RunRecord:
        """A whole record just read: known from now on, admissions included."""
        with self._lock:
            self.record = record
            self.admitted.update(record.admitted)
        return record


#: The execution of the workflow running in this context (its tool steps run on threads of their own).
_EXECUTION: contextvars.ContextVar[_Execution | None] = contextvars.ContextVar(
    "llm_wire_durable_execution", default=None
)


class _StepModel:
    """The runner's model: every call goes through the workflow's model step."""

    def __init__(self, step: Any) -> None:
        self._step = step

    def complete(self, prepared: Prepared) -> Outcome:
        return _outcome_of(self._step(prepared), prepared)


def _as_seen(outcome: ToolOutcome, invocation: ToolInvocation, *, watched: bool) -> ToolOutcome:
    """
    The attempt's outcome as the runner saw it, which DBOS records as the step's: an answer after the
    deadline, or after the runner abandoned a ``watched`` call whose heartbeats stopped, is the abandonment
    the runner reported, so a recovered run that replays the step instantly is told the same.
    """
    context = invocation.context
    if context.deadline is not None and time.monotonic() > context.deadline:
        return ToolOutcome.abandoned(invocation.name)
    if watched and context.cancelled and invocation.descriptor.contract.heartbeat.enabled:
        return ToolOutcome.abandoned(invocation.name, heartbeat=True)
    return outcome


class _StepProvider:
    """The runner's provider: every attempt goes through the workflow's tool step."""

    def __init__(self, inner: ToolProvider, step: Any) -> None:
        self._inner = inner
        self._step = step

    def descriptors(self) -> Sequence[ToolDescriptor]:
        return self._inner.descriptors()

    def capabilities(self, name: str) -> Any:
        return self._inner.capabilities(name)

    async def invoke(self, invocation: ToolInvocation) -> ToolOutcome:
        recorded: Value | ToolOutcome = await in_thread(self._step, invocation)
        return _tool_outcome_of(recorded, invocation.name)


class _CompensatingStepProvider(_StepProvider):
    """The step provider of a provider that compensates: each compensation is a step too."""

    def __init__(self, inner: ToolProvider, step: Any, compensate_step: Any) -> None:
        super().__init__(inner, step)
        self._compensate_step = compensate_step

    async def compensate(self, invocation: ToolInvocation, failure: ToolOutcome) -> ToolOutcome:
        recorded: Value | ToolOutcome = await in_thread(self._compensate_step, invocation, failure)
        return _tool_outcome_of(recorded, invocation.name)


# ---------------------------------------------------------------------------------------------------------
# The durable runner


class DurableRunner:
    """
    ``Runner(model, config, provider, **options)`` run as the DBOS workflow ``name``, with every outcome in
    ``store``. ``run(run_id, messages)`` starts a run (or joins the one under that id) and returns its final
    record, or a ``Suspended`` when an approver asked for manual review; ``resume`` continues it;
    ``enqueue`` leaves a run to whichever worker takes it from the runner's queue. Make it
    before ``DBOS.launch()`` in every process that may recover its runs. Raises ``ValueError`` for a
    projection policy that fails preflight under ``estimator`` (before any model call), and for
    ``parallel=True`` (a replayed run must call its steps in the same order).
    """

    def __init__(
        self,
        name: str,
        model: AgentModel,
        config: Config,
        provider: ToolProvider,
        *,
        store: RunStore,
        policy: ProjectionPolicy = _DEFAULT_POLICY,
        estimator: TokenEstimator | None = None,
        **options: Any,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError("name must be a non-empty str")
        if options.get("parallel"):
            raise ValueError("DurableRunner runs calls in order: parallel=True would make replays diverge")
        if isinstance(preflight := check_policy(policy, estimator), Err):
            raise ValueError(f"DurableRunner: {preflight.error.describe()}")
        self.name = name
        self._model = model
        self._provider = provider
        self._store = store
        self._policy = policy
        self._estimator = estimator
        self._descriptors = {d.name: d for d in provider.descriptors()}
        self._reports: dict[str, ProjectionReport] = {}
        self._lock = threading.Lock()
        self._current = threading.local()
        hook = options.pop("on_event", None)
        self._on_event = hook
        pricing: _Pricing | None = options.pop("pricing", None)
        if pricing is not None and not callable(pricing):
            raise TypeError(f"pricing must be callable, not {type(pricing).__name__}")
        self._pricing = pricing

        # DBOS decorates plain functions, not bound methods: each step is a closure over this runner.
        def model_round(prepared: Prepared) -> Value:
            return self._model_step(prepared)

        def tool_attempt(invocation: ToolInvocation) -> Value:
            return _tool_step_value(self._tool_step(invocation))

        def workflow(run_id: str, start: Value, *earlier: Any) -> Value:
            # ``earlier``: the inputs by position of a run an earlier version started (``_start_of``).
            return unwrap(_STOPPED.encode(self._run_workflow(run_id, _start_of(start, earlier))))

        def compensation(invocation: ToolInvocation, failure: ToolOutcome) -> Value:
            assert isinstance(provider, CompensatingProvider)
            compensated = asyncio.run(provider.compensate(invocation, failure))
            return _tool_step_value(_as_seen(compensated, invocation, watched=False))

        model_step = DBOS.step(name=f"{name}.model")(model_round)
        tool_step = DBOS.step(name=f"{name}.tool")(tool_attempt)
        stepped: _StepProvider = _StepProvider(provider, tool_step)
        if isinstance(provider, CompensatingProvider):
            compensate_step = DBOS.step(name=f"{name}.compensate")(compensation)
            stepped = _CompensatingStepProvider(provider, tool_step, compensate_step)
        self._runner = Runner(
            _StepModel(model_step),
            config,
            stepped,
            project_output=self._project,
            on_event=self._event,
            **options,
        )
        self._workflow = DBOS.workflow(name=f"{name}.run")(workflow)
        #: The DBOS queue ``enqueue`` puts runs on, which every worker of the runner serves.
        self.queue_name = f"{name}.runs"

    def __repr__(self) -> str:
        return f"<DurableRunner {self.name!r} ({len(self._descriptors)} tools)>"

    # -- steps -----------------------------------------------------------------------------------------

    def _model_step(self, prepared: Prepared) -> Value:
        """One model round; DBOS keeps the response, so a recovered run does not ask again."""
        answer = self._model.complete(prepared)
        outcome: Outcome = asyncio.run(_awaited(answer)) if inspect.isawaitable(answer) else answer
        return _terminal_value(outcome, prepared)

    def _tool_step(self, invocation: ToolInvocation) -> ToolOutcome:
        """One attempt: replay an admitted outcome, refuse an unsafe repeat, or mark the call and run it."""
        run_id, call_id, name = invocation.context.run_id, invocation.call_id, invocation.name
        execution = _EXECUTION.get() or _Execution(_checked(self._store.load(run_id)))
        earlier = execution.admitted.get(call_id)
        if earlier is not None:
            return earlier.outcome
        started = StartedCall(call_id, invocation.idempotency_key, name, invocation.attempt)
        marked = self._store.start_call(run_id, execution.record.revision, started)
        if isinstance(marked, Err) and isinstance(marked.error, RevisionConflict):
            record = execution.read(_checked(self._store.load(run_id)))
            earlier = record.admitted.get(call_id)
            if earlier is not None:
                return earlier.outcome
            marked = self._store.start_call(run_id, record.revision, started)
        mark: Admission = _checked(marked)
        execution.saw(mark.record)
        if mark.duplicate:  # this attempt started before a crash and never ended: it may have taken effect
            if mark.admitted is not None:  # admitted meanwhile (by another execution): its outcome stands
                return mark.admitted.outcome
            capabilities = self._provider.capabilities(name)
            consumes_key = capabilities is not None and capabilities.idempotency_key
            if not invocation.descriptor.contract.is_repeatable(consumes_key=consumes_key):
                return ToolOutcome.unknown(name)
        return _as_seen(asyncio.run(self._provider.invoke(invocation)), invocation, watched=True)

    # -- runner hooks ----------------------------------------------------------------------------------

    def _project(
        self, outcome: ToolOutcome, descriptor: ToolDescriptor | None
    ) -> ProjectedOutput | OutputProjectionError:
        policy = getattr(self._current, "policy", self._policy)
        match project_tool_outcome(outcome, policy, self._estimator, descriptor=descriptor):
            case Err(error):
                return error  # the run ends (tool_output_projection_failed); the raw result is admitted
            case Ok(projected):
                with self._lock:
                    self._reports[_sha256_hex(projected.text)] = projected.report
                return projected

    def _event(self, event: Any) -> None:
        if isinstance(event, ToolCompleted):
            self._admit(self._current.run_id, event.call, event.outcome, event.message)
        elif isinstance(event, ToolOutputProjectionFailed):
            self._admit(self._current.run_id, event.call, event.outcome, None)
        if self._on_event is not None:
            self._on_event(event)

    def _admit(self, run_id: str, call: ToolCall, outcome: ToolOutcome, message: str | None) -> None:
        """
        Admit the final outcome and audit what the model saw (both idempotent: a replay repeats them); an
        outcome that could not be projected (``message`` ``None``) is admitted with no audit.
        """
        execution = self._current.execution
        admitted = AdmittedResult(call.id, f"{run_id}:{call.id}", call.name, outcome)
        admission: Admission = _checked(
            self._written(execution, lambda r: self._store.admit(run_id, r.revision, admitted))
        )
        execution.saw(admission.record)
        execution.admitted[call.id] = admission.admitted or admitted
        if message is None:
            return
        sha = _sha256_hex(message)
        with self._lock:
            report = self._reports.pop(sha, None)
        if report is not None:
            audit = ProjectionAudit(call.id, call.name, sha, report)
            audited = _checked(self._store.record_projection(run_id, admission.record.revision, audit))
            execution.saw(audited.record)

    def _written(self, execution: _Execution, write: Any) -> Result[Any, StoreError]:
        """
        ``write(record)`` against the record last known; when the run moved on since (another execution
        wrote), the record is read again and the write repeated once against it, as a fresh read would.
        """
        written: Result[Any, StoreError] = write(execution.record)
        if isinstance(written, Err) and isinstance(written.error, RevisionConflict):
            written = write(execution.read(_checked(self._store.load(execution.record.run_id))))
        return written

    # -- the workflow ----------------------------------------------------------------------------------

    def _run_workflow(self, run_id: str, start: _Start) -> _Stopped:
        execution = _Execution(self._begin(run_id))
        self._current.execution = execution
        self._current.run_id = run_id
        self._current.policy = start.policy
        messages = unwrap(message.loads(start.conversation))
        entered = _EXECUTION.set(execution)
        try:
            result = asyncio.run(
                self._runner.arun(
                    request(start.model_name, messages),
                    run_id=run_id,
                    approved=list(start.approved),
                    trace_id=execution.record.trace_id,
                )
            )
        finally:
            _EXECUTION.reset(entered)
        return self._end(execution, result, start.carried)

    def _begin(self, run_id: str) -> RunRecord:
        """
        Create the record and move it to running, unless an earlier attempt or a claim already did; the
        record as it then is (whole when it existed before).
        """
        created = self._store.create(run_id=run_id)
        if isinstance(created, Err) and not isinstance(created.error, RunExists):
            raise DurableRunError(created.error)
        record: RunRecord = created.value if isinstance(created, Ok) else _checked(self._store.load(run_id))
        if record.status is RunStatus.CREATED:
            moved: RunRecord = _checked(self._store.transition(run_id, record.revision, RunStatus.RUNNING))
            return evolve(moved, admitted=record.admitted)
        return record

    def _end(self, execution: _Execution, result: AgentResult, carried: Mapping[str, int]) -> _Stopped:
        """Move the record to where the run stopped (once: a replay finds it there), or suspend it."""
        if execution.record.status is not RunStatus.RUNNING:
            execution.read(_checked(self._store.load(execution.record.run_id)))
        record = execution.record
        if record.status is not RunStatus.RUNNING:
            return _Stopped(record.status)
        run_id = record.run_id
        # Usage adds up across suspensions: the part before each resume travels in the continuation.
        total = RunUsage.from_counts(carried).plus(result.total_usage)
        usage = {**total.counts(), "rounds": carried.get("rounds", 0) + result.rounds}
        if result.stop is StopReason.APPROVAL_REQUIRED and result.pending is not None:
            asked = result.detail.get("tool_call_id")
            pending = tuple((c.id, c.name) for c in result.pending.calls if c.id == asked)
            conversation = message.dumps(list(result.resume_request().messages))
            # The suspended round runs again on resume, and counts again there.
            state = unwrap(_CARRIED.encode(_Carried(conversation, {**usage, "rounds": usage["rounds"] - 1})))
            policy = self._current.policy
            match self._written(
                execution, lambda r: self._store.suspend(run_id, r.revision, pending, state, policy)
            ):
                case Ok(suspended):
                    return _Stopped(RunStatus.WAITING_FOR_APPROVAL, suspended.token)
                case Err(error):
                    return self._stopped_elsewhere(execution, error)
        status = _STATUS_OF.get(result.stop, RunStatus.FAILED)
        # Priced once, on the whole run's usage.
        cost = None if self._pricing is None else self._pricing(total)
        if cost is not None and not isinstance(cost, Decimal):
            raise TypeError(f"pricing must return a Decimal or None, not {type(cost).__name__}")
        ended = StoredResult(result.text, result.stop.value, dict(result.detail), usage, cost)
        match self._written(
            execution, lambda r: self._store.transition(run_id, r.revision, status, result=ended)
        ):
            case Ok():
                return _Stopped(status)
            case Err(error):
                return self._stopped_elsewhere(execution, error)

    def _stopped_elsewhere(self, execution: _Execution, error: StoreError) -> _Stopped:
        """
        A final write refused: when the run is no longer running (an earlier execution stopped it, and this
        one replays), where it stopped; otherwise the refusal is the run's error.
        """
        record = execution.read(_checked(self._store.load(execution.record.run_id)))
        if record.status is not RunStatus.RUNNING:
            return _Stopped(record.status)
        raise DurableRunError(error)

    # -- driving runs ----------------------------------------------------------------------------------

    def run(self, run_id: str, model_name: str, messages: Sequence[Message]) -> RunRecord | Suspended:
        """Start (or join) the run ``run_id`` (the DBOS workflow id) and wait for it."""
        if not isinstance(run_id, str) or not run_id:
            raise TypeError("run_id must be a non-empty str")
        start = _Start(model_name, message.dumps(list(messages)), self._policy)
        return self._outcome(run_id, self._started(run_id, run_id, start))

    def enqueue(self, run_id: str, model_name: str, messages: Sequence[Message]) -> None:
        """
        Put the run ``run_id`` on the DBOS queue ``queue_name`` and return: any launched process that made
        this runner picks it up (``wait`` waits for it). A queue no process registered is registered with at
        most 4 runs at once per worker, polled every 0.2 s (``DBOS.register_queue`` sets other limits).
        """
        if not isinstance(run_id, str) or not run_id:
            raise TypeError("run_id must be a non-empty str")
        queue = DBOS.retrieve_queue(self.queue_name) or DBOS.register_queue(
            self.queue_name, worker_concurrency=4, polling_interval_sec=0.2, on_conflict="never_update"
        )
        start = _Start(model_name, message.dumps(list(messages)), self._policy)
        with SetWorkflowID(run_id):
            queue.enqueue(self._workflow, run_id, unwrap(_START.encode(start)))

    def wait(self, run_id: str) -> RunRecord | Suspended:
        """Wait for a run another process started or enqueued (DBOS recovers it at launch)."""
        return self._outcome(run_id, DBOS.retrieve_workflow(run_id).get_result(polling_interval_sec=0.05))

    def resume(
        self,
        run_id: str,
        token: str,
        model_name: str,
        *,
        approve: Collection[str] = (),
        deny: Collection[str] = (),
        policy: ProjectionPolicy | None = None,
    ) -> RunRecord | Suspended:
        """
        Resolve the pending approvals of a suspended run (a denial fails it), claim it and run on. The run
        keeps the projection policy it was suspended with, tightened (never widened) by ``policy``; raises
        ``ValueError`` when that fails preflight.
        """
        record: RunRecord = _checked(self._store.load(run_id))
        if policy is not None and record.continuation is not None:
            tightened = record.continuation.policy.tighten(
                max_bytes=policy.max_bytes, max_tokens=policy.max_tokens
            )
            if isinstance(preflight := check_policy(tightened, self._estimator), Err):
                raise ValueError(f"DurableRunner.resume: {preflight.error.describe()}")
        store = self._store
        for call_id in deny:  # one denial fails the run
            denied: RunRecord = _checked(
                store.resolve_approval(run_id, record.revision, token, call_id, approved=False)
            )
            return denied
        for call_id in approve:
            record = _checked(store.resolve_approval(run_id, record.revision, token, call_id, approved=True))
        record = _checked(self._store.claim(run_id, record.revision, token))
        continuation = record.continuation
        assert continuation is not None
        approved = sorted(
            a.call_id for a in record.approvals.values() if a.decision is ApprovalDecision.APPROVED
        )
        match _CARRIED.decode(continuation.state):
            case Err():
                raise DurableRunError(UnreadableRecord("the continuation is not one this runner wrote"))
            case Ok(carried):
                pass
        effective = continuation.policy
        if policy is not None:
            effective = effective.tighten(max_bytes=policy.max_bytes, max_tokens=policy.max_tokens)
        start = _Start(model_name, carried.conversation, effective, tuple(approved), carried.usage)
        return self._outcome(run_id, self._started(f"{run_id}/resume-{record.revision}", run_id, start))

    def _started(self, workflow_id: str, run_id: str, start: _Start) -> Value:
        """
        The output of the workflow ``workflow_id`` running ``start``: run on this thread (DBOS records it as
        it would on its own threads, and waits instead for a run already going elsewhere), or on a DBOS
        thread when this one has an event loop running, which the workflow's own loop cannot share.
        """
        with SetWorkflowID(workflow_id):
            if _loop_running():
                handle = DBOS.start_workflow(self._workflow, run_id, unwrap(_START.encode(start)))
                return handle.get_result(polling_interval_sec=0.05)
            output: Value = self._workflow(run_id, unwrap(_START.encode(start)))
            return output

    def _outcome(self, run_id: str, output: Value) -> RunRecord | Suspended:
        """The run's record after its workflow ended, or its suspension when the workflow left it waiting."""
        record: RunRecord = _checked(self._store.load(run_id))
        ended = _stopped_of(output)
        if ended is not None and ended.status is RunStatus.WAITING_FOR_APPROVAL and ended.token:
            return Suspended(record, ended.token)
        return record


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


_STATUS_OF = {
    StopReason.ANSWERED: RunStatus.COMPLETED,
    StopReason.CANCELLED: RunStatus.CANCELLED,
    StopReason.DEADLINE: RunStatus.TIMED_OUT,
}
