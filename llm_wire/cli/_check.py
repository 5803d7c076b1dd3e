"""
``llm-wire check``: per tool, whether it loads, and per provider and mode what its projection keeps and loses.

Every figure is the library's own: ``mcp.declare`` (so ``tool.from_json_schema``) decides what loads, each
``Wire.project_schema`` what a provider takes, ``Projection.qualifies`` whether a projection keeps the
meaning, ``Wire.tool_over_limit`` and ``Wire.request_over_limit`` what ``prepare`` would refuse (a tool, or
every tool of a source in one request).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from llm_wire import tool as _tool
from llm_wire._keywords import Role, keyword
from llm_wire.cli._names import provider_names
from llm_wire.cli._sources import Source, add_arguments, load_all, shown
from llm_wire.message import Provider
from llm_wire.providers import WIRES, OverProviderLimit, ProviderLimit, Wire
from llm_wire.providers.projection import Action, Loss, Projection
from llm_wire.result import Err, Ok
from llm_wire.tool import Tool

__all__ = ["MODES", "add_parser", "check", "loses", "run"]

#: The modes checked: non-strict and strict.
MODES = {"loose": False, "strict": True}
#: Exit codes: every tool loads and nothing marked is lost; a tool refused or a marked keyword lost; bad usage
#: or a source that could not be read.
OK, FINDINGS, UNUSABLE = 0, 1, 2


def add_parser(commands: Any) -> None:
    """Register ``check``."""
    parser = commands.add_parser(
        "check",
        help="tell which tools load and what every provider's projection keeps and loses",
        description=(
            "For each tool of each source: whether it loads (else the path and keyword that refuse it), and "
            "for each provider and mode whether it is accepted and what its projection loses. Exit status: "
            "0 clean, 1 a tool refused or a --fail-on keyword lost, 2 bad usage or an unreadable source."
        ),
    )
    add_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--provider",
        action="append",
        choices=provider_names(),
        help="check only this provider (repeatable; default: all)",
    )
    parser.add_argument("--mode", action="append", choices=list(MODES), help="check only this mode")
    parser.add_argument(
        "--fail-on",
        action="append",
        default=[],
        metavar="KEYWORD",
        help="exit 1 when a checked projection loses this keyword (repeatable)",
    )
    parser.add_argument("--losses", action="store_true", help="list every loss under the table")


def loses(loss: Loss) -> bool:
    """Whether a loss costs meaning: anything but a rewrite or a dropped annotation."""
    if loss.action is Action.REWRITTEN:
        return False
    return not (loss.action is Action.DROPPED and keyword(loss.keyword).role is Role.ANNOTATION)


def _loss(loss: Loss) -> dict[str, Any]:
    return {
        "path": list(loss.path),
        "keyword": loss.keyword,
        "action": loss.action.value,
        "loses": loses(loss),
        "reason": loss.reason,
    }


def _mode(wire: Wire, name: str, projected: Any) -> dict[str, Any]:
    match projected:
        case Err(error):
            return {
                "accepted": False,
                "error": {"path": list(error.path), "keyword": error.keyword, "reason": error.describe()},
            }
        case Ok(projection):
            assert isinstance(projection, Projection)
            over = wire.tool_over_limit(name, projection)
            if over is not None:
                root = over.found if over.limit is ProviderLimit.ROOT_COMBINATORS else None
                reason = over.describe()
                return {
                    "accepted": False,
                    "error": {"path": [], "keyword": root, "reason": reason, "limit": over.limit.value},
                }
            return {
                "accepted": True,
                "keeps_meaning": projection.qualifies,
                "losses": [_loss(loss) for loss in projection.losses],
            }
    raise AssertionError(projected)


def _tool_report(
    declared: Tool, name: str, providers: Sequence[Provider], modes: Sequence[str]
) -> dict[str, Any]:
    return {
        "name": name,
        "wire_name": declared.name,
        "loaded": True,
        "providers": {
            provider.value: {
                mode: _mode(
                    WIRES[provider],
                    declared.name,
                    WIRES[provider].project_schema(declared.schema, MODES[mode]),
                )
                for mode in modes
            }
            for provider in providers
        },
    }


def _refused_report(left: Any) -> dict[str, Any]:
    error = left.error
    path, key = None, None
    if isinstance(error, _tool.InvalidSchema):
        path, key = list(error.load_error.path), error.load_error.keyword
    return {
        "name": left.name,
        "index": left.index,
        "loaded": False,
        "refused": {
            "error": type(error).__name__,
            "schema": None if left.schema is None else left.schema.value,
            "path": path,
            "keyword": key,
            "reason": error.describe(),
        },
    }


def _totals(
    tools: list[dict[str, Any]], providers: Sequence[Provider], modes: Sequence[str]
) -> dict[str, Any]:
    loaded = [t for t in tools if t["loaded"]]
    per_provider: dict[str, Any] = {}
    for provider in providers:
        per_mode = {}
        for mode in modes:
            cells = [t["providers"][provider.value][mode] for t in loaded]
            per_mode[mode] = {
                "accepted": sum(c["accepted"] for c in cells),
                "keeps_meaning": sum(c["accepted"] and c["keeps_meaning"] for c in cells),
            }
        per_provider[provider.value] = per_mode
    lost: Counter[str] = Counter()
    for t in loaded:
        for by_mode in t["providers"].values():
            for cell in by_mode.values():
                lost.update(loss["keyword"] for loss in cell.get("losses", ()) if loss["loses"])
    return {
        "tools": len(tools),
        "loaded": len(loaded),
        "refused": len(tools) - len(loaded),
        "providers": per_provider,
        "losses_by_keyword": dict(sorted(lost.items(), key=lambda item: (-item[1], item[0]))),
    }


def check(sources: Sequence[Source], providers: Sequence[Provider], modes: Sequence[str]) -> dict[str, Any]:
    """The whole report as a JSON-ready dict: per source its tools and totals, then the totals of all."""
    reports = []
    everything: list[dict[str, Any]] = []
    for source in sources:
        tools = [_tool_report(t, source.names.get(t.name, t.name), providers, modes) for t in source.tools]
        tools += [_refused_report(left) for left in source.left_out]
        everything += tools
        reports.append(
            {
                "source": source.label,
                "kind": source.kind,
                "tools": tools,
                "totals": _totals(tools, providers, modes),
                "strict_budget": _budgets(source, providers) if "strict" in modes else {},
                "request_limits": {
                    provider.value: _described(WIRES[provider].request_over_limit(len(source.tools)))
                    for provider in providers
                },
            }
        )
    return {"sources": reports, "totals": _totals(everything, providers, modes)}


def _described(over: OverProviderLimit | None) -> str | None:
    return None if over is None else over.describe()


def _budgets(source: Source, providers: Sequence[Provider]) -> dict[str, str | None]:
    """Per provider, why sending every tool strict in one request would exceed its API's limits (or None)."""
    budgets: dict[str, str | None] = {}
    for provider in providers:
        wire = WIRES[provider]
        projected = [wire.project_schema(t.schema, True) for t in source.tools]
        budgets[provider.value] = wire.over_budget([p.value for p in projected if isinstance(p, Ok)])
    return budgets


