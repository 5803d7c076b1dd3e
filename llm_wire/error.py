"""
The two failures every layer shares; this module imports nothing of ours but the base ``_described``.

::

    Error                                   a document, request or response that cannot be used
    ├── ProtocolError(detail)                  the provider or the model broke the protocol
    └── LimitExceeded(setting, limit, measured)  a bound was reached; ``setting`` says how to raise it

Parsing, contracts, admission, requests and responses all report a bound with the one ``LimitExceeded``.
Every type has a stable machine ``name`` for logs, and its ``str()`` is its ``describe()``: a text that never
repeats input. Branch on the types, never on the texts.
"""

from __future__ import annotations

from typing import TypeAlias

from attrs import field, frozen

from llm_wire._described import Described as _Described

__all__ = ["Error", "LimitExceeded", "ProtocolError"]


@frozen
class ProtocolError(_Described):
    """
    The provider or the model broke the protocol; ``detail`` is a diagnostic written by us, not an API.
    """

    detail: str

    @property
    def name(self) -> str:
        """``protocol``."""
        return "protocol"

    def describe(self) -> str:
        """``provider protocol violation: detail``."""
        return f"provider protocol violation: {self.detail}"


@frozen
class LimitExceeded(_Described):
    """
    A bound was reached.

    ``setting`` is how a caller raises it (``Limits.with_max_depth``,
    ``Config.with_limit(Limit.CALLS_PER_TURN, n)``, ``contract.load(max_nodes=)``), ``limit`` the bound in
    force, ``measured`` what was seen when the reader counted it (``None`` when it stopped at the bound), and
    ``what`` the quantity in words (text only: not compared).
    """

    setting: str
    limit: int
    measured: int | None = None
    what: str = field(default="a bound", kw_only=True, eq=False)

    @property
    def name(self) -> str:
        """``limit_exceeded``."""
        return "limit_exceeded"

    def describe(self) -> str:
        """``nesting depth exceeds 64 (raise it with Limits.with_max_depth)``."""
        if self.measured is None:
            return f"{self.what} exceeds {self.limit} (raise it with {self.setting})"
        over = f"{self.what} is {self.measured}, over the limit of {self.limit}"
        return f"{over} (raise it with {self.setting})"


Error: TypeAlias = ProtocolError | LimitExceeded
