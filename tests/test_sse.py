"""The SSE framer: WHATWG framing, any chunk boundary, any line ending, and bounded lines and events."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_wire.error import LimitExceeded
from llm_wire.result import Err, Ok, Result
from llm_wire.sse import Event, Framer, frame


def events(body: bytes | str, **limits: int) -> list[Event]:
    got = frame(body, **limits)
    assert isinstance(got, Ok), got
    return got.value


def split_feed(body: bytes, cuts: list[int], **limits: int) -> Result[list[Event], LimitExceeded]:
    """Feed ``body`` cut at ``cuts``; the events of every chunk, then of ``finish``."""
    framer = Framer(**limits)
    out: list[Event] = []
    start = 0
    for cut in [*sorted(set(cuts)), len(body)]:
        got = framer.feed(body[start:cut])
        if isinstance(got, Err):
            return got
        out.extend(got.value)
        start = cut
    tail = framer.finish()
    if isinstance(tail, Err):
        return tail
    return Ok(out + tail.value)


class TestFraming:
    """Fields, dispatch and the standard's small rules."""

    def test_data_event_id(self) -> None:
        """``event:``, ``data:`` and ``id:`` make one event; one leading space is dropped."""
        assert events("event: a\ndata: 1\nid: x\n\n") == [Event("1", "a", "x")]

    def test_multi_line_data_joins_with_newline(self) -> None:
        """Several data lines join with LF; a data line without a value adds an empty line."""
        assert events("data: one\ndata:two\ndata\ndata:  three\n\n") == [Event("one\ntwo\n\n three")]

    def test_line_endings(self) -> None:
        """CRLF, LF and CR all end lines, mixed freely."""
        assert events("data: a\r\ndata: b\rdata: c\n\r\n") == [Event("a\nb\nc")]

    def test_comments_and_unknown_fields_are_skipped(self) -> None:
        """A line starting with a colon is a comment; unknown fields are ignored."""
        assert events(": ping\nfoo: bar\ndata: x\n: more\n\n:\n\n") == [Event("x")]

    def test_blank_event_is_not_dispatched(self) -> None:
        """An event without data lines dispatches nothing and resets the event name."""
        assert events("event: a\n\ndata: x\n\n") == [Event("x")]

    def test_empty_event_name_means_default(self) -> None:
        """``event:`` with an empty value is the default type, reported as ``None``."""
        assert events("event:\ndata: x\n\n") == [Event("x")]

    def test_id_carries_over_and_nul_is_ignored(self) -> None:
        """The last id applies to later events; an id holding NUL is ignored."""
        got = events("id: 1\ndata: a\n\ndata: b\n\nid: 2\x00\ndata: c\n\nid\ndata: d\n\n")
        assert [e.id for e in got] == ["1", "1", "1", ""]

    def test_retry(self) -> None:
        """``retry:`` with only digits sets the reconnection time; anything else is ignored."""
        framer = Framer()
        assert framer.feed(b"retry: 1500\nretry: 12a\ndata: x\n\n") == Ok([Event("x")])
        assert framer.retry == 1500

    def test_bom_is_dropped_once(self) -> None:
        """A UTF-8 byte order mark at the very start is dropped, even when split; a later one is data."""
        assert split_feed("\ufeffdata: \ufeff\n\n".encode(), [1, 2]) == Ok([Event("\ufeff")])

    def test_field_name_is_exact(self) -> None:
        """Field names are case-sensitive and a space before the colon belongs to the name."""
        assert events("Data: x\ndata : y\ndata:z\n\n") == [Event("z")]

    def test_invalid_utf8_is_replaced(self) -> None:
        """Invalid UTF-8 decodes to U+FFFD, as the standard says, and never raises."""
        assert events(b"data: \xff\xfe\n\n") == [Event("\ufffd\ufffd")]

    def test_unterminated_event_is_dropped_at_end(self) -> None:
        """An event without its closing blank line is dropped at the end of the stream."""
        framer = Framer()
        assert framer.feed("data: a\n\ndata: b") == Ok([Event("a")])
        assert framer.pending
        assert framer.finish() == Ok([])

    def test_unterminated_event_is_kept_as_unclosed(self) -> None:
        """
        ``finish`` dispatches no unterminated event but keeps it in ``unclosed``, with or without the line
        end of its last line; a last line of another field or a comment does not join it.
        """
        for tail, unclosed in [
            ("event: end\ndata: b", Event("b", "end")),
            ("event: end\ndata: b\n", Event("b", "end")),
            ("data: b\r", Event("b")),
            ("data: b\ndata:c", Event("b\nc")),
            ("data: b\nda", Event("b")),
            ("data: b\n: comment", Event("b")),
            ("event: end", None),
            ("", None),
        ]:
            framer = Framer()
            assert framer.feed("data: a\n\n" + tail) == Ok([Event("a")])
            assert framer.unclosed is None
            assert framer.finish() == Ok([]), tail
            assert framer.unclosed == unclosed, tail
            assert framer.ignored_lines == 0, tail

    def test_unclosed_event_is_bounded(self) -> None:
        """A last line without its line end counts against the event bound."""
        framer = Framer(max_event_bytes=12)
        assert framer.feed("data: abc\ndata: abcdefgh") == Ok([])
        assert isinstance(framer.finish(), Err)
        assert framer.unclosed is None

    def test_final_cr_ends_a_line(self) -> None:
        """A CR at the very end cannot be half of CRLF any more: ``finish`` takes it as a line end."""
        framer = Framer()
        assert framer.feed("data: a\r\r") == Ok([])
        assert framer.finish() == Ok([Event("a")])

    def test_crlf_split_between_chunks(self) -> None:
        """A CR at a chunk's end waits for the next chunk: CR + LF is one line end, not two."""
        framer = Framer()
        assert framer.feed("data: a\r") == Ok([])
        assert framer.feed("\ndata: b\r") == Ok([])
        assert framer.feed("\n\r\n") == Ok([Event("a\nb")])


