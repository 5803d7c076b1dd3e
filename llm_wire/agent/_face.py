"""
The names ``llm_wire.agent`` lists, by the private module that defines each, and the old names it keeps
for one release: its face loads each on first use, and each module gives its own names the face's path as
it loads.
"""

from __future__ import annotations

__all__ = ["FACE", "OLD"]

#: The face's names (``llm_wire.agent.__all__``), by home module.
FACE: dict[str, tuple[str, ...]] = {
    "llm_wire.agent._typed": (
        "TypedTool",
        "function_tool",
        "invoke_typed_tool",
        "make_tool",
        "parse_tool_arguments",
    ),
    "llm_wire.agent._descriptor": (
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
    ),
    "llm_wire.agent._invocation": ("InvocationContext", "ToolInvocation"),
    "llm_wire.agent._providers": ("ToolProvider", "CompensatingProvider", "compose", "reflect", "scope"),
    "llm_wire.agent._tool_outcome": ("ErrorCategory", "ErrorCode", "ToolFailure", "ToolOutcome"),
    "llm_wire.agent._runner": ("Runner",),
    "llm_wire.agent._hooks": ("HostHookError",),
    "llm_wire.agent._steps": ("RunResult", "StopReason"),
    "llm_wire.agent._usage": ("RunUsage",),
}

#: Names the face gave up, importable from it for one release (``llm_wire._deprecated.ALIASES``), unlisted.
OLD: dict[str, tuple[str, ...]] = {
    "llm_wire.agent._old": (
        "abandoned_outcome",
        "category_for_exception",
        "category_for_status",
        "describe",
        "descriptor_from_json_schema",
        "invalid_arguments",
        "invocation_for",
        "outcome_for_exception",
        "outcome_unknown",
        "project",
        "project_outcome",
        "redact",
        "retry_advice",
        "unknown_tool",
    ),
    "llm_wire.agent.events": (
        "ApprovalRequest",
        "ApprovalRequested",
        "Heartbeat",
        "ModelCompleted",
        "ModelRequest",
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
    ),
    "llm_wire.agent.projection": (
        "HeuristicEstimator",
        "OutputProjectionError",
        "ProjectedOutput",
        "ProjectionPolicy",
        "ProjectionReport",
        "TokenEstimator",
        "projector",
    ),
    "llm_wire.agent.scripted": (
        "ScriptedCall",
        "ScriptedClient",
        "ScriptedReply",
        "ScriptError",
        "call",
        "reply",
    ),
    "llm_wire.agent.steps": (
        "AsyncModel",
        "CallModel",
        "CallRecord",
        "Cancellation",
        "Finish",
        "Model",
        "Planned",
        "Recovery",
        "RunSteps",
        "RunTools",
        "Step",
        "SyncModel",
        "in_thread",
    ),
}
