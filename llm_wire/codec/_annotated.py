"""
Constraints written for other libraries, read as ``Meta`` by ``derive``: ``annotated_types`` (``Ge``,
``MinLen``, ``Interval``...) and pydantic's metadata (``Field``, ``StringConstraints``, ``Strict``,
``Discriminator``...), inside ``Annotated`` or on a pydantic model's field. Neither library is imported
here: an object is known by its class's module, and that module is loaded when such an object exists.

What a schema can say becomes ``Meta``. What only validation enforces (a ``Predicate``, ``max_digits``, an
``AfterValidator``...) keeps its meaning inside a pydantic model, whose own validation runs when it is
decoded, and is refused elsewhere with a ``DefinitionError``. A lax setting (``Strict(False)``,
``coerce_numbers_to_str``) is refused everywhere: no value outside the schema is ever accepted.
"""

from __future__ import annotations

import collections.abc
import enum
import re
import sys
import types
import typing
from decimal import Decimal
from typing import Any

import attrs

from llm_wire.codec._meta import Meta
from llm_wire.schema import DefinitionError

#: ``annotated_types`` bounds: the class, its attribute, and the ``Meta`` setting it becomes.
_BOUNDS = {
    "Gt": ("gt", "exclusive_minimum"),
    "Ge": ("ge", "minimum"),
    "Lt": ("lt", "exclusive_maximum"),
    "Le": ("le", "maximum"),
    "MultipleOf": ("multiple_of", "multiple_of"),
}

#: pydantic settings that change nothing a strict JSON value can reach (JSON has no NaN; llm_wire is
#: strict already; a union's mode matters only to lax input; ``fail_fast`` only to which error comes first).
_INERT = frozenset({"allow_inf_nan", "union_mode", "fail_fast"})

#: pydantic metadata about output or documentation only.
_OUTPUT_MODULES = ("pydantic.functional_serializers", "pydantic.json_schema")

_ARRAYS = (list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.MutableSequence)


def merge(found: Meta, extra: object, base: Any, in_model: bool) -> Meta:
    """
    ``found`` with the meaning of ``extra`` (an ``Annotated`` argument applying to ``base``) added.

    ``in_model``: a pydantic model validates the value at decode time, so what has no schema is left to it.
    Raises ``DefinitionError`` for a lax setting, and outside a model for what only pydantic enforces.
    """
    if isinstance(extra, Meta):  # llm_wire's own, on a pydantic model's field
        return found.merged(extra)
    grouped = _grouped()
    if grouped is not None and isinstance(extra, grouped):  # Interval, Len, StringConstraints
        for part in typing.cast(typing.Iterable[object], extra):
            found = merge(found, part, base, in_model)
        return found
    module = type(extra).__module__
    if module == "annotated_types":
        return _annotated_types(found, extra, base, in_model)
    if module == "pydantic" or module.startswith("pydantic."):
        return _pydantic(found, extra, base, in_model)
    return found  # another library's metadata means nothing to a codec, as it never did


def _grouped() -> type | None:
    loaded = sys.modules.get("annotated_types")
    found = getattr(loaded, "GroupedMetadata", None)
    return found if isinstance(found, type) else None


def _annotated_types(found: Meta, extra: object, base: Any, in_model: bool) -> Meta:
    name = type(extra).__name__
    if name in _BOUNDS:
        attribute, setting = _BOUNDS[name]
        bound = getattr(extra, attribute)
        if isinstance(bound, int | float | Decimal) and not isinstance(bound, bool):
            settings: dict[str, Any] = {setting: bound}
            return found.merged(Meta(**settings))
    elif name in ("MinLen", "MaxLen"):
        count = getattr(extra, "min_length" if name == "MinLen" else "max_length")
        kind = length_kind(base)
        if kind is not None:
            setting = {"string": "length", "array": "items"}[kind]
            return found.merged(Meta(**{f"{name[:3].lower()}_{setting}": count}))
    return _validation_only(found, name, in_model)


def _pydantic(found: Meta, extra: object, base: Any, in_model: bool) -> Meta:
    name = type(extra).__name__
    if name == "FieldInfo":
        for part in getattr(extra, "metadata", ()):
            found = merge(found, part, base, in_model)
        description = getattr(extra, "description", None)
        if isinstance(description, str):
            found = attrs.evolve(found, description=description)
        discriminator = getattr(extra, "discriminator", None)
        return found if discriminator is None else merge_tag(found, discriminator)
    if name == "Discriminator":
        return merge_tag(found, extra)
    if name == "Strict":
        return _strict(found, getattr(extra, "strict", True))
    if name == "AllowInfNan" or type(extra).__module__.startswith(_OUTPUT_MODULES):
        return found
    if name == "_PydanticGeneralMetadata":
        for setting, value in vars(extra).items():
            found = _general(found, setting, value, in_model)
        return found
    return _validation_only(found, name, in_model)


def _general(found: Meta, setting: str, value: object, in_model: bool) -> Meta:
    """One setting of ``Field(...)`` or ``StringConstraints(...)`` that pydantic keeps in a general bag."""
    if setting == "pattern":
        pattern = value.pattern if isinstance(value, re.Pattern) else value
        if isinstance(pattern, str):
            return attrs.evolve(found, pattern=pattern)
    if setting == "strict":
        return _strict(found, value)
    if setting == "coerce_numbers_to_str" and value:
        raise DefinitionError("coerce_numbers_to_str asks for lax mode, which llm_wire does not honour")
    if setting in _INERT or value is None or value is False:
        return found
    return _validation_only(found, setting, in_model)


def _strict(found: Meta, strict: object) -> Meta:
    if strict is False:
        raise DefinitionError("strict=False asks for lax mode, which llm_wire does not honour")
    return found


def merge_tag(found: Meta, discriminator: object) -> Meta:
    """``found`` with the member named by a pydantic discriminator (a name, or ``Discriminator(name)``)."""
    if type(discriminator).__name__ == "Discriminator":
        discriminator = getattr(discriminator, "discriminator", None)
    if not isinstance(discriminator, str):
        raise DefinitionError("a callable discriminator cannot be a schema: name the tag member")
    return attrs.evolve(found, tag=discriminator)


def _validation_only(found: Meta, what: str, in_model: bool) -> Meta:
    if in_model:
        return found  # the model's own validation enforces it when the value is decoded
    msg = f"{what} has no schema and only pydantic enforces it: use it inside a pydantic model"
    raise DefinitionError(msg)


def length_kind(base: Any) -> str | None:
    """Whether a length constraint on ``base`` counts characters (``"string"``), items (``"array"``), or
    neither (``None``); ``Annotated``, ``NewType`` and ``Optional`` are looked through."""
    while True:
        origin = typing.get_origin(base)
        if origin is typing.Annotated:
            base = typing.get_args(base)[0]
        elif isinstance(base, typing.NewType):
            base = base.__supertype__
        elif origin is typing.Union or origin is types.UnionType:
            rest = [arg for arg in typing.get_args(base) if arg is not type(None)]
            if len(rest) != 1:
                return None
            base = rest[0]
        else:
            break
    if base is str:
        return "string"
    if origin in _ARRAYS or (isinstance(base, type) and issubclass(base, _ARRAYS) and not _is_enum(base)):
        return "array"
    return None


def _is_enum(tp: type) -> bool:
    return issubclass(tp, enum.Enum)
