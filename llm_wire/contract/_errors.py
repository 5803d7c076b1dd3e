"""
The typed failures of ``llm_wire.contract``: why a schema document was refused (``LoadError``) and why a value
was refused (``ValidationError``), with the reasons only contracts have. ``contract`` re-exports them.

The reasons a contract shares with codecs (wrong type, enum, bounds, lengths, pattern, items, missing and
unexpected members, format, depth, invalid JSON) are ``llm_wire.reasons``; bounds on a document are
``llm_wire.error.LimitExceeded``::

    LoadError(path, keyword, reason)      a schema document that cannot be honoured
    └── LoadReason
        ├── InvalidJson                       (llm_wire.reasons) the text is not strict JSON
        ├── LimitExceeded                     (llm_wire.error) max_nodes, max_depth, max_ref_depth,
        │                                     max_pattern_cost
        ├── InvalidShape(problem), UnsupportedKeyword(why), UnsupportedDialect
        ├── RemoteReference, UnresolvableReference(why), ReferenceLoop
        └── UnsupportedPattern(why), UnknownFormat

    ValidationError(path, reason)         a value outside the contract
    └── Reason
        ├── the shared reasons of llm_wire.reasons
        ├── NotJsonValue                      a Python object that is not JSON (a NaN, a tuple)
        ├── NotConst(expected)
        ├── DuplicateItems, TooFewMatches, TooManyMatches, UnexpectedItem  (arrays)
        ├── TooFewProperties, TooManyProperties, MissingDependency, InvalidPropertyName  (objects)
        └── NotAllowed, NoMatch, SeveralMatch, MatchesNot  (false, anyOf/oneOf, not)

Texts name paths, keywords and what the schema expects; they never contain a value taken from the instance,
and an instance key that the schema does not declare shows as ``[*]`` (``llm_wire.reasons.render_hidden``).
"""

from __future__ import annotations

from typing import TypeAlias

from attrs import frozen
from attrs.exceptions import FrozenInstanceError

from llm_wire._fast import new, slot_setters
from llm_wire.error import LimitExceeded
from llm_wire.reasons import (
    AboveMaximum,
    BelowMinimum,
    Described,
    FormatMismatch,
    InvalidJson,
    MissingProperty,
    NotInEnum,
    NotMultipleOf,
    PatternMismatch,
    TooDeep,
    TooFewItems,
    TooLong,
    TooManyItems,
    TooShort,
    UnexpectedProperty,
    WrongType,
    render_redacted,
)
from llm_wire.value import Path, render_path

__all__ = [
    "DuplicateItems",
    "InvalidPropertyName",
    "InvalidShape",
    "LoadError",
    "LoadReason",
    "MatchesNot",
    "MissingDependency",
    "NoMatch",
    "NotAllowed",
    "NotConst",
    "NotJsonValue",
    "Reason",
    "ReferenceLoop",
    "RemoteReference",
    "SeveralMatch",
    "TooFewMatches",
    "TooFewProperties",
    "TooManyMatches",
    "TooManyProperties",
    "UnexpectedItem",
    "UnknownFormat",
    "UnresolvableReference",
    "UnsupportedDialect",
    "UnsupportedKeyword",
    "UnsupportedPattern",
    "ValidationError",
    "too_large",
]

# ---------------------------------------------------------------------------------------------------------
# Loading


@frozen
class InvalidShape(Described):
    """A keyword's value does not have the shape the keyword requires (``problem`` says which)."""

    problem: str

    def describe(self) -> str:
        """The problem."""
        return self.problem


@frozen
class UnsupportedKeyword(Described):
    """A keyword that this contract cannot enforce, so the document is refused rather than half-enforced."""

    why: str

    def describe(self) -> str:
        """``is not supported: why``."""
        return f"is not supported: {self.why}"


@frozen
class UnsupportedDialect(Described):
    """``$schema`` names a dialect other than Draft 2020-12 or draft-07."""

    def describe(self) -> str:
        """Which dialects are read."""
        return "names an unsupported dialect (Draft 2020-12 and draft-07 are read)"


@frozen
class RemoteReference(Described):
    """A reference to another document: it is refused, never fetched."""

    def describe(self) -> str:
        """The refusal."""
        return "refers to another document; remote references are never fetched"


@frozen
class UnresolvableReference(Described):
    """A reference into this document that leads nowhere, or to something that is not a schema."""

    why: str

    def describe(self) -> str:
        """``does not resolve: why``."""
        return f"does not resolve: {self.why}"


@frozen
class ReferenceLoop(Described):
    """References that loop back to where they started without descending into the value: endless."""

    def describe(self) -> str:
        """The refusal."""
        return "loops back to itself without descending into the value"


@frozen
class UnsupportedPattern(Described):
    """A regular expression that cannot run in linear time (or at all)."""

    why: str

    def describe(self) -> str:
        """``cannot be honoured: why``."""
        return f"cannot be honoured: {self.why}"


