"""The connection: servers, bounds, the async client and its twin on a thread, one boundary for the SDK."""

from __future__ import annotations

import enum
import json
import math
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, suppress
from functools import partial
from types import MappingProxyType, TracebackType
from typing import Any, TextIO, TypeAlias

import anyio
from attrs import field, frozen

from llm_wire import _public
from llm_wire import contract as _contract
from llm_wire.admission import SchemaRejected
from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.mcp._declare import (
    CallResult,
    Listing,
    McpTool,
    declare,
    wire_arguments,
)
from llm_wire.mcp._errors import (
    ArgumentsRefused,
    ConnectFailed,
    ConnectionClosed,
    McpError,
    RequestFailed,
    TimedOut,
    UnknownMcpTool,
)
from llm_wire.mcp._face import FACE as _FACE
from llm_wire.mcp._transport import Watch, bounded_stdio, watched
from llm_wire.result import Err, Ok, Result
from llm_wire.value import DEFAULT, Limits, Value, parse

__all__ = [
    "Era",
    "Progress",
    "Stdio",
    "StreamableHttp",
    "Server",
    "McpLimits",
    "AsyncMcpClient",
    "McpClient",
]

# ---------------------------------------------------------------------------------------------------------
# Servers and bounds


def _strings(args: Sequence[str]) -> tuple[str, ...]:
    if isinstance(args, str) or not all(isinstance(arg, str) for arg in args):
        raise TypeError("args must be a sequence of str")
    return tuple(args)


@frozen
class Stdio:
    """A server started as a subprocess that speaks MCP over its stdin and stdout."""

    command: str
    args: tuple[str, ...] = field(default=(), converter=_strings)
    #: Variables set over the SDK's safe default environment (``PATH``, ``HOME``...).
    env: Mapping[str, str] | None = None
    cwd: str | None = None


def _headers(headers: Mapping[str, str]) -> Mapping[str, str]:
    if not isinstance(headers, Mapping) or not all(isinstance(v, str) for kv in headers.items() for v in kv):
        raise TypeError("headers must map str to str")
    return MappingProxyType(dict(headers))


@frozen
class StreamableHttp:
    """A server reached over MCP's streamable HTTP transport at ``url``, sent ``headers`` (such as auth)."""

    url: str
    headers: Mapping[str, str] = field(factory=dict, converter=_headers, repr=False)


Server: TypeAlias = Stdio | StreamableHttp


class Era(enum.Enum):
    """
    How a connection starts, and so which protocol revisions it can speak: the ``initialize`` handshake
    (2024-11-05 to 2025-11-25, a session per connection), the stateless 2026-07-28 revision
    (``server/discover``, then every request carries its own ``_meta``), or ``AUTO``: ``server/discover``
    first, and the handshake when the server does not answer it.
    """

    HANDSHAKE = "handshake"
    STATELESS = "stateless"
    AUTO = "auto"


#: Called with each progress notification of a call: ``progress``, ``total`` (``None`` when unknown) and
#: the server's message (``None`` when it sent none).
Progress: TypeAlias = Callable[[float, float | None, str | None], Awaitable[None]]


_LISTING = DEFAULT.with_max_bytes(16 << 20)
#: Room for a message's JSON-RPC envelope beyond the larger of the result and listing bounds.
_ENVELOPE = 64 << 10


@frozen
class McpLimits:
    """Bounds on one connection: listing pages and tools, request time, and the size of what comes back."""

    #: ``tools/list`` pages followed at most.
    pages: int = 100
    #: Tools listed at most, over all pages.
    tools: int = 10_000
    #: Seconds a request (a listing page, a call) may take.
    timeout: float = 60.0
    #: Seconds the server may take to start and answer ``initialize``.
    start: float = 60.0
    #: Bounds on one listing page as JSON (schemas can be large: 16 MiB).
    listing: Limits = _LISTING
    #: Bounds on one call result as JSON. Over stdio, a message longer than the larger of the two byte
    #: bounds (and 64 KiB for its envelope) is refused while it is read, never buffered whole.
    result: Limits = DEFAULT

    def __attrs_post_init__(self) -> None:
        for name in ("pages", "tools"):
            count = getattr(self, name)
            if type(count) is not int or count < 1:
                raise ValueError(f"McpLimits.{name} must be a positive int")
        for name in ("timeout", "start"):
            seconds = getattr(self, name)
            if (
                isinstance(seconds, bool)
                or not isinstance(seconds, int | float)
                or not 0 < seconds < math.inf
            ):
                raise ValueError(f"McpLimits.{name} must be a positive number of seconds")


# ---------------------------------------------------------------------------------------------------------
# The client


