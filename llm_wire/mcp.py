"""
MCP tools: a live MCP server's tools declared, checked and called (extra ``mcp``, on the official SDK).

``AsyncClient`` connects to a server (``Stdio`` command or ``StreamableHttp`` URL), lists its tools following
``nextCursor``, declares each with ``tool.from_json_schema`` under its wire name (``llm_wire.names``), and
leaves out a tool whose name or schema cannot be honoured with its typed error (``LeftOut``), never loosened.
``call`` checks the arguments against the tool's contract and sends them with numbers as JSON numbers: an
integral ``Decimal`` as an ``int``, any other as the ``float`` whose shortest text is that very number, and a
number no float holds exactly is refused (``InexactNumber``), never sent as a string or rounded. ``Client``
is the same over a thread of its own, for code without an event loop. ``declare`` does the declaring alone,
for a saved ``tools/list`` result. Nothing raises on data: each failure is a typed value.

::

    McpError                           a request that did not give a usable answer
    ├── ConnectFailed(reason)             the server could not be started or would not initialize
    ├── RequestFailed(method, code)       the server answered with a JSON-RPC error
    ├── TimedOut(method, seconds)         no answer within ``McpLimits.timeout``
    ├── ConnectionClosed(method)          the server went away
    ├── UnknownMcpTool(name)              a call to a wire name the listing does not hold
    ├── ArgumentsRefused(name, failure)   arguments outside the tool's input schema
    ├── InexactNumber(path)               a number the SDK cannot carry exactly
    ├── ProtocolError(detail)             a result that is not what MCP says (``llm_wire.error``)
    └── LimitExceeded(setting, ...)       more pages, tools or bytes than ``McpLimits`` allows
"""

from __future__ import annotations

import enum
import json
import sys
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack, suppress
from decimal import Decimal
from types import MappingProxyType, TracebackType
from typing import Any, TextIO, TypeAlias

from attrs import field, frozen

from llm_wire import contract as _contract
from llm_wire import tool as _tool
from llm_wire.admission import SchemaRejected, ValueFailure
from llm_wire.agent import (
    ErrorCategory,
    ErrorCode,
    Idempotency,
    OutputValidation,
    ProviderCapabilities,
    SideEffect,
    ToolContract,
    ToolDescriptor,
    ToolInvocation,
    ToolOutcome,
    invalid_arguments,
    unknown_tool,
)
from llm_wire.contract import Contract, ValidationError
from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.names import NameCollision, Named, WireNameError, WireNames, mangle, wire_names
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import DefinitionError
from llm_wire.tool import InvalidSchema, Tool, ToolError
from llm_wire.value import DEFAULT, Limits, Path, PlainValue, Value, parse, render

__all__ = [
    "ArgumentsRefused",
    "AsyncClient",
    "CallResult",
    "Client",
    "ConnectFailed",
    "ConnectionClosed",
    "Hints",
    "InexactNumber",
    "Listing",
    "McpError",
    "McpLimits",
    "McpProvider",
    "McpTool",
    "OutputMissing",
    "OutputProblem",
    "OutputRejected",
    "LeftOut",
    "RequestFailed",
    "SchemaField",
    "Server",
    "Stdio",
    "StreamableHttp",
    "TimedOut",
    "UnknownMcpTool",
    "aprovider",
    "check_output",
    "contract_for",
    "declare",
    "outcome_of",
    "provider",
    "wire_arguments",
]

# ---------------------------------------------------------------------------------------------------------
# Servers and bounds


def _strings(args: Sequence[str]) -> tuple[str, ...]:
    return tuple(args)


@frozen
class Stdio:
    """A server started as a subprocess that speaks MCP over its stdin and stdout."""

    command: str
    args: tuple[str, ...] = field(default=(), converter=_strings)
    #: Variables set over the SDK's safe default environment (``PATH``, ``HOME``...).
    env: Mapping[str, str] | None = None
    cwd: str | None = None


@frozen
class StreamableHttp:
    """A server reached over MCP's streamable HTTP transport at ``url``."""

    url: str


Server: TypeAlias = Stdio | StreamableHttp


