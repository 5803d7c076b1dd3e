"""Declaring a ``tools/list`` result, and the values a call sends and gets back."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from attrs import field, frozen

from llm_wire import _public
from llm_wire import contract as _contract
from llm_wire import tool as _tool
from llm_wire._described import Described
from llm_wire.contract import Contract
from llm_wire.error import ProtocolError
from llm_wire.mcp._errors import (
    InexactNumber,
    OutputMissing,
    OutputProblem,
    OutputRejected,
)
from llm_wire.mcp._face import FACE as _FACE
from llm_wire.names import NameCollision, Named, WireNameError, WireNames, mangle, wire_names
from llm_wire.result import Err, Ok, Result
from llm_wire.tool import InvalidSchema, Tool, ToolError
from llm_wire.value import Path, PlainValue, Value

__all__ = [
    "SchemaField",
    "LeftOut",
    "Hints",
    "McpTool",
    "Listing",
    "declare",
    "wire_arguments",
    "CallResult",
    "check_output",
]

# ---------------------------------------------------------------------------------------------------------
# Declaring


class SchemaField(enum.Enum):
    """Which schema of an MCP tool refused it."""

    INPUT = "inputSchema"
    OUTPUT = "outputSchema"


@frozen
class LeftOut(Described):
    """
    A listed tool left out: its position in the listing, the server's name for it, and why. ``schema`` says
    which schema refused it (``None`` for its name or its entry).
    """

    index: int
    name: str
    error: ToolError | WireNameError | ProtocolError
    schema: SchemaField | None = None

    def describe(self) -> str:
        """``tool 3 of the listing left out: inputSchema: invalid input schema: ...``; no name repeated."""
        where = f"{self.schema.value}: " if self.schema is not None else ""
        return f"tool {self.index} of the listing left out: {where}{self.error.describe()}"


@frozen
class Hints:
    """
    A tool's MCP annotations, as its server claims them: untrusted, and used only where the caller opts in.
    ``None`` where the server says nothing.
    """

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None
    title: str | None = None


def _frozen(table: Mapping[tuple[str, ...], str]) -> Mapping[tuple[str, ...], str]:
    return MappingProxyType(dict(table))


@frozen(eq=False)
class McpTool:
    """
    One declared MCP tool: the ``Tool`` the wire sees (under its wire name), the server's own name and prefix,
    the output contract (from ``outputSchema``, when declared) and the server's hints.
    """

    tool: Tool
    name: str
    prefix: str | None = None
    output: Contract | None = field(default=None, repr=False)
    hints: Hints = Hints()
    #: The arguments a call mirrors into ``Mcp-Param-*`` HTTP headers (2026-07-28): property path to header
    #: token, from the input schema's ``x-mcp-header`` declarations; empty when not declared for.
    param_headers: Mapping[tuple[str, ...], str] = field(factory=dict, converter=_frozen, repr=False)

    @property
    def wire_name(self) -> str:
        """The name the model sees and calls."""
        return self.tool.name


@frozen(eq=False)
class Listing:
    """A server's tools: those declared, those left out with their errors, and the wire-name table."""

    tools: tuple[McpTool, ...]
    refused: tuple[LeftOut, ...]
    names: WireNames = field(repr=False)
    _by_wire: Mapping[str, McpTool] = field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_by_wire", MappingProxyType({t.wire_name: t for t in self.tools}))

    def declared(self) -> tuple[Tool, ...]:
        """The tools for a request (``with_tools``) and for admission."""
        return tuple(t.tool for t in self.tools)

    def find(self, wire_name: str) -> McpTool | None:
        """The tool a returned call's name stands for, or ``None``."""
        return self._by_wire.get(wire_name)


def declare(tools: Sequence[Value], *, prefix: str | None = None, param_headers: bool = False) -> Listing:
    """
    Declare the tools of a ``tools/list`` result (its ``tools`` array): each under its wire name (mangled
    when a provider would refuse it, after ``prefix`` when given), with its input and output schema loaded.
    A tool is left out, with its typed error, when its entry is malformed, its name is empty or shared on the
    wire with another tool (then both are), a schema cannot be honoured, or it can only be called as a task
    (``execution.taskSupport: "required"``, the tasks extension). With ``param_headers`` (a
    2026-07-28 listing; needs the ``mcp`` extra) the input schema's ``x-mcp-header`` declarations are read
    too, and a tool whose declarations break MCP's rules is left out (a ``ProtocolError``), as MCP requires.
    """
    if isinstance(tools, str | bytes) or not isinstance(tools, Sequence):
        raise TypeError(f"tools must be a sequence of tool objects, not {type(tools).__name__}")
    refused: list[LeftOut] = []
    wired: list[tuple[int, dict[str, Any], str]] = []
    for index, entry in enumerate(tools):
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or not isinstance(name, str):
            refused.append(LeftOut(index, "", ProtocolError("a listed tool is not an object with a name")))
            continue
        match mangle(name, prefix):
            case Err(problem):
                refused.append(LeftOut(index, name, problem))
            case Ok(wire):
                wired.append((index, entry, wire))
    sharing: dict[str, list[int]] = {}
    for index, _, wire in wired:
        sharing.setdefault(wire, []).append(index)
    by_index = {index: Named(prefix, str(entry["name"])) for index, entry, _ in wired}
    declared: list[McpTool] = []
    for index, entry, wire in wired:
        named = by_index[index]
        if len(sharing[wire]) > 1:
            other = next(n for n in sharing[wire] if n != index)
            first, second = sorted((index, other))
            refused.append(LeftOut(index, named.name, NameCollision(wire, by_index[first], by_index[second])))
            continue
        made = _declared(entry, wire, prefix, param_headers)
        if isinstance(made, LeftOut):
            refused.append(LeftOut(index, named.name, made.error, made.schema))
        else:
            declared.append(made)
    table = wire_names(Named(t.prefix, t.name) for t in declared)
    assert isinstance(table, Ok)  # every collision was refused above
    refused.sort(key=lambda r: r.index)
    return Listing(tuple(declared), tuple(refused), table.value)


