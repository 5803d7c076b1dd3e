"""
The old public names kept for one release (``llm_wire._deprecated.ALIASES``): each still imports from its old
module (or is found on its old class), unlisted, and is the new object or a wrapper that warns naming the new
name and does what it does; no other public-looking name of a public module is left unlisted.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import inspect
import pkgutil
import re
import typing
from collections.abc import Callable
from types import ModuleType
from typing import Any

import attrs
import pytest

import llm_wire
from llm_wire import tool
from llm_wire._deprecated import ALIASES, REMOVED_IN, renamed
from llm_wire.agent import ErrorCategory, ToolContract, ToolDescriptor, ToolInvocation, ToolOutcome, make_tool
from llm_wire.agent.projection import PlainPayload, ProjectionPolicy, project_payload, project_tool_outcome
from llm_wire.message import ToolCall
from llm_wire.outcome import Failure, Sent, TransportError, TransportProblem
from llm_wire.providers import anthropic, openai_responses
from llm_wire.providers.projection import project_schema
from llm_wire.reasons import InvalidJson
from llm_wire.result import Err, unwrap
from llm_wire.tool import InvalidCharacter, InvalidName
from llm_wire.value import Value, parse


def _resolve(dotted: str) -> Any:
    """The object a dotted name reaches: its longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part)
        return found
    raise AssertionError(f"{dotted} names no module")


@attrs.frozen
class Echo:
    """Echo the text."""

    text: str

    def invoke(self) -> str:
        return self.text


ECHO: ToolDescriptor = make_tool(Echo).descriptor
SCHEMA: Value = {"type": "object", "properties": {"n": {"type": "integer"}}}
BUSY = ToolOutcome.failed(ErrorCategory.UNAVAILABLE, "busy", "the service is busy")
LONG = PlainPayload("x" * 4000)
TIGHT = ProjectionPolicy(max_bytes=256, max_tokens=64)
NUMBER = unwrap(tool.from_json_schema("n", "A number.", SCHEMA))
BAD_NAME = InvalidName("bad name", InvalidCharacter(" "))
UNPARSED = parse("[")
assert isinstance(UNPARSED, Err)
NOT_JSON = InvalidJson(UNPARSED.error)
UNSENT = Failure(TransportError(TransportProblem.CONNECT_FAILED), Sent.NOT_SENT)

Call = Callable[[Any], object]
Expected = Callable[[], object]

