"""
Outcomes: what one model response means for the caller, after a single admission pass.

::

    Outcome
    ├── Answer(text, output, usage, turn)          the model answered (``output`` is the structured output)
    ├── NeedsTools(turn, issues, usage, admitted)  the model called tools; every call is in ``turn.calls``
    ├── OutputLimited(text, calls, incomplete, usage)  cut for length: evidence only, never dispatch it
    ├── Refused(reason, refusal, text, usage)      a refusal or a content filter
    └── Failure(error, sent, ...)                  unusable: provider error, protocol, limit, bad output,
                                                   or a ``TransportError`` (a timeout, a cut connection)

``resolve(decoded, prepared)`` turns a decoded response (``prepared.decode_body(body)``) into an ``Outcome``;
``resolve_stream(decoder, prepared)`` does the same for a finished ``prepared.decoder()``. The ``Prepared``
request carries everything admission needs (the declared tools, the checks, the limits, the projection
restore and the output tool), so nothing is carried by hand. ``resolve_with`` and ``resolve_stream_with``
take those pieces explicitly, for a response with no ``Prepared`` request (a recorded exchange). Calls are
admitted by ``llm_wire.admission.admit`` only when the response finished for tool calls, so admission is the
same for bodies and streams. ``Failure.sent`` says what the failed call cost: ``NOT_SENT`` (refused before
any work), ``MAYBE_SENT`` (cut or failed midway) or ``COMPLETED`` (a whole response came back and was
unusable). The shapes the decoders produce (``Terminal``, ``ProviderError``...) are in
``llm_wire.providers.response``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, overload

from attrs import field, frozen

from llm_wire._described import Described as _Described
from llm_wire._fast import Lean as _Lean
from llm_wire.admission import (
    AdmissionError,
    AdmissionLimits,
    Admitted,
    AdmittedCall,
    InvalidArguments,
    InvalidToolCall,
    ToolCallIssue,
    ToolChoiceViolation,
    ValueFailure,
    admit,
)
from llm_wire.codec import Codec
from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.message import AssistantTurn, Provider, ToolCall
from llm_wire.providers import AllowedTools, ToolChoice, UseTool
from llm_wire.providers._wire import Choice as _Choice
from llm_wire.providers.response import (
    ErrorKind,
    FinishReason,
    PartialCall,
    ProviderError,
    ResponseError,
    StreamDecoder,
    Terminal,
    Usage,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.tool import Tool, ToolCallChecks, new
from llm_wire.value import Value

if TYPE_CHECKING:  # the requests load with ``prepare``; ``resolve`` checks its argument against them then
    from llm_wire._request import Prepared

__all__ = [
    "Answer",
    "Failure",
    "FailureError",
    "InvalidOutput",
    "NeedsTools",
    "Outcome",
    "OutputLimited",
    "Refused",
    "Sent",
    "TransportError",
    "TransportProblem",
    "resolve",
    "resolve_stream",
    "resolve_stream_with",
    "resolve_with",
]

T = TypeVar("T")


class Sent(enum.Enum):
    """What a failed call cost: nothing, possibly a model response, or a whole response."""

    NOT_SENT = "not_sent"
    MAYBE_SENT = "maybe_sent"
    COMPLETED = "completed"


@frozen
class Answer(_Lean):
    """
    The model answered. ``output`` is the decoded structured output, or ``None`` without an output codec.
    """

    text: str
    output: Any
    usage: Usage | None
    #: The assistant turn to append before the next request.
    turn: AssistantTurn = field(repr=False)


@frozen
class NeedsTools(_Lean):
    """
    The model called tools. ``turn.calls`` holds every call in provider order, admitted or not; ``issues``
    lists the failing ones (``REPORT`` only), each still owed a result (``admission.describe_issue``). Under
    ``REPORT``, a response that made no call though the tool choice required one is a ``NeedsTools`` with no
    call and one ``ToolChoiceViolation`` (``call_id`` ``None``), answered with a user message.
    """

    turn: AssistantTurn
    issues: tuple[ToolCallIssue, ...]
    usage: Usage | None
    #: The calls that passed admission, with their decoded arguments.
    admitted: tuple[AdmittedCall, ...] = ()

    @overload
    def arguments(self, call_id: str) -> AdmittedCall | None: ...
    @overload
    def arguments(self, call_id: Tool[T], /) -> tuple[AdmittedCall[T], ...]: ...
    def arguments(self, call_id: str | Tool[Any]) -> AdmittedCall | tuple[AdmittedCall, ...] | None:
        """
        Given a call id, the admitted call with that id, or ``None`` when it failed admission. Given a
        tool, every admitted call to that tool (the same object), in provider order, typed by its input.
        """
        return Admitted(self.turn.calls, self.issues, self.admitted).arguments(call_id)


@frozen
class OutputLimited(_Lean):
    """
    The response was cut for length. Its calls were never admitted: they are evidence, never dispatch them.
    """

    text: str
    calls: tuple[ToolCall, ...]
    incomplete: tuple[PartialCall, ...]
    usage: Usage | None


@frozen
class Refused(_Lean):
    """
    The model refused (``FinishReason.REFUSAL``) or a content filter stopped it (``CONTENT_FILTER``).
    """

    reason: FinishReason
    refusal: str | None
    text: str
    usage: Usage | None
    #: The provider's own reason (``content_filter``, ``SAFETY``, ``PROMPT_BLOCKLIST``…).
    detail: str | None = None


@frozen
class InvalidOutput(_Described):
    """
    The structured output is not valid JSON, breaks its schema, or is refused by its codec.
    """

    failure: ValueFailure

    @property
    def name(self) -> str:
        """``invalid_output.<failure name>``."""
        return f"invalid_output.{self.failure.name}"

    def describe(self) -> str:
        """``invalid structured output: <failure>``; never the output itself."""
        return f"invalid structured output: {self.failure.describe()}"


class TransportProblem(enum.Enum):
    """What went wrong between the client and the provider, below HTTP."""

    #: No connection could be made (refused, unreachable, name not found, TLS failed).
    CONNECT_FAILED = "connect_failed"
    CONNECT_TIMEOUT = "connect_timeout"
    #: The response did not start in time.
    FIRST_BYTE_TIMEOUT = "first_byte_timeout"
    #: The response stalled: no chunk within the idle bound.
    IDLE_TIMEOUT = "idle_timeout"
    #: The whole call ran past its bound.
    TOTAL_TIMEOUT = "total_timeout"
    #: The connection closed or failed before the response was whole.
    CONNECTION_LOST = "connection_lost"
    #: No API key was given or found in the environment for the provider's own endpoint.
    NO_API_KEY = "no_api_key"
    #: The request cannot go out as configured: a malformed base URL, a header or key HTTP cannot carry.
    INVALID_ENDPOINT = "invalid_endpoint"


@frozen
class TransportError(_Described):
    """
    The call failed below HTTP; ``seconds`` is the bound that fired, for a timeout.
    """

    problem: TransportProblem
    seconds: float | None = None

    @property
    def name(self) -> str:
        """``transport.<problem>``."""
        return f"transport.{self.problem.value}"

    def describe(self) -> str:
        """The problem and, for a timeout, its bound in seconds."""
        text = f"transport error: {self.problem.value.replace('_', ' ')}"
        return text if self.seconds is None else f"{text} after {self.seconds:g}s"


FailureError: TypeAlias = ResponseError | AdmissionError | InvalidOutput | TransportError


@frozen
class Failure(_Described):
    """
    The response is unusable. ``sent`` says what it cost; ``text`` is whatever answer text arrived.
    """

    error: FailureError
    sent: Sent
    #: Whether any progress (text or argument deltas) reached the caller before the failure.
    partial_output: bool = False
    provider: Provider | None = None
    usage: Usage | None = None
    text: str = ""

    def describe(self) -> str:
        """The error's text and what the call cost; never the answer text."""
        return f"{self.error.describe()} ({self.sent.value})"

    @property
    def retryable(self) -> bool:
        """
        Whether a retry is safe: a provider error its provider marks retryable, or any other failure that
        sent nothing (a missing key or a malformed endpoint aside: no retry mends them); never once progress
        reached the caller.
        """
        if self.partial_output:
            return False
        error = self.error
        if isinstance(error, ProviderError):
            return error.retry.retryable
        if isinstance(error, TransportError) and error.problem in _NEVER_RETRIED:
            return False
        return self.sent is Sent.NOT_SENT