def _as_value(model: Any, limits: Limits, setting: str) -> Result[Value, ProtocolError | LimitExceeded]:
    """A pydantic result as an exact, bounded JSON value (floats through their shortest text)."""
    try:
        text = json.dumps(model.model_dump(by_alias=True, mode="json", exclude_none=True), allow_nan=False)
    except (ValueError, RecursionError, TypeError):
        return Err(ProtocolError("an MCP result is not JSON"))
    match parse(text, limits):
        case Ok(found):
            return Ok(found)
        case Err(error):
            if isinstance(error.reason, LimitExceeded):
                return Err(
                    LimitExceeded(setting, error.reason.limit, error.reason.measured, what="an MCP result")
                )
            return Err(ProtocolError("an MCP result is not JSON within the limits"))


def _mapped(method: str, exc: BaseException, seconds: float, watch: Watch, limits: McpLimits) -> McpError:
    """
    One boundary for the SDK's failures. The SDK says "connection closed" with the code a server may send
    too (-32000), so the watch on the streams decides which it was; requests are timed here, not by the
    SDK, so a server's -32001 is the server's error too.
    """
    from mcp import MCPError
    from mcp_types import CONNECTION_CLOSED

    if isinstance(exc, BaseExceptionGroup):
        inner = exc.exceptions[0] if exc.exceptions else exc
        return _mapped(method, inner, seconds, watch, limits)
    if isinstance(exc, MCPError):
        if exc.data == watch.marker or (exc.code == CONNECTION_CLOSED and watch.ended and watch.oversized):
            setting, bound = (
                ("McpLimits.listing", limits.listing)
                if method == "tools/list"
                else ("McpLimits.result", limits.result)
            )
            return LimitExceeded(setting, bound.max_bytes, what="an MCP message")
        if exc.code == CONNECTION_CLOSED and watch.ended:
            return ConnectionClosed(method)
        return RequestFailed(method, exc.code, exc.message)
    if isinstance(exc, TimeoutError):
        return TimedOut(method, seconds)
    if isinstance(exc, OSError | EOFError) or type(exc).__module__.startswith("anyio"):
        return ConnectionClosed(method)
    return ProtocolError(f"the MCP server's answer to {method} is not what MCP says ({type(exc).__name__})")


