"""
The fake provider's HTTP server: stdlib ``http.server`` on loopback, one thread per connection.

Each request is recorded (``Received``) and answered with the next ``Reply`` of the script. While it waits
(a stall, a drip, a held connection) the handler watches its socket, so it sees the moment a client
disconnects (``Exchange.disconnected``). A client that resets or leaves its connection is ordinary: the
server prints nothing for it (any other error in a handler is still printed).
"""

from __future__ import annotations

import contextlib
import select
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

from attrs import field, frozen

from llm_wire.result import Ok
from llm_wire.transport.fake._reply import Reply
from llm_wire.value import Value, parse

__all__ = ["Exchange", "FakeProvider", "Received", "Script"]

#: The longest a held connection is kept open when the client never leaves.
HOLD_SECONDS = 60.0
_POLL = 0.02


@frozen
class Received:
    """A request as the fake provider received it."""

    method: str
    path: str
    headers: tuple[tuple[str, str], ...]
    body: bytes = field(repr=False)

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (case-insensitive), or ``None``."""
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def json(self) -> Value:
        """The body as a JSON value, or ``None`` when it is not JSON."""
        parsed = parse(self.body)
        return parsed.value if isinstance(parsed, Ok) else None


class Exchange:
    """One request and what became of its reply: ``disconnected`` is set when the client left early."""

    def __init__(self, received: Received, reply: Reply) -> None:
        self.received = received
        self.reply = reply
        self.disconnected = threading.Event()
        self.finished = threading.Event()


#: A script: the replies in order, or a function from each request to its reply.
Script = Iterable[Reply] | Callable[[Received], Reply]


class FakeProvider:
    """
    A real HTTP server on ``127.0.0.1`` (an ephemeral port unless given) answering from ``script``. Use it
    as a context manager, or ``start``/``close``. ``url`` is the base URL to give a client.
    """

    def __init__(self, script: Script = (), *, port: int = 0) -> None:
        if callable(script):
            self._handler: Callable[[Received], Reply] | None = script
            self._replies: list[Reply] = []
        else:
            self._handler = None
            self._replies = list(script)
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.exchanges: list[Exchange] = []
        #: TCP connections accepted so far (a client that reuses its connections opens one).
        self.connections = 0
        self._server = _QuietServer(("127.0.0.1", port), _handler_for(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def add(self, *replies: Reply) -> None:
        """Queue more replies."""
        with self._lock:
            self._replies.extend(replies)

    def start(self) -> FakeProvider:
        """Serve in a background thread; returns this provider."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._server.serve_forever, args=(_POLL,), name="llm_wire-fake", daemon=True
            )
            self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted."""
        self._server.serve_forever(_POLL)

    def close(self) -> None:
        """Stop serving and end every held connection."""
        self._closing.set()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def _next(self, received: Received) -> Exchange:
        with self._lock:
            if self._handler is not None:
                reply = self._handler(received)
            elif self._replies:
                reply = self._replies.pop(0)
            else:
                body = (
                    b'{"error": {"message": "the fake provider has no reply left", "type": "server_error"}}'
                )
                reply = Reply(status=500, chunks=(body,))
            exchange = Exchange(received, reply)
            self.exchanges.append(exchange)
        return exchange


class _QuietServer(ThreadingHTTPServer):
    """A threading HTTP server that is silent about clients that disconnect."""

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


def _handler_for(fake: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            with fake._lock:
                fake.connections += 1
            # Each chunk goes out at once (no Nagle wait for the client's delayed ACK).
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: tests and the demo print what matters themselves."""

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            received = Received("POST", self.path, tuple(self.headers.items()), body)
            exchange = fake._next(received)
            try:
                _send(self, exchange, fake._closing)
            except (BrokenPipeError, ConnectionResetError):
                exchange.disconnected.set()
                self.close_connection = True
            finally:
                exchange.finished.set()

        do_GET = do_POST

    return Handler


def _left(sock: socket.socket) -> bool:
    """Whether the client closed its side (readable with nothing to read)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def _pause(
    handler: BaseHTTPRequestHandler, seconds: float, exchange: Exchange, closing: threading.Event
) -> bool:
    """Wait ``seconds`` watching the socket; ``False`` when the client left (or the server closes)."""
    end = time.monotonic() + seconds
    while True:
        if _left(handler.connection):
            exchange.disconnected.set()
            return False
        left = end - time.monotonic()
        if left <= 0:
            return True
        if closing.wait(min(left, _POLL)):
            return False


def _send(handler: BaseHTTPRequestHandler, exchange: Exchange, closing: threading.Event) -> None:
    reply = exchange.reply
    if reply.delay and not _pause(handler, reply.delay, exchange, closing):
        handler.close_connection = True
        return
    handler.send_response(reply.status)
    handler.send_header("content-type", reply.content_type)
    for name, value in reply.headers:
        handler.send_header(name, value)
    if reply.stream:
        handler.send_header("transfer-encoding", "chunked")
        handler.send_header("cache-control", "no-cache")
    else:
        handler.send_header("content-length", str(len(reply.body)))
    handler.end_headers()
    handler.wfile.flush()
    for n, chunk in enumerate(reply.chunks):
        if reply.cut_after is not None and n >= reply.cut_after:
            _cut(handler)
            return
        if reply.stall_after is not None and n >= reply.stall_after:
            _pause(handler, HOLD_SECONDS, exchange, closing)
            _cut(handler)
            return
        if n and reply.gap and not _pause(handler, reply.gap, exchange, closing):
            handler.close_connection = True
            return
        if reply.stream and not chunk:
            continue  # an empty chunk would end a chunked body
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if reply.stream else chunk)
        handler.wfile.flush()
    if reply.stall_after is not None and reply.stall_after >= len(reply.chunks):
        _pause(handler, HOLD_SECONDS, exchange, closing)
        _cut(handler)
        return
    if reply.stream:
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()


def _cut(handler: BaseHTTPRequestHandler) -> None:
    handler.close_connection = True
    with contextlib.suppress(OSError):
        handler.connection.shutdown(socket.SHUT_RDWR)
