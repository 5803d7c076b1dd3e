"""
Records (closed objects with required and optional fields) and tagged unions, for ``llm_wire.codec``.

A record decodes each declared field in order, then refuses any member it does not declare; it builds its
target with the decoded fields. Unions are tagged, either with an envelope (``{"tag": "circle", "value":
{...}}``) or internally (``{"type": "circle", "radius": 2}``); both render as ``anyOf`` of closed objects.
"""

from __future__ import annotations

import contextlib
import enum
import functools
from collections.abc import Callable, Sequence
from keyword import iskeyword
from typing import Any, Final, Literal, TypeAlias, TypeVar, cast, overload

from attrs import frozen

from llm_wire._fast import Lean, generated
from llm_wire.codec._core import MISSING, REFUSALS, Codec, _codec, _Ctx, described, tagged_node
from llm_wire.codec._errors import _CodecFailure
from llm_wire.codec._reasons import (
    EXPECTED_OBJECT,
    EXPECTED_STRING,
    ConversionRefused,
    Custom,
    UnexpectedType,
    UnknownTag,
    UnknownVariant,
)
from llm_wire.reasons import MissingProperty, UnexpectedProperty
from llm_wire.schema import DefinitionError, Schema, make
from llm_wire.value import Value, render

R = TypeVar("R")


class _Absent(enum.Enum):
    ABSENT = "absent"

    def __repr__(self) -> str:
        return "ABSENT"


#: The value of an optional field without a default when the member is absent; encoding omits it.
ABSENT: Final = _Absent.ABSENT
Absent: TypeAlias = Literal[_Absent.ABSENT]

_FALSE = Schema(boolean=False)
_MISSING_FIELD = MissingProperty()


@frozen
class Field(Lean):
    """One member of a record: its JSON ``name``, its codec, and what an absent member decodes to."""

    name: str
    codec: Codec[Any]
    required: bool
    #: The value of an absent optional member (``ABSENT`` unless given).
    default: Any = ABSENT
    #: Makes the value of an absent optional member, instead of ``default``.
    factory: Callable[[], Any] | None = None
    description: str | None = None
    #: The attribute (and constructor keyword) on the native side; the JSON name when empty.
    attribute: str = ""


def required(name: str, codec: Codec[Any], *, description: str | None = None, attribute: str = "") -> Field:
    """
    A member that must be present; ``null`` is accepted only if ``codec`` accepts it.
    """
    return Field(name, codec, True, description=description, attribute=attribute or name)


def optional(
    name: str,
    codec: Codec[Any],
    *,
    default: Any = ABSENT,
    factory: Callable[[], Any] | None = None,
    description: str | None = None,
    attribute: str = "",
) -> Field:
    """
    A member that may be absent: then it decodes to ``default`` (or ``factory()``), else to ``ABSENT``.

    Absent and ``null`` differ: ``null`` is accepted only if ``codec`` accepts it (``nullable``).
    """
    if default is not ABSENT and factory is not None:
        msg = f"field {render(name)}: give default or factory, not both"
        raise DefinitionError(msg)
    return Field(name, codec, False, default, factory, description, attribute or name)


def _unknown(v: dict[Any, Any], names: frozenset[str], unexpected: UnexpectedProperty) -> _CodecFailure:
    """The failure for the first member of ``v`` not in ``names`` (a non-string key: not an object)."""
    for key in v:
        if key not in names:
            return (
                _CodecFailure(unexpected).at_key(key)
                if isinstance(key, str)
                else _CodecFailure(EXPECTED_OBJECT)
            )
    return _CodecFailure(EXPECTED_OBJECT)


@overload
def record(
    target: type[dict[Any, Any]], *fields: Field, description: str | None = None, name: str | None = None
) -> Codec[dict[str, Any]]: ...
@overload
def record(
    target: Callable[..., R], *fields: Field, description: str | None = None, name: str | None = None
) -> Codec[R]: ...
def record(
    target: Callable[..., Any], *fields: Field, description: str | None = None, name: str | None = None
) -> Codec[Any]:
    """
    A closed object with ``fields`` in order, decoded by calling ``target(**{attribute: value})``.

    ``target`` is usually a class (encoding reads its attributes and checks ``isinstance``); with
    ``dict`` the record decodes to and encodes from plain dicts, where an absent optional member without
    a default is a missing key. Unknown members are refused.
    """
    return build_record(target, fields, description=description, name=name)


