"""
Tool providers: the ``ToolProvider`` protocol, the provider reflected from typed tools, the composite that
routes by descriptor name, and the scoped provider (an allowlist a forged descriptor cannot bypass). The
three classes are this module's; ``reflect``, ``compose`` and ``scope`` return them as what they promise, a
``CompensatingProvider``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

from attrs import evolve

from llm_wire import _public
from llm_wire.agent._descriptor import ProviderCapabilities, ToolDescriptor, check_capabilities
from llm_wire.agent._face import FACE as _FACE
from llm_wire.agent._invocation import ToolInvocation
from llm_wire.agent._tool_outcome import ToolOutcome, no_compensation
from llm_wire.agent._typed import TypedTool, function_tool, make_tool
from llm_wire.schema import DefinitionError

__all__ = [
    "CompensatingProvider",
    "CompositeProvider",
    "ReflectedProvider",
    "ScopedProvider",
    "ToolProvider",
    "compose",
    "reflect",
    "scope",
]


@runtime_checkable
class ToolProvider(Protocol):
    """
    A source of tools: their descriptors, how to run one invocation, and per tool what the provider does
    with an invocation beyond running it (``None``: nothing declared). ``invoke`` must return an outcome
    for every failure it knows; the runner turns anything it raises into an ``internal`` outcome.
    """

    def descriptors(self) -> Sequence[ToolDescriptor]:
        """The tools this provider runs."""
        ...

    async def invoke(self, invocation: ToolInvocation) -> ToolOutcome:
        """Run one invocation."""
        ...

    def capabilities(self, name: str) -> ProviderCapabilities | None:
        """What the provider declares for tool ``name``."""
        ...


@runtime_checkable
class CompensatingProvider(ToolProvider, Protocol):
    """A provider that can undo a failed call's partial effect."""

    async def compensate(self, invocation: ToolInvocation, failure: ToolOutcome) -> ToolOutcome:
        """Undo what the failed ``invocation`` may have left; a success when it did."""
        ...


def _typed(item: object) -> TypedTool[Any]:
    if isinstance(item, TypedTool):
        return item
    if isinstance(item, type):
        return make_tool(item)
    if callable(item):
        return function_tool(item)
    raise TypeError(f"tools must be typed tools, tool classes or functions, not {type(item).__name__}")


def _names(descriptors: Iterable[ToolDescriptor]) -> list[str]:
    return [descriptor.name for descriptor in descriptors]


class ReflectedProvider:
    """
    The provider of typed tools (``make_tool``, ``function_tool``, or their classes and functions): it
    dispatches on the registered descriptor name and decodes the arguments with the tool's codec when an
    invocation does not already carry them decoded.
    """

    def __init__(self, tools: Iterable[TypedTool[Any] | type | Callable[..., object]]) -> None:
        if isinstance(tools, str | bytes) or not isinstance(tools, Iterable):
            raise TypeError(f"tools must be an iterable of typed tools, not {type(tools).__name__}")
        self._tools: dict[str, TypedTool[Any]] = {}
        for item in tools:
            typed = _typed(item)
            if typed.name in self._tools:
                raise DefinitionError(f"tool {typed.name!r} is registered twice")
            check_capabilities(typed.descriptor, typed.capabilities)
            self._tools[typed.name] = typed
        self._descriptors = tuple(typed.descriptor for typed in self._tools.values())

    def __repr__(self) -> str:
        return f"<ReflectedProvider ({len(self._tools)} tools)>"

    def descriptors(self) -> Sequence[ToolDescriptor]:
        """The tools' descriptors, in registration order."""
        return self._descriptors

    def capabilities(self, name: str) -> ProviderCapabilities | None:
        """The capabilities the typed tool declares (compensation when it has ``compensate``)."""
        typed = self._tools.get(name)
        return None if typed is None else typed.capabilities

    def typed(self, name: str) -> TypedTool[Any] | None:
        """The typed tool registered under ``name``."""
        return self._tools.get(name)

    async def invoke(self, invocation: ToolInvocation) -> ToolOutcome:
        """Run the typed tool the invocation's descriptor names; ``not_found`` for an unknown name."""
        typed = self._tools.get(invocation.name)
        if typed is None:
            return ToolOutcome.unknown_tool(_names(self._descriptors))
        return await typed.dispatch(invocation)

    async def compensate(self, invocation: ToolInvocation, failure: ToolOutcome) -> ToolOutcome:
        """Run the typed tool's ``compensate``; ``internal`` when it has none."""
        typed = self._tools.get(invocation.name)
        if typed is None:
            return no_compensation(invocation.name)
        return await typed.dispatch_compensation(invocation, failure)


def reflect(*tools: TypedTool[Any] | type | Callable[..., object]) -> CompensatingProvider:
    """
    A provider of these typed tools (tool classes and functions are made typed tools here): it dispatches on
    the registered name, and compensates with a tool's ``compensate`` (``internal`` when it has none). Two
    tools under one name are a ``DefinitionError``.
    """
    return ReflectedProvider(tools)


