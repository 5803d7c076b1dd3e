"""
Contracts: JSON Schema documents received at runtime (an MCP tool's ``inputSchema``, say), checked once,
compiled once, then used to validate values fast.

``load`` reads a document (no ``$schema``, or Draft 2020-12: Draft 2020-12; draft-07: draft-07 meaning,
rewritten into the shared ``Schema``), and either keeps every assertion or refuses the document with the path
and keyword it cannot honour. ``validate`` returns the first failure in a fixed order, ``validate_all`` up to
``limit`` of them; a ``Validated`` witness is what ``decode`` turns into a native value.

Fail closed, in short: unknown keywords are refused (``x-*`` and the keywords a caller declares with
``annotations=`` are annotations); references never leave the document; ``format`` is an annotation unless
``assert_formats=True``, which asserts the formats this module knows and refuses the others; a ``pattern``
that the linear-time engine cannot run is refused.

Order of failures, for one schema node: ``type`` (a value of the wrong type gets that one failure), ``enum``,
``const``; then for numbers ``minimum``, ``exclusiveMinimum``, ``maximum``, ``exclusiveMaximum``,
``multipleOf``; strings ``minLength``, ``maxLength``, ``pattern``, ``format``; arrays ``minItems``,
``maxItems``, items by index (``prefixItems``, ``items``), ``contains``, ``uniqueItems``; objects
``minProperties``, ``maxProperties``, declared properties in schema order (missing if required, else their
own failures), other required names, other members in input order (``patternProperties`` then
``additionalProperties``), ``propertyNames``, ``dependentRequired``, ``dependentSchemas``; then ``$ref``,
``$dynamicRef``, ``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else``; last
``unevaluatedItems`` and ``unevaluatedProperties``.
"""

from __future__ import annotations

from llm_wire import _public
from llm_wire.contract._contract import (
    Contract,
    Decoder,
    Validated,
    decode,
    from_schema,
    load,
    parse,
    validate,
    validate_all,
)
from llm_wire.contract._errors import LoadError, ValidationError
from llm_wire.contract._load import Dialect
from llm_wire.contract._reasons import (
    DuplicateItems,
    InvalidPropertyName,
    InvalidShape,
    LoadReason,
    MatchesNot,
    MissingDependency,
    NoMatch,
    NotAllowed,
    NotConst,
    NotJsonValue,
    Reason,
    ReferenceLoop,
    RemoteReference,
    SeveralMatch,
    TooFewMatches,
    TooFewProperties,
    TooManyMatches,
    TooManyProperties,
    UnexpectedItem,
    UnknownFormat,
    UnresolvableReference,
    UnsupportedDialect,
    UnsupportedKeyword,
    UnsupportedPattern,
)
from llm_wire.value import Path  # noqa: F401 - resolves the records' annotations here (typing.get_type_hints)

__all__ = [
    # loading
    "Contract",
    "Dialect",
    "from_schema",
    "load",
    "parse",
    "LoadError",
    "LoadReason",
    "InvalidShape",
    "UnsupportedKeyword",
    "UnsupportedDialect",
    "RemoteReference",
    "UnresolvableReference",
    "ReferenceLoop",
    "UnsupportedPattern",
    "UnknownFormat",
    # validating (the reasons shared with codecs are in llm_wire.reasons)
    "Validated",
    "Decoder",
    "decode",
    "validate",
    "validate_all",
    "ValidationError",
    "Reason",
    "NotJsonValue",
    "NotConst",
    "DuplicateItems",
    "TooFewMatches",
    "TooManyMatches",
    "UnexpectedItem",
    "TooFewProperties",
    "TooManyProperties",
    "MissingDependency",
    "InvalidPropertyName",
    "NotAllowed",
    "NoMatch",
    "SeveralMatch",
    "MatchesNot",
]

_public.rehome(__name__, __all__, globals())
