"""
Old public names kept for one release. ``ALIASES`` pairs each old dotted name with the name that replaces
it. A moved name stays importable from its old module, unlisted (the same object); a renamed callable is a
``renamed`` wrapper that warns ``DeprecationWarning`` naming its replacement, then calls it.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["ALIASES", "REMOVED_IN", "renamed"]

P = ParamSpec("P")
R = TypeVar("R")

#: The release that drops every name of ``ALIASES``.
REMOVED_IN = "0.2"

#: (old dotted name, new dotted name).
ALIASES: tuple[tuple[str, str], ...] = (
    # llm_wire.agent: tool outcomes built by ToolOutcome, categories by ErrorCategory
    ("llm_wire.agent.abandoned_outcome", "llm_wire.agent.ToolOutcome.abandoned"),
    ("llm_wire.agent.invalid_arguments", "llm_wire.agent.ToolOutcome.invalid_arguments"),
    ("llm_wire.agent.outcome_for_exception", "llm_wire.agent.ToolOutcome.from_exception"),
    ("llm_wire.agent.outcome_unknown", "llm_wire.agent.ToolOutcome.unknown"),
    ("llm_wire.agent.unknown_tool", "llm_wire.agent.ToolOutcome.unknown_tool"),
    ("llm_wire.agent.category_for_exception", "llm_wire.agent.ErrorCategory.for_exception"),
    ("llm_wire.agent.category_for_status", "llm_wire.agent.ErrorCategory.for_status"),
    # llm_wire.agent: descriptors, invocations and the contract's rules
    ("llm_wire.agent.describe", "llm_wire.agent.ToolDescriptor"),
    ("llm_wire.agent.descriptor_from_json_schema", "llm_wire.agent.ToolDescriptor.from_json_schema"),
    ("llm_wire.agent.invocation_for", "llm_wire.agent.ToolInvocation.of"),
    ("llm_wire.agent.redact", "llm_wire.agent.ToolDescriptor.redact"),
    ("llm_wire.agent.retry_advice", "llm_wire.agent.ToolContract.retry_advice"),
    # llm_wire.agent: moved to llm_wire.agent.events
    ("llm_wire.agent.ApprovalRequest", "llm_wire.agent.events.ApprovalRequest"),
    ("llm_wire.agent.ApprovalRequested", "llm_wire.agent.events.ApprovalRequested"),
    ("llm_wire.agent.Heartbeat", "llm_wire.agent.events.Heartbeat"),
    ("llm_wire.agent.ModelCompleted", "llm_wire.agent.events.ModelCompleted"),
    ("llm_wire.agent.ModelRequest", "llm_wire.agent.events.ModelRequest"),
    ("llm_wire.agent.ModelStarted", "llm_wire.agent.events.ModelStarted"),
    ("llm_wire.agent.RunEvent", "llm_wire.agent.events.RunEvent"),
    ("llm_wire.agent.ToolCompensated", "llm_wire.agent.events.ToolCompensated"),
    ("llm_wire.agent.ToolCompleted", "llm_wire.agent.events.ToolCompleted"),
    ("llm_wire.agent.ToolHeartbeat", "llm_wire.agent.events.ToolHeartbeat"),
    ("llm_wire.agent.ToolOutputProjectionFailed", "llm_wire.agent.events.ToolOutputProjectionFailed"),
    ("llm_wire.agent.ToolOutputTruncated", "llm_wire.agent.events.ToolOutputTruncated"),
    ("llm_wire.agent.ToolRetrying", "llm_wire.agent.events.ToolRetrying"),
    ("llm_wire.agent.ToolStarted", "llm_wire.agent.events.ToolStarted"),
    ("llm_wire.agent.Verdict", "llm_wire.agent.events.Verdict"),
    # llm_wire.agent: moved to llm_wire.agent.steps
    ("llm_wire.agent.AsyncModel", "llm_wire.agent.steps.AsyncModel"),
    ("llm_wire.agent.CallModel", "llm_wire.agent.steps.CallModel"),
    ("llm_wire.agent.CallRecord", "llm_wire.agent.steps.CallRecord"),
    ("llm_wire.agent.Cancellation", "llm_wire.agent.steps.Cancellation"),
    ("llm_wire.agent.Finish", "llm_wire.agent.steps.Finish"),
    ("llm_wire.agent.Model", "llm_wire.agent.steps.Model"),
    ("llm_wire.agent.Planned", "llm_wire.agent.steps.Planned"),
    ("llm_wire.agent.Recovery", "llm_wire.agent.steps.Recovery"),
    ("llm_wire.agent.RunSteps", "llm_wire.agent.steps.RunSteps"),
    ("llm_wire.agent.RunTools", "llm_wire.agent.steps.RunTools"),
    ("llm_wire.agent.Step", "llm_wire.agent.steps.Step"),
    ("llm_wire.agent.SyncModel", "llm_wire.agent.steps.SyncModel"),
    ("llm_wire.agent.in_thread", "llm_wire.agent.steps.in_thread"),
    # llm_wire.agent: moved to llm_wire.agent.scripted
    ("llm_wire.agent.ScriptedCall", "llm_wire.agent.scripted.ScriptedCall"),
    ("llm_wire.agent.ScriptedClient", "llm_wire.agent.scripted.ScriptedClient"),
    ("llm_wire.agent.ScriptedReply", "llm_wire.agent.scripted.ScriptedReply"),
    ("llm_wire.agent.ScriptError", "llm_wire.agent.scripted.ScriptError"),
    ("llm_wire.agent.call", "llm_wire.agent.scripted.call"),
    ("llm_wire.agent.reply", "llm_wire.agent.scripted.reply"),
    # llm_wire.agent: listed at home in llm_wire.agent.projection
    ("llm_wire.agent.HeuristicEstimator", "llm_wire.agent.projection.HeuristicEstimator"),
    ("llm_wire.agent.OutputProjectionError", "llm_wire.agent.projection.OutputProjectionError"),
    ("llm_wire.agent.ProjectedOutput", "llm_wire.agent.projection.ProjectedOutput"),
    ("llm_wire.agent.ProjectionPolicy", "llm_wire.agent.projection.ProjectionPolicy"),
    ("llm_wire.agent.ProjectionReport", "llm_wire.agent.projection.ProjectionReport"),
    ("llm_wire.agent.TokenEstimator", "llm_wire.agent.projection.TokenEstimator"),
    ("llm_wire.agent.projector", "llm_wire.agent.projection.projector"),
    ("llm_wire.agent.project", "llm_wire.agent.projection.project_payload"),
    ("llm_wire.agent.project_outcome", "llm_wire.agent.projection.project_tool_outcome"),
    # llm_wire.agent.projection: the verb names its object
    ("llm_wire.agent.projection.project", "llm_wire.agent.projection.project_payload"),
    ("llm_wire.agent.projection.project_outcome", "llm_wire.agent.projection.project_tool_outcome"),
    # llm_wire.durable
    ("llm_wire.durable.OUTCOME_UNKNOWN", "llm_wire.agent.ErrorCode.OUTCOME_UNKNOWN"),
    ("llm_wire.durable.Suspension", "llm_wire.agent.store.Suspended"),
    ("llm_wire.durable.is_safe_to_repeat", "llm_wire.agent.ToolContract.is_repeatable"),
    ("llm_wire.durable.outcome_unknown", "llm_wire.agent.ToolOutcome.unknown"),
    # llm_wire.toolkits: listed at home in its submodules
    ("llm_wire.toolkits.FilesystemPolicy", "llm_wire.toolkits.filesystem.FilesystemPolicy"),
    ("llm_wire.toolkits.FilesystemRuntime", "llm_wire.toolkits.filesystem.FilesystemRuntime"),
    ("llm_wire.toolkits.FilesystemTools", "llm_wire.toolkits.tools.FilesystemTools"),
    ("llm_wire.toolkits.ProcessPolicy", "llm_wire.toolkits.process.ProcessPolicy"),
    ("llm_wire.toolkits.ProcessRuntime", "llm_wire.toolkits.process.ProcessRuntime"),
    ("llm_wire.toolkits.ProcessTools", "llm_wire.toolkits.tools.ProcessTools"),
    ("llm_wire.toolkits.governance.Cancellation", "llm_wire.agent.steps.Cancellation"),
    ("llm_wire.toolkits.governance.Risk", "llm_wire.agent.Risk"),
    ("llm_wire.toolkits.governance.Verdict", "llm_wire.agent.events.Verdict"),
)

_NEW = dict(ALIASES)


def renamed(new: Callable[P, R], old: str) -> Callable[P, R]:
    """
    ``new`` under its old dotted name ``old`` (a key of ``ALIASES``): each call warns ``DeprecationWarning``
    naming the replacement, then returns what ``new`` returns.
    """
    message = f"{old} is deprecated: use {_NEW[old]}; removed in {REMOVED_IN}"

    @functools.wraps(new)
    def warn_then_call(*args: P.args, **kwargs: P.kwargs) -> R:
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return new(*args, **kwargs)

    warn_then_call.__name__ = warn_then_call.__qualname__ = old.rpartition(".")[2]
    return warn_then_call