@frozen
class UnknownFormat(Described):
    """With ``assert_formats``, a ``format`` whose name this contract does not know how to assert."""

    def describe(self) -> str:
        """The refusal."""
        return "names a format that cannot be asserted"


LoadReason: TypeAlias = (
    InvalidJson
    | InvalidShape
    | UnsupportedKeyword
    | UnsupportedDialect
    | RemoteReference
    | UnresolvableReference
    | ReferenceLoop
    | UnsupportedPattern
    | UnknownFormat
    | LimitExceeded
)

_LIMITS = {
    "max_nodes": "number of schema nodes",
    "max_depth": "nesting of subschemas",
    "max_ref_depth": "chain of references followed in place",
    "max_pattern_cost": "the RE2 program its counted repetitions add",
}


def too_large(setting: str, limit: int) -> LimitExceeded:
    """The bound ``setting`` (a ``load`` argument, ``max_nodes`` say) at ``limit``, reached by a document."""
    return LimitExceeded(f"contract.load({setting}=)", limit, what=_LIMITS[setting])


@frozen
class LoadError(Described):
    """
    A schema document that ``load`` refused: where (``path`` in the document, ``keyword``) and why.
    """

    path: Path
    keyword: str | None
    reason: LoadReason

    def describe(self) -> str:
        """``$["properties"]["a"]: "pattern" cannot be honoured: ...``; no schema value is repeated."""
        if isinstance(self.reason, InvalidJson):
            return self.reason.describe()
        where = render_path(self.path)
        if self.keyword is None:
            return f"{where}: {self.reason.describe()}"
        if isinstance(self.reason, LimitExceeded):  # a sentence of its own: "<what> exceeds <limit> (...)"
            return f'{where}: "{self.keyword}": {self.reason.describe()}'
        return f'{where}: "{self.keyword}" {self.reason.describe()}'


# ---------------------------------------------------------------------------------------------------------
# Validation


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


@frozen
class NotJsonValue(Described):
    """A Python object that is not a JSON value (a float, a tuple, ...) where the schema looks at one."""

    def describe(self) -> str:
        """The reason as text."""
        return "not a JSON value"


@frozen
class NotConst(Described):
    """The value differs from ``const``; ``expected`` is the constant as JSON text, from the schema."""

    expected: str

    def describe(self) -> str:
        """``expected "x"`` (or a generic text when the constant is long)."""
        if len(self.expected) <= 80:
            return f"expected {self.expected}"
        return "expected the constant value"


@frozen
class DuplicateItems(Described):
    """Items ``first`` and ``second`` are equal, and ``uniqueItems`` forbids it."""

    first: int
    second: int

    def describe(self) -> str:
        """``items 0 and 2 are equal; items must be unique``."""
        return f"items {self.first} and {self.second} are equal; items must be unique"


@frozen
class TooFewMatches(Described):
    """Fewer than ``minimum`` items match ``contains``."""

    minimum: int

    def describe(self) -> str:
        """``expected at least 1 item matching "contains"``."""
        return f'expected at least {_plural(self.minimum, "item")} matching "contains"'


@frozen
class TooManyMatches(Described):
    """More than ``maximum`` items match ``contains``."""

    maximum: int

    def describe(self) -> str:
        """``expected at most 2 items matching "contains"``."""
        return f'expected at most {_plural(self.maximum, "item")} matching "contains"'


@frozen
class UnexpectedItem(Described):
    """An item that no ``prefixItems``/``items``/``contains`` evaluated, and ``unevaluatedItems`` refuses."""

    def describe(self) -> str:
        """The reason as text."""
        return "unexpected item"


@frozen
class TooFewProperties(Described):
    """An object with fewer than ``minimum`` members."""

    minimum: int

    def describe(self) -> str:
        """``expected at least 1 property``."""
        return f"expected at least {self.minimum} {'property' if self.minimum == 1 else 'properties'}"


@frozen
class TooManyProperties(Described):
    """An object with more than ``maximum`` members."""

    maximum: int

    def describe(self) -> str:
        """``expected at most 3 properties``."""
        return f"expected at most {self.maximum} {'property' if self.maximum == 1 else 'properties'}"


@frozen
class MissingDependency(Described):
    """A property that ``dependentRequired`` requires because ``trigger`` is present is absent."""

    trigger: str

    def describe(self) -> str:
        """``required property is missing (required when "a" is present)``."""
        return f"required property is missing (required when {_quote(self.trigger)} is present)"


@frozen
class InvalidPropertyName(Described):
    """A member name that ``propertyNames`` refuses, for ``reason``."""

    reason: Reason

    def describe(self) -> str:
        """``invalid property name: expected ...``."""
        return f"invalid property name: {self.reason.describe()}"


@frozen
class NotAllowed(Described):
    """A ``false`` schema: no value is allowed at this place."""

    def describe(self) -> str:
        """The reason as text."""
        return "no value is allowed here"


