"""
``Client`` and ``AsyncClient`` against the fake provider over real loopback HTTP: the round trip for every
API, bodies and streams, keys and headers from the ``Wire``, and the types they refuse.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import socket
import threading
import time
import tracemalloc
import zlib
from datetime import UTC, datetime, timedelta

import pytest
from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st
from transport_cases import CALL, KINDS, SLACK, Kind, prepared, send, stream

from llm_wire import Limit, config
from llm_wire._request import Prepared
from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.message import Provider
from llm_wire.outcome import (
    Answer,
    Failure,
    NeedsTools,
    Outcome,
    OutputLimited,
    Refused,
    Sent,
    TransportError,
    TransportProblem,
)
from llm_wire.providers.response import ErrorKind, Progress, ProviderError, RetryAdvice, TextDelta
from llm_wire.transport import NO_LIMIT, AsyncClient, Attempts, Client, RetryPolicy, Timeouts
from llm_wire.transport.fake import FakeProvider, Reply, answer, error


def replies(provider: Provider, stream: bool) -> list[Reply]:
    return [
        answer(provider, "Let me look.", [CALL], stream=stream),
        answer(provider, "It is sunny in Paris.", stream=stream),
    ]


CASES = [(provider, stream) for provider in Provider for stream in (False, True)]
IDS = [f"{provider.value}-{'stream' if stream else 'body'}" for provider, stream in CASES]


class TestRoundTrip:
    """A call and then an answer come back as ``NeedsTools`` and ``Answer`` for every API."""

    @pytest.mark.parametrize(("provider", "stream"), CASES, ids=IDS)
    def test_sync(self, provider: Provider, stream: bool) -> None:
        """``complete`` returns the admitted call, then the answer."""
        request_ = prepared(provider, stream)
        with FakeProvider(replies(provider, stream)) as fake, Client(base_url=fake.url) as client:
            first = client.complete(request_)
            second = client.complete(request_)
        assert isinstance(first, NeedsTools)
        assert [call.name for call in first.turn.calls] == ["get_weather"]
        assert first.admitted[0].decoded == {"city": "Paris"}
        assert isinstance(second, Answer)
        assert second.text == "It is sunny in Paris."
        assert fake.exchanges[0].received.body == request_.body_bytes()
        assert fake.exchanges[0].received.path == request_.path

    @pytest.mark.parametrize(("provider", "stream"), CASES, ids=IDS)
    def test_async(self, provider: Provider, stream: bool) -> None:
        """``await complete`` gives the same outcomes."""
        request_ = prepared(provider, stream)

        async def run() -> tuple[object, object]:
            with FakeProvider(replies(provider, stream)) as fake:
                async with AsyncClient(base_url=fake.url) as client:
                    return await client.complete(request_), await client.complete(request_)

        first, second = asyncio.run(run())
        assert isinstance(first, NeedsTools)
        assert first.admitted[0].decoded == {"city": "Paris"}
        assert isinstance(second, Answer)
        assert second.text == "It is sunny in Paris."


class TestConnections:
    """A client reuses its connections."""

    @pytest.mark.parametrize("kind", KINDS)
    def test_one_connection_for_several_calls(self, kind: Kind) -> None:
        """Three calls, bodies and a stream, go over one TCP connection."""
        script = [answer(Provider.ANTHROPIC, "one"), answer(Provider.ANTHROPIC, "two", stream=True)] * 2
        with FakeProvider(script) as fake:
            if kind == "sync":
                with Client(base_url=fake.url) as client:
                    got = [client.complete(prepared(Provider.ANTHROPIC, n % 2 == 1)) for n in range(3)]
            else:

                async def run() -> list[Outcome]:
                    async with AsyncClient(base_url=fake.url) as client:
                        return [
                            await client.complete(prepared(Provider.ANTHROPIC, n % 2 == 1)) for n in range(3)
                        ]

                got = asyncio.run(run())
        assert [type(one) for one in got] == [Answer] * 3
        assert fake.connections == 1


def _read_request(conn: socket.socket, pending: bytearray) -> bool:
    """Read one request (headers and ``content-length`` body) off ``conn``; ``False`` when it closed."""
    while b"\r\n\r\n" not in pending:
        data = conn.recv(65536)
        if not data:
            return False
        pending += data
    head, _, rest = bytes(pending).partition(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        ),
        0,
    )
    while len(rest) < length:
        rest += conn.recv(65536)
    pending[:] = rest[length:]
    return True


def _drip_on_reuse(response: bytes, gap: float, stop: threading.Event) -> tuple[str, threading.Thread]:
    """A server answering the first request of its one connection at once, then dripping the second."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with listener, contextlib.suppress(OSError):
            conn, _ = listener.accept()
            with conn:
                pending = bytearray()
                if not _read_request(conn, pending):
                    return
                conn.sendall(response)
                if not _read_request(conn, pending):
                    return
                for n in range(len(response)):
                    if stop.wait(gap):
                        return
                    conn.sendall(response[n : n + 1])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}", thread


