"""
Where the time of a missed summary row goes: each part timed alone, as a multiple of the row's peer.

Admission cannot cost less than the strict parse, the contract or codec pass and the records it returns
("lean admission" is exactly that, without ``admit``'s checks of its arguments and limits); the tables show
each part against the same peer as the summary row, so a reader sees which part is the floor.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import fastjsonschema
import jiter
import jsonschema_rs
import pydantic
from pydantic_ai import Tool as PeerTool

from benchmarks import bench_admission, bench_codec, bench_durable, bench_start, bench_tools, bench_value
from benchmarks._harness import CORPORA, interleaved, print_table
from llm_wire import admission, codec, contract, tool, value
from llm_wire._keywords import Shape, keyword
from llm_wire._regex import MAX_PATTERN_COST
from llm_wire.contract._contract import first_failure
from llm_wire.contract._formats import FORMATS
from llm_wire.contract._keywords import KEYWORDS
from llm_wire.contract._load import Rules, plain_document
from llm_wire.message import ToolCall
from llm_wire.result import Ok, unwrap
from llm_wire.schema import Schema
from llm_wire.tool import Tool
from llm_wire.value._parse import parse_value

__all__ = ["main"]


def _parts(title: str, parts: Sequence[tuple[str, Callable[[], object]]]) -> None:
    """Time the parts in interleaved rounds; the first is the peer every other part is divided by."""
    samples = interleaved([fn for _, fn in parts], rounds=9)
    peer = samples[0]
    rows = []
    for (name, _), times in zip(parts, samples, strict=True):
        ratios = [t / p for t, p in zip(times, peer, strict=True)]
        rows.append([name, f"{statistics.median(times) * 1e6:.2f}", f"{statistics.median(ratios):.2f}x"])
    print_table(title, ["part", "median µs", "x peer"], rows)


def _each(fn: Callable[[Any], object], items: Sequence[Any]) -> Callable[[], None]:
    def run() -> None:
        for item in items:
            fn(item)

    return run


def _check(case: Any) -> object:
    return first_failure(case[0].contract, case[3])  # as ``admit`` calls it


def _lean(calls: Sequence[ToolCall], tools: Sequence[Tool]) -> object:
    """
    What admission cannot skip for schema-only calls: the tool lookup, the strict parse, the contract check
    and the records the API returns (made as ``admit`` makes them); none of ``admit``'s checks of its
    arguments, the byte limits, the call ids or the issue paths.
    """
    by_name = {declared.name: declared for declared in tools}
    passed = []
    for call in calls:
        declared = by_name[call.name]
        arguments: Any = parse_value(call.arguments_json)
        first_failure(declared.contract, arguments)
        passed.append(admission.AdmittedCall(call, declared, arguments, arguments))
    return Ok(admission.Admitted(tuple(calls), (), tuple(passed)))


def _jiter(text: str) -> object:
    """jiter as the strict parse calls it, on the bytes it reads."""
    return jiter.from_json(
        text.encode(), catch_duplicate_keys=True, float_mode="decimal", allow_inf_nan=False, cache_mode="keys"
    )


def _unrecorded(calls: Sequence[ToolCall], tools: Sequence[Tool]) -> object:
    """``_lean`` without the records: the lookup, the parse and the check."""
    by_name = {declared.name: declared for declared in tools}
    for call in calls:
        declared = by_name[call.name]
        parsed: Any = parse_value(call.arguments_json)
        first_failure(declared.contract, parsed)
    return None


def _schema_admission(label: str, found: Iterable[tuple[dict[str, Any], str]]) -> None:
    cases = []
    for n, (schema, arguments) in enumerate(found):
        made = tool.from_json_schema("t", "bench", schema)
        if not isinstance(made, Ok):
            continue
        calls = [ToolCall(id=f"c{n}", name="t", arguments_json=arguments)]
        if not isinstance(admission.admit(calls, [made.value]), Ok):
            continue
        try:
            validate = fastjsonschema.compile(schema)
            validate(json.loads(arguments))
        except (fastjsonschema.JsonSchemaException, ValueError, TypeError):
            continue  # as in the summary row: only calls the peer also accepts
        cases.append((made.value, calls, arguments, parse_value(arguments), validate))

    def records(case: Any) -> object:
        made, calls, _, parsed, _ = case
        admitted = admission.AdmittedCall(calls[0], made, parsed, parsed)
        return Ok(admission.Admitted(tuple(calls), (), (admitted,)))

    _parts(
        f"Admission of {len(cases)} {label} calls (schema tools), by part",
        [
            ("json.loads (the peer)", _each(lambda c: json.loads(c[2]), cases)),
            ("json.loads + fastjsonschema", _each(lambda c: c[4](json.loads(c[2])), cases)),
            (
                "jiter alone (the parse's keywords)",
                _each(lambda c: _jiter(c[2]), cases),
            ),
            ("strict parse (value.parse_value)", _each(lambda c: parse_value(c[2]), cases)),
            ("contract check (its fast path)", _each(_check, cases)),
            ("result records (AdmittedCall, Admitted, Ok)", _each(records, cases)),
            ("lookup, parse and check", _each(lambda c: _unrecorded(c[1], [c[0]]), cases)),
            ("lean admission: lookup, parse, check, records", _each(lambda c: _lean(c[1], [c[0]]), cases)),
            ("admit, whole", _each(lambda c: admission.admit(c[1], [c[0]]), cases)),
        ],
    )


def _typed_admission() -> None:
    derived = codec.derive(bench_codec.GetWeather)
    typed = tool.new("get_weather", "Get the weather.", derived)
    arguments = bench_codec.ARGUMENTS
    calls = [ToolCall(id="c", name="get_weather", arguments_json=arguments)]
    parsed = unwrap(value.parse(arguments))
    adapter = pydantic.TypeAdapter(bench_codec.GetWeatherModel)
    _parts(
        "Typed admission of the weather call, by part",
        [
            ("pydantic validate_json (the peer)", lambda: adapter.validate_json(arguments)),
            ("json.loads", lambda: json.loads(arguments)),
            ("strict parse (value.parse_value)", lambda: parse_value(arguments)),
            ("codec decode (derive(GetWeather).decode)", lambda: derived.decode(parsed)),
            ("parse + decode together (admit's floor)", lambda: derived.decode(parse_value(arguments))),  # type: ignore[arg-type]
            ("admit, whole", lambda: admission.admit(calls, [typed])),
        ],
    )


def _bare(document: Any) -> Schema:
    """The least a load builds: each schema object copied into ``Schema`` nodes, nothing checked."""
    pairs = []
    for name, member in document.items():
        shape = keyword(name).shape
        if shape is Shape.SCHEMA and isinstance(member, dict):
            member = _bare(member)
        elif shape is Shape.SCHEMA_MAP and isinstance(member, dict):
            member = tuple((k, _bare(v) if isinstance(v, dict) else v) for k, v in member.items())
        elif shape is Shape.SCHEMA_LIST and isinstance(member, list):
            member = tuple(_bare(v) if isinstance(v, dict) else v for v in member)
        pairs.append((name, member))
    return Schema(tuple(pairs))


def _declaring() -> None:
    """
    Declaring 1,000 MCP tools, by part, against the peers of the summary row; then each corpus document once.
    The 1,000 repeat the corpus's 270 documents, and a load shares equal leaves across documents, so the
    second table shows the same parts where nothing repeats but what the corpus itself repeats.
    """
    many = bench_tools.declarations(bench_tools.TOOLS)
    corpus = len({id(schema) for _, _, schema in many})  # the documents the 1,000 take in turn
    for found, title in (
        (many, f"Declaring {bench_tools.TOOLS:,} MCP tools, by part"),
        (bench_tools.declarations(corpus), f"Declaring the {corpus} MCP corpus tools once each, by part"),
    ):
        _declaring_parts(found, title)


def _declaring_parts(found: list[tuple[str, str, Any]], title: str) -> None:
    rules = _rules()
    parts: list[tuple[str, Callable[[], object]]] = [
        (
            "pydantic-ai Tool.from_schema + jsonschema_rs compile (the peer)",
            lambda: [
                (PeerTool.from_schema(bench_tools.ok_tool, n, d, s), jsonschema_rs.validator_for(s))
                for n, d, s in found
            ],
        ),
        ("json.dumps of each document", lambda: [json.dumps(s) for _, _, s in found]),
        ("bare copy into Schema nodes (nothing checked)", lambda: [_bare(s) for _, _, s in found]),
        ("the one-walk read (_load.plain_document)", lambda: [plain_document(s, rules) for _, _, s in found]),
        ("contract.load (the walk and the lazy contract)", lambda: [contract.load(s) for _, _, s in found]),
        ("tool.from_json_schema, whole", lambda: [tool.from_json_schema(*d) for d in found]),
    ]
    _parts(title, parts)


def _rules() -> Rules:
    """The rules ``contract.load`` reads a document under, by default."""
    return Rules(frozenset(KEYWORDS), frozenset(), False, FORMATS, 10_000, 128, MAX_PATTERN_COST)


def main() -> None:
    """Print the tables; the admission ones need the BFCL corpus."""
    if (CORPORA / "bfcl").is_dir():
        _schema_admission("BFCL", list(bench_admission.bfcl_cases())[::8])
    else:
        print("\n(bench_floor: ../shared/corpora/bfcl is absent; the BFCL admission table is skipped)")
    if (CORPORA / "mcp-tools").is_dir():
        _schema_admission("MCP", bench_admission.mcp_cases())
    else:
        print("\n(bench_floor: ../shared/corpora/mcp-tools is absent; the MCP admission table is skipped)")
    _typed_admission()
    bench_value.floor()
    bench_start.floor()
    bench_start.stack_floor()
    bench_durable.floor()
    if (CORPORA / "mcp-tools").is_dir():
        _declaring()


if __name__ == "__main__":
    main()
