"""
Shared timing and table printing for ``make bench``: medians of repeated runs, reported as ratios.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["CORPORA", "interleaved", "median_seconds", "paired_ratios", "print_table"]

#: The shared corpora, next to the project root.
CORPORA = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"


def median_seconds(fn: Callable[[], object], *, rounds: int = 15, min_time: float = 0.02) -> float:
    """
    Median wall time of one call of ``fn``: each round loops until ``min_time`` has passed.
    """
    loops = 1
    while True:
        start = time.perf_counter()
        for _ in range(loops):
            fn()
        if time.perf_counter() - start >= min_time or loops >= 1 << 20:
            break
        loops *= 2
    samples = []
    gc.collect()
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(loops):
            fn()
        samples.append((time.perf_counter() - start) / loops)
    return statistics.median(samples)


def interleaved(
    runs: Sequence[Callable[[], object]], *, rounds: int = 15, min_time: float = 0.02
) -> list[list[float]]:
    """
    Seconds of one call of each run, per round, in CPU time of this process, measured in interleaved rounds:
    on a shared machine wall time also counts other processes, and interleaving gives every run the same
    cache weather. Each run loops until ``min_time`` has passed in a round, after a warm-up (``_warm``).
    The heap that exists before the rounds (every module imported, peers included, and what earlier rows
    keep) is frozen out of the collector's generations (``gc.freeze``), so that a collection a run's own
    allocations trigger scans that run's objects, not the rest of the benchmark process.
    """
    for run in runs:
        _warm(run)
    loops = []
    for run in runs:
        n = 1
        while True:
            start = time.process_time()
            for _ in range(n):
                run()
            if time.process_time() - start >= min_time or n >= 1 << 20:
                break
            n *= 2
        loops.append(n)
    samples: list[list[float]] = [[] for _ in runs]
    gc.collect()
    gc.freeze()
    try:
        for _ in range(rounds):
            for run, n, times in zip(runs, loops, samples, strict=True):
                start = time.process_time()
                for _ in range(n):
                    run()
                times.append((time.process_time() - start) / n)
    finally:
        gc.unfreeze()
    return samples


#: A warm-up calls a run this many times, or for this many seconds of CPU time if that comes first.
WARM_CALLS, WARM_SECONDS = 16, 0.2


def _warm(run: Callable[[], object]) -> None:
    """
    Call ``run`` until it is in its steady state: the interpreter specialises a function's code after its
    first calls, and llm_wire writes a contract's fast path after a few validations (as peers set up their
    own caches), so the first calls measure start-up, not speed.
    """
    start = time.process_time()
    for _ in range(WARM_CALLS):
        run()
        if time.process_time() - start >= WARM_SECONDS:
            break


def paired_ratios(
    runs: Sequence[Callable[[], object]], *, rounds: int = 15, min_time: float = 0.02
) -> tuple[list[float], list[float]]:
    """
    The median seconds of each run, and the per-round ratios of the first run to the second.
    """
    samples = interleaved(runs, rounds=rounds, min_time=min_time)
    ratios = [a / b for a, b in zip(samples[0], samples[1], strict=True)]
    return [statistics.median(times) for times in samples], ratios


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """
    Print a Markdown table under a title.
    """
    cells = [[str(c) for c in header], *[[_cell(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    print(f"\n### {title}\n")
    for n, row in enumerate(cells):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
        if n == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)
