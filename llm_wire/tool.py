"""
Tools a model may call, and the admission of every call it returns.

Declare a tool from a codec written in source (``new``) or from a JSON Schema received at runtime, such as an
MCP ``inputSchema`` (``from_json_schema``, ``from_contract``). Each tool keeps its schema and a contract
compiled once. ``admit`` is the single pass every provider response goes through: it tells an unknown tool,
arguments that are not JSON, arguments outside the schema and arguments the native codec refuses apart,
and either fails the response on the first bad call (``ToolCallChecks.REJECT``, the default) or returns every
call with each issue listed (``ToolCallChecks.REPORT``). ``describe_issue`` is the text to send back.
"""

from __future__ import annotations

import enum
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias, TypeVar

from attrs import field, frozen

from llm_wire import contract as _contract
from llm_wire import value as _value
from llm_wire.codec import Codec, DecodeError
from llm_wire.contract import Contract, LoadError
from llm_wire.error import (
    DecodeRejected,
    Error,
    InvalidJson,
    LimitExceeded,
    Protocol,
    SchemaRejected,
    ValueFailure,
)
from llm_wire.message import ToolCall
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import DefinitionError, Schema
from llm_wire.value import DEFAULT, Limits, ParseError, Value, parse

__all__ = [
    "AdmissionLimits",
    "Admitted",
    "AdmittedCall",
    "EmptyName",
    "InputNotObject",
    "InvalidArguments",
    "InvalidCharacter",
    "InvalidName",
    "InvalidSchema",
    "NameProblem",
    "NameTooLong",
    "RejectInvalidToolCalls",
    "ReportInvalidToolCalls",
    "Tool",
    "ToolCallChecks",
    "ToolCallIssue",
    "ToolError",
    "UnknownTool",
    "admit",
    "check_name",
    "decode_arguments",
    "describe",
    "describe_error",
    "describe_issue",
    "description",
    "from_contract",
    "from_json_schema",
    "name",
    "new",
    "schema",
]

T = TypeVar("T")

MAX_NAME_BYTES = 64
_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
#: How many declared tool names ``describe_issue`` lists for an unknown tool.
MAX_LISTED_TOOLS = 20


# ---------------------------------------------------------------------------------------------------------
# Names


@frozen
class EmptyName:
    """The name is empty."""

    def describe(self) -> str:
        """The problem as text."""
        return "the name is empty"


@frozen
class InvalidCharacter:
    """The first character outside ASCII letters, digits, ``_`` and ``-``."""

    character: str

    def describe(self) -> str:
        """The problem as text."""
        return "the name may only hold ASCII letters, digits, '_' and '-'"


@frozen
class NameTooLong:
    """The name has more than 64 bytes."""

    length: int

    def describe(self) -> str:
        """The problem as text."""
        return f"the name has {self.length} bytes; at most {MAX_NAME_BYTES} are allowed"


NameProblem: TypeAlias = EmptyName | InvalidCharacter | NameTooLong


def check_name(name: str) -> Result[None, NameProblem]:
    """
    Check ``name`` against ``^[a-zA-Z0-9_-]{1,64}$``, the rule every built-in provider accepts.
    """
    if not name:
        return Err(EmptyName())
    for character in name:
        if character not in _NAME_CHARACTERS:
            return Err(InvalidCharacter(character))
    if len(name) > MAX_NAME_BYTES:  # only ASCII is left, so characters are bytes
        return Err(NameTooLong(len(name)))
    return Ok(None)


# ---------------------------------------------------------------------------------------------------------
# Declarations


@frozen
class InvalidName:
    """A runtime declaration whose name breaks the rule."""

    name: str
    problem: NameProblem


@frozen
class InvalidSchema:
    """A runtime declaration whose JSON Schema cannot be loaded and honoured."""

    load_error: LoadError


@frozen
class InputNotObject:
    """A runtime declaration whose schema does not describe a JSON object at its root."""

    name: str


ToolError: TypeAlias = InvalidName | InvalidSchema | InputNotObject


def describe_error(error: ToolError) -> str:
    """
    Why a declaration was refused, as text.
    """
    match error:
        case InvalidName(problem=problem):
            return f"invalid tool name: {problem.describe()}"
        case InvalidSchema(load_error=load_error):
            return f"invalid input schema: {load_error.describe()}"
        case InputNotObject(name=tool_name):
            return f"the input schema of tool {tool_name} must describe an object"


_CONSTRUCTOR = object()


