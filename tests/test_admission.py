"""Admission: argument decoding, issue texts, and admitting batches under both policies."""

from __future__ import annotations

import json
import weakref
from typing import Any

import attrs
import pytest
from declared import SEARCH, TOOLS, WEATHER, Location, Weather, call, even
from hypothesis import given
from hypothesis import strategies as st

from llm_wire import admission, codec, tool
from llm_wire.admission import (
    AdmissionLimits,
    Admitted,
    DecodeRejected,
    InvalidArguments,
    InvalidToolCall,
    SchemaRejected,
    UnknownTool,
)
from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.message import ToolCall
from llm_wire.reasons import InvalidJson
from llm_wire.result import Err, Ok, unwrap
from llm_wire.tool import (
    ToolCallChecks,
)
from llm_wire.value import Syntax, UnrepresentableNumber


class TestDecodeArguments:
    """Strict parse, then schema, then native decode."""

    def test_decodes(self) -> None:
        got = admission.decode_arguments(
            call("get_weather", {"location": {"city": "Paris"}}), codec.derive(Weather)
        )
        assert got == Ok(Weather(Location("Paris"), 1))

    def test_invalid_json(self) -> None:
        got = admission.decode_arguments(call("get_weather", '{"location": {}, }'), codec.derive(Weather))
        assert isinstance(got, Err)
        assert isinstance(got.error, InvalidJson)
        assert got.error.error.reason is Syntax.TRAILING_COMMA

    def test_schema_rejected(self) -> None:
        got = admission.decode_arguments(
            call("get_weather", {"location": {"city": 5}}), codec.derive(Weather)
        )
        assert isinstance(got, Err)
        assert isinstance(got.error, SchemaRejected)
        assert got.error.errors[0].path == ("location", "city")

    def test_decode_rejected(self) -> None:
        got = admission.decode_arguments(call("t", {"n": 3}), codec.derive(_Even))
        assert isinstance(got, Err)
        assert isinstance(got.error, DecodeRejected)


@attrs.frozen
class _Even:
    n: int = codec.field(codec=codec.try_map(codec.integer(), even, Ok))


EVEN = tool.new("even", "Takes an even number", codec.derive(_Even))


class TestDescribeIssue:
    """Texts for the model: what, where, what to do; never the input."""

    def test_unknown_tool_lists_declared(self) -> None:
        text = admission.describe_issue(UnknownTool("c1", "secret_tool_name", ("get_weather", "search")))
        assert text == (
            "Error: no tool with that name exists. Call one of the declared tools: get_weather, search."
        )

    def test_unknown_tool_list_is_bounded(self) -> None:
        names = tuple(f"t{n}" for n in range(25))
        text = admission.describe_issue(UnknownTool("c1", "zz", names))
        assert "t19" in text
        assert "t20" not in text
        assert "(and 5 more)" in text

    def test_invalid_arguments(self) -> None:
        admitted = admission.admit(
            [call("get_weather", {"location": {"city": 7, "country": "hidden-value"}})],
            TOOLS,
            ToolCallChecks.REPORT,
        )
        assert isinstance(admitted, Ok)
        text = admission.describe_issue(admitted.value.issues[0])
        assert text == (
            "Error: the arguments for tool get_weather were refused: schema validation failed: "
            '$["location"]["city"]: expected a string. Correct the arguments and call the tool again.'
        )
        assert "hidden-value" not in text


def _admit(calls: list[ToolCall], checks: ToolCallChecks, **limits: int) -> Any:
    return admission.admit(calls, (*TOOLS, EVEN), checks, AdmissionLimits(**limits))  # type: ignore[arg-type]


BOTH = pytest.mark.parametrize("checks", list(ToolCallChecks))


