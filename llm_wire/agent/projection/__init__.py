"""
Output projection: what a model sees of a tool's outcome, bounded in bytes and tokens (reference §7).

A ``ProjectionPolicy`` holds both ceilings (64 KiB and 10,000 tokens by default, 256 bytes and 64 tokens
at least); a tool may only tighten them. Every runner applies them by default (``projector()``);
``unbounded`` is the explicit opt-out. ``project`` renders the canonical payload (reference §5.2) and
returns it unchanged when it fits. Otherwise it shrinks JSON data in place first (long strings and arrays
cut, with counts of what was elided, keys and types kept), then falls back to an envelope with a UTF-8-safe
head/tail preview.
Failure envelopes keep the error's category, code and retryable flag. Whatever the estimator does, the
result fits both ceilings or ``project`` returns a typed ``OutputProjectionError``. The full outcome is never
changed: only the projected text goes to the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from llm_wire._public import rehome
from llm_wire.agent._descriptor import ToolDescriptor
from llm_wire.agent._outcome import ErrorCategory, ErrorCode, ToolOutcome
from llm_wire.agent._steps import Recovery
from llm_wire.agent.projection._estimators import HeuristicEstimator, TiktokenEstimator, TokenEstimator
from llm_wire.agent.projection._shrink import (
    CATEGORIES,
    MARKER,
    MAX_CODE_CHARS,
    FailurePayload,
    ModelPayload,
    PlainPayload,
    SuccessPayload,
    _checked,
    _projected,
    bounded_preview,
    canonical_text,
    check_policy,
    project,
)
from llm_wire.agent.projection._types import (
    DEFAULT_POLICY,
    MIN_BYTES,
    MIN_TOKENS,
    LimitingFactor,
    OutputProjectionError,
    ProjectedOutput,
    ProjectionFailure,
    ProjectionMethod,
    ProjectionPolicy,
    ProjectionReport,
    limiting_factor,
    policy_of,
)
from llm_wire.result import Err, Ok, Result

__all__ = [
    "CATEGORIES",
    "DEFAULT_POLICY",
    "MARKER",
    "MAX_CODE_CHARS",
    "MIN_BYTES",
    "MIN_TOKENS",
    "PROJECTION_FAILED",
    "FailurePayload",
    "HeuristicEstimator",
    "LimitingFactor",
    "ModelPayload",
    "OnProjection",
    "OutputProjectionError",
    "PlainPayload",
    "ProjectedOutput",
    "ProjectionFailure",
    "ProjectionMethod",
    "ProjectionPolicy",
    "ProjectionReport",
    "SuccessPayload",
    "TiktokenEstimator",
    "TokenEstimator",
    "bounded_preview",
    "canonical_text",
    "check_policy",
    "limiting_factor",
    "payload_of",
    "policy_for",
    "policy_of",
    "project",
    "project_outcome",
    "projector",
    "unbounded",
]


# ---------------------------------------------------------------------------------------------------------
# Tool outcomes


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


def project_outcome(
    outcome: ToolOutcome,
    policy: ProjectionPolicy = DEFAULT_POLICY,
    estimator: TokenEstimator | None = None,
    *,
    descriptor: ToolDescriptor | None = None,
) -> Result[ProjectedOutput, OutputProjectionError]:
    """
    ``project`` of the outcome's model payload, under ``policy`` tightened by ``descriptor``'s ceilings;
    the outcome itself is unchanged (callbacks and stores keep it whole).
    """
    if not isinstance(outcome, ToolOutcome):
        msg = f"outcome must be a ToolOutcome, not {type(outcome).__name__}"
        raise TypeError(msg)
    effective = policy if descriptor is None else policy_for(policy, descriptor)
    return project(payload_of(outcome), effective, estimator)


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
    ``on_failure=Recovery.TELL_MODEL``, shows the model ``PROJECTION_FAILED``.
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


rehome(__name__, __all__, globals())
