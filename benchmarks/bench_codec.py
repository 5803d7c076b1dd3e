"""
Typed decoding: a derived codec against cattrs ``structure`` and pydantic ``validate_python``, same run.

The case is the weather tool of the Wuwe seed (a nested location, an enum with a default, a list), decoded
from one parsed dict (numbers as ``Decimal``, as ``llm_wire.value.parse`` gives them) into the same attrs
classes for llm_wire and cattrs, and into an equivalent pydantic model. Passes alternate between the
decoders so that a busy machine slows each of them alike; each figure is the median of the pass medians.
"""

from __future__ import annotations

import enum
import statistics
from collections.abc import Callable
from typing import Any

import attrs
import cattrs
import pydantic

from benchmarks._harness import median_seconds, print_table
from llm_wire import codec
from llm_wire.result import Ok, unwrap
from llm_wire.value import parse

__all__ = ["main"]

#: cattrs' default structure is the yardstick: llm_wire must stay within this factor of it.
TARGET = 1.5
PASSES = 5


class TemperatureUnit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.frozen
class Location:
    city: str
    country: str
    latitude: float
    longitude: float


@attrs.frozen
class GetWeather:
    """Get the current weather for a city."""

    location: Location
    unit: TemperatureUnit = TemperatureUnit.CELSIUS
    days: int = 1
    include: list[str] = attrs.field(factory=list)


class LocationModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)
    city: str
    country: str
    latitude: float
    longitude: float


class GetWeatherModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)
    location: LocationModel
    unit: TemperatureUnit = TemperatureUnit.CELSIUS
    days: int = 1
    include: list[str] = []


ARGUMENTS = (
    '{"location": {"city": "Tokyo", "country": "JP", "latitude": 35.6762, "longitude": 139.6503},'
    ' "unit": "fahrenheit", "days": 3, "include": ["temperature", "wind", "humidity"]}'
)


def contenders() -> list[tuple[str, Callable[[], object]]]:
    """The decoders, each checked to produce the same weather call first."""
    data: Any = unwrap(parse(ARGUMENTS))
    derived = codec.derive(GetWeather)
    converter = cattrs.Converter()
    forbidding = cattrs.Converter(forbid_extra_keys=True)
    adapter = pydantic.TypeAdapter(GetWeatherModel)
    expected = converter.structure(data, GetWeather)
    assert derived.decode(data) == Ok(expected)
    assert forbidding.structure(data, GetWeather) == expected
    assert adapter.validate_python(data).model_dump() == attrs.asdict(expected)
    decode = derived.decode
    return [
        ("llm_wire `derive(GetWeather).decode`", lambda: decode(data)),
        ("cattrs `Converter().structure`", lambda: converter.structure(data, GetWeather)),
        ("cattrs `structure`, forbid_extra_keys", lambda: forbidding.structure(data, GetWeather)),
        ("pydantic `TypeAdapter.validate_python`", lambda: adapter.validate_python(data)),
    ]


def measure() -> dict[str, float]:
    """Median seconds per call of each decoder, over alternating passes."""
    runs = contenders()
    samples: dict[str, list[float]] = {name: [] for name, _ in runs}
    for _ in range(PASSES):
        for name, fn in runs:
            samples[name].append(median_seconds(fn, rounds=7))
    return {name: statistics.median(times) for name, times in samples.items()}


def main() -> None:
    """Print the decoding table with ratios to each peer."""
    medians = measure()
    ours = next(iter(medians.values()))
    rows = [[name, f"{seconds * 1e6:.2f}", ours / seconds] for name, seconds in medians.items()]
    print_table(
        "Typed decoding of the weather call (nested record, enum, list): llm_wire vs cattrs and pydantic",
        ["decoder", "median µs per call", "llm_wire time ÷ this"],
        rows,
    )
    ratio = ours / medians["cattrs `Converter().structure`"]
    verdict = "met" if ratio <= TARGET else "NOT met"
    print(f"\nllm_wire / cattrs = {ratio:.2f} (target ≤ {TARGET}: {verdict})")
