"""
What every error record of the package stands on: the base ``Described``, the redaction rule
``render_redacted``, and the two reasons an entry point gives before any schema rule is checked,
``InvalidJson`` and ``TooDeep``. ``llm_wire.reasons`` exports them with the rest of the shared reasons.
"""

from __future__ import annotations

from collections.abc import Collection

from attrs import frozen

from llm_wire._fast import Lean
from llm_wire._public import rehome
from llm_wire.value import ParseError, Path, render_path

__all__ = ["Described", "InvalidJson", "TooDeep", "render_redacted"]


@frozen
class Described(Lean):
    """
    Base of every reason and error record: its ``str()`` is its ``describe()``, a text without input. Its
    ``repr``, ``==`` and hash are ``Lean``'s (the same as attrs', built once, not once per record).

    It is a frozen record without fields. A reason without fields subclasses it as it is, with
    ``__slots__ = ()`` and no ``@frozen`` of its own: it inherits that empty, frozen record, so attrs builds
    nothing more for it. A reason with fields is ``@frozen``.
    """

    def describe(self) -> str:
        """The text; each record defines its own."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.describe()


def render_redacted(path: Path, hidden: Collection[int]) -> str:
    """``$["tags"][*]``: the path as text, with the segments at the ``hidden`` positions shown as ``[*]``."""
    if not hidden:
        return render_path(path)
    return "$" + "".join(
        "[*]" if n in hidden else render_path((segment,))[1:] for n, segment in enumerate(path)
    )


@frozen
class InvalidJson(Described):
    """The text is not strict JSON within the limits."""

    error: ParseError

    @property
    def name(self) -> str:
        """``invalid_json``."""
        return "invalid_json"

    def describe(self) -> str:
        """``invalid JSON at line L, column C: reason``."""
        return self.error.describe()


class TooDeep(Described):
    """The value is nested too deeply to check (or, on encode, is cyclic)."""

    __slots__ = ()

    def describe(self) -> str:
        """``value nested too deeply``."""
        return "value nested too deeply"


rehome("llm_wire.reasons", __all__, globals())
