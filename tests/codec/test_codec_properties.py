"""
Codec properties: encode/decode round trips, agreement with the jsonschema oracle on valid and mutated
values, and no Python exception escaping decode or encode whatever the input.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from codec_strategies import CATALOG, arbitrary_objects, mutations, oracle, unwrap
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from llm_wire import codec as c
from llm_wire.result import Err, Ok
from llm_wire.schema import make

#: The oracle runs jsonschema per example; a quarter of the profile's examples per codec keeps it quick.
ORACLE_EXAMPLES = max(25, settings().max_examples // 4)

EXACT = sorted(name for name, entry in CATALOG.items() if entry.exact_schema)


class TestCatalogProperties:
    """Every catalog codec round-trips, agrees with its schema, and never raises."""

    @pytest.mark.parametrize("name", sorted(CATALOG))
    @given(data=st.data())
    def test_round_trip(self, name: str, data: st.DataObject) -> None:
        """decode(encode(x)) == Ok(x) for every native value, and the schema accepts what was encoded."""
        entry = CATALOG[name]
        native = data.draw(entry.natives, label="native")
        encoded = unwrap(entry.codec.encode(native))
        assert entry.codec.decode(encoded) == Ok(native)
        assert oracle(entry.codec)(encoded)

    @pytest.mark.parametrize("name", EXACT)
    @settings(max_examples=ORACLE_EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def test_decode_agrees_with_the_oracle(self, name: str, data: st.DataObject) -> None:
        """On valid and mutated values, decode accepts exactly when jsonschema accepts the rendered schema."""
        entry = CATALOG[name]
        valid = unwrap(entry.codec.encode(data.draw(entry.natives, label="native")))
        candidate = data.draw(mutations(valid), label="candidate")
        decoded = entry.codec.decode(candidate)
        assert isinstance(decoded, Ok) == oracle(entry.codec)(candidate), decoded

    def test_try_map_is_stricter_than_its_schema(self) -> None:
        """
        The catalog's one inexact codec really checks more than its schema says (so it is left out above).
        """
        entry = CATALOG["try_map"]
        assert oracle(entry.codec)("x")
        assert isinstance(entry.codec.decode("x"), Err)

    @pytest.mark.parametrize("name", sorted(CATALOG))
    @settings(max_examples=ORACLE_EXAMPLES)
    @given(value=arbitrary_objects())
    def test_nothing_escapes(self, name: str, value: Any) -> None:
        """Decode and encode return Ok or Err for any Python object; error texts render."""
        codec = CATALOG[name].codec
        for result in (codec.decode(value), codec.encode(value)):
            assert isinstance(result, Ok | Err)
            if isinstance(result, Err):
                assert isinstance(result.error.describe(), str)

    @settings(max_examples=ORACLE_EXAMPLES)
    @given(text=st.text() | st.binary())
    def test_decode_json_never_raises(self, text: str | bytes) -> None:
        """decode_json on arbitrary text returns Ok or Err."""
        for name in ("record", "union", "lazy tree", "json value"):
            assert isinstance(CATALOG[name].codec.decode_json(text), Ok | Err)

    def test_the_agreement_check_can_fail(self) -> None:
        """A codec stricter than its schema is caught by the same mutations the agreement test draws."""
        liar = c.custom(
            lambda v: Ok(v) if v == 3 else Err("only 3"), Ok, make(("type", "integer"), ("maximum", 150))
        )
        found = find(
            mutations(3),
            lambda v: isinstance(liar.decode(v), Ok) != oracle(liar)(v),
            settings=settings(database=None),
        )
        assert oracle(liar)(found)


_FLOAT_ITEMS = st.one_of(
    st.integers(),
    st.integers(min_value=10**300, max_value=10**400),
    st.decimals(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**310), max_value=10**310).map(Decimal),
    st.booleans(),
    st.floats(),
    st.text(max_size=3),
    st.none(),
)


class TestFloatArrays:
    """An array of floats decodes in bulk exactly as it does item by item: values, refusals and paths."""

    @given(st.lists(_FLOAT_ITEMS, max_size=12))
    def test_bulk_agrees_with_items(self, items: list[Any]) -> None:
        numbers = c.list_of(c.floating())
        one_by_one: list[Any] = []
        expected: Ok[list[float]] | Err[Any] = Ok(one_by_one)
        for index, item in enumerate(items):
            decoded = c.floating().decode(item)
            if isinstance(decoded, Err):
                expected = Err((index, decoded.error.reason))
                break
            one_by_one.append(decoded.value)
        got = numbers.decode(items)
        if isinstance(got, Err):
            assert Err((got.error.path[0], got.error.reason)) == expected
        else:
            assert got == expected

    def test_a_sum_that_overflows_is_not_a_refusal(self) -> None:
        big = Decimal("1e308")
        assert c.list_of(c.floating()).decode([big, big]) == Ok([1e308, 1e308])


class _Text(str):
    """A ``str`` subclass: not the exact class a string item decodes as itself."""


_MIXED_ITEMS = st.one_of(
    st.text(max_size=3),
    st.text(max_size=3).map(_Text),
    st.integers(),
    st.booleans(),
    st.none(),
)


class TestExactArrays:
    """
    An array of items whose exact class decodes as itself (strings, ints, booleans) decodes as it does item
    by item: values, refusals and paths; and the decoded list is never the value's own list.
    """

    @pytest.mark.parametrize("item", [c.string(), c.integer(), c.boolean()], ids=["string", "int", "bool"])
    @given(items=st.lists(_MIXED_ITEMS, max_size=8))
    def test_agrees_with_items(self, item: c.Codec[Any], items: list[Any]) -> None:
        one_by_one: list[Any] = []
        expected: Ok[list[Any]] | Err[Any] = Ok(one_by_one)
        for index, one in enumerate(items):
            decoded = item.decode(one)
            if isinstance(decoded, Err):
                expected = Err((index, decoded.error.reason))
                break
            one_by_one.append(decoded.value)
        got = c.list_of(item).decode(items)
        if isinstance(got, Err):
            assert Err((got.error.path[0], got.error.reason)) == expected
        else:
            assert got == expected
            assert got.value is not items
            assert [type(x) for x in got.value] == [type(x) for x in one_by_one]
