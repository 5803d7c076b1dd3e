"""
Provider wires: one module per API, each ending in one ``Wire`` record; ``WIRES`` finds it by ``Provider``.

| API | module |
| --- | --- |
| OpenAI Responses | ``openai_responses`` |
| OpenAI Chat Completions | ``openai_chat`` |
| Anthropic Messages | ``anthropic`` |
| Google Gemini GenerateContent | ``google`` |

Each module holds its request side (projection profiles, ``encode``, ``path``), its response side (a
``*Decoder``, ``decode_error``) and its server's speech for the fake provider. What goes in is in ``wire``
(``Outgoing``, ``Wire``, ``Wires``), what comes out in ``response`` (``Terminal``, ``Progress``,
``ProviderError``, ``StreamDecoder``...), and schema projection in ``projection`` (``Profile``,
``Projection``, ``Loss``) with ``project`` here. A new API is one module ending in its ``WIRE`` and one line
in ``WIRES`` below (or, outside the package, ``WIRES.with_wire(WIRE)``).
"""

from __future__ import annotations

from llm_wire.message import Provider
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
    Speech,
    ToolChoice,
    UnsupportedSetting,
    UseTool,
    Wire,
    Wires,
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
    "Speech",
    "ToolChoice",
    "UnsupportedSetting",
    "UseTool",
    "Wire",
    "Wires",
    "project",
]

#: Every built-in API's wire, its module loaded on the first look-up of its provider.
WIRES = Wires(
    {
        Provider.OPENAI_RESPONSES: "llm_wire.providers.openai_responses",
        Provider.OPENAI_CHAT: "llm_wire.providers.openai_chat",
        Provider.ANTHROPIC: "llm_wire.providers.anthropic",
        Provider.GOOGLE: "llm_wire.providers.google",
    }
)
