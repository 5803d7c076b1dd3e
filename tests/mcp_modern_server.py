"""
An MCP server on the official SDK that speaks both eras (the ``initialize`` handshake and the stateless
2026-07-28 revision), over stdio or, with ``--http PORT``, streamable HTTP on 127.0.0.1. Its two tools are
what the reference server lacks:

| tool | what it does |
| --- | --- |
| ``weather`` | the reference server's ``get-structured-content`` output schema, and a result that breaks it |
| ``steps`` | reports progress ``steps`` times, ``pause`` seconds apart, then answers |
"""

from __future__ import annotations

import argparse
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

#: The output schema of ``get-structured-content`` in ``@modelcontextprotocol/server-everything``.
WEATHER_OUTPUT = {
    "type": "object",
    "properties": {
        "temperature": {"type": "number", "description": "Temperature in celsius"},
        "conditions": {"type": "string", "description": "Weather conditions description"},
        "humidity": {"type": "number", "description": "Humidity percentage"},
    },
    "required": ["temperature", "conditions", "humidity"],
    "additionalProperties": False,
}

_TOOLS = [
    types.Tool(
        name="weather",
        description="The weather, as structured content that breaks its own output schema.",
        input_schema={"type": "object", "properties": {"location": {"type": "string"}}},
        output_schema=WEATHER_OUTPUT,
    ),
    types.Tool(
        name="steps",
        description="Report progress at each step, then answer.",
        input_schema={
            "type": "object",
            "properties": {"steps": {"type": "integer", "minimum": 1}, "pause": {"type": "number"}},
            "required": ["steps", "pause"],
        },
    ),
]


async def _list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=_TOOLS)


async def _call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name == "weather":
        broken = {"temperature": 33, "conditions": "Cloudy", "humidity": "82%"}
        return types.CallToolResult(
            content=[types.TextContent(text="Cloudy, 33 degrees")], structured_content=broken
        )
    steps = int(arguments["steps"])
    for step in range(1, steps + 1):
        await anyio.sleep(float(arguments["pause"]))
        await ctx.session.report_progress(step, steps, f"step {step} of {steps}")
    return types.CallToolResult(content=[types.TextContent(text=f"{steps} steps done")])


def make_server() -> Server[Any]:
    """The server, for either transport."""
    return Server("modern", version="1.0", on_list_tools=_list_tools, on_call_tool=_call_tool)


async def _serve_stdio() -> None:
    server = make_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> None:
    """Serve over stdio, or over streamable HTTP on 127.0.0.1 with ``--http PORT``."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT")
    port = parser.parse_args().http
    if port is None:
        anyio.run(_serve_stdio)
        return
    import uvicorn

    uvicorn.run(make_server().streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
