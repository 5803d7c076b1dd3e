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

The names load on first use (``_face.FACE`` lists them by home module): declaring the tools of a saved
listing loads neither the client's transport nor the agent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llm_wire import _public
from llm_wire.mcp._face import FACE as _FACE

__all__ = sorted(name for names in _FACE.values() for name in names)

if TYPE_CHECKING:  # what mypy reads (``X as X`` re-exports X)
    from llm_wire.mcp._client import AsyncMcpClient as AsyncMcpClient
    from llm_wire.mcp._client import Era as Era
    from llm_wire.mcp._client import McpClient as McpClient
    from llm_wire.mcp._client import McpLimits as McpLimits
    from llm_wire.mcp._client import Stdio as Stdio
    from llm_wire.mcp._client import StreamableHttp as StreamableHttp
    from llm_wire.mcp._declare import CallResult as CallResult
    from llm_wire.mcp._declare import Hints as Hints
    from llm_wire.mcp._declare import LeftOut as LeftOut
    from llm_wire.mcp._declare import Listing as Listing
    from llm_wire.mcp._declare import McpTool as McpTool
    from llm_wire.mcp._declare import SchemaField as SchemaField
    from llm_wire.mcp._declare import check_output as check_output
    from llm_wire.mcp._declare import declare as declare
    from llm_wire.mcp._errors import ArgumentsRefused as ArgumentsRefused
    from llm_wire.mcp._errors import ConnectFailed as ConnectFailed
    from llm_wire.mcp._errors import ConnectionClosed as ConnectionClosed
    from llm_wire.mcp._errors import InexactNumber as InexactNumber
    from llm_wire.mcp._errors import McpError as McpError
    from llm_wire.mcp._errors import OutputMissing as OutputMissing
    from llm_wire.mcp._errors import OutputProblem as OutputProblem
    from llm_wire.mcp._errors import OutputRejected as OutputRejected
    from llm_wire.mcp._errors import RequestFailed as RequestFailed
    from llm_wire.mcp._errors import TimedOut as TimedOut
    from llm_wire.mcp._errors import UnknownMcpTool as UnknownMcpTool
    from llm_wire.mcp._provider import McpProvider as McpProvider
    from llm_wire.mcp._provider import aprovider as aprovider
    from llm_wire.mcp._provider import provider as provider
else:
    __getattr__, __dir__ = _public.lazy_face(
        __name__, {name: home for home, names in _FACE.items() for name in names}, globals()
    )
