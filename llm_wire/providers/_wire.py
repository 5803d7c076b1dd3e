"""
A provider wire as data: what ``prepare`` hands an API module, the ``Wire`` record each module ends with, and
``Wires``, the registry that finds a wire by its ``Provider``.

``llm_wire.prepare`` checks a request once, provider-neutrally (tool names, schemas, history pairing, sizes),
then hands the provider's ``Wire.encode`` an ``Outgoing`` record: the checked history, each tool with its
``Projection``, the tool choice and the generation settings; ``encode`` writes the exact JSON body or refuses
with an ``EncodeError``. A ``Wire`` holds everything that differs between APIs, as data and functions (like
referencing's ``Specification``): the projection profiles, the encoder, the endpoint (``Http``: base URL,
auth header, API version headers, key variables), the response decoder, the error decoder, the budgets, the
tool-name rule, the names the command line takes, and how the API's server speaks (``Speech``, for the local
fake provider). Shared code reads a ``Wire``; it never branches on the provider.

A ``Wires`` registry is an immutable value: ``llm_wire.providers.WIRES`` holds the built-in APIs, and
``WIRES.with_wire(wire)`` is another registry that also holds ``wire``, for a caller to pass where a registry
is read (``llm_wire.config``, the fake provider's ``ScriptedModel``, ``answer`` and ``error``).
"""

from __future__ import annotations

import enum
import importlib
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from types import MappingProxyType
from typing import Protocol, TypeAlias

from attrs import field, frozen

from llm_wire import _deprecated
from llm_wire._described import Described
from llm_wire._fast import Lean
from llm_wire.message import Message, Provider, ToolCall
from llm_wire.providers import _project
from llm_wire.providers._profiles import Profile, Projection, ProjectionError
from llm_wire.providers.response import (
    _DEFAULT_LIMITS,
    ProviderError,
    ResponseError,
    ResponseLimits,
    StreamDecoder,
    Terminal,
    _Headers,
)
from llm_wire.result import Result
from llm_wire.schema import Schema
from llm_wire.value import Value

__all__ = [
    "AllowedTools",
    "Choice",
    "DecoderFactory",
    "Declared",
    "EncodeError",
    "Http",
    "InvalidReplay",
    "Number",
    "Outgoing",
    "OutputSpec",
    "OverProviderLimit",
    "ProviderLimit",
    "Speech",
    "ToolChoice",
    "ToolLimits",
    "UnsupportedSetting",
    "UseTool",
    "Wire",
    "Wires",
]

#: A generation setting's number, exact (a ``float`` from the caller is converted through its shortest repr).
Number: TypeAlias = int | Decimal


class ToolChoice(enum.Enum):
    """Whether the model may, must not, or must call a tool."""

    AUTO = "auto"
    NONE = "none"
    REQUIRED = "required"


@frozen
class UseTool(Lean):
    """The model must call this one tool."""

    name: str


def _names(names: Iterable[str]) -> tuple[str, ...]:
    if isinstance(names, str):
        raise TypeError("AllowedTools.names must be a sequence of tool names, not one str")
    return tuple(names)


@frozen
class AllowedTools(Lean):
    """
    The model may call only these declared tools (OpenAI's ``allowed_tools``): with ``mode``
    ``ToolChoice.AUTO`` it may answer instead, with ``ToolChoice.REQUIRED`` it must call one of them.
    """

    names: tuple[str, ...] = field(converter=_names)
    mode: ToolChoice = ToolChoice.AUTO


Choice: TypeAlias = ToolChoice | UseTool | AllowedTools


@frozen
class Declared(Lean):
    """A tool as one provider receives it: its wire schema, and whether it is sent strict."""

    name: str
    description: str
    projection: Projection
    strict: bool


@frozen
class OutputSpec(Lean):
    """Structured output as one provider receives it."""

    name: str
    projection: Projection
    strict: bool