#: For each renamed callable: a call of the old name, and what the new name gives for it.
SAMPLES: dict[str, tuple[Call, Expected]] = {
    "llm_wire.agent.abandoned_outcome": (
        lambda old: old("t", heartbeat=True),
        lambda: ToolOutcome.abandoned("t", heartbeat=True),
    ),
    "llm_wire.agent.invalid_arguments": (
        lambda old: old("t", None, "not an object"),
        lambda: ToolOutcome.invalid_arguments("t", None, "not an object"),
    ),
    "llm_wire.agent.outcome_for_exception": (
        lambda old: old(PermissionError(), "t"),
        lambda: ToolOutcome.from_exception(PermissionError(), "t"),
    ),
    "llm_wire.agent.outcome_unknown": (lambda old: old("pay"), lambda: ToolOutcome.unknown("pay")),
    "llm_wire.agent.unknown_tool": (
        lambda old: old(["a", "b"], scope=True),
        lambda: ToolOutcome.unknown_tool(["a", "b"], scope=True),
    ),
    "llm_wire.agent.category_for_exception": (
        lambda old: old(FileNotFoundError()),
        lambda: ErrorCategory.for_exception(FileNotFoundError()),
    ),
    "llm_wire.agent.category_for_status": (lambda old: old(429), lambda: ErrorCategory.for_status(429)),
    "llm_wire.agent.describe": (lambda old: old(ECHO.tool), lambda: ToolDescriptor(ECHO.tool)),
    "llm_wire.agent.descriptor_from_json_schema": (
        lambda old: unwrap(old("n", "A number.", SCHEMA)).to_json(),
        lambda: unwrap(ToolDescriptor.from_json_schema("n", "A number.", SCHEMA)).to_json(),
    ),
    "llm_wire.agent.invocation_for": (
        lambda old: old(ECHO, '{"text": "a"}', call_id="c"),
        lambda: ToolInvocation.of(ECHO, '{"text": "a"}', call_id="c"),
    ),
    "llm_wire.agent.redact": (lambda old: old(ECHO, {"text": "a"}), lambda: ECHO.redact({"text": "a"})),
    "llm_wire.agent.retry_advice": (
        lambda old: old(BUSY, ToolContract(), "t", consumes_key=False),
        lambda: ToolContract().retry_advice(BUSY, "t", consumes_key=False),
    ),
    "llm_wire.agent.project": (lambda old: old(LONG, TIGHT), lambda: project_payload(LONG, TIGHT)),
    "llm_wire.agent.project_outcome": (
        lambda old: old(BUSY, TIGHT),
        lambda: project_tool_outcome(BUSY, TIGHT),
    ),
    "llm_wire.agent.projection.project": (lambda old: old(LONG, TIGHT), lambda: project_payload(LONG, TIGHT)),
    "llm_wire.agent.projection.project_outcome": (
        lambda old: old(BUSY, TIGHT),
        lambda: project_tool_outcome(BUSY, TIGHT),
    ),
    "llm_wire.durable.is_safe_to_repeat": (
        lambda old: old(ECHO, True),
        lambda: ECHO.contract.is_repeatable(consumes_key=True),
    ),
    "llm_wire.durable.outcome_unknown": (lambda old: old("pay"), lambda: ToolOutcome.unknown("pay")),
    "llm_wire.message.tool_call": (lambda old: old("c", "t", "{}"), lambda: ToolCall("c", "t", "{}")),
    "llm_wire.tool.describe_error": (lambda old: old(BAD_NAME), lambda: str(BAD_NAME)),
    "llm_wire.tool.description": (lambda old: old(NUMBER), lambda: NUMBER.description),
    "llm_wire.tool.name": (lambda old: old(NUMBER), lambda: NUMBER.name),
    "llm_wire.tool.schema": (lambda old: old(NUMBER), lambda: NUMBER.schema),
    "llm_wire.admission.describe_value_failure": (lambda old: old(NOT_JSON), lambda: str(NOT_JSON)),
    "llm_wire.transport.retryable": (lambda old: old(UNSENT), lambda: UNSENT.retryable),
    "llm_wire.providers.project": (
        lambda old: old(NUMBER.schema, anthropic.WIRE.strict),
        lambda: project_schema(NUMBER.schema, anthropic.WIRE.strict),
    ),
    "llm_wire.providers.Wire.project": (
        lambda old: old(openai_responses.WIRE, NUMBER.schema, True),
        lambda: openai_responses.WIRE.project_schema(NUMBER.schema, True),
    ),
    "llm_wire.providers.projection.qualifies": (
        lambda old: old(unwrap(openai_responses.WIRE.project_schema(NUMBER.schema, True))),
        lambda: unwrap(openai_responses.WIRE.project_schema(NUMBER.schema, True)).qualifies,
    ),
}


class TestTable:
    """``ALIASES`` is one honest table."""

    def test_each_old_name_once(self) -> None:
        olds = [old for old, _ in ALIASES]
        assert len(olds) == len(set(olds))

    def test_every_new_name_exists(self) -> None:
        """Each replacement resolves, so a warning never sends anyone to a name that is not there."""
        for _, new in ALIASES:
            _resolve(new)

    def test_every_sample_is_a_renamed_callable(self) -> None:
        """A sample call belongs to an old name of the table."""
        olds = {old for old, _ in ALIASES}
        assert set(SAMPLES) <= olds

    def test_removed_in_a_later_release(self) -> None:
        """The aliases go in ``REMOVED_IN``: once this release is out, delete them and ``_deprecated.py``."""
        version = tuple(int(part) for part in re.findall(r"\d+", importlib.metadata.version("llm_wire"))[:2])
        removed = tuple(int(part) for part in REMOVED_IN.split("."))
        assert version < removed, f"llm_wire {version} is past {REMOVED_IN}: remove the old names"


