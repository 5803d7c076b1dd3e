"""
Demo: typed tools under contracts in a runner loop: a refused argument fed back and fixed by the model, a
timeout, a safe retry, an approval with a secret redacted, and a retry contract refused at definition.

The model is ``ScriptedModel`` (canned responses, each admitted by ``resolve`` like a real response).
"""

from __future__ import annotations

import asyncio
import json

import attrs

from llm_wire import codec, config, request, user
from llm_wire.agent import (
    Approval,
    ApprovalRequest,
    ErrorCategory,
    Idempotency,
    InvocationContext,
    RetryPolicy,
    RunEvent,
    Runner,
    ScriptedModel,
    SideEffect,
    ToolCompleted,
    ToolContract,
    ToolOutcome,
    ToolRetrying,
    call,
    reflect,
    reply,
)
from llm_wire.message import Provider
from llm_wire.schema import DefinitionError


@attrs.frozen
class GetWeather:
    """Current weather for a city."""

    city: str = codec.field(description="City name.")
    days: int = codec.field(default=1, codec=codec.integer(minimum=1, maximum=14))

    def invoke(self) -> dict[str, object]:
        return {"city": self.city, "days": self.days, "forecast": "sunny"}


@attrs.frozen
class SlowReport:
    """A report that takes too long."""

    __tool_contract__ = ToolContract(timeout=0.2, side_effect=SideEffect.READ)

    async def invoke(self, ctx: InvocationContext) -> str:
        await asyncio.sleep(30)  # cancelled at the deadline: the coroutine stops here
        return "never"


_FLAKY = {"attempts": 0}


@attrs.frozen
class FetchQuote:
    """A stock quote from a flaky service (safe to repeat: it only reads)."""

    __tool_contract__ = ToolContract(
        idempotency=Idempotency.IDEMPOTENT,
        retry=RetryPolicy(max_attempts=3, initial_backoff=0.05, maximum_backoff=0.2),
    )
    symbol: str

    def invoke(self) -> ToolOutcome | dict[str, object]:
        _FLAKY["attempts"] += 1
        if _FLAKY["attempts"] == 1:
            return ToolOutcome.failed(ErrorCategory.UNAVAILABLE, "busy", "the quote service is busy")
        return {"symbol": self.symbol, "price": 101}


@attrs.frozen
class DeployService:
    """Deploy a service with an access token."""

    __tool_contract__ = ToolContract(
        approval=Approval.ALWAYS, side_effect=SideEffect.WRITE, secrets=frozenset({"token"})
    )
    service: str
    token: str

    def invoke(self) -> str:
        return f"deployed {self.service}"


def _show(event: RunEvent) -> None:
    if isinstance(event, ToolCompleted):
        shown = event.message if len(event.message) <= 150 else event.message[:147] + "..."
        print(f"  tool {event.call.name} -> model: {shown}")
    elif isinstance(event, ToolRetrying):
        print(f"  tool {event.call.name}: attempt {event.attempt} failed, retrying in {event.delay:.2f}s")


def _approve(asked: ApprovalRequest) -> bool:
    arguments = json.dumps(asked.arguments, sort_keys=True)
    print(f"  approver sees: {asked.tool} ({asked.side_effect.value}) with {arguments}: approved")
    return True


def run() -> None:
    """Run one scripted conversation through every contract feature."""
    _FLAKY["attempts"] = 0
    tools = reflect(GetWeather, SlowReport, FetchQuote, DeployService)
    model = ScriptedModel(
        [
            reply("", call("get_weather", '{"city": 5}')),
            reply("", call("get_weather", '{"city": "Oslo", "days": 2}')),
            reply("", call("slow_report")),
            reply("", call("fetch_quote", '{"symbol": "ACME"}')),
            reply("", call("deploy_service", '{"service": "api", "token": "s3cr3t"}')),
            reply("Oslo is sunny, ACME is at 101, and the api is deployed."),
        ]
    )
    runner = Runner(model, config(Provider.OPENAI_CHAT), tools, approver=_approve, on_event=_show)
    print("A scripted model calls four typed tools; every call is admitted, then run under its contract:")
    result = runner.run(request("demo-model", [user("Weather in Oslo, a report, a quote, then deploy.")]))
    runner.close()
    print(f"run ended: {result.stop.describe()} after {result.rounds} tool rounds: {result.text}")
    print("\nA retrying contract on a tool that is not idempotent is refused when it is made:")
    try:
        ToolContract(retry=RetryPolicy(max_attempts=3))
    except DefinitionError as error:
        print(f"  DefinitionError: {error}")
