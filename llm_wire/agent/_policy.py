"""
The contract's pure steps around a call: the resource-version precondition, the retry decision and the
retry advice the model sees (one rule, ``safe_to_repeat``), output validation, resource-version extraction,
and arguments redacted for an approver. No I/O and no clock.
"""

from __future__ import annotations

import math
from typing import Any

from attrs import evolve

from llm_wire import contract as _contract
from llm_wire import schema as _schema
from llm_wire.agent._descriptor import (
    OutputValidation,
    ResourceVersion,
    ToolContract,
    ToolDescriptor,
    pointer_parts,
)
from llm_wire.agent._outcome import ErrorCategory, ErrorCode, ToolFailure, ToolOutcome
from llm_wire.agent._results import MAX_ISSUES
from llm_wire.reasons import render_redacted
from llm_wire.value import Value, render

__all__ = [
    "REDACTED",
    "abandoned_outcome",
    "expected_version",
    "extract_version",
    "outcome_unknown",
    "redact",
    "retry_advice",
    "retry_delay",
    "safe_to_repeat",
    "validate_output",
]

#: What an approver sees in place of a secret argument.
REDACTED = "[redacted]"


def _at(document: Value, pointer: str) -> tuple[bool, Value]:
    here = document
    for part in pointer_parts(pointer):
        if isinstance(here, dict) and part in here:
            here = here[part]
        elif isinstance(here, list) and part.isdigit() and int(part) < len(here):
            here = here[int(part)]
        else:
            return False, None
    return True, here


def _scalar_text(value: Value) -> str:
    return value if isinstance(value, str) else render(value)


def expected_version(policy: ResourceVersion, tool: str, arguments: Value) -> str | ToolOutcome | None:
    """
    The version the call expects (read from its arguments when the contract requires one), ``None`` when
    none is required, or the ``invalid_input`` outcome when it is missing or not a scalar.
    """
    if not policy.require_expected:
        return None
    found, value = _at(arguments, policy.argument_pointer)
    if not found:
        message = f"tool {tool} requires the expected resource version in its arguments"
        return ToolOutcome.failed(
            ErrorCategory.INVALID_INPUT, ErrorCode.PRECONDITION_MISSING, message, retryable=False
        )
    if value is None or isinstance(value, list | dict):
        message = f"tool {tool}: the expected resource version must be a string, number or boolean"
        return ToolOutcome.failed(
            ErrorCategory.INVALID_INPUT, ErrorCode.PRECONDITION_NOT_SCALAR, message, retryable=False
        )
    return _scalar_text(value)


def safe_to_repeat(
    contract: ToolContract, failed: ToolOutcome, *, consumes_key: bool, compensated: bool
) -> bool:
    """
    Whether running a failed call again cannot repeat its effect: the call never started (no slot before
    its deadline), or a partial effect the tool reported
    (``compensation_required``) was undone (``compensated``); otherwise the contract is idempotent, or
    idempotent with a key its provider consumes (``consumes_key``). The runner retries, and the model is
    told ``retryable``, only then.
    """
    failure = failed.failure
    if failure is not None and failure.code in _NEVER_STARTED:
        return True
    if failed.compensation_required:
        return compensated
    return contract.is_repeatable(consumes_key=consumes_key)


#: Failures the runner gives before a call starts: it had no effect, so repeating it is safe.
_NEVER_STARTED = frozenset({ErrorCode.CAPACITY_EXHAUSTED.value})


def retry_delay(
    contract: ToolContract,
    failed: ToolOutcome,
    attempt: int,
    compensated: bool,
    draw: float,
    *,
    consumes_key: bool,
) -> float | None:
    """
    Seconds to wait before attempt ``attempt + 1``, or ``None`` when the call must not be retried: the
    attempts are used up, the failure is not retryable (by ``retryable_categories`` when set, else by the
    tool's hint), or repeating is not safe (``safe_to_repeat``). A ``retry_after`` the tool reported is
    honoured.
    """
    failure = failed.failure
    retry = contract.retry
    if failure is None or attempt >= retry.max_attempts:
        return None
    if retry.retryable_categories:
        retryable = failure.category in retry.retryable_categories
    else:
        retryable = failure.retryable
    safe = safe_to_repeat(contract, failed, consumes_key=consumes_key, compensated=compensated)
    if not retryable or not safe:
        return None
    delay = retry.backoff(attempt, draw)
    after = failure.retry_after
    if after is not None and math.isfinite(after):
        delay = max(delay, after)
    return delay


