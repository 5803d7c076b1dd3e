"""The command line: ``--version``, ``--help``, ``check`` over the MCP corpus and a server, and ``admit``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llm_wire import tool
from llm_wire.cli import main
from llm_wire.message import Provider
from llm_wire.names import mangle
from llm_wire.providers import WIRES
from llm_wire.providers.projection import Projection
from llm_wire.result import Err, Ok, unwrap
from llm_wire.value import Limits, parse

MCP = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "mcp-tools"
SERVER = f"{sys.executable} -m llm_wire.demo.mcp_server"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    return status, capsys.readouterr().out


class TestFace:
    """``--version`` and ``--help`` for every command."""

    def test_version(self, capsys: pytest.CaptureFixture[str]) -> None:
        """``--version`` prints the package version."""
        with pytest.raises(SystemExit) as done:
            main(["--version"])
        assert done.value.code == 0
        assert capsys.readouterr().out.startswith("llm-wire 0.")

    @pytest.mark.parametrize("command", ["demo", "check", "admit"])
    def test_help(self, capsys: pytest.CaptureFixture[str], command: str) -> None:
        """Each command has a help text."""
        with pytest.raises(SystemExit) as done:
            main([command, "--help"])
        assert done.value.code == 0
        assert f"llm-wire {command}" in capsys.readouterr().out


@pytest.mark.skipif(not MCP.is_dir(), reason=f"MCP corpus not found at {MCP} (../shared/corpora)")
class TestCheckCorpus:
    """``check`` over every server file of the corpus agrees with the library's own results."""

    def test_json_agrees_with_the_library(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Loaded or not, accepted or not, every loss and every verdict is what the library computes."""
        files = sorted(MCP.glob("*.json"))
        status, out = _run(capsys, "check", "--json", *(f"--tools={f}" for f in files))
        report = json.loads(out)
        assert status == report["exit"]
        assert [s["source"] for s in report["sources"]] == [str(f) for f in files]
        checked = 0
        for source, path in zip(report["sources"], files, strict=True):
            document: Any = unwrap(parse(path.read_bytes(), Limits().with_max_bytes(64 << 20)))
            listed = {t["name"]: t for t in source["tools"]}
            assert len(listed) == len(document["tools"])
            together: dict[Provider, list[Projection]] = {provider: [] for provider in Provider}
            for raw in document["tools"]:
                entry = listed[raw["name"]]
                made = tool.from_json_schema(
                    unwrap(mangle(raw["name"])), raw.get("description") or "", raw["inputSchema"]
                )
                # ``check`` reads an MCP listing as ``mcp.declare`` does: a tool that only runs as a task is
                # left out (this client does not speak the tasks extension), whatever its schema.
                task_only = (raw.get("execution") or {}).get("taskSupport") == "required"
                assert entry["loaded"] == (isinstance(made, Ok) and not task_only)
                if isinstance(made, Err) or task_only:
                    continue
                for provider in Provider:
                    for mode, strict in (("loose", False), ("strict", True)):
                        cell = entry["providers"][provider.value][mode]
                        projected = WIRES[provider].project_schema(made.value.schema, strict)
                        assert cell["accepted"] == isinstance(projected, Ok)
                        if isinstance(projected, Ok):
                            if strict:
                                together[provider].append(projected.value)
                            assert cell["keeps_meaning"] == projected.value.qualifies
                            losses = [(tuple(x["path"]), x["keyword"], x["action"]) for x in cell["losses"]]
                            assert losses == [
                                (x.path, x.keyword, x.action.value) for x in projected.value.losses
                            ]
                        checked += 1
            budgets = {
                provider.value: WIRES[provider].over_budget(together[provider]) for provider in Provider
            }
            assert source["strict_budget"] == budgets
        assert checked >= 269 * 8  # 270 corpus tools, one of them task-only
        totals = report["totals"]
        assert totals["tools"] == sum(s["totals"]["tools"] for s in report["sources"])
        assert set(totals["providers"]) == {p.value for p in Provider}

    def test_table_and_fail_on(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The table names each tool; ``--fail-on`` turns a lost keyword into exit status 1."""
        time_file = str(MCP / "python-time.json")
        status, out = _run(capsys, "check", "--tools", time_file)
        assert status == 0
        assert "get_current_time" in out
        assert "strict-eligible" in out
        everything = [f"--tools={f}" for f in sorted(MCP.glob("*.json"))]
        status, out = _run(capsys, "check", "--fail-on", "pattern", "--losses", *everything)
        assert status == 1
        assert '"pattern" dropped' in out


class TestCheck:
    """``check`` on a live server, a module, and bad sources."""

    def test_server(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The demo server: its remote ``$ref`` tool is not loaded, which fails the check."""
        status, out = _run(capsys, "check", "--server", SERVER, "--provider", "anthropic", "--mode", "strict")
        assert status == 1
        assert "remote_ref" in out
        assert "not loaded at inputSchema" in out
        assert "files_2e_read" not in out  # the table shows the server's names
        assert "files.read" in out

    def test_a_provider_by_alias(self, capsys: pytest.CaptureFixture[str]) -> None:
        """``--provider`` takes a wire's alias (``gemini``) as its provider, listed once with its value."""
        argv = ["check", "--json", "--module", "declared", "--provider", "gemini", "--provider", "google"]
        status, out = _run(capsys, *argv)
        assert status == 0
        assert list(json.loads(out)["sources"][0]["tools"][0]["providers"]) == ["google"]

    def test_module(self, capsys: pytest.CaptureFixture[str]) -> None:
        """A module's ``Tool`` objects are checked (``tests/declared.py``)."""
        status, out = _run(capsys, "check", "--json", "--module", "declared")
        names = [t["name"] for t in json.loads(out)["sources"][0]["tools"]]
        assert status == 0
        assert "get_weather" in names

    def test_control_characters_are_escaped(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A server's tool name with control characters is shown escaped in the table, mangled on the wire."""
        tools = tmp_path / "tools.json"
        tools.write_text(json.dumps({"tools": [{"name": "red\x1b[31m", "inputSchema": {"type": "object"}}]}))
        status, out = _run(capsys, "check", "--tools", str(tools))
        assert status == 0
        assert "\x1b" not in out
        assert "red\\x1b[31m" in out

    @pytest.mark.parametrize(
        "argv",
        [
            ["check"],
            ["check", "--tools", "/nonexistent/tools.json"],
            ["check", "--server", "'unbalanced"],
            ["check", "--server", "/nonexistent/server"],
            ["check", "--module", "no_such_module_here"],
        ],
    )
    def test_unusable(self, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
        """No source, or one that cannot be read, is exit status 2 with a message."""
        status, out = _run(capsys, *argv)
        assert status == 2
        assert out.startswith("llm-wire check:")


class TestCheckLimits:
    """``check`` shows what ``prepare`` would refuse: every tool of a source in one request, and each tool."""

    def test_600_tools_are_refused_by_each_provider_with_a_tool_count(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        listing = {"tools": [{"name": f"tool_{n}", "inputSchema": {"type": "object"}} for n in range(600)]}
        tools = tmp_path / "tools.json"
        tools.write_text(json.dumps(listing))
        status, out = _run(capsys, "check", "--json", "--tools", str(tools), "--mode", "loose")
        source = json.loads(out)["sources"][0]
        assert status == 0
        assert source["request_limits"] == {
            "openai-responses": (
                "openai-responses takes at most 128 tools in one request; this one declares 600 (limit tools)"
            ),
            "openai-chat": (
                "openai-chat takes at most 128 tools in one request; this one declares 600 (limit tools)"
            ),
            "anthropic": None,
            "google": "google takes at most 512 tools in one request; this one declares 600 (limit tools)",
        }
        for provider in ("openai-responses", "openai-chat", "google"):
            one = WIRES.named(provider)
            assert one is not None
            assert source["request_limits"][provider] == str(one.request_over_limit(600))
        _, table = _run(capsys, "check", "--tools", str(tools), "--mode", "loose")
        line = next(line for line in table.splitlines() if line.startswith("every tool in one request"))
        for refused in (
            "openai-responses takes at most 128",
            "openai-chat takes at most 128",
            "google takes at most 512",
        ):
            assert refused in line
        assert "anthropic" not in line

    def test_a_tool_over_a_limit_is_refused_in_its_cells(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A name Gemini's rule refuses: its google cells say so; the other providers take it."""
        (tmp_path / "leading_digit.py").write_text(
            "from llm_wire import codec, tool\n"
            "N = codec.record('Lives', codec.required('n', codec.integer()))\n"
            "LIVES = tool.new('9lives', 'A tool.', N)\n"
        )
        monkeypatch.syspath_prepend(str(tmp_path))
        status, out = _run(capsys, "check", "--json", "--module", "leading_digit")
        cells = json.loads(out)["sources"][0]["tools"][0]["providers"]
        assert status == 0
        for mode in ("loose", "strict"):
            assert cells["google"][mode]["accepted"] is False
            assert cells["google"][mode]["error"]["limit"] == "name"
            assert cells["google"][mode]["error"]["reason"].startswith(
                "tool 9lives: google takes only tool names"
            )
            assert all(cells[p][mode]["accepted"] for p in ("openai-responses", "openai-chat", "anthropic"))
        _, table = _run(capsys, "check", "--module", "leading_digit", "--provider", "google", "--losses")
        assert "9lives google loose: refused: tool 9lives: google takes only tool names" in table


TOOLS = {
    "tools": [
        {
            "name": "get.weather",
            "inputSchema": {
                "type": "object",
                "properties": {"city": {"type": "string", "minLength": 1}},
                "required": ["city"],
            },
        }
    ]
}


def _chat(*calls: tuple[str, str, str]) -> dict[str, Any]:
    made = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls]
    message = {"role": "assistant", "content": None, "tool_calls": made}
    return {"id": "x", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}]}


class TestAdmit:
    """``admit`` decodes a recorded response and admits its calls."""

    def test_body(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A valid call is admitted (with the server's name shown), a bad one is an issue: status 1."""
        tools = tmp_path / "tools.json"
        tools.write_text(json.dumps(TOOLS))
        body = tmp_path / "body.json"
        calls = [("c1", "get_2e_weather", '{"city": "Oslo"}'), ("c2", "get_2e_weather", '{"city": ""}')]
        body.write_text(json.dumps(_chat(*calls)))
        status, out = _run(
            capsys, "admit", str(body), "--provider", "openai-chat", "--tools", str(tools), "--json"
        )
        report = json.loads(out)
        assert status == 1
        assert report["admitted"] == [
            {
                "id": "c1",
                "tool": "get_2e_weather",
                "arguments": '{"city":"Oslo"}',
                "server_name": "get.weather",
            }
        ]
        assert [issue["id"] for issue in report["issues"]] == ["c2"]
        assert "Oslo" not in report["issues"][0]["answer"]

    def test_sse(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """An SSE stream is decoded event by event."""
        tools = tmp_path / "tools.json"
        tools.write_text(json.dumps(TOOLS))
        call: dict[str, Any] = {"index": 0, "id": "c1", "type": "function"}
        call["function"] = {"name": "get_2e_weather", "arguments": '{"city":"Oslo"}'}
        delta = {"tool_calls": [call]}
        chunks = [
            {"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]
        stream = tmp_path / "stream.sse"
        stream.write_text("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n")
        status, out = _run(capsys, "admit", str(stream), "--provider", "openai-chat", "--tools", str(tools))
        assert status == 0
        assert "admitted c1: get_2e_weather (server name get.weather)" in out

    @settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.binary(max_size=300) | st.sampled_from([b'{"choices": []}', b"data: {}\n\n", b"[1]", b"\xff"]))
    def test_any_file(self, capsys: pytest.CaptureFixture[str], tmp_path: Path, data: bytes) -> None:
        """Whatever the response file holds, ``admit`` answers with a status and never raises."""
        tools = tmp_path / "tools.json"
        tools.write_text(json.dumps(TOOLS))
        response = tmp_path / "response"
        response.write_bytes(data)
        status, _ = _run(capsys, "admit", str(response), "--provider", "anthropic", "--tools", str(tools))
        assert status in (0, 1, 2)

    def test_needs_a_provider(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A bare body without ``--provider`` is exit status 2."""
        body = tmp_path / "body.json"
        body.write_text("{}")
        status, out = _run(capsys, "admit", str(body), "--tools", str(body))
        assert status == 2
        assert "--provider" in out


def _cli(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real command line in a process of its own, which must end within a generous bound."""
    return subprocess.run(
        [sys.executable, "-m", "llm_wire", *argv], capture_output=True, text=True, timeout=20, cwd=cwd
    )


class TestSpecialInputs:
    """FIFOs, devices, directories, huge files and exiting modules: refused at once, with status 2."""

    @pytest.fixture
    def tools(self, tmp_path: Path) -> Path:
        path = tmp_path / "tools.json"
        path.write_text(json.dumps(TOOLS))
        return path

    @pytest.fixture
    def fifo(self, tmp_path: Path) -> Path:
        path = tmp_path / "pipe"
        os.mkfifo(path)
        return path

    def test_a_fifo_is_refused_without_blocking(self, fifo: Path, tools: Path) -> None:
        """``check --tools FIFO`` and ``admit FIFO`` end with status 2 and say why (no writer needed)."""
        for argv in (
            ["check", "--tools", str(fifo)],
            ["admit", str(fifo), "--provider", "anthropic", "--tools", str(tools)],
            ["admit", str(tools), "--provider", "anthropic", "--tools", str(fifo)],
        ):
            done = _cli(*argv)
            assert (done.returncode, done.stderr) == (2, "")
            assert "not a regular file" in done.stdout

    @pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
    def test_a_device_is_refused(self, device: str, tools: Path) -> None:
        """``/dev/zero`` is no ``MemoryError`` traceback with status 1 (a refused tool): it is status 2."""
        for argv in (
            ["check", "--tools", device],
            ["admit", device, "--provider", "anthropic", "--tools", str(tools)],
        ):
            done = _cli(*argv)
            assert (done.returncode, done.stderr) == (2, "")
            assert "not a regular file" in done.stdout

    def test_a_directory_and_a_huge_file(self, tmp_path: Path, tools: Path) -> None:
        """A directory is not a file; a file over 64 MiB is refused without reading it all."""
        huge = tmp_path / "huge.json"
        with huge.open("wb") as sparse:
            sparse.truncate(65 << 20)
        for path, why in ((tmp_path, "not a regular file"), (huge, "larger than the 64 MiB")):
            for argv in (
                ["check", "--tools", str(path)],
                ["admit", str(path), "--provider", "anthropic", "--tools", str(tools)],
            ):
                done = _cli(*argv)
                assert (done.returncode, done.stderr) == (2, "")
                assert why in done.stdout

    @pytest.mark.parametrize("code", [0, 1, 2, "'bye'"])
    def test_a_module_that_exits_is_unreadable(self, tmp_path: Path, code: int | str) -> None:
        """A module whose import calls ``sys.exit`` is a source that cannot be read: status 2, no pass."""
        (tmp_path / "exits_on_import.py").write_text(f"import sys\nsys.exit({code})\n")
        done = _cli("check", "--module", "exits_on_import", cwd=tmp_path)
        assert done.returncode == 2
        assert "exits_on_import: cannot be imported (SystemExit)" in done.stdout
