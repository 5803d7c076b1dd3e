"""
The sans-I/O core both clients drive: one ``HttpCall`` per attempt and one ``RetryPlan`` per ``send``.

An ``HttpCall`` builds the HTTP request for a ``Prepared`` body (URL, headers, key, the httpx timeouts of the
connect and first-byte phases), then takes what the network gives, as events: the status and headers, each
body chunk as it came off the wire (``raw``: it undoes the content encoding itself, a bounded piece at a
time, and counts every decoded byte, comments of a stream included, against the response bound), the end,
a timeout or an httpx error. It says how long the next chunk may take (``wait``), turns chunks into
``Progress`` and ends with the ``Outcome`` of ``resolve``/``resolve_stream``. It never reads a
socket or a clock: the drivers (``_sync``, ``_async``) pass ``now`` in. A ``RetryPlan`` decides, from each
attempt's outcome, whether to retry and after how long.
"""

from __future__ import annotations

import enum
import random
import zlib
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime

import httpx
from attrs import evolve, frozen

from llm_wire._request import Prepared
from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.outcome import (
    Failure,
    Outcome,
    Sent,
    TransportError,
    TransportProblem,
    resolve,
    resolve_stream,
)
from llm_wire.providers.response import Progress, ProviderError, StreamDecoder
from llm_wire.result import Err, Ok
from llm_wire.transport._settings import RetryPolicy, Timeouts, seconds_of

__all__ = [
    "FAILURES",
    "Attempt",
    "Attempts",
    "HttpCall",
    "RetryPlan",
    "Wait",
    "check_prepared",
    "endpoint_headers",
]

#: How much of an HTTP error body is read (the rest is left unread: an error text needs no more).
ERROR_BODY_BYTES = 64 * 1024
_USER_AGENT = "llm_wire/0.1"
#: The content encodings a request accepts, and the most one decoded piece of a body may hold.
_ACCEPT_ENCODING = "gzip, deflate"
_PIECE_BYTES = 64 * 1024
#: zlib's window bits for each accepted encoding (deflate: the zlib format, or gzip's, detected).
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": 32 + zlib.MAX_WBITS}


class _Mode(enum.Enum):
    HEADERS = "headers"
    BODY = "body"
    STREAM = "stream"
    ERROR = "error"
    DONE = "done"


@frozen
class Wait:
    """How long the next network step may take, and which bound that is (``seconds`` ``None``: no bound)."""

    seconds: float | None
    problem: TransportProblem
    bound: float | None


@frozen
class Attempt:
    """One attempt of a ``send``: its outcome, and the seconds waited before it began."""

    number: int
    outcome: Outcome
    waited: float


@frozen
class Attempts:
    """What a ``send`` did: the last outcome, and every attempt in order (the last one included)."""

    outcome: Outcome
    attempts: tuple[Attempt, ...]


def check_prepared(prepared: object) -> None:
    """``TypeError`` unless ``prepared`` is a ``Prepared``."""
    if not isinstance(prepared, Prepared):
        msg = f"prepared must be a Prepared, not {type(prepared).__name__}"
        raise TypeError(msg)


def endpoint_headers(prepared: Prepared, key: str | None, extra: Mapping[str, str]) -> list[tuple[str, str]]:
    """The request headers: content type, accept, the API's version headers, the key, then ``extra``."""
    http = prepared.wire.http
    accept = "text/event-stream" if prepared.config.stream else "application/json"
    headers = [
        ("content-type", "application/json"),
        ("accept", accept),
        ("accept-encoding", _ACCEPT_ENCODING),
        ("user-agent", _USER_AGENT),
    ]
    headers += list(http.headers)
    if key is not None:
        headers.append((http.key_header, f"{http.key_prefix}{key}"))
    overridden = {name.lower() for name in extra}
    return [(k, v) for k, v in headers if k.lower() not in overridden] + list(extra.items())


