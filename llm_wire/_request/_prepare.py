"""
Prepare: a request checked once for one provider and encoded exactly, carrying what its response needs.

``prepare(config, request)`` is pure: it checks the settings, the tool names, each tool's schema against the
provider (``Projection`` with its losses), the provider's limits (``Wire.limits`` and ``Wire.name_rule``, from
the tool count, each name and each projection's root and depth: no walk of a schema), the history (every call
answered once, every result answering a call of the turn before it) and the body size, then returns the exact
JSON body in a ``Prepared``, or a typed ``PrepareError``. Everything provider-specific comes from the
configuration's ``Wire``. ``Prepared`` closes the round trip: it makes the response's decoder under the
configured bounds, and carries the declared tools, checks, admission limits, restore functions and output tool
that ``outcome.resolve`` needs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import TypeAlias

from attrs import evolve, field, frozen

from llm_wire._fast import Lean
from llm_wire._request._choice import choice_problem, choice_type_problem
from llm_wire._request._config import Config, Limit, Strictness
from llm_wire._request._errors import (
    DuplicateCallId,
    DuplicateResult,
    DuplicateToolName,
    EmptyConversation,
    InvalidSetting,
    MissingResult,
    NotEncodable,
    OrphanResult,
    PrepareError,
    RequestTooLarge,
    UnsupportedOutput,
    UnsupportedSchema,
)
from llm_wire._request._model import Output, Request
from llm_wire._request._wired import projected
from llm_wire.admission import AdmissionLimits
from llm_wire.message import AssistantTurn, Message, Provider, ToolResult
from llm_wire.providers import Declared, Outgoing, OutputSpec, Wire
from llm_wire.providers.projection import Projection, ProjectionError
from llm_wire.providers.response import ResponseError, ResponseLimits, StreamDecoder, Terminal
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import Schema
from llm_wire.tool import Tool, ToolCallChecks, new
from llm_wire.value import NotJson, Value
from llm_wire.value._render import render_with

__all__ = ["Prepared", "prepare"]

#: A tool name to the function undoing its projection on parsed arguments.
Adjust: TypeAlias = Mapping[str, Callable[[Value], Value]]


@frozen
class Prepared(Lean):
    """
    A request checked and encoded for one provider: the exact body, and everything its response needs (the
    wire, the bounds, the declared tools by name, the checks, the restore functions, the output tool).
    """

    config: Config
    request: Request
    wire: Wire = field(repr=False)
    body: Value = field(repr=False)
    #: The endpoint path; for Gemini it carries the model and the streaming method.
    path: str
    declared: tuple[Declared, ...] = field(repr=False)
    output: OutputSpec | None = field(repr=False)
    #: The declared tools by name, as admission takes them.
    tools: Mapping[str, Tool] = field(repr=False)
    #: Structured output declared as a tool of its own (its contract compiled once), or ``None``.
    output_tool: Tool | None = field(repr=False)
    #: Per tool name, and under the output name, the function undoing its projection (``Projection.restore``).
    adjust: Adjust = field(repr=False)
    admission_limits: AdmissionLimits = field(repr=False)
    response_limits: ResponseLimits = field(repr=False)
    _text: str = field(alias="_text", repr=False)

    @property
    def provider(self) -> Provider:
        """The provider the body is for."""
        return self.wire.provider

    @property
    def checks(self) -> ToolCallChecks:
        """What a bad call does to the response (``REJECT`` fails it, ``REPORT`` lists issues)."""
        return self.config.checks

    @property
    def projections(self) -> Mapping[str, Projection]:
        """Each tool's projection (its wire schema and losses), by tool name."""
        return {tool.name: tool.projection for tool in self.declared}

    @property
    def strict(self) -> Mapping[str, bool]:
        """Whether each tool was sent strict, by tool name."""
        return {tool.name: tool.strict for tool in self.declared}

    def body_json(self) -> str:
        """The body as compact JSON text, exactly as sent."""
        return self._text

    def body_bytes(self) -> bytes:
        """The body as UTF-8 bytes, exactly as sent."""
        return self._text.encode("utf-8")

    def decoder(self) -> StreamDecoder:
        """
        A fresh decoder for this request's response (a stream, or ``decode_body``) under its bounds. An id
        it gives a call the provider sent without one is used by no call of the history.
        """
        return self.wire.decoder(self.response_limits, taken_ids=_call_ids(self.request.messages))

    def decode_body(self, body: bytes | str | Value) -> Result[Terminal, ResponseError]:
        """
        This request's whole response body as a ``Terminal``; ``Err`` with a typed error if unusable.
        ``TypeError`` when ``body`` is neither bytes, text nor a JSON value.
        """
        return self.decoder().decode_body(body)


def _call_ids(messages: Sequence[Message]) -> frozenset[str]:
    """The ids of every call in ``messages``."""
    return frozenset(
        call.id for message in messages if isinstance(message, AssistantTurn) for call in message.calls
    )


