"""
Requests: a conversation with tools, checked once and encoded exactly for one provider.

Build a ``Request`` with the facade (``request``, ``user``, ``with_tools``, ``with_tool_choice`` ...; every
builder returns a copy), choose a ``Config`` for a provider, then ``prepare(config, request)``. It is pure:
it checks the settings, the tool names, each tool's schema against the provider (``Projection`` with its
losses), the history (every call answered once, every result answering a call of the turn before it) and
the body size, then returns the exact JSON body in a ``Prepared``, or a typed ``PrepareError``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Protocol, TypeAlias

from attrs import evolve, field, frozen

from llm_wire._config import Config, GoogleSchema, Limit, Strictness, config
from llm_wire._prepare_errors import (
    DuplicateCallId,
    DuplicateResult,
    DuplicateToolName,
    InvalidSetting,
    MissingResult,
    NotEncodable,
    OrphanResult,
    PrepareError,
    RequestTooLarge,
    UnknownToolChoice,
    UnsupportedOutput,
    UnsupportedSchema,
)
from llm_wire.message import (
    AssistantTurn,
    Message,
    Provider,
    SystemMessage,
    ToolCall,
    ToolResult,
    UserMessage,
)
from llm_wire.providers import (
    Choice,
    Declared,
    EncodeError,
    InvalidReplay,
    Number,
    Outgoing,
    OutputSpec,
    ToolChoice,
    UnsupportedSetting,
    UseTool,
    anthropic,
    google,
    openai_chat,
    openai_responses,
)
from llm_wire.providers.projection import Projection, ProjectionError, qualifies
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import Schema
from llm_wire.tool import Tool
from llm_wire.value import NotJson, Value, render

__all__ = [
    "Choice",
    "Config",
    "DuplicateCallId",
    "DuplicateResult",
    "DuplicateToolName",
    "GoogleSchema",
    "InvalidReplay",
    "InvalidSetting",
    "Limit",
    "MissingResult",
    "NotEncodable",
    "OrphanResult",
    "Output",
    "PrepareError",
    "Prepared",
    "Request",
    "RequestTooLarge",
    "Strictness",
    "ToolChoice",
    "UnknownToolChoice",
    "UnsupportedOutput",
    "UnsupportedSchema",
    "UnsupportedSetting",
    "UseTool",
    "append",
    "assistant",
    "config",
    "prepare",
    "request",
    "system",
    "tool_result",
    "user",
    "with_max_tokens",
    "with_output",
    "with_parallel_tool_calls",
    "with_stop",
    "with_temperature",
    "with_tool_choice",
    "with_tools",
    "with_top_p",
]


class CodecLike(Protocol):
    """What structured output needs from a codec: its schema (``None`` for a codec without one)."""

    @property
    def schema(self) -> Schema | None: ...


# ---------------------------------------------------------------------------------------------------------
# Requests and the facade.


@frozen
class Output:
    """Structured output: the reply must be JSON of ``codec``'s schema, named ``name`` on the wire."""

    name: str
    codec: CodecLike


@frozen
class Request:
    """
    A conversation to send: model, messages, tools, tool choice, structured output and settings.
    """

    model: str
    messages: tuple[Message, ...] = ()
    tools: tuple[Tool, ...] = ()
    #: ``None`` sends no choice (the provider's default, which is ``AUTO``).
    tool_choice: Choice | None = None
    parallel_tool_calls: bool | None = None
    output: Output | None = None
    max_tokens: int | None = None
    temperature: Number | None = None
    top_p: Number | None = None
    stop: tuple[str, ...] = ()


def request(model: str, messages: Iterable[Message] = ()) -> Request:
    """A request to ``model`` with ``messages``; no tools, default settings."""
    return Request(model, tuple(messages))


def system(text: str) -> SystemMessage:
    """Instructions for the model."""
    return SystemMessage(text)


def user(text: str) -> UserMessage:
    """A user message."""
    return UserMessage(text)


def assistant(turn_or_text: AssistantTurn | str) -> AssistantTurn:
    """A model turn: one returned by a provider (kept with its replay data), or text the application wrote."""
    return turn_or_text if isinstance(turn_or_text, AssistantTurn) else AssistantTurn(text=turn_or_text)


