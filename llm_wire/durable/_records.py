"""
What a durable run keeps in DBOS, through derived codecs: model rounds (kept as the response each outcome
was resolved from), tool and compensation steps, the workflow's input and output; and the readers of the
forms earlier versions wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from attrs import field, frozen

from llm_wire import codec
from llm_wire._request import Prepared
from llm_wire.agent import ToolOutcome
from llm_wire.agent.projection import ProjectionPolicy
from llm_wire.agent.projection._types import policy_of as _policy_of
from llm_wire.agent.store import (
    RunStatus,
    StoreError,
    UnreadableRecord,
)
from llm_wire.error import ProtocolError
from llm_wire.message import AssistantTurn, Provider, ToolCall, _call_codec, _provider_codec
from llm_wire.outcome import Answer, Failure, NeedsTools, Outcome, OutputLimited, Refused, Sent, resolve
from llm_wire.providers.response import FinishReason, Terminal, Usage
from llm_wire.result import Err, Ok, unwrap
from llm_wire.value import NotJson, Value


class DurableRunError(Exception):
    """
    The run's record refused a write the workflow needed (another worker moved the run, or the record is
    unreadable); ``error`` is the store's typed error.
    """

    def __init__(self, error: StoreError) -> None:
        super().__init__(error.describe())
        self.error = error

    def __reduce__(self) -> tuple[type[DurableRunError], tuple[StoreError]]:
        # DBOS pickles a workflow's exception: another worker waiting for the run gets the typed error too.
        return (DurableRunError, (self.error,))


# ---------------------------------------------------------------------------------------------------------
# Model rounds as steps: an outcome is kept as the response it was resolved from, and resolved again


@frozen
class _Round:
    """
    What a model step records (as ``codec.derive`` encodes it): the response the outcome was resolved
    from, with its response id and replay data, or, for a failed call, only its usage.
    """

    #: ``None`` when the model call failed.
    response: Terminal | None
    #: A failed call's usage.
    usage: Usage | None = None
    #: The model answered, but its response held a value that is not JSON: the round is kept as failed.
    not_json: bool = False


@frozen
class _PositionalRound:
    """
    A model round as earlier versions recorded it (read, never written): usage and calls by position, no
    replay data.
    """

    usage: tuple[int | None, int | None, int | None] | None
    usage_raw: Value = None
    finish: FinishReason = FinishReason.STOP
    text: str = ""
    calls: tuple[tuple[str, str, str], ...] = ()
    refusal: str | None = None
    failure: bool = False


# The response's own module does not bind ``Decimal``, which its ``Value`` fields name; a provider is kept
# by its stable string form, and a call as a conversation keeps them.
_ROUND = codec.derive(
    _Round, namespace={"Decimal": Decimal}, codecs={Provider: _provider_codec(), ToolCall: _call_codec()}
)
_POSITIONAL_ROUND = codec.derive(_PositionalRound, namespace={"Decimal": Decimal})
_FAILED = "the model call failed (recorded by a durable run)"
_NOT_JSON = "the model's response held a value that is not JSON, so a durable run cannot record it"
_UNREADABLE = "a recorded model round is not one this runner wrote"


def _response_of(outcome: Outcome, prepared: Prepared) -> Terminal | None:
    """The response ``outcome`` was resolved from, as ``resolve`` reads it; ``None`` for a failure."""
    match outcome:
        case Answer(turn=turn, usage=usage):
            return _answered(turn, FinishReason.STOP, usage, prepared)
        case NeedsTools(turn=turn, usage=usage):
            # No call: an answer the tool choice refused (``ToolChoiceViolation``), resolved so again.
            finish = FinishReason.TOOL_CALLS if turn.calls else FinishReason.STOP
            return _answered(turn, finish, usage, prepared)
        case OutputLimited(text=text, calls=calls, incomplete=incomplete, usage=usage):
            return Terminal(prepared.provider, FinishReason.LENGTH, text, calls, incomplete, usage=usage)
        case Refused(reason=reason, refusal=refusal, text=text, usage=usage, detail=detail):
            return Terminal(
                prepared.provider, reason, text, refusal=refusal, usage=usage, finish_detail=detail
            )
        case _:
            return None


def _answered(turn: AssistantTurn, finish: FinishReason, usage: Usage | None, prepared: Prepared) -> Terminal:
    """The response behind an assistant turn: its text, calls, response id and replay data."""
    provider = turn.provider or prepared.provider
    return Terminal(
        provider,
        finish,
        turn.text,
        turn.calls,
        usage=usage,
        response_id=turn.response_id,
        provider_data=turn.provider_data,
    )


def _terminal_value(outcome: Outcome, prepared: Prepared) -> Value:
    """What a model step records: the response behind ``outcome`` (a failure only as a failure)."""
    response = _response_of(outcome, prepared)
    kept = _Round(response) if response is not None else _Round(None, outcome.usage)
    match _ROUND.encode(kept):
        case Ok(value):
            return value
        case Err():
            return unwrap(_ROUND.encode(_Round(None, not_json=True)))


def _outcome_of(recorded: Value, prepared: Prepared) -> Outcome:
    """The outcome a model step's record gives: its response resolved again against ``prepared``."""
    match _ROUND.decode(recorded):
        case Ok(_Round(response=Terminal() as response)):
            return resolve(Ok(response), prepared)
        case Ok(_Round(usage=usage, not_json=not_json)):
            return Failure(ProtocolError(_NOT_JSON if not_json else _FAILED), Sent.COMPLETED, usage=usage)
        case Err():
            return _positional_outcome(recorded, prepared)