_Projector: TypeAlias = Callable[[Schema, bool], Result[Projection, ProjectionError]]
#: A tool's projection in a dialect, from the cache (``_wired``), with its wire schema's text.
_ToolProjector: TypeAlias = Callable[[Tool, bool], "tuple[Result[Projection, ProjectionError], str | None]"]
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def prepare(config: Config, request: Request) -> Result[Prepared, PrepareError]:
    """
    Check ``request`` for ``config``'s provider and encode its exact body; the first problem is an ``Err``.
    ``TypeError`` names the argument (or the message or tool) that is not of its type.
    """
    _check_types(config, request)
    wire = config.wire
    legacy = config.legacy_schema

    def projector(schema: Schema, strict: bool) -> Result[Projection, ProjectionError]:
        return wire.project_schema(schema, strict, legacy=legacy)

    problem = _settings(config, request)
    if problem is not None:
        return Err(problem)
    fragments: dict[int, tuple[object, str]] = {}

    def tool_projector(tool: Tool, strict: bool) -> tuple[Result[Projection, ProjectionError], str | None]:
        wired = projected(tool, wire.profile(strict, legacy=legacy))
        return wired.result, wired.text

    match _declare(config, request, wire, tool_projector, fragments):
        case Err() as failed:
            return failed
        case Ok(declared):
            pass
    output: OutputSpec | None = None
    output_tool: Tool | None = None
    if request.output is not None:
        match _output(request.output, wire, projector):
            case Err() as failed:
                return failed
            case Ok(output):
                output_tool = new(request.output.name, "The structured output.", request.output.codec)
    if not request.messages:
        return Err(EmptyConversation())
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
    match wire.encode(outgoing):
        case Err() as refused:
            return refused
        case Ok(body):
            pass
    try:
        text = render_with(body, fragments)
    except NotJson as bad:
        return Err(NotEncodable(bad.path, bad.problem))
    size = len(text) if text.isascii() else len(text.encode("utf-8"))
    if size > config.request_bytes:
        return Err(RequestTooLarge(Limit.REQUEST_BYTES, config.request_bytes, size))
    adjust = {tool.name: tool.projection.restore for tool in declared if tool.projection.nullable}
    if output is not None and output.projection.nullable:
        adjust[output.name] = output.projection.restore
    return Ok(
        Prepared(
            config,
            request,
            wire,
            body,
            wire.path(outgoing.model, config.stream),
            declared,
            output,
            {tool.name: tool for tool in request.tools},
            output_tool,
            adjust,
            config.admission_limits(),
            config.response_limits(),
            _text=text,
        )
    )


def _check_types(config: Config, request: Request) -> None:
    """Raise ``TypeError`` naming the first argument, message, tool or choice of the wrong Python type."""
    problem = None
    if not isinstance(config, Config):
        problem = f"config must be a Config, not {type(config).__name__}"
    elif not isinstance(request, Request):
        problem = f"request must be a Request, not {type(request).__name__}"
    else:
        found = [
            f"request.messages[{n}] must be a Message, not {type(m).__name__}"
            for n, m in enumerate(request.messages)
            if not isinstance(m, Message)
        ]
        found += [
            f"request.tools[{n}] must be a Tool, not {type(t).__name__}"
            for n, t in enumerate(request.tools)
            if not isinstance(t, Tool)
        ]
        choice = choice_type_problem(request.tool_choice)
        if choice is not None:
            found.append(choice)
        if request.output is not None and not isinstance(request.output, Output):
            found.append(f"request.output must be an Output, not {type(request.output).__name__}")
        problem = found[0] if found else None
    if problem is not None:
        raise TypeError(problem)


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
    config: Config,
    request: Request,
    wire: Wire,
    projector: _ToolProjector,
    fragments: dict[int, tuple[object, str]],
) -> Result[tuple[Declared, ...], PrepareError]:
    """
    Each tool as the wire declares it; ``fragments`` gets each wire schema's text, for ``render_with``.
    """
    over_limit = wire.request_over_limit(len(request.tools))
    if over_limit is not None:
        return Err(over_limit)
    seen: set[str] = set()
    declared: list[Declared] = []
    for tool in request.tools:
        if tool.name in seen:
            return Err(DuplicateToolName(tool.name))
        seen.add(tool.name)
        match _project_tool(config.strict, tool, projector):
            case Err(problem):
                return Err(UnsupportedSchema(tool.name, problem))
            case Ok((projection, strict, text)):
                pass
        if strict:
            over = wire.over_budget([*(d.projection for d in declared if d.strict), projection])
            if over is not None and config.strict is Strictness.ON:
                return Err(InvalidSetting("strict tools", f"exceed the provider's limits: {over}"))
            if over is not None:
                loose, text = projector(tool, False)
                match loose:
                    case Err(problem):
                        return Err(UnsupportedSchema(tool.name, problem))
                    case Ok(projection):
                        strict = False
        over_limit = wire.tool_over_limit(tool.name, projection)
        if over_limit is not None:
            return Err(over_limit)
        if text is not None:
            fragments[id(projection.wire_schema)] = (projection.wire_schema, text)
        declared.append(Declared(tool.name, tool.description, projection, strict))
    refused = choice_problem(request.tool_choice, seen)
    if refused is not None:
        return Err(refused)
    return Ok(tuple(declared))


def _project_tool(
    strictness: Strictness, tool: Tool, projector: _ToolProjector
) -> Result[tuple[Projection, bool, str | None], ProjectionError]:
    if strictness is not Strictness.OFF:
        result, text = projector(tool, True)
        match result:
            case Ok(projection) if strictness is Strictness.ON or projection.qualifies:
                return Ok((projection, True, text))
            case Err() as failed if strictness is Strictness.ON:
                return failed
    result, text = projector(tool, False)
    match result:
        case Ok(projection):
            return Ok((projection, False, text))
        case Err() as failed:
            return failed


def _output(output: Output, wire: Wire, projector: _Projector) -> Result[OutputSpec, PrepareError]:
    schema = output.codec.schema
    if schema is None:
        return Err(UnsupportedOutput(output.name, None))
    strict = projector(schema, True)
    if wire.loose_output:
        if isinstance(strict, Ok) and strict.value.qualifies:
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