@frozen(eq=False)
class Tool:
    """
    A tool declaration: name, description, input schema, its compiled contract and, from ``new``, the
    codec's native decode. Only ``new``, ``from_contract`` and ``from_json_schema`` make one.
    """

    name: str
    description: str
    schema: Schema
    contract: Contract = field(repr=False)
    #: The codec's decode for tools declared in source; ``None`` for schema-only tools.
    decode: Callable[[Value], Result[Any, DecodeError]] | None = field(repr=False)
    _key: object = field(alias="_key", repr=False)

    def __attrs_post_init__(self) -> None:
        if self._key is not _CONSTRUCTOR:
            msg = "make a Tool with tool.new, tool.from_contract or tool.from_json_schema"
            raise TypeError(msg)

    def __repr__(self) -> str:
        properties = self.schema.get("properties")
        count = len(properties) if isinstance(properties, tuple) else 0
        return f"<Tool {self.name!r} ({count} {'property' if count == 1 else 'properties'})>"


def new(name: str, description: str, codec: Codec[Any]) -> Tool:
    """
    Declare a tool whose input is ``codec``. Raises ``DefinitionError`` naming the tool when the name
    breaks the rule, the codec has no schema, or its schema does not describe an object.
    """
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
            return Tool(name, description, input_schema, compiled, codec.decode, _key=_CONSTRUCTOR)


def from_contract(name: str, description: str, contract: Contract) -> Result[Tool, ToolError]:
    """
    Declare a schema-only tool from a contract loaded at runtime.
    """
    match check_name(name):
        case Err(problem):
            return Err(InvalidName(name, problem))
    if not _is_object_schema(contract.schema):
        return Err(InputNotObject(name))
    return Ok(Tool(name, description, contract.schema, contract, None, _key=_CONSTRUCTOR))


def from_json_schema(name: str, description: str, schema: Value | str | bytes) -> Result[Tool, ToolError]:
    """
    Declare a schema-only tool from a JSON Schema document (parsed, or as text), such as an MCP
    ``inputSchema``. A document without ``$schema`` is read as Draft 2020-12.
    """
    match check_name(name):
        case Err(problem):
            return Err(InvalidName(name, problem))
    loaded = _contract.parse(schema) if isinstance(schema, str | bytes) else _contract.load(schema)
    match loaded:
        case Err(load_error):
            return Err(InvalidSchema(load_error))
        case Ok(compiled):
            return from_contract(name, description, compiled)


def _is_object_schema(input_schema: Schema) -> bool:
    kind = input_schema.get("type")
    return kind == "object" or (isinstance(kind, list) and kind == ["object"])


def name(tool: Tool) -> str:
    """The tool's name."""
    return tool.name


def description(tool: Tool) -> str:
    """The tool's description."""
    return tool.description


def schema(tool: Tool) -> Schema:
    """The tool's input schema, as declared (before any provider projection)."""
    return tool.schema


def describe(tool: Tool) -> str:
    """A one-line summary of the tool, for logs."""
    return repr(tool)


# ---------------------------------------------------------------------------------------------------------
# Calls


class ToolCallChecks(enum.Enum):
    """How a response treats a call to an unknown tool or with invalid arguments."""

    #: Fail the response with ``error.Protocol`` on the first bad call. The default.
    REJECT = "reject"
    #: Return every call and list each failing one as a ``ToolCallIssue``.
    REPORT = "report"


RejectInvalidToolCalls = ToolCallChecks.REJECT
ReportInvalidToolCalls = ToolCallChecks.REPORT


@frozen
class UnknownTool:
    """The call names a tool the request did not declare. ``name`` never reaches a text."""

    call_id: str
    name: str
    #: The declared tool names, for the text that answers the call.
    declared: tuple[str, ...] = ()


@frozen
class InvalidArguments:
    """The arguments are not JSON, fail the schema, or fail native decoding."""

    call_id: str
    name: str
    failure: ValueFailure


ToolCallIssue: TypeAlias = UnknownTool | InvalidArguments


def describe_issue(issue: ToolCallIssue) -> str:
    """
    The tool result that answers a failing call, written for the model: what was wrong, where, and what
    to do instead.
    """
    match issue:
        case UnknownTool(declared=declared):
            listed = ", ".join(declared[:MAX_LISTED_TOOLS])
            more = len(declared) - MAX_LISTED_TOOLS
            if more > 0:
                listed += f" (and {more} more)"
            tools = f"Call one of the declared tools: {listed}." if declared else "No tools are declared."
            return f"Error: no tool with that name exists. {tools}"
        case InvalidArguments(name=tool_name, failure=failure):
            return (
                f"Error: the arguments for tool {tool_name} were refused: {failure.describe()}. "
                "Correct the arguments and call the tool again."
            )


