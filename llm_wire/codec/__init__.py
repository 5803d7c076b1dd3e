"""
Codecs: typed, strict, two-way conversions between JSON values and Python values, each with its schema.

A ``Codec[T]`` decodes a parsed JSON value to ``T`` (closed objects, no coercion of ``"5"`` to 5), encodes
``T`` back, and carries the Draft 2020-12 schema of what it accepts. Build one from the combinators here,
or from an attrs class or dataclass with ``derive``. Failures are values: ``Err(DecodeError(path, reason))``
with a typed reason and a text that never contains input; the reasons a codec shares with contracts are in
``llm_wire.reasons``. Mistakes in a definition raise
``DefinitionError`` when the codec is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llm_wire._public import lazy_face
from llm_wire.schema import DefinitionError
from llm_wire.value import Path  # noqa: F401 - resolves the errors' annotations here (typing.get_type_hints)

if TYPE_CHECKING:
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
    from llm_wire.codec._scalars import boolean, decimal, floating, integer, json_value, number, string
    from llm_wire.codec._untagged import untagged
    from llm_wire.codec._wrap import custom, map, try_map

__all__ = [
    # the codec
    "Codec",
    "DefinitionError",
    # scalars
    "boolean",
    "decimal",
    "enum_of",
    "floating",
    "integer",
    "json_value",
    "literal",
    "number",
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

#: Where each name of this face lives. The names load on first use, as the package's facade does: a
#: contract or a tool needs only ``Codec`` and the errors, not every combinator and ``derive``.
_HOMES = {
    "ABSENT": "llm_wire.codec._records",
    "Absent": "llm_wire.codec._records",
    "boolean": "llm_wire.codec._scalars",
    "Codec": "llm_wire.codec._core",
    "ContractMismatch": "llm_wire.codec._reasons",
    "ConversionRefused": "llm_wire.codec._reasons",
    "custom": "llm_wire.codec._wrap",
    "Custom": "llm_wire.codec._reasons",
    "dataclass_field": "llm_wire.codec._derive",
    "date": "llm_wire.codec._formats",
    "date_time": "llm_wire.codec._formats",
    "decimal": "llm_wire.codec._scalars",
    "DecodeError": "llm_wire.codec._errors",
    "DecodeReason": "llm_wire.codec._reasons",
    "derive": "llm_wire.codec._derive",
    "dict_of": "llm_wire.codec._containers",
    "EncodeError": "llm_wire.codec._errors",
    "EncodeReason": "llm_wire.codec._reasons",
    "enum_of": "llm_wire.codec._choices",
    "field": "llm_wire.codec._derive",
    "Field": "llm_wire.codec._records",
    "floating": "llm_wire.codec._scalars",
    "FloatOutOfRange": "llm_wire.codec._reasons",
    "integer": "llm_wire.codec._scalars",
    "IntegerTooLarge": "llm_wire.codec._reasons",
    "internal_union": "llm_wire.codec._records",
    "json_value": "llm_wire.codec._scalars",
    "lazy": "llm_wire.codec._core",
    "list_of": "llm_wire.codec._containers",
    "literal": "llm_wire.codec._choices",
    "map": "llm_wire.codec._wrap",
    "Meta": "llm_wire.codec._derive",
    "meta": "llm_wire.codec._derive",
    "NonFiniteNumber": "llm_wire.codec._reasons",
    "nullable": "llm_wire.codec._containers",
    "NullInsideNullable": "llm_wire.codec._reasons",
    "number": "llm_wire.codec._scalars",
    "optional": "llm_wire.codec._records",
    "record": "llm_wire.codec._records",
    "required": "llm_wire.codec._records",
    "string": "llm_wire.codec._scalars",
    "try_map": "llm_wire.codec._wrap",
    "tuple_of": "llm_wire.codec._containers",
    "UnexpectedType": "llm_wire.codec._reasons",
    "union": "llm_wire.codec._records",
    "unit": "llm_wire.codec._records",
    "UnknownEnumValue": "llm_wire.codec._reasons",
    "UnknownTag": "llm_wire.codec._reasons",
    "UnknownVariant": "llm_wire.codec._reasons",
    "untagged": "llm_wire.codec._untagged",
    "uuid": "llm_wire.codec._formats",
    "Variant": "llm_wire.codec._records",
    "variant": "llm_wire.codec._records",
}


if not TYPE_CHECKING:  # mypy reads the imports above, so a misspelt name stays an error
    __getattr__, __dir__ = lazy_face(__name__, _HOMES, globals(), rehome_loaded=True)
