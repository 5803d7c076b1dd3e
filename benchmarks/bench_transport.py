"""
Streaming throughput: one streamed tool call of 64 KiB to 4 MiB of arguments, decoded from its SSE bytes,
against the official ``openai`` SDK's stream decoder on the same bytes.

The stream is a Responses stream (``bench_stream.body``: 64-byte ``response.function_call_arguments.delta``
events as OpenAI sends them) in 16 KiB chunks, as httpx hands a body over. Ours: the prepared request's
decoder, every delta checked and the call assembled byte-exact, bounds raised to fit. The peer: the SDK's
``SSEDecoder.iter_bytes`` (what ``openai.Stream`` reads with), ``json.loads`` of each event and the
argument deltas joined: the least an SDK user does, without building the SDK's event models. Runs
alternate in rounds of CPU time; "per KiB" shows the cost is linear in the size.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable

from openai._streaming import SSEDecoder

from benchmarks import bench_stream
from benchmarks._harness import paired_ratios, print_table
from llm_wire.providers.openai_responses import WIRE as RESPONSES
from llm_wire.providers.response import ResponseLimits
from llm_wire.result import Ok

__all__ = ["CHUNK", "SIZES", "TARGET", "chunks", "decode", "main", "measure", "sdk_decode"]

KIB = 1024
#: Argument sizes, in bytes.
SIZES = (64 * KIB, 256 * KIB, 1024 * KIB, 4096 * KIB)
CHUNK = 16 * KIB
#: Ours may cost at most this many times the SDK decoder.
TARGET = 1.0
#: Per-KiB cost at 4 MiB over per-KiB cost at 64 KiB: linear means near 1.
LINEAR = 1.5
_LIMITS = ResponseLimits(
    argument_bytes_per_call=64 * 1024 * KIB,
    total_argument_bytes=64 * 1024 * KIB,
    response_body_bytes=256 * 1024 * KIB,
    # The done events repeat the whole argument text in one line.
    event_bytes=16 * 1024 * KIB,
    line_bytes=16 * 1024 * KIB,
)


def chunks(size: int) -> list[bytes]:
    """The stream of a call with about ``size`` bytes of arguments, in ``CHUNK``-byte pieces."""
    data = bench_stream.body(size // 64)
    return [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]


def decode(pieces: list[bytes]) -> str:
    """Our decoder over the pieces: the call's argument text."""
    decoder = RESPONSES.decoder(_LIMITS)
    for piece in pieces:
        decoder.feed_bytes(piece)
    result = decoder.finish()
    assert isinstance(result, Ok)
    return result.value.calls[0].arguments_json


def sdk_decode(pieces: list[bytes]) -> str:
    """The SDK's SSE decoder, ``json.loads`` per event, the argument deltas joined."""
    parts: list[str] = []
    loads = json.loads
    for event in SSEDecoder().iter_bytes(iter(pieces)):
        data = loads(event.data)
        if data["type"] == "response.function_call_arguments.delta":
            parts.append(data["delta"])
    return "".join(parts)


def measure(size: int, *, rounds: int = 7) -> tuple[float, float, list[float]]:
    """Seconds of ours and of the SDK for one stream of ``size``, and the per-round ratios."""
    pieces = chunks(size)
    assert decode(pieces) == sdk_decode(pieces)
    runs: list[Callable[[], object]] = [lambda: decode(pieces), lambda: sdk_decode(pieces)]
    (ours, peer), ratios = paired_ratios(runs, rounds=rounds, min_time=0.05)
    return ours, peer, ratios


def main() -> None:
    """Print the streaming throughput table."""
    rows = []
    base: float | None = None
    for size in SIZES:
        ours, peer, ratios = measure(size, rounds=7 if size < 4096 * KIB else 5)
        ratio = statistics.median(ratios)
        per_kib = ours / (size / KIB) * 1e6
        base = per_kib if base is None else base
        rows.append(
            [
                f"{size // KIB} KiB",
                ours * 1e3,
                peer * 1e3,
                ratio,
                f"{min(ratios):.2f}-{max(ratios):.2f}",
                per_kib,
                per_kib / base,
                "yes" if ratio <= TARGET else "NO",
            ]
        )
    print_table(
        f"Streaming throughput: one Responses tool call, 64-byte deltas in {CHUNK // KIB} KiB chunks",
        [
            "arguments",
            "ours ms",
            "openai SSEDecoder + json.loads ms",
            "ratio",
            "round ratios min-max",
            "ours µs/KiB",
            "per KiB vs 64 KiB",
            f"<= {TARGET:g}x",
        ],
        rows,
    )