class TestReusedConnection:
    """The total bound holds on a reused keep-alive connection as on a fresh one."""

    @pytest.mark.parametrize("kind", KINDS)
    def test_headers_dripping_on_a_reused_connection_end_at_the_total(self, kind: Kind) -> None:
        """Status and headers dripped a byte every 0.1 s on the second call end it at ``total``."""
        body = b"".join(answer(Provider.OPENAI_CHAT, "one").chunks)
        head = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        response = head.encode() + b"x-padding: " + b"p" * 60 + b"\r\n\r\n" + body
        stop = threading.Event()
        url, server = _drip_on_reuse(response, 0.1, stop)
        request_ = prepared(Provider.OPENAI_CHAT)
        timeouts = Timeouts(total=1.0)
        try:
            if kind == "sync":
                with Client(base_url=url, timeouts=timeouts) as client:
                    first = client.complete(request_)
                    start = time.monotonic()
                    second = client.complete(request_)
                    elapsed = time.monotonic() - start
            else:

                async def run() -> tuple[Outcome, Outcome, float]:
                    async with AsyncClient(base_url=url, timeouts=timeouts) as client:
                        one = await client.complete(request_)
                        began = time.monotonic()
                        two = await client.complete(request_)
                        return one, two, time.monotonic() - began

                first, second, elapsed = asyncio.run(run())
        finally:
            stop.set()
            server.join(SLACK)
        assert isinstance(first, Answer)
        assert isinstance(second, Failure)
        assert second.error == TransportError(TransportProblem.TOTAL_TIMEOUT, 1.0)
        assert elapsed < 1.0 + SLACK

    def test_calls_in_a_row_still_share_one_connection(self) -> None:
        """Watching reused connections keeps them reused: six calls, bodies and streams, over one."""
        script = [answer(Provider.ANTHROPIC, "one"), answer(Provider.ANTHROPIC, "two", stream=True)] * 3
        with FakeProvider(script) as fake, Client(base_url=fake.url) as client:
            got = [client.complete(prepared(Provider.ANTHROPIC, n % 2 == 1)) for n in range(6)]
        assert [type(one) for one in got] == [Answer] * 6
        assert fake.connections == 1


class TestStream:
    """``stream`` yields progress as it arrives and ends with the outcome."""

    @pytest.mark.parametrize("provider", list(Provider), ids=lambda p: p.value)
    def test_progress_then_outcome(self, provider: Provider) -> None:
        """Text deltas add up to the answer; the outcome comes last."""
        reply = answer(provider, "It is sunny in Paris.", stream=True)
        with FakeProvider([reply]) as fake, Client(base_url=fake.url) as client:
            items = list(client.stream(prepared(provider, True)))
        *progress, last = items
        assert isinstance(last, Answer)
        assert "".join(p.text for p in progress if isinstance(p, TextDelta)) == last.text

    @pytest.mark.parametrize("provider", list(Provider), ids=lambda p: p.value)
    def test_async_progress(self, provider: Provider) -> None:
        """The async stream yields the same items."""

        async def run() -> list[Progress | object]:
            with FakeProvider([answer(provider, "a b c", [CALL], stream=True)]) as fake:
                async with AsyncClient(base_url=fake.url) as client:
                    return [item async for item in client.stream(prepared(provider, True))]

        *progress, last = asyncio.run(run())
        assert isinstance(last, NeedsTools)
        assert any(isinstance(p, TextDelta) for p in progress)


class TestEndpoint:
    """The endpoint, key and version headers come from the ``Wire``."""

    @pytest.mark.parametrize("provider", list(Provider), ids=lambda p: p.value)
    def test_key_header_from_the_environment(self, provider: Provider) -> None:
        """The key read from the wire's variable goes in the wire's header, with its version headers."""
        http = prepared(provider).wire.http
        environ = {http.key_env[0]: "sk-test"}
        with (
            FakeProvider([answer(provider, "hi")]) as fake,
            Client(base_url=fake.url, environ=environ) as client,
        ):
            client.complete(prepared(provider))
        received = fake.exchanges[0].received
        assert received.header(http.key_header) == f"{http.key_prefix}sk-test"
        for name, value in http.headers:
            assert received.header(name) == value

    def test_no_key_for_the_real_endpoint_sends_nothing(self) -> None:
        """Without a key or base URL the call fails before any I/O, as ``NO_API_KEY`` and ``NOT_SENT``."""
        with Client(environ={}) as client:
            got = client.complete(prepared(Provider.ANTHROPIC))
        assert got == Failure(
            TransportError(TransportProblem.NO_API_KEY), Sent.NOT_SENT, provider=Provider.ANTHROPIC
        )
        assert str(got.error) == "transport error: no api key"

    def test_extra_headers_override(self) -> None:
        """Headers given to the client are sent, replacing the defaults of the same name."""
        headers = {"user-agent": "me", "x-extra": "1"}
        reply = answer(Provider.OPENAI_CHAT, "hi")
        with FakeProvider([reply]) as fake, Client(base_url=fake.url + "/", headers=headers) as client:
            client.complete(prepared(Provider.OPENAI_CHAT))
        received = fake.exchanges[0].received
        assert (received.header("user-agent"), received.header("x-extra")) == ("me", "1")
        assert received.path == "/v1/chat/completions"


