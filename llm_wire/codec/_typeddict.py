"""
``TypedDict`` classes for ``derive``: a closed record that decodes to a plain ``dict`` (a member that is not
required and absent is left out), with ``Required``/``NotRequired`` and ``total=False`` read as Python reads
them. ``typing_extensions`` is consulted only when something has loaded it.
"""

from __future__ import annotations

import inspect
import sys
import typing
from typing import Any

from llm_wire.codec._core import Codec
from llm_wire.codec._meta import Deriving, Meta
from llm_wire.codec._records import Field, build_record
from llm_wire.schema import DefinitionError

_WRAPPERS = ("Required", "NotRequired", "ReadOnly")


def is_typeddict(tp: object) -> bool:
    """Whether ``tp`` is a ``TypedDict`` class (of ``typing`` or of ``typing_extensions``)."""
    if typing.is_typeddict(tp):
        return True
    extensions = sys.modules.get("typing_extensions")
    check = getattr(extensions, "is_typeddict", None)
    return bool(check(tp)) if check is not None else False


def unwrap(hint: Any) -> tuple[Any, bool | None]:
    """
    ``hint`` without ``Required``/``NotRequired``/``ReadOnly`` (also inside ``Annotated``), and whether it
    says the member is required (``None``: it does not say).
    """
    required: bool | None = None
    extras: tuple[Any, ...] = ()
    while True:
        origin = typing.get_origin(hint)
        if origin is typing.Annotated:
            hint, *more = typing.get_args(hint)
            extras = (*extras, *more)
        elif origin is not None and _wrapper_name(origin) in _WRAPPERS:
            name = _wrapper_name(origin)
            if name != "ReadOnly":
                required = name == "Required"
            (hint,) = typing.get_args(hint)
        else:
            break
    return (typing.Annotated[(hint, *extras)] if extras else hint), required


def _wrapper_name(origin: object) -> str | None:
    name = getattr(origin, "_name", None) or getattr(origin, "__name__", None)
    return name if isinstance(name, str) else None


def build(deriver: Deriving, cls: type) -> Codec[Any]:
    """The record codec of ``TypedDict`` ``cls``: its members in order, decoding to a plain dict."""
    try:
        hints = deriver.hints(cls)
    except Exception as exc:  # NameError for an unknown forward reference, TypeError for a bad hint
        msg = f"{cls.__qualname__}: cannot resolve its type hints ({type(exc).__name__}: {exc})"
        raise DefinitionError(msg) from exc
    required_keys: frozenset[str] = getattr(cls, "__required_keys__", frozenset())
    fields = []
    for name, written in hints.items():
        hint, said = unwrap(written)
        try:
            codec = deriver.hint(hint, Meta())
        except DefinitionError as exc:
            msg = f"{cls.__qualname__}.{name}: {exc}"
            raise DefinitionError(msg) from None
        required = deriver.require_all or (said if said is not None else name in required_keys)
        fields.append(Field(name, codec, required, attribute=name))
    doc = cls.__dict__.get("__doc__")
    description = inspect.cleandoc(doc) if isinstance(doc, str) and doc.strip() else None
    return build_record(dict, fields, description=description, name=cls.__name__)


def tag_of(deriver: Deriving, cls: type, tag: str) -> tuple[str, str, tuple[object, ...]]:
    """
    The member ``tag`` of TypedDict ``cls`` named by a discriminator: its name (JSON and native) and its
    ``Literal`` values. Raises ``DefinitionError`` when it is no ``Literal`` member.
    """
    hint, _ = unwrap(deriver.hints(cls).get(tag))
    while typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    if typing.get_origin(hint) is not typing.Literal:
        msg = f"{cls.__qualname__}: the discriminator {tag} is not a Literal member"
        raise DefinitionError(msg)
    return tag, tag, typing.get_args(hint)
