"""
``python -m llm_wire.transport.fake [--port N] [RECORDING ...]``: serve the fake provider on loopback.

With recording files (``shared/corpora/provider-responses/<api>/*.json``) it replays them in order, then
starts over; without, a scripted model answers every request of every API with a short text.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from llm_wire.message import Provider
from llm_wire.result import Err
from llm_wire.transport.fake import FakeCall, FakeProvider, Received, Reply, ScriptedModel, recorded
from llm_wire.value import Limits, parse

__all__ = ["main"]


def _hello(received: Received, provider: Provider) -> tuple[str, Sequence[FakeCall]]:
    return f"Hello from the fake {provider.value} provider.", ()


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until interrupted; returns the exit status (2 for a recording that cannot be read)."""
    parser = argparse.ArgumentParser(prog="python -m llm_wire.transport.fake", description=__doc__)
    parser.add_argument("--port", type=int, default=8765, help="loopback port (0: any free one)")
    parser.add_argument("recordings", nargs="*", type=Path, help="recorded exchanges to replay in order")
    args = parser.parse_args(argv)
    replies: list[Reply] = []
    for path in args.recordings:
        try:
            read = parse(path.read_bytes(), Limits(max_bytes=64 * 1024 * 1024, max_values=10_000_000))
        except OSError as problem:
            print(f"cannot read a recording: {problem.strerror}", file=sys.stderr)
            return 2
        if isinstance(read, Err):
            print(f"a recording is not JSON: {read.error.describe()}", file=sys.stderr)
            return 2
        try:
            replies.append(recorded(read.value))
        except TypeError:
            print("a recording is not a JSON object", file=sys.stderr)
            return 2
    cycle: Iterator[Reply] = itertools.cycle(replies)
    fake = FakeProvider((lambda _: next(cycle)) if replies else ScriptedModel(_hello), port=args.port)
    source = f"{len(replies)} recordings in turn" if replies else "a scripted model"
    print(f"fake provider on {fake.url}, answering with {source}; Ctrl-C stops it")
    sys.stdout.flush()
    try:
        fake.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        fake.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
