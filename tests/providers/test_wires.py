"""The ``WIRES`` registry: one ``Wire`` per provider, and a prepared request's decoder reading that API."""

from __future__ import annotations

import subprocess
import sys

import pytest

import llm_wire as rq
from llm_wire import tool
from llm_wire.demo.providers import RESPONSES
from llm_wire.message import Provider
from llm_wire.providers import WIRES, anthropic, google, openai_chat, openai_responses
from llm_wire.providers.response import DEFAULT_LIMITS, FinishReason, StreamDecoder
from llm_wire.result import Ok, unwrap

WEATHER = unwrap(
    tool.from_json_schema(
        "get_weather",
        "Weather",
        {"type": "object", "properties": {"location": {"type": "object"}, "days": {"type": "integer"}}},
    )
)
TIME = unwrap(tool.from_json_schema("convert_time", "Time", {"type": "object"}))


def _loaded_by(statement: str) -> set[str]:
    """The ``llm_wire`` modules a fresh interpreter holds after ``statement``."""
    code = f"import sys; {statement}; print(' '.join(m for m in sys.modules if m.startswith('llm_wire')))"
    return set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
    )


WIRE_MODULES = {
    f"llm_wire.providers.{name}" for name in ("anthropic", "google", "openai_chat", "openai_responses")
}


class TestLoadedOnUse:
    """A provider's wire module loads on the first look-up of that provider, not with the package."""

    def test_the_response_shapes_load_no_wire(self) -> None:
        """
        ``providers.response`` (what outcomes need) loads no wire, no requests and no projection; outcomes
        (which import the requests at the top) load no wire.
        """
        loaded = _loaded_by("import llm_wire.providers.response")
        assert loaded & WIRE_MODULES == set()
        assert {
            "llm_wire._request",
            "llm_wire.providers.wire",
            "llm_wire.providers.projection",
        } & loaded == set()
        assert _loaded_by("import llm_wire.outcome") & WIRE_MODULES == set()

    def test_a_look_up_loads_its_wire(self) -> None:
        """``WIRES[Provider.ANTHROPIC]`` loads the Anthropic wire and no other; a name loads its home."""
        statement = "from llm_wire.providers import WIRES; from llm_wire.message import Provider"
        loaded = _loaded_by(f"{statement}; WIRES[Provider.ANTHROPIC]")
        assert loaded & WIRE_MODULES == {"llm_wire.providers.anthropic"}
        assert "llm_wire.providers.wire" in _loaded_by("from llm_wire.providers import UseTool")

    def test_the_registry_reads_as_a_mapping(self) -> None:
        """``WIRES`` is a read-only mapping in provider order that refuses an unknown key."""
        assert list(WIRES) == list(Provider)
        assert len(WIRES) == len(Provider)
        assert repr(WIRES) == "WIRES(OPENAI_RESPONSES, OPENAI_CHAT, ANTHROPIC, GOOGLE)"
        with pytest.raises(KeyError):
            WIRES["anthropic"]  # type: ignore[index]
        with pytest.raises(TypeError):
            WIRES[Provider.GOOGLE] = google.WIRE  # type: ignore[index]


class TestRegistry:
    """Every provider has exactly one wire, found by its provider."""

    def test_every_provider_has_a_wire(self) -> None:
        """``WIRES`` has an entry for each ``Provider``, and each wire names its own provider."""
        assert set(WIRES) == set(Provider)
        for provider, wire in WIRES.items():
            assert wire.provider is provider

    def test_the_modules_wires_are_registered(self) -> None:
        """Each API module's ``WIRE`` is the registered one."""
        modules = (openai_responses, openai_chat, anthropic, google)
        assert [module.WIRE for module in modules] == [WIRES[module.PROVIDER] for module in modules]

    def test_a_wire_decoder_conforms(self) -> None:
        """A wire makes a fresh decoder for its own provider each time."""
        for wire in WIRES.values():
            first: StreamDecoder = wire.decoder(DEFAULT_LIMITS)
            assert first.provider is wire.provider
            assert first is not wire.decoder(DEFAULT_LIMITS)

    def test_only_gemini_has_a_legacy_dialect(self) -> None:
        """The legacy dialect is data on the wire; asking for it elsewhere gives the usual profile."""
        assert WIRES[Provider.GOOGLE].profile(False, legacy=True) is google.OPENAPI
        assert WIRES[Provider.ANTHROPIC].profile(True, legacy=True) is anthropic.STRICT


@pytest.mark.parametrize("provider", list(Provider), ids=lambda p: p.value)
class TestPreparedDecoder:
    """A prepared request decodes its own API's responses, body and stream."""

    def test_decode_body(self, provider: Provider) -> None:
        """``prepared.decode_body`` reads that API's body into a terminal with the calls in order."""
        prepared = unwrap(
            rq.prepare(rq.config(provider), rq.request("m", [rq.user("x")]).with_tools([WEATHER]))
        )
        decoded = prepared.decode_body(RESPONSES[provider])
        assert isinstance(decoded, Ok)
        assert decoded.value.provider is provider
        assert decoded.value.finish is FinishReason.TOOL_CALLS
        assert [call.name for call in decoded.value.calls] == ["get_weather", "convert_time"]

    def test_decoder_is_this_wire(self, provider: Provider) -> None:
        """``prepared.decoder()`` is a fresh decoder of this request's wire."""
        prepared = unwrap(rq.prepare(rq.config(provider), rq.request("m", [rq.user("x")])))
        assert prepared.wire is WIRES[provider]
        assert prepared.decoder().provider is provider
        assert prepared.decoder() is not prepared.decoder()

    def test_resolve_admits_against_the_prepared_tools(self, provider: Provider) -> None:
        """Resolving against the prepared request admits the declared tools and reports the rest."""
        checks = rq.config(provider).with_tool_call_checks(rq.ToolCallChecks.REPORT)
        prepared = unwrap(rq.prepare(checks, rq.request("m", [rq.user("x")]).with_tools([WEATHER, TIME])))
        result = rq.resolve(prepared.decode_body(RESPONSES[provider]), prepared)
        assert isinstance(result, rq.NeedsTools)
        assert [admitted.call.name for admitted in result.admitted] == ["get_weather", "convert_time"]
        assert result.issues == ()


class TestPublicPaths:
    """Public types print a public module path."""

    def test_response_and_request_types(self) -> None:
        """Response types live in ``providers.response``; request types print as ``llm_wire``."""
        from llm_wire.providers import response

        for name in response.__all__:
            found = getattr(response, name)
            if isinstance(found, type):
                assert found.__module__ == "llm_wire.providers.response", name
        assert rq.Prepared.__module__ == rq.Config.__module__ == rq.MissingResult.__module__ == "llm_wire"
