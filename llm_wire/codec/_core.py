"""
The ``Codec`` type, schema rendering, and ``lazy`` (re-exported by ``llm_wire.codec``; ``map``, ``try_map``
and ``custom`` are in ``_wrap``).

A codec is three things built once: a decode closure and an encode closure that raise an internal
``_CodecFailure`` (turned into ``Err`` at the entry points, so the happy path allocates no results), and a
schema builder. A codec without recursion renders its schema when it is built, so definition mistakes raise
``DefinitionError`` at once; a codec containing ``lazy`` renders on first use. Schemas render into a
``_Ctx`` that collects ``$defs`` for the document root, wherever the recursive codec sits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

import attrs

from llm_wire.codec._errors import DecodeError, EncodeError, _CodecFailure, decode_error, encode_error
from llm_wire.reasons import InvalidJson, TooDeep
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import DefinitionError, Schema, make
from llm_wire.value import DEFAULT, LimitExceeded, Limits, Value, parse, pointer

T = TypeVar("T")
U = TypeVar("U")

#: Internal: a member that is not there.
MISSING: Any = object()

#: What a constructor or conversion function raises for a value it cannot take: the value is refused. Any
#: other exception is a bug in the function and propagates.
REFUSALS = (TypeError, ValueError, AttributeError, LookupError, ArithmeticError)


# ---------------------------------------------------------------------------------------------------------
# Schema rendering context.


class _Ctx:
    """One schema rendering: ``$defs`` for the document root, and the lazy codecs being rendered."""

    def __init__(self) -> None:
        self.defs: dict[str, Schema] = {}
        self.active: dict[object, str] = {}
        self.finished: dict[object, str] = {}
        self.referenced: set[str] = set()

    def node(self, codec: Codec[Any]) -> Schema | None:
        """The node of ``codec`` rendered here, or ``None`` if it has no schema."""
        build = codec._node
        return None if build is None else build(self)

    def fresh(self, name: str, taken: set[str] | None = None) -> str:
        """``name``, or ``name2``, ``name3``... whichever is not yet a definition here."""
        used = set(self.defs) | set(self.active.values()) | (taken or set())
        if name not in used:
            return name
        n = 2
        while f"{name}{n}" in used:
            n += 1
        return f"{name}{n}"

    def recursive(
        self, key: object, name: str, target: Codec[Any], transform: Callable[[Schema], Schema] | None
    ) -> Schema | None:
        """A lazy codec's node: inline unless it refers to itself, then a ``$ref`` into ``$defs``."""
        done = self.finished.get(key)
        if done is not None:
            return _ref(done)
        active = self.active.get(key)
        if active is not None:
            self.referenced.add(active)
            return _ref(active)
        name = self.fresh(name)
        self.active[key] = name
        try:
            node = self.node(target)
            if node is not None and transform is not None:
                node = transform(node)
        finally:
            del self.active[key]
        if node is None or name not in self.referenced:
            return node
        self.defs[name] = node
        self.finished[key] = name
        return _ref(name)

    def adopt(self, node: Schema, defs: Mapping[str, Schema]) -> Schema:
        """``node`` with its definitions moved here; a name already taken by another schema is renamed."""
        renames: dict[str, str] = {}
        for name, body in defs.items():
            if (name in self.defs and self.defs[name] != body) or name in self.active.values():
                renames[name] = self.fresh(name, set(defs) | set(renames.values()))
        if renames:
            node = _rename_refs(node, renames)
        for name, body in defs.items():
            self.defs[renames.get(name, name)] = _rename_refs(body, renames) if renames else body
        return node


def _ref(name: str) -> Schema:
    return make(("$ref", "#/$defs" + pointer((name,))))


def _rename_refs(node: Schema, renames: Mapping[str, str]) -> Schema:
    """A copy of ``node`` whose ``#/$defs/<old>`` references point at the new names."""
    prefixes = {"#/$defs" + pointer((old,)): "#/$defs" + pointer((new,)) for old, new in renames.items()}

    def rewrite(value: object) -> object:
        if isinstance(value, Schema):
            return _rename_refs(value, renames)
        if isinstance(value, tuple) and value and isinstance(value[0], Schema):
            return tuple(_rename_refs(s, renames) for s in value)
        if isinstance(value, tuple) and value and isinstance(value[0], tuple):
            return tuple((k, _rename_refs(s, renames)) for k, s in value)
        return value

    if node.boolean is not None:
        return node
    pairs: list[tuple[str, object]] = []
    for name, value in node.keywords:
        if name == "$ref" and isinstance(value, str):
            for old, new in prefixes.items():
                if value == old or value.startswith(old + "/"):
                    value = new + value[len(old) :]
                    break
            pairs.append((name, value))
        else:
            pairs.append((name, rewrite(value)))
    return make(*pairs)


