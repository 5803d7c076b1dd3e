"""
Typed tools under contracts: ``llm_wire.agent``.

A typed tool is an attrs class or dataclass whose fields are its arguments and whose ``invoke`` does the
work (``make_tool``; plain functions with ``function_tool``). A ``ToolDescriptor`` pairs the model-visible
``Tool`` with its ``ToolContract`` (side effect, idempotency, approval, timeout, retries, output schema...),
refused when it is made or registered if it cannot be honoured. Providers (``ToolProvider``: reflected,
composite, scoped) run ``ToolInvocation``s and answer with a ``ToolOutcome``, whose canonical JSON is what
the model sees. The ``Runner`` loops a model (``AsyncModel``/``SyncModel``: ``complete(prepared) -> Outcome``;
``ScriptedClient`` for tests) and a provider until the model answers, and ends with a ``RunResult`` whose
``StopReason`` says why. ``project_outcome`` bounds a tool's text within the run's and the tool's byte and
token ceilings (``llm_wire.agent.projection``); ``llm_wire.agent.store`` keeps durable run records.

::

    ToolOutcome(content, data, failure, artifacts, ...)
    └── ToolFailure(category: ErrorCategory, code, message, retryable, details)
"""

from __future__ import annotations

from llm_wire._public import rehome
from llm_wire.agent._control import Cancellation
from llm_wire.agent._descriptor import (
    DESCRIPTOR_FORMAT,
    MIN_OUTPUT_BYTES,
    MIN_OUTPUT_TOKENS,
    REDACTED,
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
    check_capabilities,
    describe,
    descriptor_from_json_schema,
    redact,
    retry_advice,
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
    ToolOutputProjectionFailed,
    ToolOutputTruncated,
    ToolRetrying,
    ToolStarted,
    Verdict,
)
from llm_wire.agent._invocation import Heartbeat, InvocationContext, ToolInvocation, invocation_for
from llm_wire.agent._outcome import (
    ErrorCategory,
    ErrorCode,
    ToolFailure,
    ToolOutcome,
    category_for_exception,
    category_for_status,
    outcome_for_exception,
)
from llm_wire.agent._providers import (
    CompensatingProvider,
    CompositeProvider,
    ReflectedProvider,
    ScopedProvider,
    ToolProvider,
    compose,
    reflect,
    scope,
)
from llm_wire.agent._results import (
    MAX_ISSUE_BYTES,
    MAX_ISSUES,
    abandoned_outcome,
    argument_issues,
    invalid_arguments,
    outcome_unknown,
    unknown_tool,
)
from llm_wire.agent._runner import (
    AllowToolCall,
    ApprovalPolicy,
    Approver,
    AsyncModel,
    HostHookError,
    Model,
    PrepareToolResult,
    ProjectOutput,
    Replay,
    Runner,
    SyncModel,
)
from llm_wire.agent._scripted import ScriptedCall, ScriptedClient, ScriptedReply, ScriptError, call, reply
from llm_wire.agent._steps import (
    CallModel,
    CallRecord,
    Finish,
    Planned,
    Recovery,
    RunResult,
    RunSteps,
    RunTools,
    Step,
    StopReason,
)
from llm_wire.agent._threads import in_thread
from llm_wire.agent._typed import (
    TypedTool,
    function_tool,
    invoke_typed_tool,
    make_tool,
    parse_tool_arguments,
    snake_case,
)
from llm_wire.agent._usage import ModelRequest, PrepareModelRequest, Pricing, RunUsage
from llm_wire.agent.projection import (
    HeuristicEstimator,
    OutputProjectionError,
    ProjectedOutput,
    ProjectionPolicy,
    ProjectionReport,
    TokenEstimator,
    project,
    project_outcome,
    projector,
)

__all__ = [
    # typed tools
    "TypedTool",
    "function_tool",
    "invoke_typed_tool",
    "make_tool",
    "parse_tool_arguments",
    "snake_case",
    # descriptors
    "DESCRIPTOR_FORMAT",
    "MIN_OUTPUT_BYTES",
    "MIN_OUTPUT_TOKENS",
    "Approval",
    "Capability",
    "Compensation",
    "HeartbeatPolicy",
    "Idempotency",
    "OutputCeilings",
    "OutputValidation",
    "ProviderCapabilities",
    "ResourceVersion",
    "ToolRetryPolicy",
    "Risk",
    "SideEffect",
    "ToolContract",
    "ToolDescriptor",
    "check_capabilities",
    "describe",
    "descriptor_from_json_schema",
    # invocations
    "Heartbeat",
    "InvocationContext",
    "ToolInvocation",
    "invocation_for",
    # outcomes
    "MAX_ISSUES",
    "MAX_ISSUE_BYTES",
    "ErrorCategory",
    "ErrorCode",
    "ToolFailure",
    "ToolOutcome",
    "abandoned_outcome",
    "argument_issues",
    "category_for_exception",
    "category_for_status",
    "invalid_arguments",
    "outcome_for_exception",
    "outcome_unknown",
    "retry_advice",
    "unknown_tool",
    # providers
    "CompensatingProvider",
    "CompositeProvider",
    "ReflectedProvider",
    "ScopedProvider",
    "ToolProvider",
    "compose",
    "in_thread",
    "reflect",
    "scope",
    # the runner
    "AllowToolCall",
    "ApprovalPolicy",
    "Approver",
    "AsyncModel",
    "CallRecord",
    "Cancellation",
    "HostHookError",
    "Model",
    "ModelRequest",
    "PrepareModelRequest",
    "PrepareToolResult",
    "Pricing",
    "ProjectOutput",
    "Recovery",
    "Replay",
    "Runner",
    "RunResult",
    "RunUsage",
    "StopReason",
    "SyncModel",
    # the sans-I/O steps the drivers run
    "CallModel",
    "Finish",
    "Planned",
    "RunSteps",
    "RunTools",
    "Step",
    # approvals and events
    "REDACTED",
    "ApprovalRequest",
    "ApprovalRequested",
    "ModelCompleted",
    "ModelStarted",
    "RunEvent",
    "ToolCompensated",
    "ToolCompleted",
    "ToolHeartbeat",
    "ToolOutputProjectionFailed",
    "ToolOutputTruncated",
    "ToolRetrying",
    "ToolStarted",
    "Verdict",
    "redact",
    # the scripted model
    "ScriptedReply",
    "ScriptError",
    "ScriptedCall",
    "ScriptedClient",
    "call",
    "reply",
    # output projection
    "HeuristicEstimator",
    "OutputProjectionError",
    "ProjectedOutput",
    "ProjectionPolicy",
    "ProjectionReport",
    "TokenEstimator",
    "project",
    "project_outcome",
    "projector",
]

rehome(__name__, __all__, globals())
