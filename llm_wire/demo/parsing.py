"""
Demo section ``parsing``: strict, exact, bounded JSON on real tool-call documents and on bad input.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

from llm_wire.result import Err, Ok
from llm_wire.value import Value, parse

__all__ = ["run"]

#: The shared corpora next to the project root, when running from a checkout.
CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"

#: Used when the corpora are absent: the same kinds of documents, small.
BUNDLED = (
    ("tool-call arguments", '{"A": 10, "d": 0.01, "K": 1.0}'),
    ("nested arguments", '{"location": "SD", "bedrooms": 3, "budget": {"min": 300000, "max": 400000}}'),
    (
        "MCP input schema",
        '{"type": "object", "properties": {"path": {"type": "string"}, "head": {"type": "number"}},'
        ' "required": ["path"], "additionalProperties": false}',
    ),
)

BAD: tuple[tuple[str, str | bytes], ...] = (
    ("duplicate key", '{"path": "/tmp", "p\\u0061th": "/etc"}'),
    ("NaN", '{"ratio": NaN}'),
    ("trailing comma", '{"tags": ["a", "b",]}'),
    ("lone surrogate", '{"name": "\\ud800"}'),
    ("too deep", "[" * 100_000),
    ("huge number", '{"n": 1e999999}'),
    ("invalid UTF-8", b'{"city": "Z\xfcrich"}'),
    ("2 MiB", '"' + "x" * (2 * 1024 * 1024) + '"'),
)


def _bfcl(record_id: str) -> str:
    """The arguments of a BFCL ground-truth call: the first acceptable value of each parameter."""
    category = record_id.rsplit("_", 1)[0]
    path = CORPORA / "bfcl" / "possible_answer" / f"BFCL_v4_{category}.json"
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["id"] == record_id:
            (params,) = record["ground_truth"][0].values()
            return json.dumps(_first(params))
    msg = f"{record_id} is not in {path}"
    raise LookupError(msg)


def _first(params: dict[str, list[object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, acceptable in params.items():
        chosen = next((v for v in acceptable if v != ""), None)
        out[name] = _first(chosen) if isinstance(chosen, dict) else chosen
    return out


def _real_documents() -> Iterator[tuple[str, str | bytes]]:
    yield "BFCL multiple_6 arguments", _bfcl("multiple_6")
    yield "BFCL multiple_8 arguments", _bfcl("multiple_8")
    tools = json.loads((CORPORA / "mcp-tools" / "ts-filesystem.json").read_text(encoding="utf-8"))["tools"]
    yield f"MCP {tools[0]['name']} inputSchema", json.dumps(tools[0]["inputSchema"])
    yield (
        "MCP tools/list of py-atlassian (raw bytes)",
        (CORPORA / "mcp-tools" / "py-atlassian.json").read_bytes(),
    )


def _shape(value: Value) -> str:
    """Values, depth, and the Python type of every number kind found."""
    count, depth, numbers = 0, 0, set()
    stack: list[tuple[Value, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        count += 1
        depth = max(depth, level)
        if isinstance(item, dict | list):
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
        elif isinstance(item, int | Decimal) and not isinstance(item, bool):
            numbers.add(type(item).__name__)
    kinds = "/".join(sorted(numbers)) or "none"
    return f"{count} values, depth {depth}, numbers as {kinds}"


def run() -> None:
    """Print what strict parsing accepts and what it refuses."""
    try:
        documents = list(_real_documents())
        print(f"Real documents from {CORPORA}:")
    except (OSError, LookupError, ValueError):
        documents = list(BUNDLED)
        print(f"Bundled examples ({CORPORA} not found):")
    for label, text in documents:
        start = time.perf_counter()
        result = parse(text)
        took = (time.perf_counter() - start) * 1e3
        match result:
            case Ok(value):
                print(f"  ok    {label:<44} {len(text):>7} B  {took:6.2f} ms  {_shape(value)}")
            case Err(error):
                print(f"  error {label:<44} {error}")
    exact = parse('{"d": 0.01, "K": 1.0, "n": 12345678901234567890}')
    if isinstance(exact, Ok):
        print(f"  numbers stay exact: {exact.value!r}")

    print("\nRefused, with a location, a typed reason, and no input in the text:")
    for label, bad in BAD:
        match parse(bad):
            case Ok(_):
                print(f"  {label:<15} accepted?!")
            case Err(error):
                print(f"  {label:<15} {type(error.reason).__name__:<13} {error}")