def decode_arguments(call: ToolCall, codec: Codec[T], limits: Limits = DEFAULT) -> Result[T, ValueFailure]:
    """
    Parse a call's arguments strictly, validate them against the codec's schema, then decode them.
    """
    match parse(call.arguments_json, limits):
        case Err(parse_error):
            return Err(InvalidJson(parse_error))
        case Ok(arguments):
            pass
    compiled = _contract_of(codec)
    if compiled is not None:
        match _contract.validate(compiled, arguments):
            case Err(validation_error):
                return Err(SchemaRejected(validation_error))
    match codec.decode(arguments):
        case Err(decode_error):
            return Err(DecodeRejected(decode_error))
        case Ok(decoded):
            return Ok(decoded)


#: Contracts compiled from codec schemas, so ``decode_arguments`` compiles each codec's schema once. A memo
#: keyed weakly by the codec: it holds no codec alive and never changes a result.
_CODEC_CONTRACTS: weakref.WeakKeyDictionary[Codec[Any], Contract | None] = weakref.WeakKeyDictionary()


def _contract_of(codec: Codec[Any]) -> Contract | None:
    try:
        return _CODEC_CONTRACTS[codec]
    except KeyError:
        pass
    compiled: Contract | None = None
    if codec.schema is not None:
        loaded = _contract.from_schema(codec.schema)
        # A codec schema always loads; if one did not, decoding still checks everything the codec knows.
        compiled = loaded.value if isinstance(loaded, Ok) else None
    _CODEC_CONTRACTS[codec] = compiled
    return compiled


# ---------------------------------------------------------------------------------------------------------
# Admission


@frozen
class AdmissionLimits:
    """
    Bounds admission enforces on a batch of calls whatever the policy.
    """

    calls_per_turn: int = 64
    argument_bytes_per_call: int = 1024 * 1024
    total_argument_bytes: int = 4 * 1024 * 1024
    #: Limits for parsing one call's arguments; its byte limit is ``argument_bytes_per_call``.
    value_limits: Limits = DEFAULT
    _parse_limits: Limits = field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        parse_limits = self.value_limits.with_max_bytes(self.argument_bytes_per_call)
        # The parser keeps a ready engine for ``DEFAULT`` itself: hand it that object when the limits agree.
        object.__setattr__(self, "_parse_limits", DEFAULT if parse_limits == DEFAULT else parse_limits)


@frozen(init=False)
class AdmittedCall:
    """
    A call that passed admission: its tool, its arguments as a validated JSON value, and the decoded value
    (the codec's native value for tools from ``new``, the JSON value otherwise).
    """

    call: ToolCall
    tool: Tool = field(repr=False)
    arguments: Value
    decoded: Any

    def __init__(self, call: ToolCall, tool: Tool, arguments: Value, decoded: Any) -> None:
        # Made once per admitted call: set the slots directly, as ``result.Ok`` does.
        _set_call(self, call)
        _set_tool(self, tool)
        _set_arguments(self, arguments)
        _set_decoded(self, decoded)


_set_call, _set_tool, _set_arguments, _set_decoded = (
    AdmittedCall.__dict__[name].__set__ for name in ("call", "tool", "arguments", "decoded")
)


@frozen(init=False)
class Admitted:
    """
    An admitted batch: every call in provider order, the issues of failing calls (``REPORT`` only), and
    the calls that passed with their decoded arguments.
    """

    calls: tuple[ToolCall, ...]
    issues: tuple[ToolCallIssue, ...]
    admitted: tuple[AdmittedCall, ...]

    def __init__(
        self,
        calls: tuple[ToolCall, ...],
        issues: tuple[ToolCallIssue, ...],
        admitted: tuple[AdmittedCall, ...],
    ) -> None:
        # Made once per response: set the slots directly, as ``AdmittedCall`` does.
        _set_calls(self, calls)
        _set_issues(self, issues)
        _set_admitted(self, admitted)

    def arguments(self, call_id: str) -> AdmittedCall | None:
        """The admitted call with this id, or ``None`` when it failed admission."""
        for admitted in self.admitted:
            if admitted.call.id == call_id:
                return admitted
        return None


_set_calls, _set_issues, _set_admitted = (
    Admitted.__dict__[name].__set__ for name in ("calls", "issues", "admitted")
)


