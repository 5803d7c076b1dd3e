"""The contract's rules: preconditions, retry decisions, output validation, versions, redaction."""

from __future__ import annotations

from agent_tools import Programmable
from attrs import evolve

from llm_wire.agent import (
    Compensation,
    ErrorCategory,
    Idempotency,
    OutputValidation,
    ResourceVersion,
    ToolContract,
    ToolOutcome,
    ToolRetryPolicy,
)
from llm_wire.agent._descriptor import REDACTED
from llm_wire.contract import load
from llm_wire.result import unwrap

BUSY = ToolOutcome.failed(ErrorCategory.UNAVAILABLE, "busy", "busy")
RETRY = ToolRetryPolicy(max_attempts=3, initial_backoff=0.5, maximum_backoff=2, jitter=0)


class TestExpectedVersion:
    """The expected version is read from the arguments when required."""

    def test_not_required(self) -> None:
        assert ResourceVersion().expected_version("t", {}) is None

    def test_read_and_rendered(self) -> None:
        policy = ResourceVersion(require_expected=True, argument_pointer="/meta/v")
        assert policy.expected_version("t", {"meta": {"v": "a1"}}) == "a1"
        assert policy.expected_version("t", {"meta": {"v": 3}}) == "3"

    def test_missing_or_not_scalar(self) -> None:
        policy = ResourceVersion(require_expected=True)
        for arguments in ({}, {"resource_version": None}, {"resource_version": [1]}):
            found = policy.expected_version("t", arguments)  # type: ignore[arg-type]
            assert isinstance(found, ToolOutcome)
            assert found.category is ErrorCategory.INVALID_INPUT


class TestRetryDelay:
    """A retry happens only when attempts remain, the failure is retryable, and repeating is safe."""

    def test_idempotent_retryable(self) -> None:
        contract = ToolContract(idempotency=Idempotency.IDEMPOTENT, retry=RETRY)
        assert contract.retry_delay(BUSY, 1, False, 0.5, consumes_key=False) == 0.5
        assert contract.retry_delay(BUSY, 2, False, 0.5, consumes_key=False) == 1.0
        assert contract.retry_delay(BUSY, 3, False, 0.5, consumes_key=False) is None

    def test_not_retryable(self) -> None:
        contract = ToolContract(idempotency=Idempotency.IDEMPOTENT, retry=RETRY)
        final = ToolOutcome.failed(ErrorCategory.INVALID_INPUT, "bad", "bad")
        assert contract.retry_delay(final, 1, False, 0.5, consumes_key=False) is None

    def test_categories_override_the_hint(self) -> None:
        retry = ToolRetryPolicy(max_attempts=2, retryable_categories=frozenset({ErrorCategory.CONFLICT}))
        contract = ToolContract(idempotency=Idempotency.IDEMPOTENT, retry=retry)
        conflict = ToolOutcome.failed(ErrorCategory.CONFLICT, "c", "c")
        assert contract.retry_delay(conflict, 1, False, 0.5, consumes_key=False) is not None
        assert contract.retry_delay(BUSY, 1, False, 0.5, consumes_key=False) is None

    def test_unsafe_unless_compensated(self) -> None:
        contract = ToolContract(retry=RETRY, compensation=Compensation(enabled=True))
        partial = evolve(BUSY, compensation_required=True)
        assert contract.retry_delay(BUSY, 1, False, 0.5, consumes_key=False) is None
        assert contract.retry_delay(partial, 1, False, 0.5, consumes_key=False) is None
        assert contract.retry_delay(partial, 1, True, 0.5, consumes_key=False) is not None

    def test_retry_after_is_honoured(self) -> None:
        contract = ToolContract(idempotency=Idempotency.IDEMPOTENT, retry=RETRY)
        limited = ToolOutcome.failed(ErrorCategory.RATE_LIMITED, "429", "slow down", retry_after=1.5)
        assert contract.retry_delay(limited, 1, False, 0.5, consumes_key=False) == 1.5


