"""
MCP tools from real servers over stdio (and streamable HTTP on loopback): the demo server written with the SDK
(``llm_wire.demo.mcp_server``) and the packaged reference server ``mcp-server-time``. No SDK part is mocked.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp_rough_server as rough_server
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_wire import admission, config, mcp, request, user
from llm_wire.agent import (
    ErrorCategory,
    OutputValidation,
    Runner,
    SideEffect,
    StopReason,
    ToolInvocation,
    ToolProvider,
)
from llm_wire.agent.scripted import ScriptedClient, call, reply
from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.mcp._declare import wire_arguments
from llm_wire.mcp._provider import tool_outcome_of
from llm_wire.mcp._transport import Lines, Oversized, request_id, with_param_headers
from llm_wire.message import Provider, ToolCall
from llm_wire.names import NameCollision, Named
from llm_wire.result import Err, Ok, unwrap
from llm_wire.tool import InputNotObject, InvalidSchema, ToolCallChecks
from llm_wire.value import DEFAULT, Value

DEMO = mcp.Stdio(sys.executable, ("-m", "llm_wire.demo.mcp_server"))
TIME = mcp.Stdio(sys.executable, ("-m", "mcp_server_time", "--local-timezone", "UTC"))


@pytest.fixture(scope="module")
def quiet() -> Iterator[TextIO]:
    """The servers' stderr (their logs), kept out of the test output."""
    with open(os.devnull, "w") as null:
        yield null


@pytest.fixture(scope="module")
def demo(quiet: TextIO) -> Iterator[mcp.McpClient]:
    """One connection to the demo server for the module."""
    with mcp.McpClient(DEMO, errlog=quiet) as client:
        yield client


@pytest.fixture(scope="module")
def listing(demo: mcp.McpClient) -> mcp.Listing:
    """The demo server's tools."""
    return unwrap(demo.list_tools())


class TestListing:
    """Tools are listed page by page and declared; what cannot be honoured is left out, typed."""

    def test_every_page_is_followed(self, listing: mcp.Listing) -> None:
        """The server lists two tools a page; every declared tool arrives, in listing order."""
        assert [t.name for t in listing.tools] == [
            "add",
            "inspect",
            "fail",
            "bad_output",
            "files.read",
            "sleep",
        ]

    def test_dotted_name_is_mangled(self, listing: mcp.Listing) -> None:
        """``files.read`` is declared as ``files_2e_read`` and maps back."""
        found = listing.find("files_2e_read")
        assert found is not None
        assert found.name == "files.read"
        assert listing.names.original("files_2e_read") is not None

    def test_remote_reference_is_left_out(self, listing: mcp.Listing) -> None:
        """A remote ``$ref`` refuses the tool with the path and keyword, never loosened."""
        (left,) = listing.refused
        assert left.name == "remote_ref"
        assert left.schema is mcp.SchemaField.INPUT
        assert isinstance(left.error, InvalidSchema)
        assert left.error.load_error.keyword == "$ref"
        assert left.error.load_error.path == ("properties", "x")

    def test_output_schema_and_hints(self, listing: mcp.Listing) -> None:
        """``outputSchema`` is compiled; annotations are kept as untrusted hints."""
        add = listing.find("add")
        assert add is not None
        assert add.output is not None
        assert add.hints == mcp.Hints(read_only=True, idempotent=True, open_world=False)

    def test_declared_tools_are_admitted(self, listing: mcp.Listing) -> None:
        """The declared tools are plain ``Tool``s: admission checks calls against them."""
        calls = [
            ToolCall("c1", "add", '{"a": 1, "b": 2.5}'),
            ToolCall("c2", "add", '{"a": "1", "b": 2}'),
        ]
        admitted = unwrap(admission.admit(calls, listing.declared(), ToolCallChecks.REPORT))
        assert [a.call.id for a in admitted.admitted] == ["c1"]
        assert [issue.call_id for issue in admitted.issues] == ["c2"]