_LISTING = DEFAULT.with_max_bytes(16 << 20)


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
    #: Bounds on one call result as JSON.
    result: Limits = DEFAULT


# ---------------------------------------------------------------------------------------------------------
# Errors


@frozen
class ConnectFailed:
    """The server could not be started, or did not complete ``initialize``; ``detail`` is for logs."""

    reason: str
    detail: str = field(default="", eq=False, repr=False)

    @property
    def name(self) -> str:
        """``connect_failed``."""
        return "connect_failed"

    def describe(self) -> str:
        """``could not connect to the MCP server: FileNotFoundError``."""
        return f"could not connect to the MCP server: {self.reason}"

    def __str__(self) -> str:
        return self.describe()


@frozen
class RequestFailed:
    """The server answered ``method`` with a JSON-RPC error; its ``message`` is kept out of texts."""

    method: str
    code: int
    message: str = field(default="", eq=False, repr=False)

    @property
    def name(self) -> str:
        """``request_failed``."""
        return "request_failed"

    def describe(self) -> str:
        """``the MCP server answered tools/call with error -32602``."""
        return f"the MCP server answered {self.method} with error {self.code}"

    def __str__(self) -> str:
        return self.describe()


@frozen
class TimedOut:
    """No answer to ``method`` within ``seconds``."""

    method: str
    seconds: float

    @property
    def name(self) -> str:
        """``timed_out``."""
        return "timed_out"

    def describe(self) -> str:
        """``the MCP server did not answer tools/call within 60 s (raise McpLimits.timeout)``."""
        return (
            f"the MCP server did not answer {self.method} within {self.seconds:g} s (raise McpLimits.timeout)"
        )

    def __str__(self) -> str:
        return self.describe()


@frozen
class ConnectionClosed:
    """The connection ended before ``method`` was answered."""

    method: str

    @property
    def name(self) -> str:
        """``connection_closed``."""
        return "connection_closed"

    def describe(self) -> str:
        """``the MCP server closed the connection during tools/call``."""
        return f"the MCP server closed the connection during {self.method}"

    def __str__(self) -> str:
        return self.describe()


@frozen
class UnknownMcpTool:
    """A call to a wire name the listing does not hold (or a tool it left out)."""

    name: str

    @property
    def code(self) -> str:
        """``unknown_tool``."""
        return "unknown_tool"

    def describe(self) -> str:
        """The name is not repeated: it may come from a model."""
        return "no tool of this MCP server has that name"

    def __str__(self) -> str:
        return self.describe()


@frozen
class ArgumentsRefused:
    """Arguments for tool ``name`` (its wire name) that its input schema refuses; nothing was sent."""

    name: str
    failure: ValueFailure

    def describe(self) -> str:
        """``arguments for tool NAME refused: schema validation failed: ...``."""
        return f"arguments for tool {self.name} refused: {self.failure.describe()}"

    def __str__(self) -> str:
        return self.describe()


@frozen
class InexactNumber:
    """
    A number that the SDK (which writes numbers from Python ``int`` and ``float``) cannot carry exactly:
    more digits than a float's shortest form, or out of its range. ``path`` is where; nothing was sent.
    """

    path: Path

    def describe(self) -> str:
        """Shows neither the number nor its path (whose keys may come from a model)."""
        return "an argument holds a number that MCP's SDK cannot send exactly; nothing was sent"

    def __str__(self) -> str:
        return self.describe()


McpError: TypeAlias = (
    ConnectFailed
    | RequestFailed
    | TimedOut
    | ConnectionClosed
    | UnknownMcpTool
    | ArgumentsRefused
    | InexactNumber
    | ProtocolError
    | LimitExceeded
)


# ---------------------------------------------------------------------------------------------------------
# Declaring


class SchemaField(enum.Enum):
    """Which schema of an MCP tool refused it."""

    INPUT = "inputSchema"
    OUTPUT = "outputSchema"