class CompositeProvider:
    """
    Several providers as one: descriptors merged in provider order and read once (``refresh`` reads them
    again), calls routed by descriptor name, capabilities kept per tool from its own provider. Two
    providers offering one name is a ``DefinitionError`` naming it.
    """

    def __init__(self, providers: Iterable[ToolProvider]) -> None:
        listed = list(providers)
        for provider in listed:
            if not isinstance(provider, ToolProvider):
                raise TypeError(f"providers must be ToolProviders, not {type(provider).__name__}")
        self._providers = tuple(listed)
        self._routes: dict[str, ToolProvider] = {}
        self._descriptors: tuple[ToolDescriptor, ...] = ()
        self.refresh()

    def __repr__(self) -> str:
        return f"<CompositeProvider ({len(self._providers)} providers, {len(self._routes)} tools)>"

    def refresh(self) -> None:
        """Read every provider's descriptors again (after a provider's tool list changed)."""
        routes: dict[str, ToolProvider] = {}
        descriptors: list[ToolDescriptor] = []
        for provider in self._providers:
            for descriptor in provider.descriptors():
                if descriptor.name in routes:
                    raise DefinitionError(f"tool {descriptor.name!r} is offered by two providers")
                check_capabilities(descriptor, provider.capabilities(descriptor.name))
                routes[descriptor.name] = provider
                descriptors.append(descriptor)
        self._routes = routes
        self._descriptors = tuple(descriptors)

    def descriptors(self) -> Sequence[ToolDescriptor]:
        """Every provider's descriptors, in provider order."""
        return self._descriptors

    def capabilities(self, name: str) -> ProviderCapabilities | None:
        """The capabilities the owning provider declares for ``name``; ``None`` for an unknown name."""
        provider = self._routes.get(name)
        return None if provider is None else provider.capabilities(name)

    async def invoke(self, invocation: ToolInvocation) -> ToolOutcome:
        """Route to the provider that owns the descriptor's name; ``not_found`` listing all tools."""
        provider = self._routes.get(invocation.name)
        if provider is None:
            return ToolOutcome.unknown_tool(_names(self._descriptors))
        return await provider.invoke(invocation)

    async def compensate(self, invocation: ToolInvocation, failure: ToolOutcome) -> ToolOutcome:
        """Route to the owning provider's ``compensate``; ``internal`` when it has none."""
        provider = self._routes.get(invocation.name)
        if provider is None or not isinstance(provider, CompensatingProvider):
            return no_compensation(invocation.name)
        return await provider.compensate(invocation, failure)


def compose(*providers: ToolProvider) -> CompensatingProvider:
    """
    ``providers`` as one: descriptors merged in provider order and read once, calls routed by descriptor
    name, capabilities kept per tool from its own provider. Two providers offering one name is a
    ``DefinitionError`` naming it.
    """
    return CompositeProvider(providers)


class ScopedProvider:
    """
    A provider limited to an allowlist of its tools. Listing, invoking, compensating and capabilities see
    only activated names; an invocation carries the activated descriptor whatever descriptor it came with.
    An empty, duplicate or unknown allowlisted name is a ``DefinitionError``.
    """

    def __init__(self, provider: ToolProvider, allow: Iterable[str]) -> None:
        if not isinstance(provider, ToolProvider):
            raise TypeError(f"provider must be a ToolProvider, not {type(provider).__name__}")
        if isinstance(allow, str) or not isinstance(allow, Iterable):
            raise TypeError(f"allow must be an iterable of tool names, not {type(allow).__name__}")
        names = list(allow)
        available = {descriptor.name: descriptor for descriptor in provider.descriptors()}
        for name in names:
            if not isinstance(name, str) or not name:
                raise DefinitionError("a scope's allowlist holds an empty name")
            if name not in available:
                raise DefinitionError(f"a scope allows tool {name!r}, which the provider does not offer")
        if len(set(names)) != len(names):
            raise DefinitionError("a scope's allowlist names a tool twice")
        self._provider = provider
        self._active = {name: available[name] for name in available if name in set(names)}
        self._descriptors = tuple(self._active.values())

    def __repr__(self) -> str:
        return f"<ScopedProvider ({len(self._active)} tools)>"

    def descriptors(self) -> Sequence[ToolDescriptor]:
        """The activated tools' descriptors."""
        return self._descriptors

    def capabilities(self, name: str) -> ProviderCapabilities | None:
        """The underlying capabilities of an activated tool; ``None`` otherwise."""
        return self._provider.capabilities(name) if name in self._active else None

    async def invoke(self, invocation: ToolInvocation) -> ToolOutcome:
        """Invoke an activated tool with its activated descriptor; ``permission_denied`` otherwise."""
        activated = self._active.get(invocation.name)
        if activated is None:
            return ToolOutcome.unknown_tool(_names(self._descriptors), scope=True)
        return await self._provider.invoke(evolve(invocation, descriptor=activated))

    async def compensate(self, invocation: ToolInvocation, failure: ToolOutcome) -> ToolOutcome:
        """Compensate an activated tool; ``permission_denied`` otherwise, the provider never called."""
        activated = self._active.get(invocation.name)
        if activated is None:
            return ToolOutcome.unknown_tool(_names(self._descriptors), scope=True)
        if not isinstance(self._provider, CompensatingProvider):
            return no_compensation(invocation.name)
        return await self._provider.compensate(evolve(invocation, descriptor=activated), failure)


def scope(provider: ToolProvider, allow: Iterable[str]) -> CompensatingProvider:
    """
    ``provider`` limited to the tools named in ``allow``: listing, invoking, compensating and capabilities see
    only those, and an invocation carries the allowed descriptor whatever descriptor it came with. An empty,
    duplicate or unknown allowed name is a ``DefinitionError``.
    """
    return ScopedProvider(provider, allow)


_public.rehome("llm_wire.agent", _FACE[__name__], globals())
