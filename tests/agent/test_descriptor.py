"""Descriptors and contracts: validation when made, capability checks when registered, JSON."""

from __future__ import annotations

import attrs
import pytest
from agent_tools import EchoText

from llm_wire import codec
from llm_wire.agent import (
    Capability,
    Compensation,
    HeartbeatPolicy,
    Idempotency,
    OutputCeilings,
    ProviderCapabilities,
    ResourceVersion,
    SideEffect,
    ToolContract,
    ToolDescriptor,
    ToolRetryPolicy,
    make_tool,
)
from llm_wire.agent._descriptor import DESCRIPTOR_FORMAT, check_capabilities
from llm_wire.result import Err, Ok
from llm_wire.schema import DefinitionError
from llm_wire.tool import InputNotObject, InvalidSchema


class TestContract:
    """Invalid contracts raise ``DefinitionError`` when made."""

    def test_scenario_08_non_object_schema_refused(self) -> None:
        """An input schema that is not an object is refused, never replaced by reflection."""
        assert isinstance(ToolDescriptor.from_json_schema("t", "d", []), Err)
        match ToolDescriptor.from_json_schema("t", "d", {"type": "string"}):
            case Err(error):
                assert isinstance(error, InputNotObject)
            case Ok():
                pytest.fail("accepted")

    def test_scenario_09_schema_text_not_json(self) -> None:
        match ToolDescriptor.from_json_schema("t", "d", "{not-json}"):
            case Err(error):
                assert isinstance(error, InvalidSchema)
            case Ok():
                pytest.fail("accepted")

    def test_scenario_10_bad_pointer(self) -> None:
        with pytest.raises(DefinitionError, match="JSON Pointer"):
            ResourceVersion(argument_pointer="/bad~pointer")
        with pytest.raises(DefinitionError, match="JSON Pointer"):
            ResourceVersion(outcome_pointer="no-slash")
        assert ResourceVersion(argument_pointer="/a~0b~1c").argument_pointer == "/a~0b~1c"

    def test_scenario_11_output_ceilings(self) -> None:
        with pytest.raises(DefinitionError, match="256"):
            OutputCeilings(max_bytes=255)
        with pytest.raises(DefinitionError, match="64"):
            OutputCeilings(max_tokens=63)
        assert OutputCeilings(max_bytes=512, max_tokens=128).tighten(1024, 64) == (512, 64)
        descriptor = make_tool(
            EchoText, contract=ToolContract(output_ceilings=OutputCeilings(512, 128))
        ).descriptor
        document = descriptor.to_json()
        assert isinstance(document, dict)
        assert document["format"] == DESCRIPTOR_FORMAT
        assert document["output_ceilings"] == {"max_bytes": 512, "max_tokens": 128}

    def test_scenario_12_retries_need_idempotency_or_compensation(self) -> None:
        with pytest.raises(DefinitionError, match="compensation"):
            ToolContract(retry=ToolRetryPolicy(max_attempts=2))
        with pytest.raises(DefinitionError, match="compensation"):
            ToolContract(idempotency=Idempotency.NON_IDEMPOTENT, retry=ToolRetryPolicy(max_attempts=2))
        ToolContract(idempotency=Idempotency.IDEMPOTENT, retry=ToolRetryPolicy(max_attempts=2))
        ToolContract(retry=ToolRetryPolicy(max_attempts=2), compensation=Compensation(enabled=True))

    @pytest.mark.parametrize(
        "make",
        [
            lambda: ToolRetryPolicy(max_attempts=0),
            lambda: ToolRetryPolicy(initial_backoff=-1),
            lambda: ToolRetryPolicy(initial_backoff=2, maximum_backoff=1),
            lambda: ToolRetryPolicy(backoff_multiplier=0.5),
            lambda: ToolRetryPolicy(backoff_multiplier=float("inf")),
            lambda: ToolRetryPolicy(jitter=1.5),
            lambda: ToolContract(timeout=-1),
            lambda: ToolContract(timeout=0),
            lambda: ToolContract(version=""),
            lambda: Compensation(max_attempts=0),
            lambda: HeartbeatPolicy(timeout=-1),
            lambda: Capability(""),
            lambda: ToolContract(capabilities=(Capability("a"), Capability("a"))),
            lambda: ResourceVersion(require_expected=True, argument_pointer=""),
        ],
    )
    def test_invalid_settings(self, make: object) -> None:
        assert callable(make)
        with pytest.raises(DefinitionError):
            make()

    def test_backoff(self) -> None:
        policy = ToolRetryPolicy(max_attempts=5, initial_backoff=0.1, maximum_backoff=0.3, jitter=0.0)
        assert [policy.backoff(n, 0.5) for n in (1, 2, 3)] == pytest.approx([0.1, 0.2, 0.3])
        jittered = ToolRetryPolicy(initial_backoff=1.0, jitter=0.5)
        assert jittered.backoff(1, 0.0) == pytest.approx(0.5)
        assert jittered.backoff(1, 0.999) <= 1.5

    def test_output_schema_from_codec(self) -> None:
        @attrs.frozen
        class Out:
            value: str

        contract = ToolContract(output_schema=codec.derive(Out))
        assert contract.output_schema is not None


class TestCapabilities:
    """A contract relying on a capability the provider does not declare is refused at registration."""

    def test_heartbeat_needs_capability(self) -> None:
        descriptor = make_tool(EchoText).descriptor.with_contract(
            ToolContract(heartbeat=HeartbeatPolicy(timeout=1.0))
        )
        with pytest.raises(DefinitionError, match="heartbeat"):
            check_capabilities(descriptor, None)
        check_capabilities(descriptor, ProviderCapabilities(heartbeat=True))

    def test_compensation_needs_handler(self) -> None:
        contract = ToolContract(compensation=Compensation(enabled=True))
        with pytest.raises(DefinitionError, match="compensat"):
            make_tool(EchoText, contract=contract)


class TestTypes:
    """A contract field of the wrong type is a ``TypeError`` naming it."""

    def test_enum_fields(self) -> None:
        with pytest.raises(TypeError, match=r"ToolContract\.side_effect"):
            ToolContract(side_effect="write")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"ToolContract\.retry"):
            ToolContract(retry=3)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"ProviderCapabilities\.heartbeat"):
            ProviderCapabilities(heartbeat=1)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"ToolContract\.commutes"):
            ToolContract(commutes=1)  # type: ignore[arg-type]


class TestCommutes:
    """``commutes`` is off by default and written in the descriptor document next to the side effect."""

    def test_default_and_document(self) -> None:
        assert ToolContract().commutes is False
        plain = make_tool(EchoText).descriptor.to_json()
        assert isinstance(plain, dict)
        assert plain["commutes"] is False
        contract = ToolContract(side_effect=SideEffect.WRITE, commutes=True)
        document = make_tool(EchoText, contract=contract).descriptor.to_json()
        assert isinstance(document, dict)
        assert (document["side_effect"], document["commutes"]) == ("write", True)