def tool_result(call: ToolCall, content: str, is_error: bool = False) -> ToolResult:
    """The answer to ``call``: text for the model, and whether it reports a failure."""
    return ToolResult(call.id, content, is_error, call.name)


def with_tools(req: Request, tools: Iterable[Tool]) -> Request:
    """A copy declaring exactly ``tools`` (replacing any declared before)."""
    return evolve(req, tools=tuple(tools))


def with_tool_choice(req: Request, choice: Choice) -> Request:
    """A copy with a tool choice: ``ToolChoice.AUTO``/``NONE``/``REQUIRED`` or ``UseTool(name)``."""
    return evolve(req, tool_choice=choice)


def with_parallel_tool_calls(req: Request, parallel: bool) -> Request:
    """A copy that allows (or forbids) several calls in one turn."""
    return evolve(req, parallel_tool_calls=parallel)


def with_output(req: Request, name: str, codec: CodecLike) -> Request:
    """A copy asking for structured output of ``codec``'s schema, named ``name`` on the wire."""
    return evolve(req, output=Output(name, codec))


def append(req: Request, *messages: Message) -> Request:
    """A copy with ``messages`` added to the conversation; tools, output and settings are kept."""
    return evolve(req, messages=(*req.messages, *messages))


def with_max_tokens(req: Request, max_tokens: int) -> Request:
    """A copy with a cap on generated tokens."""
    return evolve(req, max_tokens=max_tokens)


def with_temperature(req: Request, temperature: float | Decimal | int) -> Request:
    """A copy with a sampling temperature (a ``float`` is kept exactly as its shortest decimal form)."""
    return evolve(req, temperature=_exact(temperature))


def with_top_p(req: Request, top_p: float | Decimal | int) -> Request:
    """A copy with nucleus sampling ``top_p``."""
    return evolve(req, top_p=_exact(top_p))


def with_stop(req: Request, *stop: str) -> Request:
    """A copy with stop sequences."""
    return evolve(req, stop=stop)


def _exact(number: float | Decimal | int) -> Number:
    if isinstance(number, float):
        return Decimal(repr(number))
    return number


# ---------------------------------------------------------------------------------------------------------
# Prepare.


@frozen
class Prepared:
    """
    A request checked and encoded for one provider: the exact body, and what the response side needs
    (the tools, each tool's projection, the configuration).
    """

    config: Config
    request: Request
    body: Value
    #: The endpoint path; for Gemini it carries the model and the streaming method.
    path: str
    declared: tuple[Declared, ...]
    output: OutputSpec | None
    _text: str = field(alias="_text", repr=False)

    @property
    def provider(self) -> Provider:
        """The provider the body is for."""
        return self.config.provider

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The declared tools, in order."""
        return self.request.tools

    @property
    def projections(self) -> Mapping[str, Projection]:
        """Each tool's projection (its wire schema and losses), by tool name."""
        return {tool.name: tool.projection for tool in self.declared}

    @property
    def strict(self) -> Mapping[str, bool]:
        """Whether each tool was sent strict, by tool name."""
        return {tool.name: tool.strict for tool in self.declared}

    @property
    def adjust(self) -> Mapping[str, Callable[[Value], Value]]:
        """
        For admission and output decoding (``outcome.resolve(adjust=...)``): per tool name, and under the
        output's name, the function undoing its projection (``Projection.restore``).
        """
        undo = {tool.name: tool.projection.restore for tool in self.declared if tool.projection.nullable}
        if self.output is not None and self.output.projection.nullable:
            undo[self.output.name] = self.output.projection.restore
        return undo

    def body_json(self) -> str:
        """The body as compact JSON text, exactly as sent."""
        return self._text

    def body_bytes(self) -> bytes:
        """The body as UTF-8 bytes, exactly as sent."""
        return self._text.encode("utf-8")