class TestIgnoredLines:
    """Lines naming no field of the standard are ignored, as it says, and counted for strict readers."""

    def test_unknown_fields_are_counted_not_dispatched(self) -> None:
        framer = Framer()
        got = framer.feed(b'\x00data: {"a": 1}\n\nda\rta: x\n\ndata: kept\nretry: soon\n: comment\n\n')
        assert got == Ok([Event("kept")])
        assert framer.ignored_lines == 3  # "\x00data", "da" and "ta"; a bad retry value is a known field

    def test_a_clean_stream_ignores_nothing(self) -> None:
        framer = Framer()
        framer.feed(b"event: e\nid: 1\nretry: 10\ndata: x\n: ping\n\n")
        assert framer.ignored_lines == 0


class TestLimits:
    """Lines and events are bounded; a bound reached is a value and the framer stays failed."""

    def test_long_line(self) -> None:
        """A complete line over the bound fails with ``line_bytes``."""
        assert frame("data: 12345\n\n", max_line_bytes=8) == Err(
            LimitExceeded("Framer(max_line_bytes=)", 8, 11)
        )

    def test_long_partial_line_fails_before_its_end(self) -> None:
        """A line that keeps growing fails as soon as it passes the bound, before any newline."""
        framer = Framer(max_line_bytes=8)
        assert framer.feed("data: 1") == Ok([])
        assert framer.feed("2345") == Err(LimitExceeded("Framer(max_line_bytes=)", 8, 11))
        assert framer.feed("\n\n") == Err(LimitExceeded("Framer(max_line_bytes=)", 8, 11))
        assert framer.finish() == Err(LimitExceeded("Framer(max_line_bytes=)", 8, 11))

    def test_large_event(self) -> None:
        """The lines of one event together are bounded by ``event_bytes``; comments do not count."""
        body = ": a long comment\ndata: 123\ndata: 456\n\n"
        assert frame(body, max_event_bytes=18) == Ok([Event("123\n456")])
        assert frame(body, max_event_bytes=17) == Err(LimitExceeded("Framer(max_event_bytes=)", 17, 18))

    def test_event_size_resets_after_dispatch(self) -> None:
        """Each event has its own budget."""
        assert len(events("data: 1234\n\n" * 50, max_event_bytes=10)) == 50

    def test_limits_must_be_positive(self) -> None:
        """A zero limit is a definition mistake."""
        with pytest.raises(ValueError, match="positive"):
            Framer(max_line_bytes=0)


# ---------------------------------------------------------------------------------------------------------
# Properties