def outcome_unknown(tool: str) -> ToolOutcome:
    """
    The outcome of a call that started and may have taken effect, and was not run again because repeating
    it is not safe: ``timeout``/``outcome_unknown``, never retryable. Every runner says it in these words,
    whether the call ran past its deadline or its worker stopped mid-call (a durable run's resume).
    """
    return ToolOutcome.failed(
        ErrorCategory.TIMEOUT, ErrorCode.OUTCOME_UNKNOWN, _unknown(tool), retryable=False
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


def _unknown(tool: str) -> str:
    return (
        f"the call to tool {tool} started but did not finish, and may have taken effect; its outcome is"
        " unknown and it was not run again because repeating it is not safe. Check whether its effect"
        " happened before calling it again."
    )


def retry_advice(
    outcome: ToolOutcome, contract: ToolContract, tool: str, *, consumes_key: bool, compensated: bool = False
) -> ToolOutcome:
    """
    The final outcome of a call with the retry advice the model may act on, the same in every runner: a
    failure stays ``retryable`` only when ``safe_to_repeat``. A timeout that is not safe to repeat (the
    call started and may have taken effect) becomes ``outcome_unknown``, never retryable; the failure's
    details and the outcome's metadata are kept.
    """
    failure = outcome.failure
    if failure is None or safe_to_repeat(
        contract, outcome, consumes_key=consumes_key, compensated=compensated
    ):
        return outcome
    if failure.category is ErrorCategory.TIMEOUT and failure.code != ErrorCode.OUTCOME_UNKNOWN:
        message = _unknown(tool)
        unknown = ToolFailure(
            ErrorCategory.TIMEOUT, ErrorCode.OUTCOME_UNKNOWN, message, False, failure.details
        )
        return evolve(outcome, content=message, failure=unknown)
    if failure.retryable:
        return evolve(outcome, failure=evolve(failure, retryable=False))
    return outcome


def validate_output(descriptor: ToolDescriptor, outcome: ToolOutcome) -> ToolOutcome:
    """
    A successful outcome checked against the output schema: skipped without a schema, when disabled, or
    for a failure. No structured data under a schema is reported as such. ``STRICT`` turns a mismatch into
    an ``internal`` failure listing the issues; ``WARN`` keeps the success and records them in metadata.
    """
    contract = descriptor.contract
    output = contract.output_schema
    if not outcome.ok or output is None or contract.output_validation is OutputValidation.DISABLED:
        return outcome
    if outcome.data is None:
        issues: list[Value] = [{"message": "the tool returned no structured data", "path": "$"}]
        code, text = ErrorCode.NO_STRUCTURED_DATA, f"tool {descriptor.name} returned no structured data"
    else:
        errors = _contract.validate_all(output, outcome.data, limit=MAX_ISSUES)
        if not errors:
            return outcome.with_metadata(output_schema_valid="true")
        issues = [
            {"message": error.reason.describe(), "path": render_redacted(error.path, error.hidden)}
            for error in errors
        ]
        code, text = (
            ErrorCode.OUTPUT_SCHEMA,
            f"the result of tool {descriptor.name} does not satisfy its output schema",
        )
    recorded = {"output_schema_valid": "false", "output_schema_issues": render(issues)}
    if contract.output_validation is OutputValidation.WARN:
        return outcome.with_metadata(**recorded)
    failed = ToolOutcome.failed(ErrorCategory.INTERNAL, code, text, retryable=False, details=issues)
    return evolve(failed, data=outcome.data, metadata={**outcome.metadata, **recorded})


def extract_version(policy: ResourceVersion, outcome: ToolOutcome) -> ToolOutcome:
    """The outcome with ``resource_version`` read from its data at the outcome pointer, when unset."""
    if outcome.resource_version is not None or not policy.outcome_pointer or outcome.data is None:
        return outcome
    found, value = _at(outcome.data, policy.outcome_pointer)
    if not found or value is None or isinstance(value, list | dict):
        return outcome
    return evolve(outcome, resource_version=_scalar_text(value))


def _secret(node: Any) -> bool:
    return isinstance(node, dict) and (node.get("writeOnly") is True or node.get("x-secret") is True)


def redact(descriptor: ToolDescriptor, arguments: Value) -> Value:
    """
    The arguments as an approver may see them: members marked secret in the input schema (``writeOnly``
    or ``x-secret``) or named in the contract's ``secrets`` show as ``"[redacted]"``, at any depth of
    declared object properties.
    """
    document = _schema.to_value(descriptor.tool.schema)
    return _redact(arguments, document, descriptor.contract.secrets)


def _redact(value: Value, node: Any, names: frozenset[str]) -> Value:
    if not isinstance(value, dict):
        return value
    properties = node.get("properties") if isinstance(node, dict) else None
    declared = properties if isinstance(properties, dict) else {}
    out: dict[str, Value] = {}
    for key, member in value.items():
        child = declared.get(key)
        if key in names or _secret(child):
            out[key] = REDACTED
        else:
            out[key] = _redact(member, child, names)
    return out