@frozen
class Outgoing(Lean):
    """
    A checked request for one provider: results follow their turn in call order, each with its tool name.
    """

    model: str
    messages: tuple[Message, ...]
    tools: tuple[Declared, ...] = ()
    choice: Choice | None = None
    parallel: bool | None = None
    output: OutputSpec | None = None
    max_tokens: int | None = None
    temperature: Number | None = None
    top_p: Number | None = None
    stop: tuple[str, ...] = ()
    stream: bool = False


@frozen
class UnsupportedSetting(Described):
    """A request setting this provider's API cannot express."""

    setting: str
    provider: Provider
    reason: str

    def describe(self) -> str:
        """What cannot be sent, and why."""
        return f"{self.setting} cannot be sent to {self.provider.value}: {self.reason}"


@frozen
class InvalidReplay(Described):
    """An assistant turn whose replay data does not fit its provider or its calls."""

    index: int
    reason: str

    def describe(self) -> str:
        """Which message, and what is wrong with its replay data."""
        return f"message {self.index}: replay data {self.reason}"


EncodeError: TypeAlias = UnsupportedSetting | InvalidReplay


class ProviderLimit(enum.Enum):
    """A limit an API sets on the tools of one request (``ToolLimits``, and ``Wire.name_rule``)."""

    #: The most tools one request may declare.
    TOOLS = "tools"
    #: A tool name's characters and length (``Wire.name_rule``).
    NAME = "name"
    #: How deep a tool's wire schema may nest.
    SCHEMA_DEPTH = "schema_depth"
    #: ``anyOf``, ``oneOf`` or ``allOf`` at the root of a tool's wire schema.
    ROOT_COMBINATORS = "root_combinators"


@frozen
class ToolLimits(Lean):
    """
    What an API refuses in the tools of one request, beside its ``Wire.name_rule``: each figure as its
    documentation (or SDK) states it, the source in a comment where the wire sets it; ``None`` where the API
    documents no limit.
    """

    #: The most tools one request may declare.
    tools: int | None = None
    #: How deep a tool's wire schema may nest (``Projection.depth``).
    schema_depth: int | None = None
    #: The combinators the API refuses at the root of a tool's wire schema.
    root_combinators: frozenset[str] = frozenset()


@frozen
class OverProviderLimit(Described):
    """
    A request its provider is known to refuse, before it is sent: which limit of the wire's table, for which
    tool (``None``: the request as a whole), what the API takes and what the request has.
    """

    provider: Provider
    limit: ProviderLimit
    tool: str | None
    #: What the API takes: the most tools, the deepest nesting, or the name rule's pattern.
    allowed: int | str | None = None
    #: What the request has: the tools it declares, its schema's depth, or the combinator at the root.
    found: int | str | None = None

    def describe(self) -> str:
        """The limit, the provider and the figures; a tool's name (declared, not input), never a value."""
        api = self.provider.value
        match self.limit:
            case ProviderLimit.TOOLS:
                what = (
                    f"{api} takes at most {self.allowed} tools in one request; this one declares {self.found}"
                )
            case ProviderLimit.NAME:
                what = f"{api} takes only tool names matching {self.allowed}"
            case ProviderLimit.SCHEMA_DEPTH:
                most, nests = self.allowed, self.found
                what = f"{api} takes a tool schema nested at most {most} deep; this one nests {nests}"
            case ProviderLimit.ROOT_COMBINATORS:
                what = f"{api} refuses {self.found} at the root of a tool schema"
        where = "" if self.tool is None else f"tool {self.tool}: "
        return f"{where}{what} (limit {self.limit.value})"


@frozen
class Http(Lean):
    """
    Where an API lives and how it is authenticated: what the transport needs beside ``Wire.path``.
    """

    #: The API's own origin (``https://api.openai.com``); a client may override it.
    base_url: str = ""
    #: The header carrying the key (``authorization``, ``x-api-key``...).
    key_header: str = "authorization"
    #: Written before the key in that header (``Bearer `` for OpenAI).
    key_prefix: str = ""
    #: Environment variables a key is read from, in order.
    key_env: tuple[str, ...] = ()
    #: Headers every request carries (the API version).
    headers: tuple[tuple[str, str], ...] = ()


