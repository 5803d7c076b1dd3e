"""
Admission throughput: strict parse + validate + decode of one call, against peers in the same run.

Peers: ``json.loads`` + a prebuilt ``jsonschema`` validator, and pydantic ``TypeAdapter.validate_json`` of an
equivalent model built from the same schema. Documents: BFCL ground-truth arguments (after BFCL's type
mapping) and minimal valid arguments for the MCP corpus ``inputSchema``s. First, one weather call to a typed
tool from an attrs class and from the pydantic model itself, against the model's own ``validate_json``.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterator
from typing import Any, Literal

import jsonschema
import pydantic

from benchmarks import bench_codec
from benchmarks._harness import CORPORA, median_seconds, print_table
from llm_wire import admission, codec, tool
from llm_wire.message import ToolCall
from llm_wire.result import Ok

_TYPES = {
    **dict.fromkeys(["integer", "byte", "short", "long", "Bigint"], "integer"),
    **dict.fromkeys(["number", "float", "double"], "number"),
    **dict.fromkeys(["string", "String", "char", "any", "Any"], "string"),
    **dict.fromkeys(["boolean", "bool"], "boolean"),
    **dict.fromkeys(["array", "list", "tuple", "Array", "ArrayList", "Queue", "Stack"], "array"),
    **dict.fromkeys(["dict", "object", "HashMap", "Hashtable"], "object"),
}


def _bfcl_schema(node: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type":
            out[key] = _TYPES[value]
        elif key == "properties":
            out[key] = {name: _bfcl_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = _bfcl_schema(value)
        elif key != "optional":
            out[key] = value
    return out


def bfcl_cases() -> Iterator[tuple[dict[str, Any], str]]:
    """(schema, arguments JSON) for every BFCL ground-truth call."""
    bfcl = CORPORA / "bfcl"
    for category in ("simple_python", "multiple", "parallel", "parallel_multiple"):
        functions: dict[str, dict[str, Any]] = {}
        for line in (bfcl / f"BFCL_v4_{category}.json").read_text().splitlines():
            for function in json.loads(line)["function"]:
                functions[function["name"]] = function
        for line in (bfcl / "possible_answer" / f"BFCL_v4_{category}.json").read_text().splitlines():
            for entry in json.loads(line)["ground_truth"]:
                ((name, params),) = entry.items()
                arguments = {p: values[0] for p, values in params.items() if "" not in values}
                yield _bfcl_schema(functions[name]["parameters"]), json.dumps(arguments)


def _minimal(schema: dict[str, Any]) -> Any:
    """A small instance: required members only, first enum value, simple type defaults."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {name: _minimal(properties.get(name, {})) for name in schema.get("required", [])}
    if kind == "array":
        return []
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return True
    if kind == "string":
        return "x" * max(1, schema.get("minLength", 1))
    return None


def mcp_cases() -> Iterator[tuple[dict[str, Any], str]]:
    """(schema, arguments JSON) for MCP corpus tools whose minimal instance the schema accepts."""
    for path in sorted((CORPORA / "mcp-tools").glob("*.json")):
        for declared in json.loads(path.read_text())["tools"]:
            schema = declared.get("inputSchema")
            if not isinstance(schema, dict):
                continue
            instance = _minimal(schema)
            if jsonschema.Draft202012Validator(schema).is_valid(instance):
                yield schema, json.dumps(instance)