#: Failures that sent nothing but that no retry can mend.
_NEVER_RETRIED = frozenset({TransportProblem.NO_API_KEY, TransportProblem.INVALID_ENDPOINT})


Outcome: TypeAlias = Answer | NeedsTools | OutputLimited | Refused | Failure

_LIMITS = AdmissionLimits()


def _sent_for(error: ResponseError) -> Sent:
    """
    What an error costs when nothing else is known: a refused request nothing, a whole unusable body a
    whole response, a server error or an error met mid-response possibly a response.
    """
    not_sent = (
        ErrorKind.INVALID_REQUEST,
        ErrorKind.AUTHENTICATION,
        ErrorKind.PERMISSION,
        ErrorKind.NOT_FOUND,
        ErrorKind.REQUEST_TOO_LARGE,
        ErrorKind.RATE_LIMITED,
        ErrorKind.OVERLOADED,
    )
    match error:
        case ProviderError(kind=ErrorKind.RESPONSE_FAILED):
            return Sent.COMPLETED
        case ProviderError(kind=kind, status=int()) if kind in not_sent:
            return Sent.NOT_SENT
        case ProviderError():
            return Sent.MAYBE_SENT
        case ProtocolError() | LimitExceeded() | InvalidToolCall():
            return Sent.COMPLETED
        case _:
            msg = f"error must be a ResponseError, not {type(error).__name__}"
            raise TypeError(msg)


