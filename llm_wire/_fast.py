"""
The package's speed tricks, kept in one place: generated straight-line functions, records that build cheaply
at import, and regular expressions compiled on first use. (What they serve stays with its owner:
``contract._quick`` writes a contract's fast path with ``generated``, ``codec._records`` a record's decoder,
and ``contract._fastload`` reads plain schema documents in one walk.) None of them reaches into an object: no
slot is set behind its class's back and no instance changes its class.

A record codec's decoder and a contract's fast path are generated once, as cattrs, attrs and fastjsonschema
generate theirs: one line per field or rule instead of a loop over a plan. The source holds no input and no
user text, only names bound in the namespace it runs in. Each is tested against its slow twin.

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

Regular expressions a module needs only on some paths (``LazyPattern``) compile on first use, not at import.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

from attrs import NOTHING

__all__ = ["LazyPattern", "Lean", "generated"]


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
    ``fullmatch``, ``match``, ``search`` and ``finditer`` are the compiled pattern's own, held in slots once
    set, so later calls cost no more. Two threads meeting the first use both compile it; either result
    serves.
    """

    __slots__ = ("_source", "finditer", "fullmatch", "match", "search")

    fullmatch: Callable[..., re.Match[str] | None]
    match: Callable[..., re.Match[str] | None]
    search: Callable[..., re.Match[str] | None]
    finditer: Callable[..., Iterator[re.Match[str]]]

    def __init__(self, source: str) -> None:
        self._source = source

    def __getattr__(self, name: str) -> Any:
        if name not in _PATTERN_METHODS:
            raise AttributeError(name)
        compiled = re.compile(self._source)
        self.fullmatch, self.match = compiled.fullmatch, compiled.match
        self.search, self.finditer = compiled.search, compiled.finditer
        return getattr(self, name)


_PATTERN_METHODS = frozenset(LazyPattern.__slots__) - {"_source"}