@frozen
class NoMatch(Described):
    """The value matches none of the ``alternatives`` of ``anyOf``/``oneOf``."""

    alternatives: int

    def describe(self) -> str:
        """``expected a value matching one of the 3 alternatives``."""
        return f"expected a value matching one of the {self.alternatives} alternatives"


@frozen
class SeveralMatch(Described):
    """The value matches alternatives ``first`` and ``second`` of a ``oneOf``, which allows only one."""

    first: int
    second: int

    def describe(self) -> str:
        """``matches alternatives 0 and 1 of "oneOf"; exactly one must match``."""
        return f'matches alternatives {self.first} and {self.second} of "oneOf"; exactly one must match'


@frozen
class MatchesNot(Described):
    """The value matches the schema under ``not``."""

    def describe(self) -> str:
        """The reason as text."""
        return 'matches the schema under "not", which it must not'


Reason: TypeAlias = (
    WrongType
    | NotJsonValue
    | NotInEnum
    | NotConst
    | BelowMinimum
    | AboveMaximum
    | NotMultipleOf
    | TooShort
    | TooLong
    | PatternMismatch
    | FormatMismatch
    | TooFewItems
    | TooManyItems
    | DuplicateItems
    | TooFewMatches
    | TooManyMatches
    | UnexpectedItem
    | TooFewProperties
    | TooManyProperties
    | MissingProperty
    | MissingDependency
    | UnexpectedProperty
    | InvalidPropertyName
    | NotAllowed
    | NoMatch
    | SeveralMatch
    | MatchesNot
    | TooDeep
)


class Hidden(tuple[str]):
    """
    In a path under construction: a member name taken from the value that the schema does not declare.

    Made as ``Hidden((key,))``: a one-item tuple, so that making one costs no Python call.
    """

    __slots__ = ()

    @property
    def key(self) -> str:
        """The member name."""
        return self[0]


_SHOWN: frozenset[int] = frozenset()


class ValidationError:
    """
    Why a value is outside a contract: ``path`` in the value and a typed ``reason``. Immutable.

    ``hidden`` holds the positions in ``path`` of member names that came from the value without being
    declared by the schema; they stay in ``path`` for code and show as ``[*]`` in ``describe()``.

    (Written by hand rather than with attrs: validation builds one per failure on its hot path, with its
    path reversed in ``rpath`` while the failure travels up; ``path`` is settled on first use.)
    """

    __slots__ = ("_hidden", "_path", "reason", "rpath")
    __match_args__ = ("path", "reason", "hidden")

    reason: Reason
    rpath: list[str | int | Hidden]
    _path: Path
    _hidden: frozenset[int]

    def __init__(self, path: Path, reason: Reason, hidden: frozenset[int] = _SHOWN) -> None:
        _set_reason(self, reason)
        _set_rpath(self, [])
        _set_path(self, tuple(path))
        _set_hidden(self, frozenset(hidden))

    @property
    def path(self) -> Path:
        """Where, outermost first: member names and item indexes."""
        try:
            return self._path
        except AttributeError:
            return self._settle()[0]

    @property
    def hidden(self) -> frozenset[int]:
        """Positions in ``path`` that ``describe()`` shows as ``[*]``."""
        try:
            return self._hidden
        except AttributeError:
            return self._settle()[1]

    def _settle(self) -> tuple[Path, frozenset[int]]:
        segments = self.rpath[::-1]
        positions = [n for n, segment in enumerate(segments) if isinstance(segment, Hidden)]
        path: Path = tuple(segment.key if isinstance(segment, Hidden) else segment for segment in segments)
        hidden = frozenset(positions) if positions else _SHOWN
        _set_path(self, path)
        _set_hidden(self, hidden)
        return path, hidden

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ValidationError):
            return NotImplemented
        return (self.path, self.reason, self.hidden) == (other.path, other.reason, other.hidden)

    def __hash__(self) -> int:
        return hash((self.path, self.reason, self.hidden))

    def __repr__(self) -> str:
        return f"ValidationError(path={self.path!r}, reason={self.reason!r}, hidden={self.hidden!r})"

    def describe(self) -> str:
        """``$["city"]: expected a string``; a hidden segment shows as ``[*]``."""
        return f"{render_redacted(self.path, self.hidden)}: {self.reason.describe()}"

    def __str__(self) -> str:
        return self.describe()


_set_reason, _set_rpath, _set_path, _set_hidden = slot_setters(
    ValidationError, "reason", "rpath", "_path", "_hidden"
)
_new = new


def failure(reason: Reason) -> ValidationError:
    """A failure under construction at the failing value (its parents add their path segments)."""
    made = _new(ValidationError)
    _set_reason(made, reason)
    _set_rpath(made, [])
    return made


def _quote(text: str) -> str:
    return render_path((text,))[2:-1]
