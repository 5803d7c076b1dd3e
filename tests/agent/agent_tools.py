"""Typed tools shared by the agent tests."""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import attrs

from llm_wire import Request, codec
from llm_wire.agent import (
    InvocationContext,
    ProviderCapabilities,
    Runner,
    RunResult,
    ToolContract,
    ToolDescriptor,
    ToolInvocation,
    ToolOutcome,
)
from llm_wire.agent.events import (
    ApprovalRequested,
    ModelCompleted,
    ModelStarted,
    RunCompleted,
    StreamEvent,
    ToolCompleted,
    ToolStarted,
)
from llm_wire.providers.response import ArgumentsDelta, TextDelta, ToolCallStarted
from llm_wire.result import unwrap

#: The ways to run: ``arun``, and ``stream`` read with ``async for`` and with ``for``.
DRIVERS = ("arun", "stream", "stream_sync")


def drive(runner: Runner, request: Request, driver: str, **options: Any) -> RunResult:
    """Run ``request`` on ``runner`` the way ``driver`` names; a stream's shape is checked on the way."""
    if driver == "arun":
        return asyncio.run(runner.arun(request, **options))
    if driver == "stream":

        async def read() -> list[StreamEvent]:
            async with runner.stream(request, **options) as stream:
                return [event async for event in stream]

        return ended(asyncio.run(read()))
    assert driver == "stream_sync", driver
    try:
        with runner.stream(request, **options) as stream:
            return ended(list(stream))
    finally:
        runner.close()


def ended(events: Sequence[StreamEvent]) -> RunResult:
    """
    The result a whole stream ends with, once its shape holds: ``RunCompleted`` last and only there, a
    model call's progress between its ``ModelStarted`` and ``ModelCompleted``, and no call authorized, run
    or answered while a response is still arriving.
    """
    *before, last = events
    assert isinstance(last, RunCompleted), last
    inside = False
    for event in before:
        assert not isinstance(event, RunCompleted)
        if isinstance(event, ModelStarted):
            assert not inside
            inside = True
        elif isinstance(event, ModelCompleted):
            assert inside
            inside = False
        elif isinstance(event, TextDelta | ToolCallStarted | ArgumentsDelta):
            assert inside
        elif isinstance(event, ApprovalRequested | ToolStarted | ToolCompleted):
            assert not inside
    return last.result


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


class Programmable:
    """
    A real provider for runner tests: one schema-only tool whose each attempt does what ``behave`` says
    (given the invocation, it returns an outcome or raises). It counts invocations and compensations.
    """

    def __init__(
        self,
        name: str = "contract_tool",
        contract: ToolContract | None = None,
        behave: Callable[[ToolInvocation], Awaitable[ToolOutcome]] | None = None,
        capabilities: ProviderCapabilities | None = None,
        compensate: Callable[[ToolInvocation, ToolOutcome], ToolOutcome] | None = None,
        schema: str = '{"type":"object","properties":{"resource_version":{"type":"string"}}}',
    ) -> None:
        self.descriptor = unwrap(
            ToolDescriptor.from_json_schema(name, "A programmable tool.", schema, contract)
        )
        self.behave = behave or _succeed
        self.declared = capabilities
        self.compensator = compensate
        self.invocations: list[ToolInvocation] = []
        self.compensations: list[tuple[ToolInvocation, ToolOutcome]] = []
        #: Whether each compensation succeeded.
        self.undone: list[bool] = []

    def descriptors(self) -> Sequence[ToolDescriptor]:
        return (self.descriptor,)

    def capabilities(self, name: str) -> ProviderCapabilities | None:
        return self.declared

    async def invoke(self, invocation: ToolInvocation) -> ToolOutcome:
        self.invocations.append(invocation)
        return await self.behave(invocation)

    async def compensate(self, invocation: ToolInvocation, failure: ToolOutcome) -> ToolOutcome:
        self.compensations.append((invocation, failure))
        outcome = (
            ToolOutcome.success("undone")
            if self.compensator is None
            else self.compensator(invocation, failure)
        )
        self.undone.append(outcome.ok)
        return outcome


async def _succeed(invocation: ToolInvocation) -> ToolOutcome:
    return ToolOutcome.success("ok")


def sequence(*outcomes: ToolOutcome) -> Callable[[ToolInvocation], Awaitable[ToolOutcome]]:
    """A behaviour answering attempt n with ``outcomes[n - 1]`` (the last one repeats)."""

    async def behave(invocation: ToolInvocation) -> ToolOutcome:
        return outcomes[min(invocation.attempt, len(outcomes)) - 1]

    return behave
