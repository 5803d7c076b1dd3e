"""
The reasons only codecs have, and the ``WrongType`` values the combinators raise. The codec-only reasons
are::

    DecodeReason
    ├── the shared reasons of llm_wire.reasons
    ├── LimitExceeded                    nesting depth beyond ``Limits`` (decode_json)
    ├── UnknownTag(tags)                 a union's tag names no variant
    ├── FloatOutOfRange                  a number too large for a binary64 float
    ├── IntegerTooLarge                  an integral number with too many digits for ``int``
    ├── ConversionRefused(by)            a constructor or conversion function raised (TypeError...)
    ├── ContractMismatch                 the contract layer's ``decode(codec, validated)``
    ├── UnexpectedType(expected)         a hand-built value that is not JSON (``json_value``)
    └── Custom(message)                  try_map and custom codecs

    EncodeReason
    ├── UnexpectedType, UnknownEnumValue, UnknownVariant, NullInsideNullable, NonFiniteNumber
    ├── MissingProperty, UnexpectedProperty (``record(dict, ...)``), the bound, length and pattern reasons
    └── TooDeep, ConversionRefused, Custom
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
from llm_wire.value import render

__all__ = [
    "ContractMismatch",
    "ConversionRefused",
    "Custom",
    "DecodeReason",
    "EncodeReason",
    "FloatOutOfRange",
    "IntegerTooLarge",
    "NonFiniteNumber",
    "NullInsideNullable",
    "UnexpectedType",
    "UnknownEnumValue",
    "UnknownTag",
    "UnknownVariant",
]

#: How many tags a text lists before it says "...".
_LISTED = 12


@frozen
class UnknownTag(Described):
    """A union's tag names no variant; ``tags`` are the variants' tags (from source, never from input)."""

    tags: tuple[str, ...]

    def describe(self) -> str:
        """``expected one of the tags "circle", "square"``."""
        shown = ", ".join(render(tag) for tag in self.tags[:_LISTED])
        return f"expected one of the tags {shown}" + (", ..." if len(self.tags) > _LISTED else "")


class FloatOutOfRange(Described):
    """A number is too large in magnitude for a binary64 float."""

    __slots__ = ()
    TEXT = "number outside the float range"


class IntegerTooLarge(Described):
    """An integral number has more digits than an ``int`` codec converts (a guard against huge exponents)."""

    __slots__ = ()
    TEXT = "integer has too many digits"


@frozen
class ConversionRefused(Described):
    """A class constructor or a conversion function raised on the value; ``by`` names it (from source)."""

    by: str

    def describe(self) -> str:
        """``refused by the constructor of GetWeather``; the exception's own text is never shown."""
        return f"refused by {self.by}"


class ContractMismatch(Described):
    """The codec's schema differs from the contract's, so the contract's witness cannot be decoded."""

    __slots__ = ()
    TEXT = "the codec's schema differs from the contract's"


@frozen
class Custom(Described):
    """A ``try_map`` or ``custom`` function refused the value; its message is rendered verbatim."""

    message: str

    def describe(self) -> str:
        """The message, or ``custom validation failed`` when it is empty."""
        return self.message or "custom validation failed"


@frozen
class UnexpectedType(Described):
    """The native value given to ``encode`` is not of the type the codec encodes."""

    expected: str

    def describe(self) -> str:
        """``expected a value of type int``."""
        return f"expected a value of type {self.expected}"


class UnknownEnumValue(Described):
    """The native value given to an enum's ``encode`` is none of its values."""

    __slots__ = ()
    TEXT = "value is not in the enum"


class UnknownVariant(Described):
    """The native value given to a union's ``encode`` matches none of its variants."""

    __slots__ = ()
    TEXT = "value matches no variant of the union"


class NullInsideNullable(Described):
    """A nullable's inner codec encoded a value as ``null``, which would decode back as ``None``."""

    __slots__ = ()
    TEXT = "the inner value of a nullable encoded as null"


class NonFiniteNumber(Described):
    """A float or Decimal to encode is NaN or infinite; JSON has no such numbers."""

    __slots__ = ()
    TEXT = "number is not finite"


DecodeReason: TypeAlias = (
    InvalidJson
    | WrongType
    | MissingProperty
    | UnexpectedProperty
    | NotInEnum
    | UnknownTag
    | FormatMismatch
    | TooFewItems
    | TooManyItems
    | TooShort
    | TooLong
    | PatternMismatch
    | BelowMinimum
    | AboveMaximum
    | NotMultipleOf
    | FloatOutOfRange
    | IntegerTooLarge
    | ConversionRefused
    | LimitExceeded
    | TooDeep
    | ContractMismatch
    | UnexpectedType
    | Custom
)

EncodeReason: TypeAlias = (
    UnexpectedType
    | UnknownEnumValue
    | UnknownVariant
    | NullInsideNullable
    | NonFiniteNumber
    | MissingProperty
    | UnexpectedProperty
    | TooFewItems
    | TooManyItems
    | TooShort
    | TooLong
    | PatternMismatch
    | BelowMinimum
    | AboveMaximum
    | NotMultipleOf
    | ConversionRefused
    | TooDeep
    | Custom
)


#: The type failures the combinators raise, made once.
EXPECTED_BOOLEAN = WrongType(("boolean",))
EXPECTED_STRING = WrongType(("string",))
EXPECTED_INTEGER = WrongType(("integer",))
EXPECTED_NUMBER = WrongType(("number",))
EXPECTED_ARRAY = WrongType(("array",))
EXPECTED_OBJECT = WrongType(("object",))
