"""
Output projection: what a model sees of a tool's outcome, bounded in bytes and tokens (reference §7).

A ``ProjectionPolicy`` holds both ceilings (64 KiB and 10,000 tokens by default, 256 bytes and 64 tokens
at least); a tool may only tighten them. Every runner applies them by default (``projector()``);
``unbounded`` is the explicit opt-out. ``project_payload`` renders the canonical payload (reference §5.2)
and returns it unchanged when it fits. Otherwise it shrinks JSON data in place first (long strings and
arrays cut, with counts of what was elided, keys and types kept), then falls back to an envelope with a
UTF-8-safe head/tail preview. ``project_tool_outcome`` does it for a ``ToolOutcome``'s payload under the
tool's own ceilings.
Failure envelopes keep the error's category, code and retryable flag. Whatever the estimator does, the
result fits both ceilings or the projection returns a typed ``OutputProjectionError``. The full outcome is
never changed: only the projected text goes to the model.
"""

from __future__ import annotations

from llm_wire import _deprecated, _public
from llm_wire.agent.projection._estimators import HeuristicEstimator, TiktokenEstimator, TokenEstimator
from llm_wire.agent.projection._outcomes import project_tool_outcome, projector, unbounded
from llm_wire.agent.projection._shrink import (
    FailurePayload,
    ModelPayload,
    PlainPayload,
    SuccessPayload,
    check_policy,
    project_payload,
)
from llm_wire.agent.projection._types import (
    LimitingFactor,
    OutputProjectionError,
    ProjectedOutput,
    ProjectionFailure,
    ProjectionMethod,
    ProjectionPolicy,
    ProjectionReport,
)

__all__ = [
    "FailurePayload",
    "HeuristicEstimator",
    "LimitingFactor",
    "ModelPayload",
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
    "check_policy",
    "project_payload",
    "project_tool_outcome",
    "projector",
    "unbounded",
]

_public.rehome(__name__, __all__, globals())

project = _deprecated.renamed(project_payload, "llm_wire.agent.projection.project")
project_outcome = _deprecated.renamed(project_tool_outcome, "llm_wire.agent.projection.project_outcome")
