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

from llm_wire import _deprecated, _public
from llm_wire import outcome as _outcome
from llm_wire.providers import response as _response
from llm_wire.transport._async import AsyncClient
from llm_wire.transport._core import Attempt, Attempts
from llm_wire.transport._settings import (
    NO_LIMIT,
    Bound,  # noqa: F401 - resolves the records' annotations here
    NoLimit,
    RetryPolicy,
    Timeouts,
)
from llm_wire.transport._sync import Client

__all__ = [
    "NO_LIMIT",
    "NoLimit",
    "AsyncClient",
    "Client",
    "Attempt",
    "Attempts",
    "RetryPolicy",
    "Timeouts",
]

_public.rehome(__name__, __all__, globals())


# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
def _retryable(outcome: _outcome.Outcome) -> bool:
    return isinstance(outcome, _outcome.Failure) and outcome.retryable


retryable = _deprecated.renamed(_retryable, "llm_wire.transport.retryable")
ArgumentsDelta = _response.ArgumentsDelta
Progress = _response.Progress
TextDelta = _response.TextDelta
ToolCallStarted = _response.ToolCallStarted
TransportError = _outcome.TransportError
TransportProblem = _outcome.TransportProblem
