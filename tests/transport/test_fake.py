"""
The fake provider on its own: its replies decode in each API as written, scripts run in order, the scripted
model answers in the API it is asked in, recordings replay as recorded, and the command line serves.
"""

from __future__ import annotations

import socket
import struct
import subprocess
import sys
import threading
import time

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from transport_cases import prepared

from llm_wire.message import Provider
from llm_wire.outcome import Answer, Failure, NeedsTools
from llm_wire.providers import WIRES
from llm_wire.providers.response import ErrorKind, ProviderError, ResponseLimits
from llm_wire.result import Ok
from llm_wire.transport import Client
from llm_wire.transport.fake import FakeCall, FakeProvider, Received, Reply, ScriptedModel, answer, recorded
from llm_wire.transport.fake._recorded import sse_text
from llm_wire.transport.fake._scripted import provider_of, streaming
from llm_wire.value import Value, render

texts = st.text(st.characters(codec="utf-8"), max_size=40)
arguments = st.dictionaries(
    st.text(max_size=8), st.integers() | st.text(max_size=10) | st.booleans(), max_size=4
)


class TestSpeak:
    """``answer`` writes what each API's own decoder reads back as the same text and calls."""

    @settings(max_examples=50)
    @given(
        provider=st.sampled_from(list(Provider)),
        text=texts,
        args=st.lists(arguments, max_size=3),
        stream=st.booleans(),
        piece=st.integers(1, 20),
    )
    def test_decodes_as_written(
        self, provider: Provider, text: str, args: list[dict[str, object]], stream: bool, piece: int
    ) -> None:
        """Body or stream, in any delta size: the decoder finds the text and every call's arguments."""
        calls = [FakeCall(f"call_{n}", "get_weather", render(a)) for n, a in enumerate(args)]  # type: ignore[arg-type]
        reply = answer(provider, text, calls, stream=stream, piece=piece)
        decoder = WIRES[provider].decoder(ResponseLimits())
        if stream:
            decoder.feed_bytes(reply.body)
            decoded = decoder.finish()
        else:
            decoded = decoder.decode_body(reply.body)
        assert isinstance(decoded, Ok), decoded
        assert decoded.value.text == text
        assert [(c.name, c.arguments_json.replace(" ", "")) for c in decoded.value.calls] == [
            ("get_weather", c.arguments.replace(" ", "")) for c in calls
        ]


class TestScript:
    """Replies go out in order; a script run dry answers 500."""

    def test_in_order_then_dry(self) -> None:
        """Two answers, then a typed server error: the fake has nothing left to say."""
        script = [answer(Provider.OPENAI_CHAT, "one")]
        with FakeProvider(script) as fake, Client(base_url=fake.url) as client:
            fake.add(answer(Provider.OPENAI_CHAT, "two"))
            got = [client.complete(prepared(Provider.OPENAI_CHAT)) for _ in range(3)]
        assert [g.text for g in got[:2] if isinstance(g, Answer)] == ["one", "two"]
        assert isinstance(got[2], Failure)
        assert isinstance(got[2].error, ProviderError)
        assert got[2].error.kind is ErrorKind.SERVER

    def test_received(self) -> None:
        """Each exchange keeps the request as sent: method, path, headers and body."""
        with FakeProvider([answer(Provider.ANTHROPIC, "hi")]) as fake, Client(base_url=fake.url) as client:
            client.complete(prepared(Provider.ANTHROPIC))
        received = fake.exchanges[0].received
        assert (received.method, received.path) == ("POST", "/v1/messages")
        assert received.header("Content-Type") == "application/json"
        assert received.json() == prepared(Provider.ANTHROPIC).body
        assert fake.exchanges[0].finished.is_set()

    def test_reply_settings_are_checked(self) -> None:
        """A pacing that is not a number of seconds is refused at once."""
        with pytest.raises(TypeError, match=r"Reply\.gap must be a number of seconds"):
            Reply(gap="1")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=r"Reply\.delay must be a non-negative"):
            Reply(delay=-1)


