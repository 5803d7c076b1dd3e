"""
The blocking client: ``Client`` drives the sans-I/O ``HttpCall`` over an ``httpx.Client``.

httpx's own timeouts hold the connect and first-byte bounds, each cut to what the total leaves. A watchdog
thread holds the rest on the socket itself (found through httpcore's ``trace`` and ``network_stream``
extensions): from the connect on, the total bound; after the headers, each idle gap. When a deadline passes
it shuts the socket down, so a stalled read ends at its bound whatever httpx's per-read timeout allows.

A reused keep-alive connection has no connect to trace: the client keeps the sockets of the connections it
opened, by origin (``_Sockets``). A request sent on a reused connection is watched, until its headers
arrive, on its origin's only idle connection (the pool can have handed out no other); with several idle
connections to one origin (threads sharing the client) it cannot tell which is its own, and is not watched
until its headers arrive rather than risk shutting down another request's connection.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Generator, Iterator, Mapping
from types import TracebackType
from typing import TypeAlias

import httpx

from llm_wire._request import Prepared
from llm_wire.outcome import Outcome
from llm_wire.providers.response import Progress
from llm_wire.transport._base import BaseClient
from llm_wire.transport._core import Attempts, HttpCall, RetryPlan, Wait, check_prepared
from llm_wire.transport._settings import RetryPolicy, Timeouts

__all__ = ["Client"]

_DEFAULT_TIMEOUTS = Timeouts()
#: A connection's origin: scheme, host and port.
_Origin: TypeAlias = tuple[str, str, int | None]


class _Sockets:
    """
    The sockets of a client's connections, each with its origin and the exchange holding it (``None``:
    idle). A request on a reused connection holds a socket only when it is sure to be the one in use.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[socket.socket, tuple[_Origin, object | None]] = {}

    def hold(self, sock: socket.socket, origin: _Origin, holder: object) -> None:
        """``holder`` uses ``sock`` (a new connection, or the one its headers came on)."""
        with self._lock:
            self._prune()
            self._known[sock] = (origin, holder)

    def hold_reused(self, origin: _Origin, holder: object) -> socket.socket | None:
        """
        The socket of a request sent on a reused connection to ``origin``: the origin's only idle
        connection (the pool can have handed out no other). ``None`` when that is not sure: another
        exchange's socket is never held, so a deadline never shuts a connection someone else is using.
        """
        with self._lock:
            self._prune()
            socks = [sock for sock, (known, held) in self._known.items() if known == origin and held is None]
            if len(socks) != 1:
                return None
            self._known[socks[0]] = (origin, holder)
            return socks[0]

    def release(self, holder: object) -> None:
        """``holder`` gives back the socket it holds."""
        with self._lock:
            for sock, (origin, held) in self._known.items():
                if held is holder:
                    self._known[sock] = (origin, None)

    def _prune(self) -> None:
        for sock in [sock for sock in self._known if sock.fileno() < 0]:
            del self._known[sock]


class _Watchdog:
    """Shuts sockets down when a deadline passes before it is moved or stopped."""

    def __init__(self, *socks: socket.socket) -> None:
        self.socks = socks
        self._cond = threading.Condition()
        self._deadline: float | None = None
        self._wait: Wait | None = None
        self._stopped = False
        self.fired: Wait | None = None
        self._thread = threading.Thread(target=self._run, name="llm_wire-watchdog", daemon=True)
        self._thread.start()

    def arm(self, wait: Wait, now: float) -> None:
        with self._cond:
            self._wait = wait
            self._deadline = None if wait.seconds is None else now + wait.seconds
            self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
        self._thread.join()

    def _run(self) -> None:
        with self._cond:
            while not self._stopped:
                deadline = self._deadline
                if deadline is None:
                    self._cond.wait()
                    continue
                left = deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                self.fired = self._wait
                for sock in self.socks:
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)
                return


def _socket_of_stream(stream: object) -> socket.socket | None:
    """The socket under an httpcore network stream, when it has one."""
    get = getattr(stream, "get_extra_info", None)
    sock = get("socket") if callable(get) else None
    return sock if isinstance(sock, socket.socket) else None


def _failed(call: HttpCall, error: Exception, dogs: list[_Watchdog]) -> None:
    """A network step raised: the watchdog's bound when it fired (it shut the socket), else the error."""
    fired = dogs[0].fired if dogs else None
    if fired is not None:
        call.timed_out(fired)
    else:
        call.failed(error)


