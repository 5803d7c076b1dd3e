"""
Configuration for one provider: its wire, tool-call checks, limits, strict tools and the wire's dialect.

``Config`` is immutable; each ``with_*`` method returns a copy. ``config(provider)`` makes the default one
for any provider of a registry (``WIRES``, or one passed as ``wires``), with its wire's defaults; it holds
that wire, so ``prepare`` and everything after it read the wire from the configuration. ``prepare`` checks
its limits and reads its choices; ``Config.admission_limits`` and ``Config.response_limits`` give the bounds
a response is held to (``Prepared`` carries both). Public through ``llm_wire`` (``llm_wire.Config``,
``llm_wire.config``, ``Limit``, ``Strictness``).
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from attrs import Factory, evolve, field, frozen

from llm_wire._fast import Lean
from llm_wire.admission import AdmissionLimits
from llm_wire.message import Provider
from llm_wire.providers import WIRES, Wire, Wires
from llm_wire.providers.response import ResponseLimits
from llm_wire.tool import ToolCallChecks

if TYPE_CHECKING:
    from llm_wire.providers.google import GoogleSchema

__all__ = ["Config", "Limit", "Strictness", "config"]


class Limit(enum.Enum):
    """A configurable bound; ``Config.with_limit`` raises it."""

    REQUEST_BYTES = "request_bytes"
    ARGUMENT_BYTES_PER_CALL = "argument_bytes_per_call"
    TOTAL_ARGUMENT_BYTES = "total_argument_bytes"
    CALLS_PER_TURN = "calls_per_turn"
    RESPONSE_BYTES = "response_bytes"
    EVENT_BYTES = "event_bytes"


class Strictness(enum.Enum):
    """Whether tools are sent in the provider's strict dialect."""

    #: Never strict: the schema goes as it is, less only what the provider refuses.
    OFF = "off"
    #: Every tool strict; a schema the strict dialect cannot express fails ``prepare``.
    ON = "on"
    #: Strict for each tool whose strict projection keeps its meaning (only rewrites), else non-strict.
    AUTO = "auto"


def _registered(config: Config) -> Wire:
    return WIRES[config.provider]


