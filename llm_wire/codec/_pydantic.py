"""
pydantic v2 models for ``derive``. pydantic is never imported here: a model is known through the modules
that defining it loaded.

A model decodes in two steps. llm_wire's own strict codecs, derived from the model's fields (``Field``
constraints, ``Annotated`` metadata, defaults, aliases), check the JSON value: closed objects unless the
model says ``extra="allow"``, no ``"5"`` for 5, exact numbers. Then the same JSON goes to the model's own
validation, ``model_validate_json(..., strict=True)``, so its validators see what they would see in pydantic
and the decoded value is the model instance. Inside a model, nested models, TypedDicts and dataclasses only
check: the outermost model validates the whole value once.

A refusal of the model's validation is a ``DecodeError`` at the path its ``loc`` names, whose text gives the
error's ``type`` (``value_error``, or the name of a ``PydanticCustomError``), never its message or input.
A model asking for lax mode (``strict=False``, ``coerce_numbers_to_str``) is refused at definition.
"""

from __future__ import annotations

import enum
import inspect
import json
import math
import re
import sys
import typing
from decimal import Decimal
from typing import Any

from llm_wire.codec._annotated import merge
from llm_wire.codec._core import REFUSALS, Codec, _codec, _Ctx
from llm_wire.codec._errors import _CodecFailure
from llm_wire.codec._meta import Deriving, Meta
from llm_wire.codec._reasons import (
    EXPECTED_INTEGER,
    EXPECTED_OBJECT,
    ConversionRefused,
    FloatOutOfRange,
    UnexpectedType,
)
from llm_wire.codec._records import ABSENT, Field, build_record
from llm_wire.codec._scalars import json_value
from llm_wire.schema import _TRUE, DefinitionError, Schema, _walk, make
from llm_wire.value import Path, Value

#: pydantic error types that say what an llm_wire reason says better (``3.0`` for an int, which the
#: schema's ``integer`` takes and pydantic's strict mode does not).
_SAME = {"int_type": EXPECTED_INTEGER, "int_from_float": EXPECTED_INTEGER}

#: An error type shown in a text: pydantic's own, or a ``PydanticCustomError``'s name written in source.
_SHOWN_TYPE = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def is_model(tp: object) -> bool:
    """Whether ``tp`` is a pydantic v2 model class (``BaseModel`` or ``RootModel`` subclass)."""
    main = sys.modules.get("pydantic.main")
    base = getattr(main, "BaseModel", None)
    if base is None or not isinstance(tp, type) or tp is base:
        return False
    try:
        return issubclass(tp, base)
    except TypeError:  # a generic alias posing as a class
        return False


def _is_root(model: type) -> bool:
    root = getattr(sys.modules.get("pydantic.root_model"), "RootModel", None)
    return isinstance(root, type) and issubclass(model, root)


def _fields(model: type) -> dict[str, Any]:
    fields: dict[str, Any] = getattr(model, "model_fields", {})
    return fields


def _config(model: type) -> dict[str, Any]:
    config: dict[str, Any] = getattr(model, "model_config", {})
    return config


def checker(deriver: Deriving, model: type) -> Codec[Any]:
    """
    The codec that checks a value for ``model`` with llm_wire's codecs, decoding to a plain dict; raises
    ``DefinitionError`` naming the model and field for what it cannot honour.
    """
    config = _config(model)
    name = model.__qualname__
    if config.get("strict") is False:
        msg = f"{name}: model_config strict=False asks for lax mode, which llm_wire does not honour"
        raise DefinitionError(msg)
    if config.get("coerce_numbers_to_str"):
        msg = f"{name}: model_config coerce_numbers_to_str asks for lax mode, which llm_wire does not honour"
        raise DefinitionError(msg)
    if getattr(model, "__pydantic_complete__", True) is False:
        msg = f"{name}: the model is not fully defined (call {model.__name__}.model_rebuild() first)"
        raise DefinitionError(msg)
    description = _description(model)
    if _is_root(model):
        codec = _field_codec(deriver, model, "root", _fields(model)["root"])
        return codec if description is None else codec.with_description(description)
    by_alias = config.get("validate_by_alias", True) is not False
    fields = []
    for attribute, info in _fields(model).items():
        codec = _field_codec(deriver, model, attribute, info)
        required = deriver.require_all or info.is_required()
        default = info.default if not info.is_required() and info.default_factory is None else ABSENT
        json_name = _json_name(model, attribute, info, by_alias)
        fields.append(Field(json_name, codec, required, default, None, None, attribute))
    closed = build_record(dict, fields, description=description, name=model.__name__)
    if config.get("extra") != "allow":
        return closed
    return _open(closed, fields, _extras(deriver, model), model.__name__)


