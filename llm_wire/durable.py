"""
Durable agent runs on DBOS (extra ``dbos``): a run survives a crash, a deploy or ``kill -9`` and resumes from
its last completed step, on this machine or another, without running a tool call that must not run twice.

``DurableAgent`` runs the tool loop as one DBOS workflow: each model round is a step and each tool call is a
step. Before a tool runs, its call is marked started in the ``RunStore``; after it, the full outcome is
admitted there, projected within the run's and the tool's ceilings, and the projection audited. When a
recovered workflow meets a call that was started but never admitted, the outcome is unknown: the call runs
again only when its contract makes that safe (``idempotent``, or ``idempotent_with_key`` with a provider that
consumes the key, always with the same key), and otherwise the model gets a typed ``outcome_unknown`` tool
message. A call already admitted is never run again: its stored outcome is replayed.

DBOS keeps its own state in SQLite by default (``sqlite:///path``; no server); PostgreSQL is the setting for
many workers. Configure and launch DBOS in the application; create every ``DurableAgent`` before
``DBOS.launch()``, which is when DBOS recovers the runs a dead worker left pending.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from attrs import frozen
from dbos import DBOS, SetWorkflowID, WorkflowHandle

from llm_wire import message
from llm_wire.agent import (
    Approval,
    ErrorCategory,
    Idempotency,
    ToolDescriptor,
    ToolOutcome,
    ToolProvider,
    invocation_for,
    outcome_for_exception,
    unknown_tool,
)
from llm_wire.agent.projection import (
    DEFAULT_POLICY,
    ProjectionPolicy,
    TokenEstimator,
    check_policy,
    project_outcome,
)
from llm_wire.agent.store import (
    AdmittedResult,
    ProjectionAudit,
    RunExists,
    RunRecord,
    RunResult,
    RunStatus,
    RunStore,
    StartedCall,
    StoreError,
    sha256_hex,
)
from llm_wire.message import AssistantTurn, Message, ToolCall, ToolResult
from llm_wire.result import Err, Ok, Result, unwrap
from llm_wire.tool import Tool

__all__ = [
    "OUTCOME_UNKNOWN",
    "DurableAgent",
    "DurableRunError",
    "Model",
    "is_safe_to_repeat",
    "outcome_unknown",
    "sqlite_config",
]

#: The failure code of a call whose earlier attempt ended without a recorded outcome.
OUTCOME_UNKNOWN = "outcome_unknown"


class Model(Protocol):
    """
    One model round: the conversation so far and the declared tools in, the assistant's turn out. It may run
    again for the same round after a crash, so give it the same answer for the same conversation.
    """

    def __call__(self, messages: tuple[Message, ...], tools: tuple[Tool, ...]) -> AssistantTurn:
        """The model's answer to ``messages``."""
        ...


class DurableRunError(Exception):
    """
    The run's record refused a write the workflow needed (another worker moved the run, or the record is
    unreadable); ``error`` is the store's typed error.
    """

    def __init__(self, error: StoreError) -> None:
        super().__init__(error.describe())
        self.error = error


def sqlite_config(name: str, path: str) -> dict[str, str]:
    """
    A ``DBOS(config=...)`` for an application ``name`` whose DBOS state lives in the SQLite file ``path``.
    """
    return {"name": name, "system_database_url": f"sqlite:///{path}", "log_level": "WARNING"}


def outcome_unknown(tool: str) -> ToolOutcome:
    """
    The tool message for a call whose earlier attempt was interrupted: it may or may not have taken effect,
    and it was not run again because repeating it is not safe.
    """
    message_text = (
        f"the call to tool {tool} was interrupted (the worker stopped) and its outcome is unknown; it was not"
        " run again because it is not idempotent. Check whether its effect happened before calling it again."
    )
    return ToolOutcome.failed(ErrorCategory.INTERNAL, OUTCOME_UNKNOWN, message_text, retryable=False)


def is_safe_to_repeat(descriptor: ToolDescriptor, consumes_key: bool) -> bool:
    """
    Whether a call may run again after an unknown outcome: the tool is idempotent, or idempotent with a key
    that its provider consumes.
    """
    idempotency = descriptor.contract.idempotency
    return idempotency is Idempotency.IDEMPOTENT or (
        idempotency is Idempotency.IDEMPOTENT_WITH_KEY and consumes_key
    )


def _ok(result: Result[object, StoreError]) -> None:
    if isinstance(result, Err):
        raise DurableRunError(result.error)


def _record(store: RunStore, run_id: str) -> RunRecord:
    match store.load(run_id):
        case Ok(record):
            return record
        case Err(error):
            raise DurableRunError(error)


