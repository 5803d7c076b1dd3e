"""
One vocabulary: a value refused by a codec and by the contract compiled from the codec's schema gets the same
reason, the same path and the same text, whichever layer finds it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from codec_strategies import CATALOG, mutations, unwrap
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from llm_wire import codec as c
from llm_wire import contract
from llm_wire.result import Err, Ok
from llm_wire.value import Value

#: Codecs whose failures cannot agree by nature, and why:
#: - the unions render as ``anyOf`` of closed objects, so a contract reports ``NoMatch`` (or the failure of
#:   the one alternative past the type) where the codec, which reads the tag first, says ``UnknownTag`` or
#:   names the failing member of the tagged variant;
#: - ``custom`` refuses with its own free-form ``Custom`` message, which no schema keyword states.
DISAGREE = {"union", "union keys", "internal union", "custom"}
AGREEING = sorted(name for name, entry in CATALOG.items() if entry.exact_schema and name not in DISAGREE)


def _one_failure(codec: c.Codec[Any], value: Value) -> tuple[c.DecodeError, contract.ValidationError] | None:
    """Both errors when the contract finds exactly one failure and the codec refuses too, else ``None``."""
    assert codec.schema is not None
    compiled = unwrap(contract.from_schema(codec.schema))
    failures = contract.validate_all(compiled, value)
    decoded = codec.decode(value)
    if len(failures) != 1 or not isinstance(decoded, Err):
        return None
    return decoded.error, failures[0]


class TestOneVocabulary:
    """A value failing one rule gets one reason, path and text from codec and contract."""

    @pytest.mark.parametrize("name", AGREEING)
    @settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(data=st.data())
    def test_one_failure_has_one_reason_path_and_text(self, name: str, data: st.DataObject) -> None:
        """
        A value failing exactly one rule: codec and contract agree on reason class, path and ``describe()``.
        """
        codec = CATALOG[name].codec
        valid = unwrap(codec.encode(data.draw(CATALOG[name].natives, label="native")))
        both = _one_failure(codec, data.draw(mutations(valid), label="candidate"))
        if both is None:
            event("not exactly one failure")
            return
        decoded, validated = both
        event(f"agreed on {type(validated.reason).__name__}")
        assert type(decoded.reason) is type(validated.reason)
        assert decoded.reason == validated.reason
        assert decoded.path == validated.path
        assert decoded.hidden == validated.hidden
        assert decoded.describe() == validated.describe()


_PERSON = c.record(
    dict,
    c.required("name", c.string(min_length=1, max_length=5, pattern="^([A-Z]|$)")),
    c.optional("age", c.integer(minimum=0, exclusive_maximum=150, multiple_of=1)),
    c.optional("tags", c.dict_of(c.string())),
    c.optional("scores", c.list_of(c.decimal(exclusive_minimum=0, maximum=1), min_items=1, max_items=2)),
    c.optional("unit", c.enum_of({"celsius": "C", "fahrenheit": "F"})),
    c.optional("pair", c.tuple_of(c.integer(), c.boolean())),
    c.optional("step", c.decimal(multiple_of=Decimal("0.5"))),
    c.optional("nick", c.nullable(c.string())),
    c.optional("kind", c.literal("a", "b")),
)

CASES: list[tuple[str, Value, str]] = [
    ("minimum", {"name": "Ada", "age": -1}, '$["age"]: expected at least 0'),
    ("exclusive maximum", {"name": "Ada", "age": 150}, '$["age"]: expected less than 150'),
    ("exclusive minimum", {"name": "Ada", "scores": [0]}, '$["scores"][0]: expected more than 0'),
    ("maximum", {"name": "Ada", "scores": [Decimal("1.5")]}, '$["scores"][0]: expected at most 1'),
    ("multipleOf", {"name": "Ada", "step": Decimal("0.3")}, '$["step"]: expected a multiple of 0.5'),
    ("minLength", {"name": ""}, '$["name"]: expected at least 1 character'),
    ("maxLength", {"name": "Adalbert"}, '$["name"]: expected at most 5 characters'),
    ("pattern", {"name": "ada"}, '$["name"]: expected a string matching the pattern "^([A-Z]|$)"'),
    ("minItems", {"name": "Ada", "scores": []}, '$["scores"]: expected at least 1 item'),
    ("maxItems", {"name": "Ada", "scores": [1, 1, 1]}, '$["scores"]: expected at most 2 items'),
    ("tuple too short", {"name": "Ada", "pair": [1]}, '$["pair"]: expected at least 2 items'),
    ("tuple too long", {"name": "Ada", "pair": [1, True, 3]}, '$["pair"]: expected at most 2 items'),
    ("enum", {"name": "Ada", "unit": "kelvin"}, '$["unit"]: expected one of "celsius", "fahrenheit"'),
    ("literal", {"name": "Ada", "kind": "c"}, '$["kind"]: expected one of "a", "b"'),
    ("literal type", {"name": "Ada", "kind": 1}, '$["kind"]: expected a string'),
    ("missing field", {}, '$["name"]: required property is missing'),
    (
        "unknown field",
        {"name": "Ada", "secret": 1},
        '$[*]: unexpected property; the allowed properties are "name", "age", "tags", "scores", "unit", '
        '"pair", "step", "nick", "kind"',
    ),
    ("wrong type", {"name": 5}, '$["name"]: expected a string'),
    ("wrong type at the root", [], "$: expected an object"),
    ("nullable", {"name": "Ada", "nick": 5}, '$["nick"]: expected a string or null'),
    ("nested path", {"name": "Ada", "pair": [1, "x"]}, '$["pair"][1]: expected a boolean'),
    ("map key redaction", {"name": "Ada", "tags": {"secret-key": 1}}, '$["tags"][*]: expected a string'),
]


class TestEachRule:
    """Each rule, case by case: codec and contract agree."""

    @pytest.mark.parametrize(("rule", "value", "text"), CASES, ids=[case[0] for case in CASES])
    def test_each_rule_agrees(self, rule: str, value: Value, text: str) -> None:
        """Each kind of rule, one failure at a time: the same reason, path and text from both layers."""
        both = _one_failure(_PERSON, value)
        assert both is not None, rule
        decoded, validated = both
        assert decoded.reason == validated.reason
        assert (decoded.path, decoded.hidden) == (validated.path, validated.hidden)
        assert decoded.describe() == validated.describe() == str(decoded) == text
        assert "secret" not in text

    def test_the_person_codec_accepts_a_full_value(self) -> None:
        """The cases above each break one rule of a value that is otherwise valid."""
        assert _PERSON.schema is not None
        full: Value = {
            "name": "Ada",
            "age": 36,
            "tags": {"k": "v"},
            "scores": [1],
            "unit": "celsius",
            "pair": [1, True],
        }
        assert isinstance(_PERSON.decode(full), Ok)
        assert contract.validate_all(unwrap(contract.from_schema(_PERSON.schema)), full) == ()