_Projector: TypeAlias = Callable[[Schema, bool], Result[Projection, ProjectionError]]
_Encoder: TypeAlias = Callable[[Outgoing], Result[Value, EncodeError]]
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def prepare(config: Config, request: Request) -> Result[Prepared, PrepareError]:
    """
    Check ``request`` for ``config``'s provider and encode its exact body; the first problem is an ``Err``.
    """
    projector, encoder, path = _wire(config)
    problem = _settings(config, request)
    if problem is not None:
        return Err(problem)
    match _declare(config, request, projector):
        case Err() as failed:
            return failed
        case Ok(declared):
            pass
    match _output(config, request, projector):
        case Err() as failed:
            return failed
        case Ok(output):
            pass
    match _history(config, request.messages):
        case Err() as failed:
            return failed
        case Ok(messages):
            pass
    max_tokens = request.max_tokens if request.max_tokens is not None else config.default_max_tokens
    outgoing = Outgoing(
        model=request.model.strip(),
        messages=messages,
        tools=declared,
        choice=request.tool_choice,
        parallel=request.parallel_tool_calls,
        output=output,
        max_tokens=max_tokens,
        temperature=request.temperature,
        top_p=request.top_p,
        stop=request.stop,
        stream=config.stream,
    )
    match encoder(outgoing):
        case Err() as refused:
            return refused
        case Ok(body):
            pass
    try:
        text = render(body)
    except NotJson as bad:
        return Err(NotEncodable(bad.path, bad.problem))
    size = len(text.encode("utf-8"))
    if size > config.request_bytes:
        return Err(RequestTooLarge(Limit.REQUEST_BYTES, config.request_bytes, size))
    return Ok(
        Prepared(config, request, body, path(outgoing.model, config.stream), declared, output, _text=text)
    )


def _wire(config: Config) -> tuple[_Projector, _Encoder, Callable[[str, bool], str]]:
    match config.provider:
        case Provider.OPENAI_RESPONSES:
            return openai_responses.project, openai_responses.encode, openai_responses.path
        case Provider.OPENAI_CHAT:
            return openai_chat.project, openai_chat.encode, openai_chat.path
        case Provider.ANTHROPIC:
            return anthropic.project, anthropic.encode, anthropic.path
        case Provider.GOOGLE:
            openapi = config.google_schema is GoogleSchema.OPENAPI

            def project(schema: Schema, strict: bool) -> Result[Projection, ProjectionError]:
                return google.project(schema, strict, openapi=openapi)

            return project, google.encode, google.path


def _settings(config: Config, request: Request) -> PrepareError | None:
    if not request.model.strip():
        return InvalidSetting("model", "must not be empty")
    for limit in Limit:
        value = config.limit(limit)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            return InvalidSetting(f"limit {limit.value}", "must be a positive integer")
    for name, count in (
        ("max_tokens", request.max_tokens),
        ("default_max_tokens", config.default_max_tokens),
    ):
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count <= 0):
            return InvalidSetting(name, "must be a positive integer")
    for name, number, top in (("temperature", request.temperature, None), ("top_p", request.top_p, 1)):
        if number is None:
            continue
        if (
            isinstance(number, bool)
            or not isinstance(number, int | Decimal)
            or not Decimal(number).is_finite()
        ):
            return InvalidSetting(name, "must be a finite number")
        if number < 0 or (top is not None and number > top):
            return InvalidSetting(name, "must be between 0 and 1" if top else "must not be negative")
    if any(not isinstance(stop, str) or not stop for stop in request.stop):
        return InvalidSetting("stop", "sequences must be non-empty strings")
    if request.output is not None:
        if not _NAME.fullmatch(request.output.name):
            return InvalidSetting("output name", "must be 1 to 64 characters of a-z, A-Z, 0-9, _ and -")
        if any(tool.name == request.output.name for tool in request.tools):
            return InvalidSetting("output name", "must differ from every tool name")
    return None