def build_record(
    target: Callable[..., Any],
    fields: Sequence[Field],
    *,
    description: str | None = None,
    name: str | None = None,
    keywords: Sequence[str | None] | None = None,
) -> Codec[Any]:
    """
    ``record`` with its construction chosen: each field is passed as ``keywords[i]``, by position if ``None``.
    """
    title: str = name or getattr(target, "__name__", None) or "record"
    for f in fields:
        if not isinstance(f, Field):
            msg = f"record {title}: {type(f).__name__} is not a Field (use required or optional)"
            raise DefinitionError(msg)
    names = [f.name for f in fields]
    for f in fields:
        if names.count(f.name) > 1:
            msg = f"record {title}: field {render(f.name)} appears twice"
            raise DefinitionError(msg)
    attributes = [f.attribute for f in fields]
    for attribute in attributes:
        if attributes.count(attribute) > 1:
            msg = f"record {title}: attribute {render(attribute)} is used by two fields"
            raise DefinitionError(msg)
    if description is not None and not isinstance(description, str):
        msg = f"record {title}: the description must be a str"
        raise DefinitionError(msg)
    is_dict = target is dict
    cls = target if isinstance(target, type) and not is_dict else None
    passing = list(attributes if keywords is None else keywords)
    plan = tuple((f.name, f.codec._dec, f.codec._exact, f.required, f.default, f.factory) for f in fields)
    known = frozenset(names)
    unexpected = UnexpectedProperty(tuple(names))
    n_fields = len(plan)
    refused = ConversionRefused(f"the constructor of {title}")
    dict_plan = tuple((*step, attribute) for step, attribute in zip(plan, attributes, strict=True))

    def dec_dict(v: Any) -> dict[str, Any]:
        # A record of plain dicts: each field under its attribute, an absent one without a default left out.
        if v.__class__ is not dict and not isinstance(v, dict):
            raise _CodecFailure(EXPECTED_OBJECT)
        out: dict[str, Any] = {}
        absent = 0
        get = v.get
        for key, decode, exact, needed, default, factory, attribute in dict_plan:
            raw = get(key, MISSING)
            if raw.__class__ is exact:
                out[attribute] = raw
            elif raw is MISSING:
                if needed:
                    raise _CodecFailure(_MISSING_FIELD).at(key)
                absent += 1
                if factory is not None:
                    out[attribute] = factory()
                elif default is not ABSENT:
                    out[attribute] = default
            else:
                try:
                    out[attribute] = decode(raw)
                except _CodecFailure as fail:
                    fail.rpath.append(key)
                    raise
        if n_fields - absent != len(v):
            raise _unknown(v, known, unexpected)
        return out

    encode_plan = tuple((f.name, f.attribute, f.codec._enc, f.required) for f in fields)
    wrong_type = UnexpectedType("dict" if is_dict else title)
    known_attributes = frozenset(attributes)
    unexpected_attribute = UnexpectedProperty(tuple(attributes))

    def enc(x: Any) -> Value:
        read: Callable[[str, Any], Any]
        if is_dict:
            if not isinstance(x, dict):
                raise _CodecFailure(wrong_type)
            if not known_attributes.issuperset(x):
                raise _unknown(x, known_attributes, unexpected_attribute)
            read = x.get
        else:
            if cls is not None and not isinstance(x, cls):
                raise _CodecFailure(wrong_type)
            read = functools.partial(getattr, x)

        out: dict[str, Value] = {}
        for key, attribute, encode, needed in encode_plan:
            value = read(attribute, MISSING)
            if value is MISSING or value is ABSENT:
                if needed:
                    raise _CodecFailure(_MISSING_FIELD).at(key)
                continue
            try:
                out[key] = encode(value)
            except _CodecFailure as fail:
                fail.rpath.append(key)
                raise
        return out

    def node(ctx: _Ctx) -> Schema | None:
        properties = []
        for f in fields:
            member = ctx.node(f.codec)
            if member is None:
                return None
            if f.description is not None:
                member = described(member, f.description)
            if not f.required and f.factory is None and f.default is not ABSENT:
                with contextlib.suppress(
                    _CodecFailure
                ):  # a default outside the codec (often None) is not shown
                    member = member.with_keyword("default", f.codec._enc(f.default))
            properties.append((f.name, member))
        head = (("description", description),) if description is not None else ()
        return make(
            *head,
            ("type", "object"),
            ("properties", tuple(properties)),
            ("required", [f.name for f in fields if f.required]),
            ("additionalProperties", _FALSE),
        )

    children = [f.codec for f in fields]
    decode = dec_dict if is_dict else _generated_decoder(plan, passing, target, known, unexpected, refused)
    return _codec(decode, enc, node, f"record {title}", *children, cls=cls)