class TestAdmit:
    """Every admission branch, under both policies."""

    @BOTH
    def test_good_calls_are_decoded(self, checks: ToolCallChecks) -> None:
        calls = [
            call("get_weather", {"location": {"city": "Paris"}, "days": 3}, "a"),
            call("search", {"query": "llm"}, "b"),
        ]
        got = _admit(calls, checks)
        assert isinstance(got, Ok)
        admitted: Admitted = got.value
        assert admitted.calls == tuple(calls)
        assert admitted.issues == ()
        first = admitted.arguments("a")
        assert first is not None
        assert first.decoded == Weather(Location("Paris"), 3)
        second = admitted.arguments("b")
        assert second is not None
        assert second.decoded == {"query": "llm"}

    @BOTH
    def test_empty_batch(self, checks: ToolCallChecks) -> None:
        assert _admit([], checks) == Err(ProtocolError("empty tool-call batch"))

    @BOTH
    def test_duplicate_id(self, checks: ToolCallChecks) -> None:
        calls = [call("search", {"query": "a"}, "x"), call("search", {"query": "b"}, "x")]
        assert _admit(calls, checks) == Err(ProtocolError("calls 0 and 1 share one call id"))

    @BOTH
    def test_too_many_calls(self, checks: ToolCallChecks) -> None:
        calls = [call("search", {"query": "a"}, str(n)) for n in range(3)]
        assert _admit(calls, checks, calls_per_turn=2) == Err(
            LimitExceeded("Config.with_limit(Limit.CALLS_PER_TURN, n)", 2, 3)
        )

    @BOTH
    def test_per_call_bytes(self, checks: ToolCallChecks) -> None:
        text = json.dumps({"query": "é" * 10})
        size = len(text.encode())
        got = _admit([call("search", text)], checks, argument_bytes_per_call=size - 1)
        assert got == Err(
            LimitExceeded("Config.with_limit(Limit.ARGUMENT_BYTES_PER_CALL, n)", size - 1, size)
        )

    @BOTH
    def test_total_bytes(self, checks: ToolCallChecks) -> None:
        calls = [call("search", {"query": "abc"}, str(n)) for n in range(3)]
        size = len(calls[0].arguments_json)
        got = _admit(calls, checks, total_argument_bytes=2 * size + 1)
        assert got == Err(
            LimitExceeded("Config.with_limit(Limit.TOTAL_ARGUMENT_BYTES, n)", 2 * size + 1, 3 * size)
        )

    @BOTH
    def test_fatal_errors_come_before_issues(self, checks: ToolCallChecks) -> None:
        calls = [call("nope", {}, "x"), call("search", {"query": "b"}, "x")]
        got = _admit(calls, checks)
        if checks is ToolCallChecks.REJECT:
            assert got == Err(InvalidToolCall(UnknownTool("x", "nope", ("get_weather", "search", "even")), 0))
            assert str(got.error) == "call 0 names a tool that was not declared"
        else:
            assert got == Err(ProtocolError("calls 0 and 1 share one call id"))

    def test_unknown_tool(self) -> None:
        calls = [call("secret_name", {"q": 1}, "a"), call("search", {"query": "x"}, "b")]
        unknown = UnknownTool("a", "secret_name", ("get_weather", "search", "even"))
        assert _admit(calls, ToolCallChecks.REJECT) == Err(InvalidToolCall(unknown, 0))
        got = _admit(calls, ToolCallChecks.REPORT)
        assert isinstance(got, Ok)
        assert got.value.issues == (unknown,)
        assert [a.call.id for a in got.value.admitted] == ["b"]

    def test_invalid_json(self) -> None:
        calls = [call("search", '{"query": "a", "query": "b"}')]
        rejected = _admit(calls, ToolCallChecks.REJECT)
        assert isinstance(rejected, Err)
        assert isinstance(rejected.error, InvalidToolCall)
        assert rejected.error.issue.call_id == "c1"
        assert str(rejected.error) == (
            "call 0 to tool search has invalid arguments: "
            "invalid JSON at line 1, column 16: duplicate object key"
        )
        got = _admit(calls, ToolCallChecks.REPORT)
        assert isinstance(got, Ok)
        (issue,) = got.value.issues
        assert isinstance(issue, InvalidArguments)
        assert isinstance(issue.failure, InvalidJson)
        assert issue.failure.error.location.byte_offset == 15

    def test_schema_rejected(self) -> None:
        calls = [call("search", {"query": ""})]
        rejected = _admit(calls, ToolCallChecks.REJECT)
        assert isinstance(rejected, Err)
        assert isinstance(rejected.error, InvalidToolCall)
        assert rejected.error.describe().startswith("call 0 to tool search has invalid arguments: schema")
        got = _admit(calls, ToolCallChecks.REPORT)
        assert isinstance(got, Ok)
        (issue,) = got.value.issues
        assert isinstance(issue, InvalidArguments)
        assert isinstance(issue.failure, SchemaRejected)
        assert issue.failure.errors[0].path == ("query",)

    def test_every_failure_of_a_call_is_told_at_once(self) -> None:
        """A call with several mistakes gets them all in one answer, so it takes one round trip to fix."""
        calls = [call("search", {"query": "", "limit": 99, "extra": True})]
        got = _admit(calls, ToolCallChecks.REPORT)
        assert isinstance(got, Ok)
        (issue,) = got.value.issues
        assert isinstance(issue, InvalidArguments)
        assert isinstance(issue.failure, SchemaRejected)
        assert [error.path[:1] for error in issue.failure.errors] == [("query",), ("limit",)]
        text = admission.describe_issue(issue)
        assert "2 problems" in text
        assert '$["query"]' in text
        assert '$["limit"]' in text

    def test_failures_per_call_bounds_the_list(self) -> None:
        """``AdmissionLimits.failures_per_call`` caps how many failures one call keeps."""
        many: dict[str, Any] = {
            "type": "object",
            "properties": {f"p{n}": {"type": "integer"} for n in range(30)},
        }
        wide = tool.from_json_schema("wide", "Thirty integers", many)
        assert isinstance(wide, Ok)
        arguments = {f"p{n}": "x" for n in range(30)}
        limits = AdmissionLimits(failures_per_call=3)
        got = admission.admit([call("wide", arguments)], [wide.value], ToolCallChecks.REPORT, limits)
        assert isinstance(got, Ok)
        (issue,) = got.value.issues
        assert isinstance(issue, InvalidArguments)
        assert isinstance(issue.failure, SchemaRejected)
        assert len(issue.failure.errors) == 3

    def test_decode_rejected(self) -> None:
        calls = [call("even", {"n": 3})]
        rejected = _admit(calls, ToolCallChecks.REJECT)
        assert isinstance(rejected, Err)
        got = _admit(calls, ToolCallChecks.REPORT)
        assert isinstance(got, Ok)
        (issue,) = got.value.issues
        assert isinstance(issue, InvalidArguments)
        assert isinstance(issue.failure, DecodeRejected)

    def test_report_lists_every_issue_in_order(self) -> None:
        calls = [
            call("search", {"query": 1}, "a"),
            call("get_weather", {"location": {"city": "Oslo"}}, "b"),
            call("ghost", {}, "c"),
            call("search", "{", "d"),
        ]
        got = _admit(calls, ToolCallChecks.REPORT)
        assert isinstance(got, Ok)
        assert [issue.call_id for issue in got.value.issues] == ["a", "c", "d"]
        assert [type(issue) for issue in got.value.issues] == [
            InvalidArguments,
            UnknownTool,
            InvalidArguments,
        ]
        assert got.value.calls == tuple(calls)
        assert [a.call.id for a in got.value.admitted] == ["b"]

    def test_adjust_runs_before_validation(self) -> None:
        def drop_null_limit(value: Any) -> Any:
            return {k: v for k, v in value.items() if not (k == "limit" and v is None)}

        calls = [call("search", {"query": "x", "limit": None})]
        assert isinstance(_admit(calls, ToolCallChecks.REJECT), Err)
        adjusted = admission.admit(calls, TOOLS, ToolCallChecks.REJECT, adjust={"search": drop_null_limit})
        assert isinstance(adjusted, Ok)
        admitted = adjusted.value.arguments("c1")
        assert admitted is not None
        assert admitted.arguments == {"query": "x"}


