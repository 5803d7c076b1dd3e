"""
Replies in each API's own words: an answer (text and calls) as a body or an SSE stream, and error bodies.
The words are the API's own ``Wire.speech``; this module frames them as HTTP replies.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from attrs import field, frozen

from llm_wire.message import Provider, ToolCall
from llm_wire.providers import WIRES, Wires
from llm_wire.transport.fake._reply import Reply
from llm_wire.value import Value, render

__all__ = ["FakeCall", "answer", "error", "sse"]


@frozen
class FakeCall:
    """
    A tool call the fake model makes: its id, tool name and argument JSON text, and the namespace and
    caller the APIs that have them send (OpenAI Responses; Anthropic takes the caller only).
    """

    id: str
    name: str
    arguments: str
    namespace: str | None = None
    caller: Value = field(default=None, hash=False)


def sse(events: Iterable[tuple[str | None, str]]) -> tuple[bytes, ...]:
    """SSE bytes, one chunk per event: each ``(event name or None, data text)``."""
    chunks = []
    for name, data in events:
        head = f"event: {name}\n" if name is not None else ""
        chunks.append((head + "".join(f"data: {line}\n" for line in data.split("\n")) + "\n").encode())
    return tuple(chunks)


def answer(
    provider: Provider,
    text: str = "",
    calls: Sequence[FakeCall] = (),
    *,
    stream: bool = False,
    piece: int = 16,
    model: str = "fake-model",
    gap: float = 0.0,
    wires: Wires = WIRES,
) -> Reply:
    """
    A finished response of ``provider``'s API (its wire in ``wires``) holding ``text`` and ``calls``: one
    JSON body, or (``stream``) its SSE events with text in word deltas and arguments in ``piece``-character
    deltas, as the wire's ``Speech`` writes them.
    """
    speech = wires[provider].speech
    said = tuple(
        ToolCall(call.id, call.name, call.arguments, namespace=call.namespace, caller=call.caller)
        for call in calls
    )
    if stream:
        events = speech.events(text, said, piece, model)
        return Reply(chunks=sse(events), stream=True, gap=gap, content_type="text/event-stream")
    return Reply(chunks=(render(speech.body(text, said, model)).encode(),), gap=gap)


def error(
    provider: Provider,
    status: int,
    *,
    retry_after: str | None = None,
    message: str = "fake provider error",
    headers: Sequence[tuple[str, str]] = (),
    wires: Wires = WIRES,
) -> Reply:
    """
    An HTTP error of ``provider``'s API (its wire in ``wires``): its error body, and ``Retry-After`` when
    given.
    """
    body = wires[provider].speech.error(status, message)
    extra = (*headers, *((("retry-after", retry_after),) if retry_after is not None else ()))
    return Reply(status=status, chunks=(render(body).encode(),), headers=extra)
