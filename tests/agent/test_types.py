"""
Types flow through typed tools: ``mypy --strict`` checks the ``assert_type`` lines below (``make test`` runs
it over the tests), so decoded arguments and outcomes never degrade to ``Any``.
"""

from __future__ import annotations

import asyncio
from typing import assert_type

from agent_tools import EchoText, GetWeather

from llm_wire.admission import ValueFailure
from llm_wire.agent import (
    InvocationContext,
    ToolInvocation,
    ToolOutcome,
    TypedTool,
    invoke_typed_tool,
    make_tool,
    parse_tool_arguments,
)
from llm_wire.agent.scripted import ScriptedClient
from llm_wire.agent.steps import AsyncModel, SyncModel
from llm_wire.result import Err, Ok, Result, unwrap
from llm_wire.transport import AsyncClient, Client


class TestModelProtocol:
    """The transport's clients are models for the runner, structurally (mypy checks the assignments)."""

    def test_clients_satisfy_the_protocols(self) -> None:
        with Client(base_url="http://127.0.0.1:9") as client:
            sync_model: SyncModel = client
            assert isinstance(sync_model, SyncModel)
        asynchronous = AsyncClient(base_url="http://127.0.0.1:9")
        async_model: AsyncModel = asynchronous
        assert isinstance(async_model, AsyncModel)
        asyncio.run(asynchronous.aclose())
        scripted: AsyncModel = ScriptedClient([])
        assert isinstance(scripted, AsyncModel)


class TestTypeFlow:
    """The argument class is the type parameter from ``make_tool`` to the decoded value and ``run``."""

    def test_decoded_arguments_keep_their_class(self) -> None:
        weather = make_tool(GetWeather)
        assert_type(weather, TypedTool[GetWeather])
        parsed = parse_tool_arguments(weather, '{"city": "Oslo"}')
        assert_type(parsed, Result[GetWeather, ValueFailure])
        match parsed:
            case Ok(arguments):
                assert_type(arguments, GetWeather)
                assert arguments.city == "Oslo"
            case Err(failure):
                raise AssertionError(failure.describe())

    def test_dispatch_is_typed(self) -> None:
        echo = make_tool(EchoText)
        arguments = echo.arguments_of(unwrap(ToolInvocation.of(echo.descriptor, '{"text": "a"}')))
        assert_type(arguments, EchoText | ToolOutcome)
        assert arguments == EchoText("a")
        outcome = asyncio.run(echo.run(EchoText("b"), InvocationContext()))
        assert_type(outcome, ToolOutcome)
        assert outcome.content == "b"
        assert_type(asyncio.run(invoke_typed_tool(echo, EchoText("c"))), ToolOutcome)