def _with_defs(node: Schema, defs: Mapping[str, Schema]) -> Schema:
    if not defs:
        return node
    return make(*node.without("$defs").keywords, ("$defs", tuple(defs.items())))


def described(node: Schema, text: str) -> Schema:
    """``node`` with ``description`` as its first keyword (replacing an earlier one)."""
    return make(("description", text), *node.without("description").keywords)


# ---------------------------------------------------------------------------------------------------------
# The codec.


class _Lazy:
    """The target of a ``lazy`` codec, made on first use and then kept."""

    def __init__(self, fn: Callable[[], Codec[Any]]) -> None:
        self.fn = fn
        self.codec: Codec[Any] | None = None

    def get(self) -> Codec[Any]:
        codec = self.codec
        if codec is None:
            codec = self.fn()
            if not isinstance(codec, Codec):
                msg = f"lazy: the function returned {type(codec).__name__}, not a Codec"
                raise DefinitionError(msg)
            self.codec = codec
        return codec

    def decode(self, value: Any) -> Any:
        return self.get()._dec(value)

    def encode(self, value: Any) -> Value:
        return self.get()._enc(value)


@attrs.frozen(eq=False, repr=False)
class Codec(Generic[T]):
    """
    Encodes ``T`` to a JSON value, decodes a JSON value to ``T`` strictly, and carries its ``schema``.

    Build codecs with the functions of ``llm_wire.codec`` (``string``, ``record``, ``derive``...).
    """

    _dec: Callable[[Any], T]
    _enc: Callable[[Any], Value]
    _node: Callable[[_Ctx], Schema | None] | None
    _kind: str
    #: Decoding is the identity for values whose class is exactly this one.
    _exact: type | None = None
    #: Decodes a whole array of items in C loops, or returns ``None`` when ``_dec`` must go item by item.
    _bulk: Callable[[list[Any]], list[T] | None] | None = None
    #: The codec contains ``lazy``: its schema renders on first use and decode bounds the value's depth.
    _recursive: bool = False
    #: The class a record codec builds (unions pick a variant to encode by it).
    _cls: type | None = None
    _lazy: _Lazy | None = None
    #: Decoding checks every rule of the schema (``format`` read as an annotation): a value this codec
    #: decodes is one its schema accepts. ``custom`` and ``lazy`` promise no such thing, nor any codec
    #: containing one.
    _enforces: bool = False
    #: A ``custom`` codec's own schema, used as is at the root.
    _root: Schema | None = None
    _cache: list[Schema | None] = attrs.field(factory=list, init=False)

    def __attrs_post_init__(self) -> None:
        if not self._recursive and self._root is None and self._node is not None:
            ctx = _Ctx()
            node = self._node(ctx)
            if node is None:
                object.__setattr__(self, "_node", None)
            else:
                defs = dict(ctx.defs)
                object.__setattr__(self, "_node", lambda into: into.adopt(node, defs))
                self._cache.append(_with_defs(node, defs))
        if self._node is None:
            self._cache.append(None)

    @property
    def schema(self) -> Schema | None:
        """The JSON Schema of what this codec decodes (``$defs`` at its root), or ``None`` when unknown."""
        cache = self._cache
        if not cache:
            if self._root is not None:
                cache.append(self._root)
            else:
                ctx = _Ctx()
                node = ctx.node(self)
                cache.append(None if node is None else _with_defs(node, ctx.defs))
        return cache[0]

    def decode(self, value: Value, *, limits: Limits = DEFAULT) -> Result[T, DecodeError]:
        """
        The native value for ``value``, or ``Err(DecodeError)``; ``limits.max_depth`` bounds recursive codecs.
        """
        if self._recursive and not _within_depth(value, limits.max_depth):
            too_deep = LimitExceeded("Limits.with_max_depth", limits.max_depth, what="nesting depth")
            return Err(DecodeError((), too_deep))
        try:
            return Ok(self._dec(value))
        except _CodecFailure as fail:
            return Err(decode_error(fail))
        except RecursionError:
            return Err(DecodeError((), TooDeep()))

    @property
    def decode_first(self) -> Callable[[Value], tuple[Value, T] | DecodeError] | None:
        """
        For a codec that enforces its schema (a value it decodes is one its schema accepts): a decode giving
        ``(value, native)`` or the ``DecodeError``, so that admission decodes first and runs the contract only
        when decoding fails. ``None`` for a codec that promises less (``custom``, ``lazy``, or one holding
        either).
        """
        return self._decode_pair if self._enforces else None

    def _decode_pair(self, value: Value) -> tuple[Value, T] | DecodeError:
        """
        ``(value, native)``, or the ``DecodeError``: ``decode`` of a codec without ``lazy`` (so no depth to
        bound), for admission, which keeps both and needs no ``Ok`` to take apart.
        """
        try:
            return value, self._dec(value)
        except _CodecFailure as fail:
            return decode_error(fail)
        except RecursionError:
            return DecodeError((), TooDeep())

    def decode_json(self, text: str | bytes, limits: Limits = DEFAULT) -> Result[T, DecodeError]:
        """
        Parse ``text`` strictly within ``limits``, then decode; a parse failure is ``InvalidJson`` at ``$``.
        """
        match parse(text, limits):
            case Ok(value):
                return self.decode(value, limits=limits)
            case Err(error):
                return Err(DecodeError((), InvalidJson(error)))

    def encode(self, value: T) -> Result[Value, EncodeError]:
        """
        The JSON value for ``value``, or ``Err(EncodeError)`` if it breaks the codec's rules.
        """
        try:
            return Ok(self._enc(value))
        except _CodecFailure as fail:
            return Err(encode_error(fail))
        except RecursionError:
            return Err(EncodeError((), TooDeep()))

    def with_description(self, text: str) -> Codec[T]:
        """
        This codec with ``description`` first in its schema node (replacing an earlier description).
        """
        if not isinstance(text, str):
            raise DefinitionError("with_description: the description must be a str")
        codec = self

        def node(ctx: _Ctx) -> Schema | None:
            inner = ctx.node(codec)
            return None if inner is None else described(inner, text)

        return Codec(
            dec=codec._dec,
            enc=codec._enc,
            node=node,
            kind=codec._kind,
            exact=codec._exact,
            bulk=codec._bulk,
            recursive=codec._recursive,
            cls=codec._cls,
            enforces=codec._enforces,
        )

    def __repr__(self) -> str:
        return f"<Codec {self._kind}>"


