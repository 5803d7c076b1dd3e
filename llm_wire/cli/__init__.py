"""
The ``llm-wire`` command line: ``demo`` walks through what the library does, section by section; ``check``
audits tools against every provider before a model sees them; ``admit`` checks a recorded response's calls.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from llm_wire.cli import _admit, _check, _names

__all__ = ["main"]

#: Demo sections, in the order they run: modules of ``llm_wire.demo`` with a ``run()`` function.
_DEMO_SECTIONS = (
    "parsing",
    "codecs",
    "contracts",
    "admission",
    "providers",
    "transport",
    "agent",
    "durable",
    "mcp",
    "toolkits",
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("llm_wire")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


class _Version(argparse.Action):
    """``--version``: the installed version, looked up when asked (the package metadata is slow to load)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        print(f"llm-wire {_version()}")
        parser.exit()


def main(argv: Sequence[str] | None = None) -> int:
    """
    Run the command line; returns the exit status.
    """
    parser = argparse.ArgumentParser(prog="llm-wire", description="Typed, checked LLM tool calling.")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="walk through strict parsing, codecs, contracts and admission")
    demo.add_argument("sections", nargs="*", help=f"sections to run: {', '.join(_DEMO_SECTIONS)}")
    demo.add_argument(
        "--provider",
        choices=_names.provider_names(),
        help="run the tool round trip against this real API instead (its key from the environment)",
    )
    demo.add_argument("--model", help="the model for --provider")
    demo.add_argument(
        "--trace",
        action="store_true",
        help="print the agent section's OpenTelemetry spans (opentelemetry-sdk)",
    )
    _check.add_parser(commands)
    _admit.add_parser(commands)
    args = parser.parse_args(argv)
    if args.command == "check":
        return _check.run(args)
    if args.command == "admit":
        return _admit.run(args)
    if args.command == "demo" and args.provider is not None:
        if not args.model or args.sections:
            parser.error("--provider takes --model and no sections")
        live = importlib.import_module("llm_wire.demo.live")
        status: int = live.run_live(args.provider, args.model)
        sys.stdout.flush()
        return status
    if args.command == "demo":
        unknown = [name for name in args.sections if name not in _DEMO_SECTIONS]
        if unknown:
            parser.error(f"unknown demo section; choose from {', '.join(_DEMO_SECTIONS)}")
        for name in args.sections or _DEMO_SECTIONS:
            module = importlib.import_module(f"llm_wire.demo.{name}")
            print(f"\n=== {name} ===\n")
            if name == "agent" and args.trace:
                module.run(trace=True)
            else:
                module.run()
    sys.stdout.flush()
    return 0