def _declare(
    config: Config, request: Request, projector: _Projector
) -> Result[tuple[Declared, ...], PrepareError]:
    seen: set[str] = set()
    declared: list[Declared] = []
    budget = anthropic.over_budget if config.provider is Provider.ANTHROPIC else None
    for tool in request.tools:
        if tool.name in seen:
            return Err(DuplicateToolName(tool.name))
        seen.add(tool.name)
        match _project_tool(config.strict, tool.schema, projector):
            case Err(problem):
                return Err(UnsupportedSchema(tool.name, problem))
            case Ok((projection, strict)):
                pass
        if strict and budget is not None:
            over = budget([*(d.projection for d in declared if d.strict), projection])
            if over is not None and config.strict is Strictness.ON:
                return Err(InvalidSetting("strict tools", f"exceed the provider's limits: {over}"))
            if over is not None:
                match projector(tool.schema, False):
                    case Err(problem):
                        return Err(UnsupportedSchema(tool.name, problem))
                    case Ok(projection):
                        strict = False
        declared.append(Declared(tool.name, tool.description, projection, strict))
    choice = request.tool_choice
    if isinstance(choice, UseTool) and choice.name not in seen:
        return Err(UnknownToolChoice(choice.name))
    if choice in (ToolChoice.REQUIRED,) and not seen:
        return Err(InvalidSetting("tool_choice", "requires a tool but none is declared"))
    return Ok(tuple(declared))


def _project_tool(
    strictness: Strictness, schema: Schema, projector: _Projector
) -> Result[tuple[Projection, bool], ProjectionError]:
    if strictness is not Strictness.OFF:
        match projector(schema, True):
            case Ok(projection) if strictness is Strictness.ON or qualifies(projection):
                return Ok((projection, True))
            case Err() as failed if strictness is Strictness.ON:
                return failed
    match projector(schema, False):
        case Ok(projection):
            return Ok((projection, False))
        case Err() as failed:
            return failed


def _output(
    config: Config, request: Request, projector: _Projector
) -> Result[OutputSpec | None, PrepareError]:
    output = request.output
    if output is None:
        return Ok(None)
    schema = output.codec.schema
    if schema is None:
        return Err(UnsupportedOutput(output.name, None))
    strict = projector(schema, True)
    if config.provider in (Provider.OPENAI_RESPONSES, Provider.OPENAI_CHAT):
        if isinstance(strict, Ok) and qualifies(strict.value):
            return Ok(OutputSpec(output.name, strict.value, True))
        strict = projector(schema, False)
        if isinstance(strict, Ok):
            return Ok(OutputSpec(output.name, strict.value, False))
    match strict:
        case Ok(projection):
            return Ok(OutputSpec(output.name, projection, True))
        case Err(problem):
            return Err(UnsupportedOutput(output.name, problem))


def _history(config: Config, messages: Sequence[Message]) -> Result[tuple[Message, ...], PrepareError]:
    """The history with each turn's results in call order (and named); ``Err`` for a broken pairing."""
    checked: list[Message] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        if isinstance(message, ToolResult):
            return Err(OrphanResult(index, message.call_id))
        checked.append(message)
        index += 1
        if not isinstance(message, AssistantTurn) or not message.calls:
            continue
        turn = index - 1
        problem = _turn(config, message, turn)
        if problem is not None:
            return Err(problem)
        calls = {call.id: call for call in message.calls}
        answers: dict[str, ToolResult] = {}
        while index < len(messages) and isinstance(messages[index], ToolResult):
            result = messages[index]
            assert isinstance(result, ToolResult)
            if result.call_id not in calls:
                return Err(OrphanResult(index, result.call_id))
            if result.call_id in answers:
                return Err(DuplicateResult(index, result.call_id))
            answers[result.call_id] = result
            index += 1
        for call in message.calls:
            answer = answers.get(call.id)
            if answer is None:
                return Err(MissingResult(turn, call.id, call.name))
            checked.append(evolve(answer, name=call.name))
    return Ok(tuple(checked))


def _turn(config: Config, turn: AssistantTurn, index: int) -> PrepareError | None:
    if len(turn.calls) > config.calls_per_turn:
        return RequestTooLarge(Limit.CALLS_PER_TURN, config.calls_per_turn, len(turn.calls))
    seen: set[str] = set()
    total = 0
    for call in turn.calls:
        if call.id in seen:
            return DuplicateCallId(index, call.id)
        seen.add(call.id)
        size = len(call.arguments_json.encode("utf-8", "surrogatepass"))
        if size > config.argument_bytes_per_call:
            return RequestTooLarge(Limit.ARGUMENT_BYTES_PER_CALL, config.argument_bytes_per_call, size)
        total += size
    if total > config.total_argument_bytes:
        return RequestTooLarge(Limit.TOTAL_ARGUMENT_BYTES, config.total_argument_bytes, total)
    return None
