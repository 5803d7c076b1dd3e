"""
What a provider's response decodes to: the terminal shape, stream progress, bounds and typed errors.

A response, whole body or SSE stream, reduces to a ``Terminal``: the text, the calls in provider order
(``llm_wire.message.ToolCall``, argument text byte-exact where the provider sends text), calls that never
finished (``PartialCall``, kept apart and never callable), why the response ended, usage, the response id and
the provider's replay data. A stream also yields ``Progress`` as it goes. Failures are values:

::

    ResponseError
    ├── ProtocolError(detail)                     the provider broke its protocol
    ├── LimitExceeded(setting, limit, measured)   a ``ResponseLimits`` bound was reached
    └── ProviderError(kind, status, code, retry)  the provider refused the request or failed the response

``StreamDecoder`` is what every API's decoder does (``Wire.decoder(limits)`` makes one;
``Prepared.decoder()`` makes one for a prepared request).
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Annotated, Protocol, TypeAlias, runtime_checkable

from attrs import field, frozen

from llm_wire import codec
from llm_wire._checks import positive_int as _positive_int
from llm_wire._described import Described as _Described
from llm_wire._fast import Lean as _Lean
from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.message import AssistantTurn, Provider, ToolCall
from llm_wire.result import Result
from llm_wire.sse import Event
from llm_wire.value import Value

__all__ = [
    "ArgumentsDelta",
    "ErrorKind",
    "FinishReason",
    "PartialCall",
    "Progress",
    "ProviderError",
    "ResponseError",
    "ResponseLimits",
    "RetryAdvice",
    "StreamDecoder",
    "Terminal",
    "TextDelta",
    "ToolCallStarted",
    "Usage",
]

#: The longest provider code, type or reason a text echoes (the typed field keeps it whole).
_TOKEN_CHARS = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]+")


def _token(text: str) -> str:
    """
    A provider's code, type or finish reason as it may appear in a text: each run of characters outside
    ``[A-Za-z0-9_.:-]`` becomes ``_``, and the result is cut to ``_TOKEN_CHARS`` (marked ``...``).
    """
    safe = _UNSAFE.sub("_", text)
    return safe if len(safe) <= _TOKEN_CHARS else f"{safe[: _TOKEN_CHARS - 3]}..."


class FinishReason(enum.Enum):
    """Why a response ended, in one vocabulary for every provider."""

    STOP = "stop"
    TOOL_CALLS = "tool_calls"
    LENGTH = "length"
    CONTENT_FILTER = "content_filter"
    REFUSAL = "refusal"


@frozen
class Usage(_Lean):
    """
    Token counts as the provider reported them; ``raw`` keeps the provider's whole usage object.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    raw: Value = field(default=None, eq=False, hash=False)


@frozen
class PartialCall(_Lean):
    """
    A call that never finished (a stream cut mid-arguments, a call still open at the end). Never callable.
    """

    id: str
    name: str
    #: The argument text received so far; usually not valid JSON.
    arguments_text: str


@functools.cache
def _persisted_provider() -> codec.Codec[Provider]:
    """
    How a record derived with ``codec.derive`` (a durable run's rounds) persists a provider: its value, for
    the built-in APIs, as when ``Provider`` was an enum. Built when a derived record first reads its hints.
    """
    return codec.enum_of({provider.value: provider for provider in Provider})


@frozen
class Terminal(_Lean):
    """
    A finished response from any provider, before admission.
    """

    provider: Annotated[Provider, codec.meta(codec=_persisted_provider())]
    finish: FinishReason
    text: str = ""
    #: Complete calls in provider order.
    calls: tuple[ToolCall, ...] = ()
    #: Calls that never finished; only a cut response (length, content filter, refusal) may have them.
    incomplete: tuple[PartialCall, ...] = ()
    refusal: str | None = None
    usage: Usage | None = None
    response_id: str | None = None
    #: The provider's own output list (items, blocks or parts) when replay needs more than text and calls.
    provider_data: Value = field(default=None, eq=False, hash=False)
    #: The provider's own finish reason, as sent.
    finish_detail: str | None = None

    @property
    def turn(self) -> AssistantTurn:
        """The assistant turn to append to the conversation."""
        return AssistantTurn(self.text, self.calls, self.provider, self.response_id, self.provider_data)


@frozen
class TextDelta(_Lean):
    """A piece of answer text."""

    text: str


@frozen
class ToolCallStarted(_Lean):
    """The model started a call; arguments follow as ``ArgumentsDelta``."""

    call_id: str
    name: str


@frozen
class ArgumentsDelta(_Lean):
    """A piece of a call's argument text, keyed by the call id. Progress only: never a callable call."""

    call_id: str
    text: str


Progress: TypeAlias = TextDelta | ToolCallStarted | ArgumentsDelta


_positive = _positive_int()


_MIB = 1024 * 1024


