"""
What the fake provider sends for one request: a ``Reply`` (status, headers, body chunks and their pacing).
"""

from __future__ import annotations

from attrs import field, frozen

__all__ = ["Reply"]


def _not_negative(_: object, attribute: object, value: float) -> None:
    name = getattr(attribute, "name", "delay")
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"Reply.{name} must be a number of seconds, not {type(value).__name__}"
        raise TypeError(msg)
    if not 0 <= value < float("inf"):
        msg = f"Reply.{name} must be a non-negative finite number of seconds"
        raise ValueError(msg)


@frozen
class Reply:
    """
    One response of the fake provider. ``stream`` sends the chunks with chunked transfer encoding (SSE);
    otherwise they make one body with its length. Pacing: ``delay`` before the status line (a stall before
    the first byte), ``gap`` between chunks (a drip). ``cut_after`` closes the connection after that many
    chunks, mid-body; ``stall_after`` sends nothing more after that many chunks and holds the connection
    until the client leaves.
    """

    status: int = 200
    chunks: tuple[bytes, ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    stream: bool = False
    content_type: str = "application/json"
    delay: float = field(default=0.0, validator=_not_negative)
    gap: float = field(default=0.0, validator=_not_negative)
    cut_after: int | None = None
    stall_after: int | None = None

    @property
    def body(self) -> bytes:
        """The whole body, as the chunks add up."""
        return b"".join(self.chunks)
