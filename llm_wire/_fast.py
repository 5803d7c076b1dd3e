"""
The package's one speed trick, kept in one place: making frozen records without attrs' ``__init__``.

A frozen attrs class refuses ``setattr``, but the descriptors of its slots still set a value. Records made
on every hot path (results, validation failures, admitted calls) set their slots through these setters: the
same frozen objects, about a third cheaper to make. Nothing else in the package reaches into slots.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["new", "slot_setters"]

#: A bare instance of a slotted class, its slots still unset (for records whose slots are set one by one).
new = object.__new__


def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of ``cls``'s slots ``names``, in that order; a missing slot is a ``KeyError`` at import."""
    return tuple(cls.__dict__[name].__set__ for name in names)