@frozen
class LeftOut:
    """
    A listed tool left out: its position in the listing, the server's name for it, and why. ``schema`` says
    which schema refused it (``None`` for its name or its entry).
    """

    index: int
    name: str
    error: ToolError | WireNameError | ProtocolError
    schema: SchemaField | None = None

    def describe(self) -> str:
        """``tool 3 of the listing left out: inputSchema: invalid input schema: ...``; no name repeated."""
        where = f"{self.schema.value}: " if self.schema is not None else ""
        return f"tool {self.index} of the listing left out: {where}{self.error.describe()}"

    def __str__(self) -> str:
        return self.describe()


@frozen
class Hints:
    """
    A tool's MCP annotations, as its server claims them: untrusted, and used only where the caller opts in.
    ``None`` where the server says nothing.
    """

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None
    title: str | None = None


@frozen(eq=False)
class McpTool:
    """
    One declared MCP tool: the ``Tool`` the wire sees (under its wire name), the server's own name and prefix,
    the output contract (from ``outputSchema``, when declared) and the server's hints.
    """

    tool: Tool
    name: str
    prefix: str | None = None
    output: Contract | None = field(default=None, repr=False)
    hints: Hints = Hints()

    @property
    def wire_name(self) -> str:
        """The name the model sees and calls."""
        return self.tool.name


@frozen(eq=False)
class Listing:
    """A server's tools: those declared, those left out with their errors, and the wire-name table."""

    tools: tuple[McpTool, ...]
    refused: tuple[LeftOut, ...]
    names: WireNames = field(repr=False)
    _by_wire: Mapping[str, McpTool] = field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_by_wire", MappingProxyType({t.wire_name: t for t in self.tools}))

    def declared(self) -> tuple[Tool, ...]:
        """The tools for a request (``with_tools``) and for admission."""
        return tuple(t.tool for t in self.tools)

    def find(self, wire_name: str) -> McpTool | None:
        """The tool a returned call's name stands for, or ``None``."""
        return self._by_wire.get(wire_name)


def declare(tools: Sequence[Value], *, prefix: str | None = None) -> Listing:
    """
    Declare the tools of a ``tools/list`` result (its ``tools`` array): each under its wire name (mangled
    when a provider would refuse it, after ``prefix`` when given), with its input and output schema loaded.
    A tool is left out, with its typed error, when its entry is malformed, its name is empty or shared on the
    wire with another tool (then both are), or a schema cannot be honoured.
    """
    if isinstance(tools, str | bytes) or not isinstance(tools, Sequence):
        raise TypeError(f"tools must be a sequence of tool objects, not {type(tools).__name__}")
    refused: list[LeftOut] = []
    wired: list[tuple[int, dict[str, Any], str]] = []
    for index, entry in enumerate(tools):
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or not isinstance(name, str):
            refused.append(LeftOut(index, "", ProtocolError("a listed tool is not an object with a name")))
            continue
        match mangle(name, prefix):
            case Err(problem):
                refused.append(LeftOut(index, name, problem))
            case Ok(wire):
                wired.append((index, entry, wire))
    counts: dict[str, int] = {}
    for _, _, wire in wired:
        counts[wire] = counts.get(wire, 0) + 1
    declared: list[McpTool] = []
    firsts: dict[str, Named] = {}
    for index, entry, wire in wired:
        named = Named(prefix, str(entry["name"]))
        if counts[wire] > 1:
            first = firsts.setdefault(wire, named)
            refused.append(LeftOut(index, named.name, NameCollision(wire, first, named)))
            continue
        made = _declared(entry, wire, prefix)
        if isinstance(made, LeftOut):
            refused.append(LeftOut(index, named.name, made.error, made.schema))
        else:
            declared.append(made)
    table = wire_names(Named(t.prefix, t.name) for t in declared)
    assert isinstance(table, Ok)  # every collision was refused above
    refused.sort(key=lambda r: r.index)
    return Listing(tuple(declared), tuple(refused), table.value)


