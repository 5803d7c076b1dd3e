"""
A provider's schema dialect as data: the ``Profile`` record ``projection.project`` reads, and its choices.

Each provider module defines its profiles (loose and strict, Gemini's JSON Schema and OpenAPI dialects) as
``Profile`` values; there is no subclassing. Public through ``llm_wire.providers.projection``.
"""

from __future__ import annotations

import enum

from attrs import frozen

__all__ = ["Optionals", "Profile", "Refs", "Values"]


class Refs(enum.Enum):
    """How a profile treats ``$ref``."""

    KEEP = "keep"
    INLINE = "inline"


class Optionals(enum.Enum):
    """How a profile treats properties missing from ``required``."""

    KEEP = "keep"
    #: Strict OpenAI: every property required, an optional one sent as nullable.
    NULLABLE = "nullable"


class Values(enum.Enum):
    """Which ``enum`` values a profile takes."""

    ANY = "any"
    PRIMITIVE = "primitive"
    STRING = "string"


@frozen
class Profile:
    """
    The rules of one provider dialect. Unset fields leave a schema as it is.
    """

    name: str
    #: Keywords the provider takes; any other keyword is dropped. ``None``: every keyword.
    keep: frozenset[str] | None = None
    #: Give every object ``additionalProperties: false``.
    close_objects: bool = False
    optionals: Optionals = Optionals.KEEP
    refs: Refs = Refs.KEEP
    #: Keywords allowed beside ``$ref``; with others present the ``$ref`` moves into an ``anyOf``.
    ref_siblings: frozenset[str] | None = None
    recursion: bool = True
    one_of: bool = True
    all_of: bool = True
    #: ``allOf`` may hold a ``$ref`` branch.
    all_of_refs: bool = True
    #: ``format`` values the provider takes; ``None``: any.
    formats: frozenset[str] | None = None
    #: A regex finding ``pattern`` constructs the provider refuses (look-around, back references).
    refused_pattern: str | None = None
    #: Every node needs a type (inferred where the keywords tell it, refused otherwise).
    typed: bool = False
    #: Every array needs ``items``.
    array_items: bool = False
    #: ``anyOf``/``oneOf``/``allOf`` allowed at the root.
    root_combinators: bool = True
    enum_values: Values = Values.ANY
    #: The largest ``minItems`` the provider takes.
    max_min_items: int | None = None
    #: Gemini's OpenAPI 3.0 subset: uppercase types, ``nullable``, no ``$ref``, string enums.
    openapi: bool = False
