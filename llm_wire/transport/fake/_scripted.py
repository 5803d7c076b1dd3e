"""
A scripted model: a script that answers each request in the API it was sent to, from a function of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llm_wire.message import Provider
from llm_wire.transport.fake._reply import Reply
from llm_wire.transport.fake._server import Received
from llm_wire.transport.fake._speak import FakeCall, answer, error

__all__ = ["ScriptedModel", "Turn", "provider_of", "streaming"]

_PATHS = {
    "/v1/chat/completions": Provider.OPENAI_CHAT,
    "/v1/responses": Provider.OPENAI_RESPONSES,
    "/v1/messages": Provider.ANTHROPIC,
}


def provider_of(received: Received) -> Provider | None:
    """The API a request was sent to, read from its path (``None`` for a path no API has)."""
    path = received.path.split("?", 1)[0]
    if path in _PATHS:
        return _PATHS[path]
    if path.startswith("/v1beta/models/") and path.endswith((":generateContent", ":streamGenerateContent")):
        return Provider.GOOGLE
    return None


def streaming(received: Received) -> bool:
    """Whether the request asks for an SSE stream (``"stream": true``, or Gemini's streaming method)."""
    body = received.json()
    return ":streamGenerateContent" in received.path or (
        isinstance(body, dict) and body.get("stream") is True
    )


#: What the model says to one request: its text and its calls.
Turn = tuple[str, Sequence[FakeCall]]


class ScriptedModel:
    """
    A script (``FakeProvider(ScriptedModel(respond))``): each request answered in its own API's words, as a
    body or a stream as it asked, with what ``respond(received, provider)`` says. Streams drip ``gap``
    seconds between events. A path no API has gets a 404.
    """

    def __init__(self, respond: Callable[[Received, Provider], Turn], *, gap: float = 0.0) -> None:
        self._respond = respond
        self._gap = gap

    def __call__(self, received: Received) -> Reply:
        provider = provider_of(received)
        if provider is None:
            return error(Provider.OPENAI_CHAT, 404, message="no such endpoint")
        text, calls = self._respond(received, provider)
        return answer(provider, text, calls, stream=streaming(received), gap=self._gap)
