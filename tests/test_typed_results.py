"""
Admitted arguments come back typed without a cast: ``mypy --strict`` infers the tool's class from
``AdmittedCall.decoded_as(tool)``, ``Admitted.arguments(tool)``, ``NeedsTools.arguments(tool)`` and, in a
provider, ``ToolInvocation.decoded_as(typed.tool)``; a misspelt attribute on what they give is an error.
"""

from __future__ import annotations

from pathlib import Path

from typecheck import mypy_strict

#: A user's code: each accessor revealed, in order.
TYPED = """
from typing import assert_type

import attrs

from llm_wire import admission, codec, tool
from llm_wire.agent import ToolInvocation, make_tool
from llm_wire.message import ToolCall
from llm_wire.outcome import NeedsTools
from llm_wire.result import unwrap
from llm_wire.value import Value


@attrs.frozen
class GetWeather:
    \"\"\"Current weather for a city.\"\"\"

    city: str

    def invoke(self) -> str:
        return self.city


weather = tool.new("get_weather", "Current weather", codec.derive(GetWeather))
search = unwrap(tool.from_json_schema("search", "Search", {"type": "object"}))
calls = [ToolCall("c1", "get_weather", '{"city": "Oslo"}')]
batch = unwrap(admission.admit(calls, [weather, search]))


def handle(needs: NeedsTools, invocation: ToolInvocation) -> None:
    reveal_type(weather)
    reveal_type(batch.admitted[0].decoded_as(weather))
    reveal_type(batch.arguments(weather)[0].decoded)
    reveal_type(batch.arguments("c1"))
    reveal_type(needs.arguments(weather)[0].decoded)
    assert_type(batch.admitted[0].decoded_as(search), Value | None)
    typed = make_tool(GetWeather)
    reveal_type(typed.tool)
    reveal_type(invocation.decoded_as(typed.tool))
"""

#: The same accessors with a misspelt attribute: each line must be an error, as on the class itself.
MISTAKES = """
import attrs

from llm_wire import admission, codec, tool
from llm_wire.agent import ToolInvocation, make_tool
from llm_wire.outcome import NeedsTools


@attrs.frozen
class GetWeather:
    destination: str

    def invoke(self) -> str:
        return self.destination


weather = tool.new("get_weather", "Current weather", codec.derive(GetWeather))


def handle(batch: admission.Admitted, needs: NeedsTools, invocation: ToolInvocation) -> None:
    found = batch.admitted[0].decoded_as(weather)
    assert found is not None
    print(found.destnation)
    print(batch.arguments(weather)[0].decoded.destnation)
    print(needs.arguments(weather)[0].decoded.destnation)
    got = invocation.decoded_as(make_tool(GetWeather).tool)
    assert got is not None
    print(got.destnation)
    print(batch.admitted[0].decoded_as(weather).destination)
"""


class TestTypedResults:
    """The typed accessors under mypy --strict."""

    def test_accessors_give_the_tools_class(self, tmp_path: Path) -> None:
        """Each accessor's type is the tool's class (the JSON value for a schema-only tool), not ``Any``."""
        lines = mypy_strict(tmp_path, TYPED)
        assert lines == [
            '31: note: Revealed type is "llm_wire.tool.Tool[user_code.GetWeather]"',
            '32: note: Revealed type is "user_code.GetWeather | None"',
            '33: note: Revealed type is "user_code.GetWeather"',
            '34: note: Revealed type is "llm_wire.admission.AdmittedCall[Any] | None"',
            '35: note: Revealed type is "user_code.GetWeather"',
            '38: note: Revealed type is "llm_wire.tool.Tool[user_code.GetWeather]"',
            '39: note: Revealed type is "user_code.GetWeather | None"',
        ]

    def test_a_misspelt_attribute_fails(self, tmp_path: Path) -> None:
        """A typo on any accessor's value is an error, and so is using it before ruling out ``None``."""
        lines = mypy_strict(tmp_path, MISTAKES)
        errors = [line for line in lines if ": error: " in line]
        assert [line.split(": ")[0] for line in errors] == ["23", "24", "25", "28", "29"]
        assert all('"GetWeather" has no attribute "destnation"' in line for line in errors[:4])
        assert 'Item "None" of "GetWeather | None" has no attribute "destination"' in errors[4]
