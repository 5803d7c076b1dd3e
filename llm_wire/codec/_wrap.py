"""
The wrapping combinators ``map``, ``try_map`` and ``custom`` (re-exported by ``llm_wire.codec``): a codec
seen through conversion functions, or made from two functions over JSON values; the reasons they give are
``ConversionRefused`` and ``Custom``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from llm_wire.codec._core import REFUSALS, Codec, _codec, _Ctx
from llm_wire.codec._errors import DecodeError, EncodeError, _CodecFailure
from llm_wire.codec._reasons import ConversionRefused, Custom
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import DefinitionError, Schema, _walk
from llm_wire.value import Value, pointer, render

T = TypeVar("T")
U = TypeVar("U")


def _same_schema(codec: Codec[Any]) -> Callable[[_Ctx], Schema | None]:
    return lambda ctx: ctx.node(codec)


def _guarded(fn: Callable[[Any], U], role: str) -> Callable[[Any], U]:
    """``fn``, whose ``REFUSALS`` become ``ConversionRefused`` at the codec's path."""
    name = getattr(fn, "__name__", "")
    refused = ConversionRefused(name if name.isidentifier() else f"the {role} function")

    def call(x: Any) -> U:
        try:
            return fn(x)
        except REFUSALS:
            raise _CodecFailure(refused) from None

    return call


def map(codec: Codec[T], decode: Callable[[T], U], encode: Callable[[U], T]) -> Codec[U]:
    """
    ``codec`` seen through two conversions; the schema is unchanged.

    A conversion raising ``TypeError``, ``ValueError`` and the like gives ``ConversionRefused`` at this path.
    """
    inner_dec, inner_enc = codec._dec, codec._enc
    convert_in, convert_out = _guarded(decode, "decode"), _guarded(encode, "encode")

    def dec(v: Any) -> U:
        return convert_in(inner_dec(v))

    def enc(x: Any) -> Value:
        return inner_enc(convert_out(x))

    return _codec(dec, enc, _same_schema(codec), f"map of {codec._kind}", codec)


def _unwrap(result: Result[Any, str]) -> Any:
    if isinstance(result, Ok):
        return result.value
    if isinstance(result, Err):
        raise _CodecFailure(Custom(str(result.error)))
    msg = f"a try_map function must return Ok or Err, not {type(result).__name__}"
    raise TypeError(msg)


def try_map(
    codec: Codec[T], decode: Callable[[T], Result[U, str]], encode: Callable[[U], Result[T, str]]
) -> Codec[U]:
    """
    ``codec`` seen through two fallible conversions; ``Err(message)`` becomes ``Custom(message)`` here.

    The message is rendered verbatim, so keep input values out of it.
    """
    inner_dec, inner_enc = codec._dec, codec._enc
    convert_in, convert_out = _guarded(decode, "decode"), _guarded(encode, "encode")

    def dec(v: Any) -> U:
        return cast(U, _unwrap(convert_in(inner_dec(v))))

    def enc(x: Any) -> Value:
        return inner_enc(_unwrap(convert_out(x)))

    return _codec(dec, enc, _same_schema(codec), f"try_map of {codec._kind}", codec)


def _lift(schema: Schema, ctx: _Ctx) -> Schema:
    """A custom schema nested in another codec: its root ``$defs`` move to the document root."""
    defs = dict(cast(tuple[tuple[str, Schema], ...], schema.get("$defs") or ()))
    body = schema.without("$defs", "$schema")
    for path, node in _walk(body):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and not ref.startswith("#/$defs/"):
            msg = (
                f"custom: the $ref {render(ref)} at {pointer(path) or '/'} cannot be nested in another codec"
            )
            raise DefinitionError(msg)
    return ctx.adopt(body, defs)


def custom(
    decode: Callable[[Value], Result[T, str | DecodeError]],
    encode: Callable[[T], Result[Value, str | EncodeError]],
    schema: Schema | None = None,
) -> Codec[T]:
    """
    A codec from two functions over JSON values, trusted to match ``schema`` (``None``: no schema).

    ``Err(message)`` becomes ``Custom(message)`` at this codec's path; an ``Err(DecodeError)`` keeps its
    own path below it. Every codec that wraps one without a schema has no schema either.
    """
    if schema is not None and not isinstance(schema, Schema):
        raise DefinitionError("custom: schema must be a Schema or None")
    read, write = _guarded(decode, "decode"), _guarded(encode, "encode")

    def dec(v: Any) -> T:
        result = read(v)
        if isinstance(result, Ok):
            return result.value
        error = result.error
        if isinstance(error, DecodeError):
            raise _CodecFailure.of(error.path, error.reason, error.hidden)
        raise _CodecFailure(Custom(str(error)))

    def enc(x: Any) -> Value:
        result = write(x)
        if isinstance(result, Ok):
            return result.value
        error = result.error
        if isinstance(error, EncodeError):
            raise _CodecFailure.of(error.path, error.reason, error.hidden)
        raise _CodecFailure(Custom(str(error)))

    if schema is None:
        return Codec(dec=dec, enc=enc, node=None, kind="custom")
    given = schema
    return Codec(dec=dec, enc=enc, node=lambda ctx: _lift(given, ctx), kind="custom", root=given)