def _cell(cell: dict[str, Any]) -> str:
    if not cell["accepted"]:
        return "refused"
    losing = sum(loss["loses"] for loss in cell["losses"])
    if losing:
        return f"-{losing}"
    return f"ok~{len(cell['losses'])}" if cell["losses"] else "ok"


def _table(
    report: dict[str, Any], providers: Sequence[Provider], modes: Sequence[str], every_loss: bool
) -> str:
    lines = []
    columns = [(p, m) for p in providers for m in modes]
    for source in report["sources"]:
        totals = source["totals"]
        counts = f"{totals['tools']} tools, {totals['loaded']} loaded, {totals['refused']} refused"
        lines.append(f"{source['source']}: {counts}")
        width = max([len("tool"), *(len(shown(t["name"])) for t in source["tools"])]) + 2
        # Each mode's column is wide enough for its cells and, shared out, for its provider's name.
        cell = max(9, *(-(-(len(p.value) + 1) // len(modes)) for p in providers))
        head = "".join(f"{p.value:<{cell * len(modes)}}" for p in providers)
        lines.append((" " * width + head).rstrip())
        lines.append((f"{'tool':<{width}}" + "".join(f"{m:<{cell}}" for _, m in columns)).rstrip())
        for t in source["tools"]:
            if t["loaded"]:
                row = "".join(f"{_cell(t['providers'][p.value][m]):<{cell}}" for p, m in columns)
            else:
                refused = t["refused"]
                where = f" at {refused['schema']}" if refused["schema"] else ""
                row = f"not loaded{where}: {refused['reason']}"
            lines.append(f"{shown(t['name']):<{width}}{row}".rstrip())
        lost = totals["losses_by_keyword"]
        if lost:
            lines.append("losses by keyword: " + ", ".join(f"{k} {n}" for k, n in lost.items()))
        refused = {p: why for p, why in source["request_limits"].items() if why is not None}
        if refused:
            lines.append("every tool in one request: refused by " + "; ".join(refused.values()))
        over = {p: why for p, why in source["strict_budget"].items() if why is not None}
        if over:
            lines.append(
                "every tool strict in one request: " + "; ".join(f"{p}: {w}" for p, w in over.items())
            )
        if every_loss:
            lines.extend(_loss_lines(source, columns))
        lines.append("")
    if len(report["sources"]) > 1:
        totals = report["totals"]
        lines.append(
            f"all sources: {totals['tools']} tools, {totals['loaded']} loaded, {totals['refused']} refused"
        )
    strict = "strict" in modes
    if strict:
        eligible = ", ".join(
            f"{p} {v['strict']['keeps_meaning']}" for p, v in report["totals"]["providers"].items()
        )
        lines.append(f"strict-eligible (strict keeps the meaning): {eligible}")
    lines.append(
        "legend: ok taken as it is; ok~N N rewrites that keep the meaning; -N N losses; refused not taken"
    )
    return "\n".join(lines)


def _loss_lines(source: dict[str, Any], columns: Sequence[tuple[Provider, str]]) -> list[str]:
    lines = []
    for t in source["tools"]:
        for p, m in columns:
            cell = t.get("providers", {}).get(p.value, {}).get(m)
            where = f"  {shown(t['name'])} {p.value} {m}:"
            if cell is None:
                continue
            if not cell["accepted"]:
                lines.append(f"{where} refused: {cell['error']['reason']}")
                continue
            losing = [loss for loss in cell["losses"] if loss["loses"]]
            lines.extend(f'{where} "{x["keyword"]}" {x["action"]}: {x["reason"]}' for x in losing)
    return lines


def _failed_on(report: dict[str, Any], keywords: Sequence[str]) -> bool:
    wanted = set(keywords)
    for source in report["sources"]:
        for t in source["tools"]:
            for by_mode in t.get("providers", {}).values():
                for cell in by_mode.values():
                    if any(loss["loses"] and loss["keyword"] in wanted for loss in cell.get("losses", ())):
                        return True
    return False


def run(args: argparse.Namespace) -> int:
    """Run ``check``; returns the exit status."""
    named = [WIRES.named(name) for name in args.provider or ()]
    providers = list(dict.fromkeys(wire.provider for wire in named if wire is not None)) or list(WIRES)
    modes = list(dict.fromkeys(args.mode)) if args.mode else list(MODES)
    match load_all(args):
        case Err(message):
            print(f"llm-wire check: {message}")
            return UNUSABLE
        case Ok(sources):
            pass
    report = check(sources, providers, modes)
    failed = report["totals"]["refused"] > 0 or _failed_on(report, args.fail_on)
    report["exit"] = FINDINGS if failed else OK
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(_table(report, providers, modes, args.losses))
    return FINDINGS if failed else OK
