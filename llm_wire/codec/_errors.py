"""
Decode and encode failures of codecs: typed reasons, errors with paths, and their texts.

Re-exported by ``llm_wire.codec``; the reasons are::

    DecodeReason
    ├── InvalidJson(error)               decode_json only, at the root
    ├── WrongType(expected)              expected a string / an integer / ...
    ├── MissingField, UnknownField       records and unions
    ├── UnknownLabel(labels)             enums and literals
    ├── UnknownTag(tags)                 unions
    ├── WrongLength(expected)            tuples
    ├── ItemCount, StringLength          min/max items, min/max length
    ├── PatternMismatch(pattern)
    ├── OutsideRange(kind, bounds), NotMultipleOf(kind, multiple_of)
    ├── FloatOutOfRange, IntegerTooLarge
    ├── Refused(by)                      a constructor or conversion function raised (TypeError...)
    ├── LimitExceeded, TooDeep           nesting depth
    ├── ContractMismatch                 the contract layer's ``decode(codec, validated)``
    ├── UnexpectedType(expected)         a hand-built value that is not JSON (``json_value``)
    └── Custom(message)                  try_map and custom codecs

    EncodeReason: UnexpectedType, UnknownEnumValue, UnknownVariant, NullInsideNullable, NonFiniteNumber,
    MissingField and UnknownField (``record(dict, ...)``), the range/length/pattern reasons, TooDeep, Custom.
"""

from __future__ import annotations

import enum
from decimal import Decimal
from typing import TypeAlias

from attrs import field, frozen

from llm_wire.error import LimitExceeded
from llm_wire.value import ParseError, Path, render, render_path

__all__ = [
    "Bounds",
    "ContractMismatch",
    "Custom",
    "DecodeError",
    "DecodeReason",
    "EncodeError",
    "EncodeReason",
    "FloatOutOfRange",
    "IntegerTooLarge",
    "InvalidJson",
    "ItemCount",
    "JsonType",
    "MissingField",
    "NonFiniteNumber",
    "NotMultipleOf",
    "NullInsideNullable",
    "OutsideRange",
    "PatternMismatch",
    "Refused",
    "StringLength",
    "TooDeep",
    "UnexpectedType",
    "UnknownEnumValue",
    "UnknownField",
    "UnknownLabel",
    "UnknownTag",
    "UnknownVariant",
    "WrongLength",
    "WrongType",
]

#: How many labels or tags a text lists before it says "...".
_LISTED = 12


class JsonType(enum.Enum):
    """A kind of JSON value, as an error names it."""

    NULL = "null"
    BOOLEAN = "a boolean"
    STRING = "a string"
    INTEGER = "an integer"
    NUMBER = "a number"
    ARRAY = "an array"
    OBJECT = "an object"


@frozen
class InvalidJson:
    """The text given to ``decode_json`` is not strict JSON (or is too large)."""

    error: ParseError

    def describe(self) -> str:
        """The parse error's own text."""
        return self.error.describe()


@frozen
class WrongType:
    """The value is not the kind of JSON value the codec reads."""

    expected: JsonType

    def describe(self) -> str:
        """``expected an integer``."""
        return f"expected {self.expected.value}"


@frozen
class MissingField:
    """A required member is absent (decode), or a required attribute is absent (encode)."""

    def describe(self) -> str:
        """``missing field``."""
        return "missing field"


@frozen
class UnknownField:
    """An object has a member the codec does not declare; its name stays out of the text."""

    def describe(self) -> str:
        """``unknown field``."""
        return "unknown field"


def _listing(items: tuple[str | int | bool | None, ...]) -> str:
    shown = ", ".join(render(item) for item in items[:_LISTED])
    return shown + (", ..." if len(items) > _LISTED else "")


@frozen
class UnknownLabel:
    """The value is not one of an enum's labels or literals (they come from source, never from input)."""

    labels: tuple[str | int | bool | None, ...]

    def describe(self) -> str:
        """``expected one of "celsius", "fahrenheit"``."""
        return f"expected one of {_listing(self.labels)}"


@frozen
class UnknownTag:
    """A union's tag names no variant."""

    tags: tuple[str, ...]

    def describe(self) -> str:
        """``unknown tag, expected one of "circle", "square"``."""
        return f"unknown tag, expected one of {_listing(self.tags)}"


@frozen
class WrongLength:
    """A tuple has the wrong number of items."""

    expected: int

    def describe(self) -> str:
        """``expected exactly 2 items``."""
        return f"expected exactly {self.expected} item{'' if self.expected == 1 else 's'}"