def _field_codec(deriver: Deriving, model: type, attribute: str, info: Any) -> Codec[Any]:
    try:
        return deriver.hint(info.annotation, merge(Meta(), info, info.annotation, True))
    except DefinitionError as exc:
        msg = f"{model.__qualname__}.{attribute}: {exc}"
        raise DefinitionError(msg) from None


def _json_name(model: type, attribute: str, info: Any, by_alias: bool) -> str:
    alias = info.validation_alias if info.validation_alias is not None else info.alias
    if alias is not None and not isinstance(alias, str):
        msg = f"{model.__qualname__}.{attribute}: AliasPath and AliasChoices have no schema; give one alias"
        raise DefinitionError(msg)
    return alias if by_alias and alias else attribute


def _description(model: type) -> str | None:
    doc = model.__dict__.get("__doc__")
    return inspect.cleandoc(doc) if isinstance(doc, str) and doc.strip() else None


def _extras(deriver: Deriving, model: type) -> Codec[Any] | None:
    """The codec of the extra members of an ``extra="allow"`` model: ``__pydantic_extra__: dict[str, T]``."""
    try:
        hint = deriver.hints(model).get("__pydantic_extra__")
    except Exception:  # an unresolvable hint elsewhere: pydantic resolved the fields, extras stay untyped
        hint = None
    args = typing.get_args(hint)
    if typing.get_origin(hint) is dict and len(args) == 2 and args[1] is not Any:
        return deriver.hint(args[1], Meta())
    return None


def _open(closed: Codec[Any], fields: list[Field], extra: Codec[Any] | None, title: str) -> Codec[Any]:
    """``closed`` taking undeclared members too, each checked by ``extra`` (any JSON value if none)."""
    names = frozenset(f.name for f in fields)
    attributes = frozenset(f.attribute for f in fields)
    check, write = closed._dec, closed._enc
    member = extra if extra is not None else any_json()
    check_extra, write_extra = member._dec, member._enc

    def dec(v: Any) -> Any:
        if v.__class__ is not dict:
            return check(v)
        known = {key: item for key, item in v.items() if key in names}
        out = check(known)
        for key, item in v.items():
            if key not in names:
                if not isinstance(key, str):
                    raise _CodecFailure(EXPECTED_OBJECT)
                try:
                    out[key] = check_extra(item)
                except _CodecFailure as fail:
                    raise fail.at_key(key) from None
        return out

    def enc(x: Any) -> Value:
        if not isinstance(x, dict):
            return write(x)
        out = write({key: item for key, item in x.items() if key in attributes})
        assert isinstance(out, dict)
        for key, item in x.items():
            if key not in attributes:
                try:
                    out[key] = write_extra(item)
                except _CodecFailure as fail:
                    raise fail.at_key(key) from None
        return out

    def node(ctx: _Ctx) -> Schema | None:
        inner = ctx.node(closed)
        rest = _TRUE if extra is None else ctx.node(extra)
        if inner is None or rest is None:
            return None
        return make(*inner.without("additionalProperties").keywords, ("additionalProperties", rest))

    return _codec(dec, enc, node, f"record {title}", closed, member)


def tag_of(model: type, tag: str) -> tuple[str, str, tuple[object, ...]]:
    """
    The member ``tag`` of ``model`` named by a discriminator (its field name or alias): its JSON name, its
    attribute and its ``Literal`` values. Raises ``DefinitionError`` when it is no ``Literal`` field.
    """
    by_alias = _config(model).get("validate_by_alias", True) is not False
    for attribute, info in _fields(model).items():
        json_name = _json_name(model, attribute, info, by_alias)
        if tag in (attribute, json_name):
            literal = _literal(info.annotation)
            if literal is not None:
                return json_name, attribute, literal
    msg = f"{model.__qualname__}: the discriminator {tag} is not a Literal field"
    raise DefinitionError(msg)


def _literal(hint: Any) -> tuple[object, ...] | None:
    while typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    return typing.get_args(hint) if typing.get_origin(hint) is typing.Literal else None


def any_json() -> Codec[Any]:
    """
    ``Any`` in a model: any JSON value whose non-integral numbers fit a float, since pydantic reads them as
    floats (``1E+400`` would become infinity).
    """
    inner = json_value(floats=True)
    check, write = inner._dec, inner._enc

    def dec(v: Any) -> Any:
        check(v)
        stack: list[tuple[Any, tuple[str | int, ...]]] = [(v, ())]
        while stack:
            item, path = stack.pop()
            if isinstance(item, dict):
                stack.extend((member, (*path, key)) for key, member in item.items())
            elif isinstance(item, list):
                stack.extend((member, (*path, n)) for n, member in enumerate(item))
            elif isinstance(item, Decimal) and not math.isfinite(float(item)):
                fail = _CodecFailure(FloatOutOfRange())
                for step in reversed(path):
                    fail = fail.at_key(step) if isinstance(step, str) else fail.at(step)
                raise fail
        return v

    return _codec(dec, write, lambda ctx: ctx.node(inner), "any JSON value", inner)