def _generated_decoder(
    plan: tuple[tuple[str, Callable[[Any], Any], type | None, bool, Any, Any], ...],
    passing: list[str | None],
    target: Callable[..., Any],
    known: frozenset[str],
    unexpected: UnexpectedProperty,
    refused: ConversionRefused,
) -> Callable[[Any], Any]:
    """
    The record's decoder as straight-line code, one block per field (``llm_wire._fast.generated``): the same
    checks in the same order as the plan loop of ``build_record``, and the same failures.
    """
    namespace: dict[str, Any] = {
        "_CodecFailure": _CodecFailure,
        "EXPECTED_OBJECT": EXPECTED_OBJECT,
        "MISSING": MISSING,
        "_MISSING_FIELD": _MISSING_FIELD,
        "REFUSALS": REFUSALS,
        "_unknown": _unknown,
        "known": known,
        "unexpected": unexpected,
        "refused": refused,
        "target": target,
    }
    lines = [
        "def decode(v):",
        "    if v.__class__ is not dict and not isinstance(v, dict):",
        "        raise _CodecFailure(EXPECTED_OBJECT)",
        "    get = v.get",
        "    absent = 0",
    ]
    for i, (key, decode, exact, needed, default, factory) in enumerate(plan):
        namespace.update({f"k{i}": key, f"d{i}": decode, f"e{i}": exact, f"v{i}": default, f"f{i}": factory})
        lines.append(f"    raw = get(k{i}, MISSING)")
        test = "if"
        if exact is not None:
            lines += [f"    if raw.__class__ is e{i}:", f"        a{i} = raw"]
            test = "elif"
        lines.append(f"    {test} raw is MISSING:")
        if needed:
            lines.append(f"        raise _CodecFailure(_MISSING_FIELD).at(k{i})")
        else:
            lines += [f"        a{i} = {'v' if factory is None else 'f'}{i}{'' if factory is None else '()'}"]
            lines.append("        absent += 1")
        lines += [
            "    else:",
            "        try:",
            f"            a{i} = d{i}(raw)",
            "        except _CodecFailure as fail:",
            f"            fail.rpath.append(k{i})",
            "            raise",
        ]
    # Positional arguments first, as ``dec`` passes them; a keyword that is not an identifier goes in a dict.
    arguments = [f"a{i}" for i, k in enumerate(passing) if k is None]
    arguments += [f"{k}=a{i}" for i, k in enumerate(passing) if k is not None and _plain(k)]
    spelled = [f"w{i}: a{i}" for i, k in enumerate(passing) if k is not None and not _plain(k)]
    namespace.update({f"w{i}": k for i, k in enumerate(passing) if k is not None})
    if spelled:
        arguments.append("**{" + ", ".join(spelled) + "}")
    lines += [
        f"    if {len(plan)} - absent != len(v):",
        "        raise _unknown(v, known, unexpected)",
        "    try:",
        f"        return target({', '.join(arguments)})",
        "    except REFUSALS:",
        "        raise _CodecFailure(refused) from None",
    ]
    return generated("\n".join(lines) + "\n", "decode", namespace)


def _plain(keyword: str) -> bool:
    """Whether ``keyword`` can be written as ``keyword=`` in a call."""
    return keyword.isidentifier() and not iskeyword(keyword)


# ---------------------------------------------------------------------------------------------------------
# Tagged unions.


@frozen
class Variant(Lean):
    """One case of a union: its tag, and either a payload codec with its class or a fixed unit value."""

    tag: str
    codec: Codec[Any] | None
    cls: type | None
    value: Any = None
    description: str | None = None


def variant(
    tag: str, codec: Codec[Any], *, cls: type | None = None, description: str | None = None
) -> Variant:
    """
    A case carrying a payload: ``codec`` decodes it; encoding picks this case for instances of ``cls``
    (default: the class ``codec`` builds, for ``record`` and ``derive`` codecs).
    """
    chosen = cls if cls is not None else codec._cls
    if chosen is None:
        msg = f"variant {render(tag)}: the codec builds no class; give cls="
        raise DefinitionError(msg)
    return Variant(tag, codec, chosen, None, description)


