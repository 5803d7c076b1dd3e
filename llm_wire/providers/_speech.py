"""
What every API's ``Speech`` (its server's words, for the local fake provider) is written with: text in word
deltas, argument text in pieces, and arguments as an object.
"""

from __future__ import annotations

from llm_wire.result import Ok
from llm_wire.value import Value, parse

__all__ = ["arguments", "pieces", "words"]


def pieces(text: str, size: int) -> list[str]:
    """``text`` cut into pieces of ``size`` characters; one empty piece for an empty text."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def words(text: str) -> list[str]:
    """``text`` as word deltas, each but the last with its following space; none for an empty text."""
    split = text.split(" ")
    return [w + (" " if n < len(split) - 1 else "") for n, w in enumerate(split)] if text else []


def arguments(text: str) -> Value:
    """Argument text as the object an API that sends objects carries: parsed, or ``{}`` if not JSON."""
    parsed = parse(text)
    return parsed.value if isinstance(parsed, Ok) else {}
