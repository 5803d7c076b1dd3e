"""
Contract speed: validating tool arguments against the MCP corpus's input schemas, and loading those schemas,
as ratios to ``jsonschema`` (and ``fastjsonschema`` where it can compile the schema), measured in one run.

Instances are built from each schema: a minimal valid one (required members), a full one (every declared
member), and three invalid ones (a member of the wrong type, a required member missing, an unknown member).
``llm_wire`` gets exact values (``Decimal``); the peers get the same values with ``float``. Every verdict is
checked against ``jsonschema`` before anything is timed.
"""

from __future__ import annotations

import copy
import re
import statistics
import warnings
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import fastjsonschema
import jsonschema

from benchmarks._harness import CORPORA, interleaved, print_table
from llm_wire import contract
from llm_wire.result import Ok
from llm_wire.value import Limits, Value, parse

__all__ = ["Case", "cases", "main", "paired_medians"]

#: The ratios ``make bench`` promises against jsonschema.
VALIDATE_TARGET = 10.0
LOAD_TARGET = 5.0
_PATTERN_SAMPLES = ("PROJ-123", "PROJ", "ABC_1", "a", "2024-01-01", "x")


class Case:
    """One input schema: the document, its contract, the peers' validators, and its instances."""

    def __init__(self, name: str, document: Any) -> None:
        self.name = name
        self.document = document
        self.plain = _plain(document)
        loaded = contract.load(document)
        assert isinstance(loaded, Ok), (name, loaded)
        self.contract = loaded.value
        self.oracle_class: Any = jsonschema.validators.validator_for(
            self.plain, default=jsonschema.Draft202012Validator
        )
        self.oracle = self.oracle_class(self.plain)
        self.fast: Callable[[Any], Any] | None = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                self.fast = fastjsonschema.compile(self.plain)
            except Exception:  # fastjsonschema raises many kinds for what it cannot compile
                self.fast = None
        self.instances: list[tuple[Value, Any, bool]] = []  # (exact value, float twin, valid)
        for instance in _instances(document):
            plain = _plain(instance)
            self.instances.append((instance, plain, self.oracle.is_valid(plain)))


