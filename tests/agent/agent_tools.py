"""Typed tools shared by the agent tests."""

from __future__ import annotations

import enum

import attrs

from llm_wire import codec
from llm_wire.agent import InvocationContext


@attrs.frozen
class EchoText:
    """Echo the text back."""

    text: str

    def invoke(self) -> str:
        return self.text


@attrs.frozen
class ShoutText:
    """Say the text louder."""

    text: str

    def invoke(self) -> str:
        return self.text.upper()


@attrs.frozen
class ReadTab:
    """Read a browser tab of the session."""

    key: str

    def invoke(self, ctx: InvocationContext) -> str:
        return ctx.metadata["session"] + self.key


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.frozen
class GetWeather:
    """Current weather for a city."""

    city: str = codec.field(description="City name.")
    unit: Unit = codec.field(default=Unit.CELSIUS, description="Unit.")  # noqa: RUF009 - a field specifier
    days: int = 1

    def invoke(self) -> dict[str, object]:
        return {"city": self.city, "unit": self.unit.value, "days": self.days}
