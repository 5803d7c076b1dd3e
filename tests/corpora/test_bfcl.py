"""
BFCL v4 declarations and ground truth through ``from_json_schema`` and ``admit``.

Each BFCL function becomes a tool after BFCL's own documented type mapping (``dict`` -> object, ``float`` ->
number, ``tuple`` -> array, ``any`` -> string, ...). Dots in names become underscores, as BFCL itself does
for providers that refuse them, and the root object is closed, as strict providers require, so that an
extra parameter is an issue. Each ground-truth call (the first acceptable value per parameter, optional
parameters omitted when allowed; BFCL lists acceptable values per member inside dict values too) must be
admitted with no issue; systematic mutations must each produce the matching issue. Two ground-truth
records break their own declarations; they are listed, and must be refused.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from llm_wire import admission, tool
from llm_wire.admission import InvalidArguments, SchemaRejected, UnknownTool
from llm_wire.message import ToolCall
from llm_wire.reasons import InvalidJson
from llm_wire.result import Err, Ok
from llm_wire.schema import Schema
from llm_wire.tool import ToolCallChecks
from llm_wire.value import DuplicateKey

BFCL = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "bfcl"
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")

pytestmark = pytest.mark.skipif(not BFCL.is_dir(), reason=f"BFCL corpus not found at {BFCL}")

TYPES = {
    **dict.fromkeys(["integer", "byte", "short", "long", "Bigint"], "integer"),
    **dict.fromkeys(["number", "float", "double"], "number"),
    **dict.fromkeys(["string", "String", "char", "any", "Any"], "string"),
    **dict.fromkeys(["boolean", "bool"], "boolean"),
    **dict.fromkeys(["array", "list", "tuple", "Array", "ArrayList", "Queue", "Stack"], "array"),
    **dict.fromkeys(["dict", "object", "HashMap", "Hashtable"], "object"),
}


def to_json_schema(node: Any) -> Any:
    """BFCL's documented mapping; its non-standard ``optional`` flag is dropped (``required`` says it)."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type":
            out[key] = TYPES[value]
        elif key == "properties":
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = to_json_schema(value)
        elif key != "optional":
            out[key] = value
    return out


def wire_name(name: str) -> str:
    return name.replace(".", "_")


def records(category: str) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    questions = (BFCL / f"BFCL_v4_{category}.json").read_text().splitlines()
    answers = (BFCL / "possible_answer" / f"BFCL_v4_{category}.json").read_text().splitlines()
    by_id = {json.loads(line)["id"]: json.loads(line) for line in answers}
    for line in questions:
        record = json.loads(line)
        yield record, by_id[record["id"]]


def declare(function: dict[str, Any]) -> tool.Tool:
    schema = to_json_schema(function["parameters"])
    schema["additionalProperties"] = False
    made = tool.from_json_schema(wire_name(function["name"]), function["description"], schema)
    assert isinstance(made, Ok), f"{function['name']}: {made}"
    return made.value


def choose(values: list[Any], required: bool) -> Any:
    """BFCL lists acceptable values; ``""`` among them means the parameter may be left out."""
    if "" in values and not required:
        return OMIT
    return concrete(next(v for v in values if v != ""))


def concrete(value: Any) -> Any:
    """Inside a dict value, BFCL lists acceptable values per member again."""
    if isinstance(value, dict):
        return {k: concrete(next(v for v in vs if v != "")) for k, vs in value.items()}
    if isinstance(value, list):
        return [concrete(item) for item in value]
    return value


OMIT = object()

#: Ground truth that breaks its own declaration: admission must refuse it, as a schema failure.
BROKEN_GROUND_TRUTH = {
    "parallel_multiple_21": "x is declared an array, the ground truth passes an expression string",
    "parallel_multiple_94": "elements is declared an array of integers, the ground truth sorts strings",
}


def ground_truth_calls(answer: dict[str, Any], tools: list[tool.Tool]) -> list[ToolCall]:
    by_name = {t.name: t for t in tools}
    calls = []
    for n, entry in enumerate(answer["ground_truth"]):
        ((name, params),) = entry.items()
        required = by_name[wire_name(name)].schema.get("required") or []
        assert isinstance(required, list)
        chosen = {p: choose(values, p in required) for p, values in params.items()}
        arguments = {p: v for p, v in chosen.items() if v is not OMIT}
        calls.append(ToolCall(id=f"call_{n}", name=wire_name(name), arguments_json=json.dumps(arguments)))
    return calls


