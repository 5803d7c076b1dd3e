"""
Container codecs: lists, tuples, string-keyed maps, and ``nullable``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from llm_wire.codec._core import Codec, _codec, _count_pair, _Ctx
from llm_wire.codec._errors import _CodecFailure
from llm_wire.codec._reasons import EXPECTED_ARRAY, EXPECTED_OBJECT, NullInsideNullable, UnexpectedType
from llm_wire.reasons import TooFewItems, TooManyItems, WrongType
from llm_wire.schema import Schema, make
from llm_wire.value import Value

T = TypeVar("T")


# ---------------------------------------------------------------------------------------------------------
# Containers.


def list_of(item: Codec[T], *, min_items: int | None = None, max_items: int | None = None) -> Codec[list[T]]:
    """
    An array whose every item decodes with ``item``, as a ``list``; encodes lists and tuples.
    """
    _count_pair("list_of", "min_items", min_items, "max_items", max_items)
    counted = min_items is not None or max_items is not None
    lo = 0 if min_items is None else min_items
    hi = math.inf if max_items is None else max_items
    too_few = TooFewItems(lo)
    too_many = TooManyItems(max_items if max_items is not None else 0)
    item_dec, item_enc, exact, bulk = item._dec, item._enc, item._exact, item._bulk
    only_exact = frozenset(() if exact is None else (exact,))

    def locate(v: list[Any], decode: Callable[[Any], Any]) -> None:
        for i, x in enumerate(v):
            try:
                decode(x)
            except _CodecFailure as fail:
                fail.rpath.append(i)
                raise

    def dec(v: Any) -> list[T]:
        if v.__class__ is not list and not isinstance(v, list):
            raise _CodecFailure(EXPECTED_ARRAY)
        if counted and not lo <= len(v) <= hi:
            raise _CodecFailure(too_few if len(v) < lo else too_many)
        if bulk is not None:
            out = bulk(v)
            if out is not None:
                return out
        elif exact is not None:
            # Items all of the class that decodes as itself (strings for ``list_of(string())``): a copy, in
            # C loops, so the decoded list never shares the parsed one.
            if only_exact.issuperset(map(type, v)):
                return list(v)
            try:
                return [cast(T, x) if x.__class__ is exact else item_dec(x) for x in v]
            except _CodecFailure:  # ``item`` is a built-in scalar: running it again to find the index is safe
                locate(v, item_dec)
        out = []
        i = 0
        try:
            for x in v:
                out.append(item_dec(x))
                i += 1
        except _CodecFailure as fail:
            fail.rpath.append(i)
            raise
        return out

    def enc(x: Any) -> Value:
        if not isinstance(x, list | tuple):
            raise _CodecFailure(UnexpectedType("list"))
        if counted and not lo <= len(x) <= hi:
            raise _CodecFailure(too_few if len(x) < lo else too_many)
        out = []
        i = 0
        try:
            for y in x:
                out.append(item_enc(y))
                i += 1
        except _CodecFailure as fail:
            fail.rpath.append(i)
            raise
        return out

    def node(ctx: _Ctx) -> Schema | None:
        items = ctx.node(item)
        if items is None:
            return None
        return make(
            *(
                (k, v)
                for k, v in (
                    ("type", "array"),
                    ("items", items),
                    ("minItems", min_items),
                    ("maxItems", max_items),
                )
                if v is not None
            )
        )

    return _codec(dec, enc, node, f"list of {item._kind}", item)


def tuple_of(*items: Codec[Any]) -> Codec[tuple[Any, ...]]:
    """
    An array of exactly ``len(items)`` items, each with its own codec, as a ``tuple``.
    """
    n = len(items)
    decs = [c._dec for c in items]
    encs = [c._enc for c in items]
    too_few, too_many = TooFewItems(n), TooManyItems(n)

    def dec(v: Any) -> tuple[Any, ...]:
        if not isinstance(v, list):
            raise _CodecFailure(EXPECTED_ARRAY)
        if len(v) != n:
            raise _CodecFailure(too_few if len(v) < n else too_many)
        out = []
        for i in range(n):
            try:
                out.append(decs[i](v[i]))
            except _CodecFailure as fail:
                fail.rpath.append(i)
                raise
        return tuple(out)

    def enc(x: Any) -> Value:
        if not isinstance(x, tuple | list):
            raise _CodecFailure(UnexpectedType("tuple"))
        if len(x) != n:
            raise _CodecFailure(too_few if len(x) < n else too_many)
        out = []
        for i in range(n):
            try:
                out.append(encs[i](x[i]))
            except _CodecFailure as fail:
                fail.rpath.append(i)
                raise
        return out

    def node(ctx: _Ctx) -> Schema | None:
        nodes = [ctx.node(c) for c in items]
        if any(s is None for s in nodes):
            return None
        prefix = (("prefixItems", tuple(nodes)),) if nodes else ()
        return make(("type", "array"), *prefix, ("minItems", n), ("maxItems", n))

    return _codec(dec, enc, node, f"tuple of {n}", *items)


def dict_of(value: Codec[T]) -> Codec[dict[str, T]]:
    """
    An object used as a map from string keys to values decoded with ``value``, as a ``dict``.

    Keys come from the input, so error texts show them as ``[*]``; the typed path keeps them.
    """
    value_dec, value_enc = value._dec, value._enc

    def dec(v: Any) -> dict[str, T]:
        if not isinstance(v, dict):
            raise _CodecFailure(EXPECTED_OBJECT)
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise _CodecFailure(EXPECTED_OBJECT)
            try:
                out[k] = value_dec(x)
            except _CodecFailure as fail:
                fail.at_key(k)
                raise
        return out

    def enc(x: Any) -> Value:
        if not isinstance(x, Mapping):
            raise _CodecFailure(UnexpectedType("dict"))
        out: dict[str, Value] = {}
        for k, y in x.items():
            if not isinstance(k, str):
                raise _CodecFailure(UnexpectedType("dict with str keys"))
            try:
                out[k] = value_enc(y)
            except _CodecFailure as fail:
                fail.at_key(k)
                raise
        return out

    def node(ctx: _Ctx) -> Schema | None:
        values = ctx.node(value)
        return None if values is None else make(("type", "object"), ("additionalProperties", values))

    return _codec(dec, enc, node, f"dict of {value._kind}", value)


def nullable(inner: Codec[T]) -> Codec[T | None]:
    """
    ``null`` as ``None``, anything else through ``inner``; renders ``{"anyOf": [<inner>, {"type": "null"}]}``.
    """
    inner_dec, inner_enc = inner._dec, inner._enc

    def dec(v: Any) -> T | None:
        if v is None:
            return None
        try:
            return inner_dec(v)
        except _CodecFailure as fail:  # as a contract merges the types of failed alternatives
            if not fail.rpath and isinstance(fail.reason, WrongType):
                fail.reason = WrongType((*fail.reason.expected, "null"))
            raise

    def enc(x: Any) -> Value:
        if x is None:
            return None
        out = inner_enc(x)
        if out is None:
            raise _CodecFailure(NullInsideNullable())
        return out

    null = make(("type", "null"))

    def node(ctx: _Ctx) -> Schema | None:
        inner_node = ctx.node(inner)
        return None if inner_node is None else make(("anyOf", (inner_node, null)))

    return _codec(dec, enc, node, f"nullable {inner._kind}", inner)
