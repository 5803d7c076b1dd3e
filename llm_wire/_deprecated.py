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
    # llm_wire: the facade carries a day's names; these are listed at their homes
    ("llm_wire.DuplicateToolName", "llm_wire.tool.DuplicateToolName"),
    ("llm_wire.Err", "llm_wire.result.Err"),
    ("llm_wire.GoogleSchema", "llm_wire.providers.google.GoogleSchema"),
    ("llm_wire.InvalidReplay", "llm_wire.providers.InvalidReplay"),
    ("llm_wire.Ok", "llm_wire.result.Ok"),
    ("llm_wire.Result", "llm_wire.result.Result"),
    ("llm_wire.Tool", "llm_wire.tool.Tool"),
    ("llm_wire.UnsupportedSetting", "llm_wire.providers.UnsupportedSetting"),
    # the core: listed at home
    ("llm_wire.value.LimitExceeded", "llm_wire.error.LimitExceeded"),
    ("llm_wire.codec.DefinitionError", "llm_wire.schema.DefinitionError"),
    ("llm_wire.codec.number", "llm_wire.codec.decimal"),
    ("llm_wire.admission.InvalidJson", "llm_wire.reasons.InvalidJson"),
    ("llm_wire.admission.ToolCallChecks", "llm_wire.tool.ToolCallChecks"),
    ("llm_wire.transport.ArgumentsDelta", "llm_wire.providers.response.ArgumentsDelta"),
    ("llm_wire.transport.Progress", "llm_wire.providers.response.Progress"),
    ("llm_wire.transport.TextDelta", "llm_wire.providers.response.TextDelta"),
    ("llm_wire.transport.ToolCallStarted", "llm_wire.providers.response.ToolCallStarted"),
    ("llm_wire.transport.TransportError", "llm_wire.outcome.TransportError"),
    ("llm_wire.transport.TransportProblem", "llm_wire.outcome.TransportProblem"),
    # the core: a record's own constructor, attribute or text (str() of an error is its describe())
    ("llm_wire.message.tool_call", "llm_wire.message.ToolCall"),
    ("llm_wire.tool.describe_error", "builtins.str"),
    ("llm_wire.tool.description", "llm_wire.tool.Tool.description"),
    ("llm_wire.tool.name", "llm_wire.tool.Tool.name"),
    ("llm_wire.tool.schema", "llm_wire.tool.Tool.schema"),
    ("llm_wire.admission.describe_value_failure", "builtins.str"),
    ("llm_wire.transport.retryable", "llm_wire.outcome.Failure.retryable"),
    # llm_wire.providers: the wire records have one home, schema projection says what it projects
    ("llm_wire.providers.project", "llm_wire.providers.projection.project_schema"),
    ("llm_wire.providers.Wire.project", "llm_wire.providers.Wire.project_schema"),
    ("llm_wire.providers.projection.qualifies", "llm_wire.providers.projection.Projection.qualifies"),
    ("llm_wire.providers.wire.DecoderFactory", "llm_wire.providers.DecoderFactory"),
    ("llm_wire.providers.wire.Declared", "llm_wire.providers.Declared"),
    ("llm_wire.providers.wire.EncodeError", "llm_wire.providers.EncodeError"),
    ("llm_wire.providers.wire.Http", "llm_wire.providers.Http"),
    ("llm_wire.providers.wire.InvalidReplay", "llm_wire.providers.InvalidReplay"),
    ("llm_wire.providers.wire.Outgoing", "llm_wire.providers.Outgoing"),
    ("llm_wire.providers.wire.OutputSpec", "llm_wire.providers.OutputSpec"),
    ("llm_wire.providers.wire.Speech", "llm_wire.providers.Speech"),
    ("llm_wire.providers.wire.ToolChoice", "llm_wire.providers.ToolChoice"),
    ("llm_wire.providers.wire.UnsupportedSetting", "llm_wire.providers.UnsupportedSetting"),
    ("llm_wire.providers.wire.UseTool", "llm_wire.providers.UseTool"),
    ("llm_wire.providers.wire.Wire", "llm_wire.providers.Wire"),
    ("llm_wire.providers.wire.Wires", "llm_wire.providers.Wires"),
    # llm_wire.providers.<api>: everything an API knows is on its WIRE
    ("llm_wire.providers.anthropic.PROVIDER", "llm_wire.providers.anthropic.WIRE.provider"),
    (
        "llm_wire.providers.anthropic.DEFAULT_MAX_TOKENS",
        "llm_wire.providers.anthropic.WIRE.default_max_tokens",
    ),
    ("llm_wire.providers.anthropic.LOOSE", "llm_wire.providers.anthropic.WIRE.loose"),
    ("llm_wire.providers.anthropic.STRICT", "llm_wire.providers.anthropic.WIRE.strict"),
    ("llm_wire.providers.anthropic.SPEECH", "llm_wire.providers.anthropic.WIRE.speech"),
    ("llm_wire.providers.anthropic.HTTP", "llm_wire.providers.anthropic.WIRE.http"),
    ("llm_wire.providers.anthropic.AnthropicDecoder", "llm_wire.providers.anthropic.WIRE.decoder"),
    ("llm_wire.providers.anthropic.encode", "llm_wire.providers.anthropic.WIRE.encode"),
    ("llm_wire.providers.anthropic.decode_error", "llm_wire.providers.anthropic.WIRE.decode_error"),
    ("llm_wire.providers.anthropic.over_budget", "llm_wire.providers.anthropic.WIRE.over_budget"),
    ("llm_wire.providers.anthropic.path", "llm_wire.providers.anthropic.WIRE.path"),
    ("llm_wire.providers.anthropic.decode_body", "llm_wire.providers.anthropic.WIRE.decode_body"),
    ("llm_wire.providers.google.PROVIDER", "llm_wire.providers.google.WIRE.provider"),
    ("llm_wire.providers.google.JSON", "llm_wire.providers.google.WIRE.loose"),
    ("llm_wire.providers.google.VALIDATED", "llm_wire.providers.google.WIRE.strict"),
    ("llm_wire.providers.google.OPENAPI", "llm_wire.providers.google.WIRE.legacy"),
    ("llm_wire.providers.google.SPEECH", "llm_wire.providers.google.WIRE.speech"),
    ("llm_wire.providers.google.HTTP", "llm_wire.providers.google.WIRE.http"),
    ("llm_wire.providers.google.GoogleDecoder", "llm_wire.providers.google.WIRE.decoder"),
    ("llm_wire.providers.google.encode", "llm_wire.providers.google.WIRE.encode"),
    ("llm_wire.providers.google.decode_error", "llm_wire.providers.google.WIRE.decode_error"),
    ("llm_wire.providers.google.path", "llm_wire.providers.google.WIRE.path"),
    ("llm_wire.providers.google.decode_body", "llm_wire.providers.google.WIRE.decode_body"),
    ("llm_wire.providers.openai_chat.PROVIDER", "llm_wire.providers.openai_chat.WIRE.provider"),
    ("llm_wire.providers.openai_chat.LOOSE", "llm_wire.providers.openai_chat.WIRE.loose"),
    ("llm_wire.providers.openai_chat.STRICT", "llm_wire.providers.openai_chat.WIRE.strict"),
    ("llm_wire.providers.openai_chat.SPEECH", "llm_wire.providers.openai_chat.WIRE.speech"),
    ("llm_wire.providers.openai_chat.HTTP", "llm_wire.providers.openai_chat.WIRE.http"),
    ("llm_wire.providers.openai_chat.ChatDecoder", "llm_wire.providers.openai_chat.WIRE.decoder"),
    ("llm_wire.providers.openai_chat.encode", "llm_wire.providers.openai_chat.WIRE.encode"),
    ("llm_wire.providers.openai_chat.decode_error", "llm_wire.providers.openai_chat.WIRE.decode_error"),
    ("llm_wire.providers.openai_chat.path", "llm_wire.providers.openai_chat.WIRE.path"),
    ("llm_wire.providers.openai_chat.decode_body", "llm_wire.providers.openai_chat.WIRE.decode_body"),
    ("llm_wire.providers.openai_responses.PROVIDER", "llm_wire.providers.openai_responses.WIRE.provider"),
    ("llm_wire.providers.openai_responses.LOOSE", "llm_wire.providers.openai_responses.WIRE.loose"),
    ("llm_wire.providers.openai_responses.STRICT", "llm_wire.providers.openai_responses.WIRE.strict"),
    ("llm_wire.providers.openai_responses.SPEECH", "llm_wire.providers.openai_responses.WIRE.speech"),
    ("llm_wire.providers.openai_responses.HTTP", "llm_wire.providers.openai_responses.WIRE.http"),
    (
        "llm_wire.providers.openai_responses.ResponsesDecoder",
        "llm_wire.providers.openai_responses.WIRE.decoder",
    ),
    ("llm_wire.providers.openai_responses.encode", "llm_wire.providers.openai_responses.WIRE.encode"),
    (
        "llm_wire.providers.openai_responses.decode_error",
        "llm_wire.providers.openai_responses.WIRE.decode_error",
    ),
    ("llm_wire.providers.openai_responses.path", "llm_wire.providers.openai_responses.WIRE.path"),
    (
        "llm_wire.providers.openai_responses.decode_body",
        "llm_wire.providers.openai_responses.WIRE.decode_body",
    ),
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