def _plain(value: Any) -> Any:
    """The ``json`` module's view of a value: ``float`` for every ``Decimal``."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _resolve(root: Any, schema: Any) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        node = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def _sample(root: Any, schema: Any, *, full: bool, depth: int = 0) -> Any:
    """A value the schema accepts, for the shapes the corpus uses."""
    schema = _resolve(root, schema)
    if not isinstance(schema, dict) or depth > 5:
        return None
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        return _sample(root, alternatives[0], full=full, depth=depth + 1)
    kind = schema.get("type", "object" if "properties" in schema else None)
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        required = schema.get("required", [])
        return {
            name: _sample(root, sub, full=full, depth=depth + 1)
            for name, sub in schema.get("properties", {}).items()
            if full or name in required
        }
    if kind == "array":
        return [_sample(root, schema.get("items", {}), full=full, depth=depth + 1)] * max(
            1, schema.get("minItems", 1)
        )
    if kind == "string":
        pattern = schema.get("pattern")
        if pattern:
            return next((s for s in _PATTERN_SAMPLES if re.search(pattern, s)), "x")
        return "x" * max(1, schema.get("minLength", 1))
    if kind in ("integer", "number"):
        low: Any = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        value = (
            int(low) + 1 if kind == "integer" or "maximum" in schema else Decimal(int(low)) + Decimal("1.5")
        )
        return min(value, schema["maximum"]) if "maximum" in schema else value
    if kind == "boolean":
        return True
    return None


def _instances(document: Any) -> Iterator[Value]:
    minimal = _sample(document, document, full=False)
    full = _sample(document, document, full=True)
    yield minimal
    yield full
    if isinstance(full, dict) and full:
        name = next(iter(full))
        wrong = copy.deepcopy(full)
        wrong[name] = [] if isinstance(full[name], str) else "wrong"
        yield wrong
        missing: Any = copy.deepcopy(full)
        for required in document.get("required", []):
            missing.pop(required, None)
            break
        else:
            missing = "not an object"
        yield missing
        yield {**full, "zz_unknown": 1}


def cases() -> list[Case]:
    """Every input schema of the MCP corpus, with its instances."""
    out: list[Case] = []
    for path in sorted((CORPORA / "mcp-tools").glob("*.json")):
        server: Any = parse(path.read_text(encoding="utf-8"), Limits().with_max_bytes(16 << 20)).value  # type: ignore[union-attr]
        out.extend(Case(f"{path.stem}/{tool['name']}", tool["inputSchema"]) for tool in server["tools"])
    return out


def _ours(selected: list[tuple[Case, Value, Any, bool]]) -> Callable[[], None]:
    validate = contract.validate
    pairs = [(case.contract, value) for case, value, _, _ in selected]

    def run() -> None:
        for compiled, value in pairs:
            validate(compiled, value)

    return run


def _jsonschema_is_valid(selected: list[tuple[Case, Value, Any, bool]]) -> Callable[[], None]:
    pairs = [(case.oracle.is_valid, plain) for case, _, plain, _ in selected]

    def run() -> None:
        for is_valid, plain in pairs:
            is_valid(plain)

    return run


def _jsonschema_first_error(selected: list[tuple[Case, Value, Any, bool]]) -> Callable[[], None]:
    pairs = [(case.oracle.iter_errors, plain) for case, _, plain, _ in selected]

    def run() -> None:
        for iter_errors, plain in pairs:
            next(iter_errors(plain), None)

    return run


def _fastjsonschema(selected: list[tuple[Case, Value, Any, bool]]) -> Callable[[], None]:
    pairs = [(case.fast, plain) for case, _, plain, _ in selected]
    error = fastjsonschema.JsonSchemaException

    def run() -> None:
        for fast, plain in pairs:
            try:  # noqa: SIM105 - contextlib.suppress would add a call to every timed instance
                fast(plain)  # type: ignore[misc]
            except error:
                pass

    return run


def _fast_verdict(case: Case, plain: Any) -> bool:
    try:
        case.fast(plain)  # type: ignore[misc]
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def _micro(seconds: float, count: int) -> float:
    return seconds / count * 1e6


def paired_medians(*runs: Callable[[], object], rounds: int = 21, min_time: float = 0.02) -> list[float]:
    """Median seconds of one call of each run, in CPU time, in interleaved rounds (``interleaved``)."""
    return [statistics.median(times) for times in interleaved(runs, rounds=rounds, min_time=min_time)]


def main() -> None:
    """Print the validation and loading tables."""
    if not (CORPORA / "mcp-tools").is_dir():
        print(f"\nbench_contract: the MCP corpus is not at {CORPORA / 'mcp-tools'}; nothing to measure.")
        return
    all_cases = cases()
    selected = [(case, value, plain, ok) for case in all_cases for value, plain, ok in case.instances]
    wrong = [
        (case.name, value)
        for case, value, _, ok in selected
        if isinstance(contract.validate(case.contract, value), Ok) != ok
    ]
    assert not wrong, f"verdicts differ from jsonschema: {wrong[:3]}"
    groups = {
        "all instances": selected,
        "valid instances": [s for s in selected if s[3]],
        "invalid instances": [s for s in selected if not s[3]],
    }
    rows = []
    ratios = []
    for label, group in groups.items():
        ours, valid_only, first = paired_medians(
            _ours(group), _jsonschema_is_valid(group), _jsonschema_first_error(group)
        )
        ratios.append(valid_only / ours)
        rows.append(
            [
                f"{label} ({len(group)})",
                _micro(ours, len(group)),
                _micro(valid_only, len(group)),
                f"{valid_only / ours:.1f}x",
                _micro(first, len(group)),
                f"{first / ours:.1f}x",
            ]
        )
    print_table(
        f"Validating MCP tool arguments: {len(all_cases)} input schemas, median µs per instance",
        ["instances", "llm_wire", "jsonschema is_valid", "ratio", "jsonschema first error", "ratio"],
        rows,
    )

    fast_cases = [s for s in selected if s[0].fast is not None]
    supported = sum(1 for case in all_cases if case.fast is not None)
    disagree = sum(_fast_verdict(case, plain) != ok for case, _, plain, ok in fast_cases)
    ours, fast = paired_medians(_ours(fast_cases), _fastjsonschema(fast_cases))
    print_table(
        f"Against fastjsonschema (generated code) on the {supported} schemas it compiles,"
        " median µs per instance",
        ["instances", "llm_wire", "fastjsonschema", "llm_wire / fastjsonschema"],
        [
            [
                f"all ({len(fast_cases)})",
                _micro(ours, len(fast_cases)),
                _micro(fast, len(fast_cases)),
                f"{ours / fast:.2f}",
            ]
        ],
    )

    documents = [case.document for case in all_cases]
    plains = [(case.oracle_class, case.plain) for case in all_cases]

    def load_ours() -> None:
        for document in documents:
            contract.load(document)

    def load_jsonschema() -> None:
        for cls, plain in plains:
            cls.check_schema(plain)
            cls(plain)

    def compile_fast() -> None:
        for case in all_cases:
            if case.fast is not None:
                fastjsonschema.compile(case.plain)

    ours_load, theirs_load = paired_medians(load_ours, load_jsonschema, rounds=7)
    (fast_compile,) = paired_medians(compile_fast, rounds=3)
    print_table(
        f"Loading and compiling all {len(all_cases)} input schemas, median ms per schema",
        ["step", "ms per schema", "ratio to llm_wire"],
        [
            ["llm_wire load (check, resolve, compile)", ours_load / len(all_cases) * 1e3, "1.0x"],
            [
                "jsonschema check_schema + validator",
                theirs_load / len(all_cases) * 1e3,
                f"{theirs_load / ours_load:.1f}x",
            ],
            [
                f"fastjsonschema compile ({supported} schemas)",
                fast_compile / supported * 1e3,
                f"{fast_compile / supported / (ours_load / len(all_cases)):.1f}x",
            ],
        ],
    )
    print(
        f"\nfastjsonschema knows drafts 4 to 7 (it reads 2020-12 documents with draft-07 rules) and asserts"
        f" format by default: its verdict differs from jsonschema's on {disagree} of {len(fast_cases)}"
        " instances."
    )
    print(
        f"Targets: validation >= {VALIDATE_TARGET:.0f}x jsonschema (lowest measured {min(ratios):.1f}x), "
        f"loading >= {LOAD_TARGET:.0f}x jsonschema (measured {theirs_load / ours_load:.1f}x)."
    )


if __name__ == "__main__":
    main()
