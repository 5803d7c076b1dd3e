"""
Untagged unions: one of several codecs told apart by the JSON type of the value (``int | str``).

Each member's schema must state its JSON types, and no two members may share one (``integer`` counts as a
``number``), so every value has at most one member to try and decoding never guesses. The schema is the
``anyOf`` of the members.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any, cast

from llm_wire.codec._core import Codec, _codec, _Ctx
from llm_wire.codec._errors import _CodecFailure
from llm_wire.codec._reasons import UnexpectedType, UnknownVariant
from llm_wire.reasons import WrongType
from llm_wire.schema import DefinitionError, Schema, make
from llm_wire.value import Value

_TYPES = ("null", "boolean", "string", "integer", "number", "array", "object")


def json_type(v: object) -> str | None:
    """The JSON type of ``v`` (``integer`` for an integral number), or ``None`` when it is not JSON."""
    if v is None:
        return "null"
    if v is True or v is False:
        return "boolean"
    if isinstance(v, str):
        return "string"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, Decimal):
        if not v.is_finite():
            return None
        return "integer" if v == v.to_integral_value() else "number"
    if isinstance(v, float):
        if not math.isfinite(v):
            return None
        return "integer" if v.is_integer() else "number"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return None


def _types_of(node: Schema, ctx: _Ctx, seen: frozenset[str] = frozenset()) -> tuple[str, ...] | None:
    """The JSON types a schema node admits, in its order, or ``None`` when the node does not say."""
    if node.boolean is not None:
        return None
    declared = node.get("type")
    if isinstance(declared, str):
        return (declared,)
    if isinstance(declared, list) and all(isinstance(t, str) for t in declared):
        return tuple(cast(list[str], declared))
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.removeprefix("#/$defs/")
        target = ctx.defs.get(name)
        return None if target is None or name in seen else _types_of(target, ctx, seen | {name})
    alternatives = node.get("anyOf")
    if isinstance(alternatives, tuple):
        found: list[str] = []
        for alternative in cast(tuple[Schema, ...], alternatives):
            types = _types_of(alternative, ctx, seen)
            if types is None:
                return None
            found.extend(t for t in types if t not in found)
        return tuple(found)
    choices = node.get("enum")
    if isinstance(choices, list):
        kinds = [json_type(choice) for choice in choices]
        if None in kinds:
            return None
        return tuple(dict.fromkeys(k for k in kinds if k is not None))
    return None


def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> str | None:
    """A JSON type both member type lists take (``integer`` is a ``number``), or ``None``."""
    wide_a = {*a, "integer"} if "number" in a else set(a)
    wide_b = {*b, "integer"} if "number" in b else set(b)
    shared = [t for t in _TYPES if t in wide_a and t in wide_b]
    return shared[0] if shared else None


def untagged(*members: Codec[Any]) -> Codec[Any]:
    """
    One of ``members``, chosen by the JSON type of the value (``untagged(integer(), string())``).

    Decoding hands the value to the one member whose schema takes its JSON type; a value of no member's
    type is ``WrongType`` listing them all. Encoding tries the members in order. Raises ``DefinitionError``
    for fewer than two members, a member without a schema or whose schema does not state its types, and two
    members sharing a JSON type (``integer`` and ``number`` included: use ``floating`` or ``decimal`` for
    any number), since no value could tell them apart.
    """
    if len(members) < 2:
        raise DefinitionError("untagged: needs at least two members")
    for n, member in enumerate(members):
        if not isinstance(member, Codec):
            msg = f"untagged: member {n} is {type(member).__name__}, not a Codec"
            raise DefinitionError(msg)
    #: JSON type -> the decoder of the member taking it; made when the schema first renders.
    table: dict[str, Any] = {}
    wrong: list[WrongType] = []

    def node(ctx: _Ctx) -> Schema | None:
        nodes: list[Schema] = []
        types: list[tuple[str, ...]] = []
        for n, member in enumerate(members):
            member_node = ctx.node(member)
            if member_node is None:
                msg = f"untagged: member {n} ({member._kind}) has no schema"
                raise DefinitionError(msg)
            found = _types_of(member_node, ctx)
            if found is None:
                msg = f"untagged: the schema of member {n} ({member._kind}) does not state its JSON type"
                raise DefinitionError(msg)
            for m, earlier in enumerate(types):
                shared = _overlap(earlier, found)
                if shared is not None:
                    msg = (
                        f"untagged: members {m} and {n} both take a JSON {shared}, "
                        "so a value cannot tell them apart"
                    )
                    raise DefinitionError(msg)
            nodes.append(member_node)
            types.append(found)
        if not table:
            for member, found in zip(members, types, strict=True):
                for t in found:
                    table[t] = member._dec
                if "number" in found:
                    table["integer"] = member._dec
            listed = dict.fromkeys(t for found in types for t in found)
            wrong.append(WrongType(tuple(listed)))
        return make(("anyOf", tuple(nodes)))

    def dec(v: Any) -> Any:
        if not table:
            _Ctx().node(codec)
        kind = json_type(v)
        decode = None if kind is None else table.get(kind)
        if decode is None:
            raise _CodecFailure(wrong[0])
        return decode(v)

    encoders = [member._enc for member in members]

    def enc(x: Any) -> Value:
        refused: _CodecFailure | None = None
        for encode in encoders:
            try:
                return encode(x)
            except _CodecFailure as fail:
                if refused is None and not (not fail.rpath and isinstance(fail.reason, UnexpectedType)):
                    refused = fail  # the member took the type but not the value: its reason says why
        raise refused if refused is not None else _CodecFailure(UnknownVariant())

    kinds = " | ".join(member._kind for member in members)
    codec: Codec[Any] = _codec(dec, enc, node, f"untagged {kinds}", *members)
    return codec