class TestTypes:
    """A wrong Python type is a ``TypeError`` naming the parameter."""

    def test_complete_needs_a_prepared(self) -> None:
        with Client(environ={}) as client, pytest.raises(TypeError, match="prepared must be a Prepared"):
            client.complete("body")  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        ("keyword", "value", "message"),
        [
            ("api_key", 5, "api_key must be"),
            ("base_url", b"x", "base_url must be"),
            ("timeouts", 5.0, "timeouts must be a Timeouts"),
            ("retry", 3, "retry must be a RetryPolicy"),
            ("headers", {"a": 1}, "headers must be"),
        ],
    )
    def test_settings(self, keyword: str, value: object, message: str) -> None:
        with pytest.raises(TypeError, match=message):
            Client(**{keyword: value})  # type: ignore[arg-type]


def _stalled_listener() -> tuple[socket.socket, list[socket.socket]]:
    """A loopback port whose accept queue is full: a new connect hangs until its timeout."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    fillers = []
    for _ in range(3):
        filler = socket.socket()
        filler.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            filler.connect(server.getsockname())
        fillers.append(filler)
    return server, fillers


def _failure(attempts: Attempts) -> Failure:
    assert isinstance(attempts.outcome, Failure), attempts.outcome
    return attempts.outcome


FAST = Timeouts(total=20.0, connect=5.0, first_byte=0.4, idle=0.4)


class TestTimeouts:
    """Each timeout fires within its bound and says what was sent."""

    @pytest.mark.parametrize("kind", KINDS)
    def test_connect(self, kind: Kind) -> None:
        """A connect that hangs ends as ``CONNECT_TIMEOUT``, ``NOT_SENT``."""
        server, fillers = _stalled_listener()
        try:
            fake = FakeProvider()
            url = f"http://127.0.0.1:{server.getsockname()[1]}"
            got = _send_to(kind, url, prepared(Provider.OPENAI_CHAT), Timeouts(connect=0.3))
        finally:
            for sock in [server, *fillers]:
                sock.close()
            fake.close()
        failure, elapsed = got
        assert failure.error == TransportError(TransportProblem.CONNECT_TIMEOUT, 0.3)
        assert failure.sent is Sent.NOT_SENT
        assert elapsed < 0.3 + SLACK

    @pytest.mark.parametrize("kind", KINDS)
    @pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
    def test_first_byte(self, kind: Kind, stream: bool) -> None:
        """No status line in ``first_byte``: ``FIRST_BYTE_TIMEOUT``, ``MAYBE_SENT``; the server sees it."""
        reply = evolve(answer(Provider.ANTHROPIC, "late", stream=stream), delay=30.0)
        with FakeProvider([reply]) as fake:
            attempts, elapsed = send(kind, fake, prepared(Provider.ANTHROPIC, stream), timeouts=FAST)
            assert fake.exchanges[0].disconnected.wait(SLACK)
        failure = _failure(attempts)
        assert failure.error == TransportError(TransportProblem.FIRST_BYTE_TIMEOUT, 0.4)
        assert (failure.sent, failure.partial_output) == (Sent.MAYBE_SENT, False)
        assert elapsed < 0.4 + SLACK

    @pytest.mark.parametrize("kind", KINDS)
    @pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
    def test_idle(self, kind: Kind, stream: bool) -> None:
        """A body that stops mid-way: ``IDLE_TIMEOUT``, ``MAYBE_SENT``, with the progress seen so far."""
        reply = answer(Provider.OPENAI_CHAT, "one two three four five", stream=stream)
        if not stream:
            reply = evolve(reply, chunks=(reply.body[:10], reply.body[10:]))
        with FakeProvider([evolve(reply, stall_after=3 if stream else 1)]) as fake:
            attempts, elapsed = send(kind, fake, prepared(Provider.OPENAI_CHAT, stream), timeouts=FAST)
            assert fake.exchanges[0].disconnected.wait(SLACK)
        failure = _failure(attempts)
        assert failure.error == TransportError(TransportProblem.IDLE_TIMEOUT, 0.4)
        assert (failure.sent, failure.partial_output) == (Sent.MAYBE_SENT, stream)
        assert failure.text == ("one two " if stream else "")
        assert elapsed < 0.4 + SLACK

    @pytest.mark.parametrize("kind", KINDS)
    def test_total(self, kind: Kind) -> None:
        """A stream that drips under the idle bound still ends at the total bound."""
        reply = evolve(answer(Provider.GOOGLE, " ".join(["word"] * 40), stream=True), gap=0.1)
        timeouts = Timeouts(total=0.8, idle=5.0, first_byte=5.0)
        with FakeProvider([reply]) as fake:
            attempts, elapsed = send(kind, fake, prepared(Provider.GOOGLE, True), timeouts=timeouts)
            assert fake.exchanges[0].disconnected.wait(SLACK)
        failure = _failure(attempts)
        assert failure.error == TransportError(TransportProblem.TOTAL_TIMEOUT, 0.8)
        assert (failure.sent, failure.partial_output) == (Sent.MAYBE_SENT, True)
        assert elapsed < 0.8 + SLACK

    def test_an_idle_bound_longer_than_the_first_byte(self) -> None:
        """Gaps longer than ``first_byte`` but within ``idle`` are no timeout once the response started."""
        reply = evolve(answer(Provider.GOOGLE, "a b c", stream=True), gap=0.25)
        with FakeProvider([reply]) as fake:
            timeouts = Timeouts(first_byte=0.1, idle=3.0)
            attempts, _ = send("sync", fake, prepared(Provider.GOOGLE, True), timeouts=timeouts)
        assert isinstance(attempts.outcome, Answer)

    def test_no_limit_is_written_out(self) -> None:
        """``NO_LIMIT`` is a bound; ``None`` is refused naming the setting, a non-positive number too."""
        assert Timeouts(total=NO_LIMIT).total is NO_LIMIT
        with pytest.raises(TypeError, match=r"Timeouts\.total must be a number of seconds or NO_LIMIT"):
            Timeouts(total=None)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=r"Timeouts\.idle must be a positive"):
            Timeouts(idle=0)

    def test_no_limits_still_completes(self) -> None:
        """With every bound lifted a call completes as usual."""
        unbounded = Timeouts(total=NO_LIMIT, connect=NO_LIMIT, first_byte=NO_LIMIT, idle=NO_LIMIT)
        with FakeProvider([answer(Provider.ANTHROPIC, "fine", stream=True)]) as fake:
            attempts, _ = send("sync", fake, prepared(Provider.ANTHROPIC, True), timeouts=unbounded)
        assert isinstance(attempts.outcome, Answer)


def _send_to(kind: Kind, url: str, prepared_: Prepared, timeouts: Timeouts) -> tuple[Failure, float]:
    start = time.monotonic()
    if kind == "sync":
        with Client(base_url=url, timeouts=timeouts) as client:
            got = client.complete(prepared_)
    else:

        async def run() -> Outcome:
            async with AsyncClient(base_url=url, timeouts=timeouts) as client:
                return await client.complete(prepared_)

        got = asyncio.run(run())
    assert isinstance(got, Failure), got
    return got, time.monotonic() - start


class TestCut:
    """A connection cut before the response is whole never yields an admitted call."""

    @pytest.mark.parametrize("provider", list(Provider), ids=lambda p: p.value)
    def test_every_cut_of_a_call_stream(self, provider: Provider) -> None:
        """Cut after each event of a streamed call: always a ``Failure``, ``CONNECTION_LOST``."""
        reply = answer(provider, "checking", [CALL], stream=True)
        cuts = [evolve(reply, cut_after=n) for n in range(len(reply.chunks))]
        with FakeProvider(cuts) as fake, Client(base_url=fake.url) as client:
            got = [client.complete(prepared(provider, True)) for _ in cuts]
        assert all(isinstance(one, Failure) for one in got)
        assert {one.error for one in got if isinstance(one, Failure)} == {
            TransportError(TransportProblem.CONNECTION_LOST)
        }

    @pytest.mark.parametrize("kind", KINDS)
    def test_cut_body(self, kind: Kind) -> None:
        """A body cut short of its length is lost, ``MAYBE_SENT``."""
        reply = answer(Provider.OPENAI_RESPONSES, "a whole answer", [CALL])
        reply = evolve(reply, chunks=(reply.body[:40], reply.body[40:]), cut_after=1)
        with FakeProvider([reply]) as fake:
            attempts, _ = send(kind, fake, prepared(Provider.OPENAI_RESPONSES))
        assert _failure(attempts).error == TransportError(TransportProblem.CONNECTION_LOST)
        assert _failure(attempts).sent is Sent.MAYBE_SENT

    @settings(max_examples=25)
    @given(data=st.data())
    def test_a_cut_at_any_byte(self, data: st.DataObject) -> None:
        """Cut at any byte of a streamed call: never ``NeedsTools``."""
        provider = data.draw(st.sampled_from(list(Provider)))
        whole = answer(provider, "x", [CALL], stream=True).body
        at = data.draw(st.integers(0, len(whole) - 1))
        reply = Reply(chunks=(whole[:at], whole[at:]), stream=True, cut_after=1)
        with FakeProvider([reply]) as fake, Client(base_url=fake.url) as client:
            got = client.complete(prepared(provider, True))
        assert isinstance(got, Failure)
        assert got.error == TransportError(TransportProblem.CONNECTION_LOST)


HTTP_DATE = "Wed, 21 Oct 2026 07:28:00 GMT"


class TestHttpErrors:
    """An HTTP error decodes through the wire into a typed error with retry advice."""

    @pytest.mark.parametrize("provider", list(Provider), ids=lambda p: p.value)
    @pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
    def test_429_retry_after_seconds(self, provider: Provider, stream: bool) -> None:
        """429 with ``Retry-After: 7``: rate limited, retryable after 7 s, nothing sent."""
        with FakeProvider([error(provider, 429, retry_after="7")]) as fake:
            attempts, _ = send("sync", fake, prepared(provider, stream))
        failure = _failure(attempts)
        assert isinstance(failure.error, ProviderError)
        assert (failure.error.kind, failure.error.status) == (ErrorKind.RATE_LIMITED, 429)
        assert failure.error.retry == RetryAdvice(True, timedelta(seconds=7))
        assert failure.sent is Sent.NOT_SENT

    @pytest.mark.parametrize("kind", KINDS)
    def test_429_retry_after_date(self, kind: Kind) -> None:
        """``Retry-After`` as an HTTP date is kept as the moment to retry at."""
        with FakeProvider([error(Provider.ANTHROPIC, 429, retry_after=HTTP_DATE)]) as fake:
            attempts, _ = send(kind, fake, prepared(Provider.ANTHROPIC))
        failure = _failure(attempts)
        assert isinstance(failure.error, ProviderError)
        assert failure.error.retry == RetryAdvice(True, None, datetime(2026, 10, 21, 7, 28, tzinfo=UTC))

    @pytest.mark.parametrize(
        ("status", "kind", "sent"),
        [
            (500, ErrorKind.SERVER, Sent.MAYBE_SENT),
            (503, ErrorKind.SERVER, Sent.MAYBE_SENT),
            (529, ErrorKind.OVERLOADED, Sent.NOT_SENT),
        ],
    )
    def test_5xx(self, status: int, kind: ErrorKind, sent: Sent) -> None:
        """A 5xx is a retryable typed error (overloaded: refused unsent); its text names no input."""
        with FakeProvider([error(Provider.ANTHROPIC, status, message="secret 42")]) as fake:
            attempts, _ = send("async", fake, prepared(Provider.ANTHROPIC))
        failure = _failure(attempts)
        assert isinstance(failure.error, ProviderError)
        got = failure.error
        assert (got.kind, got.status, got.retry.retryable) == (kind, status, True)
        assert (failure.sent, failure.provider) == (sent, Provider.ANTHROPIC)
        assert "secret" not in str(failure)

    @pytest.mark.parametrize("kind", KINDS)
    @pytest.mark.parametrize(
        "date",
        [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "Sun, 06 Nov 1994 08:49:37 -0000",
        ],
        ids=["imf-fixdate", "rfc850", "asctime", "minus-zero-zone"],
    )
    def test_every_http_date_form_is_an_aware_utc_time(self, kind: Kind, date: str) -> None:
        """Each date form of RFC 9110 is read as the same aware UTC time, and a retry policy obeys it."""
        script = [error(Provider.OPENAI_CHAT, 429, retry_after=date), answer(Provider.OPENAI_CHAT, "done")]
        with FakeProvider(script) as fake:
            attempts, _ = send(kind, fake, prepared(Provider.OPENAI_CHAT), retry=QUICK)
        first = attempts.attempts[0].outcome
        assert isinstance(first, Failure)
        assert isinstance(first.error, ProviderError)
        assert first.error.retry.at == datetime(1994, 11, 6, 8, 49, 37, tzinfo=UTC)
        assert first.error.retry.at.utcoffset() == timedelta(0)
        assert isinstance(attempts.outcome, Answer)

    def test_rate_limit_headers(self) -> None:
        """``retry-after-ms`` and ``x-should-retry`` are read as the provider's advice."""
        headers = (("retry-after-ms", "250"), ("x-should-retry", "false"))
        with FakeProvider([error(Provider.OPENAI_CHAT, 503, headers=headers)]) as fake:
            attempts, _ = send("sync", fake, prepared(Provider.OPENAI_CHAT))
        failure = _failure(attempts)
        assert isinstance(failure.error, ProviderError)
        assert failure.error.retry == RetryAdvice(False, timedelta(milliseconds=250))