#: httpx's failures, most specific first, as what they mean here and what they cost (``None``: nothing is
#: known beyond the stream's own progress). Anything else is a lost connection.
FAILURES: tuple[tuple[type[Exception], tuple[TransportProblem, Sent | None]], ...] = (
    (httpx.ConnectTimeout, (TransportProblem.CONNECT_TIMEOUT, Sent.NOT_SENT)),
    (httpx.PoolTimeout, (TransportProblem.CONNECT_TIMEOUT, Sent.NOT_SENT)),
    (httpx.ReadTimeout, (TransportProblem.FIRST_BYTE_TIMEOUT, None)),
    (httpx.WriteTimeout, (TransportProblem.FIRST_BYTE_TIMEOUT, None)),
    (httpx.ConnectError, (TransportProblem.CONNECT_FAILED, Sent.NOT_SENT)),
    (httpx.ProxyError, (TransportProblem.CONNECT_FAILED, Sent.NOT_SENT)),
    (httpx.UnsupportedProtocol, (TransportProblem.CONNECT_FAILED, Sent.NOT_SENT)),
    (httpx.InvalidURL, (TransportProblem.INVALID_ENDPOINT, Sent.NOT_SENT)),
    (httpx.LocalProtocolError, (TransportProblem.INVALID_ENDPOINT, Sent.NOT_SENT)),
    (httpx.RemoteProtocolError, (TransportProblem.CONNECTION_LOST, None)),
    (httpx.ReadError, (TransportProblem.CONNECTION_LOST, None)),
    (httpx.WriteError, (TransportProblem.CONNECTION_LOST, None)),
    (httpx.CloseError, (TransportProblem.CONNECTION_LOST, None)),
    (httpx.DecodingError, (TransportProblem.CONNECTION_LOST, None)),
    (OSError, (TransportProblem.CONNECTION_LOST, None)),
)


class _Inflate:
    """A content decoder that never makes more than ``_PIECE_BYTES`` of output at once."""

    def __init__(self, wbits: int) -> None:
        self._zlib = zlib.decompressobj(wbits)
        # ``deflate`` is the zlib format, but some servers send raw deflate: tried once, on the first bytes.
        self._raw_fallback = wbits == _WBITS["deflate"]

    def pieces(self, data: bytes) -> Iterator[bytes]:
        """The decoded pieces of ``data``; ``zlib.error`` when it is not the encoding it claims."""
        if self._raw_fallback:
            self._raw_fallback = False
            probe = self._zlib.copy()
            try:
                probe.decompress(data, 1)
            except zlib.error:
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
        while True:
            piece = self._zlib.decompress(data, _PIECE_BYTES)
            data = self._zlib.unconsumed_tail
            if piece:
                yield piece
            if not data and len(piece) < _PIECE_BYTES:
                return

    def flush(self) -> bytes:
        """What is left once the body ended (little: ``pieces`` drained the output)."""
        return self._zlib.flush()


