"""
``llm-wire admit``: one recorded response (a body or an SSE stream) decoded by its provider's wire, and its
calls admitted against a tool set; prints every admitted call and every issue.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from llm_wire import admission
from llm_wire.cli._names import provider_names
from llm_wire.cli._sources import INPUT_BYTES, add_arguments, load_all, read_input, shown
from llm_wire.message import Provider
from llm_wire.providers import WIRES
from llm_wire.providers.response import ResponseError, Terminal
from llm_wire.result import Err, Ok, Result
from llm_wire.tool import ToolCallChecks
from llm_wire.value import Limits, Value, parse

__all__ = ["add_parser", "decode", "run"]

OK, FINDINGS, UNUSABLE = 0, 1, 2
_FILE_LIMITS = Limits().with_max_bytes(INPUT_BYTES)


def add_parser(commands: Any) -> None:
    """Register ``admit``."""
    parser = commands.add_parser(
        "admit",
        help="admit the calls of one recorded response against a tool set",
        description=(
            "Decode one recorded response (a JSON body, an SSE stream, or a recorded exchange with its "
            "provider) and admit its calls against the tools of the sources. Exit status: 0 every call "
            "admitted, 1 an issue or an undecodable response, 2 bad usage or an unreadable file or source."
        ),
    )
    parser.add_argument("response", help="the response file: a JSON body, SSE text, or a recorded exchange")
    parser.add_argument(
        "--provider",
        choices=provider_names(),
        help="the API that sent it (a recorded exchange names it)",
    )
    add_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def decode(provider: Provider, recorded: Value | str) -> Result[Terminal, ResponseError]:
    """A body (a JSON value) or an SSE text, decoded by ``provider``'s wire."""
    wire = WIRES[provider]
    if not isinstance(recorded, str):
        return wire.decode_body(recorded)
    decoder = wire.decoder(wire_limits())
    match decoder.feed_bytes(recorded):
        case Err(error):
            return Err(error)
    return decoder.finish()


def wire_limits() -> Any:
    """The default response bounds."""
    from llm_wire.providers.response import _DEFAULT_LIMITS

    return _DEFAULT_LIMITS


def _recorded(path: str, named: str | None) -> Result[tuple[Provider, Value | str], str]:
    match read_input(path):
        case Err(message):
            return Err(message)
        case Ok(data):
            pass
    try:
        raw = data.decode("utf-8")
    except UnicodeError:
        return Err(f"{path}: is not UTF-8 text")
    document = parse(raw, _FILE_LIMITS) if raw.lstrip().startswith(("{", "[")) else None
    recorded: Value | str = raw
    provider = named
    match document:
        case Ok(found):
            recorded = found
            if (
                isinstance(found, dict)
                and "provider" in found
                and ("response" in found or "response_sse" in found)
            ):
                provider = provider or _api(found["provider"])
                recorded = (
                    found["response_sse"]
                    if isinstance(found.get("response_sse"), str)
                    else found.get("response")
                )
        case Err(error):
            return Err(f"{path}: {error.describe()}")
    wire = None if provider is None else WIRES.named(provider)
    if wire is None:
        return Err("name the provider with --provider")
    return Ok((wire.provider, recorded))


def _api(name: Value) -> str | None:
    return name if isinstance(name, str) and WIRES.named(name) is not None else None


def run(args: argparse.Namespace) -> int:
    """Run ``admit``; returns the exit status."""
    match _recorded(args.response, args.provider):
        case Err(message):
            print(f"llm-wire admit: {message}")
            return UNUSABLE
        case Ok((provider, recorded)):
            pass
    match load_all(args):
        case Err(message):
            print(f"llm-wire admit: {message}")
            return UNUSABLE
        case Ok(sources):
            pass
    tools = [t for source in sources for t in source.tools]
    names = {wire: name for source in sources for wire, name in source.names.items()}
    report: dict[str, Any] = {"provider": provider.value, "admitted": [], "issues": []}
    match decode(provider, recorded):
        case Err(error):
            report["error"] = error.describe()
            return _print(report, args.json, FINDINGS)
        case Ok(terminal):
            pass
    report["finish"] = terminal.finish.value
    if not terminal.calls:
        return _print(report, args.json, OK)
    match admission.admit(terminal.calls, tools, ToolCallChecks.REPORT):
        case Err(failed):
            report["error"] = failed.describe()
            return _print(report, args.json, FINDINGS)
        case Ok(admitted):
            pass
    for good in admitted.admitted:
        entry = {"id": good.call.id, "tool": good.call.name, "arguments": good.arguments_json()}
        if good.call.name in names:
            entry["server_name"] = names[good.call.name]
        report["admitted"].append(entry)
    for issue in admitted.issues:
        report["issues"].append(
            {"id": issue.call_id, "kind": type(issue).__name__, "answer": admission.describe_issue(issue)}
        )
    return _print(report, args.json, FINDINGS if admitted.issues else OK)


def _print(report: dict[str, Any], as_json: bool, status: int) -> int:
    report["exit"] = status
    if as_json:
        print(json.dumps(report, indent=2))
        return status
    print(f"provider {report['provider']}, finish {report.get('finish', '-')}")
    if "error" in report:
        print(f"response refused: {report['error']}")
    for entry in report["admitted"]:
        server = f" (server name {shown(entry['server_name'])})" if "server_name" in entry else ""
        print(f"admitted {shown(entry['id'])}: {entry['tool']}{server} {entry['arguments']}")
    for issue in report["issues"]:
        print(f"issue {shown(issue['id'])}: {issue['kind']}: {issue['answer']}")
    if not report["admitted"] and not report["issues"] and "error" not in report:
        print("no tool calls")
    return status