@frozen
class Config(Lean):
    """
    How to talk to one provider: its wire, tool-call checks, limits, strict tools, and the wire's dialect.

    Make one with ``config(provider)`` (any registered provider) or ``Config.openai_responses()`` (and the
    other constructors of the built-in APIs).
    """

    provider: Provider
    checks: ToolCallChecks = ToolCallChecks.REJECT
    strict: Strictness = Strictness.OFF
    #: Tools and output go in the wire's legacy dialect, where it has one (Gemini's OpenAPI ``parameters``).
    legacy_schema: bool = False
    stream: bool = False
    #: Sent when the request sets no ``max_tokens`` (the provider's ``Wire.default_max_tokens`` by default).
    default_max_tokens: int | None = None
    request_bytes: int = 1024 * 1024
    argument_bytes_per_call: int = 1024 * 1024
    total_argument_bytes: int = 4 * 1024 * 1024
    calls_per_turn: int = 64
    response_bytes: int = 8 * 1024 * 1024
    event_bytes: int = 1024 * 1024
    #: The wire ``prepare`` encodes with: by default the one ``WIRES`` holds for ``provider``.
    wire: Wire = field(default=Factory(_registered, takes_self=True), repr=False)

    def __attrs_post_init__(self) -> None:
        if self.wire.provider != self.provider:
            raise ValueError("Config.wire must be the wire of Config.provider")

    @classmethod
    def openai_responses(cls) -> Config:
        """OpenAI Responses API."""
        return config(Provider.OPENAI_RESPONSES)

    @classmethod
    def openai_chat(cls) -> Config:
        """OpenAI Chat Completions."""
        return config(Provider.OPENAI_CHAT)

    @classmethod
    def anthropic(cls) -> Config:
        """Anthropic Messages; sends ``max_tokens`` 4096 when the request sets none."""
        return config(Provider.ANTHROPIC)

    @classmethod
    def google(cls) -> Config:
        """Google Gemini GenerateContent."""
        return config(Provider.GOOGLE)

    def with_tool_call_checks(self, checks: ToolCallChecks) -> Config:
        """A copy with the policy for bad calls (``REJECT`` fails the response, ``REPORT`` lists issues)."""
        return evolve(self, checks=checks)

    def with_limit(self, limit: Limit, value: int) -> Config:
        """A copy with ``limit`` set to ``value`` (checked by ``prepare``: it must be positive)."""
        changes: dict[str, object] = {limit.value: value}
        return evolve(self, **changes)  # type: ignore[arg-type]

    def limit(self, limit: Limit) -> int:
        """The value of ``limit``."""
        value: int = getattr(self, limit.value)
        return value

    def with_strict_tools(self, strict: Strictness | bool) -> Config:
        """A copy sending tools strict (``True``/``ON``), never (``False``/``OFF``), or where lossless."""
        if isinstance(strict, bool):
            strict = Strictness.ON if strict else Strictness.OFF
        return evolve(self, strict=strict)

    def with_legacy_schema(self, legacy: bool) -> Config:
        """A copy sending tools and output in the wire's legacy dialect (``True``), where it has one."""
        return evolve(self, legacy_schema=legacy)

    @property
    def google_schema(self) -> GoogleSchema:
        """Where a Gemini function declaration carries its schema: ``legacy_schema`` in Gemini's words."""
        from llm_wire.providers.google import GoogleSchema

        return GoogleSchema.OPENAPI if self.legacy_schema else GoogleSchema.JSON_SCHEMA

    def with_google_schema(self, where: GoogleSchema) -> Config:
        """A copy choosing Gemini's ``parametersJsonSchema`` (default) or legacy OpenAPI ``parameters``."""
        from llm_wire.providers.google import GoogleSchema

        return evolve(self, legacy_schema=where is GoogleSchema.OPENAPI)

    def with_stream(self, stream: bool) -> Config:
        """A copy asking for an SSE stream instead of one body."""
        return evolve(self, stream=stream)

    def with_default_max_tokens(self, max_tokens: int | None) -> Config:
        """A copy with the ``max_tokens`` sent when a request sets none."""
        return evolve(self, default_max_tokens=max_tokens)

    def admission_limits(self) -> AdmissionLimits:
        """The bounds admission enforces on the calls of a response."""
        return AdmissionLimits(self.calls_per_turn, self.argument_bytes_per_call, self.total_argument_bytes)

    def response_limits(self) -> ResponseLimits:
        """The bounds a response decoder enforces: its size, one event, and the argument bytes."""
        return ResponseLimits(
            argument_bytes_per_call=self.argument_bytes_per_call,
            total_argument_bytes=self.total_argument_bytes,
            event_bytes=self.event_bytes,
            line_bytes=self.event_bytes,
            response_body_bytes=self.response_bytes,
            settings=_RAISED_BY,
        )


#: The ``Config`` setting that raises each ``ResponseLimits`` field ``response_limits`` fills in.
_RAISED_BY = {
    "argument_bytes_per_call": "Config.with_limit(Limit.ARGUMENT_BYTES_PER_CALL, n)",
    "total_argument_bytes": "Config.with_limit(Limit.TOTAL_ARGUMENT_BYTES, n)",
    "event_bytes": "Config.with_limit(Limit.EVENT_BYTES, n)",
    "line_bytes": "Config.with_limit(Limit.EVENT_BYTES, n)",
    "response_body_bytes": "Config.with_limit(Limit.RESPONSE_BYTES, n)",
}


def config(provider: Provider, *, wires: Wires = WIRES) -> Config:
    """
    The default configuration for ``provider``, holding its wire from ``wires`` (the built-in APIs unless
    given) and that wire's default ``max_tokens``; ``KeyError`` for a provider the registry does not hold.
    """
    wire = wires[provider]
    return Config(provider, default_max_tokens=wire.default_max_tokens, wire=wire)