def resolve(
    decoded: Result[Terminal, ResponseError],
    prepared: Prepared,
    *,
    sent: Sent | None = None,
    partial_output: bool = False,
) -> Outcome:
    """
    The outcome of a decoded response to ``prepared``: its calls admitted against the prepared tools, with
    its checks, limits and projection restore, and a plain answer decoded with its output tool if any.
    ``TypeError`` when ``decoded`` is no ``Result`` of a ``Terminal`` or ``prepared`` no ``Prepared``.
    """
    _check_decoded(decoded)
    _check_prepared(prepared)
    return resolve_with(
        decoded,
        prepared.tools,
        checks=prepared.checks,
        limits=prepared.admission_limits,
        adjust=prepared.adjust,
        output=prepared.output_tool,
        sent=sent,
        partial_output=partial_output,
        choice=prepared.request.tool_choice,
    )


def resolve_stream(stream: StreamDecoder, prepared: Prepared) -> Outcome:
    """``resolve`` for a stream of ``prepared``'s response (``prepared.decoder()``) fed to its end."""
    _check_stream(stream)
    _check_prepared(prepared)
    return resolve_stream_with(
        stream,
        prepared.tools,
        checks=prepared.checks,
        limits=prepared.admission_limits,
        adjust=prepared.adjust,
        output=prepared.output_tool,
        choice=prepared.request.tool_choice,
    )


