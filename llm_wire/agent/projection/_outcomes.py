"""
Tool outcomes projected: an outcome's model payload (reference §5.2), the run's policy tightened by a tool's
ceilings, ``project_tool_outcome``, and the runner's ``project_output`` hooks (``projector``, ``unbounded``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from llm_wire.agent._descriptor import ToolDescriptor
from llm_wire.agent._steps import Recovery
from llm_wire.agent._tool_outcome import ErrorCategory, ErrorCode, ToolOutcome
from llm_wire.agent.projection._estimators import TokenEstimator
from llm_wire.agent.projection._shrink import (
    FailurePayload,
    ModelPayload,
    PlainPayload,
    SuccessPayload,
    _checked,
    _projected,
    check_policy,
    project_payload,
)
from llm_wire.agent.projection._types import (
    DEFAULT_POLICY,
    OutputProjectionError,
    ProjectedOutput,
    ProjectionPolicy,
    ProjectionReport,
)
from llm_wire.result import Err, Ok, Result

__all__ = [
    "PROJECTION_FAILED",
    "OnProjection",
    "payload_of",
    "policy_for",
    "project_tool_outcome",
    "projector",
    "unbounded",
]


def payload_of(outcome: ToolOutcome) -> ModelPayload:
    """The model payload of a tool outcome (reference §5.2): its failure, structured success or plain text."""
    failure = outcome.failure
    if failure is not None:
        return FailurePayload(
            failure.category.value, failure.code, failure.message, failure.retryable, failure.details
        )
    if outcome.data is None or outcome.data == {} or outcome.data == []:
        return PlainPayload(outcome.content)
    return SuccessPayload(outcome.content, outcome.data, tuple(outcome.artifacts))


def policy_for(policy: ProjectionPolicy, descriptor: ToolDescriptor) -> ProjectionPolicy:
    """The run's policy tightened by the tool's ``output_ceilings`` (a tool never widens it)."""
    ceilings = descriptor.contract.output_ceilings
    if ceilings.max_bytes is None and ceilings.max_tokens is None:
        return policy
    return policy.tighten(max_bytes=ceilings.max_bytes, max_tokens=ceilings.max_tokens)


def project_tool_outcome(
    outcome: ToolOutcome,
    policy: ProjectionPolicy = DEFAULT_POLICY,
    estimator: TokenEstimator | None = None,
    *,
    descriptor: ToolDescriptor | None = None,
) -> Result[ProjectedOutput, OutputProjectionError]:
    """
    ``project_payload`` of the outcome's model payload, under ``policy`` tightened by ``descriptor``'s
    ceilings; the outcome itself is unchanged (callbacks and stores keep it whole).
    """
    if not isinstance(outcome, ToolOutcome):
        msg = f"outcome must be a ToolOutcome, not {type(outcome).__name__}"
        raise TypeError(msg)
    effective = policy if descriptor is None else policy_for(policy, descriptor)
    return project_payload(payload_of(outcome), effective, estimator)


#: The tool message when an outcome cannot be projected; it fits the smallest policy (256 bytes, 64 tokens).
PROJECTION_FAILED = (
    '{"error":{"category":"internal","code":"projection_failed","message":"the tool output could not be'
    ' shown within the limits","retryable":false},"ok":false}'
)

#: ``on_projection(outcome, descriptor, report)``: called once per projected tool message.
OnProjection: TypeAlias = Callable[[ToolOutcome, "ToolDescriptor | None", ProjectionReport], None]


def projector(
    policy: ProjectionPolicy = DEFAULT_POLICY,
    estimator: TokenEstimator | None = None,
    *,
    on_projection: OnProjection | None = None,
    on_failure: Recovery = Recovery.END,
) -> Callable[[ToolOutcome, ToolDescriptor | None], str | ProjectedOutput | OutputProjectionError]:
    """
    The runner's ``project_output`` hook: each outcome's text within ``policy`` tightened by its tool's
    ceilings, with its report (``on_projection`` is told it; a truncated one fires the runner's
    ``ToolOutputTruncated``). Raises ``ValueError`` at once when the policy fails preflight under
    ``estimator``, so a run never starts with it. An outcome that cannot be projected ends the run with
    ``StopReason.TOOL_OUTPUT_PROJECTION_FAILED`` (its ``OutputProjectionError`` is returned), or, under
    ``on_failure=Recovery.TELL_MODEL``, shows the model a fixed ``projection_failed`` failure instead.
    """
    chosen = _checked(estimator)
    if isinstance(preflight := check_policy(policy, chosen), Err):
        raise ValueError(f"projection policy: {preflight.error.describe()}")
    if on_projection is not None and not callable(on_projection):
        raise TypeError(f"on_projection must be callable, not {type(on_projection).__name__}")
    if not isinstance(on_failure, Recovery):
        raise TypeError(f"on_failure must be a Recovery, not {type(on_failure).__name__}")

    def project_output(
        outcome: ToolOutcome, descriptor: ToolDescriptor | None
    ) -> str | ProjectedOutput | OutputProjectionError:
        effective = policy if descriptor is None else policy_for(policy, descriptor)
        match _projected(payload_of(outcome), effective, chosen):
            case Err(error):
                return error if on_failure is Recovery.END else PROJECTION_FAILED
            case Ok(projected):
                if on_projection is not None:
                    on_projection(outcome, descriptor, projected.report)
                return projected

    return project_output


def unbounded(outcome: ToolOutcome, descriptor: ToolDescriptor | None) -> str:
    """
    The runner's ``project_output`` that opts out of every ceiling: the canonical text of the outcome,
    whole (reserve it for a model that bounds its input itself). Data that is no JSON value shows as a
    ``result_not_json`` failure.
    """
    try:
        return outcome.model_text()
    except Exception:  # data that is no JSON value (a lone surrogate): say so instead
        name = "the tool" if descriptor is None else f"tool {descriptor.name}"
        message = f"{name} returned a result that is not JSON"
        failed = ToolOutcome.failed(ErrorCategory.INTERNAL, ErrorCode.NOT_JSON, message, retryable=False)
        return failed.model_text()