def _within_depth(value: object, max_depth: int) -> bool:
    """Whether arrays and objects in ``value`` nest at most ``max_depth`` deep (iteratively)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, list | tuple):
            children: Any = item
        elif isinstance(item, dict):
            children = item.values()
        else:
            continue
        if depth > max_depth:
            return False
        stack.extend((child, depth + 1) for child in children if isinstance(child, list | tuple | dict))
    return True


def _codec(
    dec: Callable[[Any], T],
    enc: Callable[[Any], Value],
    node: Callable[[_Ctx], Schema | None] | None,
    kind: str,
    *children: Codec[Any],
    exact: type | None = None,
    cls: type | None = None,
    bulk: Callable[[list[Any]], list[T] | None] | None = None,
) -> Codec[T]:
    """A codec; it is recursive when a child is, and enforces its schema when every child does."""
    recursive = any(child._recursive for child in children)
    enforces = all(child._enforces for child in children)
    return Codec(
        dec=dec,
        enc=enc,
        node=node,
        kind=kind,
        exact=exact,
        bulk=bulk,
        recursive=recursive,
        cls=cls,
        enforces=enforces,
    )


def _count(what: str, name: str, n: int | None) -> int | None:
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
        msg = f"{what}: {name} must be a non-negative int"
        raise DefinitionError(msg)
    return n


def _count_pair(what: str, low: str, lo: int | None, high: str, hi: int | None) -> None:
    _count(what, low, lo)
    _count(what, high, hi)
    if lo is not None and hi is not None and lo > hi:
        msg = f"{what}: {low} {lo} is greater than {high} {hi}"
        raise DefinitionError(msg)


def _fixed(*pairs: tuple[str, object]) -> Callable[[_Ctx], Schema]:
    node = make(*((k, v) for k, v in pairs if v is not None))
    return lambda _: node


# ---------------------------------------------------------------------------------------------------------
# Recursion: lazy.


def lazy(fn: Callable[[], Codec[T]], *, name: str | None = None) -> Codec[T]:
    """
    A codec made by ``fn`` on first use, for recursive data; renders as ``$ref`` into root ``$defs``.

    ``name`` names the definition (default: the target's class name, else ``fn``'s name). Decoding bounds
    the value's nesting by ``Limits.max_depth``.
    """
    target = _Lazy(fn)
    fn_name = getattr(fn, "__name__", "")

    def node(ctx: _Ctx) -> Schema | None:
        codec = target.get()
        default = codec._cls.__name__ if codec._cls is not None else fn_name
        return ctx.recursive(target, name or (default if default.isidentifier() else "Node"), codec, None)

    return Codec(dec=target.decode, enc=target.encode, node=node, kind="lazy", recursive=True, lazy=target)


def tagged_node(
    ctx: _Ctx, codec: Codec[Any], transform: Callable[[Schema], Schema], key: object
) -> Schema | None:
    """The node of ``codec`` changed by ``transform``; through ``lazy``, the changed node is a definition."""
    target = codec._lazy
    if target is None:
        node = ctx.node(codec)
        return None if node is None else transform(node)
    resolved = target.get()
    name = resolved._cls.__name__ if resolved._cls is not None else "Variant"
    return ctx.recursive((target, key), name, resolved, transform)