def _declared(entry: dict[str, Any], wire: str, prefix: str | None) -> McpTool | LeftOut:
    name: str = entry["name"]
    description = entry.get("description")
    if not isinstance(description, str):
        description = ""
    input_schema = entry.get("inputSchema")
    if not isinstance(input_schema, dict):
        return LeftOut(0, name, ProtocolError("a listed tool has no inputSchema object"), SchemaField.INPUT)
    match _tool.from_json_schema(wire, description, input_schema):
        case Err(tool_error):
            return LeftOut(0, name, tool_error, SchemaField.INPUT)
        case Ok(declared):
            pass
    output: Contract | None = None
    output_schema = entry.get("outputSchema")
    if output_schema is not None:
        match _contract.load(output_schema):
            case Err(load_error):
                return LeftOut(0, name, InvalidSchema(load_error), SchemaField.OUTPUT)
            case Ok(output):
                pass
    return McpTool(declared, name, prefix, output, _hints(entry.get("annotations")))


def _hints(annotations: object) -> Hints:
    if not isinstance(annotations, dict):
        return Hints()

    def flag(key: str) -> bool | None:
        found = annotations.get(key)
        return found if isinstance(found, bool) else None

    title = annotations.get("title")
    return Hints(
        flag("readOnlyHint"),
        flag("destructiveHint"),
        flag("idempotentHint"),
        flag("openWorldHint"),
        title if isinstance(title, str) else None,
    )


# ---------------------------------------------------------------------------------------------------------
# Calling


def wire_arguments(arguments: Value) -> Result[dict[str, PlainValue], InexactNumber]:
    """
    ``arguments`` as the SDK sends them, every number still a JSON number with the same value: an ``int`` as
    it is, an integral ``Decimal`` as an ``int``, any other ``Decimal`` as the ``float`` whose shortest text
    is that number. ``Err(InexactNumber(path))`` for a number no float carries exactly.
    """
    if not isinstance(arguments, dict):
        raise TypeError(f"arguments must be a dict, not {type(arguments).__name__}")
    root: list[PlainValue] = [None]
    stack: list[tuple[Value, Any, Any, Path]] = [(arguments, root, 0, ())]
    while stack:
        item, into, slot, path = stack.pop()
        if isinstance(item, Decimal):
            number = _exact_number(item)
            if number is None:
                return Err(InexactNumber(path))
            into[slot] = number
        elif isinstance(item, list):
            items: list[PlainValue] = [None] * len(item)
            into[slot] = items
            stack.extend((element, items, n, (*path, n)) for n, element in enumerate(item))
        elif isinstance(item, dict):
            members: dict[str, PlainValue] = dict.fromkeys(item)
            into[slot] = members
            stack.extend((element, members, key, (*path, key)) for key, element in item.items())
        else:
            into[slot] = item
    plain = root[0]
    assert isinstance(plain, dict)
    return Ok(plain)


def _exact_number(number: Decimal) -> int | float | None:
    if not number.is_finite():
        return None
    if number == number.to_integral_value():
        return int(number)
    nearest = float(number)
    return nearest if Decimal(repr(nearest)) == number else None


@frozen
class CallResult:
    """
    What a ``tools/call`` returned: its content blocks (JSON, as sent), its structured content (``None`` when
    it sent none) and whether the tool reported an error (``isError``).
    """

    content: tuple[Value, ...]
    structured: Value = None
    is_error: bool = False

    def text(self) -> str:
        """The text blocks' texts, one per line."""
        texts = [block.get("text") for block in self.content if isinstance(block, dict)]
        return "\n".join(text for text in texts if isinstance(text, str))


@frozen
class OutputMissing:
    """A tool that declares an ``outputSchema`` returned no structured content."""

    name: str

    def describe(self) -> str:
        """Names the tool's wire name."""
        return f"tool {self.name} declares an output schema but returned no structured content"

    def __str__(self) -> str:
        return self.describe()


@frozen
class OutputRejected:
    """Structured content outside the tool's ``outputSchema``: each failure, bounded."""

    name: str
    errors: tuple[ValidationError, ...]

    def describe(self) -> str:
        """``tool NAME returned output outside its schema: $["count"]: ...``."""
        listed = "; ".join(error.describe() for error in self.errors)
        return f"tool {self.name} returned output outside its schema: {listed}"

    def __str__(self) -> str:
        return self.describe()


OutputProblem: TypeAlias = OutputMissing | OutputRejected


