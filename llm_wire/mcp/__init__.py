"""
MCP tools: a live MCP server's tools declared, checked and called (extra ``mcp``, on the official SDK).

``AsyncMcpClient`` connects to a server (``Stdio`` command or ``StreamableHttp`` URL) in the protocol ``Era``
asked for (the ``initialize`` handshake, the stateless 2026-07-28 revision, or either), lists its tools
following ``nextCursor``, declares each with ``tool.from_json_schema`` under its wire name
(``llm_wire.names``), and leaves out a tool whose name or schema cannot be honoured with its typed error
(``LeftOut``), never loosened. ``call`` checks the arguments against the tool's contract and sends them with
numbers as JSON numbers: an integral ``Decimal`` as an ``int``, any other as the ``float`` whose shortest text
is that very number, and a number no float holds exactly is refused (``InexactNumber``), never sent as a
string or rounded. ``McpClient`` is the same over a thread of its own, for code without an event loop.
``declare`` does the declaring alone, for a saved ``tools/list`` result. ``provider`` (``aprovider`` for async
clients) offers the tools of one or more connected servers to the runner as a ``ToolProvider``, results mapped
to ``ToolOutcome``s, annotations used as contract hints only when trusted.
Nothing raises on data: each failure is a typed value.

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

    OutputProblem                      structured content the output schema refuses
    ├── OutputMissing(name)               none, where the tool declares an ``outputSchema``
    └── OutputRejected(name, errors)      outside it, each failure with its path
"""

from __future__ import annotations

from llm_wire import _public
from llm_wire.mcp._client import (
    AsyncMcpClient,
    Era,
    McpClient,
    McpLimits,
    Stdio,
    StreamableHttp,
)
from llm_wire.mcp._declare import (
    CallResult,
    Hints,
    LeftOut,
    Listing,
    McpTool,
    SchemaField,
    check_output,
    declare,
)
from llm_wire.mcp._errors import (
    ArgumentsRefused,
    ConnectFailed,
    ConnectionClosed,
    InexactNumber,
    McpError,
    OutputMissing,
    OutputProblem,
    OutputRejected,
    RequestFailed,
    TimedOut,
    UnknownMcpTool,
)
from llm_wire.mcp._provider import (
    McpProvider,
    aprovider,
    provider,
)

__all__ = [
    "ArgumentsRefused",
    "AsyncMcpClient",
    "CallResult",
    "McpClient",
    "ConnectFailed",
    "ConnectionClosed",
    "Era",
    "Hints",
    "InexactNumber",
    "LeftOut",
    "Listing",
    "McpError",
    "McpLimits",
    "McpProvider",
    "McpTool",
    "OutputMissing",
    "OutputProblem",
    "OutputRejected",
    "RequestFailed",
    "SchemaField",
    "Stdio",
    "StreamableHttp",
    "TimedOut",
    "UnknownMcpTool",
    "aprovider",
    "check_output",
    "declare",
    "provider",
]

_public.rehome(__name__, __all__, globals())
