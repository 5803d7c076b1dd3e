"""
What a compiled contract is made of, at validation time: a check is ``check(value, out)``. With ``out=None``
it returns the first failure or ``None``; with a budget it returns every failure (up to the budget) as a list.
Failures carry their path reversed (parents append their segment on the way out), so a valid value builds no
paths at all. Here also: JSON equality (``json_key``) and the memo that shares the results of nodes reached
along several edges within one validation. The compiler that makes checks is ``_compile``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any, TypeAlias

from llm_wire.contract._errors import ValidationError, failure
from llm_wire.contract._reasons import NotAllowed

__all__ = [
    "NOT_JSON",
    "Budget",
    "Check",
    "Fail",
    "Memo",
    "Out",
    "Res",
    "accept",
    "is_integral",
    "json_key",
    "memoized",
    "more",
    "normalize",
    "reject",
    "sharing",
]


#: A failure under construction is the ``ValidationError`` itself, its path reversed in ``rpath``.
Fail: TypeAlias = ValidationError


class Budget:
    """How many more failures ``validate_all`` wants."""

    __slots__ = ("left",)

    def __init__(self, left: int) -> None:
        self.left = left


Out: TypeAlias = Budget | None
Res: TypeAlias = "Fail | list[Fail] | None"
#: A compiled schema node or keyword: ``check(value, out)``.
Check: TypeAlias = Callable[[Any, Out], Res]


def more(acc: list[Fail] | None, found: Fail | list[Fail], segment: object, out: Budget) -> list[Fail]:
    """Add a child's failures to ``acc`` (all-failures mode), prefixing ``segment`` unless it is ``None``."""
    if isinstance(found, list):
        if segment is not None:
            for fail in found:
                fail.rpath.append(segment)  # type: ignore[arg-type]
        if acc is None:
            return found
        acc.extend(found)
        return acc
    if segment is not None:
        found.rpath.append(segment)  # type: ignore[arg-type]
    out.left -= 1
    if acc is None:
        return [found]
    acc.append(found)
    return acc


def accept(v: Any, out: Out) -> Res:
    """The check of ``true``: every value passes."""
    return None


_NOT_ALLOWED = NotAllowed()


def reject(v: Any, out: Out) -> Res:
    """The check of ``false``: no value passes."""
    return failure(_NOT_ALLOWED)


# ---------------------------------------------------------------------------------------------------------
# JSON equality: a hashable key per value, so that 1 == 1.0, true != 1 and objects compare unordered.

_TRUE_KEY = ("boolean", True)
_FALSE_KEY = ("boolean", False)


def json_key(v: Any) -> Any:
    """A hashable key that is equal for equal JSON values and unequal otherwise."""
    c = v.__class__
    if c is str or c is int or v is None:
        return v
    if c is Decimal:
        return v if v.is_finite() else ("not json", id(v))  # a signalling NaN cannot even be hashed
    if c is bool:
        return _TRUE_KEY if v else _FALSE_KEY
    if c is list:
        return ("array", tuple(map(json_key, v)))
    if c is dict:
        return ("object", frozenset((k, json_key(x)) for k, x in v.items()))
    normal = normalize(v)
    if normal is NOT_JSON:
        return ("not json", id(v))
    return json_key(normal)


NOT_JSON: Any = object()


def normalize(v: Any) -> Any:
    """The exact-class JSON value for an instance of a JSON class's subclass; ``NOT_JSON`` otherwise."""
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, int):
        return int.__add__(v, 0)
    if isinstance(v, str):
        return str.__add__(v, "")
    if isinstance(v, Decimal):
        return Decimal(v) if v.is_finite() else NOT_JSON
    if isinstance(v, float):  # exactly the number its shortest repr spells, as ``value`` reads floats
        return Decimal(repr(v)) if math.isfinite(v) else NOT_JSON
    if isinstance(v, list):
        return list(v)
    if isinstance(v, dict):
        return dict(v)
    return NOT_JSON


def is_integral(d: Decimal) -> bool:
    _, digits, exponent = d.as_tuple()
    if not isinstance(exponent, int) or exponent >= 0:
        return isinstance(exponent, int)
    return not any(digits[exponent:])


class Memo:
    """
    One validation's shared results: ``(slot, id(value)) -> (value, result)`` for the nodes reached along
    several edges, so that a fan-out (``oneOf`` of the same ``$ref`` twice, level after level) costs each
    node once per value. ``computed`` counts the results computed, for tests (``Contract._memo``).
    """

    __slots__ = ("computed", "table")

    def __init__(self) -> None:
        self.table: dict[tuple[int, int], tuple[Any, Any]] | None = None
        self.computed = 0


def memoized(check: Check, slot: int, memo: Memo) -> Check:
    """``check`` sharing its results within one validation (a pass in any mode, a failure without budget)."""

    def memoized(v: Any, out: Out) -> Res:
        table = memo.table
        if table is None:  # another thread's validation ended: correct, just unshared
            return check(v, out)
        k = (slot, id(v))
        hit = table.get(k)
        if hit is not None and hit[0] is v:  # the value is held by the table: its id is not reused
            if hit[1] is None:
                return None
            if out is None:
                reason, rpath = hit[1]
                again = failure(reason)
                again.rpath.extend(rpath)
                return again
        memo.computed += 1
        found = check(v, out)
        if found is None:
            table[k] = (v, None)
        elif out is None:
            table[k] = (v, (found.reason, tuple(found.rpath)))  # type: ignore[union-attr]
        return found

    return memoized


def sharing(root: Check, memo: Memo) -> Check:
    """The entry of a contract with shared nodes: one table per validation."""

    def entry(v: Any, out: Out) -> Res:
        if memo.table is not None:  # a concurrent validation's table: entries hold their values, so sound
            return root(v, out)
        memo.table = {}
        try:
            return root(v, out)
        finally:
            memo.table = None

    return entry
