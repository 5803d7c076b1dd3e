"""
Why admission refused a value or a call, and the text that answers it (``llm_wire.admission`` exports them).
"""

from __future__ import annotations

from typing import TypeAlias

from attrs import frozen

from llm_wire._described import Described
from llm_wire.codec import DecodeError
from llm_wire.contract import ValidationError
from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.reasons import InvalidJson
from llm_wire.tool import DuplicateToolName

__all__ = [
    "AdmissionError",
    "DecodeRejected",
    "InvalidArguments",
    "InvalidToolCall",
    "SchemaRejected",
    "ToolCallIssue",
    "ToolChoiceViolation",
    "UnknownTool",
    "ValueFailure",
    "describe_issue",
]

#: How many declared tool names ``describe_issue`` lists for an unknown tool.
MAX_LISTED_TOOLS = 20

# ---------------------------------------------------------------------------------------------------------
# One value refused


@frozen
class SchemaRejected(Described):
    """
    The value is JSON but does not satisfy the schema: ``errors`` holds its failures in the contract's
    order (at least one, at most ``AdmissionLimits.failures_per_call``), so one answer can fix them all.
    """

    errors: tuple[ValidationError, ...]

    @property
    def name(self) -> str:
        """``schema_rejected``."""
        return "schema_rejected"

    def describe(self) -> str:
        """``schema validation failed: $["a"]: reason`` (several: ``2 problems: ...; ...``)."""
        if len(self.errors) == 1:
            return f"schema validation failed: {self.errors[0].describe()}"
        listed = "; ".join(error.describe() for error in self.errors)
        return f"schema validation failed: {len(self.errors)} problems: {listed}"


@frozen
class DecodeRejected(Described):
    """The value satisfies the schema but the native codec refuses it."""

    decode_error: DecodeError

    @property
    def name(self) -> str:
        """``decode_rejected``."""
        return "decode_rejected"

    def describe(self) -> str:
        """``decode failed: $["a"]: reason``."""
        return f"decode failed: {self.decode_error.describe()}"


ValueFailure: TypeAlias = InvalidJson | SchemaRejected | DecodeRejected


# ---------------------------------------------------------------------------------------------------------
# Calls


@frozen
class UnknownTool(Described):
    """The call names a tool the request did not declare. ``name`` never reaches a text."""

    call_id: str
    name: str
    #: The declared tool names, for the text that answers the call.
    declared: tuple[str, ...] = ()

    def describe(self) -> str:
        """The text that answers the call (``describe_issue``)."""
        return describe_issue(self)


@frozen
class InvalidArguments(Described):
    """The arguments are not JSON, fail the schema, or fail native decoding."""

    call_id: str
    name: str
    failure: ValueFailure

    def describe(self) -> str:
        """The text that answers the call (``describe_issue``)."""
        return describe_issue(self)


@frozen
class ToolChoiceViolation(Described):
    """
    The response breaks the request's tool choice: a call when ``ToolChoice.NONE`` was set, a call to a tool
    the choice does not allow (``UseTool``, ``AllowedTools``), or no call when one was required
    (``call_id`` ``None``: it is answered with a user message, as no call awaits a result).
    """

    #: The call that breaks the choice, or ``None`` when the choice required a call and none was made.
    call_id: str | None
    #: The tool the call names (``""`` with no call); never in a text.
    name: str
    #: The tools the choice allows in this turn; empty under ``ToolChoice.NONE``.
    allowed: tuple[str, ...]

    def describe(self) -> str:
        """The text that answers the call or the missing call (``describe_issue``)."""
        return describe_issue(self)

    @property
    def advice(self) -> str:
        """What was wrong and what to do instead, as one sentence for the model."""
        if not self.allowed:
            return "no tool may be called in this turn. Answer without calling a tool."
        if len(self.allowed) == 1:
            instead = f"Call the tool {self.allowed[0]}"
        else:
            instead = f"Call one of the tools {_listed(self.allowed)}"
        if self.call_id is None:
            return f"this turn requires a tool call and none was made. {instead}."
        return f"that tool may not be called in this turn. {instead} instead."


ToolCallIssue: TypeAlias = UnknownTool | InvalidArguments | ToolChoiceViolation


@frozen
class InvalidToolCall(Described):
    """
    Under ``ToolCallChecks.REJECT``: the response fails on its first bad call, whose typed ``issue`` (with its
    call id) is kept; ``index`` is the call's position in the response, from 0 (0 for a call the tool choice
    required and the response did not make).
    """

    issue: ToolCallIssue
    index: int

    @property
    def name(self) -> str:
        """``invalid_tool_call``."""
        return "invalid_tool_call"

    def describe(self) -> str:
        """``call 1 to tool get_weather has invalid arguments: ...``."""
        return _rejection(self.issue, self.index)


AdmissionError: TypeAlias = ProtocolError | LimitExceeded | InvalidToolCall | DuplicateToolName


def describe_issue(issue: ToolCallIssue) -> str:
    """
    The tool result that answers a failing call, written for the model: what was wrong, where, and what
    to do instead.
    """
    match issue:
        case UnknownTool(declared=declared):
            tools = (
                f"Call one of the declared tools: {_listed(declared)}."
                if declared
                else "No tools are declared."
            )
            return f"Error: no tool with that name exists. {tools}"
        case ToolChoiceViolation() as violation:
            return f"Error: {violation.advice}"
        case InvalidArguments(name=tool_name, failure=failure):
            return (
                f"Error: the arguments for tool {tool_name} were refused: {failure.describe()}. "
                "Correct the arguments and call the tool again."
            )


def _listed(names: tuple[str, ...]) -> str:
    listed = ", ".join(names[:MAX_LISTED_TOOLS])
    more = len(names) - MAX_LISTED_TOOLS
    return f"{listed} (and {more} more)" if more > 0 else listed


def _rejection(issue: ToolCallIssue, index: int) -> str:
    match issue:
        case ToolChoiceViolation(call_id=None):
            return "the response called no tool, and the tool choice requires a call"
        case ToolChoiceViolation():
            return f"call {index} breaks the tool choice: {issue.advice}"
        case UnknownTool():
            return f"call {index} names a tool that was not declared"
        case InvalidArguments(name=tool_name, failure=failure):
            return f"call {index} to tool {tool_name} has invalid arguments: {failure.describe()}"