def admit_one(call: ToolCall, tools: list[tool.Tool]) -> Any:
    got = admission.admit([call], tools, ToolCallChecks.REPORT)
    assert isinstance(got, Ok)
    return got.value


def mutations(call: ToolCall, declared: tool.Tool) -> Iterator[tuple[str, ToolCall, type, type | None]]:
    """(kind, mutated call, expected issue type, expected failure type)."""
    arguments = json.loads(call.arguments_json)
    required = declared.schema.get("required") or []
    properties: dict[str, Schema] = dict(declared.schema.get("properties") or ())  # type: ignore[arg-type]
    yield "unknown tool", ToolCall(call.id, call.name + "_x", call.arguments_json), UnknownTool, None
    yield "broken JSON", ToolCall(call.id, call.name, call.arguments_json[:-1]), InvalidArguments, InvalidJson
    extra = {**arguments, "zz_not_declared": 1}
    yield "extra parameter", _with(call, extra), InvalidArguments, SchemaRejected
    if isinstance(required, list) and required and required[0] in arguments:
        first_required = str(required[0])
        missing = {k: v for k, v in arguments.items() if k != first_required}
        yield "missing required", _with(call, missing), InvalidArguments, SchemaRejected
        kind = properties[first_required].get("type")
        wrong = copy.deepcopy(arguments)
        wrong[first_required] = {"wrong": True} if kind != "object" else "wrong"
        yield "wrong type", _with(call, wrong), InvalidArguments, SchemaRejected
    if arguments:
        first = next(iter(arguments))
        text = call.arguments_json[:-1] + f", {json.dumps(first)}: {json.dumps(arguments[first])}}}"
        yield "duplicate key", ToolCall(call.id, call.name, text), InvalidArguments, InvalidJson


def _with(call: ToolCall, arguments: dict[str, Any]) -> ToolCall:
    return ToolCall(call.id, call.name, json.dumps(arguments))


class TestBfcl:
    """BFCL declarations and ground truth are admitted, mutations refused."""

    @pytest.mark.parametrize("category", CATEGORIES)
    def test_bfcl(self, category: str) -> None:
        """Every declaration loads, every ground truth is admitted, every mutation is caught as itself."""
        counts: Counter[str] = Counter()
        for record, answer in records(category):
            tools = [declare(function) for function in record["function"]]
            counts["declarations"] += len(tools)
            calls = ground_truth_calls(answer, tools)
            if record["id"] in BROKEN_GROUND_TRUTH:
                reported = admission.admit(calls, tools, ToolCallChecks.REPORT)
                assert isinstance(reported, Ok)
                assert [
                    type(i.failure) for i in reported.value.issues if isinstance(i, InvalidArguments)
                ] == [SchemaRejected]
                counts["broken ground truth refused"] += 1
                continue
            got = admission.admit(calls, tools, ToolCallChecks.REJECT)
            assert isinstance(got, Ok), f"{record['id']}: {got}"
            assert len(got.value.admitted) == len(calls)
            counts["ground-truth calls"] += len(calls)
            by_name = {t.name: t for t in tools}
            for original in calls:
                for kind, mutated, issue_type, failure_type in mutations(original, by_name[original.name]):
                    admitted = admit_one(mutated, tools)
                    assert len(admitted.issues) == 1, f"{record['id']} {kind}: no issue"
                    (issue,) = admitted.issues
                    assert isinstance(issue, issue_type), f"{record['id']} {kind}: {issue}"
                    if failure_type is not None:
                        assert isinstance(issue, InvalidArguments)
                        assert isinstance(issue.failure, failure_type), f"{record['id']} {kind}: {issue}"
                    if kind == "duplicate key":
                        assert isinstance(issue, InvalidArguments)
                        assert isinstance(issue.failure, InvalidJson)
                        assert isinstance(issue.failure.error.reason, DuplicateKey)
                    counts[kind] += 1
        print(f"\nBFCL {category}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        assert counts["ground-truth calls"] > 0

    def test_rejection_names_the_tool(self) -> None:
        """Under REJECT the first bad call fails the response with a protocol error naming the tool."""
        record, answer = next(records("simple_python"))
        tools = [declare(f) for f in record["function"]]
        (good,) = ground_truth_calls(answer, tools)
        bad = _with(good, {})
        got = admission.admit([bad], tools, ToolCallChecks.REJECT)
        assert isinstance(got, Err)
        assert f"tool {good.name} has invalid arguments" in got.error.describe()
