"""
Streamed decode: a Responses stream of 64-byte argument deltas, against SSE framing plus ``json.loads``.

The stream is one function call whose arguments arrive as ``response.function_call_arguments.delta``
events of 64 bytes of argument text each, shaped as OpenAI sends them (item id, output index, sequence
number, obfuscation), framed as ``event:``/``data:`` pairs and fed in 512-byte chunks cut anywhere. The peer
frames the same chunks with ``sse.Framer`` and runs ``json.loads`` on each event's data: the least any SSE
decoder does. Passes alternate between the two; the ratio is the median of the per-round ratios.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable

from benchmarks._harness import paired_ratios, print_table
from llm_wire.providers.openai_responses import WIRE as RESPONSES
from llm_wire.result import Ok
from llm_wire.sse import Framer

__all__ = ["DELTAS", "TARGET", "body", "chunks", "measure", "main"]

#: The decode may cost at most this many times framing plus ``json.loads``.
TARGET = 2.0
#: Argument delta events in the stream.
DELTAS = 1000
CHUNK = 512
ITEM_ID = "fc_0bac52ec5f239d30016a61460099bc8192a9ebe7381b9efd87"


def _event(data: dict[str, object]) -> str:
    return f"event: {data['type']}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def body(deltas: int = DELTAS) -> bytes:
    """The whole stream: created, the call item, ``deltas`` argument deltas, done events, completed."""
    piece = '"abcdefghij klmnopqrstuvwxyz ABCDEFGHIJ KLMNOPQRSTUVWXYZ 01234",'
    assert len(piece) == 64
    arguments = '{"text":[' + piece * deltas + '""]}'
    parts = [arguments[i : i + 64] for i in range(0, len(arguments), 64)]
    item = {"id": ITEM_ID, "type": "function_call", "status": "in_progress", "arguments": ""}
    events: list[dict[str, object]] = [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**item, "call_id": "c", "name": "f"},
        },
    ]
    events += [
        {
            "type": "response.function_call_arguments.delta",
            "delta": part,
            "item_id": ITEM_ID,
            "obfuscation": "5cOjd2vvrxB0mcJ",
            "output_index": 0,
            "sequence_number": n + 2,
        }
        for n, part in enumerate(parts)
    ]
    done = {**item, "call_id": "c", "name": "f", "status": "completed", "arguments": arguments}
    events += [
        {"type": "response.function_call_arguments.done", "item_id": ITEM_ID, "output_index": 0},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [done]}},
    ]
    return "".join(_event(e) for e in events).encode()


def chunks(data: bytes) -> list[bytes]:
    """``data`` cut into ``CHUNK``-byte pieces, regardless of event boundaries."""
    return [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]


def decode(pieces: list[bytes]) -> object:
    """The stream through the Responses wire's decoder, its terminal checked."""
    decoder = RESPONSES.decoder()
    for piece in pieces:
        decoder.feed_bytes(piece)
    result = decoder.finish()
    assert isinstance(result, Ok)
    return result


def frame_and_load(pieces: list[bytes]) -> object:
    """The peer: ``sse.Framer`` and ``json.loads`` of every event's data."""
    framer = Framer()
    loads = json.loads
    last = None
    for piece in pieces:
        framed = framer.feed(piece)
        assert isinstance(framed, Ok)
        for event in framed.value:
            last = loads(event.data)
    return last


def measure(*, rounds: int = 15) -> tuple[float, float, list[float]]:
    """Microseconds per event of the decoder and of the peer, and the per-round ratios."""
    pieces = chunks(body())
    events = DELTAS + 5
    runs: list[Callable[[], object]] = [lambda: decode(pieces), lambda: frame_and_load(pieces)]
    (ours, peer), ratios = paired_ratios(runs, rounds=rounds)
    return ours / events * 1e6, peer / events * 1e6, ratios


def main() -> None:
    """Print the streamed-decode table."""
    ours, peer, ratios = measure()
    ratio = statistics.median(ratios)
    print_table(
        f"Streamed decode: OpenAI Responses, {DELTAS} argument deltas of 64 bytes, {CHUNK}-byte chunks",
        [
            "decoder µs/event",
            "Framer + json.loads µs/event",
            "ratio",
            "round ratios min-max",
            f"<= {TARGET}x",
        ],
        [[ours, peer, ratio, f"{min(ratios):.2f}-{max(ratios):.2f}", "yes" if ratio <= TARGET else "NO"]],
    )
