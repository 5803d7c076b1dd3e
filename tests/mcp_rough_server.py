"""
An MCP server (the SDK's low-level ``Server`` over stdio) that answers the way rough servers do: a JSON-RPC
error of any code (``answer_error``), a result of any size (``huge``), no answer at all (``die`` exits), and
a plain answer (``echo``).
"""

from __future__ import annotations

import os
from typing import Any

import anyio
import mcp.types as types
from mcp import MCPError
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

#: Words the server puts in its error messages: a client must not repeat them.
SECRET = "server-secret-5c1d"

_TOOLS = [
    types.Tool(
        name="answer_error",
        description="Answer with a JSON-RPC error of this code.",
        input_schema={"type": "object", "properties": {"code": {"type": "integer"}}, "required": ["code"]},
    ),
    types.Tool(
        name="huge",
        description="Answer with a text block of this many bytes.",
        input_schema={"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]},
    ),
    types.Tool(name="echo", description="Answer 'ok'.", input_schema={"type": "object"}),
    types.Tool(name="die", description="Exit without answering.", input_schema={"type": "object"}),
]


async def _list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=_TOOLS)


async def _call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name == "answer_error":
        raise MCPError(code=int(arguments["code"]), message=f"failed: {SECRET}")
    if params.name == "die":
        os._exit(3)
    if params.name == "huge":
        return types.CallToolResult(content=[types.TextContent(text="x" * int(arguments["size"]))])
    return types.CallToolResult(content=[types.TextContent(text="ok")])


async def _serve() -> None:
    server = Server("rough", version="1.0", on_list_tools=_list_tools, on_call_tool=_call_tool)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve)