@pytest.mark.parametrize(("old", "new"), ALIASES, ids=[old for old, _ in ALIASES])
class TestOldNames:
    """Each old name still works, unlisted, for one release."""

    def test_imports_from_its_old_module_unlisted(self, old: str, new: str) -> None:
        """Its module binds it (the root facade on first use), unlisted; an old method is its class's."""
        home, _, name = old.rpartition(".")
        holder = _resolve(home)
        if not isinstance(holder, ModuleType):
            assert name in vars(holder)
            return
        getattr(holder, name)  # the root facade binds its names on first use
        assert name in vars(holder)
        assert name not in holder.__all__

    def test_is_the_new_object_or_warns_and_does_the_same(self, old: str, new: str) -> None:
        """A moved name is the new object; a renamed one warns naming its replacement and answers alike."""
        found, replacement = _resolve(old), _resolve(new)
        if found is replacement or (inspect.ismethod(found) and found == replacement):
            return  # a bound method is made anew on each look-up: the same method of the same object
        assert old in SAMPLES, f"{old} is neither {new} nor a renamed callable with a sample call"
        call, expected = SAMPLES[old]
        with pytest.warns(DeprecationWarning, match=re.escape(f"{old} is deprecated: use {new}")):
            got = call(found)
        assert got == expected()


class TestRenamed:
    """The wrapper itself."""

    def test_warns_at_the_caller_and_keeps_the_signature(self) -> None:
        old = "llm_wire.agent.outcome_unknown"
        wrapper = renamed(ToolOutcome.unknown, old)
        assert wrapper.__name__ == "outcome_unknown"
        assert inspect.signature(wrapper) == inspect.signature(ToolOutcome.unknown)
        with pytest.warns(DeprecationWarning, match="ToolOutcome.unknown") as caught:
            wrapper("t")
        assert caught[0].filename == __file__

    def test_an_old_name_outside_the_table_is_refused(self) -> None:
        """Every wrapper is in ``ALIASES``: a name the table does not hold cannot be made one."""
        with pytest.raises(KeyError):
            renamed(ToolOutcome.unknown, "llm_wire.agent.not_in_the_table")


def _public_modules() -> list[str]:
    found = [info.name for info in pkgutil.walk_packages(llm_wire.__path__, "llm_wire.")]
    public = [n for n in found if not any(p.startswith("_") for p in n.split(".")) and ".demo" not in n]
    return ["llm_wire", *public]


def _listed_objects() -> set[int]:
    """The ids of the objects the public modules list."""
    found: set[int] = set()
    for name in _public_modules():
        module = importlib.import_module(name)
        found.update(id(getattr(module, each)) for each in module.__all__)
    return found


def _source_names(module: ModuleType) -> tuple[set[str], set[str]]:
    """The public-looking names the module's source binds at top level: by definition, by import of ours."""
    defined: set[str] = set()
    imported: set[str] = set()
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined.update(target.id for target in targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("llm_wire"):
            imported.update(alias.asname or alias.name for alias in node.names)

    def public(names: set[str]) -> set[str]:
        return {
            n
            for n in names
            if not n.startswith("_") and not isinstance(getattr(module, n), ModuleType | typing.TypeVar)
        }

    return public(defined), public(imported)


def _annotation_names(module: ModuleType) -> set[str]:
    """
    The names the annotations of the classes a face lists are written with: it binds them so that their
    type hints resolve there (``typing.get_type_hints`` reads a class's home module), not to export them.
    """
    names: set[str] = set()
    for listed in module.__all__:
        found = getattr(module, listed)
        for cls in found.__mro__ if isinstance(found, type) else ():
            for hint in vars(cls).get("__annotations__", {}).values():
                names.update(re.findall(r"[A-Za-z_]\w*", hint if isinstance(hint, str) else ""))
    return names


@pytest.mark.parametrize("name", _public_modules())
def test_every_public_looking_name_is_listed_or_old(name: str) -> None:
    """
    A name a module defines or re-exports is in its ``__all__`` or in ``ALIASES``. A plain module may import
    a name another public module lists, to use it; a package's face imports only to list, or to resolve the
    annotations of the classes it lists.
    """
    module = importlib.import_module(name)
    defined, imported = _source_names(module)
    if not hasattr(module, "__path__"):
        listed = _listed_objects()
        imported = {n for n in imported if id(getattr(module, n)) not in listed}
    else:
        imported -= _annotation_names(module)
    old = {o.rpartition(".")[2] for o, _ in ALIASES if o.rpartition(".")[0] == name}
    loose = sorted((defined | imported) - set(module.__all__) - old)
    assert loose == [], f"{name} binds public-looking names it neither lists nor keeps as old names"