def _count_range(minimum: int | None, maximum: int | None, unit: str) -> str:
    if minimum is not None and minimum == maximum:
        return f"exactly {minimum} {unit}{'' if minimum == 1 else 's'}"
    if minimum is not None and maximum is not None:
        return f"{minimum} to {maximum} {unit}s"
    if minimum is not None:
        return f"at least {minimum} {unit}{'' if minimum == 1 else 's'}"
    return f"at most {maximum} {unit}{'' if maximum == 1 else 's'}"


@frozen
class ItemCount:
    """An array has too few or too many items."""

    minimum: int | None
    maximum: int | None

    def describe(self) -> str:
        """``expected 1 to 5 items``."""
        return f"expected {_count_range(self.minimum, self.maximum, 'item')}"


@frozen
class StringLength:
    """A string is too short or too long (counted in code points)."""

    minimum: int | None
    maximum: int | None

    def describe(self) -> str:
        """``expected a string of at least 1 character``."""
        return f"expected a string of {_count_range(self.minimum, self.maximum, 'character')}"


@frozen
class PatternMismatch:
    """A string does not match the codec's pattern."""

    pattern: str

    def describe(self) -> str:
        """``string does not match the pattern "^[a-z]+$"``."""
        return f"string does not match the pattern {render(self.pattern)}"


#: A number bound as written in source.
Number: TypeAlias = int | Decimal


@frozen
class Bounds:
    """The range of a numeric codec; ``None`` means unbounded on that side."""

    minimum: Number | None = None
    exclusive_minimum: Number | None = None
    maximum: Number | None = None
    exclusive_maximum: Number | None = None

    def describe(self, kind: str) -> str:
        """``integer outside range 0 to 150`` or ``number must be greater than 0 and at most 1``."""
        inclusive = self.exclusive_minimum is None and self.exclusive_maximum is None
        if inclusive and self.minimum is not None and self.maximum is not None:
            return f"{kind} outside range {self.minimum} to {self.maximum}"
        parts = []
        if self.minimum is not None:
            parts.append(f"at least {self.minimum}")
        if self.exclusive_minimum is not None:
            parts.append(f"greater than {self.exclusive_minimum}")
        if self.maximum is not None:
            parts.append(f"at most {self.maximum}")
        if self.exclusive_maximum is not None:
            parts.append(f"less than {self.exclusive_maximum}")
        return f"{kind} must be {' and '.join(parts)}"


@frozen
class OutsideRange:
    """A number lies outside the codec's bounds."""

    kind: JsonType
    bounds: Bounds

    def describe(self) -> str:
        """``integer outside range 0 to 150``."""
        return self.bounds.describe("integer" if self.kind is JsonType.INTEGER else "number")


@frozen
class NotMultipleOf:
    """A number is not a multiple of the codec's ``multiple_of``."""

    kind: JsonType
    multiple_of: Number

    def describe(self) -> str:
        """``integer is not a multiple of 5``."""
        kind = "integer" if self.kind is JsonType.INTEGER else "number"
        return f"{kind} is not a multiple of {self.multiple_of}"


@frozen
class FloatOutOfRange:
    """A number is too large in magnitude for a binary64 float."""

    def describe(self) -> str:
        """``number outside the float range``."""
        return "number outside the float range"


@frozen
class IntegerTooLarge:
    """An integral number has more digits than an ``int`` codec converts (a guard against huge exponents)."""

    def describe(self) -> str:
        """``integer has too many digits``."""
        return "integer has too many digits"


@frozen
class Refused:
    """A class constructor or a conversion function raised on the value; ``by`` names it (from source)."""

    by: str

    def describe(self) -> str:
        """``refused by the constructor of GetWeather``; the exception's own text is never shown."""
        return f"refused by {self.by}"


@frozen
class TooDeep:
    """The value is nested too deeply for Python's recursion limit (or is cyclic, on encode)."""

    def describe(self) -> str:
        """``value nested too deeply``."""
        return "value nested too deeply"


@frozen
class ContractMismatch:
    """The codec's schema differs from the contract's, so the contract's witness cannot be decoded."""

    def describe(self) -> str:
        """``the codec's schema differs from the contract's``."""
        return "the codec's schema differs from the contract's"


@frozen
class Custom:
    """A ``try_map`` or ``custom`` function refused the value; its message is rendered verbatim."""

    message: str

    def describe(self) -> str:
        """The message, or ``custom validation failed`` when it is empty."""
        return self.message or "custom validation failed"


@frozen
class UnexpectedType:
    """The native value given to ``encode`` is not of the type the codec encodes."""

    expected: str

    def describe(self) -> str:
        """``expected a value of type int``."""
        return f"expected a value of type {self.expected}"


@frozen
class UnknownEnumValue:
    """The native value given to an enum's ``encode`` is none of its values."""

    def describe(self) -> str:
        """``value is not in the enum``."""
        return "value is not in the enum"


