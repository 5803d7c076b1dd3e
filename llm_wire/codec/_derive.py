"""
``derive``: a codec from an attrs class or dataclass whose type hints choose the codecs (``llm_wire.codec``).

Type hints are read once, when the codec is derived; decoding then runs the same closures as hand-built
codecs. Metadata comes from ``field``/``dataclass_field`` (per field) and ``Annotated[T, meta(...)]`` (per
type), so the member type stays ``T``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import enum
import functools
import inspect
import sys
import types
import typing
import uuid
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from decimal import Decimal
from typing import Any, TypeVar, Unpack, overload

import attrs

from llm_wire._fast import Lean
from llm_wire.codec import _annotated, _pydantic, _typeddict
from llm_wire.codec._choices import enum_of, literal
from llm_wire.codec._containers import dict_of, list_of, nullable, tuple_of
from llm_wire.codec._core import Codec, lazy
from llm_wire.codec._discriminated import discriminated, tag_values
from llm_wire.codec._formats import date, date_time
from llm_wire.codec._formats import uuid as uuid_codec
from llm_wire.codec._meta import ARRAY, META_KEY, NUMERIC, STRING, Constraints, meta_of
from llm_wire.codec._meta import Meta as Meta  # re-exported with meta: the face imports them from here
from llm_wire.codec._meta import meta as meta
from llm_wire.codec._records import ABSENT, Absent, Field, build_record, internal_union, variant
from llm_wire.codec._scalars import boolean, decimal, floating, integer, json_value, string
from llm_wire.codec._untagged import untagged
from llm_wire.codec._wrap import map
from llm_wire.schema import DefinitionError
from llm_wire.value import Value

T = TypeVar("T")


# ``codec.field`` and ``codec.dataclass_field`` are typed as their default: mypy's attrs and dataclasses
# plugins read any ``= ...`` but their own field calls as a default, so a field without a default takes its
# metadata in ``Annotated[T, meta(...)]`` (docs/codecs.md); the last overload, for older code, is Any.
@overload
def field(
    *,
    default: T,
    description: str | None = None,
    name: str | None = None,
    codec: Codec[Any] | None = None,
    **constraints: Unpack[Constraints],
) -> T: ...
@overload
def field(
    *,
    factory: Callable[[], T],
    description: str | None = None,
    name: str | None = None,
    codec: Codec[Any] | None = None,
    **constraints: Unpack[Constraints],
) -> T: ...
@overload
def field(
    *,
    description: str | None = None,
    name: str | None = None,
    codec: Codec[Any] | None = None,
    **constraints: Unpack[Constraints],
) -> Any: ...
def field(
    *,
    default: Any = attrs.NOTHING,
    factory: Callable[[], Any] | None = None,
    description: str | None = None,
    name: str | None = None,
    codec: Codec[Any] | None = None,
    **constraints: Any,
) -> Any:
    """
    An attrs field (``attrs.field``) with a default or a factory, carrying codec metadata; ``constraints``
    are those of ``meta``. A field without a default is typed ``Annotated[T, meta(...)]`` instead.
    """
    found = meta_of("field", {"description": description, "name": name, "codec": codec, **constraints})
    if factory is not None:
        return attrs.field(factory=factory, metadata={META_KEY: found})
    return attrs.field(default=default, metadata={META_KEY: found})


@overload
def dataclass_field(
    *,
    default: T,
    description: str | None = None,
    name: str | None = None,
    codec: Codec[Any] | None = None,
    **constraints: Unpack[Constraints],
) -> T: ...
@overload
def dataclass_field(
    *,
    factory: Callable[[], T],
    description: str | None = None,
    name: str | None = None,
    codec: Codec[Any] | None = None,
    **constraints: Unpack[Constraints],
) -> T: ...
@overload
def dataclass_field(
    *,
    description: str | None = None,
    name: str | None = None,
    codec: Codec[Any] | None = None,
    **constraints: Unpack[Constraints],
) -> Any: ...
def dataclass_field(
    *,
    default: Any = dataclasses.MISSING,
    factory: Callable[[], Any] | None = None,
    description: str | None = None,
    name: str | None = None,
    codec: Codec[Any] | None = None,
    **constraints: Any,
) -> Any:
    """
    A dataclass field (``dataclasses.field``) with a default or a factory, carrying codec metadata;
    ``constraints`` are those of ``meta``. A field without a default is typed ``Annotated[T, meta(...)]``.
    """
    found = meta_of(
        "dataclass_field", {"description": description, "name": name, "codec": codec, **constraints}
    )
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata={META_KEY: found})
    return dataclasses.field(default=default, metadata={META_KEY: found})


@overload
def derive(
    cls: type[T],
    *,
    namespace: Mapping[str, Any] | None = None,
    codecs: Mapping[Any, Codec[Any]] | None = None,
    require_all: bool = False,
) -> Codec[T]: ...
@overload
def derive(
    cls: Any,
    *,
    namespace: Mapping[str, Any] | None = None,
    codecs: Mapping[Any, Codec[Any]] | None = None,
    require_all: bool = False,
) -> Codec[Any]: ...
def derive(
    cls: Any,
    *,
    namespace: Mapping[str, Any] | None = None,
    codecs: Mapping[Any, Codec[Any]] | None = None,
    require_all: bool = False,
) -> Codec[Any]:
    """
    A record codec for an attrs class or dataclass (or a codec for any supported type hint).

    Fields keep their order; a field with a default is optional; the class docstring or a ``description``
    class variable describes it. A forward reference the class's module cannot resolve is looked up in
    ``namespace``, then where ``derive`` is called (classes defined in a function). ``codecs`` gives the
    codec of a type hint wherever it appears in the classes derived (a class, ``Mapping[str, Item]``, or
    ``llm_wire.value.Value``), in place of the one the hint would derive; a field's own ``codec=`` still
    wins. ``require_all`` makes every field required when decoding, those with a default too (a document
    written whole, such as a stored record, then reads back only whole). Raises ``DefinitionError`` naming
    the class and field for an unsupported hint.
    """
    caller: dict[str, Any] = {}
    with contextlib.suppress(AttributeError, ValueError):  # no frames on some interpreters
        frame = sys._getframe(1)
        caller = {**frame.f_globals, **frame.f_locals}
    deriver = _Deriver({**caller, **(namespace or {})}, _overrides(codecs), require_all)
    codec = deriver.hint(cls, Meta())
    _ = codec.schema  # a recursive codec renders now, so that definition mistakes raise here
    return codec


def _overrides(codecs: Mapping[Any, Codec[Any]] | None) -> dict[Any, Codec[Any]]:
    """``codecs`` by type hint, ``Value`` (a string alias) as the hint it stands for."""
    if codecs is None:
        return {}
    if not isinstance(codecs, Mapping):
        raise DefinitionError("codecs must map type hints to codecs")
    out: dict[Any, Codec[Any]] = {}
    for hint, codec in codecs.items():
        if not isinstance(codec, Codec):
            msg = f"codecs: the codec for {_name(hint)} is a {type(codec).__name__}, not a Codec"
            raise DefinitionError(msg)
        out[_resolved(hint)] = codec
    return out


def _resolved(hint: Any) -> Any:
    """``hint`` as ``typing.get_type_hints`` gives it: ``Value`` (a string alias), even nested, resolved."""
    if hint == Value:
        return _value_hint()
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is None or not args or typing.get_origin(hint) is typing.Annotated:
        return hint
    inner = tuple(_resolved(arg) for arg in args)
    if inner == args:
        return hint
    if origin is types.UnionType or origin is typing.Union:
        return typing.Union[inner]  # noqa: UP007 - built from a tuple
    return origin[inner[0] if len(inner) == 1 else inner]


class _ValueProbe:
    value: Value


@functools.cache
def _value_hint() -> object:
    """``llm_wire.value.Value`` as ``typing.get_type_hints`` resolves it, wherever it is written."""
    return typing.get_type_hints(_ValueProbe)["value"]


def _is_class(tp: object) -> bool:
    return isinstance(tp, type) and (attrs.has(tp) or dataclasses.is_dataclass(tp))


def _description(cls: type, names: set[str]) -> str | None:
    text = getattr(cls, "description", None) if "description" not in names else None
    if isinstance(text, str):
        return text
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str) or not doc.strip():
        return None
    if dataclasses.is_dataclass(cls) and doc.startswith(cls.__name__ + "("):
        return None  # the signature dataclasses writes when a class has no docstring
    return inspect.cleandoc(doc)


@attrs.frozen
class _Member(Lean):
    attribute: str
    name: str  # in JSON, unless the metadata renames it
    keyword: str | None  # None: passed by position
    default: Any  # attrs.NOTHING when there is none
    factory: Callable[[], Any] | None
    meta: Meta


def _members(cls: type) -> list[_Member]:
    out = []
    if attrs.has(cls):
        for a in attrs.fields(cls):
            if not a.init:
                continue
            default: Any = a.default
            factory = None
            if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                if default.takes_self:
                    msg = f"{cls.__qualname__}.{a.name}: a factory that takes self cannot be derived"
                    raise DefinitionError(msg)
                default, factory = attrs.NOTHING, default.factory
            found = a.metadata.get(META_KEY, Meta())
            alias = a.alias or a.name
            out.append(_Member(a.name, alias, alias if a.kw_only else None, default, factory, found))
    else:
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            default = attrs.NOTHING if f.default is dataclasses.MISSING else f.default
            factory = None if f.default_factory is dataclasses.MISSING else f.default_factory
            if isinstance(default, type(attrs.field())):
                msg = f"{cls.__qualname__}.{f.name}: codec.field is for attrs classes; use dataclass_field"
                raise DefinitionError(msg)
            found = f.metadata.get(META_KEY, Meta())
            out.append(
                _Member(f.name, f.name, f.name if f.kw_only is True else None, default, factory, found)
            )
    return out


class _Deriver:
    """One ``derive`` call: classes already derived, and placeholders for classes being derived."""

    def __init__(self, fallback: dict[str, Any], overrides: dict[Any, Codec[Any]], require_all: bool) -> None:
        self.fallback = fallback
        self.overrides = overrides
        self.require_all = require_all
        #: An enclosing pydantic model validates the value: records only check, and decode to plain dicts.
        self.in_model = False
        #: By class and ``in_model``: a class checked inside a model and built outside is two codecs.
        self.done: dict[tuple[type, bool], Codec[Any]] = {}
        self.building: set[tuple[type, bool]] = set()
        self.placeholders: dict[tuple[type, bool], Codec[Any]] = {}

    def hint(self, tp: Any, found: Meta) -> Codec[Any]:
        """The codec for type hint ``tp`` with metadata ``found``."""
        if typing.get_origin(tp) is typing.Annotated:
            base, *extras = typing.get_args(tp)
            inner = Meta()
            for extra in extras:
                if isinstance(extra, Meta):
                    inner = inner.merged(extra)
                else:  # annotated_types or pydantic metadata (other libraries' mean nothing here)
                    inner = _annotated.merge(inner, extra, base, self.in_model)
            return self.hint(base, inner.merged(found))
        if found.codec is not None:
            if found.constraints():
                msg = f"codec= cannot be combined with {', '.join(found.constraints())}"
                raise DefinitionError(msg)
            codec = found.codec
        else:
            codec = self.plain(tp, found)
        return codec if found.description is None else codec.with_description(found.description)

    def plain(self, tp: Any, found: Meta) -> Codec[Any]:
        if self.overrides:
            with contextlib.suppress(TypeError):  # an unhashable hint has no override
                override = self.overrides.get(tp)
                if override is not None:
                    _take(found, (), _name(tp))
                    return override
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if isinstance(tp, typing.NewType):
            return self.plain(tp.__supertype__, found)
        if origin is typing.Union or origin is types.UnionType:
            if tp == _value_hint():
                _take(found, (), "Value")
                return json_value()
            return self.union(args, found)
        if tp in _SCALARS:
            allowed, make = _SCALARS[tp]
            return make(**_take(found, allowed, tp.__name__))
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            _take(found, (), tp.__name__)
            if self.in_model:
                _pydantic.check_enum(tp)
            return enum_of(tp)
        if origin is typing.Literal:
            _take(found, (), "Literal")
            return literal(*args)
        if origin in (list, Sequence, MutableSequence) and len(args) == 1:
            return list_of(self.hint(args[0], Meta()), **_take(found, ARRAY, "list"))
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                items = list_of(self.hint(args[0], Meta()), **_take(found, ARRAY, "tuple"))
                return map(items, tuple, list)
            _take(found, (), "tuple")
            return tuple_of(*(self.hint(arg, Meta()) for arg in args if arg != ()))
        if origin in (dict, Mapping) and len(args) == 2:
            if args[0] is not str:
                msg = f"dict keys must be str, not {_name(args[0])}"
                raise DefinitionError(msg)
            _take(found, (), "dict")
            return dict_of(self.hint(args[1], Meta()))
        if _is_class(tp) or _typeddict.is_typeddict(tp):
            _take(found, (), tp.__name__)
            return self.cls(tp)
        if _pydantic.is_model(tp):
            _take(found, (), tp.__name__)
            return self.model(tp)
        if tp is Any and self.in_model:  # pydantic takes any JSON value, its numbers as floats
            _take(found, (), "Any")
            return _pydantic.any_json()
        msg = f"unsupported type hint {_name(tp)}"
        raise DefinitionError(msg)

    def union(self, args: tuple[Any, ...], found: Meta) -> Codec[Any]:
        # ``Absent`` in a union only says that the attribute may hold ABSENT (an absent member): no codec.
        args = tuple(arg for arg in args if arg != Absent)
        if len(args) == 1:
            return self.hint(args[0], found)
        rest = tuple(arg for arg in args if arg is not type(None))
        if len(rest) < len(args):
            inner = rest[0] if len(rest) == 1 else typing.Union[rest]  # noqa: UP007 - built from a tuple
            return nullable(self.hint(inner, attrs.evolve(found, description=None)))
        _take(found, (), "a union")
        if any(_pydantic.is_model(arg) or _typeddict.is_typeddict(arg) for arg in rest):
            return self.discriminated(rest, found.tag)
        classes = [arg for arg in rest if _is_class(arg)]
        if len(classes) < 2:
            return untagged(*(self.hint(arg, Meta()) for arg in rest))
        cases = [variant(_tag(arg), self.cls(arg), cls=arg) for arg in classes]
        tagged = internal_union(*cases, tag=found.tag or "type")
        if len(classes) == len(rest):
            return tagged
        # Classes and other types: the classes are one tagged object member of an untagged union.
        others = [self.hint(arg, Meta()) for arg in rest if not _is_class(arg)]
        return untagged(tagged, *others)

    def discriminated(self, members: tuple[Any, ...], tag: str | None) -> Codec[Any]:
        """A union of pydantic models or TypedDicts, chosen by their ``Literal`` member ``tag``."""
        if tag is None or not all(_pydantic.is_model(m) or _typeddict.is_typeddict(m) for m in members):
            msg = "a union of pydantic models or TypedDicts needs a discriminator and no other members"
            raise DefinitionError(msg)
        keys, cases = set(), []
        for member in members:
            if _pydantic.is_model(member):
                key, attribute, literal = _pydantic.tag_of(member, tag)
            else:
                key, attribute, literal = _typeddict.tag_of(self, member, tag)
            keys.add((key, attribute))
            codec = self.hint(member, Meta())
            cases.append((tag_values(literal, f"{member.__qualname__}.{attribute}"), codec, codec._cls))
        if len(keys) > 1:
            raise DefinitionError(f"the members of a union name the tag {tag} differently")
        ((key, attribute),) = keys
        return discriminated(key, attribute, cases, f"union tagged by {tag}")

    def cls(self, cls: type) -> Codec[Any]:
        key = (cls, self.in_model)
        done = self.done.get(key)
        if done is not None:
            return done
        if key in self.building:  # a recursive class: refer to the codec being built
            if key not in self.placeholders:
                self.placeholders[key] = lazy(lambda: self.done[key], name=cls.__name__)
            return self.placeholders[key]
        self.building.add(key)
        try:
            codec = self.build(cls)
        finally:
            self.building.discard(key)
        self.done[key] = codec
        return codec

    def model(self, model: type) -> Codec[Any]:
        """A pydantic model: checked by its fields' codecs, then built by its own validation (outermost)."""
        outer, self.in_model = self.in_model, True
        try:
            checker = self.cls(model)
        finally:
            self.in_model = outer
        return checker if outer else _pydantic.constructed(model, checker)

    def hints(self, cls: type) -> dict[str, Any]:
        """The type hints of ``cls``: from its module, else with the fallback names (the module's win)."""
        try:
            return typing.get_type_hints(cls, include_extras=True)
        except NameError:
            if not self.fallback:
                raise
        module = sys.modules.get(cls.__module__)
        names = {**self.fallback, **(vars(module) if module is not None else {})}
        return typing.get_type_hints(cls, localns=names, include_extras=True)

    def build(self, cls: type) -> Codec[Any]:
        if _pydantic.is_model(cls):
            return _pydantic.checker(self, cls)
        if _typeddict.is_typeddict(cls):
            return _typeddict.build(self, cls)
        if self.in_model and attrs.has(cls):
            msg = f"{cls.__qualname__}: pydantic cannot build an attrs class from JSON; make it a model"
            raise DefinitionError(msg)
        try:
            hints = self.hints(cls)
        except Exception as exc:  # NameError for an unknown forward reference, TypeError for a bad hint
            msg = f"{cls.__qualname__}: cannot resolve its type hints ({type(exc).__name__}: {exc})"
            raise DefinitionError(msg) from exc
        members = _members(cls)
        fields = []
        for m in members:
            try:
                codec = self.hint(hints[m.attribute], m.meta)
            except DefinitionError as exc:
                msg = f"{cls.__qualname__}.{m.attribute}: {exc}"
                raise DefinitionError(msg) from None
            name = m.meta.name or m.name
            required = self.require_all or (m.default is attrs.NOTHING and m.factory is None)
            default = ABSENT if m.default is attrs.NOTHING else m.default
            fields.append(Field(name, codec, required, default, m.factory, None, m.attribute))
        description = _description(cls, {m.attribute for m in members})
        keywords = [m.keyword for m in members]
        target: Callable[..., Any] = dict if self.in_model else cls  # in a model, pydantic builds it
        return build_record(target, fields, description=description, name=cls.__name__, keywords=keywords)


def _take(found: Meta, allowed: Sequence[str], what: str) -> dict[str, Any]:
    """The constraints of ``found`` for a type that accepts ``allowed``; raises for any other."""
    given = found.constraints()
    refused = [name for name in given if name not in allowed]
    if refused:
        msg = f"{', '.join(refused)} does not apply to {what}"
        raise DefinitionError(msg)
    if found.tag is not None and what != "a union":
        msg = f"tag does not apply to {what}"
        raise DefinitionError(msg)
    return given


def _tag(cls: type) -> str:
    names = {m.attribute for m in _members(cls)}
    declared = getattr(cls, "tag", None) if "tag" not in names else None
    return declared if isinstance(declared, str) else cls.__name__


def _name(tp: object) -> str:
    return tp.__name__ if isinstance(tp, type) else repr(tp)


_SCALARS: dict[Any, tuple[tuple[str, ...], Callable[..., Codec[Any]]]] = {
    str: (STRING, string),
    bool: ((), boolean),
    int: (NUMERIC, integer),
    float: (NUMERIC, floating),
    Decimal: (NUMERIC, decimal),
    datetime.datetime: ((), date_time),
    datetime.date: ((), date),
    uuid.UUID: ((), uuid_codec),
}