def unit(tag: str, value: Any, *, description: str | None = None) -> Variant:
    """
    A case with only a tag, standing for ``value`` (encoding picks it for values equal to ``value``).
    """
    return Variant(tag, None, None, value, description)


def _check_variants(what: str, variants: Sequence[Variant], keys: Sequence[str]) -> dict[str, Variant]:
    for key in keys:
        if not isinstance(key, str):
            raise DefinitionError(f"{what}: member names must be strings")
    if len(set(keys)) != len(keys):
        raise DefinitionError(f"{what}: the tag and value members need different names")
    if not variants:
        raise DefinitionError(f"{what}: has no variants")
    by_tag: dict[str, Variant] = {}
    classes: dict[type, str] = {}
    for v in variants:
        if not isinstance(v, Variant):
            msg = f"{what}: {type(v).__name__} is not a Variant (use variant or unit)"
            raise DefinitionError(msg)
        if not isinstance(v.tag, str):
            raise DefinitionError(f"{what}: tags must be strings")
        if v.tag in by_tag:
            msg = f"{what}: tag {render(v.tag)} appears twice"
            raise DefinitionError(msg)
        if v.cls is not None:
            if v.cls in classes:
                msg = (
                    f"{what}: tags {render(classes[v.cls])} and {render(v.tag)} both encode {v.cls.__name__}"
                )
                raise DefinitionError(msg)
            classes[v.cls] = v.tag
        by_tag[v.tag] = v
    return by_tag


def _chooser(variants: Sequence[Variant]) -> Callable[[Any], Variant]:
    """Finds the variant that encodes a native value: unit values first, then the class, then subclasses."""
    units = [(v.value, v) for v in variants if v.codec is None]
    by_class = {v.cls: v for v in variants if v.cls is not None}

    def choose(x: Any) -> Variant:
        for value, v in units:
            if x is value or (type(x) is type(value) and x == value):
                return v
        found = by_class.get(type(x))
        if found is not None:
            return found
        for cls, v in by_class.items():
            if isinstance(x, cls):
                return v
        raise _CodecFailure(UnknownVariant())

    return choose


def _tag_schema(tag: str) -> Schema:
    return make(("type", "string"), ("enum", [tag]))


def _closed(description: str | None, properties: list[tuple[str, Schema]], required: list[str]) -> Schema:
    head = (("description", description),) if description is not None else ()
    return make(
        *head,
        ("type", "object"),
        ("properties", tuple(properties)),
        ("required", required),
        ("additionalProperties", _FALSE),
    )


def _any_of(nodes: list[Schema | None]) -> Schema | None:
    if any(n is None for n in nodes):
        return None
    return make(("type", "object"), ("anyOf", tuple(nodes)))


def union(*variants: Variant, tag: str = "tag", value: str = "value") -> Codec[Any]:
    """
    A union in an envelope: ``{"tag": "circle", "value": <payload>}``, or ``{"tag": "empty"}`` for a unit.

    The member names are ``tag`` and ``value``. Members other than these two are refused.
    """
    by_tag = _check_variants("union", variants, [tag, value])
    tags = tuple(by_tag)
    unknown_tag = UnknownTag(tags)
    envelope = frozenset((tag, value))
    unexpected, unit_payload = UnexpectedProperty((tag, value)), UnexpectedProperty((tag,))
    choose = _chooser(variants)

    def dec(v: Any) -> Any:
        if not isinstance(v, dict):
            raise _CodecFailure(EXPECTED_OBJECT)
        if not envelope.issuperset(v):
            raise _unknown(v, envelope, unexpected)
        t = v.get(tag, MISSING)
        if t is MISSING:
            raise _CodecFailure(_MISSING_FIELD).at(tag)
        if not isinstance(t, str):
            raise _CodecFailure(EXPECTED_STRING).at(tag)
        case = by_tag.get(t)
        if case is None:
            raise _CodecFailure(unknown_tag).at(tag)
        if case.codec is None:
            if value in v:
                raise _CodecFailure(unit_payload).at(value)
            return case.value
        payload = v.get(value, MISSING)
        if payload is MISSING:
            raise _CodecFailure(_MISSING_FIELD).at(value)
        try:
            return case.codec._dec(payload)
        except _CodecFailure as fail:
            fail.rpath.append(value)
            raise

    def enc(x: Any) -> Value:
        case = choose(x)
        if case.codec is None:
            return {tag: case.tag}
        try:
            return {tag: case.tag, value: case.codec._enc(x)}
        except _CodecFailure as fail:
            fail.rpath.append(value)
            raise

    def node(ctx: _Ctx) -> Schema | None:
        nodes: list[Schema | None] = []
        for case in variants:
            if case.codec is None:
                nodes.append(_closed(case.description, [(tag, _tag_schema(case.tag))], [tag]))
                continue
            payload = ctx.node(case.codec)
            if payload is None:
                return None
            properties = [(tag, _tag_schema(case.tag)), (value, payload)]
            nodes.append(_closed(case.description, properties, [tag, value]))
        return _any_of(nodes)

    children = [case.codec for case in variants if case.codec is not None]
    return _codec(dec, enc, node, f"union of {len(variants)}", *children)