QUICK = RetryPolicy(attempts=3, initial=0.01, max_delay=0.05, deadline=10.0, seed=1)


class TestRetry:
    """``RetryPolicy`` retries only safe failures, reports every attempt, and stops at its deadline."""

    @pytest.mark.parametrize("kind", KINDS)
    def test_retries_a_retryable_error(self, kind: Kind) -> None:
        """503, 429, then an answer: three attempts, the last one the answer."""
        script = [
            error(Provider.OPENAI_CHAT, 503),
            error(Provider.OPENAI_CHAT, 429, retry_after="0"),
            answer(Provider.OPENAI_CHAT, "done"),
        ]
        with FakeProvider(script) as fake:
            attempts, _ = send(kind, fake, prepared(Provider.OPENAI_CHAT), retry=QUICK)
        assert isinstance(attempts.outcome, Answer)
        assert [a.number for a in attempts.attempts] == [1, 2, 3]
        assert [type(a.outcome) for a in attempts.attempts] == [Failure, Failure, Answer]
        assert attempts.attempts[0].waited == 0.0
        assert attempts.attempts[1].waited > 0

    def test_no_policy_no_retry(self) -> None:
        """Without a policy a retryable error is returned at once."""
        with FakeProvider([error(Provider.GOOGLE, 503), answer(Provider.GOOGLE, "no")]) as fake:
            attempts, _ = send("sync", fake, prepared(Provider.GOOGLE))
        assert len(attempts.attempts) == 1
        assert len(fake.exchanges) == 1

    @pytest.mark.parametrize("kind", KINDS)
    def test_never_retries_what_may_have_been_sent(self, kind: Kind) -> None:
        """A cut stream (``MAYBE_SENT``) and a refused request (400) are not retried."""
        cut = evolve(answer(Provider.ANTHROPIC, "a b", [CALL], stream=True), cut_after=2)
        for reply in (cut, error(Provider.ANTHROPIC, 400)):
            with FakeProvider([reply, answer(Provider.ANTHROPIC, "no")]) as fake:
                attempts, _ = send(kind, fake, prepared(Provider.ANTHROPIC, reply is cut), retry=QUICK)
            assert len(attempts.attempts) == 1
            assert isinstance(attempts.outcome, Failure)

    def test_retries_a_refused_connection(self) -> None:
        """A refused connection sent nothing: retried until the attempts run out."""
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}"
        closed.close()
        with Client(base_url=url) as client:
            got = client.send(prepared(Provider.OPENAI_CHAT), retry=QUICK)
        assert [a.outcome for a in got.attempts] == [
            Failure(
                TransportError(TransportProblem.CONNECT_FAILED), Sent.NOT_SENT, provider=Provider.OPENAI_CHAT
            )
        ] * 3

    def test_stops_when_the_advised_wait_passes_the_deadline(self) -> None:
        """A ``Retry-After`` past the deadline ends the send at once."""
        policy = RetryPolicy(attempts=5, deadline=1.0)
        with FakeProvider([error(Provider.OPENAI_CHAT, 429, retry_after="30")]) as fake:
            attempts, elapsed = send("sync", fake, prepared(Provider.OPENAI_CHAT), retry=policy)
        assert len(attempts.attempts) == 1
        assert elapsed < SLACK

    @pytest.mark.parametrize("kind", KINDS)
    @pytest.mark.parametrize(
        "after",
        ["99999999999", "9" * 400, "Fri, 31 Dec 9999 23:59:59 GMT", "40"],
        ids=["11-digits", "400-digits", "year-9999", "past-max-delay"],
    )
    def test_a_huge_retry_after_ends_the_retries(self, kind: Kind, after: str) -> None:
        """
        An advised wait past the deadline or ``max_delay`` (however huge) is not cut short: the send ends
        at once with the provider's error and its advice, and nothing is sent again.
        """
        policy = RetryPolicy(attempts=5, max_delay=30.0, deadline=NO_LIMIT)
        script = [error(Provider.OPENAI_CHAT, 429, retry_after=after), answer(Provider.OPENAI_CHAT, "early")]
        with FakeProvider(script) as fake:
            attempts, elapsed = send(kind, fake, prepared(Provider.OPENAI_CHAT), retry=policy)
        failure = _failure(attempts)
        assert isinstance(failure.error, ProviderError)
        advice = failure.error.retry
        assert advice.delay is not None or advice.at is not None
        assert (len(attempts.attempts), len(fake.exchanges)) == (1, 1)
        assert elapsed < SLACK

    @pytest.mark.parametrize("kind", KINDS)
    def test_the_deadline_bounds_a_running_attempt(self, kind: Kind) -> None:
        """An attempt still running at the deadline ends there, as ``TOTAL_TIMEOUT``."""
        policy = RetryPolicy(deadline=0.5)
        stalled = evolve(answer(Provider.OPENAI_CHAT, "late"), delay=30.0)
        timeouts = Timeouts(first_byte=60.0)
        with FakeProvider([stalled]) as fake:
            attempts, elapsed = send(
                kind, fake, prepared(Provider.OPENAI_CHAT), timeouts=timeouts, retry=policy
            )
        failure = _failure(attempts)
        assert isinstance(failure.error, TransportError)
        assert failure.error.problem is TransportProblem.TOTAL_TIMEOUT
        assert elapsed < 0.5 + SLACK