def check_output(tool: McpTool, result: CallResult, *, failures: int = 8) -> Result[Value, OutputProblem]:
    """
    The structured content, checked against the tool's output contract (kept as it is when the tool declares
    none, or reported an error); up to ``failures`` failures are kept.
    """
    if tool.output is None or result.is_error:
        return Ok(result.structured)
    if result.structured is None:
        return Err(OutputMissing(tool.wire_name))
    errors = _contract.validate_all(tool.output, result.structured, limit=max(failures, 1))
    return Err(OutputRejected(tool.wire_name, errors)) if errors else Ok(result.structured)


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


def _mapped(method: str, exc: BaseException, seconds: float) -> McpError:
    """One boundary for the SDK's failures."""
    from mcp import MCPError
    from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

    if isinstance(exc, BaseExceptionGroup):
        inner = exc.exceptions[0] if exc.exceptions else exc
        return _mapped(method, inner, seconds)
    if isinstance(exc, MCPError):
        if exc.code == REQUEST_TIMEOUT:
            return TimedOut(method, seconds)
        if exc.code == CONNECTION_CLOSED:
            return ConnectionClosed(method)
        return RequestFailed(method, exc.code, exc.message)
    if isinstance(exc, TimeoutError):
        return TimedOut(method, seconds)
    if isinstance(exc, OSError | EOFError) or type(exc).__module__.startswith("anyio"):
        return ConnectionClosed(method)
    return ProtocolError(f"the MCP server's answer to {method} is not what MCP says ({type(exc).__name__})")


class AsyncClient:
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
    ) -> None:
        if not isinstance(server, Stdio | StreamableHttp):
            raise TypeError(f"server must be a Stdio or StreamableHttp, not {type(server).__name__}")
        if not isinstance(limits, McpLimits):
            raise TypeError(f"limits must be a McpLimits, not {type(limits).__name__}")
        self.server = server
        self.prefix = prefix
        self.limits = limits
        self._errlog = errlog
        self._stack: AsyncExitStack | None = None
        self._session: Any = None
        self._failure: McpError | None = None
        self._listing: Listing | None = None

    def __repr__(self) -> str:
        state = "connected" if self._session is not None else "not connected"
        return f"<AsyncClient {type(self.server).__name__} ({state})>"

    async def __aenter__(self) -> AsyncClient:
        import anyio
        from mcp import ClientSession

        stack = AsyncExitStack()
        try:
            read, write = await stack.enter_async_context(self._transport())
            session = await stack.enter_async_context(ClientSession(read, write))
            with anyio.fail_after(self.limits.start):
                await session.initialize()
        except Exception as exc:
            await _close_quietly(stack)
            mapped = _mapped("initialize", exc, self.limits.start)
            if isinstance(mapped, ProtocolError | ConnectionClosed):
                mapped = ConnectFailed(type(_innermost(exc)).__name__, repr(exc))
            self._failure = mapped
            return self
        self._stack = stack
        self._session = session
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        stack, self._stack, self._session = self._stack, None, None
        if stack is None:
            return
        try:
            await stack.__aexit__(kind, exc, traceback)
        except BaseExceptionGroup as group:
            # The SDK's task groups wrap what the block raised; give the caller back its own exception.
            if exc is not None and any(inner is exc for inner in group.exceptions):
                raise exc from None
            if exc is None and not group.subgroup(lambda e: not isinstance(e, Exception)):
                return
            raise
        except Exception:
            if exc is not None:
                raise

    def _transport(self) -> Any:
        if isinstance(self.server, Stdio):
            from mcp import StdioServerParameters, stdio_client

            parameters = StdioServerParameters(
                command=self.server.command,
                args=list(self.server.args),
                env=dict(self.server.env) if self.server.env is not None else None,
                cwd=self.server.cwd,
            )
            return stdio_client(parameters, errlog=self._errlog or sys.stderr)
        from mcp.client.streamable_http import streamable_http_client

        return streamable_http_client(self.server.url)

    async def list_tools(self) -> Result[Listing, McpError]:
        """
        Every tool the server lists, page after page, declared (``declare``); ``call`` uses the listing.
        """
        if self._session is None:
            return Err(self._failure or ConnectionClosed("tools/list"))
        import mcp.types as types

        entries: list[Value] = []
        cursor: str | None = None
        for _ in range(self.limits.pages):
            try:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
                page = await self._session.send_request(
                    types.ListToolsRequest(params=params),
                    types.ListToolsResult,
                    request_read_timeout_seconds=self.limits.timeout,
                )
            except Exception as exc:
                return Err(_mapped("tools/list", exc, self.limits.timeout))
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
                listing = declare(entries, prefix=self.prefix)
                self._listing = listing
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

    async def call_tool(self, tool: McpTool, arguments: Value) -> Result[CallResult, McpError]:
        """``call`` for a tool already found (``Listing.find``)."""
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
            answer = await self._session.send_request(
                request, types.CallToolResult, request_read_timeout_seconds=self.limits.timeout
            )
        except Exception as exc:
            return Err(_mapped("tools/call", exc, self.limits.timeout))
        match _as_value(answer, self.limits.result, "McpLimits.result"):
            case Err(problem):
                return Err(problem)
            case Ok(found):
                pass
        assert isinstance(found, dict)
        content = found.get("content")
        blocks = tuple(content) if isinstance(content, list) else ()
        return Ok(CallResult(blocks, found.get("structuredContent"), found.get("isError") is True))


