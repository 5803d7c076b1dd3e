"""How the command line names a provider: its value (``openai-chat``) or an alias of its wire (``gemini``)."""

from __future__ import annotations

from llm_wire.providers import WIRES

__all__ = ["provider_names"]


def provider_names() -> list[str]:
    """Every name a ``--provider`` option takes: each registered wire's provider value, then its aliases."""
    return [name for provider, wire in WIRES.items() for name in (provider.value, *wire.aliases)]