class TestCall:
    """Calls go to the server with the exact admitted arguments; results come back typed."""

    def test_structured_result(self, demo: mcp.McpClient, listing: mcp.Listing) -> None:
        """``structuredContent`` is exact JSON and passes the output schema."""
        result = unwrap(demo.call("add", {"a": 1, "b": Decimal("0.25")}))
        assert result.structured == {"sum": Decimal("1.25")}
        assert result.text() == "1.25"
        add = listing.find("add")
        assert add is not None
        assert mcp.check_output(add, result) == Ok({"sum": Decimal("1.25")})

    def test_numbers_arrive_as_numbers(self, demo: mcp.McpClient) -> None:
        """A ``Decimal`` reaches the server as a JSON number with its digits, never a string."""
        arguments: Value = {"d": Decimal("0.1"), "big": 12345678901234567890123, "i": Decimal("1E+3")}
        seen: Any = unwrap(demo.call("inspect", arguments)).structured
        assert {key: seen[key]["type"] for key in seen} == {"d": "number", "big": "number", "i": "number"}
        assert seen["d"]["json"] == "0.1"
        assert seen["big"]["json"] == "12345678901234567890123"
        assert seen["i"]["json"] == "1000"

    def test_inexact_number_is_not_sent(self, demo: mcp.McpClient) -> None:
        """A number the SDK cannot carry exactly is refused before anything is sent."""
        refused = demo.call("inspect", {"x": [Decimal("0.1000000000000000000001")]})
        assert refused == Err(mcp.InexactNumber(("x", 0)))
        assert "0.1" not in str(refused.error)

    def test_invalid_arguments_are_not_sent(self, demo: mcp.McpClient) -> None:
        """Arguments outside the input schema are refused with the schema failure."""
        refused = demo.call("files_2e_read", {"path": "relative"})
        assert isinstance(refused, Err)
        assert isinstance(refused.error, mcp.ArgumentsRefused)
        assert refused.error.failure.name == "schema_rejected"

    def test_is_error(self, demo: mcp.McpClient) -> None:
        """``isError`` comes back as a result with its text."""
        result = unwrap(demo.call("fail", {}))
        assert result.is_error
        assert result.text() == "this tool always fails"

    def test_output_outside_its_schema(self, demo: mcp.McpClient, listing: mcp.Listing) -> None:
        """Structured content that breaks the output schema is reported with its path."""
        result = unwrap(demo.call("bad_output", {}))
        tool = listing.find("bad_output")
        assert tool is not None
        checked = mcp.check_output(tool, result)
        assert isinstance(checked, Err)
        assert isinstance(checked.error, mcp.OutputRejected)
        assert checked.error.errors[0].path == ("count",)

    def test_unknown_wire_name(self, demo: mcp.McpClient) -> None:
        """A name the listing does not hold is refused without a request."""
        assert demo.call("remote_ref", {}) == Err(mcp.UnknownMcpTool("remote_ref"))

    def test_timeout_fires(self, quiet: TextIO) -> None:
        """A call slower than ``McpLimits.timeout`` is ``TimedOut``, within a generous bound."""
        limits = mcp.McpLimits(timeout=0.5)
        with mcp.McpClient(DEMO, limits=limits, errlog=quiet) as client:
            started = time.monotonic()
            assert client.call("sleep", {"seconds": 2}) == Err(mcp.TimedOut("tools/call", 0.5))
            assert time.monotonic() - started < 30

    def test_wrong_type(self, demo: mcp.McpClient) -> None:
        """A wrong Python type is a ``TypeError`` naming the parameter."""
        with pytest.raises(TypeError, match="wire_name must be a str"):
            demo.call(3, {})  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="server must be"):
            mcp.McpClient("python")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="args must be a sequence of str"):
            mcp.Stdio("python", "-m")
        with pytest.raises(ValueError, match=r"McpLimits\.timeout"):
            mcp.McpLimits(timeout=0)

    def test_wrong_type_of_the_new_parameters(self, demo: mcp.McpClient, listing: mcp.Listing) -> None:
        """``era``, ``timeout`` and ``progress`` of the wrong type are ``TypeError``s naming them."""
        add = listing.find("add")
        assert add is not None
        with pytest.raises(TypeError, match="era must be an Era"):
            mcp.McpClient(DEMO, era="stateless")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="timeout must be a number"):
            demo.call_tool(add, {"a": 1, "b": 2}, timeout="1")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="progress must be an async callable"):
            demo.call_tool(add, {"a": 1, "b": 2}, progress=3)  # type: ignore[arg-type]


ROUGH = mcp.Stdio(sys.executable, (str(Path(__file__).with_name("mcp_rough_server.py")),))