def _call_json(call: ToolCall) -> str:
    return json.dumps({"id": call.id, "name": call.name, "arguments_json": call.arguments_json})


@frozen
class _Tools:
    """The provider's tools, indexed once."""

    descriptors: Mapping[str, ToolDescriptor]
    declared: tuple[Tool, ...]

    @classmethod
    def of(cls, provider: ToolProvider) -> _Tools:
        found = {descriptor.name: descriptor for descriptor in provider.descriptors()}
        return cls(found, tuple(descriptor.tool for descriptor in found.values()))


class DurableAgent:
    """
    A tool loop run as a DBOS workflow named ``name``: ``run(run_id, messages)`` starts it (or joins the run
    already under that id) and returns the final record. Creating an agent registers its workflow and
    steps with DBOS, so do it before ``DBOS.launch()`` in every process that may recover its runs.
    Raises ``ValueError`` when the policy fails preflight (its truncation envelopes do not fit under the
    estimator).
    """

    def __init__(
        self,
        name: str,
        *,
        provider: ToolProvider,
        model: Model,
        store: RunStore,
        policy: ProjectionPolicy = DEFAULT_POLICY,
        estimator: TokenEstimator | None = None,
        max_rounds: int = 8,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError("name must be a non-empty str")
        if not isinstance(max_rounds, int) or isinstance(max_rounds, bool) or max_rounds < 1:
            raise TypeError("max_rounds must be a positive int")
        if isinstance(preflight := check_policy(policy, estimator), Err):
            raise ValueError(f"DurableAgent: {preflight.error.describe()}")
        self.name = name
        self._provider = provider
        self._model = model
        self._store = store
        self._policy = policy
        self._estimator = estimator
        self._max_rounds = max_rounds
        self._tools = _Tools.of(provider)
        self._workflow = self._register()

    def __repr__(self) -> str:
        return f"<DurableAgent {self.name!r} ({len(self._tools.declared)} tools)>"

    # -----------------------------------------------------------------------------------------------------
    # The workflow and its steps

    def _register(self) -> Callable[[str, str], str]:
        # DBOS decorates plain functions, not bound methods: each step is a closure over this agent.
        def begin_step(run_id: str) -> str:
            return self._begin(run_id)

        def model_step(run_id: str, round_number: int, conversation: str) -> str:
            return self._model_round(run_id, round_number, conversation)

        def tool_step(run_id: str, call: str) -> str:
            return self._tool_call(run_id, call)

        def finish_step(run_id: str, status: str, content: str, stop_reason: str) -> str:
            return self._finish(run_id, status, content, stop_reason)

        begin = DBOS.step(name=f"{self.name}.begin")(begin_step)
        model_round = DBOS.step(name=f"{self.name}.model")(model_step)
        tool_call = DBOS.step(name=f"{self.name}.tool")(tool_step)
        finish = DBOS.step(name=f"{self.name}.finish")(finish_step)
        max_rounds = self._max_rounds

        def workflow(run_id: str, conversation: str) -> str:
            begin(run_id)
            history = unwrap(message.loads(conversation))
            for round_number in range(max_rounds):
                turn = unwrap(message.loads(model_round(run_id, round_number, message.dumps(history))))
                history = (*history, *turn)
                calls = turn[0].calls if turn and isinstance(turn[0], AssistantTurn) else ()
                if not calls:
                    text = turn[0].text if turn and isinstance(turn[0], AssistantTurn) else ""
                    return finish(run_id, "completed", text, "final_answer")
                for call in calls:
                    answer = json.loads(tool_call(run_id, _call_json(call)))
                    if "failed" in answer:
                        return finish(run_id, "failed", answer["failed"], "tool_output_projection_failed")
                    history = (
                        *history,
                        ToolResult(call.id, answer["content"], answer["is_error"], call.name),
                    )
            budget = "Agent tool round budget exceeded before producing a final answer."
            return finish(run_id, "failed", budget, "tool_round_budget_exceeded")

        registered: Callable[[str, str], str] = DBOS.workflow(name=f"{self.name}.run")(workflow)
        return registered

    def _begin(self, run_id: str) -> str:
        """Create the record (or find it, when this step ran before a crash) and move it to running."""
        created = self._store.create(run_id=run_id)
        if isinstance(created, Err) and not isinstance(created.error, RunExists):
            raise DurableRunError(created.error)
        record = _record(self._store, run_id)
        if record.status is RunStatus.CREATED:
            _ok(self._store.transition(run_id, record.revision, RunStatus.RUNNING))
        return run_id

    def _model_round(self, run_id: str, round_number: int, conversation: str) -> str:
        """One model call; DBOS keeps its answer, so a recovered run does not ask again."""
        history = unwrap(message.loads(conversation))
        turn = self._model(history, self._tools.declared)
        if not isinstance(turn, AssistantTurn):
            raise TypeError(f"the model must return an AssistantTurn, not {type(turn).__name__}")
        return message.dumps([turn])

    def _tool_call(self, run_id: str, call_json: str) -> str:
        """Run (or replay) one call, admit its outcome, project it and audit the projection."""
        raw = json.loads(call_json)
        call_id, name, arguments = raw["id"], raw["name"], raw["arguments_json"]
        descriptor = self._tools.descriptors.get(name)
        outcome = self._outcome(run_id, call_id, name, arguments, descriptor)
        record = _record(self._store, run_id)
        key = f"{run_id}:{call_id}"
        match self._store.admit(run_id, record.revision, AdmittedResult(call_id, key, name, outcome)):
            case Err(error):
                raise DurableRunError(error)
            case Ok(admission):
                kept = admission.admitted.outcome if admission.admitted is not None else outcome
        match project_outcome(kept, self._policy, self._estimator, descriptor=descriptor):
            case Err(failure):
                return json.dumps({"failed": failure.describe()})
            case Ok(projected):
                pass
        audit = ProjectionAudit(call_id, name, sha256_hex(projected.text), projected.report)
        _ok(self._store.record_projection(run_id, admission.record.revision, audit))
        return json.dumps({"content": projected.text, "is_error": not kept.ok})

    def _outcome(
        self, run_id: str, call_id: str, name: str, arguments: str, descriptor: ToolDescriptor | None
    ) -> ToolOutcome:
        record = _record(self._store, run_id)
        earlier = record.admitted.get(call_id)
        if earlier is not None:
            return earlier.outcome  # admitted before the crash: replay, never run again
        if descriptor is None:
            return unknown_tool(list(self._tools.descriptors))
        if descriptor.contract.approval is not Approval.NEVER:
            return ToolOutcome.failed(
                ErrorCategory.PERMISSION_DENIED,
                "approval_unsupported",
                f"tool {name} needs approval, which durable runs do not offer yet; it was not run",
            )
        match invocation_for(descriptor, arguments, call_id=call_id, run_id=run_id):
            case Err(refused):
                return refused
            case Ok(invocation):
                pass
        started = StartedCall(call_id, invocation.idempotency_key, name)
        match self._store.start_call(run_id, record.revision, started):
            case Err(error):
                raise DurableRunError(error)
            case Ok(mark):
                pass
        if mark.duplicate:
            # Started before a crash and never admitted: it may have taken effect.
            capabilities = self._provider.capabilities(name)
            consumes_key = capabilities is not None and capabilities.idempotency_key
            if not is_safe_to_repeat(descriptor, consumes_key):
                return outcome_unknown(name)
        try:
            return asyncio.run(self._provider.invoke(invocation))
        except Exception as error:  # a provider that raised: the tool failed, the run goes on
            return outcome_for_exception(error, name)

    def _finish(self, run_id: str, status: str, content: str, stop_reason: str) -> str:
        """Move the record to its terminal status (once: a step re-run after a crash finds it there)."""
        record = _record(self._store, run_id)
        if not record.status.terminal:
            ended = RunResult(content, stop_reason)
            _ok(self._store.transition(run_id, record.revision, RunStatus(status), result=ended))
        return status

    # -----------------------------------------------------------------------------------------------------
    # Driving runs

    def start(self, run_id: str, messages: Sequence[Message]) -> WorkflowHandle[str]:
        """Start the run ``run_id`` (the DBOS workflow id); starting an id again joins the existing run."""
        if not isinstance(run_id, str) or not run_id:
            raise TypeError("run_id must be a non-empty str")
        with SetWorkflowID(run_id):
            return DBOS.start_workflow(self._workflow, run_id, message.dumps(list(messages)))

    def run(self, run_id: str, messages: Sequence[Message]) -> RunRecord:
        """Start (or join) the run and wait for it; returns its final record."""
        self.start(run_id, messages).get_result(polling_interval_sec=0.05)
        return _record(self._store, run_id)

    def wait(self, run_id: str) -> RunRecord:
        """Wait for a run that another process started (DBOS recovers it at launch); its final record."""
        handle: WorkflowHandle[str] = DBOS.retrieve_workflow(run_id)
        handle.get_result(polling_interval_sec=0.05)
        return _record(self._store, run_id)