class DecoderFactory(Protocol):
    """
    Makes a fresh decoder for one response under ``limits``. A call the provider sends without an id gets
    one that no call of ``taken_ids`` (the ids in the request's history) holds: unique over a run.
    """

    def __call__(
        self, limits: ResponseLimits = ..., /, *, taken_ids: frozenset[str] = ...
    ) -> StreamDecoder: ...


def _stream_member(path: str, body: Value) -> bool:
    return isinstance(body, dict) and body.get("stream") is True


@frozen
class Speech(Lean):
    """
    An API as its server speaks it, for the local fake provider (``llm_wire.transport.fake``): which paths are
    its endpoints, whether a request asks for a stream, and a finished response or an error in its own words.
    """

    #: The endpoint paths (without their query), matched whole.
    route: re.Pattern[str]
    #: A finished response holding a text and calls, as one body: ``(text, calls, model)``.
    body: Callable[[str, Sequence[ToolCall], str], Value]
    #: The same response as SSE events, each ``(event name or None, data text)``, each call's arguments in
    #: deltas of ``piece`` characters: ``(text, calls, piece, model)``.
    events: Callable[[str, Sequence[ToolCall], int, str], list[tuple[str | None, str]]]
    #: An HTTP error's body: ``(status, message)``.
    error: Callable[[int, str], Value]
    #: Whether a request (its path and parsed body) asks for a stream; by default ``"stream": true``.
    streams: Callable[[str, Value], bool] = _stream_member


def _within_budget(strict: Sequence[Projection]) -> str | None:
    return None


#: The tool-name rule most APIs document (each wire states its own, with its source).
_NAME_RULE = re.compile(r"[a-zA-Z0-9_-]{1,64}")
#: A wire whose table states no limit.
_NO_LIMITS = ToolLimits()


@frozen
class Wire(Lean):
    """
    One API's wire: its projection profiles, request encoder, endpoint, response and error decoders, budgets,
    tool-name rule, command-line names, and its server's speech for the fake provider.
    """

    provider: Provider
    #: The schema dialect of non-strict tools.
    loose: Profile
    #: The strict dialect (strict tools, and structured output).
    strict: Profile
    #: ``Outgoing`` to the exact request body; ``Err`` for a setting or replay data the API cannot take.
    encode: Callable[[Outgoing], Result[Value, EncodeError]]
    #: The endpoint path for a model, streamed or not.
    path: Callable[[str, bool], str]
    #: A fresh decoder for one response under the given bounds (and the call ids already taken).
    decoder: DecoderFactory
    #: An HTTP error response (status, body, headers) as a ``ProviderError`` with retry advice.
    decode_error: Callable[[int, bytes | str | Value, _Headers | None], ProviderError]
    #: How the API's server speaks, for the local fake provider.
    speech: Speech
    #: The legacy dialect a configuration may choose instead of both (Gemini's OpenAPI ``parameters``).
    legacy: Profile | None = None
    #: Why strict projections together exceed the API's limits across one request, or ``None``.
    over_budget: Callable[[Sequence[Projection]], str | None] = _within_budget
    #: Structured output may go non-strict when its strict projection would change its meaning.
    loose_output: bool = False
    #: The ``max_tokens`` a default configuration sends when a request sets none (required by some APIs).
    default_max_tokens: int | None = None
    #: The API's origin, auth header, version headers and key variables.
    http: Http = Http()
    #: The API's rule for a tool name, as it documents it (``llm_wire.names`` reads every wire's).
    name_rule: re.Pattern[str] = _NAME_RULE
    #: Other names the command line and recorded exchanges give the API (``gemini`` for Google).
    aliases: tuple[str, ...] = ()
    #: What the API refuses in a request's tools (with ``name_rule``): ``prepare`` checks it before sending.
    limits: ToolLimits = _NO_LIMITS

    def tool_over_limit(self, name: str, projection: Projection) -> OverProviderLimit | None:
        """
        Why the API would refuse the tool ``name`` sent with ``projection`` (its name, its schema's depth or
        root), or ``None``. Reads the name and the projection's root and ``depth``: no walk of the schema.
        """
        if not self.name_rule.fullmatch(name):
            return OverProviderLimit(self.provider, ProviderLimit.NAME, name, self.name_rule.pattern)
        limits = self.limits
        if limits.schema_depth is not None and projection.depth > limits.schema_depth:
            return OverProviderLimit(
                self.provider, ProviderLimit.SCHEMA_DEPTH, name, limits.schema_depth, projection.depth
            )
        root = projection.wire_schema
        refused = limits.root_combinators
        if refused and isinstance(root, dict) and not refused.isdisjoint(root):
            first = min(key for key in root if key in refused)
            return OverProviderLimit(self.provider, ProviderLimit.ROOT_COMBINATORS, name, None, first)
        return None

    def request_over_limit(self, tools: int) -> OverProviderLimit | None:
        """Why the API would refuse a request declaring ``tools`` tools, or ``None``."""
        most = self.limits.tools
        if most is not None and tools > most:
            return OverProviderLimit(self.provider, ProviderLimit.TOOLS, None, most, tools)
        return None

    def profile(self, strict: bool, *, legacy: bool = False) -> Profile:
        """The dialect for a tool: the legacy one when asked for and the API has one, else strict or loose."""
        if legacy and self.legacy is not None:
            return self.legacy
        return self.strict if strict else self.loose

    def project_schema(
        self, schema: Schema, strict: bool, *, legacy: bool = False
    ) -> Result[Projection, ProjectionError]:
        """``schema`` in this API's dialect (``profile(strict, legacy=legacy)``)."""
        return _project.project_schema(schema, self.profile(strict, legacy=legacy))

    #: The old name, for one release (``llm_wire._deprecated.ALIASES``).
    project = _deprecated.renamed(project_schema, "llm_wire.providers.Wire.project")

    def decode_body(
        self, body: bytes | str | Value, limits: ResponseLimits = _DEFAULT_LIMITS
    ) -> Result[Terminal, ResponseError]:
        """A whole response body as a ``Terminal``; ``Err`` with a typed error for anything unusable."""
        return self.decoder(limits).decode_body(body)


