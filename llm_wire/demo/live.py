"""
The round trip against a real API: ``python -m llm_wire demo --provider openai|anthropic|google --model M``
(any provider's value or alias names it).

The same loop as the ``transport`` demo section (``round_trip``: two tools, a streamed request, the calls
run and their results sent back, the final answer), sent to the provider's own endpoint with the key from
its environment variable (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``GEMINI_API_KEY`` or
``GOOGLE_API_KEY``). ``openai`` uses the Responses API.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from llm_wire import config
from llm_wire.demo.transport import round_trip
from llm_wire.message import Provider
from llm_wire.outcome import Answer
from llm_wire.providers import WIRES
from llm_wire.transport import Client, Timeouts

__all__ = ["PROVIDERS", "run_live"]

#: The ``--provider`` names (each provider's value and its wire's aliases), and the API each one talks to.
PROVIDERS: Mapping[str, Provider] = {
    name: provider for provider, wire in WIRES.items() for name in (provider.value, *wire.aliases)
}


def run_live(provider: str, model: str, environ: Mapping[str, str] | None = None) -> int:
    """
    Run the round trip against ``provider``'s API with ``model``; the exit status: 0 for an answer, 1 for
    any other outcome, 2 when no key is set.
    """
    chosen = PROVIDERS[provider]
    names = WIRES[chosen].http.key_env
    environ = os.environ if environ is None else environ
    if not any(environ.get(name) for name in names):
        print(f"no key: set {' or '.join(names)} to run the demo against the {provider} API")
        return 2
    print(f"{chosen.value} ({model}), streamed over HTTPS:")
    with Client(timeouts=Timeouts(total=180.0), environ=environ) as client:
        outcome = round_trip(client, config(chosen).with_stream(True), model)
    if isinstance(outcome, Answer):
        print(f"  final answer: {outcome.text}")
        return 0
    print(f"  ended as {type(outcome).__name__}: {outcome}")
    return 1
