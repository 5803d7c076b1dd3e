"""
A small MCP server for the demo and the tests, on the official SDK's low-level ``Server``.

Run it with ``python -m llm_wire.demo.mcp_server`` (stdio) or ``... --http PORT`` (streamable HTTP on
127.0.0.1). It lists its tools two to a page (so a client must follow ``nextCursor``) and holds one tool of
each kind a client must handle:

| tool | what it does |
| --- | --- |
| ``add`` | ``a + b`` as structured content ``{"sum": ...}``, with an ``outputSchema`` and read-only hints |
| ``inspect`` | tells how each argument arrived: its JSON type and its exact JSON text |
| ``fail`` | always answers ``isError: true`` with a text block |
| ``bad_output`` | returns structured content that breaks its own ``outputSchema`` |
| ``files.read`` | a name with a dot, which providers refuse (a client mangles it) |
| ``sleep`` | waits ``seconds`` (for timeouts) |
| ``remote_ref`` | an input schema with a remote ``$ref``, which a client must refuse |
"""

from __future__ import annotations

import argparse
import json
from decimal import Decimal
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

__all__ = ["PAGE_SIZE", "TOOLS", "main", "make_server"]

#: Tools per page of ``tools/list``.
PAGE_SIZE = 2

_NUMBER_PAIR = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}

#: The declarations, in listing order.
TOOLS: tuple[types.Tool, ...] = (
    types.Tool(
        name="add",
        description="Add two numbers.",
        input_schema=_NUMBER_PAIR,
        output_schema={
            "type": "object",
            "properties": {"sum": {"type": "number"}},
            "required": ["sum"],
        },
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
    ),
    types.Tool(
        name="inspect",
        description="Tell how each argument arrived: its JSON type and its JSON text.",
        input_schema={"type": "object", "additionalProperties": True},
    ),
    types.Tool(
        name="fail",
        description="Always fails.",
        input_schema={"type": "object", "properties": {"why": {"type": "string", "minLength": 1}}},
    ),
    types.Tool(
        name="bad_output",
        description="Returns structured content outside its own output schema.",
        input_schema={"type": "object"},
        output_schema={
            "type": "object",
            "properties": {"count": {"type": "integer", "minimum": 0}},
            "required": ["count"],
        },
    ),
    types.Tool(
        name="files.read",
        description="Read a file (a pretend one).",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string", "pattern": "^/"}},
            "required": ["path"],
        },
        annotations=types.ToolAnnotations(read_only_hint=True, destructive_hint=False),
    ),
    types.Tool(
        name="sleep",
        description="Wait some seconds.",
        input_schema={
            "type": "object",
            "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 30}},
            "required": ["seconds"],
        },
    ),
    types.Tool(
        name="remote_ref",
        description="An input schema that points at another document.",
        input_schema={"type": "object", "properties": {"x": {"$ref": "https://example.com/x.json"}}},
    ),
)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float | Decimal):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


async def _list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = start + PAGE_SIZE
    return types.ListToolsResult(
        tools=list(TOOLS[start:end]), next_cursor=str(end) if end < len(TOOLS) else None
    )


def _text(text: str) -> list[types.ContentBlock]:
    return [types.TextContent(text=text)]


async def _call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    arguments = params.arguments or {}
    match params.name:
        case "add":
            total = arguments["a"] + arguments["b"]
            return types.CallToolResult(content=_text(str(total)), structured_content={"sum": total})
        case "inspect":
            seen = {
                key: {"type": _json_type(value), "json": json.dumps(value)}
                for key, value in arguments.items()
            }
            return types.CallToolResult(content=_text(json.dumps(seen)), structured_content=seen)
        case "fail":
            return types.CallToolResult(content=_text("this tool always fails"), is_error=True)
        case "bad_output":
            return types.CallToolResult(content=_text("-1"), structured_content={"count": -1})
        case "files.read":
            image = types.ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
            return types.CallToolResult(content=[types.TextContent(text="pretend contents"), image])
        case "sleep":
            await anyio.sleep(float(arguments["seconds"]))
            return types.CallToolResult(content=_text("awake"))
    return types.CallToolResult(content=_text("unknown tool"), is_error=True)


def make_server() -> Server[Any]:
    """The server, ready to run on any transport."""
    return Server("llm-wire-demo", version="1.0", on_list_tools=_list_tools, on_call_tool=_call_tool)


async def _serve_stdio() -> None:
    server = make_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(argv: list[str] | None = None) -> None:
    """Serve over stdio, or over streamable HTTP on 127.0.0.1 with ``--http PORT``."""
    parser = argparse.ArgumentParser(prog="python -m llm_wire.demo.mcp_server")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT")
    args = parser.parse_args(argv)
    if args.http is None:
        anyio.run(_serve_stdio)
        return
    import uvicorn

    app = make_server().streamable_http_app(json_response=True)
    uvicorn.run(app, host="127.0.0.1", port=args.http, log_level="warning")


if __name__ == "__main__":
    main()