class HttpCall:
    """
    One HTTP exchange for a ``Prepared`` request, sans I/O. Feed it events in order; ``outcome`` is set once
    the exchange is decided (early for an error or a limit, else by ``end``).
    """

    def __init__(
        self,
        prepared: Prepared,
        *,
        url: str,
        headers: list[tuple[str, str]],
        timeouts: Timeouts,
        now: float,
        deadline: float | None = None,
    ) -> None:
        self.prepared = prepared
        self.url = url
        self.headers = headers
        self.content = prepared.body_bytes()
        self._timeouts = timeouts
        total = seconds_of(timeouts.total)
        ends = [d for d in (None if total is None else now + total, deadline) if d is not None]
        self._deadline = min(ends) if ends else None
        #: The bound a ``TOTAL_TIMEOUT`` reports: the timeout, or what the retry deadline left of it.
        self._total = None if self._deadline is None else round(self._deadline - now, 3)
        self._mode = _Mode.HEADERS
        self._status = 0
        self._response_headers: list[tuple[str, str]] = []
        self._body = bytearray()
        #: Decoded bytes of the body so far (every byte, a stream's comments and blank lines included).
        self._received = 0
        self._inflate: _Inflate | None = None
        self._decoder: StreamDecoder | None = None
        self._phase_limit: Wait | None = None
        self._connect_limit = Wait(None, TransportProblem.CONNECT_TIMEOUT, None)
        self._httpx = httpx.Timeout(None)
        self.outcome: Outcome | None = None

    # --- the request -------------------------------------------------------------------------------------

    def timeout(self, now: float) -> httpx.Timeout:
        """The httpx timeouts of the connect and first-byte phases, each cut to what the total leaves."""
        connect = self._cap(seconds_of(self._timeouts.connect), TransportProblem.CONNECT_TIMEOUT, now)
        first = self._cap(seconds_of(self._timeouts.first_byte), TransportProblem.FIRST_BYTE_TIMEOUT, now)
        self._phase_limit = first
        self._connect_limit = connect
        self._httpx = httpx.Timeout(
            connect=connect.seconds, read=first.seconds, write=first.seconds, pool=connect.seconds
        )
        return self._httpx

    def body_timeout(self) -> dict[str, float | None]:
        """
        The httpx timeouts once the headers arrived: each read may take the idle bound (the drivers keep
        the exact idle and total deadlines themselves; this is httpx's own backstop).
        """
        return {**self._httpx.as_dict(), "read": seconds_of(self._timeouts.idle)}

    def headers_wait(self, now: float) -> Wait:
        """How long the whole request phase (connect, write, first byte) may take under the total bound."""
        return self._cap(None, TransportProblem.TOTAL_TIMEOUT, now)

    def _cap(
        self, seconds: float | None, problem: TransportProblem, now: float, bound: float | None = None
    ) -> Wait:
        """``seconds`` of ``problem`` (whose setting is ``bound``), or what the total leaves when less."""
        left = None if self._deadline is None else max(self._deadline - now, 0.0)
        if left is not None and (seconds is None or left <= seconds):
            return Wait(left, TransportProblem.TOTAL_TIMEOUT, self._total)
        return Wait(seconds, problem, seconds if bound is None else bound)

    # --- the response ------------------------------------------------------------------------------------

    def response(self, status: int, headers: list[tuple[str, str]]) -> None:
        """The status line and headers arrived: from here on, a read that times out is an idle gap."""
        self._status = status
        self._response_headers = headers
        idle = seconds_of(self._timeouts.idle)
        self._phase_limit = Wait(idle, TransportProblem.IDLE_TIMEOUT, idle)
        encoding = next(
            (v.strip().lower() for k, v in headers if k.lower() == "content-encoding"), "identity"
        )
        if encoding in _WBITS:
            self._inflate = _Inflate(_WBITS[encoding])
        elif encoding not in ("identity", ""):
            self._finish(
                self._failure(
                    ProtocolError("the response has a content encoding not asked for"), Sent.MAYBE_SENT
                )
            )
            return
        if not 200 <= status < 300:
            self._mode = _Mode.ERROR
        elif self.prepared.config.stream:
            self._mode = _Mode.STREAM
            self._decoder = self.prepared.decoder()
        else:
            self._mode = _Mode.BODY

    def wait(self, now: float, last: float) -> Wait:
        """How long the next chunk may take: the idle gap after the chunk (or headers) at ``last``."""
        idle = seconds_of(self._timeouts.idle)
        left = None if idle is None else max(last + idle - now, 0.0)
        return self._cap(left, TransportProblem.IDLE_TIMEOUT, now, idle)

    def raw(self, data: bytes) -> list[Progress]:
        """
        One body chunk as it came off the wire: ``chunk`` for each bounded piece it decodes to, until the
        outcome is decided (a body inflating past the bound stops there, not once it is whole).
        """
        if self._inflate is None:
            return self.chunk(data)
        progress: list[Progress] = []
        try:
            for piece in self._inflate.pieces(data):
                progress += self.chunk(piece)
                if self.outcome is not None:
                    break
        except zlib.error:
            self._corrupt()
        return progress

    def chunk(self, data: bytes) -> list[Progress]:
        """One decoded chunk of the body: the progress it completes (a stream's); ``outcome`` once decided."""
        if self._mode in (_Mode.STREAM, _Mode.BODY):
            self._received += len(data)
            limits = self.prepared.response_limits
            if self._received > limits.response_body_bytes:
                setting = limits.setting("response_body_bytes")
                error = LimitExceeded(setting, limits.response_body_bytes, None, what="bytes of the response")
                sent = Sent.COMPLETED if self._mode is _Mode.BODY else self._cut()
                self._finish(self._failure(error, sent))
                return []
        if self._mode is _Mode.STREAM:
            assert self._decoder is not None
            match self._decoder.feed_bytes(data):
                case Ok(progress):
                    return progress
                case Err():
                    self._finish(resolve_stream(self._decoder, self.prepared))
                    return []
        if self._mode is _Mode.BODY:
            self._body += data
        elif self._mode is _Mode.ERROR:
            self._body += data
            if len(self._body) >= ERROR_BODY_BYTES:
                self.end()
        return []

    def end(self) -> Outcome:
        """The body ended: the outcome of what arrived."""
        if self.outcome is not None:
            return self.outcome
        if self._inflate is not None and self._mode is not _Mode.ERROR:
            try:
                tail = self._inflate.flush()
            except zlib.error:
                return self._corrupt()
            self.chunk(tail)
            if self.outcome is not None:
                return self.outcome
        match self._mode:
            case _Mode.STREAM:
                assert self._decoder is not None
                return self._finish(resolve_stream(self._decoder, self.prepared))
            case _Mode.BODY:
                return self._finish(resolve(self.prepared.decode_body(bytes(self._body)), self.prepared))
            case _:
                body = bytes(self._body[:ERROR_BODY_BYTES])
                error = self.prepared.wire.decode_error(self._status, body, self._response_headers)
                failed = resolve(Err(error), self.prepared)
                assert isinstance(failed, Failure)
                return self._finish(evolve(failed, provider=self.prepared.provider))

    # --- failures ----------------------------------------------------------------------------------------

    def timed_out(self, wait: Wait) -> Outcome:
        """``wait`` ran out."""
        sent = Sent.NOT_SENT if wait.problem is TransportProblem.CONNECT_TIMEOUT else self._cut()
        return self._finish(self._failure(TransportError(wait.problem, wait.bound), sent))

    def failed(self, error: Exception) -> Outcome:
        """
        The network step failed with ``error`` (an httpx error, or an ``OSError`` below it): the one place
        httpx's failures become typed ones (``FAILURES``).
        """
        problem, sent = next(
            (mapped for kind, mapped in FAILURES if isinstance(error, kind)),
            (TransportProblem.CONNECTION_LOST, None),
        )
        if problem is TransportProblem.CONNECT_TIMEOUT:
            wait = self._connect_limit
            return self._finish(self._failure(TransportError(wait.problem, wait.bound), Sent.NOT_SENT))
        if problem is TransportProblem.FIRST_BYTE_TIMEOUT:
            assert self._phase_limit is not None
            return self.timed_out(self._phase_limit)
        return self._finish(self._failure(TransportError(problem), sent or self._cut()))

    def unsendable(self) -> Outcome:
        """The request could not be built (its URL or a header): nothing was sent."""
        problem = TransportError(TransportProblem.INVALID_ENDPOINT)
        return self._finish(self._failure(problem, Sent.NOT_SENT))

    def no_key(self) -> Outcome:
        """No key for the provider's own endpoint: nothing was sent."""
        return self._finish(self._failure(TransportError(TransportProblem.NO_API_KEY), Sent.NOT_SENT))

    def _corrupt(self) -> Outcome:
        return self._finish(
            self._failure(ProtocolError("the response body is not in its content encoding"), self._cut())
        )

    def _cut(self) -> Sent:
        decoder = self._decoder
        return Sent.COMPLETED if decoder is not None and decoder.completed else Sent.MAYBE_SENT

    def _failure(self, error: TransportError | LimitExceeded | ProtocolError, sent: Sent) -> Failure:
        decoder = self._decoder
        provider = self.prepared.provider
        if decoder is None:
            return Failure(error, sent, False, provider)
        return Failure(error, sent, decoder.partial_output, provider, decoder.usage, decoder.text)

    def _finish(self, outcome: Outcome) -> Outcome:
        if self.outcome is None:
            self.outcome = outcome
        self._mode = _Mode.DONE
        return self.outcome


