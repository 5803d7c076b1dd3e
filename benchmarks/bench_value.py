"""
Strict parsing speed: ``llm_wire.value.parse`` against ``json.loads``, measured in the same run.

Documents: BFCL ground-truth call arguments (the first acceptable value of each parameter, nested values too)
and MCP tool declarations and input schemas from ``../shared/corpora``, grouped by size; then synthetic
tool-call batches from 64 KiB to 1 MiB, to show that time grows linearly with size.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import jiter

from benchmarks._harness import CORPORA, interleaved, median_seconds, print_table
from llm_wire.result import Ok
from llm_wire.value import DEFAULT, parse
from llm_wire.value._parse import _DEFAULT_ENGINE, _SHAPES, _opens_over, parse_value

__all__ = ["bfcl_documents", "floor", "main", "mcp_documents", "synthetic_document"]

KIB = 1024
BUCKETS = (
    (0, 256, "< 256 B"),
    (256, KIB, "256 B - 1 KiB"),
    (KIB, 4 * KIB, "1 - 4 KiB"),
    (4 * KIB, 64 * KIB, "4 - 64 KiB"),
)
SIZES = (64 * KIB, 128 * KIB, 256 * KIB, 512 * KIB, 1024 * KIB)
#: The ratio ``make bench`` promises for documents up to 4 KiB.
TARGET = 2.5
#: Documents timed one by one per bucket, for the per-document ratio columns.
SAMPLE = 40


def _first(acceptable: list[Any]) -> tuple[bool, Any]:
    """BFCL lists acceptable values; ``""`` among them means "may be omitted"."""
    for candidate in acceptable:
        if candidate != "":
            return True, _arguments(candidate) if isinstance(candidate, dict) else candidate
    return False, None


def _arguments(params: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, acceptable in params.items():
        if not isinstance(acceptable, list):
            out[name] = acceptable
            continue
        present, chosen = _first(acceptable)
        if present:
            out[name] = chosen
    return out


def bfcl_documents() -> list[str]:
    """Argument documents of every BFCL ground-truth call, as a model would send them."""
    docs: list[str] = []
    for path in sorted((CORPORA / "bfcl" / "possible_answer").glob("*.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            for call in json.loads(line)["ground_truth"]:
                docs.extend(json.dumps(_arguments(params)) for params in call.values())
    return docs


def mcp_documents() -> list[str]:
    """MCP ``tools/list`` material: each tool declaration, and each input schema pretty-printed."""
    docs = []
    for path in sorted((CORPORA / "mcp-tools").glob("*.json")):
        for tool in json.loads(path.read_text(encoding="utf-8"))["tools"]:
            docs.append(json.dumps(tool, ensure_ascii=False))
            docs.append(json.dumps(tool.get("inputSchema", {}), indent=2))
    return docs


def synthetic_document(size: int) -> str:
    """A batch of realistic tool calls, as close to ``size`` UTF-8 bytes as whole calls allow."""
    calls: list[str] = []
    used = 2
    n = 0
    while True:
        call = json.dumps(
            {
                "id": f"call_{n:06d}",
                "type": "function",
                "name": ("search_files", "read_file", "get_weather", "create_issue")[n % 4],
                "arguments": {
                    "path": f"/srv/data/projets/année-{n % 7}/rapport-{n}.md",
                    "query": "naïve bayes \u201cspam\u201d filter -draft",
                    "limit": 25 + n % 100,
                    "threshold": 0.75,
                    "recursive": n % 2 == 0,
                    "tags": ["alpha", "beta", f"t{n % 13}"],
                    "owner": {"name": "Jürgen Müller", "email": f"user{n}@example.com", "id": None},
                    "window": {"start": "2026-01-01T00:00:00Z", "days": [1, 2, 3, 5, 8]},
                },
            },
            ensure_ascii=False,
        )
        cost = len(call.encode("utf-8")) + 1
        if used + cost > size:
            return "[" + ",".join(calls) + "]"
        calls.append(call)
        used += cost
        n += 1


def _paired(
    ours: Callable[[], object], theirs: Callable[[], object], *, rounds: int, min_time: float = 0.02
) -> tuple[float, float, float]:
    """
    Median seconds per call of each, and the median ratio of rounds run back to back, so that a busy
    machine slows both sides of each ratio alike.
    """
    mine, peer = [], []
    for _ in range(rounds):
        mine.append(median_seconds(ours, rounds=1, min_time=min_time))
        peer.append(median_seconds(theirs, rounds=1, min_time=min_time))
    ratio = statistics.median(a / b for a, b in zip(mine, peer, strict=True))
    return statistics.median(mine), statistics.median(peer), ratio


def _each(fn: Callable[[str], object], docs: Sequence[str]) -> Callable[[], None]:
    def batch() -> None:
        for doc in docs:
            fn(doc)

    return batch


def _bucket_rows(docs: Sequence[str]) -> list[list[object]]:
    rows: list[list[object]] = []
    for low, high, label in BUCKETS:
        chosen = [d for d in docs if low <= len(d.encode("utf-8")) < high]
        if not chosen:
            continue
        ours, theirs, ratio = _paired(_each(parse, chosen), _each(json.loads, chosen), rounds=9)
        step = max(1, len(chosen) // SAMPLE)
        ratios = sorted(
            _paired(partial(parse, doc), partial(json.loads, doc), rounds=5, min_time=0.002)[2]
            for doc in chosen[::step]
        )
        rows.append(
            [
                label,
                len(chosen),
                int(statistics.median(len(d.encode("utf-8")) for d in chosen)),
                ours / len(chosen) * 1e6,
                theirs / len(chosen) * 1e6,
                ratio,
                statistics.median(ratios),
                ratios[-1],
                ("yes" if ratio <= TARGET else "NO") if high <= 4 * KIB else "-",
            ]
        )
    return rows


def _linearity_rows(exact: bool) -> list[list[object]]:
    rows: list[list[object]] = []
    base = 0.0
    for size in SIZES:
        if exact:
            # A run of 1,000 digits, even inside a string, could be a number over the limits: the pre-scan
            # sends the whole document to the exact engine.
            doc = synthetic_document(size - 1000).replace("naïve", "9" * 1000, 1)
        else:
            doc = synthetic_document(size)
        if not isinstance(parse(doc), Ok):
            msg = "the synthetic document must parse"
            raise AssertionError(msg)
        nbytes = len(doc.encode("utf-8"))
        ours, _, ratio = _paired(partial(parse, doc), partial(json.loads, doc), rounds=3 if exact else 7)
        per_byte = ours / nbytes
        base = base or per_byte
        rows.append([f"{size // KIB} KiB", nbytes, ours * 1e3, per_byte * 1e9, per_byte / base, ratio])
    return rows


def main() -> None:
    """Print the size-bucket and linearity tables."""
    print(f"\n## llm_wire.value.parse vs json.loads, default limits (max_bytes={DEFAULT.max_bytes})")
    header = [
        "size",
        "docs",
        "median bytes",
        "parse µs/doc",
        "json.loads µs/doc",
        "ratio",
        "median doc ratio",
        "worst doc ratio",
        f"<= {TARGET}x",
    ]
    if not (CORPORA / "bfcl" / "possible_answer").is_dir():
        print(f"\nskipped the BFCL table: {CORPORA / 'bfcl' / 'possible_answer'} not found")
    else:
        print_table("BFCL ground-truth arguments", header, _bucket_rows(bfcl_documents()))
    if not (CORPORA / "mcp-tools").is_dir():
        print(f"\nskipped the MCP table: {CORPORA / 'mcp-tools'} not found")
    else:
        print_table("MCP tool declarations and input schemas", header, _bucket_rows(mcp_documents()))
    linear_header = ["target", "bytes", "parse ms", "ns/byte", "per byte vs 64 KiB", "ratio to json.loads"]
    print_table("Linearity: synthetic tool-call batches, fast engine", linear_header, _linearity_rows(False))
    print_table(
        "Linearity: the same batches with a 1,000-digit string, exact engine",
        linear_header,
        _linearity_rows(True),
    )


def floor() -> None:
    """
    Where the strict parse of the 16 KiB records (the summary row "parse, records, 16 KiB") spends its time
    (``bench_floor``): jiter with the parse's options is the engine, and each check the parse adds is timed
    alone, as a multiple of ``json.loads`` on the same text (medians of interleaved rounds).
    """
    text = synthetic_document(16 * KIB)
    data = text.encode()
    shapes = data.translate(_SHAPES).decode("ascii")
    engine = _DEFAULT_ENGINE
    padding = engine.open_pad + b"0" + engine.close_pad

    def strict(**changed: Any) -> Callable[[], object]:
        options: dict[str, Any] = {
            "catch_duplicate_keys": True,
            "float_mode": "decimal",
            "allow_inf_nan": False,
            "cache_mode": "keys",
        }
        options.update(changed)
        return lambda: jiter.from_json(data, **options)

    parts: list[tuple[str, Callable[[], object]]] = [
        ("json.loads (the peer)", partial(json.loads, text)),
        ("jiter with the parse's options, on the UTF-8 bytes", strict()),
        ("  the same without the duplicate-key check", strict(catch_duplicate_keys=False)),
        ("  the same with floats, not Decimals", strict(float_mode="float")),
        ("encoding the text to UTF-8 (jiter reads bytes)", text.encode),
        ("number shapes (one translate)", lambda: data.translate(_SHAPES).decode("ascii")),
        ("number limits: runs and exponents in the shapes", lambda: engine.suspects(shapes)),
        ("depth bound: counting opening brackets", lambda: _opens_over(shapes, DEFAULT.max_depth)),
        (f"depth padding: jiter reading {engine.padding} nested arrays", lambda: jiter.from_json(padding)),
        ("parse_value, whole", partial(parse_value, text)),
    ]
    samples = interleaved([run for _, run in parts], rounds=9)
    rows = []
    for (name, _), times in zip(parts, samples, strict=True):
        ratio = statistics.median(t / p for t, p in zip(times, samples[0], strict=True))
        rows.append([name, f"{statistics.median(times) * 1e6:.2f}", f"{ratio:.2f}x"])
    print_table(
        f"Strict parse of the 16 KiB records ({len(data):,} bytes), by part",
        ["part", "median µs", "x peer"],
        rows,
    )
