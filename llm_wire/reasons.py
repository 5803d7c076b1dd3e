"""
The one vocabulary of value failures, shared by codecs, contracts and admission.
"""

from __future__ import annotations

from attrs import frozen

from llm_wire.value import ParseError

__all__ = ["InvalidJson"]


@frozen
class InvalidJson:
    """The text is not strict JSON within the limits."""

    error: ParseError

    @property
    def name(self) -> str:
        """``invalid_json``."""
        return "invalid_json"

    def describe(self) -> str:
        """``invalid JSON at line L, column C: reason``."""
        return self.error.describe()

    def __str__(self) -> str:
        return self.describe()