class Wires(Mapping[Provider, Wire]):
    """
    A registry: each provider's ``Wire``, in order. Immutable: ``with_wire`` gives another registry. An entry
    given as a module's name (``"llm_wire.providers.anthropic"``) is that module's ``WIRE``, loaded on its
    first look-up, so a registry costs nothing at import for the wires a program never uses.
    """

    __slots__ = ("_entries",)

    def __init__(self, entries: Mapping[Provider, Wire | str]) -> None:
        for provider, entry in entries.items():
            if not isinstance(provider, Provider):
                raise TypeError(f"a registry's keys must be Providers, not {type(provider).__name__}")
            if not isinstance(entry, Wire | str):
                msg = f"a registry's entries must be Wires or module names, not {type(entry).__name__}"
                raise TypeError(msg)
        self._entries: Mapping[Provider, Wire | str] = MappingProxyType(dict(entries))

    def __getitem__(self, provider: Provider) -> Wire:
        entry = self._entries[provider]
        if isinstance(entry, Wire):
            return entry
        wire: Wire = (sys.modules.get(entry) or importlib.import_module(entry)).WIRE
        return wire

    def __iter__(self) -> Iterator[Provider]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, provider: object) -> bool:
        return provider in self._entries

    def __repr__(self) -> str:
        return f"WIRES({', '.join(provider.name for provider in self._entries)})"

    def with_wire(self, wire: Wire) -> Wires:
        """A registry holding this one's wires and ``wire`` (in place of the wire of its provider, if any)."""
        if not isinstance(wire, Wire):
            raise TypeError(f"wire must be a Wire, not {type(wire).__name__}")
        return Wires({**self._entries, wire.provider: wire})

    def named(self, name: str) -> Wire | None:
        """The wire whose provider value or alias is ``name`` (as the command line takes it), or ``None``."""
        for provider in self._entries:
            wire = self[provider]
            if name == provider.value or name in wire.aliases:
                return wire
        return None