@pytest.fixture(scope="module")
def rough(quiet: TextIO) -> Iterator[mcp.McpClient]:
    """One connection to the rough server for the module."""
    with mcp.McpClient(ROUGH, errlog=quiet) as client:
        yield client


class TestServerErrors:
    """A server's JSON-RPC error is the server's, whatever its code: typed, with the code, not retried."""

    @pytest.mark.parametrize("code", [-32000, -32001, -32603, -32601, -32099, 0, 7])
    def test_a_server_error_is_request_failed(self, rough: mcp.McpClient, code: int) -> None:
        """-32000 is no lost connection, -32001 no timeout: each is ``RequestFailed`` with its code."""
        started = time.monotonic()
        failed = rough.call("answer_error", {"code": code})
        assert failed == Err(mcp.RequestFailed("tools/call", code))
        assert time.monotonic() - started < 10
        assert rough_server.SECRET not in str(failed.error)
        assert unwrap(rough.call("echo", {})).text() == "ok"  # the connection is still up

    @pytest.mark.parametrize("code", [-32000, -32001, -32603])
    def test_its_outcome_is_not_retryable(self, rough: mcp.McpClient, code: int) -> None:
        """The model sees an ``internal`` failure carrying the code, with ``retryable: false``."""
        tools = unwrap(mcp.provider(rough))
        answer = next(d for d in tools.descriptors() if d.name == "answer_error")
        outcome = anyio.run(tools.invoke, unwrap(ToolInvocation.of(answer, f'{{"code": {code}}}')))
        assert outcome.failure is not None
        assert (outcome.category, outcome.failure.retryable) == (ErrorCategory.INTERNAL, False)
        assert outcome.failure.details == {"jsonrpc_code": code}
        assert rough_server.SECRET not in outcome.model_text()

    def test_invalid_params_is_invalid_input(self) -> None:
        """-32602 is the server refusing the arguments: ``invalid_input``, not retried."""
        listing = mcp.declare([{"name": "t", "inputSchema": {"type": "object"}}])
        refused = Err(mcp.RequestFailed("tools/call", -32602, "bad"))
        outcome = tool_outcome_of(listing.tools[0], refused, OutputValidation.STRICT)
        assert outcome.failure is not None
        assert (outcome.category, outcome.failure.retryable) == (ErrorCategory.INVALID_INPUT, False)

    def test_a_server_that_dies_is_connection_closed(self, quiet: TextIO) -> None:
        """A connection that really ends during a call is still ``ConnectionClosed``."""
        with mcp.McpClient(ROUGH, errlog=quiet) as client:
            assert client.call("die", {}) == Err(mcp.ConnectionClosed("tools/call"))
            assert client.call("echo", {}) == Err(mcp.ConnectionClosed("tools/call"))