def _innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def _close_quietly(stack: AsyncExitStack) -> None:
    with suppress(Exception):  # the connection failed already; its own failure is what the caller sees
        await stack.aclose()


class Client:
    """
    ``AsyncClient`` for code without an event loop: the connection runs on a thread of its own, and each
    method waits for its answer. Use it as a context manager.
    """

    def __init__(
        self,
        server: Server,
        *,
        prefix: str | None = None,
        limits: McpLimits = McpLimits(),
        errlog: TextIO | None = None,
    ) -> None:
        self._client = AsyncClient(server, prefix=prefix, limits=limits, errlog=errlog)
        self._portal: Any = None
        self._portal_cm: Any = None
        self._context: Any = None

    def __repr__(self) -> str:
        return repr(self._client).replace("AsyncClient", "Client", 1)

    def __enter__(self) -> Client:
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
            raise RuntimeError("use the Client in a with block")
        return self._portal.call(function, *args)

    def list_tools(self) -> Result[Listing, McpError]:
        """``AsyncClient.list_tools``."""
        result: Result[Listing, McpError] = self._run(self._client.list_tools)
        return result

    def call(self, wire_name: str, arguments: Value) -> Result[CallResult, McpError]:
        """``AsyncClient.call``."""
        result: Result[CallResult, McpError] = self._run(self._client.call, wire_name, arguments)
        return result

    def call_tool(self, tool: McpTool, arguments: Value) -> Result[CallResult, McpError]:
        """``AsyncClient.call_tool``."""
        result: Result[CallResult, McpError] = self._run(self._client.call_tool, tool, arguments)
        return result


# ---------------------------------------------------------------------------------------------------------
# As a tool provider for the runner


def contract_for(
    tool: McpTool, *, trust_hints: bool = False, output_validation: OutputValidation = OutputValidation.STRICT
) -> ToolContract:
    """
    The contract of an MCP tool: its output contract under ``output_validation``, and what it may change.
    Without ``trust_hints`` a tool is taken at MCP's own defaults (it may destroy, repeating it may not be
    safe); with it, its annotations decide (``readOnlyHint``, ``destructiveHint``, ``idempotentHint``).
    """
    side_effect, idempotency = SideEffect.DESTRUCTIVE, Idempotency.UNKNOWN
    if trust_hints:
        hints = tool.hints
        if hints.read_only:
            side_effect, idempotency = SideEffect.READ, Idempotency.IDEMPOTENT
        else:
            side_effect = SideEffect.WRITE if hints.destructive is False else SideEffect.DESTRUCTIVE
            if hints.idempotent:
                idempotency = Idempotency.IDEMPOTENT
    return ToolContract(
        output_schema=tool.output,
        side_effect=side_effect,
        idempotency=idempotency,
        output_validation=output_validation,
    )


