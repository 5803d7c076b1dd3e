"""
``Lean`` records: their shared ``repr``, ``==`` and hash behave as the methods attrs generates, and attrs
generates none of the three for them. ``_fast.frozen`` builds the class ``attrs.frozen`` builds, and a
``LazyPattern`` matches as its compiled pattern.
"""

from __future__ import annotations

import inspect
import pickle
import re
import typing
import weakref
from decimal import Decimal
from typing import Any

import attrs
import pytest
from attrs import field, frozen
from hypothesis import given
from hypothesis import strategies as st

from llm_wire import codec, contract, reasons
from llm_wire._fast import LazyPattern, Lean
from llm_wire._fast import frozen as quick_frozen
from llm_wire.error import LimitExceeded
from llm_wire.message import ToolCall


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
        records.append(ToolCall)
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


class _Base(Lean):
    """A slotted base with a method, as ``reasons.Described`` is."""

    __slots__ = ()

    def describe(self) -> str:
        """A text."""
        return "described"


def _shapes(make: Any) -> list[type]:
    """The record shapes the package builds through ``_fast.frozen``, made with ``make``."""

    @make
    class Empty(_Base):
        """No fields."""

    @make
    class One(_Base):
        """One field."""

        minimum: int

        @property
        def name(self) -> str:
            """A property, kept."""
            return "one"

    @make
    class Defaults(Lean):
        """Plain defaults after a mandatory field."""

        limit: int
        exclusive: bool = False
        allowed: tuple[str, ...] = ()

    @make
    class Options(Lean):
        """``attrs.field`` options that keep ``__init__`` plain, and keyword-only fields."""

        path: tuple[str, ...]
        turn: str = field(repr=False)
        data: Any = field(default=None, eq=False, hash=False)
        hidden: frozenset[int] = field(default=frozenset(), kw_only=True)
        what: str = field(default="a bound", kw_only=True, eq=False)

    return [Empty, One, Defaults, Options]


_QUICK = _shapes(quick_frozen)
_ATTRS = _shapes(frozen)
_PAIRS = list(zip(_QUICK, _ATTRS, strict=True))
_NAMES = [cls.__name__ for cls in _QUICK]
_SAMPLES: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "Empty": ((), {}),
    "One": ((3,), {}),
    "Defaults": ((Decimal("0.5"),), {"exclusive": True}),
    "Options": ((("a",), "t"), {"hidden": frozenset({1}), "what": "x"}),
}


