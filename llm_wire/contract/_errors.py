"""
The typed failures of ``llm_wire.contract``: why a schema document was refused (``LoadError``) and why a value
was refused (``ValidationError``). ``contract`` re-exports every public name.

::

    LoadError(path, keyword, reason)      a schema document that cannot be honoured
    └── reason: InvalidJson | InvalidShape | UnsupportedKeyword | UnsupportedDialect | RemoteReference
                | UnresolvableReference | ReferenceLoop | UnsupportedPattern | UnknownFormat | TooLarge

    ValidationError(path, reason)         a value outside the contract
    └── reason: WrongType | NotJson | NotInEnum | NotConst | BelowMinimum | AboveMaximum | NotMultipleOf
                | TooShort | TooLong | PatternMismatch | FormatMismatch | TooFewItems | TooManyItems
                | DuplicateItems | TooFewMatches | TooManyMatches | UnexpectedItem | TooFewProperties
                | TooManyProperties | MissingProperty | MissingDependency | UnexpectedProperty
                | InvalidPropertyName | NotAllowed | NoMatch | SeveralMatch | MatchesNot | TooDeep

Texts name paths, keywords and what the schema expects; they never contain a value taken from the instance,
nor an instance key that the schema does not declare.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TypeAlias

from attrs import frozen
from attrs.exceptions import FrozenInstanceError

from llm_wire.value import ParseError, Path, render_path

__all__ = [
    "AboveMaximum",
    "BelowMinimum",
    "DuplicateItems",
    "FormatMismatch",
    "InvalidJson",
    "InvalidPropertyName",
    "InvalidShape",
    "LoadError",
    "LoadReason",
    "MatchesNot",
    "MissingDependency",
    "MissingProperty",
    "NoMatch",
    "NotAllowed",
    "NotConst",
    "NotInEnum",
    "NotJson",
    "NotMultipleOf",
    "PatternMismatch",
    "Reason",
    "ReferenceLoop",
    "RemoteReference",
    "SeveralMatch",
    "TooDeep",
    "TooFewItems",
    "TooFewMatches",
    "TooFewProperties",
    "TooLarge",
    "TooLong",
    "TooManyItems",
    "TooManyMatches",
    "TooManyProperties",
    "TooShort",
    "UnexpectedItem",
    "UnexpectedProperty",
    "UnknownFormat",
    "UnresolvableReference",
    "UnsupportedDialect",
    "UnsupportedKeyword",
    "UnsupportedPattern",
    "ValidationError",
    "WrongType",
]

# ---------------------------------------------------------------------------------------------------------
# Loading


@frozen
class InvalidJson:
    """The schema text is not strict JSON within the parser's limits."""

    error: ParseError

    def describe(self) -> str:
        """The parse error's text."""
        return self.error.describe()


@frozen
class InvalidShape:
    """A keyword's value does not have the shape the keyword requires (``problem`` says which)."""

    problem: str

    def describe(self) -> str:
        """The problem."""
        return self.problem


@frozen
class UnsupportedKeyword:
    """A keyword that this contract cannot enforce, so the document is refused rather than half-enforced."""

    why: str

    def describe(self) -> str:
        """``is not supported: why``."""
        return f"is not supported: {self.why}"


@frozen
class UnsupportedDialect:
    """``$schema`` names a dialect other than Draft 2020-12 or draft-07."""

    def describe(self) -> str:
        """Which dialects are read."""
        return "names an unsupported dialect (Draft 2020-12 and draft-07 are read)"


@frozen
class RemoteReference:
    """A reference to another document: it is refused, never fetched."""

    def describe(self) -> str:
        """The refusal."""
        return "refers to another document; remote references are never fetched"


@frozen
class UnresolvableReference:
    """A reference into this document that leads nowhere, or to something that is not a schema."""

    why: str

    def describe(self) -> str:
        """``does not resolve: why``."""
        return f"does not resolve: {self.why}"


@frozen
class ReferenceLoop:
    """References that loop back to where they started without descending into the value: endless."""

    def describe(self) -> str:
        """The refusal."""
        return "loops back to itself without descending into the value"


