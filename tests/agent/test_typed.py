"""Typed tools: reflection, naming, argument parsing, invocation and result conversion."""

from __future__ import annotations

import asyncio
import dataclasses

import attrs
import pytest
from agent_tools import EchoText, GetWeather, ReadTab

from llm_wire import schema
from llm_wire.agent import (
    ErrorCategory,
    InvocationContext,
    ToolContract,
    ToolInvocation,
    ToolOutcome,
    function_tool,
    invoke_typed_tool,
    make_tool,
    parse_tool_arguments,
)
from llm_wire.agent._typed import snake_case
from llm_wire.result import Err, Ok, unwrap
from llm_wire.schema import DefinitionError


def _run(outcome: object) -> ToolOutcome:
    assert asyncio.iscoroutine(outcome)
    result = asyncio.run(outcome)
    assert isinstance(result, ToolOutcome)
    return result


class TestMakeTool:
    """A class with fields and ``invoke`` is a tool named after the class."""

    def test_scenario_01_string_member_tool(self) -> None:
        """Name from the class, description exposed, the member in the schema, result verbatim."""
        echo = make_tool(EchoText)
        assert echo.name == "echo_text"
        assert echo.descriptor.tool.description == "Echo the text back."
        document = schema.to_value(echo.descriptor.tool.schema)
        assert isinstance(document, dict)
        assert document["properties"] == {"text": {"type": "string"}}
        match parse_tool_arguments(echo, '{"text":"hello"}'):
            case Ok(parsed):
                assert parsed == EchoText("hello")
            case Err():
                pytest.fail("refused")
        assert _run(invoke_typed_tool(echo, '{"text":"hello"}')) == ToolOutcome.success("hello")

    def test_scenario_02_context_tool(self) -> None:
        """A tool taking the context reads the run's metadata."""
        tab = make_tool(ReadTab)
        context = InvocationContext(metadata={"session": "session:"})
        outcome = _run(invoke_typed_tool(tab, '{"key":"active-tab"}', context))
        assert outcome.content == "session:active-tab"

    def test_scenario_07_enum_default_description(self) -> None:
        """An enum field with a default and a description: enum, default, description, not required."""
        document = schema.to_value(make_tool(GetWeather).descriptor.tool.schema)
        assert isinstance(document, dict)
        properties = document["properties"]
        assert isinstance(properties, dict)
        unit = properties["unit"]
        assert isinstance(unit, dict)
        assert unit["enum"] == ["celsius", "fahrenheit"]
        assert unit["default"] == "celsius"
        assert unit["description"] == "Unit."
        assert document["required"] == ["city"]

    def test_snake_case(self) -> None:
        assert snake_case("GetWeather") == "get_weather"
        assert snake_case("HTTPFetch") == "http_fetch"
        assert snake_case("echo") == "echo"

    def test_do_better_10_name_checked_at_definition(self) -> None:
        with pytest.raises(DefinitionError, match="get weather"):
            make_tool(EchoText, name="get weather")

    def test_missing_description(self) -> None:
        @dataclasses.dataclass
        class Quiet:
            x: int

            def invoke(self) -> int:
                return self.x

        with pytest.raises(DefinitionError, match="docstring"):
            make_tool(Quiet)

    def test_missing_invoke(self) -> None:
        @attrs.frozen
        class NoInvoke:
            """Nothing to do."""

            x: int

        with pytest.raises(DefinitionError, match="invoke"):
            make_tool(NoInvoke)

    def test_not_a_class(self) -> None:
        with pytest.raises(TypeError, match="cls"):
            make_tool(42)  # type: ignore[arg-type]

    def test_contract_class_variable(self) -> None:
        @attrs.frozen
        class Timed:
            """Timed tool."""

            __tool_contract__ = ToolContract(timeout=2.0)
            x: int

            def invoke(self) -> int:
                return self.x

        assert make_tool(Timed).descriptor.contract.timeout == 2.0
        assert make_tool(Timed, contract=ToolContract()).descriptor.contract.timeout is None


