"""
Wire names: a reversible mangling of tool names that a provider would refuse, with a prefix per server.

A name every provider takes (each registered wire's ``name_rule``) goes on the wire as it is.
Any other name, and every name under a server prefix, is mangled: in a name with a character outside
``[a-zA-Z0-9_-]`` (or a leading digit or ``-``), each such character becomes ``_<hex code point>_`` and ``_``
becomes ``__``, a code no two names share; a prefix joins with one ``_`` (a prefix holds no ``_``, so where it
ends is never in doubt); a result over 64 bytes keeps its first 55 and ends in ``_`` and 8 hex digits of a
SHA-256 of the original.
``WireNames`` holds one tool set's table: it maps each (prefix, name) to its wire name and back, and refuses a
set in which two tools would share a wire name (``NameCollision``), so the reverse of a returned call is never
a guess.

::

    WireNameError                  a tool set that cannot be named on the wire
    ├── EmptyName()                   a tool without a name (``llm_wire.tool``)
    ├── InvalidPrefix(prefix)         a prefix outside ``[a-zA-Z][a-zA-Z0-9-]{0,19}``
    └── NameCollision(wire, ...)      two tools would be sent under one wire name
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import TypeAlias

from attrs import frozen

from llm_wire._described import Described as _Described
from llm_wire._tool_errors import MAX_NAME_BYTES as _MAX_NAME_BYTES
from llm_wire.message import Provider
from llm_wire.providers import WIRES
from llm_wire.result import Err, Ok, Result
from llm_wire.tool import EmptyName

__all__ = [
    "InvalidPrefix",
    "NameCollision",
    "Named",
    "WireNameError",
    "WireNames",
    "mangle",
    "wire_names",
]

#: Each provider's rule for a tool name, as its API documents it (its wire's ``name_rule``). Gemini (Vertex
#: AI) also wants a letter or ``_`` first; a wire name passes all of them.
_NAME_RULES: Mapping[Provider, re.Pattern[str]] = MappingProxyType(
    {provider: wire.name_rule for provider, wire in WIRES.items()}
)

#: The longest server prefix; the rest of the 64 bytes is left for the name.
_MAX_PREFIX_BYTES = 20
_PREFIX = re.compile(rf"[a-zA-Z][a-zA-Z0-9-]{{0,{_MAX_PREFIX_BYTES - 1}}}")
_VERBATIM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_LITERAL = _VERBATIM - {"_"}
_HASH_DIGITS = 8
_KEPT = _MAX_NAME_BYTES - _HASH_DIGITS - 1


def _passes_every_rule(name: str) -> bool:
    """Whether every registered wire's name rule takes ``name`` as a tool name."""
    return all(rule.fullmatch(name) for rule in _NAME_RULES.values())


@frozen
class InvalidPrefix(_Described):
    """A server prefix that is not 1 to 20 ASCII letters, digits and ``-``, starting with a letter."""

    prefix: str

    def describe(self) -> str:
        """The rule; the prefix itself is not repeated."""
        return (
            f"a server prefix must be 1 to {_MAX_PREFIX_BYTES} ASCII letters, digits and '-', "
            "starting with a letter"
        )


@frozen
class Named:
    """One tool as its server names it: the server's prefix (``None`` for none) and the tool's own name."""

    prefix: str | None
    name: str


@frozen
class NameCollision(_Described):
    """Two tools of one set would go on the wire under one name: which one a call meant would be a guess."""

    wire: str
    first: Named
    second: Named

    def describe(self) -> str:
        """Names the wire name (made of safe characters), never the original names."""
        return f"two tools would both be sent as {self.wire}; rename one or give its server another prefix"


WireNameError: TypeAlias = EmptyName | InvalidPrefix | NameCollision


def _escaped(name: str) -> str:
    out = []
    for n, character in enumerate(name):
        if character == "_":
            out.append("__")
        elif character in _LITERAL and not (n == 0 and (character == "-" or character.isdigit())):
            out.append(character)
        else:
            out.append(f"_{ord(character):x}_")
    return "".join(out)


def _digest(prefix: str | None, name: str) -> str:
    import hashlib  # only a name over 64 bytes needs it, and OpenSSL's module is slow to load

    key = f"{prefix or ''}\x00{name}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(key).hexdigest()[:_HASH_DIGITS]


def mangle(name: str, prefix: str | None = None) -> Result[str, EmptyName | InvalidPrefix]:
    """
    The wire name of tool ``name`` (of the server with ``prefix``): ``name`` itself when every provider takes
    it and there is no prefix, else its mangled form; always a name every provider takes.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, not {type(name).__name__}")
    if prefix is not None and not isinstance(prefix, str):
        raise TypeError(f"prefix must be a str or None, not {type(prefix).__name__}")
    if not name:
        return Err(EmptyName())
    if prefix is not None and not _PREFIX.fullmatch(prefix):
        return Err(InvalidPrefix(prefix))
    if prefix is None and _passes_every_rule(name):
        return Ok(name)
    # Kept as written when only its length (or a first character that a prefix now precedes) is wrong.
    readable = all(character in _VERBATIM for character in name) and (
        prefix is not None or name[0] not in "-0123456789"
    )
    body = name if readable else _escaped(name)
    if prefix is not None:
        body = f"{prefix}_{body}"
    if len(body) > _MAX_NAME_BYTES:  # only ASCII is left, so characters are bytes
        body = f"{body[:_KEPT]}_{_digest(prefix, name)}"
    return Ok(body)


@frozen(init=False)
class WireNames:
    """
    One tool set's names: each (prefix, name) to its wire name and back. Made by ``wire_names`` only.
    """

    _to_wire: Mapping[Named, str]
    _from_wire: Mapping[str, Named]

    def __init__(self, to_wire: Mapping[Named, str], from_wire: Mapping[str, Named]) -> None:
        object.__setattr__(self, "_to_wire", MappingProxyType(dict(to_wire)))
        object.__setattr__(self, "_from_wire", MappingProxyType(dict(from_wire)))

    def wire(self, name: str, prefix: str | None = None) -> str | None:
        """The wire name of a tool of the set, or ``None`` for a tool outside it."""
        return self._to_wire.get(Named(prefix, name))

    def original(self, wire: str) -> Named | None:
        """The tool a wire name (such as a returned call's) stands for, or ``None`` when none does."""
        return self._from_wire.get(wire)

    def __iter__(self) -> Iterator[Named]:
        return iter(self._to_wire)

    def __len__(self) -> int:
        return len(self._to_wire)

    def __repr__(self) -> str:
        return f"<WireNames ({len(self)} tools)>"


def wire_names(tools: Iterable[Named]) -> Result[WireNames, WireNameError]:
    """
    The table of a tool set, each tool mangled (``mangle``); ``Err`` for an empty name, a bad prefix, or two
    tools (the same one listed twice included) that would share a wire name.
    """
    to_wire: dict[Named, str] = {}
    from_wire: dict[str, Named] = {}
    for named in tools:
        if not isinstance(named, Named):
            raise TypeError(f"tools must hold Named records, not {type(named).__name__}")
        match mangle(named.name, named.prefix):
            case Err(problem):
                return Err(problem)
            case Ok(wire):
                pass
        earlier = from_wire.get(wire)
        if earlier is not None:
            return Err(NameCollision(wire, earlier, named))
        to_wire[named] = wire
        from_wire[wire] = named
    return Ok(WireNames(to_wire, from_wire))
