"""
The streams under a connection: a stdio transport whose reads are bounded while they happen, and a watch
on any transport's streams that tells the SDK's own "connection closed" from a server's error of that code.

The SDK's stdio client joins a line's chunks until its newline comes, so a 40 MB result is buffered (and
copied) whole before any limit can look at it. ``bounded_stdio`` splits lines itself (``Lines``): a line
over the bound is answered at once, for the request it answers, with an error that carries the
connection's own ``Watch.marker`` (which no server can know), and the rest of it is read and dropped, so
memory stays bounded and the connection stays usable.
"""

from __future__ import annotations

import dataclasses
import json
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any, TextIO

import anyio
import anyio.abc
from attrs import define, field, frozen

__all__ = ["Lines", "Oversized", "Watch", "bounded_stdio", "request_id", "watched", "with_param_headers"]

#: The first bytes of a line kept to find the id of the request it answers.
_HEAD = 256
#: ``{"jsonrpc": "2.0", "id": ...`` or ``{"id": ...`` at the start of a line: what every SDK writes first.
_ID = re.compile(
    rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?[0-9]{1,18}|"[A-Za-z0-9_.:-]{1,64}")'
)
#: How long closing waits for the server at each step (flush, exit), as the SDK does.
_FLUSH_SECONDS = 0.5
_EXIT_SECONDS = 2.0
#: What a stream raises once its other end is gone.
_GONE = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)


@frozen
class Oversized:
    """A line longer than the bound: its first bytes (``head``) only."""

    head: bytes


@define
class Lines:
    """
    Splits bytes into lines of at most ``limit`` bytes (pure): ``feed`` returns each complete line, and for
    a longer one an ``Oversized`` as soon as it passes the bound, then drops the rest of it.
    """

    limit: int
    _parts: list[bytes] = field(factory=list, init=False)
    _size: int = field(default=0, init=False)
    _head: bytes = field(default=b"", init=False)
    _skipping: bool = field(default=False, init=False)

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        """The lines (or oversized notices) that ``chunk`` completes, in order."""
        found: list[bytes | Oversized] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if not self._skipping:
                if self._size + len(piece) > self.limit:
                    found.append(Oversized((self._head + piece)[:_HEAD]))
                    self._clear()
                    self._skipping = True
                else:
                    self._parts.append(piece)
                    self._size += len(piece)
                    if len(self._head) < _HEAD:
                        self._head += piece[: _HEAD - len(self._head)]
            if end < 0:
                return found
            if not self._skipping:
                found.append(b"".join(self._parts))
            self._clear()
            self._skipping = False
            start = end + 1

    def _clear(self) -> None:
        self._parts, self._size, self._head = [], 0, b""


def request_id(head: bytes) -> int | str | None:
    """The id of the request a line answers, when the line begins with it (as every SDK writes it)."""
    found = _ID.match(head)
    if found is None:
        return None
    value = json.loads(found.group(1))
    return value if isinstance(value, int | str) else None


@define
class Watch:
    """
    What a connection's streams saw: whether they ``ended`` (read to its end, or a write refused), and a
    line over ``line_limit`` (``oversized``). ``marker`` tags the errors this side makes up.
    """

    line_limit: int
    marker: str = field(factory=lambda: f"llm_wire-{secrets.token_hex(16)}")
    ended: bool = False
    oversized: bool = False
    #: Per listed tool (the server's name), its arguments mirrored into ``Mcp-Param-*`` headers: property
    #: path to header token, from the tool's ``x-mcp-header`` declarations (2026-07-28 over HTTP).
    param_headers: dict[str, dict[tuple[str, ...], str]] = field(factory=dict)


class _WatchedRead(anyio.abc.ObjectReceiveStream[Any]):
    def __init__(self, inner: Any, watch: Watch) -> None:
        self._inner = inner
        self._watch = watch

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._watch.ended = True
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()


class _WatchedWrite(anyio.abc.ObjectSendStream[Any]):
    def __init__(self, inner: Any, watch: Watch) -> None:
        self._inner = inner
        self._watch = watch

    async def send(self, item: Any) -> None:
        try:
            await self._inner.send(with_param_headers(item, self._watch.param_headers))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._watch.ended = True
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()


