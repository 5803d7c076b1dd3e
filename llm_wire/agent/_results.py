"""
Outcomes the agent layer writes itself: refused arguments with their bounded issues, unknown tools, a
tool's return value turned into an outcome, and what every runner says of a call it abandoned or whose
outcome is unknown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import attrs

from llm_wire import codec as _codec
from llm_wire.admission import DecodeRejected, SchemaRejected, ValueFailure
from llm_wire.agent._outcome import ErrorCategory, ErrorCode, ToolOutcome, canonical
from llm_wire.codec import Codec
from llm_wire.reasons import InvalidJson, render_redacted
from llm_wire.result import Err, Ok
from llm_wire.schema import DefinitionError
from llm_wire.value import NotJson, Value, render

__all__ = [
    "MAX_ISSUES",
    "MAX_ISSUE_BYTES",
    "MAX_LISTED",
    "abandoned_outcome",
    "argument_issues",
    "invalid_arguments",
    "no_compensation",
    "outcome_of",
    "outcome_unknown",
    "unknown_outcome_message",
    "unknown_tool",
]

#: At most this many ``{path, message}`` issues reach the model for one call, within ``MAX_ISSUE_BYTES``.
MAX_ISSUES = 5
MAX_ISSUE_BYTES = 1024
#: How many tool names an unknown-tool message lists.
MAX_LISTED = 20


def argument_issues(failure: ValueFailure) -> list[Value]:
    """
    The ``{path, message}`` issues of refused arguments, at most ``MAX_ISSUES`` within ``MAX_ISSUE_BYTES``;
    paths are rendered (``$["city"]``) with undeclared member names hidden, and no input value appears.
    """
    pairs: list[tuple[str, str]]
    match failure:
        case InvalidJson():
            pairs = [("$", failure.describe())]
        case SchemaRejected(errors=errors):
            pairs = [(render_redacted(e.path, e.hidden), e.reason.describe()) for e in errors]
        case DecodeRejected(decode_error=error):
            pairs = [(render_redacted(error.path, error.hidden), error.reason.describe())]
    issues: list[Value] = []
    used = 2
    for path, message in pairs[:MAX_ISSUES]:
        issue: dict[str, Value] = {"message": message, "path": path}
        size = len(render(issue).encode("utf-8")) + 1
        if used + size > MAX_ISSUE_BYTES:
            break
        used += size
        issues.append(issue)
    return issues


def invalid_arguments(tool: str, failure: ValueFailure | None, problem: str | None = None) -> ToolOutcome:
    """
    The ``invalid_input`` outcome for refused arguments: what to fix, with the issues in ``details``.
    """
    details: Value = None if failure is None else argument_issues(failure)
    reason = problem if failure is None else failure.describe()
    message = f"the arguments for tool {tool} were refused: {reason}. Correct them and call the tool again."
    return ToolOutcome.failed(
        ErrorCategory.INVALID_INPUT, ErrorCode.INVALID_ARGUMENTS, message, retryable=False, details=details
    )


def unknown_tool(available: Sequence[str], *, scope: bool = False) -> ToolOutcome:
    """
    The ``not_found`` outcome for a call to a tool that does not exist (or is outside a scope): it lists
    the available tools and never repeats the name the model used.
    """
    listed = ", ".join(available[:MAX_LISTED])
    if len(available) > MAX_LISTED:
        listed += f" (and {len(available) - MAX_LISTED} more)"
    tools = f"Call one of the available tools: {listed}." if available else "No tools are available."
    if scope:
        message = f"that tool is not activated for this scope. {tools}"
        code, category = ErrorCode.NOT_ACTIVATED, ErrorCategory.PERMISSION_DENIED
    else:
        message = f"no tool with that name exists. {tools}"
        code, category = ErrorCode.UNKNOWN_TOOL, ErrorCategory.NOT_FOUND
    details: Value = {"available": list(available[:MAX_LISTED])}
    return ToolOutcome.failed(category, code, message, retryable=False, details=details)


def outcome_of(result: object, tool: str) -> ToolOutcome:
    """
    A tool's return value as an outcome: an outcome as it is, ``None`` an empty success, a string text,
    an attrs or dataclass record (encoded by its derived codec), a dict, list or scalar structured ``data``.
    A value that is no JSON is an ``internal`` failure.
    """
    if isinstance(result, ToolOutcome):
        return result
    if result is None:
        return ToolOutcome.success()
    if isinstance(result, str):
        return ToolOutcome.success(result)
    try:
        if attrs.has(type(result)) or dataclasses.is_dataclass(result):
            match _record_codec(type(result)).encode(result):
                case Err():
                    return _not_json(tool)
                case Ok(encoded):
                    return ToolOutcome.success(data=encoded)
        data = canonical(result)
        render(data)
    except (NotJson, DefinitionError, RecursionError):
        return _not_json(tool)
    return ToolOutcome.success(data=data)


def _record_codec(cls: type) -> Codec[Any]:
    # Derived once per record class: a cache that only grows with the classes tools return.
    found = _RECORDS.get(cls)
    if found is None:
        found = _RECORDS[cls] = _codec.derive(cls)
    return found


_RECORDS: dict[type, Codec[Any]] = {}


def _not_json(tool: str) -> ToolOutcome:
    message = f"tool {tool} returned a result that is not a JSON value"
    return ToolOutcome.failed(ErrorCategory.INTERNAL, ErrorCode.NOT_JSON, message, retryable=False)


def no_compensation(tool: str) -> ToolOutcome:
    """The ``internal`` outcome of compensating a tool that has no compensation handler."""
    message = f"tool {tool} has no compensation handler"
    return ToolOutcome.failed(ErrorCategory.INTERNAL, ErrorCode.NO_COMPENSATION, message, retryable=False)


def outcome_unknown(tool: str) -> ToolOutcome:
    """
    The outcome of a call that started and may have taken effect, and was not run again because repeating
    it is not safe: ``timeout``/``outcome_unknown``, never retryable. Every runner says it in these words,
    whether the call ran past its deadline or its worker stopped mid-call (a durable run's resume).
    """
    return ToolOutcome.failed(
        ErrorCategory.TIMEOUT, ErrorCode.OUTCOME_UNKNOWN, unknown_outcome_message(tool), retryable=False
    )


def unknown_outcome_message(tool: str) -> str:
    """The words of ``outcome_unknown`` (also of a timeout that ``ToolContract.retry_advice`` rewrites)."""
    return (
        f"the call to tool {tool} started but did not finish, and may have taken effect; its outcome is"
        " unknown and it was not run again because repeating it is not safe. Check whether its effect"
        " happened before calling it again."
    )


def abandoned_outcome(tool: str, *, heartbeat: bool = False) -> ToolOutcome:
    """
    The outcome of an attempt the runner abandoned (its result, if one comes, is discarded): past its
    deadline, or when its heartbeats stopped (``heartbeat``). Every runner reports it in these words, and a
    durable run records it as the attempt's step, so a replay sees what the first run saw.
    """
    if heartbeat:
        message = f"tool {tool} stopped reporting heartbeats and was abandoned"
        outcome = ToolOutcome.failed(ErrorCategory.TIMEOUT, ErrorCode.HEARTBEAT_TIMEOUT, message)
        outcome = outcome.with_metadata(heartbeat_timeout="true")
    else:
        message = f"tool {tool} did not finish before its deadline"
        outcome = ToolOutcome.failed(ErrorCategory.TIMEOUT, ErrorCode.TIMEOUT, message)
    return outcome.with_metadata(late_result_discarded="true")