class TestResultBound:
    """A message over the bound is refused as it is read: quickly, in bounded memory, connection kept."""

    def test_a_40_mb_result_is_refused_while_read(self, quiet: TextIO) -> None:
        """40 MB against 1 MiB bounds: ``LimitExceeded`` before the SDK could buffer it, in little memory."""
        small = DEFAULT.with_max_bytes(1 << 20)
        limits = mcp.McpLimits(result=small, listing=small)
        with mcp.McpClient(ROUGH, limits=limits, errlog=quiet) as client:
            unwrap(client.list_tools())
            tracemalloc.start()
            try:
                started = time.monotonic()
                refused = client.call("huge", {"size": 40_000_000})
                elapsed = time.monotonic() - started
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert refused == Err(LimitExceeded("McpLimits.result", 1 << 20))
            assert "McpLimits.result" in str(refused.error)
            assert elapsed < 5
            assert peak < 24 << 20
            assert unwrap(client.call("echo", {})).text() == "ok"
            assert isinstance(client.call("huge", {"size": 1000}), Ok)

    def test_the_default_bounds_hold_too(self, rough: mcp.McpClient) -> None:
        """Under the default limits the same result is refused, typed, and the connection stays usable."""
        refused = rough.call("huge", {"size": 40_000_000})
        assert refused == Err(LimitExceeded("McpLimits.result", mcp.McpLimits().result.max_bytes))
        assert unwrap(rough.call("echo", {})).text() == "ok"

    def test_an_oversized_message_without_its_id_first_ends_the_connection(self, quiet: TextIO) -> None:
        """When the id is not at a long line's start, the connection ends: the call is ``LimitExceeded``."""
        small = DEFAULT.with_max_bytes(1 << 20)
        limits = mcp.McpLimits(result=small, listing=small)
        server = mcp.Stdio(sys.executable, ("-c", _ID_LAST_SERVER))
        with mcp.McpClient(server, limits=limits, errlog=quiet) as client:
            started = time.monotonic()
            assert client.call("huge", {}) == Err(LimitExceeded("McpLimits.result", 1 << 20))
            assert time.monotonic() - started < 10

    @settings(max_examples=200)
    @given(
        st.lists(st.binary(max_size=40).filter(lambda b: b"\n" not in b), max_size=8),
        st.integers(min_value=1, max_value=24),
        st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=20),
    )
    def test_lines_cut_anywhere(self, lines: list[bytes], limit: int, cuts: list[int]) -> None:
        """However the bytes are cut, each line comes whole, or over the bound as its head alone, in order."""
        data = b"".join(line + b"\n" for line in lines)
        splitter, seen, at = Lines(limit), [], 0
        for size in cuts * (len(data) // max(1, sum(cuts)) + 1):
            seen += splitter.feed(data[at : at + size])
            at += size
        seen += splitter.feed(data[at:])
        assert len(seen) == len(lines)
        for line, got in zip(lines, seen, strict=True):
            if len(line) <= limit:
                assert got == line
            else:  # its head: the start of the line, as much as had come when it passed the bound
                assert isinstance(got, Oversized)
                assert line.startswith(got.head)
                assert len(got.head) >= min(256, limit + 1)

    def test_request_id_of_a_head(self) -> None:
        """The id a line answers is read from its start, as SDKs write it; anything else has none."""
        assert request_id(b'{"jsonrpc":"2.0","id":12,"result":{"content"') == 12
        assert request_id(b'{"id": "a-1", "jsonrpc": "2.0"') == "a-1"
        assert request_id(b'{"jsonrpc":"2.0","result":{},"id":3}') is None
        assert request_id(b'{"jsonrpc":"2.0","method":"notifications/message"') is None


#: A stdio server written by hand: JSON-RPC lines with the id last, and a 40 MB result for ``huge``.
_ID_LAST_SERVER = """
import json, sys
def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()
tool = {"name": "huge", "inputSchema": {"type": "object"}}
for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    if request["method"] == "initialize":
        info = {"name": "id-last", "version": "1"}
        result = {"protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": info}
    elif request["method"] == "tools/list":
        result = {"tools": [tool]}
    else:
        result = {"content": [{"type": "text", "text": "x" * 40_000_000}]}
    send({"jsonrpc": "2.0", "result": result, "id": request["id"]})
"""


class TestConnect:
    """A server that cannot start is a typed failure, never an exception."""

    def test_missing_command(self) -> None:
        """A command that does not exist is ``ConnectFailed``."""
        with mcp.McpClient(mcp.Stdio("/nonexistent/llm-wire-server")) as client:
            refused = client.list_tools()
        assert refused == Err(mcp.ConnectFailed("the server could not be started (FileNotFoundError)"))
        assert str(refused.error).startswith("could not connect to the MCP server")

    def test_server_that_exits(self, quiet: TextIO) -> None:
        """A command that exits without speaking MCP is ``ConnectFailed``, not a hang."""
        exits = mcp.Stdio(sys.executable, ("-c", "pass"))
        with mcp.McpClient(exits, errlog=quiet) as client:
            refused = client.list_tools()
        assert refused == Err(
            mcp.ConnectFailed("the server closed the connection before answering initialize")
        )

    def test_the_blocks_exception_comes_back(self, quiet: TextIO) -> None:
        """An exception raised inside the ``with`` block reaches the caller as itself, not wrapped."""
        mine = KeyError("mine")

        def block() -> None:
            with mcp.McpClient(DEMO, errlog=quiet) as client:
                assert isinstance(client.list_tools(), Ok)
                raise mine

        with pytest.raises(KeyError) as raised:
            block()
        assert raised.value is mine

    def test_pages_are_bounded(self, quiet: TextIO) -> None:
        """More pages than ``McpLimits.pages`` is a ``LimitExceeded`` naming the setting."""
        with mcp.McpClient(DEMO, limits=mcp.McpLimits(pages=2), errlog=quiet) as client:
            refused = client.list_tools()
        assert isinstance(refused, Err)
        assert isinstance(refused.error, LimitExceeded)
        assert refused.error.setting == "McpLimits.pages"

    def test_async_client_and_http(self) -> None:
        """The async client over streamable HTTP on loopback lists, calls, and serves as a provider."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen(
            [sys.executable, "-m", "llm_wire.demo.mcp_server", "--http", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for(port)

            async def session() -> tuple[int, Any, Any]:
                endpoint = mcp.StreamableHttp(f"http://127.0.0.1:{port}/mcp", {"Authorization": "Bearer t"})
                async with mcp.AsyncMcpClient(endpoint) as client:
                    listing = unwrap(await client.list_tools())
                    result = unwrap(await client.call("add", {"a": 2, "b": 3}))
                    tools = unwrap(await mcp.aprovider(client))
                    add = next(d for d in tools.descriptors() if d.name == "add")
                    outcome = await tools.invoke(unwrap(ToolInvocation.of(add, '{"a": 1, "b": 1}')))
                    return len(listing.tools), result.structured, outcome.data

            assert anyio.run(session) == (6, {"sum": 5}, {"sum": 2})
        finally:
            server.terminate()
            server.wait(timeout=30)


def _wait_for(port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError("the HTTP server did not start")


class TestPackagedServer:
    """The reference ``mcp-server-time`` from the package index."""

    def test_list_and_call(self, quiet: TextIO) -> None:
        """Its two tools load with output schemas; a valid call validates, a bad timezone is an error."""
        with mcp.McpClient(TIME, errlog=quiet) as client:
            listing = unwrap(client.list_tools())
            assert [t.name for t in listing.tools] == ["get_current_time", "convert_time"]
            assert listing.refused == ()
            now = unwrap(client.call("get_current_time", {"timezone": "Europe/Oslo"}))
            tool = listing.find("get_current_time")
            assert tool is not None
            checked: Any = unwrap(mcp.check_output(tool, now))
            assert checked["timezone"] == "Europe/Oslo"
            bad = unwrap(client.call("get_current_time", {"timezone": "Nowhere/Nothing"}))
            assert bad.is_error
            assert isinstance(client.call("get_current_time", {"zone": "UTC"}), Err)


class TestDeclare:
    """Declaring a saved ``tools/list`` result, with no server."""

    def test_refusals(self) -> None:
        """A malformed entry, a non-object schema and a wire-name collision are each left out, typed."""
        tools: list[Value] = [
            {"name": "ok", "inputSchema": {"type": "object"}},
            "not a tool",
            {"name": "text", "inputSchema": {"type": "string"}},
            {"name": "a.b", "inputSchema": {"type": "object"}},
            {"name": "a_2e_b", "inputSchema": {"type": "object"}},
            {
                "name": "out",
                "inputSchema": {"type": "object"},
                "outputSchema": {"type": "object", "x-no": 1, "if": 3},
            },
        ]
        listing = mcp.declare(tools)
        assert [t.name for t in listing.tools] == ["ok"]
        kinds = [(left.index, type(left.error).__name__) for left in listing.refused]
        assert kinds == [
            (1, "ProtocolError"),
            (2, "InputNotObject"),
            (3, "NameCollision"),
            (4, "NameCollision"),
            (5, "InvalidSchema"),
        ]
        assert isinstance(listing.refused[1].error, InputNotObject)
        collision = NameCollision("a_2e_b", Named(None, "a.b"), Named(None, "a_2e_b"))
        assert listing.refused[2].error == listing.refused[3].error == collision
        assert listing.refused[4].schema is mcp.SchemaField.OUTPUT

    def test_prefix(self) -> None:
        """A prefix names every tool of the server."""
        listing = mcp.declare([{"name": "search", "inputSchema": {"type": "object"}}], prefix="web")
        assert [t.wire_name for t in listing.tools] == ["web_search"]

    def test_a_task_only_tool_is_left_out(self) -> None:
        """A tool that can only be called as a task (the tasks extension) is left out, typed."""
        entry: dict[str, Value] = {"name": "research", "inputSchema": {"type": "object"}}
        entry["execution"] = {"taskSupport": "required"}
        listing = mcp.declare([entry, {**entry, "name": "quick", "execution": {"taskSupport": "optional"}}])
        assert [t.name for t in listing.tools] == ["quick"]
        (left,) = listing.refused
        assert isinstance(left.error, ProtocolError)
        assert left.describe().endswith("the tool can only be called as a task, which this client does not")

    def test_x_mcp_header_declarations(self) -> None:
        """With ``param_headers`` a valid declaration is kept for calls; a broken one leaves the tool out."""
        region: dict[str, Value] = {"type": "string", "x-mcp-header": "Region"}
        listed: dict[str, Value] = {"region": region}
        broken: dict[str, Value] = {"r": {**region, "type": "array"}}
        tools: list[Value] = [
            {"name": "good", "inputSchema": {"type": "object", "properties": listed}},
            {"name": "bad", "inputSchema": {"type": "object", "properties": broken}},
        ]
        listing = mcp.declare(tools, param_headers=True)
        assert [(t.name, dict(t.param_headers)) for t in listing.tools] == [("good", {("region",): "Region"})]
        (left,) = listing.refused
        assert (left.name, left.schema) == ("bad", mcp.SchemaField.INPUT)
        assert "array" not in left.describe()  # the server's words stay out of the text
        assert [t.name for t in mcp.declare(tools).tools] == ["good", "bad"]  # the handshake era: annotations

    def test_param_headers_reach_the_message(self) -> None:
        """A ``tools/call`` gets its ``Mcp-Param-*`` headers; other messages are left as they are."""
        import mcp_types
        from mcp.shared.message import ClientMessageMetadata, SessionMessage

        def message(method: str, arguments: dict[str, Any]) -> SessionMessage:
            params = {"name": "good", "arguments": arguments}
            request = mcp_types.JSONRPCRequest(jsonrpc="2.0", id=1, method=method, params=params)
            return SessionMessage(request, ClientMessageMetadata(headers={"mcp-method": method}))

        table: dict[str, dict[tuple[str, ...], str]] = {"good": {("region",): "Region"}}
        sent = with_param_headers(message("tools/call", {"region": "été"}), table)
        mirrored = {"mcp-method": "tools/call", "Mcp-Param-Region": "=?base64?w6l0w6k=?="}
        assert sent.metadata.headers == mirrored
        other = message("tools/list", {"region": "x"})
        assert with_param_headers(other, table) is other

    @settings(max_examples=60)
    @given(
        st.recursive(
            st.none() | st.booleans() | st.text(max_size=5) | st.integers(),
            lambda inner: (
                st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
            ),
            max_leaves=12,
        )
    )
    def test_any_entry_is_declared_or_left_out(self, entry: Any) -> None:
        """Whatever an entry holds, it is declared or left out; nothing raises."""
        listing = mcp.declare([entry, {"name": "x", "inputSchema": entry}])
        assert len(listing.tools) + len(listing.refused) == 2


class TestWireArguments:
    """Numbers keep their value on the way to the SDK."""

    @given(st.decimals(allow_nan=False, allow_infinity=False))
    def test_exact_or_refused(self, number: Decimal) -> None:
        """Each Decimal becomes an int or float of the same value, or is refused: never a string."""
        match wire_arguments({"n": number}):
            case Ok(plain):
                sent = plain["n"]
                assert isinstance(sent, int | float)
                assert Decimal(repr(sent)) == number
            case Err(refused):
                assert refused == mcp.InexactNumber(("n",))


class TestProvider:
    """The MCP tools as a ``ToolProvider``: descriptors, dispatch and outcomes."""

    def _invoke(self, demo: mcp.McpClient, name: str, arguments: str, **options: Any) -> Any:
        made = unwrap(mcp.provider(demo, **options))
        descriptor = next(d for d in made.descriptors() if d.name == name)
        invocation: ToolInvocation = unwrap(ToolInvocation.of(descriptor, arguments))
        return anyio.run(made.invoke, invocation)

    def test_descriptors(self, demo: mcp.McpClient) -> None:
        """Hints are ignored unless trusted: untrusted tools may destroy."""
        plain = unwrap(mcp.provider(demo))
        conforms: ToolProvider = plain
        assert isinstance(conforms, ToolProvider)
        trusted = unwrap(mcp.provider(demo, trust_hints=True))
        assert {d.contract.side_effect for d in plain.descriptors()} == {SideEffect.DESTRUCTIVE}
        add = next(d for d in trusted.descriptors() if d.name == "add")
        assert add.contract.side_effect is SideEffect.READ
        assert add.contract.output_schema is not None
        assert [left.name for left in plain.refused] == ["remote_ref"]

    def test_success_with_data(self, demo: mcp.McpClient) -> None:
        """``structuredContent`` becomes the outcome's data."""
        outcome = self._invoke(demo, "add", '{"a": 0.1, "b": 0.2}')
        assert outcome.ok
        assert outcome.data == {"sum": Decimal(repr(0.1 + 0.2))}

    def test_blocks_kept(self, demo: mcp.McpClient) -> None:
        """Text becomes content; an image becomes a data URI artifact; every block stays in metadata."""
        outcome = self._invoke(demo, "files_2e_read", '{"path": "/etc/motd"}')
        assert outcome.content == "pretend contents"
        assert outcome.artifacts == ("data:image/png;base64,iVBORw0KGgo=",)
        assert '"type":"image"' in outcome.metadata["mcp.content"]

    def test_is_error_is_a_failure(self, demo: mcp.McpClient) -> None:
        """``isError`` is a failed outcome carrying the tool's text."""
        outcome = self._invoke(demo, "fail", "{}")
        assert not outcome.ok
        assert outcome.failure.message == "this tool always fails"

    def test_output_validation_modes(self, demo: mcp.McpClient) -> None:
        """A bad output fails under STRICT, is noted under WARN, passes under DISABLED."""
        strict = self._invoke(demo, "bad_output", "{}")
        assert strict.failure.code == "output_schema"
        warn = self._invoke(demo, "bad_output", "{}", output_validation=OutputValidation.WARN)
        assert warn.ok
        assert "mcp.output_problem" in warn.metadata
        off = self._invoke(demo, "bad_output", "{}", output_validation=OutputValidation.DISABLED)
        assert off.ok
        assert off.data == {"count": -1}

    def test_collision_between_servers(self, demo: mcp.McpClient, quiet: TextIO) -> None:
        """Two servers without prefixes whose tools share a wire name are refused loudly."""
        with mcp.McpClient(DEMO, errlog=quiet) as again:
            refused = mcp.provider(demo, again)
            assert isinstance(refused, Err)
            assert isinstance(refused.error, NameCollision)
            with mcp.McpClient(DEMO, prefix="two", errlog=quiet) as second:
                both = unwrap(mcp.provider(demo, second))
                assert "two_add" in [d.name for d in both.descriptors()]
                two_add = next(d for d in both.descriptors() if d.name == "two_add")
                outcome = anyio.run(both.invoke, unwrap(ToolInvocation.of(two_add, '{"a": 1, "b": 1}')))
                assert outcome.data == {"sum": 2}

    def test_timeout_outcome(self) -> None:
        """A timeout maps to a retryable ``timeout`` outcome."""
        listing = mcp.declare([{"name": "t", "inputSchema": {"type": "object"}}])
        outcome = tool_outcome_of(
            listing.tools[0], Err(mcp.TimedOut("tools/call", 1.0)), OutputValidation.STRICT
        )
        assert outcome.category is ErrorCategory.TIMEOUT
        assert outcome.failure is not None
        assert outcome.failure.retryable


class TestRunner:
    """The MCP tools under the runner: admitted, dispatched to the server, answered, and the loop goes on."""

    def test_a_run(self, demo: mcp.McpClient) -> None:
        """A refused call is told to the model, the fixed one runs on the server, the model answers."""
        model = ScriptedClient(
            [
                reply("", call("files_2e_read", '{"path": "etc/motd"}')),
                reply("", call("files_2e_read", '{"path": "/etc/motd"}'), call("add", '{"a": 0.5, "b": 2}')),
                reply("Read it; 2.5."),
            ]
        )
        runner = Runner(model, config(Provider.OPENAI_CHAT), unwrap(mcp.provider(demo)), max_tool_rounds=4)
        result = anyio.run(runner.arun, request("any-model", [user("Read /etc/motd, and add 0.5 and 2.")]))
        assert result.stop is StopReason.ANSWERED
        outcomes = [record.outcome for record in result.calls]
        assert [o.ok for o in outcomes] == [False, True, True]
        assert outcomes[1].content == "pretend contents"
        assert outcomes[2].data == {"sum": Decimal("2.5")}
