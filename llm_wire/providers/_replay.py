"""
Replaying an assistant turn to the API that produced it, and the request pieces the API modules share.

Replay data (``AssistantTurn.provider_data``) is, for every API, the list of the turn's output items,
content blocks or parts exactly as the provider sent them; a turn from another provider is re-encoded from
its text and calls only. A ``Kind`` says how one API marks call and text items in that list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NoReturn

from attrs import frozen

from llm_wire._fast import Lean
from llm_wire.message import AssistantTurn, Message, Provider, SystemMessage, ToolCall
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value, parse

__all__ = ["Kind", "arguments_object", "not_a", "replay", "system_texts"]


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


def not_a(what: str, where: str, value: object) -> NoReturn:
    """Raise ``TypeError``: ``where`` holds ``value``, which is not a ``what`` (an encoder's missed case)."""
    msg = f"{where} must be a {what}, not {type(value).__name__}"
    raise TypeError(msg)


@frozen
class Kind(Lean):
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
    if data is None or turn.provider != provider:
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
