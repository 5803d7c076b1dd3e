"""
Run every ``benchmarks/bench_*.py`` module in name order, the summary table last (``make bench``).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import benchmarks


def main(argv: list[str]) -> int:
    wanted = set(argv)
    for info in sorted(
        pkgutil.iter_modules(benchmarks.__path__), key=lambda m: (m.name == "bench_summary", m.name)
    ):
        if not info.name.startswith("bench_") or (wanted and info.name not in wanted):
            continue
        module = importlib.import_module(f"benchmarks.{info.name}")
        module.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
