"""
The package's speed tricks, kept in one place: making frozen records without attrs' ``__init__``,
generated straight-line functions, and records that build cheaply at import. (What they serve stays with
its owner: ``contract._quick`` writes a contract's fast path with ``generated``, ``contract._fastload`` reads
plain schema documents in one walk.)

A frozen attrs class refuses ``setattr``, but the descriptors of its slots still set a value. Records made
on every hot path (results, validation failures) set their slots through these setters: the same frozen
objects, about a third cheaper to make. The records admission makes per call go further (``builder``): their
slots live in a plain base class, are stored on a bare instance of it, and the instance then takes the
record's class. Nothing else in the package reaches into slots.

A record codec's decoder and a contract's fast path are generated once, as cattrs, attrs and fastjsonschema
generate theirs: one line per field or rule instead of a loop over a plan. The source holds no input and no
user text, only names bound in the namespace it runs in.

Records that build cheaply at import (``Lean``): attrs compiles a ``__repr__``, an ``__eq__`` and a
``__hash__`` for every class it builds, about half of what building one costs, and the package builds over
a hundred at import. A subclass of ``Lean`` gets the three shared functions below in its own namespace
before ``@frozen`` runs, and attrs leaves alone what a class defines itself (``auto_detect``), so it compiles
only ``__init__``. They behave as attrs' own: ``Name(field=value, ...)`` over the fields with ``repr`` (a
callable ``repr`` formats its field), equality between instances of the same class over the fields with
``eq`` (through ``eq_key``), and a hash of the fields that take part in it. A class that defines one of them
itself keeps its own. For ``@frozen`` records only: a mutable class would wrongly become hashable, and an
exception compares by identity (``Lean`` leaves exceptions alone). Records made or compared on a hot path
keep attrs' generated methods, which run faster.

Records built without attrs' builder (``frozen``, which modules import in place of ``attrs.frozen``): even
a ``Lean`` record costs attrs a second class, a compiled ``__init__`` and its bookkeeping. For a plain
``Lean`` record ``frozen`` makes the class attrs would, from one record attrs builds here (the template):
its fields are copies of the template's field, its ``__init__`` is attrs' code for the same shape of
parameters with the names put in (compiled once per shape), the rest is the template's or shared. Any
other class, or any option, goes to ``attrs.frozen``; ``tests/test_fast.py`` checks the two builds agree.

Regular expressions a module needs only on some paths (``LazyPattern``) compile on first use, not at import.
"""

from __future__ import annotations

import builtins
import re
import sys
import threading
from collections.abc import Callable
from functools import cached_property
from operator import itemgetter
from types import CellType, CodeType, FunctionType
from typing import TYPE_CHECKING, Any

import attrs
from attrs import NOTHING

__all__ = ["LazyPattern", "Lean", "builder", "frozen", "generated", "new", "slot_setters"]

#: A bare instance of a slotted class, its slots still unset (for records whose slots are set one by one).
new = object.__new__


def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of ``cls``'s slots ``names``, in that order; a missing slot is a ``KeyError`` at import."""
    return tuple(cls.__dict__[name].__set__ for name in names)


def builder(cls: type, base: type, *names: str) -> Callable[..., Any]:
    """
    A function making a ``cls`` from the slots ``names``, positionally: ``base`` is the plain class that
    declares the slots and ``cls`` (a frozen record) its subclass that adds none. The slots are stored on a
    bare ``base`` instance, as on any plain object, then the instance takes its class: about half the cost
    of setting a frozen record's slots through their descriptors.
    """
    slots = set(base.__dict__["__slots__"]) - {"__weakref__"}
    if cls.__bases__ != (base,) or cls.__basicsize__ != base.__basicsize__ or slots != set(names):
        msg = f"{cls.__name__} must subclass {base.__name__}, add no slot and be built from all of them"
        raise TypeError(msg)
    stores = "".join(f"    self.{name} = {name}\n" for name in names)
    source = f"def build({', '.join(names)}):\n    self = new(base)\n{stores}    self.__class__ = cls\n"
    return generated(source + "    return self\n", "build", {"new": new, "base": base, "cls": cls})


def generated(source: str, name: str, namespace: dict[str, Any]) -> Callable[..., Any]:
    """The function ``name`` that ``source`` defines, run with ``namespace`` as its globals."""
    exec(compile(source, f"<llm_wire: generated {name}>", "exec"), namespace)
    return namespace[name]  # type: ignore[no-any-return]


