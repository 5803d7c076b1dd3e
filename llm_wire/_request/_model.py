"""
A request as a value: the model, the conversation, the tools and the settings, and the message builders.

``Request`` is immutable; each ``with_*`` method returns a copy (``req.with_tools([...])``,
``req.with_messages(turn, *results)``). Public through ``llm_wire`` (``request``, ``user``, ``system``,
``assistant``, ``tool_result``, ``Request``, ``Output``).
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from attrs import evolve, frozen

from llm_wire._fast import Lean
from llm_wire.codec import Codec
from llm_wire.message import AssistantTurn, Message, SystemMessage, ToolCall, ToolResult, UserMessage
from llm_wire.providers._wire import Choice, Number
from llm_wire.tool import Tool

__all__ = ["Output", "Request", "assistant", "request", "system", "tool_result", "user"]


@frozen
class Output(Lean):
    """Structured output: the reply must be JSON of ``codec``'s schema, named ``name`` on the wire."""

    name: str
    codec: Codec[Any]


@frozen
class Request(Lean):
    """
    A conversation to send: model, messages, tools, tool choice, structured output and settings.
    """

    model: str
    messages: tuple[Message, ...] = ()
    tools: tuple[Tool, ...] = ()
    #: ``None`` sends no choice (the provider's default, which is ``AUTO``).
    tool_choice: Choice | None = None
    parallel_tool_calls: bool | None = None
    output: Output | None = None
    max_tokens: int | None = None
    temperature: Number | None = None
    top_p: Number | None = None
    stop: tuple[str, ...] = ()

    def with_messages(self, *messages: Message) -> Request:
        """A copy with ``messages`` added to the conversation; tools, output and settings are kept."""
        return evolve(self, messages=(*self.messages, *messages))

    def with_tools(self, tools: Iterable[Tool]) -> Request:
        """A copy declaring exactly ``tools`` (replacing any declared before)."""
        return evolve(self, tools=tuple(tools))

    def with_tool_choice(self, choice: Choice) -> Request:
        """
        A copy with a tool choice: ``ToolChoice.AUTO``/``NONE``/``REQUIRED``, ``UseTool(name)``, or
        ``AllowedTools(names, mode)``; the response is checked against it (``ToolChoiceViolation``).
        """
        return evolve(self, tool_choice=choice)

    def with_parallel_tool_calls(self, parallel: bool) -> Request:
        """A copy that allows (or forbids) several calls in one turn."""
        return evolve(self, parallel_tool_calls=parallel)

    def with_output(self, name: str, codec: Codec[Any]) -> Request:
        """A copy asking for structured output of ``codec``'s schema, named ``name`` on the wire."""
        return evolve(self, output=Output(name, codec))

    def with_max_tokens(self, max_tokens: int) -> Request:
        """A copy with a cap on generated tokens."""
        return evolve(self, max_tokens=max_tokens)

    def with_temperature(self, temperature: float | Decimal | int) -> Request:
        """A copy with a sampling temperature (a ``float`` is kept exactly as its shortest decimal form)."""
        return evolve(self, temperature=_exact(temperature))

    def with_top_p(self, top_p: float | Decimal | int) -> Request:
        """A copy with nucleus sampling ``top_p``."""
        return evolve(self, top_p=_exact(top_p))

    def with_stop(self, *stop: str) -> Request:
        """A copy with stop sequences."""
        return evolve(self, stop=stop)


def request(model: str, messages: Iterable[Message] = ()) -> Request:
    """A request to ``model`` with ``messages``; no tools, default settings."""
    return Request(model, tuple(messages))


def system(text: str) -> SystemMessage:
    """Instructions for the model."""
    return SystemMessage(text)


def user(text: str) -> UserMessage:
    """A user message."""
    return UserMessage(text)


def assistant(turn_or_text: AssistantTurn | str) -> AssistantTurn:
    """A model turn: one returned by a provider (kept with its replay data), or text the application wrote."""
    return turn_or_text if isinstance(turn_or_text, AssistantTurn) else AssistantTurn(text=turn_or_text)


def tool_result(call: ToolCall, content: str, is_error: bool = False) -> ToolResult:
    """The answer to ``call``: text for the model, and whether it reports a failure."""
    return ToolResult(call.id, content, is_error, call.name)


def _exact(number: float | Decimal | int) -> Number:
    if isinstance(number, float):
        return Decimal(repr(number))
    return number