class TestResults:
    """Return values: text stays text, records and dicts become structured data (do better 5)."""

    def test_do_better_05_structured_data(self) -> None:
        outcome = _run(invoke_typed_tool(make_tool(GetWeather), '{"city":"Oslo"}'))
        assert outcome.data == {"city": "Oslo", "days": 1, "unit": "celsius"}
        assert outcome.model_text() == (
            '{"artifacts":[],"data":{"city":"Oslo","days":1,"unit":"celsius"},"message":"","ok":true}'
        )

    def test_record_result(self) -> None:
        @attrs.frozen
        class Point:
            x: int
            y: int

        @attrs.frozen
        class MakePoint:
            """Make a point."""

            x: int

            def invoke(self) -> Point:
                return Point(self.x, 2)

        outcome = _run(invoke_typed_tool(make_tool(MakePoint), '{"x":1}'))
        assert outcome.data == {"x": 1, "y": 2}

    def test_do_better_03_crash_is_internal_and_sanitized(self) -> None:
        @attrs.frozen
        class Thrower:
            """Always fails."""

            def invoke(self) -> str:
                raise RuntimeError("secret-token-123")

        outcome = _run(invoke_typed_tool(make_tool(Thrower), "{}"))
        assert outcome.category is ErrorCategory.INTERNAL
        assert "secret-token-123" not in outcome.model_text()
        assert "RuntimeError" in outcome.model_text()

    def test_not_json_result(self) -> None:
        @attrs.frozen
        class Odd:
            """Returns a set."""

            def invoke(self) -> object:
                return {1, 2}

        outcome = _run(invoke_typed_tool(make_tool(Odd), "{}"))
        assert outcome.category is ErrorCategory.INTERNAL

    def test_async_invoke(self) -> None:
        @attrs.frozen
        class Later:
            """Answers later."""

            n: int

            async def invoke(self) -> int:
                await asyncio.sleep(0)
                return self.n * 2

        later = make_tool(Later)
        assert later.is_async
        assert _run(invoke_typed_tool(later, Later(4))).data == 8


class TestParse:
    """Parse errors become ``invalid_input`` with a bounded list of issues (scenario 6, do better 1)."""

    @pytest.mark.parametrize(
        ("arguments", "expected"),
        [
            ("{}", "missing"),
            ('{"city":"Oslo","zzz":1}', "unexpected property"),
            ('{"city":"Oslo","unit":"kelvin"}', "celsius"),
            ('{"city":5}', "expected a string"),
            ('{"city":null}', "expected a string"),
        ],
        ids=["missing", "unknown-key", "bad-enum", "type", "null"],
    )
    def test_scenario_06_parse_errors(self, arguments: str, expected: str) -> None:
        outcome = _run(invoke_typed_tool(make_tool(GetWeather), arguments))
        assert outcome.category is ErrorCategory.INVALID_INPUT
        assert outcome.failure is not None
        assert expected in outcome.failure.message
        details = outcome.failure.details
        assert isinstance(details, list)
        assert details
        assert all(isinstance(issue, dict) and set(issue) == {"path", "message"} for issue in details)

    def test_wrong_type(self) -> None:
        with pytest.raises(TypeError, match="typed"):
            parse_tool_arguments("x", "{}")  # type: ignore[arg-type]


class TestTypedInvocation:
    """What a provider is handed gives its arguments typed by the tool, and only by the tool it holds."""

    def test_invocation_decoded_as_its_tool(self) -> None:
        """``decoded_as(typed.tool)`` is the decoded instance; another tool's gives ``None``."""
        weather = make_tool(GetWeather)
        echo = make_tool(EchoText)
        invocation = unwrap(ToolInvocation.of(weather.descriptor, '{"city": "Oslo"}'))
        assert weather.tool is weather.descriptor.tool
        assert invocation.decoded_as(weather.tool) == GetWeather("Oslo")
        assert invocation.decoded_as(echo.tool) is None
        assert invocation.decoded_as(make_tool(GetWeather).tool) is None

    def test_a_contract_keeps_the_tool(self) -> None:
        """A typed tool under another contract still admits and reads its own calls."""
        weather = make_tool(GetWeather)
        bounded = weather.with_contract(ToolContract(timeout=5.0))
        invocation = unwrap(ToolInvocation.of(bounded.descriptor, '{"city": "Oslo"}'))
        assert invocation.decoded_as(weather.tool) == GetWeather("Oslo")

    def test_a_wrong_type_is_a_type_error(self) -> None:
        invocation = unwrap(ToolInvocation.of(make_tool(GetWeather).descriptor, '{"city": "Oslo"}'))
        with pytest.raises(TypeError, match=r"^tool must be a Tool, not TypedTool$"):
            invocation.decoded_as(make_tool(GetWeather))  # type: ignore[arg-type]


class TestFunctionTool:
    """A plain function with annotated parameters is a tool."""

    def test_function(self) -> None:
        def add(a: int, b: int = 2) -> int:
            """Add two numbers."""
            return a + b

        typed = function_tool(add)
        assert typed.name == "add"
        assert _run(invoke_typed_tool(typed, '{"a":1}')).data == 3

    def test_context_parameter(self) -> None:
        def who(ctx: InvocationContext, greeting: str) -> str:
            """Greet the run."""
            return greeting + ctx.run_id

        typed = function_tool(who)
        outcome = _run(invoke_typed_tool(typed, '{"greeting":"hi "}', InvocationContext(run_id="r1")))
        assert outcome.content == "hi r1"

    def test_unannotated(self) -> None:
        def bare(a):  # type: ignore[no-untyped-def]
            """Bare."""
            return a

        with pytest.raises(DefinitionError, match="annotation"):
            function_tool(bare)
