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

::

    ToolOutcome(content, data, failure, artifacts, ...)
    └── ToolFailure(category: ErrorCategory, code, message, retryable, details)
"""

from __future__ import annotations

from llm_wire import _deprecated, _public
from llm_wire import tool as _tool
from llm_wire.agent._descriptor import (
    Approval,
    Capability,
    Compensation,
    HeartbeatPolicy,
    Idempotency,
    OutputCeilings,
    OutputValidation,
    ProviderCapabilities,
    ResourceVersion,
    Risk,
    SideEffect,
    ToolContract,
    ToolDescriptor,
    ToolRetryPolicy,
)
from llm_wire.agent._invocation import InvocationContext, ToolInvocation
from llm_wire.agent._providers import CompensatingProvider, ToolProvider, compose, reflect, scope
from llm_wire.agent._runner import HostHookError, Runner
from llm_wire.agent._steps import RunResult, StopReason
from llm_wire.agent._tool_outcome import ErrorCategory, ErrorCode, ToolFailure, ToolOutcome
from llm_wire.agent._typed import TypedTool, function_tool, invoke_typed_tool, make_tool, parse_tool_arguments
from llm_wire.agent._usage import RunUsage

# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
from llm_wire.agent.events import (  # noqa: F401
    ApprovalRequest,
    ApprovalRequested,
    Heartbeat,
    ModelCompleted,
    ModelRequest,
    ModelStarted,
    RunEvent,
    ToolCompensated,
    ToolCompleted,
    ToolHeartbeat,
    ToolOutputProjectionFailed,
    ToolOutputTruncated,
    ToolRetrying,
    ToolStarted,
    Verdict,
)
from llm_wire.agent.projection import (  # noqa: F401
    HeuristicEstimator,
    OutputProjectionError,
    ProjectedOutput,
    ProjectionPolicy,
    ProjectionReport,
    TokenEstimator,
    projector,
)
from llm_wire.agent.projection import project_payload as _project_payload
from llm_wire.agent.projection import project_tool_outcome as _project_tool_outcome
from llm_wire.agent.scripted import (  # noqa: F401
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ScriptError,
    call,
    reply,
)
from llm_wire.agent.steps import (  # noqa: F401
    AsyncModel,
    CallModel,
    CallRecord,
    Cancellation,
    Finish,
    Model,
    Planned,
    Recovery,
    RunSteps,
    RunTools,
    Step,
    SyncModel,
    in_thread,
)

__all__ = [
    # typed tools
    "TypedTool",
    "function_tool",
    "invoke_typed_tool",
    "make_tool",
    "parse_tool_arguments",
    # contracts and descriptors
    "Approval",
    "Capability",
    "Compensation",
    "HeartbeatPolicy",
    "Idempotency",
    "OutputCeilings",
    "OutputValidation",
    "ResourceVersion",
    "Risk",
    "SideEffect",
    "ToolContract",
    "ToolRetryPolicy",
    "ToolDescriptor",
    "ProviderCapabilities",
    # invocations and providers
    "InvocationContext",
    "ToolInvocation",
    "ToolProvider",
    "CompensatingProvider",
    "compose",
    "reflect",
    "scope",
    # tool outcomes
    "ErrorCategory",
    "ErrorCode",
    "ToolFailure",
    "ToolOutcome",
    # the runner
    "Runner",
    "RunResult",
    "RunUsage",
    "StopReason",
    "HostHookError",
]

_public.rehome(__name__, __all__, globals())


def _describe(tool: _tool.Tool, contract: ToolContract | None = None) -> ToolDescriptor:
    return ToolDescriptor(tool, ToolContract() if contract is None else contract)


def _retry_advice(
    outcome: ToolOutcome, contract: ToolContract, tool: str, *, consumes_key: bool, compensated: bool = False
) -> ToolOutcome:
    return contract.retry_advice(outcome, tool, consumes_key=consumes_key, compensated=compensated)


abandoned_outcome = _deprecated.renamed(ToolOutcome.abandoned, "llm_wire.agent.abandoned_outcome")
invalid_arguments = _deprecated.renamed(ToolOutcome.invalid_arguments, "llm_wire.agent.invalid_arguments")
outcome_for_exception = _deprecated.renamed(
    ToolOutcome.from_exception, "llm_wire.agent.outcome_for_exception"
)
outcome_unknown = _deprecated.renamed(ToolOutcome.unknown, "llm_wire.agent.outcome_unknown")
unknown_tool = _deprecated.renamed(ToolOutcome.unknown_tool, "llm_wire.agent.unknown_tool")
category_for_exception = _deprecated.renamed(
    ErrorCategory.for_exception, "llm_wire.agent.category_for_exception"
)
category_for_status = _deprecated.renamed(ErrorCategory.for_status, "llm_wire.agent.category_for_status")
describe = _deprecated.renamed(_describe, "llm_wire.agent.describe")
descriptor_from_json_schema = _deprecated.renamed(
    ToolDescriptor.from_json_schema, "llm_wire.agent.descriptor_from_json_schema"
)
invocation_for = _deprecated.renamed(ToolInvocation.of, "llm_wire.agent.invocation_for")
redact = _deprecated.renamed(ToolDescriptor.redact, "llm_wire.agent.redact")
retry_advice = _deprecated.renamed(_retry_advice, "llm_wire.agent.retry_advice")
project = _deprecated.renamed(_project_payload, "llm_wire.agent.project")
project_outcome = _deprecated.renamed(_project_tool_outcome, "llm_wire.agent.project_outcome")