@frozen
class UnsupportedPattern:
    """A regular expression that cannot run in linear time (or at all)."""

    why: str

    def describe(self) -> str:
        """``cannot be honoured: why``."""
        return f"cannot be honoured: {self.why}"


@frozen
class UnknownFormat:
    """With ``assert_formats``, a ``format`` whose name this contract does not know how to assert."""

    def describe(self) -> str:
        """The refusal."""
        return "names a format that cannot be asserted"


@frozen
class TooLarge:
    """The document exceeds a bound; ``setting`` is the ``load`` argument that raises it."""

    setting: str
    maximum: int

    def describe(self) -> str:
        """What exceeded which bound."""
        what = _LIMITS.get(self.setting, "size")
        return f"{what} exceeds {self.maximum} (raise it with {self.setting}=)"


_LIMITS = {
    "max_nodes": "number of schema nodes",
    "max_depth": "nesting of subschemas",
    "max_ref_depth": "chain of references followed in place",
}

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
    | TooLarge
)


@frozen
class LoadError:
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
        return f'{where}: "{self.keyword}" {self.reason.describe()}'

    def __str__(self) -> str:
        return self.describe()


# ---------------------------------------------------------------------------------------------------------
# Validation

_ARTICLES = {
    "null": "null",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
    "number": "a number",
    "string": "a string",
    "integer": "an integer",
}


def _either(words: list[str]) -> str:
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


@frozen
class WrongType:
    """The value's JSON type is not among ``expected`` (JSON Schema type names, in schema order)."""

    expected: tuple[str, ...]

    def describe(self) -> str:
        """``expected a string or null``."""
        return "expected " + _either([_ARTICLES.get(name, name) for name in self.expected])


@frozen
class NotJson:
    """A Python object that is not a JSON value (a float, a tuple, ...) where the schema looks at one."""

    def describe(self) -> str:
        """The reason as text."""
        return "not a JSON value"


@frozen
class NotInEnum:
    """The value is none of the ``enum`` values; ``options`` holds them as JSON text, from the schema."""

    options: tuple[str, ...]

    def describe(self) -> str:
        """``expected one of "a", "b"`` (or the count when the list is long)."""
        if len(self.options) <= 8 and sum(len(o) for o in self.options) <= 160:
            return "expected one of " + ", ".join(self.options)
        return f"expected one of the {len(self.options)} allowed values"


@frozen
class NotConst:
    """The value differs from ``const``; ``expected`` is the constant as JSON text, from the schema."""

    expected: str

    def describe(self) -> str:
        """``expected "x"`` (or a generic text when the constant is long)."""
        if len(self.expected) <= 80:
            return f"expected {self.expected}"
        return "expected the constant value"


@frozen
class BelowMinimum:
    """A number below ``minimum`` (or not above ``exclusiveMinimum`` when ``exclusive``)."""

    limit: int | Decimal
    exclusive: bool = False

    def describe(self) -> str:
        """``expected at least 1`` or ``expected more than 0``."""
        return f"expected {'more than' if self.exclusive else 'at least'} {self.limit}"


@frozen
class AboveMaximum:
    """A number above ``maximum`` (or not below ``exclusiveMaximum`` when ``exclusive``)."""

    limit: int | Decimal
    exclusive: bool = False

    def describe(self) -> str:
        """``expected at most 10`` or ``expected less than 10``."""
        return f"expected {'less than' if self.exclusive else 'at most'} {self.limit}"


@frozen
class NotMultipleOf:
    """A number that is not an exact multiple of ``divisor``."""

    divisor: int | Decimal

    def describe(self) -> str:
        """``expected a multiple of 0.5``."""
        return f"expected a multiple of {self.divisor}"


@frozen
class TooShort:
    """A string with fewer than ``minimum`` characters (code points)."""

    minimum: int

    def describe(self) -> str:
        """``expected at least 3 characters``."""
        return f"expected at least {_plural(self.minimum, 'character')}"


@frozen
class TooLong:
    """A string with more than ``maximum`` characters (code points)."""

    maximum: int

    def describe(self) -> str:
        """``expected at most 3 characters``."""
        return f"expected at most {_plural(self.maximum, 'character')}"


