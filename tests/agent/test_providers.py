"""Providers: reflected, composite (routing, duplicates, capabilities) and scoped (allowlist)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import attrs
import pytest
from agent_tools import EchoText, ShoutText

from llm_wire.agent import (
    ErrorCategory,
    Idempotency,
    InvocationContext,
    ProviderCapabilities,
    SideEffect,
    ToolContract,
    ToolDescriptor,
    ToolInvocation,
    ToolOutcome,
    ToolProvider,
    ToolRetryPolicy,
    compose,
    make_tool,
    reflect,
    scope,
)
from llm_wire.agent._providers import CompositeProvider
from llm_wire.result import unwrap
from llm_wire.schema import DefinitionError


def _invoke(provider: ToolProvider, invocation: ToolInvocation) -> ToolOutcome:
    return asyncio.run(provider.invoke(invocation))


def _call(provider: ToolProvider, name: str, arguments: str) -> ToolOutcome:
    descriptor = next(d for d in provider.descriptors() if d.name == name)
    return _invoke(provider, unwrap(ToolInvocation.of(descriptor, arguments)))


class Recording:
    """A provider that records what reaches it (a real provider, not a mock)."""

    def __init__(self, inner: ToolProvider) -> None:
        self.inner = inner
        self.seen: list[ToolInvocation] = []
        self.compensated: list[ToolInvocation] = []

    def descriptors(self) -> Sequence[ToolDescriptor]:
        return self.inner.descriptors()

    def capabilities(self, name: str) -> ProviderCapabilities | None:
        return ProviderCapabilities(compensation=True)

    async def invoke(self, invocation: ToolInvocation) -> ToolOutcome:
        self.seen.append(invocation)
        return await self.inner.invoke(invocation)

    async def compensate(self, invocation: ToolInvocation, failure: ToolOutcome) -> ToolOutcome:
        self.compensated.append(invocation)
        return ToolOutcome.success("undone")


@attrs.frozen
class Secret:
    """Reveal a secret."""

    def invoke(self) -> str:
        return "the secret"


class TestReflected:
    """The reflected provider dispatches by the registered descriptor name."""

    def test_invokes_by_name(self) -> None:
        assert _call(reflect(EchoText), "echo_text", '{"text":"hi"}').content == "hi"

    def test_do_better_09_dispatch_by_descriptor_name(self) -> None:
        """A renamed tool is found under its new name (Wuwe dispatched on the type name)."""
        provider = reflect(make_tool(EchoText, name="say"))
        assert [d.name for d in provider.descriptors()] == ["say"]
        assert _call(provider, "say", '{"text":"hi"}').content == "hi"

    def test_duplicate_names_refused(self) -> None:
        with pytest.raises(DefinitionError, match="echo_text"):
            reflect(EchoText, make_tool(EchoText))

    def test_conforms(self) -> None:
        provider: ToolProvider = reflect(EchoText)
        assert isinstance(provider, ToolProvider)


class TestComposite:
    """The composite merges, routes, caches and refuses duplicates loudly."""

    def test_scenario_03_composite_routing(self) -> None:
        """Two tools in provider order, routed to their owners; unknown lists both, never the name."""
        echo = Recording(reflect(EchoText))
        shout = reflect(ShoutText)
        both = compose(echo, shout)
        assert [d.name for d in both.descriptors()] == ["echo_text", "shout_text"]
        assert _call(both, "echo_text", '{"text":"a"}').content == "a"
        assert len(echo.seen) == 1
        assert _call(both, "shout_text", '{"text":"a"}').content == "A"
        forged = evolve_name(unwrap(ToolInvocation.of(both.descriptors()[0], '{"text":"a"}')), "nope_tool")
        unknown = _invoke(both, forged)
        assert unknown.category is ErrorCategory.NOT_FOUND
        text = unknown.model_text()
        assert "echo_text" in text
        assert "shout_text" in text
        assert "nope_tool" not in text

    def test_do_better_10_duplicate_across_providers_refused(self) -> None:
        """Wuwe hid the second provider's tool; here registration fails, naming the tool."""
        with pytest.raises(DefinitionError, match="echo_text"):
            compose(reflect(EchoText), reflect(EchoText))

    def test_do_better_09_descriptors_cached(self) -> None:
        class Counting(Recording):
            calls = 0

            def descriptors(self) -> Sequence[ToolDescriptor]:
                Counting.calls += 1
                return super().descriptors()

        both = CompositeProvider([Counting(reflect(EchoText))])
        for _ in range(3):
            both.descriptors()
            _call(both, "echo_text", '{"text":"a"}')
        assert Counting.calls == 1

    def test_scenario_04_context_passes_through(self) -> None:
        """The composite passes the invocation (and its cancellable context) to the child intact."""
        echo = Recording(reflect(EchoText))
        both = compose(echo)
        invocation = unwrap(ToolInvocation.of(both.descriptors()[0], '{"text":"a"}'))
        _invoke(both, invocation)
        assert echo.seen[0].context is invocation.context
        invocation.context.cancel()
        assert echo.seen[0].context.cancelled

    def test_capabilities_per_tool(self) -> None:
        keyed = make_tool(
            EchoKeyed,
            contract=ToolContract(
                idempotency=Idempotency.IDEMPOTENT_WITH_KEY, retry=ToolRetryPolicy(max_attempts=2)
            ),
            capabilities=ProviderCapabilities(idempotency_key=True),
        )
        both = compose(reflect(keyed), reflect(ShoutText))
        assert both.capabilities("echo_keyed") == ProviderCapabilities(idempotency_key=True)
        assert both.capabilities("shout_text") == ProviderCapabilities()
        assert both.capabilities("missing") is None

    def test_keyed_retries_need_the_key_capability(self) -> None:
        """Keyed retries on a provider that does not consume keys are refused at registration."""
        contract = ToolContract(
            idempotency=Idempotency.IDEMPOTENT_WITH_KEY, retry=ToolRetryPolicy(max_attempts=2)
        )
        with pytest.raises(DefinitionError, match="consumes the key"):
            make_tool(EchoText, contract=contract)

    def test_not_a_provider(self) -> None:
        with pytest.raises(TypeError, match="providers"):
            compose(42)  # type: ignore[arg-type]


