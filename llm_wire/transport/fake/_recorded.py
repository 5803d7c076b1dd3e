"""
Recorded exchanges (``shared/corpora/provider-responses``) as replies: the recorded bytes, byte for byte.
"""

from __future__ import annotations

from llm_wire.transport.fake._reply import Reply
from llm_wire.value import Value, render

__all__ = ["CHUNK_BYTES", "recorded", "sse_text"]

#: Replayed bodies go out in chunks of this many bytes (odd, so boundaries fall inside lines and UTF-8).
CHUNK_BYTES = 509


def sse_text(events: Value) -> str:
    """SSE text for recorded parsed events (``[{"event": name | None, "data": value | "[DONE]"}]``)."""
    lines: list[str] = []
    for entry in events if isinstance(events, list) else []:
        if not isinstance(entry, dict):
            continue
        name, data = entry.get("event"), entry.get("data")
        if isinstance(name, str):
            lines.append(f"event: {name}\n")
        lines.append(f"data: {data if isinstance(data, str) else render(data)}\n\n")
    return "".join(lines)


def _chunks(data: bytes) -> tuple[bytes, ...]:
    return tuple(data[i : i + CHUNK_BYTES] for i in range(0, len(data), CHUNK_BYTES))


def recorded(record: Value) -> Reply:
    """
    The reply a recorded exchange holds (as the strict parser reads its file): its HTTP status and body,
    its raw SSE text when recorded, else SSE written from its parsed events.
    """
    if not isinstance(record, dict):
        msg = f"record must be a JSON object, not {type(record).__name__}"
        raise TypeError(msg)
    status = record.get("http_status")
    status = status if isinstance(status, int) and not isinstance(status, bool) else 200
    if record.get("stream") is True and status == 200:
        raw = record.get("response_sse")
        text = raw if isinstance(raw, str) else sse_text(record.get("response_events"))
        return Reply(
            status,
            _chunks(text.encode("utf-8", "surrogatepass")),
            stream=True,
            content_type="text/event-stream",
        )
    return Reply(status, _chunks(render(record.get("response")).encode("utf-8", "surrogatepass")))