@frozen
class PatternMismatch:
    """A string that the schema's ``pattern`` does not match."""

    pattern: str

    def describe(self) -> str:
        """``expected a string matching the pattern "^[a-z]+$"``."""
        if len(self.pattern) <= 120:
            return f"expected a string matching the pattern {_quote(self.pattern)}"
        return "expected a string matching the schema's pattern"


@frozen
class FormatMismatch:
    """A string that is not valid in the asserted ``format``."""

    format: str

    def describe(self) -> str:
        """``expected a string in date-time format``."""
        return f"expected a string in {self.format} format"


@frozen
class TooFewItems:
    """An array with fewer than ``minimum`` items."""

    minimum: int

    def describe(self) -> str:
        """``expected at least 1 item``."""
        return f"expected at least {_plural(self.minimum, 'item')}"


@frozen
class TooManyItems:
    """An array with more than ``maximum`` items."""

    maximum: int

    def describe(self) -> str:
        """``expected at most 3 items``."""
        return f"expected at most {_plural(self.maximum, 'item')}"


@frozen
class DuplicateItems:
    """Items ``first`` and ``second`` are equal, and ``uniqueItems`` forbids it."""

    first: int
    second: int

    def describe(self) -> str:
        """``items 0 and 2 are equal; items must be unique``."""
        return f"items {self.first} and {self.second} are equal; items must be unique"


@frozen
class TooFewMatches:
    """Fewer than ``minimum`` items match ``contains``."""

    minimum: int

    def describe(self) -> str:
        """``expected at least 1 item matching "contains"``."""
        return f'expected at least {_plural(self.minimum, "item")} matching "contains"'


@frozen
class TooManyMatches:
    """More than ``maximum`` items match ``contains``."""

    maximum: int

    def describe(self) -> str:
        """``expected at most 2 items matching "contains"``."""
        return f'expected at most {_plural(self.maximum, "item")} matching "contains"'


@frozen
class UnexpectedItem:
    """An item that no ``prefixItems``/``items``/``contains`` evaluated, and ``unevaluatedItems`` refuses."""

    def describe(self) -> str:
        """The reason as text."""
        return "unexpected item"


@frozen
class TooFewProperties:
    """An object with fewer than ``minimum`` members."""

    minimum: int

    def describe(self) -> str:
        """``expected at least 1 property``."""
        return f"expected at least {self.minimum} {'property' if self.minimum == 1 else 'properties'}"


@frozen
class TooManyProperties:
    """An object with more than ``maximum`` members."""

    maximum: int

    def describe(self) -> str:
        """``expected at most 3 properties``."""
        return f"expected at most {self.maximum} {'property' if self.maximum == 1 else 'properties'}"


@frozen
class MissingProperty:
    """A required property is absent; the error's path ends with its name."""

    def describe(self) -> str:
        """The reason as text."""
        return "required property is missing"


@frozen
class MissingDependency:
    """A property that ``dependentRequired`` requires because ``trigger`` is present is absent."""

    trigger: str

    def describe(self) -> str:
        """``required property is missing (required when "a" is present)``."""
        return f"required property is missing (required when {_quote(self.trigger)} is present)"


@frozen
class UnexpectedProperty:
    """A member the schema does not allow; ``allowed`` lists the declared names (from the schema)."""

    allowed: tuple[str, ...] = ()

    def describe(self) -> str:
        """``unexpected property; the allowed properties are "a", "b"``."""
        if not self.allowed:
            return "unexpected property"
        if len(self.allowed) <= 12:
            return "unexpected property; the allowed properties are " + ", ".join(map(_quote, self.allowed))
        return f"unexpected property; {len(self.allowed)} properties are allowed"


@frozen
class InvalidPropertyName:
    """A member name that ``propertyNames`` refuses, for ``reason``."""

    reason: Reason

    def describe(self) -> str:
        """``invalid property name: expected ...``."""
        return f"invalid property name: {self.reason.describe()}"


@frozen
class NotAllowed:
    """A ``false`` schema: no value is allowed at this place."""

    def describe(self) -> str:
        """The reason as text."""
        return "no value is allowed here"