class TestNeverRaises:
    """Admission returns a value on any calls, never an exception."""

    @given(
        st.lists(
            st.tuples(
                st.text(max_size=8),
                st.sampled_from(["search", "get_weather", "even", "x"]) | st.text(),
                st.text(),
            ),
            max_size=5,
        ),
        st.sampled_from(list(ToolCallChecks)),
    )
    def test_admission_never_raises(self, raw: list[tuple[str, str, str]], checks: ToolCallChecks) -> None:
        """Admission returns a result for arbitrary ids, names and argument text."""
        calls = [ToolCall(id=i, name=n, arguments_json=a) for i, n, a in raw]
        got = admission.admit(calls, (*TOOLS, EVEN), checks)
        assert isinstance(got, Ok | Err)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


class TestAnyArguments:
    """Any JSON arguments are admitted or refused, never raised on."""

    @given(JSON)
    def test_admission_never_raises_on_any_json(self, arguments: object) -> None:
        """Any JSON arguments are admitted or refused with a typed issue."""
        got = admission.admit([call("get_weather", arguments)], TOOLS, ToolCallChecks.REPORT)
        assert isinstance(got, Ok)
        assert len(got.value.issues) + len(got.value.admitted) == 1


class TestBoundary:
    """Wrong Python types and ambiguous declarations are refused at the door."""

    def test_two_tools_with_one_name_are_refused(self) -> None:
        """Admission never guesses which of two same-named tools a call means."""
        twin = tool.new("search", "Another search", codec.derive(_Even))
        got = admission.admit([call("search", {"query": "a"})], [SEARCH, twin])
        assert got == Err(tool.DuplicateToolName("search"))
        assert str(got.error) == "tool search is declared twice"

    @pytest.mark.parametrize(
        ("arguments", "parameter"),
        [
            ({"calls": "[]"}, "calls"),
            ({"calls": [{"id": "a"}]}, "calls"),
            ({"checks": "report"}, "checks"),
            ({"limits": {"calls_per_turn": 1}}, "limits"),
            ({"tools": None}, "tools"),
            ({"tools": "search"}, "tools"),
            ({"tools": [1]}, "tools"),
            ({"tools": {"search": "not a tool"}}, "tools"),
            ({"tools": (t for t in [SEARCH, object()])}, "tools"),
        ],
    )
    def test_wrong_types_name_the_parameter(self, arguments: dict[str, Any], parameter: str) -> None:
        """A wrong argument type is a ``TypeError`` whose message starts with the parameter's name."""
        given: dict[str, Any] = {"calls": [call("search", {"query": "a"})], "tools": TOOLS, **arguments}
        with pytest.raises(TypeError, match=f"^{parameter} must"):
            admission.admit(**given)


