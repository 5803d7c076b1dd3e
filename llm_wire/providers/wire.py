"""
A provider wire as data: what ``prepare`` hands an API module, and the ``Wire`` record each module ends with.

``llm_wire.prepare`` checks a request once, provider-neutrally (tool names, schemas, history pairing, sizes),
then hands the provider's ``Wire.encode`` an ``Outgoing`` record: the checked history, each tool with its
``Projection``, the tool choice and the generation settings; ``encode`` writes the exact JSON body or refuses
with an ``EncodeError``. A ``Wire`` holds everything that differs between APIs, as data and functions (like
referencing's ``Specification``): the projection profiles, the encoder, the endpoint (``Http``: base URL,
auth header, API version headers, key variables), the response decoder, the error decoder and the budgets.
Shared code reads a ``Wire``; it never branches on the provider.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Protocol, TypeAlias

from attrs import frozen

from llm_wire._fast import Lean
from llm_wire.message import Message, Provider
from llm_wire.providers import _project
from llm_wire.providers.projection import Profile, Projection, ProjectionError
from llm_wire.providers.response import (
    DEFAULT_LIMITS,
    Headers,
    ProviderError,
    ResponseError,
    ResponseLimits,
    StreamDecoder,
    Terminal,
)
from llm_wire.result import Result
from llm_wire.schema import Schema
from llm_wire.value import Value

__all__ = [
    "Choice",
    "DecoderFactory",
    "Declared",
    "EncodeError",
    "Http",
    "InvalidReplay",
    "Number",
    "Outgoing",
    "OutputSpec",
    "ToolChoice",
    "UnsupportedSetting",
    "UseTool",
    "Wire",
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


Choice: TypeAlias = ToolChoice | UseTool


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
class UnsupportedSetting(Lean):
    """A request setting this provider's API cannot express."""

    setting: str
    provider: Provider
    reason: str

    def describe(self) -> str:
        """What cannot be sent, and why."""
        return f"{self.setting} cannot be sent to {self.provider.value}: {self.reason}"

    def __str__(self) -> str:
        return self.describe()


@frozen
class InvalidReplay(Lean):
    """An assistant turn whose replay data does not fit its provider or its calls."""

    index: int
    reason: str

    def describe(self) -> str:
        """Which message, and what is wrong with its replay data."""
        return f"message {self.index}: replay data {self.reason}"

    def __str__(self) -> str:
        return self.describe()


EncodeError: TypeAlias = UnsupportedSetting | InvalidReplay


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


def _within_budget(strict: Sequence[Projection]) -> str | None:
    return None


@frozen
class Wire(Lean):
    """
    One API's wire: its projection profiles, request encoder, endpoint, response and error decoders, budgets.
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
    decode_error: Callable[[int, bytes | str | Value, Headers | None], ProviderError]
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

    def profile(self, strict: bool, *, legacy: bool = False) -> Profile:
        """The dialect for a tool: the legacy one when asked for and the API has one, else strict or loose."""
        if legacy and self.legacy is not None:
            return self.legacy
        return self.strict if strict else self.loose

    def project(
        self, schema: Schema, strict: bool, *, legacy: bool = False
    ) -> Result[Projection, ProjectionError]:
        """``schema`` in this API's dialect (``profile(strict, legacy=legacy)``)."""
        return _project.project(schema, self.profile(strict, legacy=legacy))

    def decode_body(
        self, body: bytes | str | Value, limits: ResponseLimits = DEFAULT_LIMITS
    ) -> Result[Terminal, ResponseError]:
        """A whole response body as a ``Terminal``; ``Err`` with a typed error for anything unusable."""
        return self.decoder(limits).decode_body(body)
