"""
Schema projection as data: the ``Profile`` of each provider dialect, and what a projection returns
(``Projection``, ``Loss``, ``ProjectionError``). ``llm_wire.providers.projection`` is their face.
"""

from __future__ import annotations

import enum

from attrs import field, frozen

from llm_wire._described import Described
from llm_wire._fast import Lean
from llm_wire._keywords import Role, keyword
from llm_wire.providers import _restore
from llm_wire.value import Path, Value, render_path

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "Action",
    "Loss",
    "Optionals",
    "Profile",
    "Projection",
    "ProjectionError",
    "Refs",
    "Values",
]

#: Limits on a projected schema: nodes written (inlining can multiply them) and nesting depth.
MAX_NODES = 10_000
MAX_DEPTH = 150


class Refs(enum.Enum):
    """How a profile treats ``$ref``."""

    KEEP = "keep"
    INLINE = "inline"


class Optionals(enum.Enum):
    """How a profile treats properties missing from ``required``."""

    KEEP = "keep"
    #: Strict OpenAI: every property required, an optional one sent as nullable.
    NULLABLE = "nullable"


class Values(enum.Enum):
    """Which ``enum`` values a profile takes."""

    ANY = "any"
    PRIMITIVE = "primitive"
    STRING = "string"


@frozen
class Profile(Lean):
    """
    The rules of one provider dialect. Unset fields leave a schema as it is.
    """

    name: str
    #: Keywords the provider takes; any other keyword is dropped. ``None``: every keyword.
    keep: frozenset[str] | None = None
    #: Give every object ``additionalProperties: false``.
    close_objects: bool = False
    optionals: Optionals = Optionals.KEEP
    refs: Refs = Refs.KEEP
    #: Keywords allowed beside ``$ref``; with others present the ``$ref`` moves into an ``anyOf``.
    ref_siblings: frozenset[str] | None = None
    recursion: bool = True
    one_of: bool = True
    all_of: bool = True
    #: ``allOf`` may hold a ``$ref`` branch.
    all_of_refs: bool = True
    #: ``format`` values the provider takes; ``None``: any.
    formats: frozenset[str] | None = None
    #: A regex finding ``pattern`` constructs the provider refuses (look-around, back references).
    refused_pattern: str | None = None
    #: Every node needs a type (inferred where the keywords tell it, refused otherwise).
    typed: bool = False
    #: Every array needs ``items``.
    array_items: bool = False
    #: ``anyOf``/``oneOf``/``allOf`` allowed at the root.
    root_combinators: bool = True
    enum_values: Values = Values.ANY
    #: The largest ``minItems`` the provider takes.
    max_min_items: int | None = None
    #: Gemini's OpenAPI 3.0 subset: uppercase types, ``nullable``, no ``$ref``, string enums.
    openapi: bool = False


#: The dialect that changes nothing: every keyword kept, nothing required.
LOOSEST = Profile(name="any")


class Action(enum.Enum):
    """What a projection did to a keyword, and what that costs."""

    #: Removed from the wire; admission still enforces it.
    DROPPED = "dropped"
    #: Written differently with the same meaning for arguments (a null is restored to absent on admission).
    REWRITTEN = "rewritten"
    #: The wire accepts more than the schema; admission still enforces the schema.
    WIDENED = "widened"
    #: The wire accepts less than the schema: the model cannot send some valid arguments.
    NARROWED = "narrowed"


@frozen
class Loss(Described):
    """One keyword a projection dropped or rewrote, at ``path`` in the original schema."""

    path: Path
    keyword: str
    action: Action
    reason: str

    def describe(self) -> str:
        """``$["properties"]["a"]: "minLength" dropped: ...``."""
        return f'{render_path(self.path)}: "{self.keyword}" {self.action.value}: {self.reason}'


@frozen
class ProjectionError(Described):
    """A schema the provider cannot take at all, with the path and keyword that stop it."""

    path: Path
    keyword: str | None
    reason: str

    def describe(self) -> str:
        """``$["properties"]["a"]: "$ref" ...``; never repeats a schema value."""
        where = render_path(self.path)
        return (
            f"{where}: {self.reason}" if self.keyword is None else f'{where}: "{self.keyword}" {self.reason}'
        )


@frozen
class Projection(Lean):
    """
    A schema as sent to one provider: the wire schema, every loss, and the nullable rewrites to undo.
    """

    wire_schema: Value
    losses: tuple[Loss, ...] = ()
    #: The dialect that made it (an encoder reads its data, such as ``Profile.openapi``).
    profile: Profile = field(factory=lambda: LOOSEST, repr=False)
    #: Paths (in ``wire_schema``) of the properties strict mode made nullable.
    nullable: frozenset[Path] = field(factory=frozenset)
    #: How deep ``wire_schema`` nests: 0 for a root without subschemas, one more per level of subschema
    #: (a property, ``items``, a branch, a ``$defs`` entry); an inlined ``$ref`` adds no level.
    depth: int = 0

    def restore(self, value: Value) -> Value:
        """
        ``value`` with each ``null`` the model sent for a property strict mode made nullable removed
        (absent again); everything else unchanged. Never raises.
        """
        if not self.nullable:
            return value
        return _restore.restore(value, self.wire_schema, self.nullable, MAX_DEPTH)

    @property
    def qualifies(self) -> bool:
        """
        Whether a strict projection keeps the schema's meaning: only rewrites and dropped annotations.
        """
        for loss in self.losses:
            if loss.action is Action.REWRITTEN:
                continue
            if loss.action is Action.DROPPED and keyword(loss.keyword).role is Role.ANNOTATION:
                continue
            return False
        return True
