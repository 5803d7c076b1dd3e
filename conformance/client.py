"""
The MCP client under test: ``llm_wire.mcp`` as the conformance suite drives it.

The suite starts a scenario's server and runs ``python conformance/client.py URL`` with the scenario in
``MCP_CONFORMANCE_SCENARIO``, the protocol revision in ``MCP_CONFORMANCE_PROTOCOL_VERSION`` and any data the
scenario needs in ``MCP_CONFORMANCE_CONTEXT``. The revision decides the era (2026-07-28 is stateless, every
earlier one begins with ``initialize``). The client lists the tools, then does what a tools client does in
that scenario; it exits 1 when a request fails, and prints each step to stdout (kept with the results).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio

from llm_wire import mcp
from llm_wire.result import Err, Ok
from llm_wire.schema import to_document
from llm_wire.value import Value

#: Revisions without the handshake.
STATELESS = ("2026-07-28",)


class Failed(Exception):
    """A request of the scenario did not succeed (the message is printed)."""


def _ok(step: str, result: Ok[Any] | Err[Any]) -> Any:
    match result:
        case Ok(value):
            print(f"{step}: ok")
            return value
        case Err(error):
            raise Failed(f"{step}: {error.describe()}")


async def _call(client: mcp.AsyncMcpClient, listing: mcp.Listing, name: str, arguments: Value) -> None:
    found = next((t for t in listing.tools if t.name == name), None)
    if found is None:
        raise Failed(f"tools/call {name}: not listed, or left out")
    result = _ok(f"tools/call {name}", await client.call_tool(found, arguments))
    print(f"  is_error={result.is_error} text={result.text()!r}")


async def _call_each(client: mcp.AsyncMcpClient, listing: mcp.Listing, arguments: Value) -> None:
    """Every declared tool with ``arguments``; one whose schema refuses them is reported, not sent."""
    for found in listing.tools:
        match await client.call_tool(found, arguments):
            case Ok(result):
                print(f"tools/call {found.name}: ok, is_error={result.is_error}")
            case Err(mcp.ArgumentsRefused() as refused):
                print(f"tools/call {found.name}: not sent, {refused.describe()}")
            case Err(error):
                raise Failed(f"tools/call {found.name}: {error.describe()}")


async def run(url: str, scenario: str, version: str, context: dict[str, Any]) -> None:
    """One scenario against the suite's server at ``url``."""
    era = mcp.Era.STATELESS if version in STATELESS else mcp.Era.HANDSHAKE
    async with mcp.AsyncMcpClient(mcp.StreamableHttp(url), era=era) as client:
        listing: mcp.Listing = _ok("tools/list", await client.list_tools())
        print(f"  protocol={client.protocol_version} tools={[t.name for t in listing.tools]}")
        for left in listing.refused:
            print(f"  {left.describe()}")
        if scenario == "json-schema-2020-12-preservation":
            focal = next((t for t in listing.tools if t.name == "json_schema_2020_12_tool"), None)
            if focal is None:
                raise Failed("the focal tool was left out")
            await _call(client, listing, "json_schema_echo", {"schema": to_document(focal.tool.schema)})
        elif scenario == "http-custom-headers":
            for planned in context.get("toolCalls", []):
                await _call(client, listing, planned["name"], planned.get("arguments", {}))
        elif scenario == "http-invalid-tool-headers":
            await _call_each(client, listing, {"region": "us-west1"})
        elif scenario == "sse-retry":
            await _call(client, listing, "test_reconnection", {})
        elif scenario in ("tools_call", "initialize", "http-standard-headers") and listing.tools:
            await _call(client, listing, listing.tools[0].name, {"a": 2, "b": 3})


def main() -> int:
    """Run the scenario the suite names; 0 when every request succeeded."""
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT", "{}"))
    try:
        anyio.run(run, sys.argv[-1], scenario, version, context)
    except Failed as failed:
        print(failed)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