class TestQuickFrozen:
    """``_fast.frozen`` makes the class ``attrs.frozen`` makes, for every shape it takes on."""

    @pytest.mark.parametrize(("quick", "built"), _PAIRS, ids=_NAMES)
    def test_same_class(self, quick: Any, built: Any) -> None:
        """Fields, slots, ``__match_args__``, the namespace, the ``__init__`` signature and text."""
        assert "<llm_wire: quick record" in vars(quick)["__init__"].__code__.co_filename
        assert attrs.fields(quick) == attrs.fields(built)
        assert quick.__slots__ == built.__slots__
        assert quick.__match_args__ == built.__match_args__
        assert set(vars(quick)) == set(vars(built))
        assert getattr(quick, "__attrs_props__", None) == getattr(built, "__attrs_props__", None)
        assert inspect.signature(quick) == inspect.signature(built)
        for name in ("__qualname__", "__doc__", "__annotations__", "__defaults__", "__kwdefaults__"):
            assert getattr(quick.__init__, name) == getattr(built.__init__, name), name
        assert typing.get_type_hints(quick.__init__) == typing.get_type_hints(built.__init__)
        assert quick.__mro__[1:] == built.__mro__[1:]

    @pytest.mark.parametrize(("quick", "built"), _PAIRS, ids=_NAMES)
    def test_same_records(self, quick: Any, built: Any) -> None:
        """Instances print, compare, hash, evolve, pickle, match and refuse changes as attrs' do."""
        args, kwargs = _SAMPLES[quick.__name__]
        one: Any = quick(*args, **kwargs)
        other: Any = built(*args, **kwargs)
        assert repr(one) == repr(other)
        assert one == quick(*args, **kwargs)
        assert hash(one) == hash(quick(*args, **kwargs))
        assert attrs.asdict(one) == attrs.asdict(other)
        assert one.__getstate__() == other.__getstate__()
        if attrs.fields(quick):
            first = attrs.fields(quick)[0].name
            assert attrs.evolve(one, **{first: args[0]}) == one
            with pytest.raises(attrs.exceptions.FrozenInstanceError):
                setattr(one, first, args[0])
            with pytest.raises(attrs.exceptions.FrozenInstanceError):
                delattr(one, first)
        assert weakref.ref(one)() is one

    @pytest.mark.parametrize(("quick", "built"), _PAIRS, ids=_NAMES)
    def test_same_call_errors(self, quick: Any, built: Any) -> None:
        """A wrong call is the ``TypeError`` attrs' ``__init__`` raises, word for word."""
        wrong = [(1, 2, 3, 4), ()] if attrs.fields(quick) else [(1,)]
        for args in wrong:
            texts = []
            for cls in (quick, built):
                with pytest.raises(TypeError) as raised:
                    cls(*args)
                texts.append(str(raised.value))
            assert texts[0] == texts[1]

    def test_pickles(self) -> None:
        """A quick record of the package pickles and comes back equal, from a dict or an old tuple state."""
        reason = reasons.BelowMinimum(Decimal("1.5"), exclusive=True)
        assert pickle.loads(pickle.dumps(reason)) == reason
        restored: Any = object.__new__(reasons.BelowMinimum)
        restored.__setstate__((Decimal("1.5"), True))
        assert restored == reason

    def test_matches(self) -> None:
        """Positional ``match`` patterns follow ``__match_args__``, keyword-only fields left out."""
        options: Any = _QUICK[3]
        one = options((), "t", hidden=frozenset({2}))
        match one:
            case options(path, turn):
                assert (path, turn) == ((), "t")
            case _:
                pytest.fail("no match")
        assert options.__match_args__ == ("path", "turn", "data")

    def test_other_classes_go_to_attrs(self) -> None:
        """A validator, a factory, a hook, an option or a plain class get attrs' own build, unchanged."""

        @quick_frozen
        class Checked(Lean):
            """A validated field."""

            size: int = field(validator=attrs.validators.instance_of(int))

        @quick_frozen
        class Made(Lean):
            """A factory."""

            items: list[int] = field(factory=list)

        @quick_frozen(eq=False)
        class Optioned(Lean):
            """An option."""

            size: int

        @quick_frozen
        class Plain:
            """Not ``Lean``."""

            size: int

        for cls in (Checked, Made, Optioned, Plain):
            assert "quick record" not in vars(cls)["__init__"].__code__.co_filename
        with pytest.raises(TypeError):
            Checked("1")  # type: ignore[arg-type]
        assert Made().items == []

    def test_package_records(self) -> None:
        """The vocabularies build quickly, and a record still has attrs' fields and text on a bad call."""
        vocabularies = (
            reasons.TooShort,
            contract.NoMatch,
            codec.UnknownTag,
            codec.DecodeError,
            LimitExceeded,
        )
        for record in vocabularies:
            assert "quick record" in vars(record)["__init__"].__code__.co_filename, record
        assert "quick record" in vars(LimitExceeded)["__init__"].__code__.co_filename
        assert [a.name for a in attrs.fields(codec.DecodeError)] == ["path", "reason", "hidden"]
        with pytest.raises(TypeError, match=r"TooShort.__init__\(\) missing 1 required positional argument"):
            reasons.TooShort()  # type: ignore[call-arg]


class TestLazyPattern:
    """A ``LazyPattern`` compiles on first use and then matches as the compiled pattern."""

    @given(st.text(alphabet="ab-1", max_size=8))
    def test_same_as_re(self, text: str) -> None:
        """``fullmatch`` answers as ``re.fullmatch`` does."""
        pattern = LazyPattern(r"[ab]+-[0-9]")
        assert (pattern.fullmatch(text) is None) == (re.fullmatch(r"[ab]+-[0-9]", text) is None)

    def test_compiles_once(self) -> None:
        """The first use stores the compiled pattern's ``fullmatch``; an unknown attribute stays an error."""
        pattern = LazyPattern("x")
        first = pattern.fullmatch
        assert pattern.fullmatch is first
        with pytest.raises(AttributeError):
            _ = pattern.search