@frozen
class ResponseLimits(_Lean):
    """
    Bounds on one response. Each field is also the stable ``limit`` name of the ``LimitExceeded`` it raises.
    """

    argument_bytes_per_call: int = field(default=_MIB, validator=_positive)
    total_argument_bytes: int = field(default=4 * _MIB, validator=_positive)
    #: Output items, content blocks or calls in one response.
    active_blocks: int = field(default=64, validator=_positive)
    #: Answer text and refusal text together.
    total_text_bytes: int = field(default=4 * _MIB, validator=_positive)
    #: One SSE event (its data is also parsed with this byte cap).
    event_bytes: int = field(default=_MIB, validator=_positive)
    line_bytes: int = field(default=_MIB, validator=_positive)
    #: A whole body, or all event data of a stream.
    response_body_bytes: int = field(default=8 * _MIB, validator=_positive)
    #: How a caller raises a field when these bounds come from elsewhere (``Config.with_limit``), by field
    #: name; a field not listed is raised with ``ResponseLimits(<field>=)``.
    settings: Mapping[str, str] = field(factory=dict, eq=False, hash=False, repr=False)

    def setting(self, limit: str) -> str:
        """How a caller raises the field named ``limit``."""
        return self.settings.get(limit) or f"ResponseLimits({limit}=)"


_DEFAULT_LIMITS = ResponseLimits()


class ErrorKind(enum.Enum):
    """What kind of failure a provider reported."""

    INVALID_REQUEST = "invalid_request"
    AUTHENTICATION = "authentication"
    PERMISSION = "permission"
    NOT_FOUND = "not_found"
    REQUEST_TOO_LARGE = "request_too_large"
    RATE_LIMITED = "rate_limited"
    OVERLOADED = "overloaded"
    SERVER = "server"
    TIMEOUT = "timeout"
    #: The provider accepted the request but the model did not produce a usable response.
    RESPONSE_FAILED = "response_failed"
    UNKNOWN = "unknown"


@frozen
class RetryAdvice(_Lean):
    """
    Whether sending the same request again may succeed, and when the provider asked to be tried again.
    """

    retryable: bool
    #: ``Retry-After`` seconds, ``retry-after-ms``, or Gemini's ``RetryInfo.retryDelay``.
    delay: timedelta | None = None
    #: ``Retry-After`` given as an HTTP date.
    at: datetime | None = None


@frozen
class ProviderError(_Described):
    """
    The provider refused the request or failed the response: an HTTP error body or an error event.

    ``message`` is the provider's own text; it may quote the request, so ``describe`` leaves it out.
    """

    kind: ErrorKind
    #: The HTTP status; ``None`` for an error met inside a response or stream.
    status: int | None
    #: The provider's error type or code (``rate_limit_error``, ``RESOURCE_EXHAUSTED``, ``MAX_TOKENS``…).
    code: str | None
    retry: RetryAdvice
    message: str | None = field(default=None, eq=False)
    request_id: str | None = field(default=None, eq=False)

    @property
    def name(self) -> str:
        """``provider.<kind>``."""
        return f"provider.{self.kind.value}"

    def describe(self) -> str:
        """Kind, status, code (bounded, ``token``) and retry advice as text; never the provider's message."""
        parts = [f"provider error: {self.kind.value}"]
        if self.status is not None:
            parts.append(f"HTTP {self.status}")
        if self.code:
            parts.append(_token(self.code))
        advice = "retryable" if self.retry.retryable else "not retryable"
        if self.retry.delay is not None:
            advice += f" after {self.retry.delay.total_seconds():g}s"
        elif self.retry.at is not None:
            advice += f" at {self.retry.at.isoformat()}"
        return f"{', '.join(parts)} ({advice})"


ResponseError: TypeAlias = ProtocolError | LimitExceeded | ProviderError

#: Response headers: a mapping (any key case) or name/value pairs.
_Headers: TypeAlias = Mapping[str, str] | Iterable[tuple[str, str]]


@runtime_checkable
class StreamDecoder(Protocol):
    """
    Decodes one response from its SSE events into ``Progress`` and, at the end, a ``Terminal``.

    Feed it framed ``sse.Event``s (``feed``), raw body chunks (``feed_bytes``, framed inside) or parsed event
    payloads (``feed_json``); then call ``finish``. The first error ends the stream: every later call
    returns it again. Nothing raises on any input. ``decode_body`` decodes a whole body instead.
    """

    @property
    def provider(self) -> Provider:
        """The API this decoder reads."""
        ...

    @property
    def completed(self) -> bool:
        """Whether the provider's final event arrived (a failure after it cost a whole response)."""
        ...

    @property
    def partial_output(self) -> bool:
        """Whether any progress (text or argument deltas) was yielded."""
        ...

    @property
    def text(self) -> str:
        """The answer text received so far."""
        ...

    @property
    def usage(self) -> Usage | None:
        """The last usage the provider reported."""
        ...

    def feed(self, event: Event) -> Result[list[Progress], ResponseError]:
        """Decode one framed event."""
        ...

    def feed_json(self, data: Value, event: str | None = None) -> Result[list[Progress], ResponseError]:
        """Decode one event whose data is already parsed."""
        ...

    def feed_bytes(self, chunk: bytes | str) -> Result[list[Progress], ResponseError]:
        """Frame a chunk of the raw body and decode the events it completes."""
        ...

    def finish(self) -> Result[Terminal, ResponseError]:
        """The terminal; ``Err(ProtocolError)`` if the stream ended before the provider's final event."""
        ...

    def decode_body(self, body: bytes | str | Value) -> Result[Terminal, ResponseError]:
        """Decode a whole (non-streamed) response body."""
        ...