class TestCancellation:
    """Closing a stream or cancelling its task closes the connection at once."""

    @pytest.mark.parametrize("kind", KINDS)
    def test_closing_a_stream(self, kind: Kind) -> None:
        """Closed after its first delta, the stream's connection closes: the server sees the client leave."""
        reply = evolve(answer(Provider.ANTHROPIC, "one two three", stream=True), stall_after=4)
        with FakeProvider([reply]) as fake:
            items = stream(kind, fake, prepared(Provider.ANTHROPIC, True), lambda got: bool(got))
            assert fake.exchanges[0].disconnected.wait(SLACK)
        assert len(items) == 1

    def test_cancelling_the_task(self) -> None:
        """Cancelling a task that reads a stalled stream closes its connection; nothing reads on."""

        async def run(fake: FakeProvider) -> None:
            async with AsyncClient(base_url=fake.url) as client:

                async def read() -> None:
                    async for _ in client.stream(prepared(Provider.OPENAI_RESPONSES, True)):
                        pass

                task = asyncio.create_task(read())
                while not fake.exchanges:
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.1)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task

        reply = evolve(answer(Provider.OPENAI_RESPONSES, "one two", stream=True), stall_after=2)
        with FakeProvider([reply]) as fake:
            asyncio.run(run(fake))
            assert fake.exchanges[0].disconnected.wait(SLACK)


