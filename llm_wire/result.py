"""
Results: ``Ok(value)`` or ``Err(error)``, for every function that reads outside data.

``match parse(text): case Ok(v): ... case Err(e): ...`` works, and mypy narrows both arms.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, NoReturn, TypeAlias, TypeVar

from attrs import frozen

from llm_wire._fast import Lean as _Lean

__all__ = ["Err", "Ok", "Result", "UnwrapError", "is_err", "is_ok", "map", "map_err", "unwrap"]

T = TypeVar("T", covariant=True)
E = TypeVar("E", covariant=True)
U = TypeVar("U")
F = TypeVar("F")
V = TypeVar("V")
X = TypeVar("X")


# Results are made on every hot path: each ``__init__`` is written out, as attrs documents for a frozen class
# (``object.__setattr__``), without the bound setter attrs' generated one makes first.
_setattr = object.__setattr__


@frozen(init=False)
class Ok(_Lean, Generic[T]):
    """
    A success carrying ``value``.
    """

    value: T  # type: ignore[misc]  # covariant is safe: the slot is set once, in __init__

    def __init__(self, value: T) -> None:
        _setattr(self, "value", value)


@frozen(init=False)
class Err(_Lean, Generic[E]):
    """
    A failure carrying a typed ``error``.
    """

    error: E  # type: ignore[misc]  # covariant is safe: the slot is set once, in __init__

    def __init__(self, error: E) -> None:
        _setattr(self, "error", error)


Result: TypeAlias = Ok[U] | Err[F]


class UnwrapError(Exception):
    """
    ``unwrap`` met an ``Err``; the typed error is kept in ``error``.
    """

    def __init__(self, error: object) -> None:
        super().__init__(f"unwrap of Err: {error}")
        self.error = error


def map(result: Result[V, X], fn: Callable[[V], U]) -> Result[U, X]:
    """
    Apply ``fn`` to an ``Ok`` value; pass an ``Err`` through.
    """
    match result:
        case Ok(value):
            return Ok(fn(value))
        case Err():
            return result


def map_err(result: Result[V, X], fn: Callable[[X], F]) -> Result[V, F]:
    """
    Apply ``fn`` to an ``Err`` error; pass an ``Ok`` through.
    """
    match result:
        case Ok():
            return result
        case Err(error):
            return Err(fn(error))


def unwrap(result: Result[V, object]) -> V:
    """
    The ``Ok`` value; raises ``UnwrapError`` carrying the error on ``Err``.
    """
    match result:
        case Ok(value):
            return value
        case Err(error):
            _raise(error)


def _raise(error: object) -> NoReturn:
    raise UnwrapError(error)


def is_ok(result: Result[object, object]) -> bool:
    """
    Whether ``result`` is an ``Ok``.
    """
    return isinstance(result, Ok)


def is_err(result: Result[object, object]) -> bool:
    """
    Whether ``result`` is an ``Err``.
    """
    return isinstance(result, Err)
