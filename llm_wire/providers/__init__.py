"""
Provider wires: what the request side hands each provider module, and what they share.

``llm_wire.prepare`` checks a request once, provider-neutrally (tool names, schemas, history
pairing, sizes), then hands one provider module an ``Outgoing`` record: the checked history, each tool with
its ``Projection``, the tool choice and the generation settings. The module's ``encode`` writes the exact
JSON body or refuses with an ``EncodeError``. Replay data (``AssistantTurn.provider_data``) is, for every
provider, the list of the turn's output items, content blocks or parts exactly as the provider sent them;
a turn from another provider is re-encoded from its text and calls only.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TypeAlias

from attrs import frozen

from llm_wire.message import AssistantTurn, Message, Provider, SystemMessage, ToolCall
from llm_wire.providers.projection import Projection
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value, parse

__all__ = [
    "Choice",
    "Declared",
    "EncodeError",
    "InvalidReplay",
    "Kind",
    "Number",
    "Outgoing",
    "OutputSpec",
    "ToolChoice",
    "UnsupportedSetting",
    "UseTool",
    "arguments_object",
    "replay",
    "system_texts",
]

#: A generation setting's number, exact (a ``float`` from the caller is converted through its shortest repr).
Number: TypeAlias = int | Decimal


class ToolChoice(enum.Enum):
    """Whether the model may, must not, or must call a tool."""

    AUTO = "auto"
    NONE = "none"
    REQUIRED = "required"


@frozen
class UseTool:
    """The model must call this one tool."""

    name: str


Choice: TypeAlias = ToolChoice | UseTool


@frozen
class Declared:
    """A tool as one provider receives it: its wire schema, and whether it is sent strict."""

    name: str
    description: str
    projection: Projection
    strict: bool


@frozen
class OutputSpec:
    """Structured output as one provider receives it."""

    name: str
    projection: Projection
    strict: bool


@frozen
class Outgoing:
    """
    A checked request for one provider: results follow their turn in call order, each with its tool name.
    """

    model: str
    messages: tuple[Message, ...]
    tools: tuple[Declared, ...] = ()
    choice: Choice | None = None
    parallel: bool | None = None
    output: OutputSpec | None = None
    max_tokens: int | None = None
    temperature: Number | None = None
    top_p: Number | None = None
    stop: tuple[str, ...] = ()
    stream: bool = False


@frozen
class UnsupportedSetting:
    """A request setting this provider's API cannot express."""

    setting: str
    provider: Provider
    reason: str

    def describe(self) -> str:
        """What cannot be sent, and why."""
        return f"{self.setting} cannot be sent to {self.provider.value}: {self.reason}"


@frozen
class InvalidReplay:
    """An assistant turn whose replay data does not fit its provider or its calls."""

    index: int
    reason: str

    def describe(self) -> str:
        """Which message, and what is wrong with its replay data."""
        return f"message {self.index}: replay data {self.reason}"


EncodeError: TypeAlias = UnsupportedSetting | InvalidReplay


def arguments_object(arguments_json: str) -> Value:
    """
    A call's arguments as the object Anthropic ``input`` and Gemini ``args`` need: the parsed object,
    ``{}`` for empty text, otherwise ``{"unparsed_arguments": text}`` so the model sees what it sent.
    """
    if not arguments_json.strip():
        return {}
    match parse(arguments_json):
        case Ok(dict() as arguments):
            return arguments
        case _:
            return {"unparsed_arguments": arguments_json}


@frozen
class Kind:
    """How one provider marks call and text items in its replay data."""

    is_call: Callable[[dict[str, Value]], bool]
    is_text: Callable[[dict[str, Value]], bool]
    matches: Callable[[dict[str, Value], ToolCall], bool]
    text: Callable[[str], dict[str, Value]]


def replay(
    turn: AssistantTurn,
    provider: Provider,
    kind: Kind,
    encode_call: Callable[[ToolCall], dict[str, Value]],
) -> Result[list[dict[str, Value]] | None, str]:
    """
    The turn's replay items in provider order, each call item rebuilt from its ``ToolCall`` (over the
    item's other members), calls missing from the data appended, the text added before the calls when no
    text item carries it; ``Ok(None)`` when there is nothing to replay (no data, or a turn from another
    provider); ``Err(reason)`` when the data does not fit the turn.
    """
    data = turn.provider_data
    if data is None or turn.provider is not provider:
        return Ok(None)
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        return Err("must be a list of objects")
    items: list[dict[str, Value]] = []
    calls = list(turn.calls)
    used = 0
    for item in data:
        assert isinstance(item, dict)
        if kind.is_call(item):
            if used >= len(calls) or not kind.matches(item, calls[used]):
                return Err("disagrees with the turn's calls")
            items.append({**item, **encode_call(calls[used])})
            used += 1
        else:
            items.append(item)
    items.extend(encode_call(call) for call in calls[used:])
    if turn.text and not any(kind.is_text(item) for item in items):
        first = next((n for n, item in enumerate(items) if kind.is_call(item)), len(items))
        items.insert(first, kind.text(turn.text))
    return Ok(items)


def system_texts(messages: Sequence[Message]) -> list[str]:
    """The text of every system message, in order (for providers that take instructions apart)."""
    return [message.text for message in messages if isinstance(message, SystemMessage)]