def with_param_headers(item: Any, table: dict[str, dict[tuple[str, ...], str]]) -> Any:
    """
    A ``tools/call`` message with the ``Mcp-Param-*`` headers of its tool's ``x-mcp-header`` declarations
    added to the HTTP headers it carries; any other message as it is. (The SDK mirrors them only for tools
    it listed itself, and its listing drops refused tools without a word.)
    """
    metadata: Any = getattr(item, "metadata", None)
    headers = getattr(metadata, "headers", None)
    message = getattr(item, "message", None)
    if not table or headers is None or getattr(message, "method", None) != "tools/call":
        return item
    params = getattr(message, "params", None) or {}
    declared = table.get(params.get("name"))  # type: ignore[arg-type]
    arguments = params.get("arguments")
    if not declared or not isinstance(arguments, dict):
        return item
    from mcp.shared.inbound import mcp_param_headers

    mirrored = {**headers, **mcp_param_headers(declared, arguments)}
    return dataclasses.replace(item, metadata=dataclasses.replace(metadata, headers=mirrored))


def watched(streams: tuple[Any, Any], watch: Watch) -> tuple[Any, Any]:
    """A transport's read and write streams, each telling ``watch`` when the connection ends."""
    read, write = streams
    return _WatchedRead(read, watch), _WatchedWrite(write, watch)


@asynccontextmanager
async def bounded_stdio(
    command: str,
    args: tuple[str, ...],
    env: dict[str, str] | None,
    cwd: str | None,
    errlog: TextIO,
    watch: Watch,
) -> AsyncIterator[tuple[Any, Any]]:
    """
    The server started as a subprocess (in a session of its own, with the SDK's safe environment under
    ``env``), its stdout read as bounded lines; on leaving, its stdin is closed, and its process group is
    ended if it does not exit in time. Raises ``OSError`` when it cannot be started.
    """
    import mcp_types
    from mcp.client.stdio import get_default_environment
    from mcp.os.posix.utilities import terminate_posix_process_tree
    from mcp.shared.message import SessionMessage

    process = await anyio.open_process(
        [command, *args],
        env=get_default_environment() | (env or {}),
        stderr=errlog,
        cwd=cwd,
        start_new_session=True,
    )
    assert process.stdin is not None
    to_session, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, from_session = anyio.create_memory_object_stream[Any](0)
    written = anyio.Event()

    def refusal(head: bytes) -> Any:
        """An error for the request an oversized line answers, or ``None`` (no id at its start)."""
        answered = request_id(head)
        if answered is None:
            return None
        error = mcp_types.ErrorData(
            code=mcp_types.INTERNAL_ERROR, message="message too long", data=watch.marker
        )
        return SessionMessage(mcp_types.JSONRPCError(jsonrpc="2.0", id=answered, error=error))

    async def read() -> None:
        assert process.stdout is not None
        lines = Lines(watch.line_limit)
        try:
            with suppress(*_GONE):
                async with to_session:
                    async for chunk in process.stdout:
                        for line in lines.feed(chunk):
                            if isinstance(line, Oversized):
                                watch.oversized = True
                                answer = refusal(line.head)
                                if answer is None:
                                    return  # nothing to answer: the connection ends, and its calls with it
                                await to_session.send(answer)
                            elif line.strip():
                                await to_session.send(_message(line, SessionMessage, mcp_types))
        finally:
            with suppress(*_GONE):  # drop what the server still writes, so that it never blocks on a pipe
                async for _ in process.stdout:
                    pass

    async def write() -> None:
        assert process.stdin is not None
        try:
            async with from_session:
                async for message in from_session:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(text.encode("utf-8") + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await to_session.aclose()  # the server stopped reading: the session sees the connection end
        finally:
            written.set()

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        group.start_soon(write)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                with anyio.move_on_after(_FLUSH_SECONDS):
                    await written.wait()
                with suppress(*_GONE):
                    await process.stdin.aclose()
                with anyio.move_on_after(_EXIT_SECONDS):
                    while process.returncode is None:
                        await anyio.sleep(0.01)
                if process.returncode is None:
                    await terminate_posix_process_tree(process, _EXIT_SECONDS)
                with suppress(*_GONE), anyio.move_on_after(_EXIT_SECONDS):
                    await process.aclose()
            group.cancel_scope.cancel()


def _message(line: bytes, session_message: Any, types: Any) -> Any:
    """One line as the SDK's message, or the parse failure as a value (the session reports it)."""
    try:
        return session_message(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc
