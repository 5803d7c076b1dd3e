"""
The names ``llm_wire.mcp`` lists, by the private module that defines each: its face loads each on first use
(a saved listing declares its tools without the client's transport), and each module gives its own names
the face's path as it loads.
"""

from __future__ import annotations

__all__ = ["FACE"]

#: The face's names (``llm_wire.mcp.__all__``), by home module.
FACE: dict[str, tuple[str, ...]] = {
    "llm_wire.mcp._client": (
        "AsyncMcpClient",
        "Era",
        "McpClient",
        "McpLimits",
        "Stdio",
        "StreamableHttp",
    ),
    "llm_wire.mcp._declare": (
        "CallResult",
        "Hints",
        "LeftOut",
        "Listing",
        "McpTool",
        "SchemaField",
        "check_output",
        "declare",
    ),
    "llm_wire.mcp._errors": (
        "ArgumentsRefused",
        "ConnectFailed",
        "ConnectionClosed",
        "InexactNumber",
        "McpError",
        "OutputMissing",
        "OutputProblem",
        "OutputRejected",
        "RequestFailed",
        "TimedOut",
        "UnknownMcpTool",
    ),
    "llm_wire.mcp._provider": (
        "McpProvider",
        "aprovider",
        "provider",
    ),
}
