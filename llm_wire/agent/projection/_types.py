"""
Projection's records: the policy (both ceilings), the typed error, the report and the projected output.
"""

from __future__ import annotations

import enum

from attrs import field, frozen

from llm_wire._described import Described
from llm_wire._fast import Lean
from llm_wire.agent._descriptor import MIN_OUTPUT_BYTES, MIN_OUTPUT_TOKENS
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import DefinitionError

__all__ = [
    "DEFAULT_POLICY",
    "LimitingFactor",
    "OutputProjectionError",
    "ProjectedOutput",
    "ProjectionFailure",
    "ProjectionMethod",
    "ProjectionPolicy",
    "ProjectionReport",
    "limiting_factor",
    "policy_of",
]

# ---------------------------------------------------------------------------------------------------------
# Policy


def _check_ceiling(name: str, value: object, minimum: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        msg = f"{name} must be an int, not {type(value).__name__}"
        raise TypeError(msg)
    if value < minimum:
        msg = f"ProjectionPolicy.{name} must be at least {minimum}"
        raise DefinitionError(msg)
    return value


def _bytes_at_least(_: object, attribute: object, value: object) -> None:
    _check_ceiling("max_bytes", value, MIN_OUTPUT_BYTES)


def _tokens_at_least(_: object, attribute: object, value: object) -> None:
    _check_ceiling("max_tokens", value, MIN_OUTPUT_TOKENS)


@frozen
class ProjectionPolicy(Lean):
    """
    The byte and token ceilings of every model-visible tool message; raises ``DefinitionError`` below the
    minimums (256 bytes, 64 tokens).
    """

    #: UTF-8 bytes of the projected message, inclusive.
    max_bytes: int = field(default=65536, validator=_bytes_at_least)
    #: Estimated tokens of the projected message, inclusive.
    max_tokens: int = field(default=10000, validator=_tokens_at_least)

    def tighten(self, *, max_bytes: int | None = None, max_tokens: int | None = None) -> ProjectionPolicy:
        """
        This policy with each given ceiling lowered to it; a ceiling is never raised. Raises
        ``DefinitionError`` for a ceiling below the minimum.
        """
        if max_bytes is not None:
            _check_ceiling("max_bytes", max_bytes, MIN_OUTPUT_BYTES)
        if max_tokens is not None:
            _check_ceiling("max_tokens", max_tokens, MIN_OUTPUT_TOKENS)
        return ProjectionPolicy(
            max_bytes=self.max_bytes if max_bytes is None else min(self.max_bytes, max_bytes),
            max_tokens=self.max_tokens if max_tokens is None else min(self.max_tokens, max_tokens),
        )


#: 64 KiB and 10,000 tokens.
DEFAULT_POLICY = ProjectionPolicy()


def policy_of(max_bytes: object, max_tokens: object) -> Result[ProjectionPolicy, OutputProjectionError]:
    """
    A policy from outside data (a stored record); ``Err(OutputProjectionError(INVALID_POLICY))`` for a
    ceiling that is not an int or below its minimum.
    """
    for value, minimum in ((max_bytes, MIN_OUTPUT_BYTES), (max_tokens, MIN_OUTPUT_TOKENS)):
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            return Err(OutputProjectionError(ProjectionFailure.INVALID_POLICY))
    assert isinstance(max_bytes, int)
    assert isinstance(max_tokens, int)
    return Ok(ProjectionPolicy(max_bytes=max_bytes, max_tokens=max_tokens))


# ---------------------------------------------------------------------------------------------------------
# Errors and reports


class ProjectionFailure(enum.Enum):
    """Why a tool output could not be projected."""

    INVALID_POLICY = "invalid_policy"
    ENVELOPE_EXCEEDS_LIMITS = "envelope_exceeds_limits"
    ESTIMATOR_FAILURE = "estimator_failure"
    SERIALIZATION_FAILURE = "serialization_failure"


_FAILURE_TEXT = {
    ProjectionFailure.INVALID_POLICY: "a projection ceiling is below its minimum (256 bytes, 64 tokens)",
    ProjectionFailure.ENVELOPE_EXCEEDS_LIMITS: "the truncation envelope alone exceeds the ceilings",
    ProjectionFailure.ESTIMATOR_FAILURE: "the token estimator failed or returned a bad count",
    ProjectionFailure.SERIALIZATION_FAILURE: "the outcome is not valid JSON or not valid UTF-8",
}


@frozen
class OutputProjectionError(Described):
    """
    Tool output could not be projected within the model-visible limits; ``failure`` says why.
    """

    failure: ProjectionFailure

    @property
    def name(self) -> str:
        """The failure's stable name: ``estimator_failure``."""
        return self.failure.value

    def describe(self) -> str:
        """``tool output could not be projected: the token estimator failed or returned a bad count``."""
        return f"tool output could not be projected: {_FAILURE_TEXT[self.failure]}"


class LimitingFactor(enum.Enum):
    """Which ceiling the original output exceeded."""

    NONE = "none"
    BYTES = "bytes"
    TOKENS = "tokens"
    BYTES_AND_TOKENS = "bytes_and_tokens"


class ProjectionMethod(enum.Enum):
    """How the projected text was made."""

    #: The canonical text, unchanged.
    VERBATIM = "verbatim"
    #: JSON data shrunk in place, keys and types kept.
    STRUCTURAL = "structural"
    #: An envelope around a head/tail preview of the canonical text.
    PREVIEW = "preview"
    #: The envelope with an empty preview: nothing else fitted.
    EMPTY = "empty"


def limiting_factor(
    original_bytes: int, original_tokens: int, max_bytes: int, max_tokens: int
) -> LimitingFactor:
    """Which ceilings the original counts exceed."""
    over_bytes, over_tokens = original_bytes > max_bytes, original_tokens > max_tokens
    if over_bytes and over_tokens:
        return LimitingFactor.BYTES_AND_TOKENS
    if over_bytes:
        return LimitingFactor.BYTES
    return LimitingFactor.TOKENS if over_tokens else LimitingFactor.NONE


@frozen
class ProjectionReport(Lean):
    """
    What projection did: the counts of the original and of the exact emitted text, the ceilings, the factor.
    """

    truncated: bool
    original_bytes: int
    projected_bytes: int
    original_estimated_tokens: int
    projected_estimated_tokens: int
    max_bytes: int
    max_tokens: int
    limiting_factor: LimitingFactor
    method: ProjectionMethod = ProjectionMethod.VERBATIM

    def is_consistent(self) -> bool:
        """
        Whether the report agrees with itself (reference §5.12): valid ceilings, projected counts within
        them, untruncated output equal to the original, and the factor the original counts imply.
        """
        counts = (
            self.original_bytes,
            self.projected_bytes,
            self.original_estimated_tokens,
            self.projected_estimated_tokens,
        )
        if any(not isinstance(n, int) or isinstance(n, bool) or n < 0 for n in counts):
            return False
        if self.max_bytes < MIN_OUTPUT_BYTES or self.max_tokens < MIN_OUTPUT_TOKENS:
            return False
        if self.projected_bytes > self.max_bytes or self.projected_estimated_tokens > self.max_tokens:
            return False
        implied = limiting_factor(
            self.original_bytes, self.original_estimated_tokens, self.max_bytes, self.max_tokens
        )
        if not self.truncated:
            return (
                self.original_bytes == self.projected_bytes
                and self.original_estimated_tokens == self.projected_estimated_tokens
                and implied is LimitingFactor.NONE
                and self.limiting_factor is LimitingFactor.NONE
                and self.method is ProjectionMethod.VERBATIM
            )
        return (
            implied is not LimitingFactor.NONE
            and self.limiting_factor is implied
            and self.method is not ProjectionMethod.VERBATIM
        )


@frozen
class ProjectedOutput(Lean):
    """The text the model sees and the report of how it was made."""

    text: str
    report: ProjectionReport
