"""
Provider wires: one module per API, each ending in one ``Wire`` record; ``WIRES`` finds it by ``Provider``.

| API | module |
| --- | --- |
| OpenAI Responses | ``openai_responses`` |
| OpenAI Chat Completions | ``openai_chat`` |
| Anthropic Messages | ``anthropic`` |
| Google Gemini GenerateContent | ``google`` |

Each module holds its request side (projection profiles, encoder, endpoint), its response side (a decoder,
an error decoder) and its server's speech for the fake provider, all on its ``WIRE``. What goes in is here
(``Outgoing``, ``Wire``, ``Wires``), what comes out in ``response`` (``Terminal``, ``Progress``,
``ProviderError``, ``StreamDecoder``...), and schema projection in ``projection`` (``Profile``,
``Projection``, ``Loss``, ``project_schema``). A new API is one module ending in its ``WIRE`` and one line
in ``WIRES`` below (or, outside the package, ``WIRES.with_wire(WIRE)``).
"""

from __future__ import annotations

from llm_wire import _deprecated, _public
from llm_wire.message import Provider
from llm_wire.providers._wire import (
    AllowedTools,
    Declared,
    DecoderFactory,
    EncodeError,
    Http,
    InvalidReplay,
    Outgoing,
    OutputSpec,
    OverProviderLimit,
    ProviderLimit,
    Speech,
    ToolChoice,
    ToolLimits,
    UnsupportedSetting,
    UseTool,
    Wire,
    Wires,
)
from llm_wire.providers.projection import project_schema as _project_schema

__all__ = [
    "WIRES",
    "Wire",
    "Wires",
    "Speech",
    "Http",
    "DecoderFactory",
    "Declared",
    "Outgoing",
    "OutputSpec",
    "ToolChoice",
    "UseTool",
    "AllowedTools",
    "EncodeError",
    "UnsupportedSetting",
    "InvalidReplay",
    "ToolLimits",
    "ProviderLimit",
    "OverProviderLimit",
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

_public.rehome(__name__, __all__, globals())

# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
project = _deprecated.renamed(_project_schema, "llm_wire.providers.project")