def check_enum(tp: type[enum.Enum]) -> None:
    """A model's enum goes by value: its values must all be strings or all ints, as llm_wire sends them."""
    values = [member.value for member in tp]
    if all(isinstance(v, str) for v in values):
        return
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return
    msg = f"enum {tp.__name__}: in a pydantic model, its values must all be strings or all integers"
    raise DefinitionError(msg)


#: JSON text for pydantic: its parser reads every number with a fraction or exponent as a float (a
#: ``Decimal`` field too), so writing each ``Decimal`` as the nearest float gives it the same values as the
#: exact text would, through the C encoder; one no float holds raises ``ValueError``.
_json = json.JSONEncoder(default=float, allow_nan=False, separators=(",", ":")).encode


def constructed(model: type, checker: Codec[Any]) -> Codec[Any]:
    """
    The codec of ``model``: ``checker`` checks the value, then the model's own strict validation builds the
    instance; encoding writes ``model_dump()`` through ``checker``.
    """
    validate: Any = getattr(model, "model_validate_json")  # noqa: B009 - the model's own classmethod
    dumping: Any = getattr(model, "model_dump")  # noqa: B009

    def dump(x: Any) -> Any:
        return dumping(x, round_trip=True, warnings=False)

    error_class = sys.modules["pydantic_core"].ValidationError
    title = model.__name__
    check, write = checker._dec, checker._enc
    refused = ConversionRefused(f"{title}'s validators")
    wrong = UnexpectedType(title)
    names: list[frozenset[str]] = []

    def dec(v: Any) -> Any:
        check(v)
        try:
            text = _json(v)
        except ValueError:  # a number the checker took exactly (a Decimal) that no float holds
            raise _CodecFailure(FloatOutOfRange()) from None
        try:
            return validate(text, strict=True)
        except error_class as error:
            if not names:
                names.append(_declared(checker))
            raise _failure(error, v, names[0], title) from None
        except REFUSALS:  # a validator raising TypeError or the like: not pydantic's, but the value's fault
            raise _CodecFailure(refused) from None

    def enc(x: Any) -> Value:
        if not isinstance(x, model):
            raise _CodecFailure(wrong)
        try:
            dumped = dump(x)
        except REFUSALS:
            raise _CodecFailure(ConversionRefused(f"{title}.model_dump")) from None
        return write(dumped)

    return _codec(dec, enc, lambda ctx: ctx.node(checker), f"model {title}", checker, cls=model)


def _declared(checker: Codec[Any]) -> frozenset[str]:
    """Every member name the checker's schema declares (texts show them; other names stay hidden)."""
    schema = checker.schema
    if schema is None:
        return frozenset()
    names: set[str] = set()
    for _, node in _walk(schema):
        properties = node.get("properties")
        if isinstance(properties, tuple):
            names.update(name for name, _ in typing.cast(tuple[tuple[str, Schema], ...], properties))
    return frozenset(names)


def _failure(error: Any, value: Value, names: frozenset[str], title: str) -> _CodecFailure:
    """The failure for the first error of a pydantic ``ValidationError``: its ``loc`` and ``type`` only."""
    details = error.errors(include_url=False, include_context=False, include_input=False)
    if not details:
        return _CodecFailure(ConversionRefused(f"{title}'s validation"))
    first = details[0]
    kind = first.get("type")
    path, hidden = _located(first.get("loc", ()), value, names)
    reason = _SAME.get(kind) if isinstance(kind, str) else None
    if reason is None:
        shown = kind if isinstance(kind, str) and _SHOWN_TYPE.fullmatch(kind) else "a validator"
        return _CodecFailure.of(path, ConversionRefused(f"{title}'s validation ({shown})"), hidden)
    return _CodecFailure.of(path, reason, hidden)


def _located(loc: tuple[object, ...], value: Value, names: frozenset[str]) -> tuple[Path, frozenset[int]]:
    """
    The JSON path of a pydantic ``loc`` in ``value``: the steps that exist in it (pydantic adds steps of its
    own, such as a union member or a tag); a member name the models do not declare is hidden.
    """
    path: list[str | int] = []
    hidden: set[int] = set()
    here: Any = value
    for step in loc:
        if isinstance(step, int) and not isinstance(step, bool) and isinstance(here, list):
            if 0 <= step < len(here):
                path.append(step)
                here = here[step]
        elif isinstance(step, str) and isinstance(here, dict) and step in here:
            if step not in names:
                hidden.add(len(path))
            path.append(step)
            here = here[step]
    return tuple(path), frozenset(hidden)