class AsyncMcpClient:
    """
    One connection to an MCP server, as an async context manager. Entering never raises on a server that
    fails to start: the failure is what every later request returns.
    """

    def __init__(
        self,
        server: Server,
        *,
        prefix: str | None = None,
        limits: McpLimits = McpLimits(),
        errlog: TextIO | None = None,
        era: Era = Era.HANDSHAKE,
    ) -> None:
        if not isinstance(server, Stdio | StreamableHttp):
            raise TypeError(f"server must be a Stdio or StreamableHttp, not {type(server).__name__}")
        if not isinstance(limits, McpLimits):
            raise TypeError(f"limits must be a McpLimits, not {type(limits).__name__}")
        if not isinstance(era, Era):
            raise TypeError(f"era must be an Era, not {type(era).__name__}")
        self.server = server
        self.prefix = prefix
        self.limits = limits
        self.era = era
        self._errlog = errlog
        self._stack: AsyncExitStack | None = None
        self._session: Any = None
        self._failure: McpError | None = None
        self._listing: Listing | None = None
        self._watch = Watch(max(limits.result.max_bytes, limits.listing.max_bytes) + _ENVELOPE)

    def __repr__(self) -> str:
        state = "connected" if self._session is not None else "not connected"
        return f"<AsyncMcpClient {type(self.server).__name__} ({state})>"

    async def __aenter__(self) -> AsyncMcpClient:
        import anyio
        from mcp import ClientSession

        stack = AsyncExitStack()
        try:
            read, write = await self._open(stack)
            session = await stack.enter_async_context(ClientSession(read, write))
            with anyio.fail_after(self.limits.start):
                await _start(session, self.era)
        except Exception as exc:
            await _close_quietly(stack)
            method = "initialize" if self.era is Era.HANDSHAKE else "server/discover"
            self._failure = _start_failure(method, exc, self.limits.start, self._watch, self.limits)
            return self
        self._stack = stack
        self._session = session
        return self

    @property
    def protocol_version(self) -> str | None:
        """The protocol revision the connection speaks (``2025-11-25``, ``2026-07-28``...), or ``None``."""
        return None if self._session is None else self._session.protocol_version

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        stack, self._stack, self._session = self._stack, None, None
        if stack is None:
            return
        try:
            await stack.__aexit__(kind, exc, traceback)
        except BaseException as raised:
            leaves = _leaves(raised)
            failures_only = all(isinstance(leaf, Exception) for leaf in leaves)
            if exc is not None and (any(leaf is exc for leaf in leaves) or failures_only):
                # The SDK's task groups wrap what the block raised: give the caller back its own exception.
                raise exc from None
            if failures_only:
                return  # the connection broke while closing: nothing is left to act on
            raise

    async def _open(self, stack: AsyncExitStack) -> Any:
        return watched(await self._streams(stack), self._watch)

    async def _streams(self, stack: AsyncExitStack) -> Any:
        if isinstance(self.server, Stdio):
            server = self.server
            env = dict(server.env) if server.env is not None else None
            errlog = self._errlog or sys.stderr
            return await stack.enter_async_context(
                bounded_stdio(server.command, server.args, env, server.cwd, errlog, self._watch)
            )
        from mcp.client.streamable_http import streamable_http_client

        http = None
        if self.server.headers:
            import httpx2

            # The SDK's own defaults for MCP (a server may hold a response stream open), with the headers.
            timeout = httpx2.Timeout(30.0, read=300.0)
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=dict(self.server.headers), timeout=timeout)
            )
        return await stack.enter_async_context(streamable_http_client(self.server.url, http_client=http))

    async def list_tools(self) -> Result[Listing, McpError]:
        """
        Every tool the server lists, page after page, declared (``declare``); ``call`` uses the listing.
        """
        if self._session is None:
            return Err(self._failure or ConnectionClosed("tools/list"))
        import mcp.types as types
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        entries: list[Value] = []
        cursor: str | None = None
        for _ in range(self.limits.pages):
            try:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
                with anyio.fail_after(self.limits.timeout):
                    page = await self._session.send_request(
                        types.ListToolsRequest(params=params), types.ListToolsResult
                    )
            except Exception as exc:
                return Err(_mapped("tools/list", exc, self.limits.timeout, self._watch, self.limits))
            match _as_value(page, self.limits.listing, "McpLimits.listing"):
                case Err(problem):
                    return Err(problem)
                case Ok(found):
                    pass
            listed = found.get("tools") if isinstance(found, dict) else None
            if not isinstance(listed, list):
                return Err(ProtocolError("a tools/list result has no tools array"))
            entries.extend(listed)
            if len(entries) > self.limits.tools:
                return Err(
                    LimitExceeded("McpLimits.tools", self.limits.tools, len(entries), what="tools listed")
                )
            cursor = page.next_cursor
            if cursor is None:
                modern = self.protocol_version in MODERN_PROTOCOL_VERSIONS
                listing = declare(entries, prefix=self.prefix, param_headers=modern)
                self._listing = listing
                self._watch.param_headers = {
                    t.name: dict(t.param_headers) for t in listing.tools if t.param_headers
                }
                return Ok(listing)
        return Err(LimitExceeded("McpLimits.pages", self.limits.pages, what="tools/list pages"))

    async def call(self, wire_name: str, arguments: Value) -> Result[CallResult, McpError]:
        """
        Call a listed tool by its wire name: the arguments are checked against its input schema, then sent
        with every number exact (``wire_arguments``); the server's answer becomes a ``CallResult``.
        """
        if not isinstance(wire_name, str):
            raise TypeError(f"wire_name must be a str, not {type(wire_name).__name__}")
        if self._session is None:
            return Err(self._failure or ConnectionClosed("tools/call"))
        if self._listing is None:
            match await self.list_tools():
                case Err(problem):
                    return Err(problem)
        assert self._listing is not None
        found = self._listing.find(wire_name)
        if found is None:
            return Err(UnknownMcpTool(wire_name))
        return await self.call_tool(found, arguments)

    async def call_tool(
        self,
        tool: McpTool,
        arguments: Value,
        *,
        progress: Progress | None = None,
        timeout: float | None = None,
    ) -> Result[CallResult, McpError]:
        """
        ``call`` for a tool already found (``Listing.find``). ``progress`` is called with each progress
        notification the server sends for this call; ``timeout`` shortens ``McpLimits.timeout`` for it (a
        caller's deadline), and the request is cancelled when it passes.
        """
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)):
            raise TypeError(f"timeout must be a number of seconds or None, not {type(timeout).__name__}")
        if progress is not None and not callable(progress):
            raise TypeError(f"progress must be an async callable or None, not {type(progress).__name__}")
        seconds = self.limits.timeout if timeout is None else min(self.limits.timeout, max(timeout, 0.0))
        errors = _contract.validate_all(tool.tool.contract, arguments, limit=8)
        if errors:
            return Err(ArgumentsRefused(tool.wire_name, SchemaRejected(errors)))
        match wire_arguments(arguments):
            case Err(inexact):
                return Err(inexact)
            case Ok(plain):
                pass
        if self._session is None:
            return Err(self._failure or ConnectionClosed("tools/call"))
        import mcp.types as types

        request = types.CallToolRequest(params=types.CallToolRequestParams(name=tool.name, arguments=plain))
        try:
            # ``send_request``, not ``call_tool``: the SDK's own output check would raise on a bad result,
            # where the caller's output-validation mode decides (``check_output``).
            with anyio.fail_after(seconds):
                answer = await self._session.send_request(
                    request, types.CallToolResult, progress_callback=progress
                )
        except Exception as exc:
            return Err(_mapped("tools/call", exc, seconds, self._watch, self.limits))
        match _as_value(answer, self.limits.result, "McpLimits.result"):
            case Err(problem):
                return Err(problem)
            case Ok(found):
                pass
        assert isinstance(found, dict)
        content = found.get("content")
        blocks = tuple(content) if isinstance(content, list) else ()
        return Ok(CallResult(blocks, found.get("structuredContent"), found.get("isError") is True))