class TestLimits:
    """``Config``'s response size limit holds for bodies and streams."""

    @pytest.mark.parametrize("kind", KINDS)
    def test_body_over_the_limit(self, kind: Kind) -> None:
        """A body past ``response_bytes`` stops being read: a ``LimitExceeded`` naming the setting."""
        small = config(Provider.OPENAI_CHAT).with_limit(Limit.RESPONSE_BYTES, 200)
        with FakeProvider([answer(Provider.OPENAI_CHAT, "x" * 1000)]) as fake:
            attempts, _ = send(kind, fake, prepared(Provider.OPENAI_CHAT, base=small))
        failure = _failure(attempts)
        assert isinstance(failure.error, LimitExceeded)
        assert failure.error.setting == "Config.with_limit(Limit.RESPONSE_BYTES, n)"
        assert failure.error.limit == 200

    def test_stream_over_the_limit(self) -> None:
        """A stream past ``response_bytes`` fails the same way."""
        small = config(Provider.ANTHROPIC).with_limit(Limit.RESPONSE_BYTES, 300)
        with FakeProvider([answer(Provider.ANTHROPIC, "word " * 200, stream=True)]) as fake:
            attempts, _ = send("sync", fake, prepared(Provider.ANTHROPIC, True, base=small))
        failure = _failure(attempts)
        assert isinstance(failure.error, LimitExceeded)
        assert failure.error.setting == "Config.with_limit(Limit.RESPONSE_BYTES, n)"