_guard = threading.local()


def _repr(self: Any) -> str:
    """attrs' ``repr``: ``Name(a=1, b='x')``, and ``...`` for an instance already being printed."""
    try:
        printing: set[int] = _guard.printing
    except AttributeError:
        printing = _guard.printing = set()
    if id(self) in printing:
        return "..."
    printing.add(id(self))
    try:
        parts = []
        for a in self.__attrs_attrs__:
            if a.repr is False:
                continue
            value = getattr(self, a.name) if a.init else getattr(self, a.name, NOTHING)
            parts.append(f"{a.name}={value!r}" if a.repr is True else f"{a.name}={a.repr(value)}")
        name = self.__class__.__qualname__.rsplit(">.", 1)[-1]
        return f"{name}({', '.join(parts)})"
    finally:
        printing.discard(id(self))


def _eq(self: Any, other: Any) -> Any:
    """attrs' ``==``: the same class, then each field with ``eq`` in turn; the first false result ends it."""
    if other.__class__ is not self.__class__:
        return NotImplemented
    result: Any = True
    for a in self.__attrs_attrs__:
        if not a.eq:
            continue
        mine, theirs = getattr(self, a.name), getattr(other, a.name)
        key = a.eq_key
        result = key(mine) == key(theirs) if key else mine == theirs
        if not result:
            return result
    return result


def _hash(self: Any) -> int:
    """attrs' hash: of the class and the fields that take part (``hash``, or by default ``eq``)."""
    values: list[object] = [self.__class__]
    for a in self.__attrs_attrs__:
        if a.hash is True or (a.hash is None and a.eq is True):
            value = getattr(self, a.name)
            values.append(a.eq_key(value) if a.eq_key else value)
    return hash(tuple(values))


class Lean:
    """Base of a ``@frozen`` record whose ``repr``, ``==`` and hash are the shared functions above."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if issubclass(cls, BaseException):
            return
        own = cls.__dict__
        if "__repr__" not in own:
            cls.__repr__ = _repr  # type: ignore[method-assign]
        if "__eq__" not in own and "__ne__" not in own:
            cls.__eq__ = _eq  # type: ignore[method-assign]
            if "__hash__" not in own:
                cls.__hash__ = _hash  # type: ignore[method-assign]


class LazyPattern:
    """
    A regular expression compiled on first use, for a module that would otherwise compile it at import.
    ``fullmatch`` is the compiled pattern's own, held in a slot once set, so later calls cost no more. Two
    threads meeting the first use both compile it; either result serves.
    """

    __slots__ = ("_source", "fullmatch")

    fullmatch: Callable[[str], re.Match[str] | None]

    def __init__(self, source: str) -> None:
        self._source = source

    def __getattr__(self, name: str) -> Any:
        if name != "fullmatch":
            raise AttributeError(name)
        self.fullmatch = found = re.compile(self._source).fullmatch
        return found


# ---------------------------------------------------------------------------------------------------------
# Building a plain Lean record without attrs' builder


_FIELD_SPEC = type(attrs.field())
_FACTORY: type = type(attrs.Factory(list))
_HOOKS = ("__attrs_pre_init__", "__attrs_post_init__", "__attrs_init_subclass__")
#: What a class may not define itself for the quick build (attrs would keep or refuse it).
_OWN = frozenset(
    {"__init__", "__setattr__", "__delattr__", "__getstate__", "__setstate__", "__slots__", "__match_args__"}
)
_INIT_DOC = "Method generated by attrs for class {}."
_OBJECT_SETATTR = object.__setattr__


def _template() -> type:
    """The record attrs builds for the shape of every quick record: what they all share is taken from it."""

    @attrs.frozen
    class Template(Lean):
        """One field, no default."""

        field: object

    return Template


_TEMPLATE = _template()
_SHARED = {
    name: _TEMPLATE.__dict__[name]
    for name in ("__setattr__", "__delattr__", "__attrs_props__", "__replace__")
    if name in _TEMPLATE.__dict__
}
_ATTRIBUTE: Any = _TEMPLATE.__dict__["__attrs_attrs__"][0]
_HOLDER_MODULE = type(_TEMPLATE.__dict__["__attrs_attrs__"]).__module__


#: The template's field in pickle's form (a value per slot of ``Attribute``): a quick field is a copy with
#: its own name, type and options put in.
_ATTRIBUTE_CLASS: Any = type(_ATTRIBUTE)
_STATE: tuple[Any, ...] = _ATTRIBUTE.__getstate__()
_SLOT = {name: n for n, name in enumerate(_ATTRIBUTE_CLASS.__slots__)}


def _attribute(name: str, kind: Any, options: dict[str, Any]) -> Any:
    """The ``Attribute`` attrs makes of a field of this name, type and ``attrs.field`` options."""
    state = list(_STATE)
    state[_SLOT["name"]] = state[_SLOT["alias"]] = name
    state[_SLOT["type"]] = kind
    for option, value in options.items():
        state[_SLOT[option]] = value
    made = _ATTRIBUTE_CLASS.__new__(_ATTRIBUTE_CLASS)
    made.__setstate__(tuple(state))
    return made


def _field_options(spec: Any) -> dict[str, Any] | None:
    """The options of an ``attrs.field`` the quick build honours, or ``None`` when it needs attrs' builder."""
    if (
        spec._validator is not None
        or spec.converter is not None
        or spec.init is not True
        or spec.on_setattr is not None
        or spec.alias is not None
        or spec.metadata
        or spec.type is not None
        or isinstance(spec._default, _FACTORY)
    ):
        return None
    return {
        "default": spec._default,
        "repr": spec.repr,
        "eq": spec.eq,
        "eq_key": spec.eq_key,
        "order": spec.order,
        "order_key": spec.order_key,
        "hash": spec.hash,
        "kw_only": bool(spec.kw_only),
    }