@frozen
class UnknownVariant:
    """The native value given to a union's ``encode`` matches none of its variants."""

    def describe(self) -> str:
        """``value matches no variant of the union``."""
        return "value matches no variant of the union"


@frozen
class NullInsideNullable:
    """A nullable's inner codec encoded a value as ``null``, which would decode back as ``None``."""

    def describe(self) -> str:
        """``the inner value of a nullable encoded as null``."""
        return "the inner value of a nullable encoded as null"


@frozen
class NonFiniteNumber:
    """A float or Decimal to encode is NaN or infinite; JSON has no such numbers."""

    def describe(self) -> str:
        """``number is not finite``."""
        return "number is not finite"


DecodeReason: TypeAlias = (
    InvalidJson
    | WrongType
    | MissingField
    | UnknownField
    | UnknownLabel
    | UnknownTag
    | WrongLength
    | ItemCount
    | StringLength
    | PatternMismatch
    | OutsideRange
    | NotMultipleOf
    | FloatOutOfRange
    | IntegerTooLarge
    | Refused
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
    | MissingField
    | UnknownField
    | WrongLength
    | ItemCount
    | StringLength
    | PatternMismatch
    | OutsideRange
    | NotMultipleOf
    | Refused
    | TooDeep
    | Custom
)


def _shown(path: Path, reason: object, keys: tuple[int, ...]) -> str:
    """The path as text: map keys taken from input become ``[*]``; an unknown member's name is dropped."""
    if isinstance(reason, UnknownField) and path:
        path = path[:-1]
    if not keys:
        return render_path(path)
    hidden = set(keys)
    out = ["$"]
    for n, segment in enumerate(path):
        out.append("[*]" if n in hidden else render_path((segment,))[1:])
    return "".join(out)


@frozen
class DecodeError:
    """
    Why a value did not decode: where (``path``, outermost first) and why (a typed ``reason``).

    ``keys`` lists the positions in ``path`` that are keys of a string map, taken from the input; the text
    shows them as ``[*]``.
    """

    path: Path
    reason: DecodeReason
    keys: tuple[int, ...] = field(default=(), kw_only=True)

    def describe(self) -> str:
        """``$["user"]["age"]: integer outside range 0 to 150``; never contains an input value."""
        if isinstance(self.reason, InvalidJson):
            return self.reason.describe()
        return f"{_shown(self.path, self.reason, self.keys)}: {self.reason.describe()}"

    def __str__(self) -> str:
        return self.describe()


@frozen
class EncodeError:
    """
    Why a native value did not encode: where (``path`` in the JSON it would have become) and why.
    """

    path: Path
    reason: EncodeReason
    keys: tuple[int, ...] = field(default=(), kw_only=True)

    def describe(self) -> str:
        """``$["location"]["latitude"]: float is not finite``."""
        return f"{_shown(self.path, self.reason, self.keys)}: {self.reason.describe()}"

    def __str__(self) -> str:
        return self.describe()


class _Fail(Exception):
    """
    Internal: unwinds a decode or encode from the failing value to the codec's entry point.

    Each enclosing combinator appends its path segment, so ``rpath`` is innermost first.
    """

    def __init__(self, reason: DecodeReason | EncodeReason) -> None:
        self.reason = reason
        self.rpath: list[str | int] = []
        self.rkeys: list[int] = []

    def at(self, segment: str | int) -> _Fail:
        """Append one segment (outer to this failure); returns ``self`` for ``raise``."""
        self.rpath.append(segment)
        return self

    def at_key(self, key: str) -> _Fail:
        """Append a string-map key taken from the input."""
        self.rkeys.append(len(self.rpath))
        self.rpath.append(key)
        return self

    @classmethod
    def of(cls, path: Path, reason: DecodeReason | EncodeReason, keys: tuple[int, ...] = ()) -> _Fail:
        """A failure that already carries a path (from a ``custom`` callback's error)."""
        fail = cls(reason)
        n = len(path)
        fail.rpath = list(reversed(path))
        fail.rkeys = [n - 1 - k for k in keys]
        return fail

    def path(self) -> tuple[Path, tuple[int, ...]]:
        """The path outermost first, and the positions of input keys in it."""
        n = len(self.rpath)
        return tuple(reversed(self.rpath)), tuple(sorted(n - 1 - k for k in self.rkeys))


def decode_error(fail: _Fail) -> DecodeError:
    """The public error for an internal decode failure."""
    path, keys = fail.path()
    return DecodeError(path, fail.reason, keys=keys)  # type: ignore[arg-type]


def encode_error(fail: _Fail) -> EncodeError:
    """The public error for an internal encode failure."""
    path, keys = fail.path()
    return EncodeError(path, fail.reason, keys=keys)  # type: ignore[arg-type]
