"""
HTTP transport: send a ``Prepared`` request to its provider and get its ``Outcome``, sync or async.

``Client`` and ``AsyncClient`` are twins over one sans-I/O core: ``complete(prepared)`` returns the outcome
of ``resolve``; ``stream(prepared)`` yields ``Progress`` (text deltas, tool calls started, argument
deltas) and ends with the outcome; ``send(prepared, retry=...)`` reports every attempt. The endpoint, key
header and API version come from the request's ``Wire`` (``Wire.http``); keys come from ``api_key`` or the
provider's environment variables; ``base_url`` points elsewhere (a proxy, a gateway, the fake provider).

``Timeouts`` bound the connect, the first byte, each idle gap and the whole call; a timeout or a cut
connection is a ``Failure`` whose ``TransportError`` names it and whose ``sent`` says what it cost. HTTP
errors decode through the wire into a ``ProviderError`` with retry advice. Nothing is retried unless a
``RetryPolicy`` says so, and then only what is safe. ``llm_wire.transport.fake`` is a local fake provider.
Needs the ``http`` extra (httpx).
"""

from __future__ import annotations

from llm_wire._public import rehome
from llm_wire.outcome import TransportError, TransportProblem
from llm_wire.providers.response import ArgumentsDelta, Progress, TextDelta, ToolCallStarted
from llm_wire.transport._async import AsyncClient
from llm_wire.transport._core import Attempt, Attempts, retryable
from llm_wire.transport._settings import NO_LIMIT, Bound, NoLimit, RetryPolicy, Timeouts
from llm_wire.transport._sync import Client

__all__ = [
    "NO_LIMIT",
    "ArgumentsDelta",
    "AsyncClient",
    "Attempt",
    "Attempts",
    "Bound",
    "Client",
    "NoLimit",
    "Progress",
    "RetryPolicy",
    "TextDelta",
    "Timeouts",
    "ToolCallStarted",
    "TransportError",
    "TransportProblem",
    "retryable",
]

rehome(__name__, __all__, globals())
