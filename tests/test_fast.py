"""
``Lean`` records: their shared ``repr``, ``==`` and hash behave as the methods attrs generates, and attrs
generates none of the three for them; a ``LazyPattern`` matches as its compiled pattern.
"""

from __future__ import annotations

import pickle
import re
from decimal import Decimal
from typing import Any

import pytest
from attrs import field, frozen
from hypothesis import given
from hypothesis import strategies as st

from llm_wire import codec, contract, reasons
from llm_wire._fast import LazyPattern, Lean
from llm_wire.error import LimitExceeded
from llm_wire.message import ToolCall
from llm_wire.value import Location, ParseError


def _upper(value: object) -> str:
    return str(value).upper()


@frozen
class Lean3(Lean):
    """A record of the shapes the package uses: a default, a hidden field, a custom repr, an ``eq_key``."""

    name: str
    size: int = 0
    note: str = field(default="", repr=False)
    tag: str = field(default="t", repr=_upper, eq=str.lower)


@frozen
class Plain3:
    """``Lean3`` with attrs' generated methods."""

    name: str
    size: int = 0
    note: str = field(default="", repr=False)
    tag: str = field(default="t", repr=_upper, eq=str.lower)


@frozen
class LeanEmpty(Lean):
    """A record without fields."""


@frozen
class PlainEmpty:
    """``LeanEmpty`` with attrs' generated methods."""


@frozen
class LeanOwn(Lean):
    """A record that defines its own ``repr`` and ``==``."""

    value: int

    def __repr__(self) -> str:
        return "own"

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 7


@frozen
class LeanHolder(Lean):
    """A record holding a mutable value, which can hold the record itself."""

    items: list[Any]


@frozen
class PlainHolder:
    """``LeanHolder`` with attrs' generated methods."""

    items: list[Any]


def _lean_and_plain(name: str, size: int, note: str, tag: str) -> tuple[Lean3, Plain3]:
    return Lean3(name, size, note, tag), Plain3(name, size, note, tag)


def _renamed(text: str) -> str:
    return text.replace("Plain", "Lean", 1)


_TEXT = st.text(max_size=8)
_FIELDS = st.tuples(_TEXT, st.integers(), _TEXT, st.sampled_from(["t", "T", "x", "X"]))


class TestNothingGenerated:
    """attrs compiles none of the three for a ``Lean`` record, and a record's own methods stay its own."""

    def test_methods_are_the_shared_ones(self) -> None:
        """Every ``Lean`` record of the package shares one ``__repr__``, ``__eq__`` and ``__hash__``."""
        records = [Lean3, LeanEmpty, reasons.WrongType, contract.NotConst, codec.DecodeError, LimitExceeded]
        records += [ToolCall, ParseError, Location]
        for name in ("__repr__", "__eq__", "__hash__"):
            assert len({vars(record)[name] for record in records}) == 1, name
            assert vars(Lean3)[name] is not vars(Plain3)[name]

    def test_own_methods_are_kept(self) -> None:
        """A record that defines ``__repr__``, ``__eq__`` and ``__hash__`` keeps them."""
        assert repr(LeanOwn(1)) == "own"
        assert LeanOwn(1) == LeanOwn(2)
        assert hash(LeanOwn(1)) == 7

    def test_exceptions_are_left_alone(self) -> None:
        """An exception deriving from ``Lean`` keeps the identity comparison attrs gives exceptions."""

        @frozen
        class Failed(Lean, Exception):
            """A failure."""

            code: int

        assert Failed(1) != Failed(1)
        assert "__eq__" not in vars(Failed)


