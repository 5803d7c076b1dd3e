"""
The one vocabulary of value failures, shared by codecs, contracts and admission, and the one redaction rule.

A codec's ``decode`` and the contract compiled from that codec's schema report the same bad value with the
same reason, the same path and the same text. Every text reads ``expected ...`` where it can, names only what
the schema or codec declares, and never repeats an input value::

    shared reasons                            text
    ├── InvalidJson(error)                    the parse error's text (line, column, what), at the root
    ├── WrongType(expected)                   expected a string or null
    ├── NotInEnum(options)                    expected one of "celsius", "fahrenheit"
    ├── BelowMinimum(limit, exclusive)        expected at least 1 / expected more than 0
    ├── AboveMaximum(limit, exclusive)        expected at most 10 / expected less than 10
    ├── NotMultipleOf(divisor)                expected a multiple of 0.5
    ├── TooShort(minimum), TooLong(maximum)   expected at least 3 characters / at most 3 characters
    ├── FormatMismatch(format)                expected a string in date-time format
    ├── PatternMismatch(pattern)              expected a string matching the pattern "^[a-z]+$"
    ├── TooFewItems(minimum)                  expected at least 1 item
    ├── TooManyItems(maximum)                 expected at most 3 items
    ├── MissingProperty()                     required property is missing (the path ends with its name)
    ├── UnexpectedProperty(allowed)           unexpected property; the allowed properties are "a", "b"
    └── TooDeep()                             value nested too deeply

Bounds are ``llm_wire.error.LimitExceeded``. Codec-only reasons live in ``llm_wire.codec`` (``DecodeReason``,
``EncodeReason``), contract-only ones in ``llm_wire.contract`` (``Reason``, ``LoadReason``).

Redaction: a path keeps every segment for code; its text shows each segment taken from the input and not
declared by the codec or schema (a map key, an unexpected member) as ``[*]``, so
``$["tags"][*]: expected a string``. ``DecodeError`` and ``ValidationError`` both render through that rule.

Every reason stands on ``llm_wire._described.Described``: its ``str()`` is its ``describe()``.
"""

from __future__ import annotations

from decimal import Decimal

from attrs import frozen

from llm_wire._described import Described as _Described
from llm_wire.value import ParseError, render_path

__all__ = [
    "AboveMaximum",
    "BelowMinimum",
    "InvalidJson",
    "MissingProperty",
    "NotInEnum",
    "NotMultipleOf",
    "FormatMismatch",
    "PatternMismatch",
    "TooDeep",
    "TooFewItems",
    "TooLong",
    "TooManyItems",
    "TooShort",
    "UnexpectedProperty",
    "WrongType",
]


def _quote(text: str) -> str:
    return render_path((text,))[2:-1]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


_ARTICLES = {
    "null": "null",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
    "number": "a number",
    "string": "a string",
    "integer": "an integer",
}


@frozen
class InvalidJson(_Described):
    """The text is not strict JSON within the limits."""

    error: ParseError

    @property
    def name(self) -> str:
        """``invalid_json``."""
        return "invalid_json"

    def describe(self) -> str:
        """``invalid JSON at line L, column C: reason``."""
        return self.error.describe()


class TooDeep(_Described):
    """The value is nested too deeply to check (or, on encode, is cyclic)."""

    __slots__ = ()
    TEXT = "value nested too deeply"


@frozen
class WrongType(_Described):
    """The value's JSON type is not among ``expected`` (JSON Schema type names, in schema order)."""

    expected: tuple[str, ...]

    def describe(self) -> str:
        """``expected a string or null``."""
        words = [_ARTICLES.get(name, name) for name in self.expected]
        return "expected " + (words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1])


@frozen
class NotInEnum(_Described):
    """The value is none of the allowed values; ``options`` holds them as JSON text, from the schema."""

    options: tuple[str, ...]

    def describe(self) -> str:
        """``expected one of "a", "b"`` (or the count when the list is long)."""
        if len(self.options) <= 8 and sum(len(o) for o in self.options) <= 160:
            return "expected one of " + ", ".join(self.options)
        return f"expected one of the {len(self.options)} allowed values"


@frozen
class BelowMinimum(_Described):
    """A number below ``minimum`` (or not above ``exclusiveMinimum`` when ``exclusive``)."""

    limit: int | Decimal
    exclusive: bool = False

    def describe(self) -> str:
        """``expected at least 1`` or ``expected more than 0``."""
        return f"expected {'more than' if self.exclusive else 'at least'} {self.limit}"


@frozen
class AboveMaximum(_Described):
    """A number above ``maximum`` (or not below ``exclusiveMaximum`` when ``exclusive``)."""

    limit: int | Decimal
    exclusive: bool = False

    def describe(self) -> str:
        """``expected at most 10`` or ``expected less than 10``."""
        return f"expected {'less than' if self.exclusive else 'at most'} {self.limit}"


@frozen
class NotMultipleOf(_Described):
    """A number that is not an exact multiple of ``divisor``."""

    divisor: int | Decimal

    def describe(self) -> str:
        """``expected a multiple of 0.5``."""
        return f"expected a multiple of {self.divisor}"


@frozen
class TooShort(_Described):
    """A string with fewer than ``minimum`` characters (code points)."""

    minimum: int

    def describe(self) -> str:
        """``expected at least 3 characters``."""
        return f"expected at least {_plural(self.minimum, 'character')}"


@frozen
class TooLong(_Described):
    """A string with more than ``maximum`` characters (code points)."""

    maximum: int

    def describe(self) -> str:
        """``expected at most 3 characters``."""
        return f"expected at most {_plural(self.maximum, 'character')}"


@frozen
class FormatMismatch(_Described):
    """A string that is not valid in its ``format`` (asserted by a contract, or decoded by a format codec)."""

    format: str

    def describe(self) -> str:
        """``expected a string in date-time format``."""
        return f"expected a string in {self.format} format"


@frozen
class PatternMismatch(_Described):
    """A string that the ``pattern`` (ECMA-262, searched) does not match."""

    pattern: str

    def describe(self) -> str:
        """``expected a string matching the pattern "^[a-z]+$"``."""
        if len(self.pattern) <= 120:
            return f"expected a string matching the pattern {_quote(self.pattern)}"
        return "expected a string matching the schema's pattern"


@frozen
class TooFewItems(_Described):
    """An array with fewer than ``minimum`` items."""

    minimum: int

    def describe(self) -> str:
        """``expected at least 1 item``."""
        return f"expected at least {_plural(self.minimum, 'item')}"


@frozen
class TooManyItems(_Described):
    """An array with more than ``maximum`` items."""

    maximum: int

    def describe(self) -> str:
        """``expected at most 3 items``."""
        return f"expected at most {_plural(self.maximum, 'item')}"


class MissingProperty(_Described):
    """A required member is absent (or, on encode, a required attribute); the path ends with its name."""

    __slots__ = ()
    TEXT = "required property is missing"


@frozen
class UnexpectedProperty(_Described):
    """
    A member that is not allowed; ``allowed`` lists the declared names (from the schema or codec, never the
    input), empty when every declared name is evaluated elsewhere (``unevaluatedProperties``).
    """

    allowed: tuple[str, ...] = ()

    def describe(self) -> str:
        """``unexpected property; the allowed properties are "a", "b"``."""
        if not self.allowed:
            return "unexpected property"
        if len(self.allowed) <= 12:
            return "unexpected property; the allowed properties are " + ", ".join(map(_quote, self.allowed))
        return f"unexpected property; {len(self.allowed)} properties are allowed"
