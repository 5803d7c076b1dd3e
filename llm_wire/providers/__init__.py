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

import importlib
import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from llm_wire._public import lazy_face
from llm_wire.message import Provider

if TYPE_CHECKING:
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

#: The module of each provider's wire, in the registry's order.
_MODULES = {
    Provider.OPENAI_RESPONSES: "llm_wire.providers.openai_responses",
    Provider.OPENAI_CHAT: "llm_wire.providers.openai_chat",
    Provider.ANTHROPIC: "llm_wire.providers.anthropic",
    Provider.GOOGLE: "llm_wire.providers.google",
}


class _Wires(Mapping[Provider, "Wire"]):
    """The registry: a provider's wire module loads on the first look-up of that provider."""

    __slots__ = ()

    def __getitem__(self, provider: Provider) -> Wire:
        name = _MODULES[provider]
        wire: Wire = (sys.modules.get(name) or importlib.import_module(name)).WIRE
        return wire

    def __iter__(self) -> Iterator[Provider]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)

    def __repr__(self) -> str:
        return f"WIRES({', '.join(provider.name for provider in _MODULES)})"


#: Every provider's wire.
WIRES: Mapping[Provider, Wire] = _Wires()

#: Where each name of this face lives: the names load on first use, so ``providers.response`` (which
#: outcomes need) loads without every provider's wire.
_HOMES = {
    "Choice": "llm_wire.providers.wire",
    "Declared": "llm_wire.providers.wire",
    "EncodeError": "llm_wire.providers.wire",
    "Http": "llm_wire.providers.wire",
    "InvalidReplay": "llm_wire.providers.wire",
    "Number": "llm_wire.providers.wire",
    "Outgoing": "llm_wire.providers.wire",
    "OutputSpec": "llm_wire.providers.wire",
    "ToolChoice": "llm_wire.providers.wire",
    "UnsupportedSetting": "llm_wire.providers.wire",
    "UseTool": "llm_wire.providers.wire",
    "Wire": "llm_wire.providers.wire",
    "project": "llm_wire.providers._project",
}


if not TYPE_CHECKING:  # mypy reads the imports above, so a misspelt name stays an error
    __getattr__, __dir__ = lazy_face(
        __name__, _HOMES, globals(), submodules=("anthropic", "google", "openai_chat", "openai_responses")
    )
