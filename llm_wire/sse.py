"""
Server-sent events: an incremental, bounded framer for ``text/event-stream`` bodies.

Feed it chunks of bytes as they arrive, cut anywhere (inside a line, between ``\\r`` and ``\\n``, inside a
UTF-8 sequence); it yields each complete ``Event`` exactly as the WHATWG HTML standard frames it. Lines end
with CRLF, LF or CR; ``data:`` lines join with ``\\n``; comment lines (``:``) are skipped; ``event:``,
``id:`` and ``retry:`` are kept. A line with any other field is ignored, as the standard says, and
counted in ``Framer.ignored_lines``: a strict reader of a provider stream may refuse it (a stray byte
before ``data:`` turns a whole event into such a line). One line and one event are bounded, and a bound
reached is a typed ``LimitExceeded`` value, never an exception.
"""

from __future__ import annotations

import re

from attrs import frozen

from llm_wire.error import LimitExceeded
from llm_wire.result import Err, Ok, Result

__all__ = ["Event", "Framer", "frame"]

#: The default bound on one line, in bytes (1 MiB).
_DEFAULT_LINE_BYTES = 1024 * 1024
#: The default bound on one event (its field lines together), in bytes (1 MiB).
_DEFAULT_EVENT_BYTES = 1024 * 1024

_BOM = b"\xef\xbb\xbf"
_EOL = re.compile(rb"[\r\n]")


@frozen
class Event:
    """
    One dispatched event: its ``event:`` name (``None`` when the stream gave none), data, and last id.
    """

    data: str
    event: str | None = None
    #: The last event id the stream set (it carries over to later events, as the standard says).
    id: str | None = None


#: A ``retry:`` field longer than this (over 11 days in milliseconds) is ignored, like a malformed one.
_RETRY_DIGITS = 9