def resolve_with(
    decoded: Result[Terminal, ResponseError],
    tools: Iterable[Tool] | Mapping[str, Tool] = (),
    *,
    checks: ToolCallChecks = ToolCallChecks.REJECT,
    limits: AdmissionLimits = _LIMITS,
    adjust: Mapping[str, Callable[[Value], Value]] | None = None,
    output: Tool | Codec[Any] | None = None,
    sent: Sent | None = None,
    partial_output: bool = False,
    choice: _Choice | None = None,
) -> Outcome:
    """
    The outcome of a decoded response with no ``Prepared`` request: the pieces of admission given here.

    Tool calls go through ``admission.admit`` with ``tools``, ``checks``, ``limits`` and ``adjust`` (a tool
    name to a function undoing a wire projection on parsed arguments); an admission error is a ``Failure``
    (``COMPLETED``). A plain answer is decoded with ``output`` when given: a ``Tool`` built once from the
    output codec (``tool.new(name, description, codec)``; ``adjust`` applies under its name), or a bare
    codec, declared on the spot under the name ``output``. A decode error is a
    ``Failure`` whose ``sent`` is ``sent`` when given, else ``_sent_for(error)``.

    The response is checked against the request's tool ``choice`` too: a call to a tool the choice does not
    allow (any call under ``ToolChoice.NONE``), or an answer with no call when the choice requires one, is a
    ``ToolChoiceViolation``, failing the response under ``REJECT`` and listed under ``REPORT`` like any issue.
    """

    _check_decoded(decoded)
    match decoded:
        case Err(error):
            return Failure(error, sent or _sent_for(error), partial_output)
        case Ok(terminal):
            pass
    turn = terminal.turn
    match terminal.finish:
        case FinishReason.TOOL_CALLS:
            allowed = None if choice is None else _allowed(choice)
            if allowed is not None:
                broken = _calls_outside(terminal.calls, allowed)
                if broken:
                    return _broken(terminal, broken, tools, checks, limits, adjust, partial_output)
            match admit(terminal.calls, tools, checks, limits, adjust):
                case Err(admission):
                    return _failed(terminal, admission, partial_output)
                case Ok(admitted):
                    return NeedsTools(turn, admitted.issues, terminal.usage, admitted.admitted)
        case FinishReason.LENGTH:
            return OutputLimited(terminal.text, terminal.calls, terminal.incomplete, terminal.usage)
        case FinishReason.REFUSAL | FinishReason.CONTENT_FILTER:
            refusal = terminal.refusal
            return Refused(terminal.finish, refusal, terminal.text, terminal.usage, terminal.finish_detail)
        case FinishReason.STOP:
            if choice is not None and _requires_call(choice):
                missing = ToolChoiceViolation(None, "", _allowed(choice) or _names(tools))
                if checks is ToolCallChecks.REJECT:
                    return _failed(terminal, InvalidToolCall(missing, 0), partial_output)
                return NeedsTools(turn, (missing,), terminal.usage)
            if output is None:
                return Answer(terminal.text, None, terminal.usage, turn)
            match _decode_output(terminal.text, output, limits, adjust):
                case Err(failure):
                    return _failed(terminal, failure, partial_output)
                case Ok(value):
                    return Answer(terminal.text, value, terminal.usage, turn)


def resolve_stream_with(
    stream: StreamDecoder,
    tools: Iterable[Tool] | Mapping[str, Tool] = (),
    *,
    checks: ToolCallChecks = ToolCallChecks.REJECT,
    limits: AdmissionLimits = _LIMITS,
    adjust: Mapping[str, Callable[[Value], Value]] | None = None,
    output: Tool | Codec[Any] | None = None,
    choice: _Choice | None = None,
) -> Outcome:
    """
    ``resolve_with`` for a stream fed to its end (or to its first error): finishes it, and a failure records
    whether the stream completed and whether progress reached the caller.
    """

    _check_stream(stream)
    decoded = stream.finish()
    completed = Sent.COMPLETED if stream.completed else Sent.MAYBE_SENT
    sent = None if isinstance(decoded, Err) and isinstance(decoded.error, ProviderError) else completed
    got = resolve_with(
        decoded,
        tools,
        checks=checks,
        limits=limits,
        adjust=adjust,
        output=output,
        sent=sent,
        partial_output=stream.partial_output,
        choice=choice,
    )
    if isinstance(got, Failure) and isinstance(decoded, Err):
        return Failure(got.error, got.sent, got.partial_output, stream.provider, stream.usage, stream.text)
    return got


def _check_decoded(decoded: object) -> None:

    if not isinstance(decoded, Ok | Err):
        msg = f"decoded must be an Ok or Err, not {type(decoded).__name__}"
        raise TypeError(msg)
    if isinstance(decoded, Ok) and not isinstance(decoded.value, Terminal):
        msg = f"decoded must hold a Terminal, not {type(decoded.value).__name__}"
        raise TypeError(msg)


def _check_prepared(prepared: object) -> None:
    from llm_wire._request import Prepared  # loaded by then: a Prepared comes from ``prepare``

    if not isinstance(prepared, Prepared):
        msg = f"prepared must be a Prepared, not {type(prepared).__name__}"
        raise TypeError(msg)


