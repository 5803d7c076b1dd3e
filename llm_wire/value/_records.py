"""
The records of exact JSON values (``llm_wire.value`` exports them): the value types, the parser's ``Limits``
and why a document was refused (``ParseError``, its ``Location`` and its ``ParseReason``).
"""

from __future__ import annotations

import enum
from decimal import Decimal
from typing import TypeAlias

from attrs import evolve, frozen

from llm_wire._checks import positive as _positive
from llm_wire._described import Described
from llm_wire._fast import Lean
from llm_wire.error import LimitExceeded

__all__ = [
    "DEFAULT",
    "DuplicateKey",
    "Limits",
    "Location",
    "ParseError",
    "ParseReason",
    "Path",
    "PlainValue",
    "Syntax",
    "Value",
    "is_limit_exceeded",
    "over",
]

Value: TypeAlias = "bool | str | int | Decimal | list[Value] | dict[str, Value] | None"

#: A value for ``json.dumps`` and SDKs: numbers are ``int`` and ``float`` (``to_plain``).
PlainValue: TypeAlias = "bool | str | int | float | list[PlainValue] | dict[str, PlainValue] | None"

#: A location inside a value: object member names and array indexes, outermost first.
Path: TypeAlias = tuple[str | int, ...]


@frozen
class Limits:
    """
    Bounds on what ``parse`` accepts. Each ``with_*`` returns a copy with one bound changed.
    """

    #: Size of the document in UTF-8 bytes.
    max_bytes: int = 1024 * 1024
    #: Nesting depth of arrays and objects.
    max_depth: int = 64
    #: Number of values: containers and scalars (member names are not values).
    max_values: int = 262_144
    #: Length of one number token in bytes.
    max_number_bytes: int = 1024
    #: Significant digits of one number (leading zeros are not significant).
    max_number_digits: int = 800
    #: Largest absolute exponent written in a number token.
    max_exponent: int = 1200

    def with_max_bytes(self, n: int) -> Limits:
        """Allow documents of up to ``n`` UTF-8 bytes."""
        return evolve(self, max_bytes=_positive(n))

    def with_max_depth(self, n: int) -> Limits:
        """Allow nesting up to ``n`` levels."""
        return evolve(self, max_depth=_positive(n))

    def with_max_values(self, n: int) -> Limits:
        """Allow up to ``n`` values in one document."""
        return evolve(self, max_values=_positive(n))

    def with_max_number_bytes(self, n: int) -> Limits:
        """Allow number tokens of up to ``n`` bytes."""
        return evolve(self, max_number_bytes=_positive(n))

    def with_max_number_digits(self, n: int) -> Limits:
        """Allow numbers with up to ``n`` significant digits."""
        return evolve(self, max_number_digits=_positive(n))

    def with_max_exponent(self, n: int) -> Limits:
        """Allow exponents up to ``n`` in absolute value."""
        return evolve(self, max_exponent=_positive(n))


#: The default limits: 1 MiB, depth 64, 262,144 values, numbers of 1,024 bytes / 800 digits / exponent 1,200.
DEFAULT = Limits()


class Syntax(enum.Enum):
    """
    Why a document is not strict JSON (limits aside).
    """

    EXPECTED_VALUE = "expected a JSON value"
    UNEXPECTED_END = "unexpected end of input"
    EXPECTED_COMMA_OR_BRACKET = "expected ',' or ']'"
    EXPECTED_COMMA_OR_BRACE = "expected ',' or '}'"
    EXPECTED_KEY = "expected a string key in double quotes"
    EXPECTED_COLON = "expected ':'"
    TRAILING_CONTENT = "unexpected content after the JSON value"
    TRAILING_COMMA = "trailing comma"
    COMMENT = "comments are not allowed"
    SINGLE_QUOTE = "strings must use double quotes"
    NON_FINITE = "NaN and Infinity are not JSON numbers"
    LEADING_ZERO = "numbers must not have leading zeros"
    PLUS_SIGN = "numbers must not start with '+'"
    INVALID_NUMBER = "invalid number"
    CONTROL_CHARACTER = "unescaped control character in a string"
    INVALID_ESCAPE = "invalid escape sequence"
    LONE_SURROGATE = "unpaired UTF-16 surrogate"
    UNTERMINATED_STRING = "unterminated string"
    INVALID_UTF8 = "invalid UTF-8"
    BYTE_ORDER_MARK = "a byte order mark is not allowed"

    def describe(self) -> str:
        """The reason as text."""
        return self.value

    def __str__(self) -> str:
        return self.describe()


@frozen
class DuplicateKey(Described):
    """
    An object names the same member twice (compared after unescaping). ``key`` never reaches the text.
    """

    key: str

    TEXT = "duplicate object key"


_LIMIT_TEXT = {
    "with_max_bytes": "document size in bytes",
    "with_max_depth": "nesting depth",
    "with_max_values": "number of values",
    "with_max_number_bytes": "number length in bytes",
    "with_max_number_digits": "significant digits of a number",
    "with_max_exponent": "exponent of a number",
}


def over(method: str, maximum: int) -> LimitExceeded:
    """The parser's limit error: ``method`` is the ``Limits`` method that raises ``maximum``."""
    return LimitExceeded(f"Limits.{method}", maximum, what=_LIMIT_TEXT[method])


ParseReason: TypeAlias = Syntax | DuplicateKey | LimitExceeded


@frozen
class Location(Lean):
    """
    Where a problem starts: UTF-8 byte offset from 0, then line and column (code points) from 1.
    """

    byte_offset: int
    line: int
    column: int


@frozen
class ParseError(Described):
    """
    A document that ``parse`` refused: where and why. Its text never contains input.
    """

    location: Location
    reason: ParseReason

    def describe(self) -> str:
        """``invalid JSON at line L, column C: reason``."""
        loc = self.location
        return f"invalid JSON at line {loc.line}, column {loc.column}: {self.reason.describe()}"


def is_limit_exceeded(error: ParseError) -> bool:
    """
    Whether ``error`` says "too large" rather than "invalid".
    """
    return isinstance(error.reason, LimitExceeded)