class Framer:
    """
    Turns a byte stream into events. Not thread-safe; one framer per stream.

    After a limit is reached the framer stays failed: every later call returns the same error.
    """

    def __init__(
        self, *, max_line_bytes: int = _DEFAULT_LINE_BYTES, max_event_bytes: int = _DEFAULT_EVENT_BYTES
    ) -> None:
        if max_line_bytes < 1 or max_event_bytes < 1:
            msg = "SSE limits must be positive"
            raise ValueError(msg)
        self._max_line = max_line_bytes
        self._max_event = max_event_bytes
        self._buffer = bytearray()
        self._scan = 0
        self._started = False
        self._error: LimitExceeded | None = None
        self._data: list[str] = []
        self._has_data = False
        self._event: str | None = None
        self._event_bytes = 0
        self._last_id: str | None = None
        self._retry: int | None = None
        self._ignored = 0
        self._unclosed: Event | None = None

    def feed(self, chunk: bytes | str) -> Result[list[Event], LimitExceeded]:
        """
        The events completed by ``chunk``; ``Err(LimitExceeded)`` when a line or an event is too large.
        """
        if not isinstance(chunk, bytes | bytearray | str):
            msg = f"chunk must be bytes or str, not {type(chunk).__name__}"
            raise TypeError(msg)
        if self._error is not None:
            return Err(self._error)
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8", "surrogatepass")
        self._buffer += chunk
        if not self._started:
            if len(self._buffer) < len(_BOM) and _BOM.startswith(bytes(self._buffer)):
                return Ok([])
            if self._buffer.startswith(_BOM):
                del self._buffer[: len(_BOM)]
            self._started = True
        buffer = self._buffer
        events: list[Event] = []
        if buffer.find(b"\r", self._scan) < 0:
            # No CR: lines end at LF alone, and a run of whole lines splits at once.
            last = buffer.rfind(b"\n", self._scan)
            if last >= 0:
                failed = self._lines(buffer[:last], events)
                if failed is not None:
                    return failed
                del buffer[: last + 1]
        else:
            start = 0
            while (match := _EOL.search(buffer, self._scan)) is not None:
                end = match.start()
                if buffer[end] == 0x0D:  # CR: a CRLF pair may be cut between two chunks
                    if end + 1 == len(buffer):
                        break
                    after = end + 2 if buffer[end + 1] == 0x0A else end + 1
                else:
                    after = end + 1
                raw = buffer[start:end]
                failed = self._line(raw.decode("utf-8", "replace"), len(raw), events)
                if failed is not None:
                    return failed
                start = self._scan = after
            del buffer[:start]
        self._scan = len(buffer) - 1 if buffer.endswith(b"\r") else len(buffer)
        if self._scan > self._max_line:
            return self._fail("line_bytes", self._max_line, self._scan)
        return Ok(events)

    def finish(self) -> Result[list[Event], LimitExceeded]:
        """
        End of stream: the events a final CR completes. An event without its closing blank line is not
        dispatched, as the standard says; ``unclosed`` holds it for a reader that may take a last event.
        """
        if self._error is not None:
            return Err(self._error)
        events: list[Event] = []
        if self._buffer.endswith(b"\r"):
            raw = self._buffer[:-1]
            failed = self._line(raw.decode("utf-8", "replace"), len(raw), events)
            if failed is not None:
                return failed
        elif self._buffer:
            failed = self._last_line(bytes(self._buffer))
            if failed is not None:
                return failed
        if self._has_data:
            self._unclosed = Event("\n".join(self._data), self._event, self._last_id)
        self._buffer.clear()
        self._scan = 0
        self._reset()
        return Ok(events)

    @property
    def retry(self) -> int | None:
        """The reconnection time the stream asked for with ``retry:``, in milliseconds."""
        return self._retry

    @property
    def ignored_lines(self) -> int:
        """How many lines named a field the standard does not know (ignored, not dispatched)."""
        return self._ignored

    @property
    def pending(self) -> bool:
        """Whether an unfinished line or event is buffered (``finish`` would drop it)."""
        return bool(self._buffer) or self._has_data or self._event is not None

    @property
    def unclosed(self) -> Event | None:
        """
        After ``finish``: the event the stream ended inside, without its closing blank line (or the line end
        of its last line), framed as if that blank line had come. Whole or cut, the framer cannot tell.
        """
        return self._unclosed

    def _lines(self, region: bytearray, events: list[Event]) -> Err[LimitExceeded] | None:
        """
        ``_line`` for each LF-separated line of ``region``, decoded at once (an invalid sequence never spans
        a LF), with the common ``data:`` and ``event:`` lines handled inline.
        """
        try:
            text = region.decode("utf-8")
        except UnicodeDecodeError:
            for raw in region.split(b"\n"):
                failed = self._line(raw.decode("utf-8", "replace"), len(raw), events)
                if failed is not None:
                    return failed
            return None
        ascii_only = region.isascii()
        max_line, max_event = self._max_line, self._max_event
        for line in text.split("\n"):
            size = len(line) if ascii_only or line.isascii() else len(line.encode("utf-8"))
            if size > max_line:
                return self._fail("line_bytes", max_line, size)
            if line.startswith("data:"):
                self._event_bytes += size
                if self._event_bytes > max_event:
                    return self._fail("event_bytes", max_event, self._event_bytes)
                self._data.append(line[6:] if line.startswith("data: ") else line[5:])
                self._has_data = True
            elif line.startswith("event:"):
                self._event_bytes += size
                if self._event_bytes > max_event:
                    return self._fail("event_bytes", max_event, self._event_bytes)
                self._event = (line[7:] if line.startswith("event: ") else line[6:]) or None
            elif not line:
                if self._has_data:
                    events.append(Event("\n".join(self._data), self._event, self._last_id))
                    self._data = []
                    self._has_data = False
                self._event = None
                self._event_bytes = 0
            else:
                failed = self._line(line, size, events)
                if failed is not None:
                    return failed
        return None

    def _line(self, line: str, size: int, events: list[Event]) -> Err[LimitExceeded] | None:
        """One line, decoded, of ``size`` bytes."""
        if size > self._max_line:
            return self._fail("line_bytes", self._max_line, size)
        if not line:
            if self._has_data:
                events.append(Event("\n".join(self._data), self._event, self._last_id))
            self._reset()
            return None
        if line[0] == ":":  # a comment
            return None
        self._event_bytes += size
        if self._event_bytes > self._max_event:
            return self._fail("event_bytes", self._max_event, self._event_bytes)
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._event = value or None
        elif name == "id":
            if "\x00" not in value:
                self._last_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit() and len(value) <= _RETRY_DIGITS:
                self._retry = int(value)
        else:
            self._ignored += 1
        return None

    def _last_line(self, raw: bytes) -> Err[LimitExceeded] | None:
        """A last line without its line end: a ``data:`` or ``event:`` line joins the unclosed event."""
        line = raw.decode("utf-8", "replace")
        name, colon, value = line.partition(":")
        if name not in ("data", "event"):
            return None
        self._event_bytes += len(raw)
        if self._event_bytes > self._max_event:
            return self._fail("event_bytes", self._max_event, self._event_bytes)
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
        else:
            self._event = value or None
        return None

    def _reset(self) -> None:
        self._data = []
        self._has_data = False
        self._event = None
        self._event_bytes = 0

    def _fail(self, limit: str, value: int, measured: int) -> Err[LimitExceeded]:
        what = "bytes of one SSE line" if limit == "line_bytes" else "bytes of one SSE event"
        self._error = LimitExceeded(f"Framer(max_{limit}=)", value, measured, what=what)
        return Err(self._error)


def frame(
    body: bytes | str,
    *,
    max_line_bytes: int = _DEFAULT_LINE_BYTES,
    max_event_bytes: int = _DEFAULT_EVENT_BYTES,
) -> Result[list[Event], LimitExceeded]:
    """
    Every event of a whole stream body; ``Err(LimitExceeded)`` when a line or an event is too large.
    """
    framer = Framer(max_line_bytes=max_line_bytes, max_event_bytes=max_event_bytes)
    match framer.feed(body):
        case Err() as failed:
            return failed
        case Ok(events):
            pass
    match framer.finish():
        case Err() as failed:
            return failed
        case Ok(tail):
            return Ok(events + tail)
