"""
Provider wires: one module per API, each ending in one ``Wire`` record; ``WIRES`` finds it by ``Provider``.

| API | module |
| --- | --- |
| OpenAI Responses | ``openai_responses`` |
| OpenAI Chat Completions | ``openai_chat`` |
| Anthropic Messages | ``anthropic`` |
| Google Gemini GenerateContent | ``google`` |

Each module holds its request side (projection profiles, ``encode``, ``path``) and its response side
(a ``*Decoder``, ``decode_body``, ``decode_error``). What goes in is in ``wire`` (``Outgoing``, ``Wire``),
what comes out in ``response`` (``Terminal``, ``Progress``, ``ProviderError``, ``StreamDecoder``...), and
schema projection in ``projection`` (``Profile``, ``Projection``, ``Loss``) with ``project`` here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from llm_wire.message import Provider
from llm_wire.providers import anthropic, google, openai_chat, openai_responses
from llm_wire.providers._project import project
from llm_wire.providers.wire import (
    Choice,
    Declared,
    EncodeError,
    Http,
    InvalidReplay,
    Number,
    Outgoing,
    OutputSpec,
    ToolChoice,
    UnsupportedSetting,
    UseTool,
    Wire,
)

__all__ = [
    "WIRES",
    "Choice",
    "Declared",
    "EncodeError",
    "Http",
    "InvalidReplay",
    "Number",
    "Outgoing",
    "OutputSpec",
    "ToolChoice",
    "UnsupportedSetting",
    "UseTool",
    "Wire",
    "project",
]

#: Every provider's wire.
WIRES: Mapping[Provider, Wire] = MappingProxyType(
    {wire.provider: wire for wire in (openai_responses.WIRE, openai_chat.WIRE, anthropic.WIRE, google.WIRE)}
)
