"""
Decode and encode failures of codecs: the errors with their paths, and the reasons only codecs have.

The reasons a codec shares with contracts (wrong type, bounds, lengths, pattern, enum, missing and unexpected
members, depth, invalid JSON) are ``llm_wire.reasons``; the codec-only ones are::

    DecodeReason
    ├── the shared reasons of llm_wire.reasons
    ├── LimitExceeded                    nesting depth beyond ``Limits`` (decode_json)
    ├── UnknownTag(tags)                 a union's tag names no variant
    ├── FloatOutOfRange                  a number too large for a binary64 float
    ├── IntegerTooLarge                  an integral number with too many digits for ``int``
    ├── ConversionRefused(by)                      a constructor or conversion function raised (TypeError...)
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

from attrs import field, frozen

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
from llm_wire.value import Path, render

__all__ = [
    "ContractMismatch",
    "Custom",
    "DecodeError",
    "DecodeReason",
    "EncodeError",
    "EncodeReason",
    "FloatOutOfRange",
    "IntegerTooLarge",
    "NonFiniteNumber",
    "NullInsideNullable",
    "ConversionRefused",
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


@frozen
class FloatOutOfRange(Described):
    """A number is too large in magnitude for a binary64 float."""

    def describe(self) -> str:
        """``number outside the float range``."""
        return "number outside the float range"


@frozen
class IntegerTooLarge(Described):
    """An integral number has more digits than an ``int`` codec converts (a guard against huge exponents)."""

    def describe(self) -> str:
        """``integer has too many digits``."""
        return "integer has too many digits"


@frozen
class ConversionRefused(Described):
    """A class constructor or a conversion function raised on the value; ``by`` names it (from source)."""

    by: str

    def describe(self) -> str:
        """``refused by the constructor of GetWeather``; the exception's own text is never shown."""
        return f"refused by {self.by}"


@frozen
class ContractMismatch(Described):
    """The codec's schema differs from the contract's, so the contract's witness cannot be decoded."""

    def describe(self) -> str:
        """``the codec's schema differs from the contract's``."""
        return "the codec's schema differs from the contract's"


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


@frozen
class UnknownEnumValue(Described):
    """The native value given to an enum's ``encode`` is none of its values."""

    def describe(self) -> str:
        """``value is not in the enum``."""
        return "value is not in the enum"


@frozen
class UnknownVariant(Described):
    """The native value given to a union's ``encode`` matches none of its variants."""

    def describe(self) -> str:
        """``value matches no variant of the union``."""
        return "value matches no variant of the union"


@frozen
class NullInsideNullable(Described):
    """A nullable's inner codec encoded a value as ``null``, which would decode back as ``None``."""

    def describe(self) -> str:
        """``the inner value of a nullable encoded as null``."""
        return "the inner value of a nullable encoded as null"


@frozen
class NonFiniteNumber(Described):
    """A float or Decimal to encode is NaN or infinite; JSON has no such numbers."""

    def describe(self) -> str:
        """``number is not finite``."""
        return "number is not finite"


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

_SHOWN: frozenset[int] = frozenset()


@frozen
class DecodeError(Described):
    """
    Why a value did not decode: where (``path``, outermost first) and why (a typed ``reason``).

    ``hidden`` lists the positions in ``path`` of member names taken from the input that the codec does not
    declare (string-map keys, an unexpected member); the text shows them as ``[*]``.
    """

    path: Path
    reason: DecodeReason
    hidden: frozenset[int] = field(default=_SHOWN, kw_only=True)

    def describe(self) -> str:
        """``$["user"]["age"]: expected at most 150``; never contains an input value."""
        if isinstance(self.reason, InvalidJson):
            return self.reason.describe()
        return f"{render_redacted(self.path, self.hidden)}: {self.reason.describe()}"


@frozen
class EncodeError(Described):
    """
    Why a native value did not encode: where (``path`` in the JSON it would have become) and why.
    """

    path: Path
    reason: EncodeReason
    hidden: frozenset[int] = field(default=_SHOWN, kw_only=True)

    def describe(self) -> str:
        """``$["location"]["latitude"]: number is not finite``."""
        return f"{render_redacted(self.path, self.hidden)}: {self.reason.describe()}"


class _CodecFailure(Exception):
    """
    Internal: unwinds a decode or encode from the failing value to the codec's entry point.

    Each enclosing combinator appends its path segment, so ``rpath`` is innermost first.
    """

    def __init__(self, reason: DecodeReason | EncodeReason) -> None:
        self.reason = reason
        self.rpath: list[str | int] = []
        self.rkeys: list[int] = []

    def at(self, segment: str | int) -> _CodecFailure:
        """Append one segment (outer to this failure); returns ``self`` for ``raise``."""
        self.rpath.append(segment)
        return self

    def at_key(self, key: str) -> _CodecFailure:
        """Append a member name taken from the input that the codec does not declare (shown as ``[*]``)."""
        self.rkeys.append(len(self.rpath))
        self.rpath.append(key)
        return self

    @classmethod
    def of(
        cls, path: Path, reason: DecodeReason | EncodeReason, hidden: frozenset[int] = _SHOWN
    ) -> _CodecFailure:
        """A failure that already carries a path (from a ``custom`` callback's error)."""
        fail = cls(reason)
        n = len(path)
        fail.rpath = list(reversed(path))
        fail.rkeys = [n - 1 - k for k in hidden]
        return fail

    def path(self) -> tuple[Path, frozenset[int]]:
        """The path outermost first, and the positions of hidden segments in it."""
        n = len(self.rpath)
        return tuple(reversed(self.rpath)), frozenset(n - 1 - k for k in self.rkeys) if self.rkeys else _SHOWN


def decode_error(fail: _CodecFailure) -> DecodeError:
    """The public error for an internal decode failure."""
    path, hidden = fail.path()
    return DecodeError(path, fail.reason, hidden=hidden)  # type: ignore[arg-type]


def encode_error(fail: _CodecFailure) -> EncodeError:
    """The public error for an internal encode failure."""
    path, hidden = fail.path()
    return EncodeError(path, fail.reason, hidden=hidden)  # type: ignore[arg-type]