async def _start(session: Any, era: Era) -> None:
    """Start in ``era``: ``initialize``, ``server/discover``, or the latter and, on an error, the former."""
    if era is Era.HANDSHAKE:
        await session.initialize()
        return
    if era is Era.STATELESS:
        await session.discover()
        return
    from mcp import MCPError

    try:
        await session.discover()
    except (MCPError, RuntimeError):  # an error answer, or no modern revision in common: not a modern server
        await session.initialize()


def _start_failure(
    method: str, exc: BaseException, seconds: float, watch: Watch, limits: McpLimits
) -> McpError:
    inner = _innermost(exc)
    if isinstance(inner, OSError):
        return ConnectFailed(f"the server could not be started ({type(inner).__name__})", repr(inner))
    mapped = _mapped(method, exc, seconds, watch, limits)
    if isinstance(mapped, ConnectionClosed):
        return ConnectFailed(f"the server closed the connection before answering {method}", repr(inner))
    if isinstance(mapped, ProtocolError):
        return ConnectFailed(f"{method} failed ({type(inner).__name__})", repr(inner))
    return mapped


def _leaves(exc: BaseException) -> list[BaseException]:
    if not isinstance(exc, BaseExceptionGroup):
        return [exc]
    return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]


def _innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def _close_quietly(stack: AsyncExitStack) -> None:
    with suppress(Exception):  # the connection failed already; its own failure is what the caller sees
        await stack.aclose()


class McpClient:
    """
    ``AsyncMcpClient`` for code without an event loop: the connection runs on a thread of its own, and each
    method waits for its answer. Use it as a context manager.
    """

    def __init__(
        self,
        server: Server,
        *,
        prefix: str | None = None,
        limits: McpLimits = McpLimits(),
        errlog: TextIO | None = None,
        era: Era = Era.HANDSHAKE,
    ) -> None:
        self._client = AsyncMcpClient(server, prefix=prefix, limits=limits, errlog=errlog, era=era)
        self._portal: Any = None
        self._portal_cm: Any = None
        self._context: Any = None

    def __repr__(self) -> str:
        return repr(self._client).replace("AsyncMcpClient", "McpClient", 1)

    def __enter__(self) -> McpClient:
        from anyio.from_thread import start_blocking_portal

        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._context = self._portal.wrap_async_context_manager(self._client)
        self._context.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        context, portal_cm = self._context, self._portal_cm
        self._context = self._portal = self._portal_cm = None
        try:
            if context is not None:
                context.__exit__(kind, exc, traceback)
        finally:
            if portal_cm is not None:
                portal_cm.__exit__(None, None, None)

    def _run(self, function: Any, *args: Any) -> Any:
        if self._portal is None:
            raise RuntimeError("use the McpClient in a with block")
        return self._portal.call(function, *args)

    def list_tools(self) -> Result[Listing, McpError]:
        """``AsyncMcpClient.list_tools``."""
        result: Result[Listing, McpError] = self._run(self._client.list_tools)
        return result

    def call(self, wire_name: str, arguments: Value) -> Result[CallResult, McpError]:
        """``AsyncMcpClient.call``."""
        result: Result[CallResult, McpError] = self._run(self._client.call, wire_name, arguments)
        return result

    @property
    def era(self) -> Era:
        """How the connection starts (``AsyncMcpClient.era``)."""
        return self._client.era

    @property
    def protocol_version(self) -> str | None:
        """``AsyncMcpClient.protocol_version``."""
        return self._client.protocol_version

    def call_tool(
        self,
        tool: McpTool,
        arguments: Value,
        *,
        progress: Progress | None = None,
        timeout: float | None = None,
    ) -> Result[CallResult, McpError]:
        """``AsyncMcpClient.call_tool``; ``progress`` runs on the connection's own thread."""
        call = partial(self._client.call_tool, tool, arguments, progress=progress, timeout=timeout)
        result: Result[CallResult, McpError] = self._run(call)
        return result


_public.rehome("llm_wire.mcp", _FACE[__name__], globals())
