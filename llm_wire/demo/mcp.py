"""
Demo: the small MCP server started over stdio, its tools listed and declared, and one model call admitted,
sent to the server and mapped back into a tool outcome.
"""

from __future__ import annotations

import os
import sys

import anyio

from llm_wire import admission, mcp, tool
from llm_wire.agent import ToolInvocation
from llm_wire.message import ToolCall
from llm_wire.result import Err, Ok

SERVER = mcp.Stdio(sys.executable, ("-m", "llm_wire.demo.mcp_server"))


def run() -> None:
    """List the server's tools, admit a model's calls, run the admitted one on the server."""
    with open(os.devnull, "w") as quiet, mcp.McpClient(SERVER, errlog=quiet) as client:
        match mcp.provider(client):
            case Err(problem):
                print("could not list the tools:", problem.describe())
                return
            case Ok(tools):
                pass
        print(f"started the demo server over stdio: {tools!r}")
        for descriptor in tools.descriptors():
            found = tools.tool(descriptor.name)
            shown = f" (the server calls it {found.name})" if found and found.name != descriptor.name else ""
            print(f"  declared {descriptor.name}{shown}")
        for left in tools.refused:
            print(f"  left out {left.name}: {left.describe()}")
        calls = [
            ToolCall("call_1", "add", '{"a": 0.1, "b": 0.2}'),
            ToolCall("call_2", "files_2e_read", '{"path": "etc/passwd"}'),
        ]
        declared = [d.tool for d in tools.descriptors()]
        match admission.admit(calls, declared, tool.ToolCallChecks.REPORT):
            case Err(error):
                print("response failed:", error.describe())
                return
            case Ok(admitted):
                pass
        for issue in admitted.issues:
            print(f"  {issue.call_id} refused before the server saw it: {admission.describe_issue(issue)}")
        for good in admitted.admitted:
            descriptor = next(d for d in tools.descriptors() if d.name == good.call.name)
            made = ToolInvocation.of(descriptor, good.arguments_json(), call_id=good.call.id)
            if isinstance(made, Err):
                continue
            invocation: ToolInvocation = made.value
            outcome = anyio.run(tools.invoke, invocation)
            print(f"  {good.call.id} admitted, sent as {good.arguments_json()}")
            print(f"    answered: {outcome.model_text()}")
