"""
A local fake provider: a real HTTP server on loopback that speaks every API from a script of replies.

``FakeProvider(script)`` serves ``Reply`` values in order, or from a function of each ``Received``
request; ``ScriptedModel(respond)`` is such a function, answering each request in the API it was sent to.
Each API's words are its wire's ``Speech`` (``llm_wire.providers.Wire.speech``): the built-in APIs of
``WIRES``, or those of a registry passed as ``wires``.
``answer(provider, text, calls, stream=...)`` builds a finished response in an API's own words, a body or
an SSE stream; ``error(provider, status, retry_after=...)`` an HTTP error; ``recorded(record)`` replays a
recorded exchange byte for byte. A ``Reply`` can stall before its first byte (``delay``), drip (``gap``),
cut the connection (``cut_after``) or hold it (``stall_after``); every ``Exchange`` records whether the
client disconnected. ``python -m llm_wire.transport.fake`` serves from the command line.
"""

from __future__ import annotations

from llm_wire import _public
from llm_wire.transport.fake._recorded import recorded
from llm_wire.transport.fake._reply import Reply
from llm_wire.transport.fake._scripted import ScriptedModel
from llm_wire.transport.fake._server import Exchange, FakeProvider, Received
from llm_wire.transport.fake._speak import FakeCall, answer, error

__all__ = [
    "Exchange",
    "FakeCall",
    "FakeProvider",
    "Received",
    "Reply",
    "ScriptedModel",
    "answer",
    "error",
    "recorded",
]

_public.rehome(__name__, __all__, globals())