def _declared(entry: dict[str, Any], wire: str, prefix: str | None, param_headers: bool) -> McpTool | LeftOut:
    name: str = entry["name"]
    description = entry.get("description")
    if not isinstance(description, str):
        description = ""
    execution = entry.get("execution")
    if isinstance(execution, dict) and execution.get("taskSupport") == "required":
        return LeftOut(
            0, name, ProtocolError("the tool can only be called as a task, which this client does not")
        )
    input_schema = entry.get("inputSchema")
    if not isinstance(input_schema, dict):
        return LeftOut(0, name, ProtocolError("a listed tool has no inputSchema object"), SchemaField.INPUT)
    match _tool.from_json_schema(wire, description, input_schema):
        case Err(tool_error):
            return LeftOut(0, name, tool_error, SchemaField.INPUT)
        case Ok(declared):
            pass
    headers: dict[tuple[str, ...], str] = {}
    if param_headers:
        from mcp.shared.inbound import find_invalid_x_mcp_header, x_mcp_header_map

        if find_invalid_x_mcp_header(input_schema) is not None:  # its text repeats server words: not kept
            refusal = ProtocolError("an x-mcp-header declaration of the input schema breaks MCP's rules")
            return LeftOut(0, name, refusal, SchemaField.INPUT)
        headers = x_mcp_header_map(input_schema)
    output: Contract | None = None
    output_schema = entry.get("outputSchema")
    if output_schema is not None:
        match _contract.load(output_schema):
            case Err(load_error):
                return LeftOut(0, name, InvalidSchema(load_error), SchemaField.OUTPUT)
            case Ok(output):
                pass
    return McpTool(declared, name, prefix, output, _hints(entry.get("annotations")), headers)


def _hints(annotations: object) -> Hints:
    if not isinstance(annotations, dict):
        return Hints()

    def flag(key: str) -> bool | None:
        found = annotations.get(key)
        return found if isinstance(found, bool) else None

    title = annotations.get("title")
    return Hints(
        flag("readOnlyHint"),
        flag("destructiveHint"),
        flag("idempotentHint"),
        flag("openWorldHint"),
        title if isinstance(title, str) else None,
    )


# ---------------------------------------------------------------------------------------------------------
# Calling


def wire_arguments(arguments: Value) -> Result[dict[str, PlainValue], InexactNumber]:
    """
    ``arguments`` as the SDK sends them, every number still a JSON number with the same value: an ``int`` as
    it is, an integral ``Decimal`` as an ``int``, any other ``Decimal`` as the ``float`` whose shortest text
    is that number. ``Err(InexactNumber(path))`` for a number no float carries exactly.
    """
    if not isinstance(arguments, dict):
        raise TypeError(f"arguments must be a dict, not {type(arguments).__name__}")
    root: list[PlainValue] = [None]
    stack: list[tuple[Value, Any, Any, Path]] = [(arguments, root, 0, ())]
    while stack:
        item, into, slot, path = stack.pop()
        if isinstance(item, Decimal):
            number = _exact_number(item)
            if number is None:
                return Err(InexactNumber(path))
            into[slot] = number
        elif isinstance(item, list):
            items: list[PlainValue] = [None] * len(item)
            into[slot] = items
            stack.extend((element, items, n, (*path, n)) for n, element in enumerate(item))
        elif isinstance(item, dict):
            members: dict[str, PlainValue] = dict.fromkeys(item)
            into[slot] = members
            stack.extend((element, members, key, (*path, key)) for key, element in item.items())
        else:
            into[slot] = item
    plain = root[0]
    assert isinstance(plain, dict)
    return Ok(plain)


def _exact_number(number: Decimal) -> int | float | None:
    if not number.is_finite():
        return None
    if number == number.to_integral_value():
        return int(number)
    nearest = float(number)
    return nearest if Decimal(repr(nearest)) == number else None


@frozen
class CallResult:
    """
    What a ``tools/call`` returned: its content blocks (JSON, as sent), its structured content (``None`` when
    it sent none) and whether the tool reported an error (``isError``).
    """

    content: tuple[Value, ...]
    structured: Value = None
    is_error: bool = False

    def text(self) -> str:
        """The text blocks' texts, one per line."""
        texts = [block.get("text") for block in self.content if isinstance(block, dict)]
        return "\n".join(text for text in texts if isinstance(text, str))


def check_output(tool: McpTool, result: CallResult, *, failures: int = 8) -> Result[Value, OutputProblem]:
    """
    The structured content, checked against the tool's output contract (kept as it is when the tool declares
    none, or reported an error); up to ``failures`` failures are kept.
    """
    if tool.output is None or result.is_error:
        return Ok(result.structured)
    if result.structured is None:
        return Err(OutputMissing(tool.wire_name))
    errors = _contract.validate_all(tool.output, result.structured, limit=max(failures, 1))
    return Err(OutputRejected(tool.wire_name, errors)) if errors else Ok(result.structured)


_public.rehome("llm_wire.mcp", _FACE[__name__], globals())
