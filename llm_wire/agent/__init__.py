"""
Typed tools under contracts: ``llm_wire.agent``.

A typed tool is an attrs class or dataclass whose fields are its arguments and whose ``invoke`` does the
work (``make_tool``; plain functions with ``function_tool``). A ``ToolDescriptor`` pairs the model-visible
``Tool`` with its ``ToolContract`` (side effect, idempotency, approval, timeout, retries, output schema...),
refused when it is made or registered if it cannot be honoured. Providers (``ToolProvider``: ``reflect``,
``compose``, ``scope``) run ``ToolInvocation``s and answer with a ``ToolOutcome``, whose canonical JSON is
what the model sees. The ``Runner`` loops a model (``complete(prepared) -> Outcome``) and a provider until
the model answers, and ends with a ``RunResult`` whose ``StopReason`` says why.

Beside this face: ``llm_wire.agent.events`` (what a run reports and what its approvers are asked),
``llm_wire.agent.steps`` (the sans-I/O steps, for a driver of your own), ``llm_wire.agent.scripted`` (a
scripted model for tests), ``llm_wire.agent.projection`` (a tool's text bounded in bytes and tokens) and
``llm_wire.agent.store`` (durable run records).

The names load on first use (``_face.FACE`` lists them by home module), so ``import llm_wire.agent`` costs
little and a program loads the parts it uses: a tool's declaration without the runner, the runner without
the run store.

::

    ToolOutcome(content, data, failure, artifacts, ...)
    └── ToolFailure(category: ErrorCategory, code, message, retryable, details)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llm_wire import _public
from llm_wire.agent._face import FACE as _FACE
from llm_wire.agent._face import OLD as _OLD

__all__ = [name for names in _FACE.values() for name in names]

if TYPE_CHECKING:  # what mypy reads (``X as X`` re-exports X)
    from llm_wire.agent._descriptor import Approval as Approval
    from llm_wire.agent._descriptor import Capability as Capability
    from llm_wire.agent._descriptor import Compensation as Compensation
    from llm_wire.agent._descriptor import HeartbeatPolicy as HeartbeatPolicy
    from llm_wire.agent._descriptor import Idempotency as Idempotency
    from llm_wire.agent._descriptor import OutputCeilings as OutputCeilings
    from llm_wire.agent._descriptor import OutputValidation as OutputValidation
    from llm_wire.agent._descriptor import ProviderCapabilities as ProviderCapabilities
    from llm_wire.agent._descriptor import ResourceVersion as ResourceVersion
    from llm_wire.agent._descriptor import Risk as Risk
    from llm_wire.agent._descriptor import SideEffect as SideEffect
    from llm_wire.agent._descriptor import ToolContract as ToolContract
    from llm_wire.agent._descriptor import ToolDescriptor as ToolDescriptor
    from llm_wire.agent._descriptor import ToolRetryPolicy as ToolRetryPolicy
    from llm_wire.agent._hooks import HostHookError as HostHookError
    from llm_wire.agent._invocation import InvocationContext as InvocationContext
    from llm_wire.agent._invocation import ToolInvocation as ToolInvocation
    from llm_wire.agent._old import abandoned_outcome as abandoned_outcome
    from llm_wire.agent._old import category_for_exception as category_for_exception
    from llm_wire.agent._old import category_for_status as category_for_status
    from llm_wire.agent._old import describe as describe
    from llm_wire.agent._old import descriptor_from_json_schema as descriptor_from_json_schema
    from llm_wire.agent._old import invalid_arguments as invalid_arguments
    from llm_wire.agent._old import invocation_for as invocation_for
    from llm_wire.agent._old import outcome_for_exception as outcome_for_exception
    from llm_wire.agent._old import outcome_unknown as outcome_unknown
    from llm_wire.agent._old import project as project
    from llm_wire.agent._old import project_outcome as project_outcome
    from llm_wire.agent._old import redact as redact
    from llm_wire.agent._old import retry_advice as retry_advice
    from llm_wire.agent._old import unknown_tool as unknown_tool
    from llm_wire.agent._providers import CompensatingProvider as CompensatingProvider
    from llm_wire.agent._providers import ToolProvider as ToolProvider
    from llm_wire.agent._providers import compose as compose
    from llm_wire.agent._providers import reflect as reflect
    from llm_wire.agent._providers import scope as scope
    from llm_wire.agent._runner import Runner as Runner
    from llm_wire.agent._steps import RunResult as RunResult
    from llm_wire.agent._steps import StopReason as StopReason
    from llm_wire.agent._tool_outcome import ErrorCategory as ErrorCategory
    from llm_wire.agent._tool_outcome import ErrorCode as ErrorCode
    from llm_wire.agent._tool_outcome import ToolFailure as ToolFailure
    from llm_wire.agent._tool_outcome import ToolOutcome as ToolOutcome
    from llm_wire.agent._typed import TypedTool as TypedTool
    from llm_wire.agent._typed import function_tool as function_tool
    from llm_wire.agent._typed import invoke_typed_tool as invoke_typed_tool
    from llm_wire.agent._typed import make_tool as make_tool
    from llm_wire.agent._typed import parse_tool_arguments as parse_tool_arguments
    from llm_wire.agent._usage import RunUsage as RunUsage
    from llm_wire.agent.events import ApprovalRequest as ApprovalRequest
    from llm_wire.agent.events import ApprovalRequested as ApprovalRequested
    from llm_wire.agent.events import Heartbeat as Heartbeat
    from llm_wire.agent.events import ModelCompleted as ModelCompleted
    from llm_wire.agent.events import ModelRequest as ModelRequest
    from llm_wire.agent.events import ModelStarted as ModelStarted
    from llm_wire.agent.events import RunEvent as RunEvent
    from llm_wire.agent.events import ToolCompensated as ToolCompensated
    from llm_wire.agent.events import ToolCompleted as ToolCompleted
    from llm_wire.agent.events import ToolHeartbeat as ToolHeartbeat
    from llm_wire.agent.events import ToolOutputProjectionFailed as ToolOutputProjectionFailed
    from llm_wire.agent.events import ToolOutputTruncated as ToolOutputTruncated
    from llm_wire.agent.events import ToolRetrying as ToolRetrying
    from llm_wire.agent.events import ToolStarted as ToolStarted
    from llm_wire.agent.events import Verdict as Verdict
    from llm_wire.agent.projection import HeuristicEstimator as HeuristicEstimator
    from llm_wire.agent.projection import OutputProjectionError as OutputProjectionError
    from llm_wire.agent.projection import ProjectedOutput as ProjectedOutput
    from llm_wire.agent.projection import ProjectionPolicy as ProjectionPolicy
    from llm_wire.agent.projection import ProjectionReport as ProjectionReport
    from llm_wire.agent.projection import TokenEstimator as TokenEstimator
    from llm_wire.agent.projection import projector as projector
    from llm_wire.agent.scripted import ScriptedCall as ScriptedCall
    from llm_wire.agent.scripted import ScriptedClient as ScriptedClient
    from llm_wire.agent.scripted import ScriptedReply as ScriptedReply
    from llm_wire.agent.scripted import ScriptError as ScriptError
    from llm_wire.agent.scripted import call as call
    from llm_wire.agent.scripted import reply as reply
    from llm_wire.agent.steps import AsyncModel as AsyncModel
    from llm_wire.agent.steps import CallModel as CallModel
    from llm_wire.agent.steps import CallRecord as CallRecord
    from llm_wire.agent.steps import Cancellation as Cancellation
    from llm_wire.agent.steps import Finish as Finish
    from llm_wire.agent.steps import Model as Model
    from llm_wire.agent.steps import Planned as Planned
    from llm_wire.agent.steps import Recovery as Recovery
    from llm_wire.agent.steps import RunSteps as RunSteps
    from llm_wire.agent.steps import RunTools as RunTools
    from llm_wire.agent.steps import Step as Step
    from llm_wire.agent.steps import SyncModel as SyncModel
    from llm_wire.agent.steps import in_thread as in_thread
else:
    __getattr__, __dir__ = _public.lazy_face(
        __name__,
        {name: home for table in (_FACE, _OLD) for home, names in table.items() for name in names},
        globals(),
        submodules=("events", "projection", "scripted", "steps", "store"),
    )