def outcome_of(tool: McpTool, result: Result[CallResult, McpError], mode: OutputValidation) -> ToolOutcome:
    """
    A call's result as the model sees it. A success keeps the text blocks as ``content``, every other block
    as an artifact reference (its ``uri``, or a ``data:`` URI for images and audio) and all blocks as sent in
    ``metadata["mcp.content"]``; ``structuredContent`` becomes ``data``, checked against the output schema
    under ``mode``. ``isError`` is a failed outcome carrying the tool's text; a refused or lost request is
    the failure its kind calls for (timeouts and lost connections may be retried).
    """
    match result:
        case Err(problem):
            return _failure_outcome(tool, problem)
        case Ok(answer):
            pass
    content = render(list(answer.content))
    if answer.is_error:
        message = answer.text() or f"tool {tool.wire_name} reported an error"
        failed = ToolOutcome.failed(ErrorCategory.INTERNAL, "tool_error", message, retryable=False)
        return failed.with_metadata(**{"mcp.content": content})
    data = answer.structured
    notes = {"mcp.content": content}
    checked = check_output(tool, answer) if mode is not OutputValidation.DISABLED else Ok(data)
    if isinstance(checked, Err):
        if mode is OutputValidation.STRICT:
            missing = isinstance(checked.error, OutputMissing)
            code = ErrorCode.NO_STRUCTURED_DATA if missing else ErrorCode.OUTPUT_SCHEMA
            return ToolOutcome.failed(ErrorCategory.INTERNAL, code, checked.error.describe(), retryable=False)
        notes["mcp.output_problem"] = checked.error.describe()
    artifacts = tuple(ref for ref in map(_reference, answer.content) if ref is not None)
    outcome = ToolOutcome.success(answer.text(), data, artifacts=artifacts)
    return outcome.with_metadata(**notes)


def _reference(block: Value) -> str | None:
    if not isinstance(block, dict) or block.get("type") == "text":
        return None
    resource = block.get("resource")
    uri = resource.get("uri") if isinstance(resource, dict) else block.get("uri")
    if isinstance(uri, str):
        return uri
    data, mime = block.get("data"), block.get("mimeType")
    if isinstance(data, str) and isinstance(mime, str):
        return f"data:{mime};base64,{data}"
    return None


def _failure_outcome(tool: McpTool, problem: McpError) -> ToolOutcome:
    message = problem.describe()
    match problem:
        case ArgumentsRefused(failure=failure):
            return invalid_arguments(tool.wire_name, failure)
        case InexactNumber():
            return ToolOutcome.failed(ErrorCategory.INVALID_INPUT, ErrorCode.INVALID_ARGUMENTS, message)
        case TimedOut():
            return ToolOutcome.failed(ErrorCategory.TIMEOUT, ErrorCode.TIMEOUT, message)
        case ConnectionClosed() | ConnectFailed():
            return ToolOutcome.failed(ErrorCategory.UNAVAILABLE, ErrorCode.UNAVAILABLE, message)
        case RequestFailed(code=code) if code == _INVALID_PARAMS:
            return ToolOutcome.failed(ErrorCategory.INVALID_INPUT, ErrorCode.INVALID_INPUT, message)
        case UnknownMcpTool():
            return ToolOutcome.failed(
                ErrorCategory.NOT_FOUND, ErrorCode.UNKNOWN_TOOL, message, retryable=False
            )
    return ToolOutcome.failed(ErrorCategory.INTERNAL, ErrorCode.INTERNAL, message, retryable=False)


_INVALID_PARAMS = -32602

Connected: TypeAlias = AsyncClient | Client