def _gzip(block: bytes, mebibytes: int) -> bytes:
    """``mebibytes`` MiB of ``block`` repeated, gzip-compressed a MiB at a time (never all in memory)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    mebibyte = block * (1024 * 1024 // len(block))
    parts = [packer.compress(mebibyte) for _ in range(mebibytes)]
    return b"".join([*parts, packer.flush()])


class TestEveryByteCounts:
    """Every byte that arrives counts against ``RESPONSE_BYTES``: comments, and bytes once decompressed."""

    @pytest.mark.parametrize("kind", KINDS)
    def test_stream_comments_count(self, kind: Kind) -> None:
        """A stream of SSE comment lines past the bound is refused, not read on."""
        small = config(Provider.ANTHROPIC).with_limit(Limit.RESPONSE_BYTES, 256 * 1024)
        real = answer(Provider.ANTHROPIC, "hi", stream=True)
        comments = tuple(b": keep-alive " + b"x" * 1000 + b"\n" for _ in range(2000))
        with FakeProvider([evolve(real, chunks=comments + real.chunks)]) as fake:
            attempts, _ = send(kind, fake, prepared(Provider.ANTHROPIC, True, base=small))
        failure = _failure(attempts)
        assert isinstance(failure.error, LimitExceeded)
        assert failure.error.setting == "Config.with_limit(Limit.RESPONSE_BYTES, n)"

    @pytest.mark.parametrize("kind", KINDS)
    @pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
    def test_a_gzip_bomb_stops_at_the_bound(self, kind: Kind, stream: bool) -> None:
        """
        A body of 200 MiB gzipped to 200 KiB stops inflating once past the 8 MiB bound: the peak memory
        stays under three times the bound.
        """
        real = answer(Provider.OPENAI_CHAT, "hi", stream=stream)
        # A body of blanks (JSON allows them) or a stream of comment lines: nothing but the bound ends it.
        bomb = _gzip(b": comment\n" if stream else b" " * 64, 200)
        reply = evolve(real, chunks=(bomb,), headers=(("content-encoding", "gzip"),))
        with FakeProvider([reply]) as fake:
            tracemalloc.start()
            try:
                attempts, _ = send(kind, fake, prepared(Provider.OPENAI_CHAT, stream))
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
        failure = _failure(attempts)
        assert isinstance(failure.error, LimitExceeded)
        assert failure.error.limit == 8 * 1024 * 1024
        assert peak < 3 * 8 * 1024 * 1024

    @pytest.mark.parametrize("kind", KINDS)
    @pytest.mark.parametrize("encoding", ["gzip", "deflate"])
    def test_a_compressed_answer_is_read(self, kind: Kind, encoding: str) -> None:
        """A gzip or deflate body within the bound decodes as if sent plain; the request asks for both."""
        real = answer(Provider.OPENAI_CHAT, "sunny")
        body = b"".join(real.chunks)
        packed = gzip.compress(body) if encoding == "gzip" else zlib.compress(body)
        reply = evolve(real, chunks=(packed[:7], packed[7:]), headers=(("content-encoding", encoding),))
        with FakeProvider([reply]) as fake:
            attempts, _ = send(kind, fake, prepared(Provider.OPENAI_CHAT))
            assert fake.exchanges[0].received.header("accept-encoding") == "gzip, deflate"
        assert isinstance(attempts.outcome, Answer)
        assert attempts.outcome.text == "sunny"

    @pytest.mark.parametrize("kind", KINDS)
    @pytest.mark.parametrize("wbits", [zlib.MAX_WBITS, -zlib.MAX_WBITS], ids=["zlib", "raw"])
    def test_deflate_in_either_form_decodes(self, kind: Kind, wbits: int) -> None:
        """``deflate`` is the zlib format, but servers also send it raw (as httpx accepts): both read."""
        real = answer(Provider.OPENAI_CHAT, "sunny")
        packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
        packed = packer.compress(b"".join(real.chunks)) + packer.flush()
        pieces = tuple(packed[i : i + 16] for i in range(0, len(packed), 16))
        reply = evolve(real, chunks=pieces, headers=(("content-encoding", "deflate"),))
        with FakeProvider([reply]) as fake:
            attempts, _ = send(kind, fake, prepared(Provider.OPENAI_CHAT))
        assert isinstance(attempts.outcome, Answer)
        assert attempts.outcome.text == "sunny"

    @pytest.mark.parametrize("kind", KINDS)
    def test_a_corrupt_or_unasked_encoding_is_a_typed_failure(self, kind: Kind) -> None:
        """A body that is not what its encoding says, or an encoding not asked for, fails typed."""
        real = answer(Provider.OPENAI_CHAT, "sunny")
        for name, chunks in (("gzip", (b"not gzip at all",)), ("br", real.chunks)):
            reply = evolve(real, chunks=chunks, headers=(("content-encoding", name),))
            with FakeProvider([reply]) as fake:
                attempts, _ = send(kind, fake, prepared(Provider.OPENAI_CHAT))
            failure = _failure(attempts)
            assert isinstance(failure.error, ProtocolError)
            assert name not in str(failure)


class TestStreamTypes:
    """``stream`` refuses a wrong type at the call, before any iteration."""

    def test_sync(self) -> None:
        with Client(environ={}) as client, pytest.raises(TypeError, match="prepared must be a Prepared"):
            client.stream(b"{}")  # type: ignore[arg-type]

    def test_async(self) -> None:
        async def run() -> None:
            async with AsyncClient(environ={}) as client:
                client.stream(None)  # type: ignore[arg-type]

        with pytest.raises(TypeError, match="prepared must be a Prepared"):
            asyncio.run(run())


class TestHostileServer:
    """Whatever a server sends, the client returns an outcome; nothing raises."""

    @settings(max_examples=30)
    @given(
        provider=st.sampled_from(list(Provider)),
        status=st.sampled_from([200, 201, 301, 400, 404, 429, 500, 503]),
        body=st.binary(max_size=300) | st.text(max_size=200).map(str.encode),
        stream=st.booleans(),
        retry_after=st.none() | st.text(st.characters(codec="ascii", min_codepoint=32), max_size=30),
    )
    def test_any_reply(
        self, provider: Provider, status: int, body: bytes, stream: bool, retry_after: str | None
    ) -> None:
        """Any status, body and ``Retry-After``: a typed outcome; an HTTP error is a ``ProviderError``."""
        headers = (("retry-after", retry_after.strip()),) if retry_after and retry_after.strip() else ()
        reply = Reply(status=status, chunks=(body,), stream=stream, headers=headers)
        with FakeProvider([reply]) as fake, Client(base_url=fake.url) as client:
            got = client.complete(prepared(provider, stream))
        assert isinstance(got, Answer | NeedsTools | Failure | OutputLimited | Refused)
        if not 200 <= status < 300:
            assert isinstance(got, Failure)
            assert isinstance(got.error, ProviderError)


class TestInvalidEndpoint:
    """A request HTTP cannot carry is refused before anything is sent, and never retried."""

    def test_a_key_http_cannot_carry(self) -> None:
        with Client(base_url="http://127.0.0.1:9", api_key="k\u2603") as client:
            got = client.send(prepared(Provider.OPENAI_CHAT), retry=QUICK)
        assert [a.outcome for a in got.attempts] == [
            Failure(
                TransportError(TransportProblem.INVALID_ENDPOINT),
                Sent.NOT_SENT,
                provider=Provider.OPENAI_CHAT,
            )
        ]