SCHEMA = unwrap(load({"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}))


class TestValidateOutput:
    """Output validation by mode; no data under a schema is its own failure."""

    def test_valid(self) -> None:
        descriptor = Programmable(contract=ToolContract(output_schema=SCHEMA)).descriptor
        checked = descriptor.contract.validate_output(
            descriptor.name, ToolOutcome.success(data={"value": "x"})
        )
        assert checked.ok
        assert checked.metadata["output_schema_valid"] == "true"

    def test_disabled_and_failures_untouched(self) -> None:
        disabled = ToolContract(output_schema=SCHEMA, output_validation=OutputValidation.DISABLED)
        descriptor = Programmable(contract=disabled).descriptor
        assert descriptor.contract.validate_output(descriptor.name, ToolOutcome.success(data=1)).ok
        strict = Programmable(contract=ToolContract(output_schema=SCHEMA)).descriptor
        assert strict.contract.validate_output(strict.name, BUSY) is BUSY

    def test_strict_details_issues(self) -> None:
        descriptor = Programmable(contract=ToolContract(output_schema=SCHEMA)).descriptor
        checked = descriptor.contract.validate_output(descriptor.name, ToolOutcome.success(data={"value": 1}))
        assert checked.failure is not None
        assert checked.failure.details == [{"message": "expected a string", "path": '$["value"]'}]


class TestVersionAndRedaction:
    """The version after a call comes from its data; secrets never reach an approver."""

    def test_extract(self) -> None:
        found = ResourceVersion().extract_version(ToolOutcome.success(data={"resource_version": 7}))
        assert found.resource_version == "7"
        kept = ToolOutcome.success(data={"resource_version": {"no": 1}})
        assert ResourceVersion().extract_version(kept).resource_version is None

    def test_redact_nested(self) -> None:
        schema = (
            '{"type":"object","properties":{"auth":{"type":"object","properties":'
            '{"key":{"type":"string","x-secret":true},"user":{"type":"string"}}}}}'
        )
        descriptor = Programmable(schema=schema).descriptor
        shown = descriptor.redact({"auth": {"key": "k", "user": "u"}})
        assert shown == {"auth": {"key": REDACTED, "user": "u"}}


class TestSafeToRepeat:
    """Repeating a failed call is safe when it never started, was compensated, or is idempotent."""

    def test_never_started_is_safe_for_any_contract(self) -> None:
        busy = ToolOutcome.failed(ErrorCategory.UNAVAILABLE, "capacity_exhausted", "busy")
        assert ToolContract().safe_to_repeat(busy, consumes_key=False, compensated=False)
        assert not ToolContract().safe_to_repeat(BUSY, consumes_key=False, compensated=False)

    def test_a_partial_effect_needs_compensation(self) -> None:
        contract = ToolContract(idempotency=Idempotency.IDEMPOTENT)
        partial = evolve(BUSY, compensation_required=True)
        assert not contract.safe_to_repeat(partial, consumes_key=False, compensated=False)
        assert contract.safe_to_repeat(partial, consumes_key=False, compensated=True)

    def test_a_key_counts_only_when_consumed(self) -> None:
        keyed = ToolContract(idempotency=Idempotency.IDEMPOTENT_WITH_KEY)
        assert keyed.safe_to_repeat(BUSY, consumes_key=True, compensated=False)
        assert not keyed.safe_to_repeat(BUSY, consumes_key=False, compensated=False)


class TestRetryAdvice:
    """The model is told ``retryable`` only when repeating is safe; an unsafe timeout is unknown."""

    def test_an_unsafe_timeout_becomes_outcome_unknown(self) -> None:
        late = ToolOutcome.failed(ErrorCategory.TIMEOUT, "timeout", "late", details={"at": 1})
        advised = ToolContract().retry_advice(late, "pay", consumes_key=False)
        assert advised.failure is not None
        assert (advised.failure.code, advised.failure.retryable) == ("outcome_unknown", False)
        assert advised.failure.details == {"at": 1}
        assert advised.content == ToolOutcome.unknown("pay").content

    def test_an_unsafe_retryable_failure_is_not_retryable(self) -> None:
        advised = ToolContract().retry_advice(BUSY, "t", consumes_key=False)
        assert advised.failure is not None
        assert not advised.failure.retryable

    def test_a_safe_failure_is_kept(self) -> None:
        contract = ToolContract(idempotency=Idempotency.IDEMPOTENT)
        assert contract.retry_advice(BUSY, "t", consumes_key=False) is BUSY
