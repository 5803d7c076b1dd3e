"""
Codecs: typed, strict, two-way conversions between JSON values and Python values, each with its schema.

A ``Codec[T]`` decodes a parsed JSON value to ``T`` (closed objects, no coercion of ``"5"`` to 5), encodes
``T`` back, and carries the Draft 2020-12 schema of what it accepts. Build one from the combinators here,
or from an attrs class or dataclass with ``derive``. Failures are values: ``Err(DecodeError(path, reason))``
with a typed reason and a text that never contains input; the reasons a codec shares with contracts are in
``llm_wire.reasons``. Mistakes in a definition raise ``llm_wire.schema.DefinitionError`` when the codec is
built.
"""

from __future__ import annotations

from llm_wire import _public
from llm_wire import schema as _schema
from llm_wire.codec._choices import enum_of, literal
from llm_wire.codec._containers import dict_of, list_of, nullable, tuple_of
from llm_wire.codec._core import Codec, lazy
from llm_wire.codec._derive import Meta, dataclass_field, derive, field, meta
from llm_wire.codec._errors import DecodeError, EncodeError
from llm_wire.codec._formats import date, date_time, uuid
from llm_wire.codec._reasons import (
    ContractMismatch,
    ConversionRefused,
    Custom,
    DecodeReason,
    EncodeReason,
    FloatOutOfRange,
    IntegerTooLarge,
    NonFiniteNumber,
    NullInsideNullable,
    UnexpectedType,
    UnknownEnumValue,
    UnknownTag,
    UnknownVariant,
)
from llm_wire.codec._records import (
    ABSENT,
    Absent,
    Field,
    Variant,
    internal_union,
    optional,
    record,
    required,
    union,
    unit,
    variant,
)
from llm_wire.codec._scalars import boolean, decimal, floating, integer, json_value, string
from llm_wire.codec._untagged import untagged
from llm_wire.codec._wrap import custom, map, try_map
from llm_wire.value import Path  # noqa: F401 - resolves the errors' annotations here (typing.get_type_hints)

__all__ = [
    # the codec
    "Codec",
    # scalars
    "boolean",
    "decimal",
    "enum_of",
    "floating",
    "integer",
    "json_value",
    "literal",
    "string",
    # formats
    "date",
    "date_time",
    "uuid",
    # containers
    "dict_of",
    "list_of",
    "nullable",
    "tuple_of",
    # records and unions
    "ABSENT",
    "Absent",
    "Field",
    "Variant",
    "internal_union",
    "optional",
    "record",
    "required",
    "union",
    "unit",
    "untagged",
    "variant",
    # wrapping
    "custom",
    "lazy",
    "map",
    "try_map",
    # classes
    "Meta",
    "dataclass_field",
    "derive",
    "field",
    "meta",
    # errors (the reasons shared with contracts are in llm_wire.reasons)
    "DecodeError",
    "DecodeReason",
    "EncodeError",
    "EncodeReason",
    "ContractMismatch",
    "Custom",
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

_public.rehome(__name__, __all__, globals())

# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
DefinitionError = _schema.DefinitionError
number = decimal
