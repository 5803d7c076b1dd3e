"""
Admission: the single pass every call a model returns goes through before any code sees it.

``admit`` tells an unknown tool, arguments that are not JSON, arguments outside the schema and arguments the
native codec refuses apart, and either fails the response on the first bad call (``ToolCallChecks.REJECT``,
the default, with ``InvalidToolCall``) or returns every call with each issue listed
(``ToolCallChecks.REPORT``).
``describe_issue`` is the text to send back to the model.

::

    ValueFailure                        one value (tool arguments, structured output) refused
    ├── InvalidJson(error)                 not strict JSON within the limits
    ├── SchemaRejected(errors)             JSON, but outside the schema (each failure, bounded)
    └── DecodeRejected(decode_error)       inside the schema, refused by the native codec

    ToolCallIssue                       one call that cannot run
    ├── UnknownTool(call_id, name, declared)
    ├── InvalidArguments(call_id, name, failure)
    └── ToolChoiceViolation(call_id, name, allowed)   the call (or its absence) breaks the tool choice
                                                      (checked by ``outcome.resolve``, which knows it)

    AdmissionError                      a batch that fails as a whole
    ├── ProtocolError, LimitExceeded       (``llm_wire.error``)
    ├── DuplicateToolName(name)            two declared tools share a name (``llm_wire.tool``)
    └── InvalidToolCall(issue, index)      under ``REJECT``: the first failing call
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from attrs import define, field, frozen

from llm_wire import _deprecated, _public
from llm_wire import contract as _contract
from llm_wire._admission_issues import (
    AdmissionError,
    DecodeRejected,
    InvalidArguments,
    InvalidToolCall,
    SchemaRejected,
    ToolCallIssue,
    ToolChoiceViolation,
    UnknownTool,
    ValueFailure,
    describe_issue,
)
from llm_wire._fast import Lean as _Lean
from llm_wire.codec import Codec, DecodeError
from llm_wire.contract import Contract, ValidationError
from llm_wire.contract._contract import first_failure as _first_failure
from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.message import ToolCall
from llm_wire.reasons import InvalidJson
from llm_wire.result import Err, Ok, Result
from llm_wire.tool import DuplicateToolName, Tool, ToolCallChecks
from llm_wire.value import (
    DEFAULT,
    Limits,
    ParseError,
    PlainValue,
    UnrepresentableNumber,
    Value,
    parse,
    render,
    to_plain,
)
from llm_wire.value._parse import parse_value as _parse_value

__all__ = [
    "AdmissionError",
    "AdmissionLimits",
    "Admitted",
    "AdmittedCall",
    "DecodeRejected",
    "InvalidArguments",
    "InvalidToolCall",
    "SchemaRejected",
    "ToolCallIssue",
    "ToolChoiceViolation",
    "UnknownTool",
    "ValueFailure",
    "admit",
    "decode_arguments",
    "describe_issue",
]

T = TypeVar("T")

if TYPE_CHECKING:
    from typing_extensions import TypeVar as _TypeVar

    #: An admitted call's decoded input; a bare ``AdmittedCall`` is ``AdmittedCall[Any]`` (a PEP 696 default,
    #: seen by the checker only).
    Input = _TypeVar("Input", covariant=True, default=Any)
else:
    Input = TypeVar("Input", covariant=True)

_FAILURES_PER_CALL = 8


# ---------------------------------------------------------------------------------------------------------
# One value


def decode_arguments(
    call: ToolCall, codec: Codec[T], limits: Limits = DEFAULT, *, failures: int = _FAILURES_PER_CALL
) -> Result[T, ValueFailure]:
    """
    Parse a call's arguments strictly, validate them against the codec's schema (keeping up to ``failures``
    of its failures), then decode them.
    """
    match parse(call.arguments_json, limits):
        case Err(parse_error):
            return Err(InvalidJson(parse_error))
        case Ok(arguments):
            pass
    # A codec that checks every rule of its schema decodes first; the contract runs when decoding fails.
    decoded = codec.decode(arguments) if codec.decode_first is not None else None
    if isinstance(decoded, Ok):
        return decoded
    compiled = _contract_of(codec)
    if compiled is not None:
        errors = _contract.validate_all(compiled, arguments, limit=max(failures, 1))
        if errors:
            return Err(SchemaRejected(errors))
    match decoded or codec.decode(arguments):
        case Err(decode_error):
            return Err(DecodeRejected(decode_error))
        case Ok(value):
            return Ok(value)


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


_BOUNDS = ("calls_per_turn", "argument_bytes_per_call", "total_argument_bytes", "failures_per_call")


@frozen
class AdmissionLimits(_Lean):
    """
    Bounds admission enforces on a batch of calls whatever the policy.
    """

    calls_per_turn: int = 64
    argument_bytes_per_call: int = 1024 * 1024
    total_argument_bytes: int = 4 * 1024 * 1024
    #: Limits for parsing one call's arguments; its byte limit is ``argument_bytes_per_call``.
    value_limits: Limits = DEFAULT
    #: How many schema failures of one call are kept (and told to the model) at most.
    failures_per_call: int = _FAILURES_PER_CALL
    #: What ``admit`` reads on every batch, in one tuple: ``calls_per_turn``, the parse limits (their byte
    #: limit is ``argument_bytes_per_call``), ``argument_bytes_per_call``, ``total_argument_bytes`` and
    #: ``failures_per_call``.
    _bounds: tuple[int, Limits, int, int, int] = field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        for name in _BOUNDS:
            bound = getattr(self, name)
            if type(bound) is not int or bound < 1:
                raise ValueError(f"AdmissionLimits.{name} must be a positive int")
        parse_limits = self.value_limits.with_max_bytes(self.argument_bytes_per_call)
        # The parser keeps a ready engine for ``DEFAULT`` itself: hand it that object when the limits agree.
        bounds = (
            self.calls_per_turn,
            DEFAULT if parse_limits == DEFAULT else parse_limits,
            self.argument_bytes_per_call,
            self.total_argument_bytes,
            self.failures_per_call,
        )
        object.__setattr__(self, "_bounds", bounds)


@define
class AdmittedCall(Generic[Input]):
    """
    A call that passed admission: its tool, its arguments as a validated JSON value, and the decoded value
    (the codec's native value for tools from ``new``, the JSON value otherwise); ``decoded_as(tool)`` gives
    it typed. Made once per admitted call, so it is a plain attrs class, not frozen: treat it as read-only.
    """

    call: ToolCall
    tool: Tool[Input] = field(repr=False)
    arguments: Value
    decoded: Input

    def decoded_as(self, tool: Tool[T]) -> T | None:
        """
        The decoded arguments typed as ``tool``'s input when this call was admitted against ``tool`` itself
        (the same object); ``None`` for a call to another tool, so the type is never a guess.
        """
        if tool.__class__ is not Tool and not isinstance(tool, Tool):
            raise TypeError(f"tool must be a Tool, not {type(tool).__name__}")
        return self.decoded if self.tool is tool else None  # type: ignore[return-value]  # its own input

    def arguments_json(self) -> str:
        """The admitted arguments as compact JSON text, numbers exactly as the model wrote them."""
        return render(self.arguments)

    def plain_arguments(self) -> Result[PlainValue, UnrepresentableNumber]:
        """
        The admitted arguments with numbers as ``int`` and ``float``, for ``json.dumps`` and SDKs
        (``value.to_plain``); ``Err(UnrepresentableNumber(path))`` for a number no float holds.
        """
        return to_plain(self.arguments)


@define
class Admitted:
    """
    An admitted batch: every call in provider order, the issues of failing calls (``REPORT`` only), and
    the calls that passed with their decoded arguments. Made once per response, not frozen, as
    ``AdmittedCall``: treat it as read-only.
    """

    calls: tuple[ToolCall, ...]
    issues: tuple[ToolCallIssue, ...]
    admitted: tuple[AdmittedCall, ...]

    @overload
    def arguments(self, call_id: str) -> AdmittedCall | None: ...
    @overload
    def arguments(self, call_id: Tool[T], /) -> tuple[AdmittedCall[T], ...]: ...
    def arguments(self, call_id: str | Tool[Any]) -> AdmittedCall | tuple[AdmittedCall, ...] | None:
        """
        Given a call id, the admitted call with that id, or ``None`` when it failed admission. Given a
        tool, every admitted call to that tool (the same object), in provider order, typed by its input.
        """
        if isinstance(call_id, Tool):
            return tuple(found for found in self.admitted if found.tool is call_id)
        for admitted in self.admitted:
            if admitted.call.id == call_id:
                return admitted
        return None


def admit(
    calls: Sequence[ToolCall],
    tools: Iterable[Tool] | Mapping[str, Tool],
    checks: ToolCallChecks = ToolCallChecks.REJECT,
    limits: AdmissionLimits = AdmissionLimits(),
    adjust: Mapping[str, Callable[[Value], Value]] | None = None,
) -> Result[Admitted, AdmissionError]:
    """
    Admit the calls of one finished response against the declared tools.

    Always fatal: an empty batch, a duplicate call id, more calls than allowed, arguments over the per-call
    or total byte limit. Per call: an undeclared tool is ``UnknownTool`` (tools are keyed on namespace and
    name, and no declared tool is in a namespace, so a call with a ``namespace`` is one); arguments are
    parsed strictly, passed through ``adjust[tool]`` (undoing a provider projection), validated against the
    contract, then decoded natively, and a failure is ``InvalidArguments``. Under ``REJECT`` the first issue
    fails the response with ``InvalidToolCall``; under ``REPORT`` every issue is listed, in provider order.
    """
    # Plain class tests first: the usual arguments skip the costlier ``isinstance`` (an ABC for ``calls``).
    if checks.__class__ is not ToolCallChecks and not isinstance(checks, ToolCallChecks):
        raise TypeError(f"checks must be a ToolCallChecks, not {type(checks).__name__}")
    if limits.__class__ is not AdmissionLimits and not isinstance(limits, AdmissionLimits):
        raise TypeError(f"limits must be an AdmissionLimits, not {type(limits).__name__}")
    if (calls.__class__ is not list and calls.__class__ is not tuple) and (
        isinstance(calls, str | bytes) or not isinstance(calls, Sequence)
    ):
        raise TypeError(f"calls must be a sequence of ToolCall, not {type(calls).__name__}")
    by_name: dict[str, Tool] | DuplicateToolName
    if type(tools) is list or type(tools) is tuple:
        # The usual: distinct names, each a ``Tool``, in a plain loop (a comprehension is a function made
        # and called on every admission), and one tool needs no loop; anything else is told apart after.
        if len(tools) == 1 and tools[0].__class__ is Tool:
            by_name = {tools[0].name: tools[0]}
        else:
            by_name = {}
            for declared in tools:
                if declared.__class__ is not Tool:
                    break
                by_name[declared.name] = declared
            if len(by_name) != len(tools):
                by_name = _by_name(tools)
                if isinstance(by_name, DuplicateToolName):
                    return Err(by_name)
    elif type(tools) is dict:
        _expect_tools(tools.values())
        by_name = tools
    else:
        by_name = _by_name(tools)
        if isinstance(by_name, DuplicateToolName):
            return Err(by_name)
    count = len(calls)
    if not count:
        return Err(ProtocolError("empty tool-call batch"))
    calls_per_turn, parse_limits, per_call, most, failures = limits._bounds
    if count > calls_per_turn:
        return Err(_over("calls_per_turn", calls_per_turn, count))
    # One call needs no set to find a repeated id.
    ids: set[str] | None = set() if count > 1 else None
    total = 0
    issues: list[ToolCallIssue] | None = None  # made at the first issue: most batches have none
    admitted: list[AdmittedCall] = []
    # The hot path of every response: plain class tests instead of ``isinstance`` or ``match``, and the
    # unwrapped parse and check (``parse_value``, ``first_failure``), so no ``Ok``/``Err`` is made only to be
    # taken apart.
    for call in calls:
        if call.__class__ is not ToolCall and not isinstance(call, ToolCall):
            raise TypeError(f"calls must hold ToolCall objects, not {type(call).__name__}")
        if ids is not None:
            if call.id in ids:
                return Err(_duplicate_id(calls, call.id))
            ids.add(call.id)
        text = call.arguments_json
        size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
        if size > per_call:
            return Err(_over("argument_bytes_per_call", per_call, size))
        total += size
        if total > most:
            return Err(_over("total_argument_bytes", most, total))
        # Tools are keyed on (namespace, name), and every declared tool is outside any namespace: a call in
        # one (OpenAI Responses ``namespace``) is never taken for the plain tool of the same name.
        tool = by_name.get(call.name) if call.namespace is None else None
        if tool is None:
            issue: ToolCallIssue = UnknownTool(call.id, call.name, tuple(by_name))
        else:
            parsed = _parse_value(text, parse_limits)
            failure: ValueFailure
            if type(parsed) is ParseError:
                failure = InvalidJson(parsed)
            else:
                arguments: Value = parsed  # type: ignore[assignment]  # ``type() is`` leaves subclasses in
                if adjust is not None and tool.name in adjust:
                    arguments = adjust[tool.name](arguments)
                decode_first = tool.decode_first
                if decode_first is not None:
                    # The codec checks every rule of the schema: a decoded value is one the contract
                    # accepts, so the contract runs only when decoding fails (``_refused``).
                    pair = decode_first(arguments)
                    if pair.__class__ is tuple:
                        admitted.append(AdmittedCall(call, tool, arguments, pair[1]))
                        continue
                    failure = _refused(tool.contract, arguments, failures, pair)  # type: ignore[arg-type]
                elif tool.decode is None:  # a schema-only tool: its contract decides
                    found = _first_failure(tool.contract, arguments)
                    if found is None:
                        admitted.append(AdmittedCall(call, tool, arguments, arguments))
                        continue
                    failure = _schema_rejected(tool.contract, arguments, failures, found)
                else:
                    decoded = _decode(tool, arguments, failures)
                    if decoded.__class__ is tuple:
                        admitted.append(AdmittedCall(call, tool, arguments, decoded[1]))
                        continue
                    failure = decoded  # type: ignore[assignment]
            issue = InvalidArguments(call.id, tool.name, failure)
        if checks is _REJECT:
            return Err(InvalidToolCall(issue, len(admitted)))  # no issue came before it
        if issues is None:
            issues = []
        issues.append(issue)
    return Ok(Admitted(tuple(calls), () if issues is None else tuple(issues), tuple(admitted)))


_REJECT = ToolCallChecks.REJECT


def _by_name(tools: Iterable[Tool] | Mapping[str, Tool]) -> dict[str, Tool] | DuplicateToolName:
    # Tools usually come as a list or tuple: skip the costlier ``Mapping`` check (an ABC) for those.
    if type(tools) is not list and type(tools) is not tuple and isinstance(tools, Mapping):
        by_name = dict(tools)
        _expect_tools(by_name.values())
        return by_name
    if type(tools) is list or type(tools) is tuple:
        listed = tools
    elif isinstance(tools, Iterable) and not isinstance(tools, str | bytes):
        listed = list(tools)
    else:
        raise TypeError(f"tools must be an iterable of Tool or a mapping to Tool, not {type(tools).__name__}")
    # One pass for the usual: distinct names, each a ``Tool``. Anything else is told apart after it.
    by_name = {declared.name: declared for declared in listed if declared.__class__ is Tool}
    if len(by_name) == len(listed):
        return by_name
    _expect_tools(listed)
    by_name = {declared.name: declared for declared in listed}
    if len(by_name) == len(listed):
        return by_name
    names = [declared.name for declared in listed]  # fewer names than tools: say which one came twice
    return DuplicateToolName(next(name for n, name in enumerate(names) if name in names[:n]))


_ONLY_TOOLS = {Tool}


def _expect_tools(tools: Iterable[object]) -> None:
    """Raise ``TypeError`` naming ``tools`` when one of them is not a ``Tool`` (one C pass for the usual)."""
    kinds = set(map(type, tools))
    if kinds and kinds != _ONLY_TOOLS:
        wrong = next((tool for tool in tools if not isinstance(tool, Tool)), None)
        if wrong is not None:
            raise TypeError(f"tools must hold Tool objects, not {type(wrong).__name__}")


def _refused(compiled: Contract, arguments: Value, failures: int, refusal: DecodeError) -> ValueFailure:
    """
    Why a codec that enforces its schema refused ``arguments``: the contract's failures when it refuses them
    too, else the codec's own refusal.
    """
    found = _first_failure(compiled, arguments)
    if found is None:
        return DecodeRejected(refusal)
    return _schema_rejected(compiled, arguments, failures, found)


def _decode(tool: Tool, arguments: Value, failures: int) -> tuple[Value, Any] | ValueFailure:
    """A tool declared in source whose codec may not enforce its schema: contract first, then decode."""
    found = _first_failure(tool.contract, arguments)
    if found is not None:
        return _schema_rejected(tool.contract, arguments, failures, found)
    decoded = tool.decode(arguments)  # type: ignore[misc]
    if isinstance(decoded, Err):
        return DecodeRejected(decoded.error)
    return arguments, decoded.value


def _schema_rejected(
    compiled: Contract, arguments: Value, failures: int, first: ValidationError
) -> SchemaRejected:
    # The rare path: collect the call's other failures too, so one answer can fix them all.
    return SchemaRejected(_contract.validate_all(compiled, arguments, limit=failures) or (first,))


def _duplicate_id(calls: Sequence[ToolCall], call_id: str) -> ProtocolError:
    first, second, *_ = (index for index, call in enumerate(calls) if call.id == call_id)
    return ProtocolError(f"calls {first} and {second} share one call id")


_LIMITS = {
    "calls_per_turn": ("CALLS_PER_TURN", "number of tool calls in one response"),
    "argument_bytes_per_call": ("ARGUMENT_BYTES_PER_CALL", "argument bytes of one call"),
    "total_argument_bytes": ("TOTAL_ARGUMENT_BYTES", "argument bytes of all calls"),
}


def _over(limit: str, value: int, measured: int) -> LimitExceeded:
    member, what = _LIMITS[limit]
    return LimitExceeded(f"Config.with_limit(Limit.{member}, n)", value, measured, what=what)


_public.rehome(__name__, __all__, globals())


# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
def _describe_value_failure(failure: ValueFailure) -> str:
    return failure.describe()


describe_value_failure = _deprecated.renamed(
    _describe_value_failure, "llm_wire.admission.describe_value_failure"
)