def _check_stream(stream: object) -> None:

    if not isinstance(stream, StreamDecoder):
        msg = f"stream must be a StreamDecoder, not {type(stream).__name__}"
        raise TypeError(msg)


def _allowed(choice: _Choice) -> tuple[str, ...] | None:
    """The tools a call may name under ``choice``, or ``None`` when it may name any declared tool."""
    match choice:
        case ToolChoice.NONE:
            return ()
        case UseTool(name=name):
            return (name,)
        case AllowedTools(names=names):
            return names
        case _:
            return None


def _requires_call(choice: _Choice) -> bool:
    match choice:
        case ToolChoice.REQUIRED | UseTool():
            return True
        case AllowedTools(mode=mode):
            return mode is ToolChoice.REQUIRED
        case _:
            return False


def _names(tools: Iterable[Tool] | Mapping[str, Tool]) -> tuple[str, ...]:
    return tuple(tools) if isinstance(tools, Mapping) else tuple(tool.name for tool in tools)


def _calls_outside(calls: tuple[ToolCall, ...], allowed: tuple[str, ...]) -> dict[str, ToolChoiceViolation]:
    """The calls naming a tool the choice does not allow (declared or not), by call id."""
    return {
        call.id: ToolChoiceViolation(call.id, call.name, allowed)
        for call in calls
        if call.name not in allowed
    }


def _broken(
    terminal: Terminal,
    broken: Mapping[str, ToolChoiceViolation],
    tools: Iterable[Tool] | Mapping[str, Tool],
    checks: ToolCallChecks,
    limits: AdmissionLimits,
    adjust: Mapping[str, Callable[[Value], Value]] | None,
    partial: bool,
) -> Outcome:
    """
    A response some of whose calls break the tool choice: every call admitted (batch errors stay fatal),
    then each call's issue in provider order, a violation before any other; ``REJECT`` fails on the first.
    """
    match admit(terminal.calls, tools, ToolCallChecks.REPORT, limits, adjust):
        case Err(error):
            return _failed(terminal, error, partial)
        case Ok(admitted):
            pass
    found = {issue.call_id: issue for issue in admitted.issues}
    issues: list[ToolCallIssue] = []
    for index, call in enumerate(terminal.calls):
        issue = broken.get(call.id) or found.get(call.id)
        if issue is None:
            continue
        if checks is ToolCallChecks.REJECT:
            return _failed(terminal, InvalidToolCall(issue, index), partial)
        issues.append(issue)
    kept = tuple(passed for passed in admitted.admitted if passed.call.id not in broken)
    return NeedsTools(terminal.turn, tuple(issues), terminal.usage, kept)


def _failed(terminal: Terminal, error: FailureError, partial: bool) -> Failure:
    return Failure(error, Sent.COMPLETED, partial, terminal.provider, terminal.usage, terminal.text)


def _decode_output(
    text: str,
    output: Tool | Codec[Any],
    limits: AdmissionLimits,
    adjust: Mapping[str, Callable[[Value], Value]] | None,
) -> Result[Any, AdmissionError | InvalidOutput]:
    declared = output if isinstance(output, Tool) else new("output", "The structured output.", output)
    # The output is admitted as the arguments of a call to its own tool: one pipeline, one compiled
    # contract, the same strict parse, adjustment and bounds as tool arguments.
    call = ToolCall(id="output", name=declared.name, arguments_json=text)
    bounded = AdmissionLimits(
        calls_per_turn=1,
        argument_bytes_per_call=max(
            limits.argument_bytes_per_call, len(text.encode("utf-8", "surrogatepass"))
        ),
        total_argument_bytes=max(limits.total_argument_bytes, len(text.encode("utf-8", "surrogatepass"))),
        value_limits=limits.value_limits,
    )
    match admit([call], [declared], ToolCallChecks.REPORT, bounded, adjust):
        case Err(error):
            return Err(error)
        case Ok(admitted):
            pass
    if admitted.issues:
        for issue in admitted.issues:
            if isinstance(issue, InvalidArguments):
                return Err(InvalidOutput(issue.failure))
    return Ok(admitted.admitted[0].decoded)