class RetryPlan:
    """
    The retries of one ``send`` under a ``RetryPolicy`` (or none): each attempt's deadline, and whether and
    when the next one starts.
    """

    def __init__(self, policy: RetryPolicy | None, now: float) -> None:
        self._policy = policy
        self._start = now
        limit = None if policy is None else seconds_of(policy.deadline)
        self.deadline = None if limit is None else now + limit
        self._random = random.Random(None if policy is None else policy.seed)
        self._attempts: list[Attempt] = []
        self._waited = 0.0

    def record(self, outcome: Outcome, now: float, *, wall: datetime | None = None) -> float | None:
        """Record an attempt; the seconds to wait before the next, or ``None`` to stop here."""
        self._attempts.append(Attempt(len(self._attempts) + 1, outcome, self._waited))
        policy = self._policy
        retry = isinstance(outcome, Failure) and outcome.retryable
        if policy is None or len(self._attempts) >= policy.attempts or not retry:
            return None
        assert isinstance(outcome, Failure)
        base = _backoff(policy, len(self._attempts) - 1)
        delay = base * (1 - policy.jitter * self._random.random())
        error = outcome.error
        if isinstance(error, ProviderError):
            advised = _advised(error, wall)
            if advised is not None and self.deadline is None and advised > policy.max_delay:
                # Without a deadline ``max_delay`` is the bound; waiting less than the provider asked
                # would be refused again: the failure is the answer.
                return None
            delay = max(delay, advised or 0.0)
        if self.deadline is not None and now + delay >= self.deadline:
            return None
        self._waited = delay
        return delay

    def result(self) -> Attempts:
        """Every attempt so far, with the last outcome."""
        return Attempts(self._attempts[-1].outcome, tuple(self._attempts))


def _advised(error: ProviderError, wall: datetime | None) -> float | None:
    """The seconds the provider asked to wait, from now (``wall``); a date without a zone is UTC."""
    if error.retry.delay is not None:
        return error.retry.delay.total_seconds()
    at = error.retry.at
    if at is None:
        return None
    at = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return (at - (wall or datetime.now(UTC))).total_seconds()


def _backoff(policy: RetryPolicy, retry: int) -> float:
    """``min(max_delay, initial * multiplier ** retry)``; a growth past the float range is ``max_delay``."""
    try:
        return min(policy.max_delay, policy.initial * policy.multiplier**retry)
    except OverflowError:
        return policy.max_delay if policy.initial > 0 else 0.0
