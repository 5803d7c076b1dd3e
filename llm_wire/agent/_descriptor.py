"""
``ToolDescriptor``: a model-visible ``Tool`` plus its ``ToolContract`` (side effect, idempotency, approval,
timeout, output validation, retries, resource version, compensation, heartbeat, capabilities, output
ceilings; the parts in ``_contract_parts``). A contract that cannot be honoured is refused when it is made
(``DefinitionError``), and a descriptor a provider cannot honour is refused when the provider is registered
(``check_capabilities``). The contract answers for its rules on a call's walk: whether repeating a failed
call is safe, the wait before a retry, the retry advice the model sees, and the output check; the
descriptor shows an approver the arguments with secrets redacted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from attrs import evolve, field, frozen

from llm_wire import _public
from llm_wire import contract as _contract
from llm_wire import schema as _schema
from llm_wire import tool as _tool
from llm_wire._fast import Lean
from llm_wire.agent._contract_parts import (
    MIN_OUTPUT_BYTES,
    MIN_OUTPUT_TOKENS,
    Approval,
    Capability,
    Compensation,
    HeartbeatPolicy,
    Idempotency,
    OutputCeilings,
    OutputValidation,
    ResourceVersion,
    Risk,
    SideEffect,
    ToolRetryPolicy,
    _seconds,
    _strings,
    _text,
)
from llm_wire.agent._face import FACE as _FACE
from llm_wire.agent._tool_outcome import (
    MAX_ISSUES,
    ErrorCategory,
    ErrorCode,
    ToolFailure,
    ToolOutcome,
    check_types,
    unknown_outcome_message,
)
from llm_wire.codec import Codec
from llm_wire.contract import Contract
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import DefinitionError
from llm_wire.tool import Tool, ToolError
from llm_wire.value import Value, render
from llm_wire.value._render import render_redacted

__all__ = [
    "DESCRIPTOR_FORMAT",
    "MIN_OUTPUT_BYTES",
    "MIN_OUTPUT_TOKENS",
    "REDACTED",
    "Approval",
    "Capability",
    "Compensation",
    "HeartbeatPolicy",
    "Idempotency",
    "OutputCeilings",
    "OutputValidation",
    "ProviderCapabilities",
    "ResourceVersion",
    "Risk",
    "SideEffect",
    "ToolContract",
    "ToolDescriptor",
    "ToolRetryPolicy",
    "check_capabilities",
]

#: The ``format`` of ``ToolDescriptor.to_json``.
DESCRIPTOR_FORMAT = "llm_wire.tool_descriptor.v1"
#: What an approver sees in place of a secret argument.
REDACTED = "[redacted]"


def _capabilities(value: Iterable[Capability]) -> tuple[Capability, ...]:
    return tuple(value)


def _names(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


def _output_schema(value: Contract | Codec[Any] | None) -> Contract | None:
    if value is None or isinstance(value, Contract):
        return value
    if isinstance(value, Codec):
        if value.schema is None:
            raise DefinitionError("ToolContract.output_schema: the codec has no schema")
        match _contract.from_schema(value.schema):
            case Err(error):
                raise DefinitionError(f"ToolContract.output_schema: {error.describe()}")
            case Ok(compiled):
                return compiled
    raise TypeError(f"output_schema must be a Contract, a Codec or None, not {type(value).__name__}")


# The parts' defaults, one frozen record each, shared by every contract that keeps them.
_DEFAULT_RETRY = ToolRetryPolicy()
_DEFAULT_VERSION = ResourceVersion()
_DEFAULT_COMPENSATION = Compensation()
_DEFAULT_HEARTBEAT = HeartbeatPolicy()
_DEFAULT_CEILINGS = OutputCeilings()


@frozen
class ToolContract(Lean):
    """
    How the runner treats calls to one tool. The defaults run a call once, with no deadline of its own,
    no approval, and strict output validation when an output schema is set. Invalid combinations raise
    ``DefinitionError`` here: above all, retries on a tool that is neither idempotent nor compensated.
    """

    version: str = field(default="1", validator=_text)
    #: Checked against ``ToolOutcome.data`` after ``prepare_tool_result`` (a codec is compiled here).
    output_schema: Contract | None = field(default=None, converter=_output_schema)
    side_effect: SideEffect = SideEffect.NONE
    idempotency: Idempotency = Idempotency.UNKNOWN
    approval: Approval = Approval.NEVER
    #: Seconds for the whole call, all attempts and backoffs included; ``None`` for none of its own.
    timeout: float | None = field(default=None, validator=_seconds)
    output_validation: OutputValidation = OutputValidation.STRICT
    retry: ToolRetryPolicy = _DEFAULT_RETRY
    resource_version: ResourceVersion = _DEFAULT_VERSION
    compensation: Compensation = _DEFAULT_COMPENSATION
    heartbeat: HeartbeatPolicy = _DEFAULT_HEARTBEAT
    capabilities: tuple[Capability, ...] = field(default=(), converter=_capabilities)
    #: Argument members whose values approval requests show as ``"[redacted]"`` (besides schema marks:
    #: ``writeOnly: true`` or ``x-secret: true`` on a property).
    secrets: frozenset[str] = field(default=frozenset(), converter=_names)
    output_ceilings: OutputCeilings = _DEFAULT_CEILINGS
    metadata: Mapping[str, str] = field(factory=dict, converter=_strings, eq=False, hash=False)
    #: Whether a call may run concurrently with the other calls of its batch under ``Runner(parallel=True)``
    #: whatever its ``side_effect`` (its effect commutes with theirs). Without it, a call that is not
    #: ``NONE`` or ``READ`` runs alone: after the calls before it, before the calls after it.
    commutes: bool = False

    def __attrs_post_init__(self) -> None:
        check_types(self, _CONTRACT_TYPES)
        if not all(isinstance(capability, Capability) for capability in self.capabilities):
            raise TypeError("ToolContract.capabilities must hold Capability records")
        if not self.version:
            raise DefinitionError("ToolContract.version must not be empty")
        if self.timeout == 0:
            raise DefinitionError("ToolContract.timeout must be positive (None for no deadline of its own)")
        # Keyed retries: ``check_capabilities`` refuses a provider that does not consume the key.
        safe = self.is_repeatable(consumes_key=True) or self.compensation.enabled
        if self.retry.max_attempts > 1 and not safe:
            raise DefinitionError(
                "ToolContract: retries of a tool that is not idempotent require compensation "
                "(set idempotency, or enable compensation, or use max_attempts=1)"
            )
        names = [capability.name for capability in self.capabilities]
        if len(set(names)) != len(names):
            raise DefinitionError("ToolContract.capabilities: capability names must be unique")

    def is_repeatable(self, *, consumes_key: bool) -> bool:
        """
        Whether running a call again cannot repeat its effect: the tool is idempotent, or idempotent with
        a key that its provider consumes (``consumes_key``).
        """
        idempotency = self.idempotency
        return idempotency is Idempotency.IDEMPOTENT or (
            idempotency is Idempotency.IDEMPOTENT_WITH_KEY and consumes_key
        )

    def needs(self) -> ProviderCapabilities:
        """The provider capabilities this contract relies on."""
        keyed = self.idempotency is Idempotency.IDEMPOTENT_WITH_KEY and self.retry.max_attempts > 1
        return ProviderCapabilities(
            idempotency_key=keyed, heartbeat=self.heartbeat.enabled, compensation=self.compensation.enabled
        )

    def safe_to_repeat(self, failed: ToolOutcome, *, consumes_key: bool, compensated: bool) -> bool:
        """
        Whether running a failed call again cannot repeat its effect: the call never started (no slot before
        its deadline), or a partial effect the tool reported (``compensation_required``) was undone
        (``compensated``); otherwise ``is_repeatable``. The runner retries, and the model is told
        ``retryable``, only then.
        """
        failure = failed.failure
        if failure is not None and failure.code in _NEVER_STARTED:
            return True
        if failed.compensation_required:
            return compensated
        return self.is_repeatable(consumes_key=consumes_key)

    def retry_delay(
        self, failed: ToolOutcome, attempt: int, compensated: bool, draw: float, *, consumes_key: bool
    ) -> float | None:
        """
        Seconds to wait before attempt ``attempt + 1``, or ``None`` when the call must not be retried:
        ``retry`` refuses (attempts used up, a failure not retryable), or repeating is not
        ``safe_to_repeat``. ``draw`` in [0, 1) chooses the jitter.
        """
        failure = failed.failure
        if failure is None:
            return None
        delay = self.retry.delay(failure, attempt, draw)
        if delay is None or not self.safe_to_repeat(
            failed, consumes_key=consumes_key, compensated=compensated
        ):
            return None
        return delay

    def retry_advice(
        self, outcome: ToolOutcome, tool: str, *, consumes_key: bool, compensated: bool = False
    ) -> ToolOutcome:
        """
        The final outcome of a call to ``tool`` with the retry advice the model may act on, the same in every
        runner: a failure stays ``retryable`` only when ``safe_to_repeat``. A timeout that is not safe to
        repeat (the call started and may have taken effect) becomes ``outcome_unknown``, never retryable;
        the failure's details and the outcome's metadata are kept.
        """
        failure = outcome.failure
        if failure is None or self.safe_to_repeat(
            outcome, consumes_key=consumes_key, compensated=compensated
        ):
            return outcome
        if failure.category is ErrorCategory.TIMEOUT and failure.code != ErrorCode.OUTCOME_UNKNOWN:
            message = unknown_outcome_message(tool)
            unknown = ToolFailure(
                ErrorCategory.TIMEOUT, ErrorCode.OUTCOME_UNKNOWN, message, False, failure.details
            )
            return evolve(outcome, content=message, failure=unknown)
        if failure.retryable:
            return evolve(outcome, failure=evolve(failure, retryable=False))
        return outcome

    def validate_output(self, tool: str, outcome: ToolOutcome) -> ToolOutcome:
        """
        A successful outcome of ``tool`` checked against ``output_schema``: skipped without a schema, when
        disabled, or for a failure. No structured data under a schema is reported as such. ``STRICT`` turns
        a mismatch into an ``internal`` failure listing the issues; ``WARN`` keeps the success and records
        them in metadata.
        """
        output = self.output_schema
        if not outcome.ok or output is None or self.output_validation is OutputValidation.DISABLED:
            return outcome
        if outcome.data is None:
            issues: list[Value] = [{"message": "the tool returned no structured data", "path": "$"}]
            code, text = ErrorCode.NO_STRUCTURED_DATA, f"tool {tool} returned no structured data"
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
                f"the result of tool {tool} does not satisfy its output schema",
            )
        recorded = {"output_schema_valid": "false", "output_schema_issues": render(issues)}
        if self.output_validation is OutputValidation.WARN:
            return outcome.with_metadata(**recorded)
        failed = ToolOutcome.failed(ErrorCategory.INTERNAL, code, text, retryable=False, details=issues)
        return evolve(failed, data=outcome.data, metadata={**outcome.metadata, **recorded})


#: Failures the runner gives before a call starts: it had no effect, so repeating it is safe.
_NEVER_STARTED = frozenset({ErrorCode.CAPACITY_EXHAUSTED.value})


_CONTRACT_TYPES: Mapping[str, type | tuple[type, ...]] = {
    "side_effect": SideEffect,
    "idempotency": Idempotency,
    "approval": Approval,
    "output_validation": OutputValidation,
    "retry": ToolRetryPolicy,
    "resource_version": ResourceVersion,
    "compensation": Compensation,
    "heartbeat": HeartbeatPolicy,
    "output_ceilings": OutputCeilings,
    "commutes": bool,
}


@frozen
class ProviderCapabilities(Lean):
    """
    What a provider does with a tool's invocation beyond running it: consumes the idempotency key, reports
    heartbeats, compensates failures. Declared explicitly; never inferred.
    """

    idempotency_key: bool = False
    heartbeat: bool = False
    compensation: bool = False

    def __attrs_post_init__(self) -> None:
        check_types(self, {"idempotency_key": bool, "heartbeat": bool, "compensation": bool})


@frozen
class ToolDescriptor(Lean):
    """
    A tool as the runner sees it: the model-visible ``tool`` (name, description, input schema and its
    compiled contract) and its ``contract``.
    """

    tool: Tool
    contract: ToolContract = ToolContract()

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.tool, Tool):
            raise TypeError(f"tool must be a Tool, not {type(self.tool).__name__}")
        if not isinstance(self.contract, ToolContract):
            raise TypeError(f"contract must be a ToolContract, not {type(self.contract).__name__}")

    @property
    def name(self) -> str:
        """The tool name, which the model calls and providers dispatch on."""
        return self.tool.name

    @classmethod
    def from_json_schema(
        cls,
        name: str,
        description: str,
        input_schema: Value | str | bytes,
        contract: ToolContract | None = None,
    ) -> Result[ToolDescriptor, ToolError]:
        """
        The descriptor of a tool whose input schema arrives at runtime (a document, or its JSON text), such
        as an MCP ``inputSchema``, under ``contract`` (the default contract when ``None``): loaded
        fail-closed, it must describe an object; ``Err(ToolError)`` otherwise.
        """
        match _tool.from_json_schema(name, description, input_schema):
            case Err(error):
                return Err(error)
            case Ok(declared):
                return Ok(cls(declared, ToolContract() if contract is None else contract))

    def with_contract(self, contract: ToolContract) -> ToolDescriptor:
        """A copy with ``contract`` instead (the argument class and schema are unchanged)."""
        return evolve(self, contract=contract)

    def redact(self, arguments: Value) -> Value:
        """
        The arguments as an approver may see them: members marked secret in the input schema (``writeOnly``
        or ``x-secret``) or named in the contract's ``secrets`` show as ``"[redacted]"``, at any depth of
        declared object properties.
        """
        return _redact(arguments, _schema.to_value(self.tool.schema), self.contract.secrets)

    def to_json(self) -> Value:
        """The descriptor as a stable JSON document (tagged ``DESCRIPTOR_FORMAT``)."""
        c = self.contract
        retry = c.retry
        secrets: list[Value] = [*sorted(c.secrets)]
        categories: list[Value] = [*sorted(category.value for category in retry.retryable_categories)]
        output = None if c.output_schema is None else _schema.to_value(c.output_schema.schema)
        return {
            "format": DESCRIPTOR_FORMAT,
            "name": self.name,
            "version": c.version,
            "description": self.tool.description,
            "input_schema": _schema.to_value(self.tool.schema),
            "output_schema": output,
            "side_effect": c.side_effect.value,
            "commutes": c.commutes,
            "idempotency": c.idempotency.value,
            "approval": c.approval.value,
            "output_validation": c.output_validation.value,
            "timeout": _number(c.timeout),
            "retry": {
                "max_attempts": retry.max_attempts,
                "initial_backoff": _number(retry.initial_backoff),
                "maximum_backoff": _number(retry.maximum_backoff),
                "backoff_multiplier": _number(retry.backoff_multiplier),
                "jitter": _number(retry.jitter),
                "retryable_categories": categories,
            },
            "resource_version": {
                "require_expected": c.resource_version.require_expected,
                "argument_pointer": c.resource_version.argument_pointer,
                "outcome_pointer": c.resource_version.outcome_pointer,
            },
            "compensation": {
                "enabled": c.compensation.enabled,
                "timeout": _number(c.compensation.timeout),
                "max_attempts": c.compensation.max_attempts,
            },
            "heartbeat": {
                "timeout": _number(c.heartbeat.timeout),
                "minimum_interval": _number(c.heartbeat.minimum_interval),
            },
            "capabilities": [
                {
                    "name": capability.name,
                    "risk": capability.risk.value,
                    "summary": capability.summary,
                    "resources": list(capability.resources),
                    "metadata": dict(capability.metadata),
                }
                for capability in c.capabilities
            ],
            "output_ceilings": {
                "max_bytes": c.output_ceilings.max_bytes,
                "max_tokens": c.output_ceilings.max_tokens,
            },
            "secrets": secrets,
            "metadata": dict(c.metadata),
        }


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


def _secret(node: Any) -> bool:
    return isinstance(node, dict) and (node.get("writeOnly") is True or node.get("x-secret") is True)


def _number(seconds: float | None) -> Value:
    return None if seconds is None else Decimal(repr(float(seconds)))


def check_capabilities(descriptor: ToolDescriptor, declared: ProviderCapabilities | None) -> None:
    """
    Raise ``DefinitionError`` naming the tool when its contract relies on a capability the provider does
    not declare (``declared``; ``None`` declares none).
    """
    needs = descriptor.contract.needs()
    has = declared or ProviderCapabilities()
    missing = [
        words
        for need, have, words in (
            (
                needs.idempotency_key,
                has.idempotency_key,
                "keyed retries need a provider that consumes the key",
            ),
            (needs.heartbeat, has.heartbeat, "heartbeats need a provider that reports them"),
            (needs.compensation, has.compensation, "compensation needs a provider with a compensate handler"),
        )
        if need and not have
    ]
    if missing:
        raise DefinitionError(f"tool {descriptor.name!r}: {'; '.join(missing)}")


_public.rehome("llm_wire.agent", _FACE[__name__], globals())
