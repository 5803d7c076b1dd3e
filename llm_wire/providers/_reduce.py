"""
The reducer skeleton the four API decoders share: reading provider JSON, accumulating one response, and
driving a stream or a body to its ``Terminal``.

``Reducer`` implements ``response.StreamDecoder``; an API module subclasses it and only says what each of its
events means (``_event``, ``_body``, ``_complete``), through the readers here and a ``Builder``. ``Fail``
stops a reducer with a typed error and never leaves this package.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from decimal import Decimal
from typing import NoReturn

from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.message import Provider, ToolCall
from llm_wire.providers.response import (
    _DEFAULT_LIMITS,
    ArgumentsDelta,
    FinishReason,
    PartialCall,
    Progress,
    ResponseError,
    ResponseLimits,
    Terminal,
    TextDelta,
    ToolCallStarted,
    Usage,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.sse import Event, Framer
from llm_wire.value import DEFAULT, Limits, NotJson, ParseError, Value, is_limit_exceeded, render
from llm_wire.value._parse import parse_value

__all__ = [
    "Builder",
    "Call",
    "Fail",
    "Reducer",
    "array",
    "flag",
    "index_member",
    "integer",
    "json_text",
    "member",
    "obj",
    "over",
    "protocol",
    "string",
]

_LIMIT_TEXT = {
    "argument_bytes_per_call": "argument bytes of one call",
    "total_argument_bytes": "argument bytes of all calls",
    "active_blocks": "number of output items, blocks or calls",
    "total_text_bytes": "bytes of answer and refusal text",
    "event_bytes": "bytes of one SSE event",
    "line_bytes": "bytes of one SSE line",
    "response_body_bytes": "bytes of the response",
}


def over(limits: ResponseLimits, limit: str, measured: int | None) -> LimitExceeded:
    """The error for the ``ResponseLimits`` field ``limit`` passed, naming the setting that raises it."""
    value: int = getattr(limits, limit)
    return LimitExceeded(limits.setting(limit), value, measured, what=_LIMIT_TEXT.get(limit, limit))


#: The Python types a parsed JSON value may have at its top (``value.render`` checks the rest).
_VALUES = (type(None), bool, int, float, Decimal, str, list, dict)


class Fail(Exception):
    """Stops a reducer with a typed error; never leaves this package."""

    def __init__(self, error: ResponseError) -> None:
        super().__init__(error)
        self.error = error


def protocol(detail: str) -> NoReturn:
    """Stop the reducer with ``ProtocolError(detail)``."""
    raise Fail(ProtocolError(detail))


def member(container: Value, key: str) -> Value:
    """``container[key]`` when ``container`` is an object, else ``None``."""
    return container.get(key) if isinstance(container, dict) else None


def string(container: Value, key: str, what: str) -> str | None:
    """A string member, ``None`` when absent or null; any other type is a protocol violation."""
    found = member(container, key)
    return found if found is None or isinstance(found, str) else protocol(f"{what} must be a string")


def obj(container: Value, key: str, what: str) -> dict[str, Value] | None:
    """An object member, ``None`` when absent or null."""
    found = member(container, key)
    return found if found is None or isinstance(found, dict) else protocol(f"{what} must be an object")


def array(container: Value, key: str, what: str) -> list[Value]:
    """An array member, empty when absent or null."""
    found = member(container, key)
    if found is None:
        return []
    return found if isinstance(found, list) else protocol(f"{what} must be an array")


def integer(container: Value, key: str) -> int | None:
    """An integer member, ``None`` when absent or of another type (usage counts are advisory)."""
    found = member(container, key)
    return found if isinstance(found, int) and not isinstance(found, bool) else None


def flag(container: Value, key: str) -> bool:
    """A boolean member, ``False`` when absent or null; any other type is a protocol violation."""
    found = member(container, key)
    if found is None:
        return False
    return found if isinstance(found, bool) else protocol(f"{key} must be a boolean")


def index_member(container: Value, key: str, what: str) -> int | None:
    """An index member, ``None`` when absent or null; a member of another type is a protocol violation."""
    found = member(container, key)
    if found is None:
        return None
    return (
        found
        if isinstance(found, int) and not isinstance(found, bool)
        else protocol(f"{what} is not an integer")
    )


def json_text(value: Value, what: str) -> str:
    """``value`` as exact compact JSON text."""
    try:
        return render(value)
    except NotJson:
        protocol(f"{what} is not a JSON value")


class Call:
    """A call being received."""

    __slots__ = ("caller", "done", "id", "name", "namespace", "parts", "provider_id", "size", "state")

    def __init__(
        self,
        call_id: str,
        name: str,
        provider_id: str | None,
        state: Value,
        namespace: str | None = None,
        caller: Value = None,
    ) -> None:
        self.id = call_id
        self.name = name
        self.provider_id = provider_id
        self.state = state
        self.namespace = namespace
        self.caller = caller
        self.parts: list[str] = []
        self.size = 0
        self.done = False

    @property
    def text(self) -> str:
        """The argument text so far."""
        return "".join(self.parts)


class Builder:
    """Accumulates one response: text, calls by routing key, usage, replay items and pending progress."""

    def __init__(self, provider: Provider, limits: ResponseLimits) -> None:
        self.provider = provider
        self.limits = limits
        self.text_parts: list[str] = []
        self.refusal_parts: list[str] = []
        self.text_bytes = 0
        self.calls: dict[object, Call] = {}
        self.ids: set[str] = set()
        self.argument_bytes = 0
        self.blocks = 0
        self.response_id: str | None = None
        self.usage: Usage | None = None
        self.items: list[Value] = []
        self.replay = False
        self.progress: list[Progress] = []

    def block(self) -> None:
        """Count one output item, content block or call against ``active_blocks``."""
        self.blocks += 1
        if self.blocks > self.limits.active_blocks:
            raise Fail(over(self.limits, "active_blocks", self.blocks))

    def text(self, piece: str, *, refusal: bool = False) -> None:
        """Add answer (or refusal) text."""
        if not piece:
            return
        self.text_bytes += len(piece.encode("utf-8", "surrogatepass"))
        if self.text_bytes > self.limits.total_text_bytes:
            raise Fail(over(self.limits, "total_text_bytes", self.text_bytes))
        if refusal:
            self.refusal_parts.append(piece)
        else:
            self.text_parts.append(piece)
            self.progress.append(TextDelta(piece))

    def open_call(
        self,
        key: object,
        call_id: str | None,
        name: str | None,
        *,
        provider_id: str | None = None,
        state: Value = None,
        namespace: str | None = None,
        caller: Value = None,
    ) -> Call:
        """Start a call routed by ``key``; ids must be present and unique, names present."""
        if key in self.calls:
            protocol("two calls share one routing key")
        if not call_id:
            protocol("a tool call has no id")
        if not name:
            protocol("a tool call has no name")
        if call_id in self.ids:
            protocol("two calls share one call id")
        self.ids.add(call_id)
        call = self.calls[key] = Call(call_id, name, provider_id, state, namespace, caller)
        self.progress.append(ToolCallStarted(call_id, name))
        return call

    def append(self, call: Call, delta: str) -> None:
        """Add argument text to a call, within the per-call and total bounds."""
        if call.done:
            protocol("argument text arrived after its call completed")
        if not delta:
            return
        size = len(delta) if delta.isascii() else len(delta.encode("utf-8", "surrogatepass"))
        self.grow(call, size)
        call.parts.append(delta)
        self.progress.append(ArgumentsDelta(call.id, delta))

    def grow(self, call: Call, size: int) -> None:
        """Count ``size`` more argument bytes for ``call``."""
        call.size += size
        self.argument_bytes += size
        if call.size > self.limits.argument_bytes_per_call:
            raise Fail(over(self.limits, "argument_bytes_per_call", call.size))
        if self.argument_bytes > self.limits.total_argument_bytes:
            raise Fail(over(self.limits, "total_argument_bytes", self.argument_bytes))

    def settle(self, call: Call, whole: str) -> None:
        """The provider repeated the whole argument text: take it if nothing streamed, else it must agree."""
        if not call.parts:
            self.append(call, whole)
        elif call.text != whole:
            protocol("the repeated argument text differs from the streamed deltas")

    def terminal(self, finish: FinishReason, detail: str | None) -> Terminal:
        """The finished response; open calls are an error unless the output was cut for length."""
        complete = tuple(
            ToolCall(c.id, c.name, c.text, c.provider_id, c.state, c.namespace, c.caller)
            for c in self.calls.values()
            if c.done
        )
        open_calls = tuple(PartialCall(c.id, c.name, c.text) for c in self.calls.values() if not c.done)
        if open_calls and finish in (FinishReason.STOP, FinishReason.TOOL_CALLS):
            protocol("a tool call was still open when the response ended")
        if finish is FinishReason.STOP and complete:
            finish = FinishReason.TOOL_CALLS
        if finish is FinishReason.TOOL_CALLS and not complete:
            protocol("the response stopped for tool calls but holds none")
        refusal = "".join(self.refusal_parts) if self.refusal_parts else None
        if finish is FinishReason.STOP and refusal is not None:
            finish = FinishReason.REFUSAL
        return Terminal(
            provider=self.provider,
            finish=finish,
            text="".join(self.text_parts),
            calls=complete,
            incomplete=open_calls,
            refusal=refusal,
            usage=self.usage,
            response_id=self.response_id,
            provider_data=list(self.items) if self.replay else None,
            finish_detail=detail,
        )


class Reducer:
    """
    The shared ``response.StreamDecoder``: framing, bounds, the first-error latch and the body path. A
    subclass sets ``provider`` and fills in the three hooks.
    """

    provider: Provider

    def __init__(
        self, limits: ResponseLimits = _DEFAULT_LIMITS, *, taken_ids: frozenset[str] = frozenset()
    ) -> None:
        if not isinstance(taken_ids, frozenset):
            msg = f"taken_ids must be a frozenset, not {type(taken_ids).__name__}"
            raise TypeError(msg)
        self._limits = limits
        # The call ids the request's history holds: an id this decoder gives a call never repeats one.
        self._taken_ids = taken_ids
        # The parse limits of one event, built once per decoder (the shared default when they equal it).
        self._event_limits = _limits(limits.event_bytes)
        self._b = Builder(self.provider, limits)
        self._framer: Framer | None = None
        # The framer decodes as the SSE standard says, with replacement characters; a call's arguments must
        # never carry one, so the raw stream is checked to be UTF-8 on the way in.
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self._utf8_pending = False
        self._error: ResponseError | None = None
        self._ended = False
        self._bytes = 0
        self._progressed = False

    @property
    def completed(self) -> bool:
        """Whether the provider's final event arrived (a failure after it cost a whole response)."""
        return self._ended

    @property
    def partial_output(self) -> bool:
        """Whether any progress (text or argument deltas) was yielded."""
        return self._progressed

    @property
    def text(self) -> str:
        """The answer text received so far."""
        return "".join(self._b.text_parts)

    @property
    def usage(self) -> Usage | None:
        """The last usage the provider reported."""
        return self._b.usage

    def feed(self, event: Event) -> Result[list[Progress], ResponseError]:
        """Decode one framed event."""
        if not isinstance(event, Event):
            msg = f"event must be an Event, not {type(event).__name__}"
            raise TypeError(msg)
        return self._guard(lambda: self._raw(event.event, event.data))

    def feed_json(self, data: Value, event: str | None = None) -> Result[list[Progress], ResponseError]:
        """Decode one event whose data is already parsed (``data`` may be the text ``[DONE]``)."""
        if not isinstance(data, _VALUES):
            msg = f"data must be a JSON value, not {type(data).__name__}"
            raise TypeError(msg)
        if event is not None and not isinstance(event, str):
            msg = f"event must be a str or None, not {type(event).__name__}"
            raise TypeError(msg)
        return self._guard(lambda: self._event(event, data))

    def feed_bytes(self, chunk: bytes | str) -> Result[list[Progress], ResponseError]:
        """Frame a chunk of the raw body and decode the events it completes."""
        if not isinstance(chunk, bytes | bytearray | str):
            msg = f"chunk must be bytes or str, not {type(chunk).__name__}"
            raise TypeError(msg)
        if self._error is not None:
            return Err(self._error)
        if self._framer is None:
            self._framer = Framer(
                max_line_bytes=self._limits.line_bytes, max_event_bytes=self._limits.event_bytes
            )
        if isinstance(chunk, str):
            raw = chunk.encode("utf-8", "surrogatepass")
        else:
            raw = chunk if type(chunk) is bytes else bytes(chunk)
        # Every byte of the body counts against the bound (comment lines and field names too), once.
        self._bytes += len(raw)
        if self._bytes > self._limits.response_body_bytes:
            self._error = over(self._limits, "response_body_bytes", self._bytes)
            return Err(self._error)
        if self._utf8_pending or not raw.isascii():
            failed = self._not_utf8(raw)
            if failed is not None:
                return failed
        return self._events(self._framer.feed(raw), self._framer)

    def finish(self) -> Result[Terminal, ResponseError]:
        """The terminal; ``Err(ProtocolError)`` if the stream ended before the provider's final event."""
        if self._framer is not None and self._error is None:
            framer, self._framer = self._framer, None
            failed = self._not_utf8(b"", final=True)
            if failed is not None:
                return failed
            match self._events(framer.finish(), framer):
                case Err(error):
                    return Err(error)
                case Ok():
                    pass
            last = framer.unclosed
            if last is not None and not self._ended:
                match self._guard(lambda: self._closing(last)):
                    case Err(error):
                        return Err(error)
                    case Ok():
                        pass
        if self._error is not None:
            return Err(self._error)
        try:
            if not self._ended:
                protocol("the stream ended before the response finished")
            return Ok(self._complete())
        except Fail as fail:
            self._error = fail.error
            return Err(fail.error)

    def decode_body(self, body: bytes | str | Value) -> Result[Terminal, ResponseError]:
        """Decode a whole (non-streamed) response body with the same reducer."""
        if not isinstance(body, (bytes, bytearray, *_VALUES)):
            msg = f"body must be bytes, str or a JSON value, not {type(body).__name__}"
            raise TypeError(msg)

        def whole() -> None:
            if isinstance(body, bytes | bytearray | str):
                text = bytes(body) if isinstance(body, bytearray) else body
                self._body(
                    _read(
                        text,
                        self._limits.response_body_bytes,
                        self._limits,
                        "response_body_bytes",
                        "the body",
                    )
                )
            else:
                self._body(body)

        match self._guard(whole):
            case Err() as failed:
                return failed
            case Ok():
                return self.finish()

    # Hooks a provider module fills in.

    def _event(self, name: str | None, data: Value) -> None:
        raise NotImplementedError

    def _body(self, body: Value) -> None:
        raise NotImplementedError

    def _complete(self) -> Terminal:
        raise NotImplementedError

    # Shared machinery.

    def _not_utf8(self, raw: bytes, *, final: bool = False) -> Err[ResponseError] | None:
        """The error when the raw stream so far is not UTF-8 (a sequence cut at a chunk end waits)."""
        try:
            self._utf8.decode(raw, final)
        except UnicodeDecodeError:
            self._error = ProtocolError("the stream is not valid UTF-8")
            return Err(self._error)
        self._utf8_pending = bool(self._utf8.getstate()[0])
        return None

    def _end(self) -> None:
        """Mark the provider's final event as seen."""
        self._ended = True

    def _not_ended(self) -> None:
        if self._ended:
            protocol("an event arrived after the response finished")

    def _parse(self, data: str) -> Value:
        parsed = parse_value(data, self._event_limits)
        if isinstance(parsed, ParseError):
            _refuse(data, parsed, self._limits, "event_bytes", "an event")
        return parsed

    def _raw(self, name: str | None, data: str) -> None:
        self._count(data)
        self._event(name, self._parse(data))

    def _count(self, data: str) -> None:
        self._bytes += len(data) if data.isascii() else len(data.encode("utf-8", "surrogatepass"))
        if self._bytes > self._limits.response_body_bytes:
            raise Fail(over(self._limits, "response_body_bytes", self._bytes))

    def _closing(self, last: Event) -> None:
        """
        The event a stream ended inside, without its blank line: taken when it is whole JSON and the
        provider's final event (as the official SDKs take it); a cut one leaves the stream unfinished.
        """
        try:
            data = self._parse(last.data)
        except Fail:
            protocol("the stream ended before the response finished")
        self._event(last.event, data)
        if not self._ended:
            protocol("the stream ended before the response finished")

    def _events(
        self, framed: Result[list[Event], LimitExceeded], framer: Framer
    ) -> Result[list[Progress], ResponseError]:
        if framer.ignored_lines and self._error is None:
            # A stray byte before "data:" (or a line cut by a stray CR) hides a whole event from the
            # standard's framing; no provider sends such lines, so the stream is refused, not read short.
            self._error = ProtocolError("the stream has a line with no SSE field (data, event, id or retry)")
            return Err(self._error)
        if isinstance(framed, Err):
            # The framer names its own parameter; name the bound a caller of this decoder raises.
            error: ResponseError = framed.error
            limit = framed.error.setting.removeprefix("Framer(max_").removesuffix("=)")
            if limit in ("event_bytes", "line_bytes"):
                error = over(self._limits, limit, framed.error.measured)
            self._error = error
            return Err(error)
        events = framed.value
        # ``feed`` for each event, in one guard: progress is yielded per chunk, and counts as yielded for
        # ``partial_output`` once its event is decoded, as when each event is fed alone.
        if self._error is not None:
            return Err(self._error)
        b = self._b
        decode, parse = self._event, self._parse
        decoded = len(b.progress)
        try:
            # Framed from ``feed_bytes``, whose bytes are counted already.
            for event in events:
                decode(event.event, parse(event.data))
                decoded = len(b.progress)
        except Fail as fail:
            self._progressed = self._progressed or decoded > 0
            self._error = fail.error
            return Err(fail.error)
        progress, b.progress = b.progress, []
        self._progressed = self._progressed or bool(progress)
        return Ok(progress)

    def _guard(self, step: Callable[[], None]) -> Result[list[Progress], ResponseError]:
        if self._error is not None:
            return Err(self._error)
        try:
            step()
        except Fail as fail:
            self._error = fail.error
            return Err(fail.error)
        progress, self._b.progress = self._b.progress, []
        self._progressed = self._progressed or bool(progress)
        return Ok(progress)


def _limits(max_bytes: int) -> Limits:
    """The parse limits of a document of up to ``max_bytes``: ``value.DEFAULT`` when they equal it."""
    limits = Limits(max_bytes=max_bytes)
    return DEFAULT if limits == DEFAULT else limits


def _read(text: bytes | str, max_bytes: int, limits: ResponseLimits, limit: str, what: str) -> Value:
    """``text`` parsed under a byte cap: over it is ``LimitExceeded(limit)``, bad JSON a protocol error."""
    parsed = parse_value(text, _limits(max_bytes))
    if isinstance(parsed, ParseError):
        _refuse(text, parsed, limits, limit, what)
    return parsed


def _refuse(text: bytes | str, error: ParseError, limits: ResponseLimits, limit: str, what: str) -> NoReturn:
    """Stop on a refused document: over the byte cap is ``LimitExceeded(limit)``, else a protocol error."""
    if is_limit_exceeded(error) and getattr(error.reason, "setting", "") == "Limits.with_max_bytes":
        size = len(text.encode("utf-8", "surrogatepass")) if isinstance(text, str) else len(text)
        raise Fail(over(limits, limit, size))
    protocol(f"{what} is not JSON: {error.describe()}")