class TestSameAsAttrs:
    """The shared methods give what attrs' generated ones give."""

    @given(_FIELDS, _FIELDS)
    def test_repr_eq_hash(self, one: tuple[str, int, str, str], two: tuple[str, int, str, str]) -> None:
        """``repr`` (hidden field, custom repr), ``==`` (``eq_key``) and hash agree with attrs'."""
        lean, plain = _lean_and_plain(*one)
        other_lean, other_plain = _lean_and_plain(*two)
        assert repr(lean) == _renamed(repr(plain))
        assert (lean == other_lean) == (plain == other_plain)
        assert (lean != other_lean) == (plain != other_plain)
        if lean == other_lean:
            assert hash(lean) == hash(other_lean)

    def test_no_fields(self) -> None:
        """A record without fields prints ``Name()`` and equals every instance of its class."""
        assert repr(LeanEmpty()) == _renamed(repr(PlainEmpty())) == "LeanEmpty()"
        assert LeanEmpty() == LeanEmpty()
        assert hash(LeanEmpty()) == hash(LeanEmpty())

    def test_other_classes_are_not_equal(self) -> None:
        """Instances of different classes are unequal, even with equal fields, as under attrs."""
        lean: object = Lean3("a", 1)
        assert lean != Plain3("a", 1)
        short: object = reasons.TooShort(1)
        assert short != reasons.TooLong(1)
        assert (lean == object()) is False

    def test_a_cycle_prints_dots(self) -> None:
        """A record reached again while it prints shows as ``...``, as under attrs."""
        lean, plain = LeanHolder([]), PlainHolder([])
        lean.items.append(lean)
        plain.items.append(plain)
        assert repr(lean) == _renamed(repr(plain)) == "LeanHolder(items=[...])"

    def test_unhashable_field(self) -> None:
        """A record holding a list is unhashable, as under attrs."""
        for record in (LeanHolder([1]), PlainHolder([1])):
            with pytest.raises(TypeError, match="unhashable"):
                hash(record)

    def test_package_records(self) -> None:
        """Records of the package still print, compare and pickle as values."""
        failure = reasons.BelowMinimum(Decimal("0.5"), exclusive=True)
        assert repr(failure) == "BelowMinimum(limit=Decimal('0.5'), exclusive=True)"
        assert failure == reasons.BelowMinimum(Decimal("0.50"), exclusive=True)
        assert {failure, reasons.BelowMinimum(Decimal("0.5"), exclusive=True)} == {failure}
        assert pickle.loads(pickle.dumps(failure)) == failure
        call = ToolCall(id="c", name="t", arguments_json="{}")
        assert pickle.loads(pickle.dumps(call)) == call
        assert repr(call).startswith("ToolCall(id='c', name='t'")


class TestLazyPattern:
    """A ``LazyPattern`` compiles on first use and then matches as the compiled pattern."""

    @given(st.text(alphabet="ab-1", max_size=8))
    def test_same_as_re(self, text: str) -> None:
        """``fullmatch`` answers as ``re.fullmatch`` does."""
        pattern = LazyPattern(r"[ab]+-[0-9]")
        assert (pattern.fullmatch(text) is None) == (re.fullmatch(r"[ab]+-[0-9]", text) is None)

    @given(st.text(alphabet="ab-1 ", max_size=12), st.integers(0, 12))
    def test_every_method_as_re(self, text: str, start: int) -> None:
        """``match``, ``search`` and ``finditer`` find what the compiled pattern's own find."""
        pattern, compiled = LazyPattern(r"[ab]+-[0-9]"), re.compile(r"[ab]+-[0-9]")
        found, expected = pattern.match(text, start), compiled.match(text, start)
        assert (found and found.span()) == (expected and expected.span())
        found, expected = pattern.search(text), compiled.search(text)
        assert (found and found.span()) == (expected and expected.span())
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in compiled.finditer(text)]

    def test_compiles_once(self) -> None:
        """The first use stores the compiled pattern's ``fullmatch``; an unknown attribute stays an error."""
        pattern = LazyPattern("x")
        first = pattern.fullmatch
        assert pattern.fullmatch is first
        with pytest.raises(AttributeError):
            _ = pattern.sub