class TestScriptedModel:
    """The scripted model answers each request in the API and form it was sent in."""

    @pytest.mark.parametrize("provider", list(Provider), ids=lambda p: p.value)
    @pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
    def test_every_api(self, provider: Provider, stream: bool) -> None:
        """The path tells the API, the body (or Gemini's method) whether to stream."""
        seen: list[tuple[Provider, bool]] = []

        def respond(received: Received, api: Provider) -> tuple[str, list[FakeCall]]:
            seen.append((api, streaming(received)))
            return "", [FakeCall("c1", "get_weather", '{"city": "Rome"}')]

        with FakeProvider(ScriptedModel(respond)) as fake, Client(base_url=fake.url) as client:
            got = client.complete(prepared(provider, stream))
        assert isinstance(got, NeedsTools)
        assert seen == [(provider, stream)]
        assert provider_of(fake.exchanges[0].received) is provider

    def test_an_unknown_path(self) -> None:
        """A path no API has is a 404."""
        with FakeProvider(ScriptedModel(lambda r, p: ("", []))) as fake:
            response = httpx.post(fake.url + "/v2/elsewhere", content=b"{}")
        assert response.status_code == 404


class TestRecorded:
    """Recordings replay as recorded."""

    def test_events_become_sse(self) -> None:
        """Parsed events are written back as ``event:``/``data:`` frames, ``[DONE]`` as it is."""
        events: Value = [{"event": "ping", "data": {"type": "ping"}}, {"event": None, "data": "[DONE]"}]
        assert sse_text(events) == 'event: ping\ndata: {"type":"ping"}\n\ndata: [DONE]\n\n'

    def test_an_error_record(self) -> None:
        """An error recording replays its status and body."""
        reply = recorded({"http_status": 429, "stream": False, "response": {"error": {"type": "rate_limit"}}})
        assert (reply.status, reply.body) == (429, b'{"error":{"type":"rate_limit"}}')

    def test_a_record_must_be_an_object(self) -> None:
        with pytest.raises(TypeError, match="record must be a JSON object"):
            recorded([1])


class TestCommandLine:
    """``python -m llm_wire.transport.fake`` serves a scripted model in a real process."""

    def test_serves_until_stopped(self) -> None:
        """The process prints its URL and answers a client; it stops when terminated."""
        process = subprocess.Popen(
            [sys.executable, "-m", "llm_wire.transport.fake", "--port", "0"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            url = line.split(" on ", 1)[1].split(",", 1)[0]
            with Client(base_url=url) as client:
                got = client.complete(prepared(Provider.GOOGLE))
        finally:
            process.terminate()
            process.wait(timeout=10)
            if process.stdout is not None:
                process.stdout.close()
        assert isinstance(got, Answer)
        assert got.text == "Hello from the fake google provider."

    def test_a_missing_recording(self, tmp_path: object) -> None:
        """A recording that cannot be read is exit status 2, with no path in the message."""
        done = subprocess.run(
            [sys.executable, "-m", "llm_wire.transport.fake", "/nonexistent/recording.json"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2
        assert "cannot read a recording" in done.stderr
        assert "nonexistent" not in done.stderr


def _reset(url: str, request: bytes, read: int) -> None:
    """Send ``request`` on a new connection, read ``read`` bytes, then reset it (unread bytes left over)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as conn:
        conn.sendall(request)
        conn.recv(read)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def _connection_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if "process_request_thread" in t.name]


class TestQuietServer:
    """Clients that leave early, as real clients do, print nothing from the server."""

    @pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
    def test_a_reset_keep_alive_connection_prints_nothing(
        self, stream: bool, capfd: pytest.CaptureFixture[str]
    ) -> None:
        """A client resetting its kept-alive connection (mid-reply or after it) leaves stderr empty."""
        reply = answer(Provider.OPENAI_CHAT, "x" * 200_000, stream=stream)
        request = b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}"
        before = set(_connection_threads())
        with FakeProvider([reply] * 6) as fake:
            for read in (10, 100_000, 1_000_000):
                _reset(fake.url, request, read)
            _reset(fake.url, request + request, 1_000_000)
            end = time.monotonic() + 5.0
            while set(_connection_threads()) - before and time.monotonic() < end:
                time.sleep(0.02)
            assert fake.connections == 4
        out, err = capfd.readouterr()
        assert (out, err) == ("", "")