def _init_code(keyword_only: tuple[bool, ...]) -> CodeType:
    """
    attrs' ``__init__`` of a frozen slotted record whose fields are ``_f0``, ``_f1``... (keyword-only where
    ``keyword_only`` says), in a closure over ``_cached_setattr_get``.
    """
    names = [f"_f{n}" for n in range(len(keyword_only))]
    positional = [name for name, only in zip(names, keyword_only, strict=True) if not only]
    keywords = [name for name, only in zip(names, keyword_only, strict=True) if only]
    parameters = ", ".join(["self", *positional, *(["*", *keywords] if keywords else [])])
    lines = "".join(f"        _setattr('{name}', {name})\n" for name in names)
    source = (
        "def factory(_cached_setattr_get):\n"
        f"    def __init__({parameters}):\n"
        "        _setattr = _cached_setattr_get(self)\n" + lines + "    return __init__\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, "<llm_wire: quick record __init__>", "exec"), namespace)
    return namespace["factory"].__code__.co_consts[1]  # type: ignore[no-any-return]


_INIT_CODES: dict[tuple[bool, ...], CodeType] = {}
_SETATTR_CELL = CellType(_OBJECT_SETATTR.__get__)


def _make_init(cls: type, fields: tuple[Any, ...]) -> Any:
    """The ``__init__`` attrs would generate for ``cls``: same parameters, defaults, names and annotations."""
    shape = tuple(a.kw_only for a in fields)
    code = _INIT_CODES.get(shape)
    if code is None:
        # Two threads meeting a new shape both build the same code; either serves.
        code = _INIT_CODES[shape] = _init_code(shape)
    rename = {f"_f{n}": a.name for n, a in enumerate(fields)}
    code = code.replace(
        co_varnames=tuple(rename.get(name, name) for name in code.co_varnames),
        co_consts=tuple(rename.get(c, c) if isinstance(c, str) else c for c in code.co_consts),
    )
    module = sys.modules.get(cls.__module__)
    namespace = vars(module) if module is not None else {"__builtins__": builtins}
    defaults = tuple(a.default for a in fields if not a.kw_only and a.default is not NOTHING)
    init = FunctionType(code, namespace, "__init__", defaults or None, (_SETATTR_CELL,))
    init.__kwdefaults__ = {
        a.name: a.default for a in fields if a.kw_only and a.default is not NOTHING
    } or None
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = _INIT_DOC.format(cls.__qualname__)
    init.__annotations__ = {"return": None, **{a.name: a.type for a in fields}}
    return init


def _getstate(self: Any) -> dict[str, Any]:
    """attrs' ``__getstate__`` of a slotted record: its fields by name."""
    return {a.name: getattr(self, a.name) for a in self.__attrs_attrs__}


def _setstate(self: Any, state: Any) -> None:
    """attrs' ``__setstate__`` of a slotted record: from a dict by name, or a tuple in field order."""
    set_slot = _OBJECT_SETATTR.__get__(self)
    if isinstance(state, tuple):
        for a, value in zip(self.__attrs_attrs__, state, strict=False):
            set_slot(a.name, value)
    else:
        for a in self.__attrs_attrs__:
            if a.name in state:
                set_slot(a.name, state[a.name])


def _plan(cls: type) -> tuple[Any, ...] | None:
    """The fields (``Attribute``s) of a record the quick build can make, or ``None``."""
    own = cls.__dict__
    if not issubclass(cls, Lean) or issubclass(cls, BaseException) or not _OWN.isdisjoint(own):
        return None
    if "__orig_bases__" in own or any(getattr(cls, hook, None) for hook in _HOOKS):
        return None
    for base in cls.__mro__[1:-1]:
        if "__slots__" not in base.__dict__ or "__attrs_attrs__" in base.__dict__:
            return None
    for value in own.values():
        function = getattr(value, "__func__", value)
        code = getattr(getattr(function, "fget", function), "__code__", None)
        if isinstance(value, cached_property) or (code is not None and "__class__" in code.co_freevars):
            return None
    fields: list[Any] = []
    had_default = False
    for name, kind in own.get("__annotations__", {}).items():
        if name.startswith("_") or "ClassVar" in str(kind):
            return None
        value = own.get(name, NOTHING)
        if isinstance(value, _FIELD_SPEC):
            options = _field_options(value)
            if options is None:
                return None
        elif isinstance(value, _FACTORY):
            return None
        else:
            options = {} if value is NOTHING else {"default": value}
        if not options.get("kw_only"):
            # attrs refuses a mandatory field after one with a default: its builder says so.
            if had_default and options.get("default", NOTHING) is NOTHING:
                return None
            had_default = options.get("default", NOTHING) is not NOTHING
        fields.append(_attribute(name, kind, options))
    return tuple(fields)


def _quick(cls: type) -> type:
    """The record ``attrs.frozen`` makes of ``cls``: built here when ``_plan`` allows, else by attrs."""
    fields = _plan(cls)
    if fields is None:
        return attrs.frozen(cls)
    names = tuple(a.name for a in fields)
    holder = type(
        f"{cls.__name__}Attributes",
        (tuple,),
        {"__module__": _HOLDER_MODULE, **{name: property(itemgetter(n)) for n, name in enumerate(names)}},
    )
    dropped = {*names, "__dict__", "__weakref__"}
    namespace = {k: v for k, v in cls.__dict__.items() if k not in dropped}
    namespace.update(_SHARED)
    inherited_weakref = any(base.__dict__.get("__weakref__") is not None for base in cls.__mro__[1:-1])
    namespace["__slots__"] = names if inherited_weakref else (*names, "__weakref__")
    namespace["__qualname__"] = cls.__qualname__
    namespace["__attrs_attrs__"] = holder(fields)
    namespace["__getstate__"] = _getstate
    namespace["__setstate__"] = _setstate
    namespace["__match_args__"] = tuple(a.name for a in fields if not a.kw_only)
    namespace["__init__"] = _make_init(cls, fields)
    return type(cls)(cls.__name__, cls.__bases__, namespace)


if TYPE_CHECKING:
    from attrs import frozen
else:

    def frozen(maybe_cls: type | None = None, /, **options: Any) -> Any:
        """
        ``attrs.frozen``, cheaper for a plain ``Lean`` record: public fields with plain defaults or
        ``attrs.field`` options that leave ``__init__`` plain (``default``, ``repr``, ``eq``, ``hash``,
        ``kw_only``), no validators, converters or factories, no hooks, no fields of its bases. Such a
        record gets the class ``attrs.frozen`` would make (the same fields, ``__init__`` signature and
        text, slots, pickling, ``__match_args__``, frozen ``setattr``) in a third of the time; any other
        class, or any option, goes to ``attrs.frozen`` itself.
        """
        if maybe_cls is None or options:
            return attrs.frozen(maybe_cls, **options)
        return _quick(maybe_cls)