@frozen
class NoMatch:
    """The value matches none of the ``alternatives`` of ``anyOf``/``oneOf``."""

    alternatives: int

    def describe(self) -> str:
        """``expected a value matching one of the 3 alternatives``."""
        return f"expected a value matching one of the {self.alternatives} alternatives"


@frozen
class SeveralMatch:
    """The value matches alternatives ``first`` and ``second`` of a ``oneOf``, which allows only one."""

    first: int
    second: int

    def describe(self) -> str:
        """``matches alternatives 0 and 1 of "oneOf"; exactly one must match``."""
        return f'matches alternatives {self.first} and {self.second} of "oneOf"; exactly one must match'


@frozen
class MatchesNot:
    """The value matches the schema under ``not``."""

    def describe(self) -> str:
        """The reason as text."""
        return 'matches the schema under "not", which it must not'


@frozen
class TooDeep:
    """The value (or the schema's recursion over it) is nested too deeply to validate."""

    def describe(self) -> str:
        """The reason as text."""
        return "nested too deeply to validate"


Reason: TypeAlias = (
    WrongType
    | NotJson
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


_NOTHING_REDACTED: frozenset[int] = frozenset()


class ValidationError:
    """
    Why a value is outside a contract: ``path`` in the value and a typed ``reason``. Immutable.

    ``redacted`` holds the positions in ``path`` of member names that came from the value without being
    declared by the schema; they stay in ``path`` for code and are left out of ``describe()``.

    (Written by hand rather than with attrs: validation builds one per failure on its hot path, with its
    path reversed in ``rpath`` while the failure travels up; ``path`` is settled on first use.)
    """

    __slots__ = ("_path", "_redacted", "reason", "rpath")
    __match_args__ = ("path", "reason", "redacted")

    reason: Reason
    rpath: list[str | int | Hidden]
    _path: Path
    _redacted: frozenset[int]

    def __init__(self, path: Path, reason: Reason, redacted: frozenset[int] = _NOTHING_REDACTED) -> None:
        _set_reason(self, reason)
        _set_rpath(self, [])
        _set_path(self, tuple(path))
        _set_redacted(self, frozenset(redacted))

    @property
    def path(self) -> Path:
        """Where, outermost first: member names and item indexes."""
        try:
            return self._path
        except AttributeError:
            return self._settle()[0]

    @property
    def redacted(self) -> frozenset[int]:
        """Positions in ``path`` that ``describe()`` leaves out."""
        try:
            return self._redacted
        except AttributeError:
            return self._settle()[1]

    def _settle(self) -> tuple[Path, frozenset[int]]:
        segments = self.rpath[::-1]
        hidden = [n for n, segment in enumerate(segments) if isinstance(segment, Hidden)]
        path: Path = tuple(segment.key if isinstance(segment, Hidden) else segment for segment in segments)
        redacted = frozenset(hidden) if hidden else _NOTHING_REDACTED
        _set_path(self, path)
        _set_redacted(self, redacted)
        return path, redacted

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ValidationError):
            return NotImplemented
        return (self.path, self.reason, self.redacted) == (other.path, other.reason, other.redacted)

    def __hash__(self) -> int:
        return hash((self.path, self.reason, self.redacted))

    def __repr__(self) -> str:
        return f"ValidationError(path={self.path!r}, reason={self.reason!r}, redacted={self.redacted!r})"

    def describe(self) -> str:
        """``$["city"]: expected a string``."""
        path = self.path
        if self.redacted:
            path = tuple(segment for n, segment in enumerate(path) if n not in self.redacted)
        return f"{render_path(path)}: {self.reason.describe()}"

    def __str__(self) -> str:
        return self.describe()


_set_reason = ValidationError.__dict__["reason"].__set__
_set_rpath = ValidationError.__dict__["rpath"].__set__
_set_path = ValidationError.__dict__["_path"].__set__
_set_redacted = ValidationError.__dict__["_redacted"].__set__
_new = object.__new__


def failure(reason: Reason) -> ValidationError:
    """A failure under construction at the failing value (its parents add their path segments)."""
    made = _new(ValidationError)
    _set_reason(made, reason)
    _set_rpath(made, [])
    return made


def _quote(text: str) -> str:
    return render_path((text,))[2:-1]
