"""
Demo section ``codecs``: derive a codec from a class, show its schema, decode good and bad arguments.
"""

from __future__ import annotations

import enum
import json
from typing import Annotated

import attrs

from llm_wire import codec
from llm_wire.result import Err, Ok
from llm_wire.schema import to_document
from llm_wire.value import Value

__all__ = ["run"]


class TemperatureUnit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.frozen
class Location:
    city: str
    country: Annotated[str, codec.meta(min_length=2, max_length=2, description="ISO 3166 code.")]


@attrs.frozen
class GetWeather:
    """Get the current weather for a city."""

    location: Location
    unit: TemperatureUnit = codec.field(default=TemperatureUnit.CELSIUS, description="Preferred unit.")  # noqa: RUF009 - a field specifier
    days: Annotated[int, codec.meta(minimum=1, maximum=16)] = 1


ARGUMENTS = (
    ("good", '{"location": {"city": "Tokyo", "country": "JP"}, "unit": "fahrenheit", "days": 3}'),
    ("defaults", '{"location": {"city": "Oslo", "country": "NO"}}'),
    ("range", '{"location": {"city": "Oslo", "country": "NO"}, "days": 30}'),
    ("enum", '{"location": {"city": "Oslo", "country": "NO"}, "unit": "kelvin"}'),
    ("length", '{"location": {"city": "Oslo", "country": "NOR"}}'),
    ("unknown", '{"location": {"city": "Oslo", "country": "NO"}, "api_key": "sk-secret"}'),
    ("coercion", '{"location": {"city": "Oslo", "country": "NO"}, "days": "3"}'),
    ("not JSON", '{"location": {"city": "Oslo",}}'),
)


def _compact(value: Value) -> str:
    return json.dumps(value, separators=(",", ":"), default=str)


def run() -> None:
    """Print the derived schema and the outcome of decoding each set of arguments."""
    weather = codec.derive(GetWeather)
    assert weather.schema is not None
    print("derive(GetWeather).schema:")
    print("  " + _compact(to_document(weather.schema)))
    print("\nDecoding model arguments (errors never echo the input):")
    for label, text in ARGUMENTS:
        match weather.decode_json(text):
            case Ok(value):
                print(f"  {label:<9} ok     {value}")
            case Err(error):
                print(f"  {label:<9} error  {error.describe()}")
