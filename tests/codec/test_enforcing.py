"""
Codecs that enforce their schema: what they decode the schema accepts, so admission may decode first and
consult the contract only on failure, with the same outcome as validating first.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from codec_strategies import CATALOG, mutations, oracle, unwrap
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from llm_wire import admission, tool
from llm_wire import codec as c
from llm_wire.message import ToolCall
from llm_wire.result import Ok
from llm_wire.value import Value, render

#: The catalog codecs that promise nothing about their schema: a ``custom`` decode is trusted, not checked,
#: and a ``lazy`` target is not known when the codec is made.
NOT_ENFORCING = {"custom", "lazy tree"}


def _tool(entry: c.Codec[Any]) -> tool.Tool:
    """A tool whose input holds the codec's value under ``v`` and an optional integer ``n``."""
    wrapped = c.record(dict, c.required("v", entry), c.optional("n", c.integer(minimum=0)))
    return tool.new("probe", "A probe.", wrapped)


def _outcome(made: tool.Tool, arguments: Value) -> tuple[Any, ...]:
    """What admission makes of one call, with the tool left out (the two tools differ by identity)."""
    call = ToolCall(id="c1", name="probe", arguments_json=render(arguments))
    result = admission.admit([call], [made], tool.ToolCallChecks.REPORT)
    assert isinstance(result, Ok), result
    done = result.value
    return done.calls, done.issues, [(a.call, a.arguments, a.decoded) for a in done.admitted]


class TestWhichCodecsEnforce:
    """Every catalog codec enforces its schema except ``custom`` and ``lazy``, and a codec holding one."""

    @pytest.mark.parametrize("name", sorted(CATALOG))
    def test_catalog_codecs(self, name: str) -> None:
        """Only the codecs in ``NOT_ENFORCING`` leave a rule of their schema to the contract."""
        assert CATALOG[name].codec._enforces is (name not in NOT_ENFORCING)

    def test_a_record_holding_a_custom_codec_does_not_enforce(self) -> None:
        """The promise holds for a combinator only when it holds for every child."""
        held = c.record(dict, c.required("a", c.integer()), c.required("b", CATALOG["custom"].codec))
        assert not held._enforces
        assert _tool(held).decode_first is None
        assert _tool(c.integer()).decode_first is not None


class TestDecodeFirst:
    """Decoding first gives the admission that validating first gives."""

    @pytest.mark.parametrize("name", sorted(n for n in CATALOG if n not in NOT_ENFORCING))
    @settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(data=st.data())
    def test_what_decodes_the_schema_accepts(self, name: str, data: st.DataObject) -> None:
        """For an enforcing codec, each value it decodes is valid under its schema (the jsonschema oracle)."""
        codec = CATALOG[name].codec
        valid = unwrap(codec.encode(data.draw(CATALOG[name].natives, label="native")))
        candidate = data.draw(mutations(valid), label="candidate")
        decoded = codec.decode(candidate)
        event("decoded" if isinstance(decoded, Ok) else "refused")
        if isinstance(decoded, Ok):
            assert oracle(codec)(candidate)

    @pytest.mark.parametrize("name", sorted(n for n in CATALOG if n not in NOT_ENFORCING))
    @settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(data=st.data())
    def test_same_admission_either_way(self, name: str, data: st.DataObject) -> None:
        """The same calls, issues and decoded values, whether the contract runs first or only on failure."""
        fast = _tool(CATALOG[name].codec)
        slow = attrs.evolve(fast, decode_first=None)
        assert fast.decode_first is not None
        valid = unwrap(CATALOG[name].codec.encode(data.draw(CATALOG[name].natives, label="native")))
        arguments = data.draw(mutations({"v": valid, "n": 1}), label="arguments")
        outcome = _outcome(fast, arguments)
        event("admitted" if outcome[2] else f"refused: {type(outcome[1][0].failure).__name__}")
        assert outcome == _outcome(slow, arguments)
