"""
The package's speed tricks, kept in one place: making frozen records without attrs' ``__init__``, and
generated straight-line functions.

A frozen attrs class refuses ``setattr``, but the descriptors of its slots still set a value. Records made
on every hot path (results, validation failures, admitted calls) set their slots through these setters: the
same frozen objects, about a third cheaper to make. Nothing else in the package reaches into slots.

A record codec's decoder is generated once per record, as cattrs and attrs generate theirs: one line per
field instead of a loop over a plan. The source holds no input and no user text, only names bound in the
namespace it runs in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["generated", "new", "slot_setters"]

#: A bare instance of a slotted class, its slots still unset (for records whose slots are set one by one).
new = object.__new__


def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of ``cls``'s slots ``names``, in that order; a missing slot is a ``KeyError`` at import."""
    return tuple(cls.__dict__[name].__set__ for name in names)


def generated(source: str, name: str, namespace: dict[str, Any]) -> Callable[..., Any]:
    """The function ``name`` that ``source`` defines, run with ``namespace`` as its globals."""
    exec(compile(source, f"<llm_wire: generated {name}>", "exec"), namespace)
    return namespace[name]  # type: ignore[no-any-return]