class Client:
    """
    Sends ``Prepared`` requests over HTTP and returns their outcomes; reuses connections. Close it (or use
    it as a context manager) when done.

    The endpoint, key header and API version come from the request's ``Wire``; the key is ``api_key`` or
    the wire's environment variables, read from ``environ`` (``os.environ`` by default); none is needed
    when ``base_url`` is given. ``headers`` go with every request, over the defaults of the same name.
    ``http`` is an ``httpx.Client`` of your own (proxies, certificates); it is closed with this client.
    A wrong Python type for any argument is a ``TypeError`` naming it.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeouts: Timeouts = _DEFAULT_TIMEOUTS,
        retry: RetryPolicy | None = None,
        http: httpx.Client | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._base = BaseClient(
            api_key=api_key,
            base_url=base_url,
            headers=headers,
            timeouts=timeouts,
            retry=retry,
            environ=environ,
        )
        if http is not None and not isinstance(http, httpx.Client):
            msg = f"http must be an httpx.Client or None, not {type(http).__name__}"
            raise TypeError(msg)
        self._http = http if http is not None else httpx.Client(timeout=None)
        self._sockets = _Sockets()

    def complete(self, prepared: Prepared, *, retry: RetryPolicy | None = None) -> Outcome:
        """The outcome of sending ``prepared`` (a stream is read to its end); ``TypeError`` if not one."""
        return self.send(prepared, retry=retry).outcome

    def send(self, prepared: Prepared, *, retry: RetryPolicy | None = None) -> Attempts:
        """``complete`` with every attempt reported (one without a ``RetryPolicy``)."""
        for item in self._run(prepared, retry):
            if isinstance(item, Attempts):
                return item
        raise AssertionError("a send ends with its attempts")  # pragma: no cover

    def stream(
        self, prepared: Prepared, *, retry: RetryPolicy | None = None
    ) -> Generator[Progress | Outcome, None, None]:
        """
        The progress of ``prepared``'s response as it arrives, then its outcome, last. Closing the iterator
        closes the connection. ``TypeError`` at once if ``prepared`` is no ``Prepared``.
        """
        check_prepared(prepared)
        return self._stream(prepared, self._base.policy(retry))

    def _stream(
        self, prepared: Prepared, retry: RetryPolicy | None
    ) -> Generator[Progress | Outcome, None, None]:
        for item in self._run(prepared, retry):
            yield item.outcome if isinstance(item, Attempts) else item

    def _run(self, prepared: Prepared, retry: RetryPolicy | None) -> Iterator[Progress | Attempts]:
        plan = RetryPlan(self._base.policy(retry), time.monotonic())
        while True:
            call, missing = self._base.call(prepared, time.monotonic(), plan.deadline)
            if missing:
                call.no_key()
            else:
                yield from self._exchange(call)
            assert call.outcome is not None
            delay = plan.record(call.outcome, time.monotonic())
            if delay is None:
                yield plan.result()
                return
            time.sleep(delay)

    def _exchange(self, call: HttpCall) -> Iterator[Progress]:
        """Drive ``call`` over the network; it holds the outcome at the end."""
        dogs: list[_Watchdog] = []
        sockets = self._sockets

        def watch(*socks: socket.socket) -> None:
            now = time.monotonic()
            dogs.append(_Watchdog(*socks))
            dogs[0].arm(call.headers_wait(now), now)

        def trace(event: str, info: Mapping[str, object]) -> None:
            # From the connect on (or, on a reused connection, from the request on) the total bound holds
            # on the socket while the headers are awaited.
            if dogs:
                return
            if event == "connection.connect_tcp.complete":
                sock = _socket_of_stream(info.get("return_value"))
                if sock is not None:
                    sockets.hold(sock, origin, call)
                    watch(sock)
            elif event == "http11.send_request_headers.started":
                reused = sockets.hold_reused(origin, call)
                if reused is not None:
                    watch(reused)

        def closing(event: str, info: Mapping[str, object]) -> None:
            # The connection goes back to the pool: idle here too, before another request can take it.
            if event == "http11.response_closed.started":
                sockets.release(call)
            else:
                trace(event, info)

        timeout = call.timeout(time.monotonic()).as_dict()
        extensions = {"timeout": timeout, "trace": closing}
        try:
            request = self._http.build_request(
                "POST", call.url, headers=call.headers, content=call.content, extensions=extensions
            )
        except (httpx.InvalidURL, httpx.HTTPError, UnicodeError, ValueError):
            call.unsendable()
            return
        origin: _Origin = (request.url.scheme, request.url.host, request.url.port)
        response: httpx.Response | None = None
        try:
            try:
                response = self._http.send(request, stream=True)
            except (httpx.HTTPError, OSError) as error:
                _failed(call, error, dogs)
                return
            call.response(response.status_code, list(response.headers.multi_items()))
            # httpcore reads the body's read timeout when the body starts: the idle bound from here on.
            request.extensions["timeout"] = call.body_timeout()
            sock = _socket_of_stream(response.extensions.get("network_stream"))
            if sock is not None and (not dogs or dogs[0].socks != (sock,)):
                # The body is watched on its own connection (known now), and only there.
                for dog in dogs:
                    dog.stop()
                sockets.release(call)
                sockets.hold(sock, origin, call)
                dogs[:] = [_Watchdog(sock)]
            last = time.monotonic()
            chunks = response.iter_raw()
            while call.outcome is None:
                for dog in dogs:
                    now = time.monotonic()
                    dog.arm(call.wait(now, last), now)
                try:
                    data = next(chunks, None)
                except (httpx.HTTPError, OSError) as error:
                    _failed(call, error, dogs)
                    return
                if dogs and dogs[0].fired is not None:
                    call.timed_out(dogs[0].fired)
                    return
                if data is None:
                    call.end()
                    return
                last = time.monotonic()
                yield from call.raw(data)
        finally:
            for dog in dogs:
                dog.stop()
            if response is not None:
                response.close()
            sockets.release(call)

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
