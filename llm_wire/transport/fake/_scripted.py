"""
A scripted model: a script that answers each request in the API it was sent to, from a function of it.

It lives on the server side of the wire: the client under test sends real HTTP and decodes real bytes.
``llm_wire.agent.scripted.ScriptedClient`` is its opposite number above the transport: a model client that
never opens a connection and hands the runner a decoded response; the two share nothing but the idea of a
script.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llm_wire.message import Provider
from llm_wire.providers import WIRES, Wire, Wires
from llm_wire.transport.fake._reply import Reply
from llm_wire.transport.fake._server import Received
from llm_wire.transport.fake._speak import FakeCall, answer, error

__all__ = ["ScriptedModel", "Turn", "provider_of", "streaming"]


def _wire_of(received: Received, wires: Wires) -> Wire | None:
    path = received.path.split("?", 1)[0]
    return next((wire for wire in wires.values() if wire.speech.route.fullmatch(path)), None)


def provider_of(received: Received, *, wires: Wires = WIRES) -> Provider | None:
    """The API of ``wires`` a request was sent to, read from its path (``None`` for a path none has)."""
    wire = _wire_of(received, wires)
    return None if wire is None else wire.provider


def streaming(received: Received, *, wires: Wires = WIRES) -> bool:
    """
    Whether the request asks for an SSE stream, as its API reads it (``"stream": true``, or Gemini's
    streaming method); a request to a path no API of ``wires`` has asks for one with ``"stream": true``.
    """
    wire = _wire_of(received, wires)
    body = received.json()
    if wire is None:
        return isinstance(body, dict) and body.get("stream") is True
    return wire.speech.streams(received.path, body)


#: What the model says to one request: its text and its calls.
Turn = tuple[str, Sequence[FakeCall]]


class ScriptedModel:
    """
    A script (``FakeProvider(ScriptedModel(respond))``): each request answered in its own API's words, as a
    body or a stream as it asked, with what ``respond(received, provider)`` says. The APIs are those of
    ``wires`` (the built-in ones unless given). Streams drip ``gap`` seconds between events. A path no API
    has gets a 404.
    """

    def __init__(
        self, respond: Callable[[Received, Provider], Turn], *, gap: float = 0.0, wires: Wires = WIRES
    ) -> None:
        self._respond = respond
        self._gap = gap
        self._wires = wires

    def __call__(self, received: Received) -> Reply:
        wire = _wire_of(received, self._wires)
        if wire is None:
            return error(Provider.OPENAI_CHAT, 404, message="no such endpoint")
        text, calls = self._respond(received, wire.provider)
        stream = wire.speech.streams(received.path, received.json())
        return answer(wire.provider, text, calls, stream=stream, gap=self._gap, wires=self._wires)
