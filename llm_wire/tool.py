"""
Tools a model may call: their names, declarations and the policy for bad calls.

Declare a tool from a codec written in source (``new``) or from a JSON Schema received at runtime, such as an
MCP ``inputSchema`` (``from_json_schema``, ``from_contract``). Each tool keeps its schema and a contract
compiled once; ``llm_wire.admission`` checks every call against it.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic

from attrs import field, frozen

from llm_wire import _deprecated, _public
from llm_wire import contract as _contract
from llm_wire._described import Described as _Described
from llm_wire._tool_errors import MAX_NAME_BYTES as _MAX_NAME_BYTES
from llm_wire._tool_errors import (
    EmptyName,
    InputNotObject,
    InvalidCharacter,
    InvalidName,
    InvalidSchema,
    NameProblem,
    NameTooLong,
    ToolError,
)
from llm_wire.codec import Codec, DecodeError
from llm_wire.contract import Contract
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import DefinitionError, Schema
from llm_wire.value import Value

__all__ = [
    "DuplicateToolName",
    "EmptyName",
    "InputNotObject",
    "InvalidCharacter",
    "InvalidName",
    "InvalidSchema",
    "NameProblem",
    "NameTooLong",
    "RejectInvalidToolCalls",
    "ReportInvalidToolCalls",
    "Tool",
    "ToolCallChecks",
    "ToolError",
    "check_name",
    "from_contract",
    "from_json_schema",
    "new",
]

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    #: A tool's decoded input. Its default (PEP 696, seen by the checker only) keeps a bare ``Tool`` meaning
    #: ``Tool[Any]``.
    Input = TypeVar("Input", covariant=True, default=Any)
else:
    from typing import TypeVar

    Input = TypeVar("Input", covariant=True)


_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
#: ``check_name``'s answer for a good name, made once.
_GOOD_NAME: Result[None, NameProblem] = Ok(None)


# ---------------------------------------------------------------------------------------------------------
# Names


def check_name(name: str) -> Result[None, NameProblem]:
    """
    Check ``name`` against ``^[a-zA-Z0-9_-]{1,64}$``, the rule every built-in provider accepts.
    """
    if name.__class__ is str and _NAME.fullmatch(name):
        return _GOOD_NAME
    if not name:
        return Err(EmptyName())
    for character in name:
        if character not in _NAME_CHARACTERS:
            return Err(InvalidCharacter(character))
    if len(name) > _MAX_NAME_BYTES:  # only ASCII is left, so characters are bytes
        return Err(NameTooLong(len(name)))
    return Ok(None)


# ---------------------------------------------------------------------------------------------------------
# Declarations


@frozen
class DuplicateToolName(_Described):
    """Two declared tools share a name: which one a call means would be a guess."""

    name: str

    def describe(self) -> str:
        """Names the tool (a declared name, not model input)."""
        return f"tool {self.name} is declared twice"


_CONSTRUCTOR = object()


@frozen(eq=False)
class Tool(Generic[Input]):
    """
    A tool declaration: name, description, input schema, its compiled contract and, from ``new``, the
    codec's native decode. Only ``new``, ``from_contract`` and ``from_json_schema`` make one. ``Input`` is
    what admission decodes a call's arguments to: the codec's type for ``new``, the JSON ``Value`` for a
    schema-only tool (``AdmittedCall.decoded_as`` gives it typed).
    """

    name: str
    description: str
    schema: Schema
    contract: Contract = field(repr=False)
    #: The codec's decode for tools declared in source; ``None`` for schema-only tools.
    decode: Callable[[Value], Result[Input, DecodeError]] | None = field(repr=False)
    _key: object = field(alias="_key", repr=False)
    #: For a codec that enforces its schema (``decode`` succeeds only on values the contract accepts): its
    #: decode giving ``(value, native)`` or the ``DecodeError``, so admission decodes first and consults
    #: the contract only when decoding fails (``Codec.decode_first``). ``None`` for other tools.
    decode_first: Callable[[Value], tuple[Value, Input] | DecodeError] | None = field(
        default=None, repr=False
    )

    def __attrs_post_init__(self) -> None:
        if self._key is not _CONSTRUCTOR:
            msg = "make a Tool with tool.new, tool.from_contract or tool.from_json_schema"
            raise TypeError(msg)

    def __repr__(self) -> str:
        properties = self.schema.get("properties")
        count = len(properties) if isinstance(properties, tuple) else 0
        return f"<Tool {self.name!r} ({count} {'property' if count == 1 else 'properties'})>"


def new(name: str, description: str, codec: Codec[Input]) -> Tool[Input]:
    """
    Declare a tool whose input is ``codec``. Raises ``DefinitionError`` naming the tool when the name
    breaks the rule, the codec has no schema, or its schema does not describe an object.
    """
    _expect("name", name, str)
    _expect("description", description, str)
    _expect("codec", codec, Codec)
    match check_name(name):
        case Err(problem):
            raise DefinitionError(f"tool {name!r}: {problem.describe()}")
    input_schema = codec.schema
    if input_schema is None:
        raise DefinitionError(f"tool {name!r}: the codec has no schema")
    if not _is_object_schema(input_schema):
        raise DefinitionError(f"tool {name!r}: the input schema must describe an object")
    match _contract.from_schema(input_schema):
        case Err(load_error):
            raise DefinitionError(f"tool {name!r}: {load_error.describe()}")
        case Ok(compiled):
            return Tool(
                name,
                description,
                input_schema,
                compiled,
                codec.decode,
                _key=_CONSTRUCTOR,
                decode_first=codec.decode_first,
            )


def from_contract(name: str, description: str, contract: Contract) -> Result[Tool[Value], ToolError]:
    """
    Declare a schema-only tool from a contract loaded at runtime.
    """
    _expect("name", name, str)
    _expect("description", description, str)
    _expect("contract", contract, Contract)
    match check_name(name):
        case Err(problem):
            return Err(InvalidName(name, problem))
    return _schema_tool(name, description, contract)


def _schema_tool(name: str, description: str, contract: Contract) -> Result[Tool, ToolError]:
    """A schema-only tool of a checked name: ``InputNotObject`` unless the contract describes an object."""
    if not _is_object_schema(contract.schema):
        return Err(InputNotObject(name))
    return Ok(Tool(name, description, contract.schema, contract, None, _key=_CONSTRUCTOR))


def from_json_schema(
    name: str, description: str, schema: Value | str | bytes
) -> Result[Tool[Value], ToolError]:
    """
    Declare a schema-only tool from a JSON Schema document (parsed, or as text), such as an MCP
    ``inputSchema``. A document without ``$schema`` is read as Draft 2020-12.
    """
    _expect("name", name, str)
    _expect("description", description, str)
    match check_name(name):
        case Err(problem):
            return Err(InvalidName(name, problem))
    loaded = _contract.parse(schema) if isinstance(schema, str | bytes) else _contract.load(schema)
    if isinstance(loaded, Err):
        return Err(InvalidSchema(loaded.error))
    return _schema_tool(name, description, loaded.value)


def _expect(parameter: str, given: object, expected: type) -> None:
    """A wrong Python type at the boundary is a ``TypeError`` naming the parameter."""
    if not isinstance(given, expected):
        msg = f"{parameter} must be a {expected.__name__}, not {type(given).__name__}"
        raise TypeError(msg)


def _is_object_schema(input_schema: Schema) -> bool:
    kind = input_schema.get("type")
    return kind == "object" or (isinstance(kind, list) and kind == ["object"])


# ---------------------------------------------------------------------------------------------------------
# Policy for bad calls


class ToolCallChecks(enum.Enum):
    """How a response treats a call to an unknown tool or with invalid arguments."""

    #: Fail the response with ``InvalidToolCall`` on the first bad call. The default.
    REJECT = "reject"
    #: Return every call and list each failing one as a ``ToolCallIssue``.
    REPORT = "report"


RejectInvalidToolCalls = ToolCallChecks.REJECT
ReportInvalidToolCalls = ToolCallChecks.REPORT


_public.rehome(__name__, __all__, globals())


# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
def _describe_error(error: ToolError) -> str:
    return error.describe()


def _name(tool: Tool) -> str:
    return tool.name


def _description(tool: Tool) -> str:
    return tool.description


def _schema(tool: Tool) -> Schema:
    return tool.schema


describe_error = _deprecated.renamed(_describe_error, "llm_wire.tool.describe_error")
name = _deprecated.renamed(_name, "llm_wire.tool.name")
description = _deprecated.renamed(_description, "llm_wire.tool.description")
schema = _deprecated.renamed(_schema, "llm_wire.tool.schema")