class McpProvider:
    """
    The tools of one or more connected MCP servers as a ``ToolProvider``: each listed tool under its wire
    name (a prefix per server keeps several apart), calls sent to the server that listed it, results mapped
    by ``outcome_of`` under the descriptor's output-validation mode. Made by ``provider`` or ``aprovider``.
    """

    def __init__(
        self,
        listed: Sequence[tuple[Connected, Listing]],
        *,
        trust_hints: bool = False,
        output_validation: OutputValidation = OutputValidation.STRICT,
    ) -> None:
        self._routes: dict[str, tuple[Connected, McpTool]] = {}
        descriptors: list[ToolDescriptor] = []
        refused: list[LeftOut] = []
        for client, listing in listed:
            if not isinstance(client, AsyncClient | Client) or not isinstance(listing, Listing):
                raise TypeError("listed must hold (AsyncClient or Client, Listing) pairs")
            refused.extend(listing.refused)
            for found in listing.tools:
                if found.wire_name in self._routes:
                    first = self._routes[found.wire_name][1]
                    collision = NameCollision(
                        found.wire_name, Named(first.prefix, first.name), Named(found.prefix, found.name)
                    )
                    raise DefinitionError(collision.describe())
                self._routes[found.wire_name] = (client, found)
                contract = contract_for(found, trust_hints=trust_hints, output_validation=output_validation)
                descriptors.append(ToolDescriptor(found.tool, contract))
        self._descriptors = tuple(descriptors)
        #: The tools the servers listed but that were left out, with their errors.
        self.refused = tuple(refused)

    def __repr__(self) -> str:
        return f"<McpProvider ({len(self._descriptors)} tools, {len(self.refused)} left out)>"

    def descriptors(self) -> Sequence[ToolDescriptor]:
        """Every declared tool's descriptor, in server and listing order."""
        return self._descriptors

    def capabilities(self, name: str) -> ProviderCapabilities | None:
        """MCP servers take no idempotency key, send no heartbeats and compensate nothing."""
        return None

    def tool(self, wire_name: str) -> McpTool | None:
        """The MCP tool behind a wire name."""
        route = self._routes.get(wire_name)
        return None if route is None else route[1]

    async def invoke(self, invocation: ToolInvocation) -> ToolOutcome:
        """Call the tool on its server with the admitted arguments; ``not_found`` for a name it lacks."""
        route = self._routes.get(invocation.name)
        if route is None:
            return unknown_tool([d.name for d in self._descriptors])
        client, found = route
        if isinstance(client, AsyncClient):
            result = await client.call_tool(found, invocation.arguments)
        else:
            import anyio.to_thread

            result = await anyio.to_thread.run_sync(client.call_tool, found, invocation.arguments)
        return outcome_of(found, result, invocation.descriptor.contract.output_validation)


async def aprovider(
    *clients: AsyncClient,
    trust_hints: bool = False,
    output_validation: OutputValidation = OutputValidation.STRICT,
) -> Result[McpProvider, McpError | NameCollision]:
    """
    List every client's tools and make one provider of them; ``Err`` when a listing fails, or when two
    servers' tools would share a wire name (give each server its own prefix).
    """
    listed: list[tuple[Connected, Listing]] = []
    for client in clients:
        match await client.list_tools():
            case Err(problem):
                return Err(problem)
            case Ok(listing):
                listed.append((client, listing))
    return _made(listed, trust_hints, output_validation)


def provider(
    *clients: Client, trust_hints: bool = False, output_validation: OutputValidation = OutputValidation.STRICT
) -> Result[McpProvider, McpError | NameCollision]:
    """``aprovider`` for ``Client``s (code without an event loop)."""
    listed: list[tuple[Connected, Listing]] = []
    for client in clients:
        match client.list_tools():
            case Err(problem):
                return Err(problem)
            case Ok(listing):
                listed.append((client, listing))
    return _made(listed, trust_hints, output_validation)


def _made(
    listed: list[tuple[Connected, Listing]], trust_hints: bool, output_validation: OutputValidation
) -> Result[McpProvider, McpError | NameCollision]:
    seen: dict[str, McpTool] = {}
    for _, listing in listed:
        for found in listing.tools:
            first = seen.setdefault(found.wire_name, found)
            if first is not found:
                return Err(
                    NameCollision(
                        found.wire_name, Named(first.prefix, first.name), Named(found.prefix, found.name)
                    )
                )
    return Ok(McpProvider(listed, trust_hints=trust_hints, output_validation=output_validation))
