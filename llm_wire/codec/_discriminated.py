"""
Discriminated unions of records that carry their own tag: pydantic's ``Field(discriminator="kind")`` over
models (or TypedDicts) whose ``kind`` member is a ``Literal``. Unlike ``internal_union``, the tag stays a
member of each record, which decodes the whole object, tag included.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

from llm_wire.codec._core import MISSING, Codec, _codec, _Ctx
from llm_wire.codec._errors import _CodecFailure
from llm_wire.codec._reasons import EXPECTED_OBJECT, UnknownTag, UnknownVariant
from llm_wire.reasons import MissingProperty, NotInEnum
from llm_wire.schema import DefinitionError, Schema, make
from llm_wire.value import Value, render

#: One case: the tag values it takes (``str`` or ``int``), its codec, and the class it decodes to (if any).
Case = tuple[tuple[str | int, ...], Codec[Any], type | None]


def tag_values(literal: tuple[object, ...], what: str) -> tuple[str | int, ...]:
    """The JSON values of a ``Literal``'s arguments (an enum member by its value); str and int only."""
    out: list[str | int] = []
    for value in literal:
        found = value.value if isinstance(value, enum.Enum) else value
        if not isinstance(found, str | int) or isinstance(found, bool):
            msg = f"{what}: a tag must be a string or an integer"
            raise DefinitionError(msg)
        out.append(found)
    return tuple(out)


def discriminated(key: str, attribute: str, cases: Sequence[Case], what: str) -> Codec[Any]:
    """
    A union choosing its case by the member ``key`` of the object (``attribute`` on the native side, for
    plain dicts); the case's codec decodes the whole object. Encoding picks a case by class, or by the tag
    of a dict. Raises ``DefinitionError`` when two cases share a tag.
    """
    by_tag: dict[tuple[type, str | int], Codec[Any]] = {}
    for tags, codec, _ in cases:
        for tag in tags:
            if (type(tag), tag) in by_tag:
                msg = f"{what}: two cases take the tag {render(tag)}"
                raise DefinitionError(msg)
            by_tag[type(tag), tag] = codec
    every = [tag for tags, _, _ in cases for tag in tags]
    unknown: UnknownTag | NotInEnum = (
        UnknownTag(tuple(str(tag) for tag in every))
        if all(isinstance(tag, str) for tag in every)
        else NotInEnum(tuple(render(tag) for tag in every))
    )
    missing = MissingProperty()
    classes = [(cls, codec) for _, codec, cls in cases if cls is not None]

    def dec(v: Any) -> Any:
        if not isinstance(v, dict):
            raise _CodecFailure(EXPECTED_OBJECT)
        tag = v.get(key, MISSING)
        if tag is MISSING:
            raise _CodecFailure(missing).at(key)
        case = by_tag.get((tag.__class__, tag)) if tag.__class__ in (str, int) else None
        if case is None:
            raise _CodecFailure(unknown).at(key)
        return case._dec(v)

    def enc(x: Any) -> Value:
        if isinstance(x, dict):
            tag = x.get(attribute)
            tag = tag.value if isinstance(tag, enum.Enum) else tag
            case = by_tag.get((tag.__class__, tag)) if tag.__class__ in (str, int) else None
            if case is not None:
                return case._enc(x)
        for cls, codec in classes:
            if isinstance(x, cls):
                return codec._enc(x)
        raise _CodecFailure(UnknownVariant())

    def node(ctx: _Ctx) -> Schema | None:
        nodes = [ctx.node(codec) for _, codec, _ in cases]
        if any(n is None for n in nodes):
            return None
        return make(("type", "object"), ("anyOf", tuple(nodes)))

    return _codec(dec, enc, node, what, *(codec for _, codec, _ in cases))
