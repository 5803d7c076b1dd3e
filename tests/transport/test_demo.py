"""
The transport demo section and the live demo's guard: the round trip runs over HTTP for every API, and the
live demo without a key says which variable to set.
"""

from __future__ import annotations

import pytest

from llm_wire import cli
from llm_wire.demo import live, transport
from llm_wire.message import Provider


class TestDemo:
    """``make demo``'s transport section shows the whole round trip for each API."""

    def test_round_trip_for_every_api(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Each API runs both tools and prints a final answer built from their results."""
        transport.run()
        shown = capsys.readouterr().out
        assert shown.count("final answer: Here is what the tools found: Paris: 18 C") == len(Provider)
        assert shown.count("<- ran convert_time") == len(Provider)

    def test_live_without_a_key(self, capsys: pytest.CaptureFixture[str]) -> None:
        """No key in the environment: exit status 2 and the variables to set; nothing is sent."""
        assert live.run_live("google", "gemini-2.5-flash", environ={}) == 2
        assert "GEMINI_API_KEY or GOOGLE_API_KEY" in capsys.readouterr().out


class TestCommandLine:
    """``python -m llm_wire demo --provider P --model M`` parses into the live demo."""

    def test_provider_needs_a_model(self) -> None:
        with pytest.raises(SystemExit) as stopped:
            cli.main(["demo", "--provider", "openai"])
        assert stopped.value.code == 2

    def test_runs_the_live_demo(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Without its key the live demo stops before sending, with status 2."""
        monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
        assert cli.main(["demo", "--provider", "anthropic", "--model", "claude-sonnet-4-5"]) == 2
        assert "ANTHROPIC_API_KEY" in capsys.readouterr().out
