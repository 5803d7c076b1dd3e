"""
Choice codecs: enums (a Python ``Enum`` by value, or a mapping of labels) and literals (fixed JSON scalars).

A value outside the choices is ``NotInEnum`` with the choices as JSON text; a literal of one JSON type
checks the type first, as the schema's ``type`` comes before its ``enum`` in a contract.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any, TypeVar, cast, overload

from llm_wire.codec._core import MISSING, Codec, _codec, _Ctx, _fixed
from llm_wire.codec._errors import _CodecFailure
from llm_wire.codec._reasons import EXPECTED_INTEGER, EXPECTED_STRING, UnknownEnumValue
from llm_wire.reasons import NotInEnum, WrongType
from llm_wire.schema import DefinitionError, Schema
from llm_wire.value import Value, render

T = TypeVar("T")
E = TypeVar("E", bound=enum.Enum)


def _labels_node(labels: list[str]) -> Callable[[_Ctx], Schema]:
    return _fixed(("type", "string"), ("enum", labels))


@overload
def enum_of(source: type[E]) -> Codec[E]: ...
@overload
def enum_of(source: Mapping[str, T]) -> Codec[T]: ...
def enum_of(source: type[E] | Mapping[str, T]) -> Codec[Any]:
    """
    An enum: a Python ``Enum`` sent by value when its values are all strings, or all ints (``IntEnum``;
    schema ``{"type": "integer", "enum": [...]}``), else by member name; or a mapping from string label to
    native value (encoded by equality). An ``Enum`` encodes only its own members.
    """
    if isinstance(source, type) and issubclass(source, enum.Enum):
        members = list(source)
        kind = f"enum {source.__name__}"
        if members and all(isinstance(m.value, int) and not isinstance(m.value, bool) for m in members):
            return _int_enum(source, members, kind)
        by_value = all(isinstance(m.value, str) for m in members)
        pairs: list[tuple[Any, Any]] = [(m.value if by_value else m.name, m) for m in members]
        cls: type | None = source
    elif isinstance(source, Mapping):
        pairs = list(source.items())
        kind = "enum"
        cls = None
    else:
        raise DefinitionError("enum_of: expected an Enum class or a mapping from label to value")
    if not pairs:
        raise DefinitionError(f"{kind}: has no labels")
    by_label: dict[str, Any] = {}
    to_label: dict[Any, str] = {}
    for label, native in pairs:
        if not isinstance(label, str):
            raise DefinitionError(f"{kind}: labels must be strings")
        if label in by_label:
            raise DefinitionError(f"{kind}: label {render(label)} appears twice")
        try:
            if native in to_label:
                msg = f"{kind}: label {render(label)} repeats the value of an earlier label"
                raise DefinitionError(msg)
            to_label[native] = label
        except TypeError:
            msg = f"{kind}: the value of label {render(label)} is not hashable"
            raise DefinitionError(msg) from None
        by_label[label] = native
    labels = list(by_label)
    unknown = NotInEnum(tuple(render(label) for label in labels))
    get = by_label.get

    def dec(v: Any) -> Any:
        if v.__class__ is not str:
            if not isinstance(v, str):
                raise _CodecFailure(EXPECTED_STRING)
            v = str.__str__(v)
        found = get(v, MISSING)
        if found is MISSING:
            raise _CodecFailure(unknown)
        return found

    def enc(x: Any) -> Value:
        if cls is not None and x.__class__ is not cls:  # a StrEnum member equals its str: refuse the str
            raise _CodecFailure(UnknownEnumValue())
        try:
            return to_label[x]
        except (KeyError, TypeError):
            raise _CodecFailure(UnknownEnumValue()) from None

    return _codec(dec, enc, _labels_node(labels), kind)


def _int_enum(source: type[E], members: list[E], kind: str) -> Codec[E]:
    """An ``Enum`` whose values are all ints, by value; ``1.0`` is ``1``, as in the schema's ``enum``."""
    values = [int(m.value) for m in members]
    by_value = dict(zip(values, members, strict=True))
    unknown = NotInEnum(tuple(render(v) for v in values))
    lo, hi = min(values), max(values)

    def dec(v: Any) -> E:
        if not _has_type(v, "integer"):
            raise _CodecFailure(EXPECTED_INTEGER)
        found = by_value.get(int(v)) if lo <= v <= hi else None  # int() of 1E+100000 would be slow
        if found is None:
            raise _CodecFailure(unknown)
        return found

    def enc(x: Any) -> Value:
        if x.__class__ is not source:
            raise _CodecFailure(UnknownEnumValue())
        return int(x.value)

    return _codec(dec, enc, _fixed(("type", "integer"), ("enum", values)), kind)


def _literal_key(v: object) -> tuple[str, object]:
    """A key under which equal JSON scalars meet (``1`` and ``1.0`` do; ``true`` and ``1`` do not)."""
    if v is None:
        return ("null", None)
    if isinstance(v, bool):
        return ("boolean", v)
    if isinstance(v, str):
        return ("string", str.__str__(v))
    if isinstance(v, int):
        return ("number", int(v))
    if isinstance(v, Decimal) and v.is_finite():
        return ("number", v)  # equal numbers hash equal across int and Decimal
    return ("", None)  # not a JSON scalar (a float included): matches no literal


def _has_type(v: Any, name: str) -> bool:
    """Whether ``v`` is of JSON Schema type ``name`` (``string``, ``integer``, ``boolean`` or ``null``)."""
    if name == "string":
        return isinstance(v, str)
    if name == "boolean":
        return isinstance(v, bool)
    if name == "null":
        return v is None
    if isinstance(v, Decimal):
        return v.is_finite() and v == v.to_integral_value()
    return isinstance(v, int) and not isinstance(v, bool)


@overload
def literal(*values: str) -> Codec[str]: ...
@overload
def literal(*values: int) -> Codec[int]: ...
@overload
def literal(*values: str | int | bool | None) -> Codec[Any]: ...
def literal(*values: str | int | bool | None) -> Codec[Any]:
    """
    One of fixed JSON scalars (strings, ints, booleans, ``None``), each decoding to itself.
    """
    if not values:
        raise DefinitionError("literal: has no values")
    table: dict[tuple[str, object], str | int | bool | None] = {}
    for v in values:
        if not isinstance(v, str | int | bool | None):
            msg = f"literal: {type(v).__name__} is not a str, int, bool or None"
            raise DefinitionError(msg)
        key = _literal_key(v)
        if key in table:
            msg = f"literal: value {render(v)} appears twice"
            raise DefinitionError(msg)
        table[key] = v
    listed = list(values)
    kinds = {key[0] for key in table}
    json_type = {"string": "string", "number": "integer", "boolean": "boolean", "null": "null"}
    kind = json_type[kinds.pop()] if len(kinds) == 1 else None
    node = _fixed(("type", kind), ("enum", listed))
    unknown = NotInEnum(tuple(render(v) for v in values))
    wrong = WrongType((kind,)) if kind is not None else None

    def dec(v: Any) -> Any:
        found = table.get(_literal_key(v), MISSING)
        if found is MISSING:  # the schema's "type" comes before its "enum", as in a contract
            raise _CodecFailure(unknown if wrong is None or _has_type(v, wrong.expected[0]) else wrong)
        return found

    def enc(x: Any) -> Value:
        found = MISSING if isinstance(x, Decimal) else table.get(_literal_key(x), MISSING)
        if found is MISSING:
            raise _CodecFailure(UnknownEnumValue())
        return cast(Value, found)

    return _codec(dec, enc, node, "literal")
