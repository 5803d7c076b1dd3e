"""Tools the tool and admission tests declare: a derived weather tool and a search tool from a schema."""

from __future__ import annotations

import json
from typing import Any

import attrs

from llm_wire import codec, tool
from llm_wire.message import ToolCall
from llm_wire.result import Err, Ok, Result

__all__ = ["SEARCH", "SEARCH_SCHEMA", "TOOLS", "WEATHER", "Location", "Weather", "call", "even"]


@attrs.frozen
class Location:
    city: str
    country: str | None = None


@attrs.frozen
class Weather:
    """Current weather for a place."""

    location: Location
    days: int = codec.field(default=1, codec=codec.integer(minimum=1, maximum=14))


def even(value: int) -> Result[int, str]:
    """An ``int`` refused unless even (for a ``try_map`` codec)."""
    return Err("expected an even number") if value % 2 else Ok(value)


WEATHER = tool.new("get_weather", "Current weather", codec.derive(Weather))
SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string", "minLength": 1}, "limit": {"type": "integer", "maximum": 50}},
    "required": ["query"],
}


def _search() -> tool.Tool:
    match tool.from_json_schema("search", "Search the web", SEARCH_SCHEMA):
        case Ok(made):
            return made
        case Err(error):
            raise AssertionError(error.describe())


SEARCH = _search()
TOOLS = (WEATHER, SEARCH)


def call(name: str, arguments: object, call_id: str = "c1") -> ToolCall:
    """A call with ``arguments`` as JSON text (a ``str`` is sent as it is)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolCall(id=call_id, name=name, arguments_json=text)
