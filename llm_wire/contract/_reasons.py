"""
The reasons only contracts have, why a schema was refused (``LoadReason``) and why a value was
(``Reason``); ``contract`` exports them.
"""

from __future__ import annotations

from typing import TypeAlias

from attrs import frozen

from llm_wire._described import Described
from llm_wire.error import LimitExceeded
from llm_wire.reasons import (
    AboveMaximum,
    BelowMinimum,
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
)
from llm_wire.value import render_path

__all__ = [
    "DuplicateItems",
    "InvalidPropertyName",
    "InvalidShape",
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


class UnsupportedDialect(Described):
    """``$schema`` names a dialect other than Draft 2020-12 or draft-07."""

    __slots__ = ()
    TEXT = "names an unsupported dialect (Draft 2020-12 and draft-07 are read)"


class RemoteReference(Described):
    """A reference to another document: it is refused, never fetched."""

    __slots__ = ()
    TEXT = "refers to another document; remote references are never fetched"


@frozen
class UnresolvableReference(Described):
    """A reference into this document that leads nowhere, or to something that is not a schema."""

    why: str

    def describe(self) -> str:
        """``does not resolve: why``."""
        return f"does not resolve: {self.why}"


class ReferenceLoop(Described):
    """References that loop back to where they started without descending into the value: endless."""

    __slots__ = ()
    TEXT = "loops back to itself without descending into the value"


@frozen
class UnsupportedPattern(Described):
    """A regular expression that cannot run in linear time (or at all)."""

    why: str

    def describe(self) -> str:
        """``cannot be honoured: why``."""
        return f"cannot be honoured: {self.why}"


class UnknownFormat(Described):
    """With ``assert_formats``, a ``format`` whose name this contract does not know how to assert."""

    __slots__ = ()
    TEXT = "names a format that cannot be asserted"


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


# ---------------------------------------------------------------------------------------------------------
# Validation


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class NotJsonValue(Described):
    """A Python object that is not a JSON value (a float, a tuple, ...) where the schema looks at one."""

    __slots__ = ()
    TEXT = "not a JSON value"


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


class UnexpectedItem(Described):
    """An item that no ``prefixItems``/``items``/``contains`` evaluated, and ``unevaluatedItems`` refuses."""

    __slots__ = ()
    TEXT = "unexpected item"


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


class NotAllowed(Described):
    """A ``false`` schema: no value is allowed at this place."""

    __slots__ = ()
    TEXT = "no value is allowed here"


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


class MatchesNot(Described):
    """The value matches the schema under ``not``."""

    __slots__ = ()
    TEXT = 'matches the schema under "not", which it must not'


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


def _quote(text: str) -> str:
    return render_path((text,))[2:-1]
