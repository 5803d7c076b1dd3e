"""
Errors as values: why a JSON value was refused, and why a response as a whole failed.

::

    ValueFailure                    one value (tool arguments, structured output) refused
    ├── InvalidJson(parse_error)        not strict JSON within the limits
    ├── SchemaRejected(validation_error)  JSON, but outside the schema
    └── DecodeRejected(decode_error)    inside the schema, refused by the native codec

    Error                           a response that cannot be used
    ├── Protocol(detail)                the provider or model broke the protocol
    └── LimitExceeded(limit, value, measured)  a bound was reached

Every type has a stable machine ``name`` for logs and a ``describe()`` text that never repeats input.
Branch on the types, never on the texts.
"""

from __future__ import annotations

from typing import TypeAlias

from attrs import frozen

from llm_wire.codec import DecodeError
from llm_wire.contract import ValidationError
from llm_wire.value import ParseError

__all__ = [
    "DecodeRejected",
    "Error",
    "InvalidJson",
    "LimitExceeded",
    "Protocol",
    "SchemaRejected",
    "ValueFailure",
    "describe_value_failure",
]


@frozen
class InvalidJson:
    """The text is not strict JSON within the limits."""

    parse_error: ParseError

    @property
    def name(self) -> str:
        """``invalid_json``."""
        return "invalid_json"

    def describe(self) -> str:
        """``invalid JSON at line L, column C: reason``."""
        return self.parse_error.describe()


@frozen
class SchemaRejected:
    """The value is JSON but does not satisfy the schema."""

    validation_error: ValidationError

    @property
    def name(self) -> str:
        """``schema_rejected``."""
        return "schema_rejected"

    def describe(self) -> str:
        """``schema validation failed: $["a"]: reason``."""
        return f"schema validation failed: {self.validation_error.describe()}"


@frozen
class DecodeRejected:
    """The value satisfies the schema but the native codec refuses it."""

    decode_error: DecodeError

    @property
    def name(self) -> str:
        """``decode_rejected``."""
        return "decode_rejected"

    def describe(self) -> str:
        """``decode failed: $["a"]: reason``."""
        return f"decode failed: {self.decode_error.describe()}"


ValueFailure: TypeAlias = InvalidJson | SchemaRejected | DecodeRejected


def describe_value_failure(failure: ValueFailure) -> str:
    """
    The failure as text: what was wrong and where, never the value itself.
    """
    return failure.describe()


@frozen
class Protocol:
    """
    The provider or the model broke the protocol; ``detail`` is a diagnostic, not an API.
    """

    detail: str

    @property
    def name(self) -> str:
        """``protocol``."""
        return "protocol"

    def describe(self) -> str:
        """``provider protocol violation: detail``."""
        return f"provider protocol violation: {self.detail}"


@frozen
class LimitExceeded:
    """
    A bound was reached: ``limit`` is its stable name, ``value`` the bound, ``measured`` what was seen.
    """

    limit: str
    value: int
    measured: int

    @property
    def name(self) -> str:
        """``limit_exceeded.<limit>``."""
        return f"limit_exceeded.{self.limit}"

    def describe(self) -> str:
        """``limit <limit> exceeded: measured M > L``."""
        return f"limit {self.limit} exceeded: measured {self.measured} > {self.value}"


Error: TypeAlias = Protocol | LimitExceeded