def admit(
    calls: Sequence[ToolCall],
    tools: Iterable[Tool] | Mapping[str, Tool],
    checks: ToolCallChecks = ToolCallChecks.REJECT,
    limits: AdmissionLimits = AdmissionLimits(),
    adjust: Mapping[str, Callable[[Value], Value]] | None = None,
) -> Result[Admitted, Error]:
    """
    Admit the calls of one finished response against the declared tools.

    Always fatal: an empty batch, a duplicate call id, more calls than allowed, arguments over the per-call
    or total byte limit. Per call: an undeclared tool is ``UnknownTool``; arguments are parsed strictly,
    passed through ``adjust[tool]`` (undoing a provider projection), validated against the contract, then
    decoded natively, and a failure is ``InvalidArguments``. Under ``REJECT`` the first issue fails the
    response with ``Protocol``; under ``REPORT`` every issue is listed, in provider order.
    """
    by_name = tools if type(tools) is dict else _by_name(tools)
    count = len(calls)
    if not count:
        return Err(Protocol("empty tool-call batch"))
    if count > limits.calls_per_turn:
        return Err(LimitExceeded("calls_per_turn", limits.calls_per_turn, count))
    parse_limits = limits._parse_limits
    per_call = limits.argument_bytes_per_call
    ids: set[str] = set()
    total = 0
    issues: list[ToolCallIssue] = []
    admitted: list[AdmittedCall] = []
    for call in calls:
        if call.id in ids:
            return Err(_duplicate_id(calls, call.id))
        ids.add(call.id)
        text = call.arguments_json
        size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
        if size > per_call:
            return Err(LimitExceeded("argument_bytes_per_call", per_call, size))
        total += size
        if total > limits.total_argument_bytes:
            return Err(LimitExceeded("total_argument_bytes", limits.total_argument_bytes, total))
        tool = by_name.get(call.name)
        if tool is None:
            issue: ToolCallIssue = UnknownTool(call.id, call.name, tuple(by_name))
        else:
            checked = _check_arguments(tool, text, parse_limits, adjust)
            if type(checked) is tuple:
                admitted.append(AdmittedCall(call, tool, checked[0], checked[1]))
                continue
            issue = InvalidArguments(call.id, tool.name, checked)  # type: ignore[arg-type]
        if checks is _REJECT:
            return Err(Protocol(_rejection(issue, len(ids) - 1)))
        issues.append(issue)
    return Ok(Admitted(tuple(calls), tuple(issues), tuple(admitted)))


_REJECT = ToolCallChecks.REJECT


def _by_name(tools: Iterable[Tool] | Mapping[str, Tool]) -> dict[str, Tool]:
    # Tools usually come as a list or tuple: skip the costlier ``Mapping`` check (an ABC) for those.
    if type(tools) is not list and type(tools) is not tuple and isinstance(tools, Mapping):
        return dict(tools)
    return {t.name: t for t in tools}


def _check_arguments(
    tool: Tool,
    arguments_json: str,
    limits: Limits,
    adjust: Mapping[str, Callable[[Value], Value]] | None,
) -> tuple[Value, Any] | InvalidJson | SchemaRejected | DecodeRejected:
    # The hot path of every response: plain type tests instead of ``match`` class patterns, and the
    # unwrapped parse and validation, so no ``Ok``/``Err`` or witness is made only to be taken apart.
    arguments = _value._parse(arguments_json, limits)
    if isinstance(arguments, ParseError):
        return InvalidJson(arguments)
    if adjust is not None and tool.name in adjust:
        arguments = adjust[tool.name](arguments)
    failure = _contract._first_failure(tool.contract, arguments)
    if failure is not None:
        return SchemaRejected(failure)
    decode = tool.decode
    if decode is None:
        return arguments, arguments
    decoded = decode(arguments)
    if isinstance(decoded, Err):
        return DecodeRejected(decoded.error)
    return arguments, decoded.value


def _duplicate_id(calls: Sequence[ToolCall], call_id: str) -> Protocol:
    first, second, *_ = (index for index, call in enumerate(calls) if call.id == call_id)
    return Protocol(f"calls {first} and {second} share one call id")


def _rejection(issue: ToolCallIssue, index: int) -> str:
    match issue:
        case UnknownTool():
            return f"call {index} names a tool that was not declared"
        case InvalidArguments(name=tool_name, failure=failure):
            return f"call {index} to tool {tool_name} has invalid arguments: {failure.describe()}"
