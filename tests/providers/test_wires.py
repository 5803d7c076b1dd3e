"""The ``WIRES`` registry: one ``Wire`` per provider, and a prepared request's decoder reading that API."""

from __future__ import annotations

import subprocess
import sys

import pytest

import llm_wire as rq
from llm_wire import tool
from llm_wire.demo.providers import RESPONSES
from llm_wire.message import Provider
from llm_wire.names import _NAME_RULES as NAME_RULES
from llm_wire.providers import WIRES, Wire, anthropic, google, openai_chat, openai_responses
from llm_wire.providers.google import GoogleSchema
from llm_wire.providers.response import _DEFAULT_LIMITS, FinishReason, StreamDecoder
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
        ``providers.response`` (what outcomes need) loads no API's wire module and no requests; outcomes
        (which import the requests at the top) load no API's wire module.
        """
        loaded = _loaded_by("import llm_wire.providers.response")
        assert loaded & WIRE_MODULES == set()
        assert "llm_wire._request" not in loaded
        assert _loaded_by("import llm_wire.outcome") & WIRE_MODULES == set()

    def test_a_look_up_loads_its_wire(self) -> None:
        """``WIRES[Provider.ANTHROPIC]`` loads the Anthropic wire and no other; a name loads its home."""
        statement = "from llm_wire.providers import WIRES; from llm_wire.message import Provider"
        loaded = _loaded_by(f"{statement}; WIRES[Provider.ANTHROPIC]")
        assert loaded & WIRE_MODULES == {"llm_wire.providers.anthropic"}
        assert "llm_wire.providers._wire" in _loaded_by("from llm_wire.providers import UseTool")

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
        assert [module.WIRE for module in modules] == [WIRES[module.WIRE.provider] for module in modules]

    def test_a_wire_decoder_conforms(self) -> None:
        """A wire makes a fresh decoder for its own provider each time."""
        for wire in WIRES.values():
            first: StreamDecoder = wire.decoder(_DEFAULT_LIMITS)
            assert first.provider is wire.provider
            assert first is not wire.decoder(_DEFAULT_LIMITS)

    def test_only_gemini_has_a_legacy_dialect(self) -> None:
        """The legacy dialect is data on the wire; asking for it elsewhere gives the usual profile."""
        assert WIRES[Provider.GOOGLE].profile(False, legacy=True) is google.WIRE.legacy
        assert WIRES[Provider.ANTHROPIC].profile(True, legacy=True) is anthropic.WIRE.strict


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


class TestProviderNames:
    """A ``Provider`` is the name of an API: the built-in ones are constants, another API names its own."""

    def test_a_built_in_value_is_its_constant(self) -> None:
        """``Provider("anthropic")`` is ``Provider.ANTHROPIC``; iterating gives the four built-in APIs."""
        assert Provider("anthropic") is Provider.ANTHROPIC
        assert [p.value for p in Provider] == ["openai-responses", "openai-chat", "anthropic", "google"]
        assert repr(Provider.OPENAI_CHAT) == "<Provider.OPENAI_CHAT: 'openai-chat'>"

    def test_another_api_is_equal_by_value(self) -> None:
        """Two providers of one value are equal and hash alike; a provider never equals its text."""
        assert Provider("toy-talk") == Provider("toy-talk")
        assert hash(Provider("toy-talk")) == hash(Provider("toy-talk"))
        assert Provider("toy-talk") != "toy-talk"
        assert Provider("toy-talk") != Provider.ANTHROPIC
        assert Provider("toy-talk").name == "TOY_TALK"

    def test_a_bad_value_is_refused(self) -> None:
        """A value outside the rule is a ``ValueError`` that does not repeat it; a non-str a ``TypeError``."""
        with pytest.raises(ValueError, match="lowercase ASCII letters") as refused:
            Provider("Bad Name")
        assert "Bad" not in str(refused.value)
        with pytest.raises(TypeError, match="must be a str"):
            Provider(5)  # type: ignore[arg-type]

    def test_a_provider_cannot_change(self) -> None:
        """A provider is immutable."""
        with pytest.raises(AttributeError):
            Provider.GOOGLE.value = "elsewhere"


class TestEachWireHoldsItsFacts:
    """What an API knows is on its wire, and the shared parts read it there."""

    def test_decode_body_is_written_once(self) -> None:
        """Each module's wire decodes a body with the one ``Wire.decode_body``."""
        for module in (openai_responses, openai_chat, anthropic, google):
            assert module.WIRE.decode_body.__func__ is Wire.decode_body

    def test_the_fake_route_matches_the_path(self) -> None:
        """A wire's ``Speech.route`` takes the paths its ``path`` writes, streamed or not, and no other's."""
        for wire in WIRES.values():
            for stream in (False, True):
                path = wire.path("some-model", stream).split("?", 1)[0]
                owners = [other.provider for other in WIRES.values() if other.speech.route.fullmatch(path)]
                assert owners == [wire.provider]

    def test_names_are_unique(self) -> None:
        """No two wires share a value or an alias, so a command-line name finds one wire."""
        names = [name for p, w in WIRES.items() for name in (p.value, *w.aliases)]
        assert len(names) == len(set(names))
        assert WIRES.named("gemini") is google.WIRE
        assert WIRES.named("openai") is openai_responses.WIRE
        assert WIRES.named("elsewhere") is None

    def test_the_name_rules_are_the_wires(self) -> None:
        """``names.NAME_RULES`` is each wire's ``name_rule``."""
        assert dict(NAME_RULES) == {p: w.name_rule for p, w in WIRES.items()}
        assert NAME_RULES[Provider.GOOGLE].fullmatch("a.b:c")
        assert not NAME_RULES[Provider.ANTHROPIC].fullmatch("a.b:c")

    def test_the_legacy_dialect_is_a_generic_switch(self) -> None:
        """``with_legacy_schema`` is the switch; ``with_google_schema`` says the same in Gemini's words."""
        legacy = rq.config(Provider.GOOGLE).with_legacy_schema(True)
        assert legacy == rq.config(Provider.GOOGLE).with_google_schema(GoogleSchema.OPENAPI)
        assert legacy.google_schema is GoogleSchema.OPENAPI
        body = unwrap(rq.prepare(legacy, rq.request("m", [rq.user("x")]).with_tools([WEATHER]))).body
        assert isinstance(body, dict)
        assert body["tools"] == [
            {
                "functionDeclarations": [
                    {
                        "name": "get_weather",
                        "description": "Weather",
                        "parameters": unwrap(
                            google.WIRE.project_schema(WEATHER.schema, False, legacy=True)
                        ).wire_schema,
                    }
                ]
            }
        ]

    def test_a_config_holds_its_providers_wire(self) -> None:
        """``config`` holds the registry's wire; a wire of another provider is refused."""
        assert rq.config(Provider.ANTHROPIC).wire is anthropic.WIRE
        with pytest.raises(ValueError, match=r"wire of Config\.provider"):
            rq.Config(Provider.ANTHROPIC, wire=google.WIRE)