@attrs.frozen
class EchoKeyed:
    """Echo with a key."""

    text: str

    def invoke(self, ctx: InvocationContext) -> str:
        return ctx.idempotency_key


def evolve_name(invocation: ToolInvocation, name: str) -> ToolInvocation:
    tool = invocation.descriptor.tool
    from llm_wire import tool as tool_module
    from llm_wire.codec import derive

    renamed = tool_module.new(name, tool.description, derive(EchoText))
    return invocation.with_descriptor(ToolDescriptor(renamed, invocation.descriptor.contract))


class TestScoped:
    """The scope lists, invokes and compensates only activated tools, with activated descriptors."""

    def test_scenario_05_scoped_provider(self) -> None:
        child = Recording(reflect(EchoText, Secret))
        scoped = scope(child, ["echo_text"])
        assert [d.name for d in scoped.descriptors()] == ["echo_text"]
        assert _call(scoped, "echo_text", '{"text":"a"}').content == "a"
        activated = scoped.descriptors()[0]
        forged_contract = ToolContract(side_effect=SideEffect.DESTRUCTIVE)
        forged = unwrap(ToolInvocation.of(activated.with_contract(forged_contract), '{"text":"b"}'))
        _invoke(scoped, forged)
        assert child.seen[-1].descriptor == activated
        secret = unwrap(ToolInvocation.of(child.descriptors()[1], "{}"))
        denied = _invoke(scoped, secret)
        assert denied.category is ErrorCategory.PERMISSION_DENIED
        compensated = asyncio.run(scoped.compensate(secret, denied))
        assert compensated.category is ErrorCategory.PERMISSION_DENIED
        assert [seen.name for seen in child.seen] == ["echo_text", "echo_text"]
        assert child.compensated == []
        assert scoped.capabilities("secret") is None

    @pytest.mark.parametrize("allow", [[""], ["echo_text", "echo_text"], ["missing"]])
    def test_bad_allowlist(self, allow: list[str]) -> None:
        with pytest.raises(DefinitionError):
            scope(reflect(EchoText), allow)