class TestHandingOn:
    """Admitted arguments hand on as exact JSON text, or as plain Python numbers for json.dumps and SDKs."""

    def test_arguments_json_and_plain_arguments(self) -> None:
        """arguments_json renders the admitted value exactly; plain_arguments gives what json.dumps takes."""
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {"price": {"type": "number"}, "n": {"type": "integer"}},
        }
        priced = unwrap(tool.from_json_schema("price", "Price", schema))
        text = '{"price": 0.10, "n": 3, "far": 1e400}'
        admitted = unwrap(admission.admit([call("price", text)], [priced])).admitted[0]
        assert admitted.arguments_json() == '{"price":0.10,"n":3,"far":1E+400}'
        assert admitted.plain_arguments() == Err(UnrepresentableNumber(("far",)))
        near = unwrap(admission.admit([call("price", '{"price": 0.10, "n": 3}')], [priced])).admitted[0]
        plain = unwrap(near.plain_arguments())
        assert json.dumps(plain) == '{"price": 0.1, "n": 3}'

    def test_records_are_the_ones_init_makes(self) -> None:
        """``admit`` returns the records their constructors make, and an admitted call can be held weakly."""
        declared = tool.from_json_schema("t", "d", {"type": "object"})
        assert isinstance(declared, Ok)
        one = ToolCall(id="c", name="t", arguments_json='{"a": 1}')
        made = admission.admit([one], [declared.value])
        assert isinstance(made, Ok)
        batch = made.value
        (passed,) = batch.admitted
        assert type(batch) is admission.Admitted
        assert type(passed) is admission.AdmittedCall
        assert passed == admission.AdmittedCall(one, declared.value, {"a": 1}, {"a": 1})
        assert batch == admission.Admitted((one,), (), (passed,))
        assert weakref.ref(passed)() is passed


class TestTypedAccess:
    """An admitted call gives its arguments typed by the tool it was admitted against, and only then."""

    def test_decoded_as_its_own_tool(self) -> None:
        """``decoded_as`` gives the codec's value for the call's own tool, ``None`` for any other tool."""
        weather = call("get_weather", {"location": {"city": "Oslo"}}, "w")
        search = call("search", {"query": "fjords"}, "s")
        batch = unwrap(admission.admit([weather, search], TOOLS))
        first, second = batch.admitted
        assert first.decoded_as(WEATHER) == Weather(Location("Oslo"), 1)
        assert first.decoded_as(SEARCH) is None
        assert second.decoded_as(SEARCH) == {"query": "fjords"}
        assert second.decoded_as(WEATHER) is None

    def test_a_twin_tool_is_another_tool(self) -> None:
        """A tool declared again with the same name and codec is not the tool that admitted the call."""
        twin = tool.new("get_weather", "Current weather", codec.derive(Weather))
        batch = unwrap(admission.admit([call("get_weather", {"location": {"city": "Oslo"}})], TOOLS))
        assert batch.admitted[0].decoded_as(twin) is None
        assert batch.arguments(twin) == ()

    def test_arguments_of_a_tool(self) -> None:
        """``arguments(tool)`` is every admitted call to that tool, in provider order, and no failing one."""
        calls = [
            call("get_weather", {"location": {"city": "Oslo"}}, "a"),
            call("search", {"query": "x"}, "b"),
            call("get_weather", {"location": {"city": 5}}, "c"),
            call("get_weather", {"location": {"city": "Rome"}, "days": 2}, "d"),
        ]
        batch = unwrap(admission.admit(calls, TOOLS, ToolCallChecks.REPORT))
        found = batch.arguments(WEATHER)
        assert [admitted.call.id for admitted in found] == ["a", "d"]
        assert [admitted.decoded for admitted in found] == [
            Weather(Location("Oslo"), 1),
            Weather(Location("Rome"), 2),
        ]
        assert [admitted.call.id for admitted in batch.arguments(SEARCH)] == ["b"]
        found_by_id = batch.arguments("d")
        assert found_by_id is not None
        assert found_by_id.call.id == "d"
        assert batch.arguments("c") is None

    def test_a_wrong_type_is_a_type_error(self) -> None:
        """Something other than a ``Tool`` is a ``TypeError`` naming the parameter."""
        batch = unwrap(admission.admit([call("search", {"query": "x"})], TOOLS))
        with pytest.raises(TypeError, match=r"^tool must be a Tool, not str$"):
            batch.admitted[0].decoded_as("search")  # type: ignore[arg-type]
