"""
A run's token usage added up across its model calls, and the host hook that prices it (``Pricing``,
computed once per run).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import TypeAlias

from attrs import frozen

from llm_wire import _public
from llm_wire._fast import Lean
from llm_wire.agent._face import FACE as _FACE
from llm_wire.providers.response import Usage
from llm_wire.value import Value

__all__ = ["Pricing", "RunUsage", "cached_tokens", "reasoning_tokens"]

#: Where providers report cached input tokens inside their usage object (OpenAI Chat, Responses, Anthropic,
#: Google), and reasoning tokens.
_CACHED = (
    ("prompt_tokens_details", "cached_tokens"),
    ("input_tokens_details", "cached_tokens"),
    ("cache_read_input_tokens",),
    ("cachedContentTokenCount",),
)
_REASONING = (
    ("completion_tokens_details", "reasoning_tokens"),
    ("output_tokens_details", "reasoning_tokens"),
    ("thoughtsTokenCount",),
)


def _count_at(raw: Value, paths: Sequence[tuple[str, ...]]) -> int:
    for path in paths:
        found: Value = raw
        for key in path:
            found = found.get(key) if isinstance(found, dict) else None
        if isinstance(found, int) and not isinstance(found, bool) and found >= 0:
            return found
    return 0


def cached_tokens(usage: Usage) -> int:
    """The cached input tokens a provider's raw usage object reports (0 when it reports none)."""
    return _count_at(usage.raw, _CACHED)


def reasoning_tokens(usage: Usage) -> int:
    """The reasoning tokens a provider's raw usage object reports (0 when it reports none)."""
    return _count_at(usage.raw, _REASONING)


@frozen
class RunUsage(Lean):
    """A run's usage summed over its model calls (a count a provider did not report adds 0)."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    model_calls: int = 0

    @classmethod
    def of(cls, usages: Sequence[Usage], model_calls: int) -> RunUsage:
        """The sum of ``usages`` over ``model_calls`` calls."""
        return cls(
            sum(u.input_tokens or 0 for u in usages),
            sum(u.output_tokens or 0 for u in usages),
            sum(u.total_tokens or 0 for u in usages),
            sum(cached_tokens(u) for u in usages),
            sum(reasoning_tokens(u) for u in usages),
            model_calls,
        )

    def plus(self, other: RunUsage) -> RunUsage:
        """Both usages added up (a run resumed after a suspension)."""
        return RunUsage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.total_tokens + other.total_tokens,
            self.cached_tokens + other.cached_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
            self.model_calls + other.model_calls,
        )

    def counts(self) -> dict[str, int]:
        """The counters by name (what a durable result stores)."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "cached_tokens": self.cached_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "model_calls": self.model_calls,
        }

    @classmethod
    def from_counts(cls, counts: Mapping[str, object]) -> RunUsage:
        """The usage ``counts`` names (a missing or non-int counter is 0)."""

        def count(name: str) -> int:
            value = counts.get(name)
            return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

        return cls(*(count(name) for name in cls().counts()))


#: ``pricing(usage)``: the cost of a run's whole usage, computed once when the run ends (``None``: unknown).
Pricing: TypeAlias = Callable[[RunUsage], "Decimal | None"]


_public.rehome("llm_wire.agent", _FACE[__name__], globals())