def _annotation(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if "enum" in schema and all(isinstance(v, str) for v in schema["enum"]):
        return Literal[tuple(schema["enum"])]
    if kind == "object" and "properties" in schema:
        return _model(schema)
    if kind == "array":
        return list[_annotation(schema.get("items", {}))]  # type: ignore[misc]
    simple: dict[Any, Any] = {
        "string": pydantic.StrictStr,
        "integer": pydantic.StrictInt,
        "number": float,
        "boolean": pydantic.StrictBool,
        "object": dict[str, Any],
    }
    return simple.get(kind, Any)


def _model(schema: dict[str, Any]) -> Any:
    required = set(schema.get("required", []))
    fields: dict[str, Any] = {}
    for name, sub in schema.get("properties", {}).items():
        annotation = _annotation(sub)
        fields[name] = (annotation, ...) if name in required else (annotation | None, None)
    closed = schema.get("additionalProperties") is False
    config = pydantic.ConfigDict(extra="forbid" if closed else "ignore")
    return pydantic.create_model("Arguments", __config__=config, **fields)


def _measure(cases: list[tuple[dict[str, Any], str]], with_pydantic: bool) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"llm_wire": [], "jsonschema": [], "pydantic": [], "json.loads": []}
    for n, (schema, arguments) in enumerate(cases):
        made = tool.from_json_schema("t", "bench", schema)
        if not isinstance(made, Ok):
            continue
        tools = [made.value]
        calls = [ToolCall(id=f"c{n}", name="t", arguments_json=arguments)]
        if not isinstance(admission.admit(calls, tools), Ok):
            continue  # BFCL nests acceptable values inside dicts; such documents are left out here
        validator = jsonschema.Draft202012Validator(schema)

        def ours(calls: list[ToolCall] = calls, tools: list[tool.Tool] = tools) -> object:
            return admission.admit(calls, tools)

        def peer(validator: Any = validator, arguments: str = arguments) -> None:
            validator.validate(json.loads(arguments))

        def loads_only(arguments: str = arguments) -> object:
            return json.loads(arguments)

        runs: list[tuple[str, Callable[[], object]]] = [
            ("llm_wire", ours),
            ("jsonschema", peer),
            ("json.loads", loads_only),
        ]
        if with_pydantic:
            adapter = pydantic.TypeAdapter(_model(schema))
            adapter.validate_json(arguments)

            def typed(adapter: Any = adapter, arguments: str = arguments) -> object:
                return adapter.validate_json(arguments)

            runs.append(("pydantic", typed))
        for label, fn in runs:
            times[label].append(median_seconds(fn, rounds=5, min_time=0.002))
    return times


def typed_tools() -> None:
    """One weather call to an attrs tool and to a pydantic model tool, and pydantic's own validate_json."""
    calls = [ToolCall(id="c", name="get_weather", arguments_json=bench_codec.ARGUMENTS)]
    attrs_tool = tool.new("get_weather", "Get the weather.", codec.derive(bench_codec.GetWeather))
    model_tool = tool.new("get_weather", "Get the weather.", codec.derive(bench_codec.GetWeatherModel))
    adapter = pydantic.TypeAdapter(bench_codec.GetWeatherModel)
    arguments = bench_codec.ARGUMENTS
    runs: list[tuple[str, Callable[[], object]]] = [
        ("admission, attrs tool", lambda: admission.admit(calls, [attrs_tool])),
        ("admission, pydantic model tool", lambda: admission.admit(calls, [model_tool])),
        ("pydantic validate_json (strict)", lambda: adapter.validate_json(arguments, strict=True)),
    ]
    times = {label: median_seconds(fn, rounds=5, min_time=0.01) for label, fn in runs}
    peer = times["pydantic validate_json (strict)"]
    rows = [[label, f"{seconds * 1e6:.1f}", f"{seconds / peer:.2f}x"] for label, seconds in times.items()]
    print_table("Typed admission of one weather call, medians", ["run", "µs", "vs pydantic"], rows)


def main() -> None:
    typed_tools()
    if not CORPORA.is_dir():
        print(f"\nadmission benchmark skipped: corpus not found at {CORPORA}")
        return
    rows = []
    for label, cases, with_pydantic in (
        ("BFCL ground truth", list(bfcl_cases())[::4], True),
        ("MCP corpus (minimal instances)", list(mcp_cases()), False),
    ):
        times = _measure(cases, with_pydantic)
        ours = statistics.median(times["llm_wire"])
        row: list[object] = [label, len(times["llm_wire"]), f"{ours * 1e6:.1f}"]
        row.append(f"{statistics.median(times['jsonschema']) / ours:.1f}x faster")
        # The floor of any strict admission: the C scanner alone, as a share of the jsonschema peer.
        row.append(f"{statistics.median(times['jsonschema']) / statistics.median(times['json.loads']):.1f}x")
        if times["pydantic"]:
            row.append(f"{ours / statistics.median(times['pydantic']):.2f}x")
        else:
            row.append("n/a")
        rows.append(row)
    print_table(
        "Admission of one call (parse + validate + decode), medians",
        [
            "documents",
            "calls",
            "llm_wire µs",
            "vs json.loads+jsonschema",
            "json.loads alone vs the same peer",
            "llm_wire / pydantic",
        ],
        rows,
    )