_values = st.text(
    alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"]), max_size=12
)
_names = st.none() | st.text(alphabet="abcdefg._", min_size=1, max_size=8)
_ends = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[Event]]:
    """A serialised stream with random line endings and comments, and the events it must frame to."""
    lines: list[str] = []
    expected: list[Event] = []
    last_id: str | None = None
    for _ in range(draw(st.integers(0, 5))):
        name = draw(_names)
        data = draw(st.lists(_values, min_size=1, max_size=3))
        new_id = draw(st.none() | st.text(alphabet="0123456789", max_size=4))
        if draw(st.booleans()):
            lines.append(": " + draw(_values))
        if name is not None:
            lines.append(f"event: {name}")
        if new_id is not None:
            lines.append(f"id: {new_id}")
            last_id = new_id
        values = []
        for d in data:
            spaced = draw(st.booleans())
            lines.append(f"data: {d}" if spaced else f"data:{d}")
            values.append(d if spaced or not d.startswith(" ") else d[1:])
        lines.append("")
        expected.append(Event("\n".join(values), name, last_id))
    pieces: list[str] = []
    end = ""
    for line in lines:
        # CR then LF would read as one CRLF: after a bare CR, the next line ends with CRLF instead
        previous, end = end, draw(_ends)
        if previous == "\r" and not line and end == "\n":
            end = "\r\n"
        pieces.append(line + end)
    body = "".join(pieces)
    return body.encode(), expected


class TestProperties:
    """Framing properties over any chunking."""

    @given(streams(), st.lists(st.integers(0, 400), max_size=12))
    def test_any_split_frames_to_the_expected_events(
        self, stream: tuple[bytes, list[Event]], cuts: list[int]
    ) -> None:
        """Whatever the chunk boundaries and line endings, the framer yields exactly the serialised events."""
        body, expected = stream
        cuts = [c for c in cuts if c <= len(body)]
        got = split_feed(body, cuts)
        whole = split_feed(body, [])
        assert got == whole
        assert isinstance(got, Ok)
        assert [(e.data, e.event, e.id) for e in got.value] == [(e.data, e.event, e.id) for e in expected]

    @given(st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=10), st.integers(1, 40))
    def test_arbitrary_bytes_any_split_same_result(self, body: bytes, cuts: list[int], bound: int) -> None:
        """Arbitrary bytes frame to the same events, or fail on the same bound, however they are cut."""
        cuts = [c for c in cuts if c <= len(body)]
        limits = {"max_line_bytes": bound, "max_event_bytes": bound * 2}
        got = split_feed(body, cuts, **limits)
        whole = split_feed(body, [], **limits)
        if isinstance(whole, Ok):
            assert got == whole
        else:
            assert isinstance(got, Err)
            assert got.error.limit == whole.error.limit

    @given(streams())
    def test_crlf_and_lf_frame_alike(self, stream: tuple[bytes, list[Event]]) -> None:
        """Rewriting every line end as LF, CRLF or CR leaves the events unchanged."""
        body, _ = stream
        lines = body.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        variants = [lines, lines.replace(b"\n", b"\r\n"), lines.replace(b"\n", b"\r")]
        framed = [split_feed(variant, []) for variant in variants]
        assert framed[0] == framed[1] == framed[2]

    @given(st.text(max_size=200), st.lists(st.integers(0, 200), max_size=8))
    def test_text_chunks_frame_like_their_bytes(self, text: str, cuts: list[int]) -> None:
        """Feeding ``str`` chunks is the same as feeding their UTF-8 bytes, even with lone surrogates."""
        framer = Framer()
        got: list[Event] = []
        start = 0
        for cut in [*sorted({c for c in cuts if c <= len(text)}), len(text)]:
            chunk = framer.feed(text[start:cut])
            assert isinstance(chunk, Ok)
            got.extend(chunk.value)
            start = cut
        tail = framer.finish()
        assert isinstance(tail, Ok)
        assert Ok(got + tail.value) == frame(text.encode("utf-8", "surrogatepass"))


class TestHostileFields:
    """Field values a hostile server may send never raise."""

    def test_a_retry_of_thousands_of_digits_is_ignored(self) -> None:
        """``int()`` refuses over 4,300 digits; such a ``retry:`` is ignored like any malformed one."""
        framer = Framer()
        assert framer.feed("retry: " + "9" * 5000 + "\ndata: x\n\n") == Ok([Event("x")])
        assert framer.retry is None


class TestEntryTypes:
    """The framer given the wrong Python type raises ``TypeError`` naming the parameter."""

    @pytest.mark.parametrize("chunk", [5, None, ["data: x\n\n"], memoryview(b"data: x\n\n")])
    def test_feed_names_chunk(self, chunk: object) -> None:
        """``Framer.feed`` and ``frame`` take bytes or text only."""
        with pytest.raises(TypeError, match=r"^chunk must be bytes or str, not "):
            Framer().feed(chunk)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"^chunk must be bytes or str, not "):
            frame(chunk)  # type: ignore[arg-type]
