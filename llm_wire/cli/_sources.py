"""Where ``check`` and ``admit`` find tools: a saved ``tools/list`` result, an MCP server, a Python module."""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import stat
import sys
from collections.abc import Callable
from functools import partial

from attrs import frozen

from llm_wire import mcp
from llm_wire.result import Err, Ok, Result
from llm_wire.tool import Tool
from llm_wire.value import Limits, parse

__all__ = ["INPUT_BYTES", "Source", "add_arguments", "load_all", "read_input", "shown"]

#: The most an input file may hold (a saved listing or a recorded response).
INPUT_BYTES = 64 << 20
_FILE_LIMITS = Limits().with_max_bytes(INPUT_BYTES)


def read_input(path: str) -> Result[bytes, str]:
    """
    The bytes of a regular file, read bounded: ``Err`` with a message for a FIFO, a device or a directory
    (refused without waiting on it), a file over ``INPUT_BYTES``, or one that cannot be read.
    """
    try:
        # Non-blocking open: a FIFO with no writer would otherwise wait forever before fstat could look.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        return Err(f"{path}: cannot be read ({type(exc).__name__})")
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return Err(f"{path}: not a regular file (a FIFO, device or directory); name a file")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        while size <= INPUT_BYTES:
            chunk = os.read(fd, min(1 << 20, INPUT_BYTES + 1 - size))
            if not chunk:
                return Ok(b"".join(chunks))
            chunks.append(chunk)
            size += len(chunk)
        return Err(f"{path}: is larger than the {INPUT_BYTES >> 20} MiB an input may hold")
    except OSError as exc:
        return Err(f"{path}: cannot be read ({type(exc).__name__})")
    finally:
        os.close(fd)


@frozen
class Source:
    """Tools from one place: a label, the declared MCP tools (or plain tools), and those left out."""

    label: str
    kind: str
    tools: tuple[Tool, ...]
    #: The server's own name of each declared tool, by wire name (MCP sources only).
    names: dict[str, str]
    left_out: tuple[mcp.LeftOut, ...] = ()


def shown(name: str) -> str:
    """A name from a server or a response as a terminal may show it: control characters escaped."""
    return name if name.isprintable() else name.encode("unicode_escape").decode("ascii")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The source options, each repeatable."""
    group = parser.add_argument_group("tool sources (at least one; each may repeat)")
    group.add_argument(
        "--tools", action="append", default=[], metavar="FILE", help="a saved tools/list result"
    )
    group.add_argument(
        "--server", action="append", default=[], metavar="COMMAND", help="an MCP server command (stdio)"
    )
    group.add_argument("--url", action="append", default=[], metavar="URL", help="an MCP streamable HTTP URL")
    group.add_argument(
        "--module", action="append", default=[], metavar="MODULE", help="a Python module holding Tool objects"
    )


def _listing(label: str, kind: str, listing: mcp.Listing) -> Source:
    names = {t.wire_name: t.name for t in listing.tools}
    return Source(label, kind, listing.declared(), names, listing.refused)


def _from_file(path: str) -> Result[Source, str]:
    match read_input(path):
        case Err(message):
            return Err(message)
        case Ok(text):
            pass
    match parse(text, _FILE_LIMITS):
        case Err(error):
            return Err(f"{path}: {error.describe()}")
        case Ok(document):
            pass
    tools = document.get("tools") if isinstance(document, dict) else document
    if not isinstance(tools, list):
        return Err(f"{path}: holds no tools array (a tools/list result has one)")
    return Ok(_listing(path, "tools-file", mcp.declare(tools)))


def _from_server(server: mcp.Stdio | mcp.StreamableHttp, label: str) -> Result[Source, str]:
    with open(os.devnull, "w") as quiet, mcp.McpClient(server, errlog=quiet) as client:
        match client.list_tools():
            case Err(problem):
                return Err(f"{label}: {problem.describe()}")
            case Ok(listing):
                return Ok(_listing(label, "server", listing))


def _from_url(url: str) -> Result[Source, str]:
    return _from_server(mcp.StreamableHttp(url), url)


def _from_module(name: str) -> Result[Source, str]:
    from llm_wire.agent import ToolDescriptor, TypedTool

    if os.getcwd() not in sys.path:  # as ``python -m`` does: a module beside the caller is found
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(name)
    except (Exception, SystemExit) as exc:  # any failure of the user's module (an exit too) is unreadable
        return Err(f"{name}: cannot be imported ({type(exc).__name__})")
    found: dict[int, Tool] = {}
    for value in vars(module).values():
        if isinstance(value, TypedTool):
            value = value.descriptor
        if isinstance(value, ToolDescriptor):
            value = value.tool
        if isinstance(value, Tool):
            found.setdefault(id(value), value)
    return Ok(Source(name, "module", tuple(found.values()), {}))


def load_all(args: argparse.Namespace) -> Result[list[Source], str]:
    """Every source the arguments name, in order; ``Err`` with a message for the first that fails."""
    loaders: list[Callable[[], Result[Source, str]]] = [
        *(partial(_from_file, path) for path in args.tools),
        *(partial(_from_command, command) for command in args.server),
        *(partial(_from_url, url) for url in args.url),
        *(partial(_from_module, module) for module in args.module),
    ]
    if not loaders:
        return Err("name at least one source: --tools, --server, --url or --module")
    sources = []
    for load in loaders:
        match load():
            case Err(message):
                return Err(message)
            case Ok(source):
                sources.append(source)
    return Ok(sources)


def _from_command(command: str) -> Result[Source, str]:
    try:
        words = shlex.split(command)
    except ValueError:
        return Err(f"{command}: not a command line (unbalanced quotes)")
    if not words:
        return Err("--server needs a command")
    return _from_server(mcp.Stdio(words[0], tuple(words[1:])), command)