def internal_union(*variants: Variant, tag: str = "type") -> Codec[Any]:
    """
    A union tagged inside the payload: ``{"type": "circle", "radius": 2}``; ``{"type": "empty"}`` for a unit.

    Every payload codec must be a record (its schema a closed object) without a member named ``tag``.
    """
    by_tag = _check_variants("internal_union", variants, [tag])
    tags = tuple(by_tag)
    unknown_tag = UnknownTag(tags)
    only_tag, unexpected = frozenset((tag,)), UnexpectedProperty((tag,))
    choose = _chooser(variants)

    def dec(v: Any) -> Any:
        if not isinstance(v, dict):
            raise _CodecFailure(EXPECTED_OBJECT)
        t = v.get(tag, MISSING)
        if t is MISSING:
            raise _CodecFailure(_MISSING_FIELD).at(tag)
        if not isinstance(t, str):
            raise _CodecFailure(EXPECTED_STRING).at(tag)
        case = by_tag.get(t)
        if case is None:
            raise _CodecFailure(unknown_tag).at(tag)
        if case.codec is None:
            if len(v) != 1:
                raise _unknown(v, only_tag, unexpected)
            return case.value
        try:
            return case.codec._dec({k: x for k, x in v.items() if k != tag})
        except _CodecFailure as fail:
            if len(fail.rpath) == 1 and isinstance(fail.reason, UnexpectedProperty):
                fail.reason = UnexpectedProperty((tag, *fail.reason.allowed))  # the tag is allowed too
            raise

    def enc(x: Any) -> Value:
        case = choose(x)
        if case.codec is None:
            return {tag: case.tag}
        payload = case.codec._enc(x)
        if not isinstance(payload, dict) or tag in payload:
            raise _CodecFailure(
                Custom(f"variant {render(case.tag)} did not encode to an object without {render(tag)}")
            )
        return {tag: case.tag, **payload}

    def tagged(case: Variant) -> Callable[[Schema], Schema]:
        def transform(node: Schema) -> Schema:
            properties = node.get("properties")
            closed = node.get("additionalProperties")
            if node.get("type") != "object" or not isinstance(properties, tuple) or closed != _FALSE:
                msg = f"internal_union: the payload of {render(case.tag)} must be a record (a closed object)"
                raise DefinitionError(msg)
            if any(name == tag for name, _ in cast(tuple[tuple[str, Schema], ...], properties)):
                msg = f"internal_union: the payload of {render(case.tag)} has a field named {render(tag)}"
                raise DefinitionError(msg)
            pairs: list[tuple[str, object]] = []
            for key, val in node.keywords:
                if key == "properties":
                    val = ((tag, _tag_schema(case.tag)), *properties)
                elif key == "required" and isinstance(val, list):
                    val = [tag, *val]
                pairs.append((key, val))
            if "required" not in node:
                pairs.append(("required", [tag]))
            result = make(*pairs)
            return result if case.description is None else described(result, case.description)

        return transform

    def node(ctx: _Ctx) -> Schema | None:
        nodes: list[Schema | None] = []
        for case in variants:
            if case.codec is None:
                nodes.append(_closed(case.description, [(tag, _tag_schema(case.tag))], [tag]))
            else:
                nodes.append(tagged_node(ctx, case.codec, tagged(case), (tag, case.tag)))
        return _any_of(nodes)

    children = [case.codec for case in variants if case.codec is not None]
    return _codec(dec, enc, node, f"internal_union of {len(variants)}", *children)
