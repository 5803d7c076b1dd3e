"""
The one check of a count setting every layer shares: a positive int (a ``bool`` is not one). ``positive``
checks a value; ``positive_int`` is the attrs validator that names the record and field it refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["positive", "positive_int"]


def positive(value: Any, name: str = "a limit", error: type[Exception] = ValueError) -> int:
    """``value`` when it is an int >= 1; otherwise raise ``error`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise error(f"{name} must be a positive integer")
    return value


def positive_int(
    error: type[Exception] = ValueError, *, wrong_type: type[Exception] | None = None
) -> Callable[[object, Any, Any], None]:
    """
    An attrs validator: the field holds an int >= 1, or ``error`` (``wrong_type``, when given, for a value
    that is no int) names ``Record.field``.
    """

    def check(instance: object, attribute: Any, value: Any) -> None:
        name = f"{type(instance).__name__}.{attribute.name}"
        if wrong_type is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise wrong_type(f"{name} must be an int, not {type(value).__name__}")
        positive(value, name, error)

    return check
