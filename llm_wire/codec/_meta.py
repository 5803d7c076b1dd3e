"""
``Meta``: what a type hint alone cannot say about a member (a description, a JSON name, constraints, a
codec), and ``Deriving``, what the derivers of pydantic models and TypedDicts need of ``derive``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Protocol, TypedDict

import attrs

from llm_wire._fast import Lean
from llm_wire.codec._core import Codec
from llm_wire.schema import DefinitionError

#: The key under which ``field`` and ``dataclass_field`` store a ``Meta`` in a field's metadata.
META_KEY = "llm_wire"

NUMERIC = ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "multiple_of")
STRING = ("min_length", "max_length", "pattern", "format")
ARRAY = ("min_items", "max_items")
CONSTRAINTS = (*NUMERIC, *STRING, *ARRAY)


class Constraints(TypedDict, total=False):
    """The settings of ``meta`` beyond description, name and codec, as keywords (for type checkers)."""

    minimum: int | float | Decimal
    maximum: int | float | Decimal
    exclusive_minimum: int | float | Decimal
    exclusive_maximum: int | float | Decimal
    multiple_of: int | float | Decimal
    min_length: int
    max_length: int
    pattern: str
    format: str
    min_items: int
    max_items: int
    tag: str


@attrs.frozen
class Meta(Lean):
    """
    What a type hint alone cannot say: a description, a JSON name, constraints, or a codec to use instead.
    """

    description: str | None = None
    #: The JSON member name, when it differs from the attribute name.
    name: str | None = None
    #: A codec for this member; the type hint then only types the attribute.
    codec: Codec[Any] | None = None
    minimum: int | float | Decimal | None = None
    maximum: int | float | Decimal | None = None
    exclusive_minimum: int | float | Decimal | None = None
    exclusive_maximum: int | float | Decimal | None = None
    multiple_of: int | float | Decimal | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    format: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    #: The tag member of a union of classes (``"type"`` by default).
    tag: str | None = None

    def merged(self, other: Meta) -> Meta:
        """This metadata with every setting ``other`` makes."""
        changes = {k: v for k, v in attrs.asdict(other, recurse=False).items() if v is not None}
        return attrs.evolve(self, **changes)

    def constraints(self) -> dict[str, Any]:
        """The constraints that are set, by name."""
        return {name: getattr(self, name) for name in CONSTRAINTS if getattr(self, name) is not None}


def meta(
    *,
    description: str | None = None,
    name: str | None = None,
    codec: Codec[Any] | None = None,
    minimum: int | float | Decimal | None = None,
    maximum: int | float | Decimal | None = None,
    exclusive_minimum: int | float | Decimal | None = None,
    exclusive_maximum: int | float | Decimal | None = None,
    multiple_of: int | float | Decimal | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    pattern: str | None = None,
    format: str | None = None,
    min_items: int | None = None,
    max_items: int | None = None,
    tag: str | None = None,
) -> Meta:
    """
    Metadata for ``Annotated[T, meta(...)]``; constraints apply to ``T`` (to items: ``list[Annotated[...]]``).
    """
    return Meta(
        description,
        name,
        codec,
        minimum,
        maximum,
        exclusive_minimum,
        exclusive_maximum,
        multiple_of,
        min_length,
        max_length,
        pattern,
        format,
        min_items,
        max_items,
        tag,
    )


def meta_of(what: str, settings: dict[str, Any]) -> Meta:
    try:
        return meta(**settings)
    except TypeError:
        unknown = sorted(set(settings) - set(attrs.fields_dict(Meta)))
        msg = f"{what}: unknown settings {', '.join(unknown)}"
        raise DefinitionError(msg) from None


class Deriving(Protocol):
    """One ``derive`` call, as the derivers of pydantic models and TypedDicts use it."""

    #: Every field required when decoding (``derive(require_all=True)``).
    require_all: bool
    #: An enclosing pydantic model validates the value: records only check, and decode to plain dicts.
    in_model: bool

    def hint(self, tp: Any, found: Meta) -> Codec[Any]:
        """The codec of type hint ``tp`` with metadata ``found``."""
        ...

    def hints(self, cls: type) -> dict[str, Any]:
        """The type hints of ``cls`` (``Annotated`` kept), forward references resolved as ``derive`` does."""
        ...