def _positional_outcome(recorded: Value, prepared: Prepared) -> Outcome:
    """A record written before ``_Round`` (a run recovered across an upgrade): no replay data to resolve."""
    match _POSITIONAL_ROUND.decode(recorded):
        case Err():
            return Failure(ProtocolError(_UNREADABLE), Sent.COMPLETED)
        case Ok(old):
            pass
    usage = None if old.usage is None else Usage(*old.usage, old.usage_raw)
    if old.failure:
        return Failure(ProtocolError(_FAILED), Sent.COMPLETED, usage=usage)
    calls = tuple(ToolCall(id=id, name=name, arguments_json=arguments) for id, name, arguments in old.calls)
    terminal = Terminal(prepared.provider, old.finish, old.text, calls, refusal=old.refusal, usage=usage)
    return resolve(Ok(terminal), prepared)


# ---------------------------------------------------------------------------------------------------------
# Tool steps, workflow inputs and outputs, a suspended run's state: records through derived codecs

#: A tool step's outcome, written whole and read only whole; tool data may hold floats, kept as ``render``
#: writes them (as the store keeps them).
_OUTCOME = codec.derive(
    ToolOutcome,
    namespace={"Decimal": Decimal},
    codecs={Value: codec.json_value(floats=True)},
    require_all=True,
)


def _tool_step_value(outcome: ToolOutcome) -> Value:
    """What a tool step records: the outcome's JSON value (``NotJson`` for data that is none)."""
    match _OUTCOME.encode(outcome):
        case Ok(value):
            return value
        case Err(error):
            raise NotJson(error.path, error.reason.describe())


def _tool_outcome_of(recorded: Value | ToolOutcome, tool: str) -> ToolOutcome:
    """
    The outcome a tool step recorded: its JSON value, or the ``ToolOutcome`` earlier versions had DBOS
    pickle. A record this runner did not write tells nothing of what the call did: ``outcome_unknown``.
    """
    if isinstance(recorded, ToolOutcome):
        return recorded
    match _OUTCOME.decode(recorded):
        case Ok(outcome):
            return outcome
        case Err():
            return ToolOutcome.unknown(tool)


@frozen
class _Start:
    """What a run's workflow starts from (DBOS keeps it as the workflow's input)."""

    model_name: str
    #: The conversation so far, as ``message.dumps`` writes it.
    conversation: str
    #: The projection policy the run goes on with.
    policy: ProjectionPolicy
    #: Call ids an approver has approved (on a resume).
    approved: tuple[str, ...] = ()
    #: Usage counted before a suspension, added to the run's own.
    carried: Mapping[str, int] = field(factory=dict)


@frozen
class _Stopped:
    """Where a workflow left its run (DBOS keeps it as the workflow's output)."""

    status: RunStatus
    #: The bearer token of the run it suspended; ``None`` otherwise.
    token: str | None = None


@frozen
class _Carried:
    """What a suspended run keeps in its continuation's ``state`` for ``resume``."""

    #: The conversation to resume, as ``message.dumps`` writes it.
    conversation: str
    #: Usage counted before the suspension (the suspended round not included: it runs again).
    usage: Mapping[str, int]


_START = codec.derive(_Start, require_all=True)
_STOPPED = codec.derive(_Stopped, require_all=True)
_CARRIED = codec.derive(_Carried, require_all=True)
#: A workflow's input as earlier versions passed it, by position after the run id: the model name, the
#: conversation, the approved call ids, the usage carried, and the two projection ceilings.
_EARLIER_START = codec.derive(tuple[str, str, list[str], dict[str, int], tuple[int, int]])
_NOT_OURS = "the workflow's input is not one this runner wrote"


def _start_of(start: Value, earlier: tuple[Any, ...]) -> _Start:
    """
    A workflow's input: one ``_Start`` value, or (a run an earlier version started) its inputs by position
    after the run id. ``DurableRunError(UnreadableRecord)`` for anything else.
    """
    if not earlier:
        match _START.decode(start):
            case Ok(read):
                return read
    else:
        match _EARLIER_START.decode([start, *earlier]):
            case Ok((model_name, conversation, approved, carried, (max_bytes, max_tokens))):
                match _policy_of(max_bytes, max_tokens):
                    case Ok(policy):
                        return _Start(model_name, conversation, policy, tuple(approved), carried)
    raise DurableRunError(UnreadableRecord(_NOT_OURS))


def _stopped_of(output: Value) -> _Stopped | None:
    """
    A workflow's output: one ``_Stopped`` value, or the ``status`` or ``waiting_for_approval:token`` text of
    earlier versions; ``None`` for anything else.
    """
    if isinstance(output, str):
        status, _, token = output.partition(":")
        known = {s.value: s for s in RunStatus}.get(status)
        return None if known is None else _Stopped(known, token or None)
    decoded = _STOPPED.decode(output)
    return decoded.value if isinstance(decoded, Ok) else None
