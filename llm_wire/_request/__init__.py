"""
Requests: build a ``Request``, choose a ``Config`` for a provider, and ``prepare`` it into a ``Prepared``.

The parts live in private modules (``_model``: ``Request`` and the message builders; ``_config``: ``Config``,
``Limit``, ``Strictness``; ``_prepare``: ``prepare``, ``Prepared``; ``_errors``: the
``PrepareError`` family); the facade ``llm_wire`` re-exports them.
"""

from __future__ import annotations

from llm_wire._public import rehome
from llm_wire._request._config import Config, Limit, Strictness, config
from llm_wire._request._errors import (
    DuplicateCallId,
    DuplicateResult,
    DuplicateToolName,
    EmptyConversation,
    InvalidSetting,
    MissingResult,
    NotEncodable,
    OrphanResult,
    PrepareError,
    RequestTooLarge,
    UnknownToolChoice,
    UnsupportedOutput,
    UnsupportedSchema,
)
from llm_wire._request._model import Output, Request, assistant, request, system, tool_result, user
from llm_wire._request._prepare import Prepared, prepare

__all__ = [
    "Config",
    "DuplicateCallId",
    "DuplicateResult",
    "DuplicateToolName",
    "EmptyConversation",
    "InvalidSetting",
    "Limit",
    "MissingResult",
    "NotEncodable",
    "OrphanResult",
    "Output",
    "PrepareError",
    "Prepared",
    "Request",
    "RequestTooLarge",
    "Strictness",
    "UnknownToolChoice",
    "UnsupportedOutput",
    "UnsupportedSchema",
    "assistant",
    "config",
    "prepare",
    "request",
    "system",
    "tool_result",
    "user",
]

# Print the public path, as httpx does: ``llm_wire.Config``, never ``llm_wire._request._config.Config``.
rehome("llm_wire", __all__, globals())
