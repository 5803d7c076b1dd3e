"""
The JSON Schema vocabulary as the schema tree knows it: each keyword's role (core, assertion, applicator,
annotation, definitions, or unknown) and the shape of its value. Read by ``schema`` (which checks shapes),
``contract`` (which compiles assertions), the provider projection and the command line.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

from attrs import frozen

from llm_wire._fast import Lean

__all__ = ["KEYWORDS", "Keyword", "Role", "Shape", "keyword"]


class Role(enum.Enum):
    """What a keyword does, as far as the representation needs to know."""

    CORE = "core"  # identifiers and references: $id, $ref, $anchor, ...
    ASSERTION = "assertion"  # may reject an instance by itself
    APPLICATOR = "applicator"  # applies subschemas to the instance or its parts
    ANNOTATION = "annotation"  # never rejects anything
    DEFINITIONS = "definitions"  # holds subschemas for reference only
    UNKNOWN = "unknown"  # not in the vocabulary: kept as raw JSON, judged by the consumer


class Shape(enum.Enum):
    """What a keyword's value must look like."""

    SCHEMA = "a schema"
    SCHEMA_LIST = "a non-empty array of schemas"
    SCHEMA_MAP = "an object of schemas"
    TYPE = "a type name or a non-empty array of unique type names"
    COUNT = "a non-negative integer"
    NUMBER = "a number"
    POSITIVE = "a number greater than 0"
    STRING = "a string"
    STRINGS = "an array of unique strings"
    STRINGS_MAP = "an object of arrays of unique strings"
    BOOLEAN = "a boolean"
    ARRAY = "an array"
    OBJECT = "an object"
    ANY = "any JSON value"


@frozen
class Keyword(Lean):
    """The role and value shape of one vocabulary keyword."""

    role: Role
    shape: Shape


def _table() -> dict[str, Keyword]:
    A, AP, AN, C, D = Role.ASSERTION, Role.APPLICATOR, Role.ANNOTATION, Role.CORE, Role.DEFINITIONS
    return {
        "$schema": Keyword(C, Shape.STRING),
        "$id": Keyword(C, Shape.STRING),
        "$ref": Keyword(C, Shape.STRING),
        "$anchor": Keyword(C, Shape.STRING),
        "$dynamicRef": Keyword(C, Shape.STRING),
        "$dynamicAnchor": Keyword(C, Shape.STRING),
        "$vocabulary": Keyword(C, Shape.OBJECT),
        "$comment": Keyword(AN, Shape.STRING),
        "$defs": Keyword(D, Shape.SCHEMA_MAP),
        "definitions": Keyword(D, Shape.SCHEMA_MAP),
        "type": Keyword(A, Shape.TYPE),
        "enum": Keyword(A, Shape.ARRAY),
        "const": Keyword(A, Shape.ANY),
        "multipleOf": Keyword(A, Shape.POSITIVE),
        "maximum": Keyword(A, Shape.NUMBER),
        "exclusiveMaximum": Keyword(A, Shape.NUMBER),
        "minimum": Keyword(A, Shape.NUMBER),
        "exclusiveMinimum": Keyword(A, Shape.NUMBER),
        "maxLength": Keyword(A, Shape.COUNT),
        "minLength": Keyword(A, Shape.COUNT),
        "pattern": Keyword(A, Shape.STRING),
        "format": Keyword(AN, Shape.STRING),
        "maxItems": Keyword(A, Shape.COUNT),
        "minItems": Keyword(A, Shape.COUNT),
        "uniqueItems": Keyword(A, Shape.BOOLEAN),
        "maxContains": Keyword(A, Shape.COUNT),
        "minContains": Keyword(A, Shape.COUNT),
        "maxProperties": Keyword(A, Shape.COUNT),
        "minProperties": Keyword(A, Shape.COUNT),
        "required": Keyword(A, Shape.STRINGS),
        "dependentRequired": Keyword(A, Shape.STRINGS_MAP),
        "allOf": Keyword(AP, Shape.SCHEMA_LIST),
        "anyOf": Keyword(AP, Shape.SCHEMA_LIST),
        "oneOf": Keyword(AP, Shape.SCHEMA_LIST),
        "not": Keyword(AP, Shape.SCHEMA),
        "if": Keyword(AP, Shape.SCHEMA),
        "then": Keyword(AP, Shape.SCHEMA),
        "else": Keyword(AP, Shape.SCHEMA),
        "dependentSchemas": Keyword(AP, Shape.SCHEMA_MAP),
        "prefixItems": Keyword(AP, Shape.SCHEMA_LIST),
        "items": Keyword(AP, Shape.SCHEMA),
        "contains": Keyword(AP, Shape.SCHEMA),
        "properties": Keyword(AP, Shape.SCHEMA_MAP),
        "patternProperties": Keyword(AP, Shape.SCHEMA_MAP),
        "additionalProperties": Keyword(AP, Shape.SCHEMA),
        "propertyNames": Keyword(AP, Shape.SCHEMA),
        "unevaluatedItems": Keyword(AP, Shape.SCHEMA),
        "unevaluatedProperties": Keyword(AP, Shape.SCHEMA),
        "contentSchema": Keyword(AN, Shape.SCHEMA),
        "title": Keyword(AN, Shape.STRING),
        "description": Keyword(AN, Shape.STRING),
        "default": Keyword(AN, Shape.ANY),
        "examples": Keyword(AN, Shape.ARRAY),
        "deprecated": Keyword(AN, Shape.BOOLEAN),
        "readOnly": Keyword(AN, Shape.BOOLEAN),
        "writeOnly": Keyword(AN, Shape.BOOLEAN),
        "contentMediaType": Keyword(AN, Shape.STRING),
        "contentEncoding": Keyword(AN, Shape.STRING),
    }


#: The Draft 2020-12 vocabulary (plus draft-07's ``definitions``); ``x-*`` keywords are annotations.
KEYWORDS: Mapping[str, Keyword] = _table()

_UNKNOWN = Keyword(Role.UNKNOWN, Shape.ANY)
_EXTENSION = Keyword(Role.ANNOTATION, Shape.ANY)


def keyword(name: str) -> Keyword:
    """The role and shape of ``name``: from the vocabulary, an ``x-*`` annotation, or unknown."""
    found = KEYWORDS.get(name)
    if found is not None:
        return found
    return _EXTENSION if name.startswith("x-") else _UNKNOWN
