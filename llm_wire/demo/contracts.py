"""
Demo section ``contracts``: load real MCP ``inputSchema``s received at runtime, validate good and bad
arguments, show a schema refused with the keyword it cannot honour, and hostile schemas either refused at
load or validated in bounded work.
"""

from __future__ import annotations

import json
import time

from llm_wire import contract
from llm_wire.result import Err, Ok
from llm_wire.value import parse

__all__ = ["run"]

#: Input schemas as three MCP servers publish them (``tools/list``), verbatim.
SCHEMAS = {
    "jira_get_transitions": r"""{"additionalProperties": false, "properties": {"issue_key": {"description":
        "Jira issue key (e.g., 'PROJ-123', 'ACV2-642')", "pattern": "^[A-Z][A-Z0-9_]+-\\d+(?:-\\d+)*$",
        "type": "string"}}, "required": ["issue_key"], "type": "object"}""",
    "create_issue": r"""{"type": "object", "properties": {"owner": {"type": "string"}, "repo": {"type":
        "string"}, "title": {"type": "string"}, "body": {"type": "string"}, "assignees": {"type": "array",
        "items": {"type": "string"}}, "milestone": {"type": "number"}, "labels": {"type": "array", "items":
        {"type": "string"}}}, "required": ["owner", "repo", "title"], "additionalProperties": false,
        "$schema": "http://json-schema.org/draft-07/schema#"}""",
    "get-sum": r"""{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties":
        {"a": {"type": "number", "description": "First number"}, "b": {"type": "number", "description":
        "Second number"}}, "required": ["a", "b"]}""",
}

#: Arguments a model might send: (tool, arguments as JSON text).
CALLS = (
    ("jira_get_transitions", '{"issue_key": "PROJ-123"}'),
    ("jira_get_transitions", '{"issue_key": "proj 123"}'),
    ("create_issue", '{"owner": "acme", "repo": "web", "title": "Fix login", "labels": ["bug"]}'),
    ("create_issue", '{"owner": "acme", "repo": "web", "title": "Fix login", "token": "ghp_secret"}'),
    ("get-sum", '{"a": 0.1, "b": true}'),
)

#: Schemas that cannot be honoured, and are refused rather than half-enforced.
REFUSED = (
    '{"type": "object", "properties": {"name": {"type": "string", "minLenght": 3}}}',
    '{"type": "object", "properties": {"user": {"$ref": "https://example.com/user.json"}}}',
    '{"type": "string", "pattern": "^(?!admin).*$"}',
    # Counted repetitions make RE2's program large and a 1 MiB match take seconds: over the pattern budget.
    '{"type": "string", "pattern": "(?:a|b)*a(?:a|b){1000}c"}',
)


def _fan_out(levels: int) -> str:
    """Each definition refers to the next twice under ``anyOf``: naively, work doubles per level."""
    defs: dict[str, object] = {
        f"d{n}": {"anyOf": [{"$ref": f"#/$defs/d{n + 1}"}, {"$ref": f"#/$defs/d{n + 1}"}]}
        for n in range(levels)
    }
    defs[f"d{levels}"] = {"type": "integer"}
    return json.dumps({"$ref": "#/$defs/d0", "$defs": defs})


def run() -> None:
    """Print what each schema loads as, each call's verdict, and each refusal."""
    contracts = {}
    for name, text in SCHEMAS.items():
        loaded = contract.parse(text)
        assert isinstance(loaded, Ok), loaded
        contracts[name] = loaded.value
        print(f"loaded {name:22} {loaded.value!r}")
    print()
    for name, arguments in CALLS:
        value = parse(arguments).value  # type: ignore[union-attr]
        match contract.validate(contracts[name], value):
            case Ok():
                print(f"{name:22} ok       {arguments}")
            case Err(error):
                print(f"{name:22} refused  {error.describe()}")
    print()
    for text in REFUSED:
        match contract.parse(text):
            case Err(load_error):
                print(f"not loaded: {load_error.describe()}")
            case Ok():  # pragma: no cover - each of these is refused
                print("loaded (unexpectedly)")
    print()
    fan_out = contract.parse(_fan_out(30))
    assert isinstance(fan_out, Ok), fan_out
    started = time.perf_counter()
    verdict = contract.validate(fan_out.value, "seven")  # refused: every one of the 2**30 paths fails
    elapsed = (time.perf_counter() - started) * 1000
    # Each node's result is shared within the validation, so the work is the schema's size, not 2**30.
    shown = verdict.error.describe() if isinstance(verdict, Err) else "valid"
    print(f"a 30-level anyOf fan-out (2**30 paths), refused in {elapsed:.1f} ms: {shown}")
