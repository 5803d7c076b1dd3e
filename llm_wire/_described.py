"""
What every error and reason record of the package stands on: ``Described``, whose ``str()`` is its
``describe()``. Base layer: it imports nothing of ours but ``_fast``, so every layer's records can use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from attrs import frozen

from llm_wire._fast import Lean

__all__ = ["Described"]


@frozen
class Described(Lean):
    """
    Base of every error and reason record: its ``str()`` is its ``describe()``, a text without input. Its
    ``repr``, ``==`` and hash are ``Lean``'s (the same as attrs', built once, not once per record).

    A record whose text is the same for every instance sets it as ``TEXT``; one whose text depends on its
    fields defines ``describe``. It is a frozen record without fields: a record without fields subclasses it
    as it is, with ``__slots__ = ()`` and no ``@frozen`` of its own (it inherits that empty, frozen record, so
    attrs builds nothing more for it); a record with fields is ``@frozen``.

    (Enums with a text, and ``contract.ValidationError``, a plain class built on validation's hot path,
    define their own ``__str__``.)
    """

    if TYPE_CHECKING:  # declared for mypy only, so a record's type hints stay its fields
        #: The text of every instance, for a record whose text does not depend on its fields.
        TEXT: ClassVar[str]

    def describe(self) -> str:
        """The text: ``TEXT``, unless the record defines its own."""
        return self.TEXT

    def __str__(self) -> str:
        return self.describe()
