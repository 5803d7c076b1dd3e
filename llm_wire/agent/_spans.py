"""
A traced run's spans and log records (``RunTrace``): OpenTelemetry spans after the GenAI semantic conventions
for the run (``invoke_agent``), each model call (``chat {model}``) and each admitted tool call
(``execute_tool {tool}``), with admission issues, approvals, denials, retries, compensations, timeouts and
output projections as span events; and the same events on the ``llm_wire.agent`` logger at DEBUG.

Loaded only for a run that is traced or logged (``_tracing.begin``). OpenTelemetry is imported only when a
tracer was given (its caller has imported it already). No argument or result reaches a span unless
``content_bytes`` asks for it: then the arguments (secrets redacted as an approver sees them) and the text the
model sees, each cut to that many bytes. Log records never carry either.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from attrs import define

from llm_wire.admission import InvalidArguments, ToolCallIssue
from llm_wire.agent._steps import Planned, RunResult, StopReason
from llm_wire.agent._tool_outcome import ErrorCategory, ErrorCode, ToolOutcome
from llm_wire.agent.events import (
    ApprovalRequested,
    ModelCompleted,
    ModelStarted,
    RunEvent,
    ToolCompensated,
    ToolCompleted,
    ToolHeartbeat,
    ToolOutputProjectionFailed,
    ToolOutputTruncated,
    ToolRetrying,
    ToolStarted,
)
from llm_wire.message import Provider
from llm_wire.outcome import Answer, Failure, NeedsTools, OutputLimited, Refused
from llm_wire.value import render

if TYPE_CHECKING:
    from contextvars import Token

    from opentelemetry.context import Context
    from opentelemetry.trace import Span, Tracer

    from llm_wire._request import Prepared, Request
    from llm_wire.agent._control import RunState

__all__ = ["RunTrace"]

#: Debug records of every run event (the logger ``_execution`` warns on too).
LOG = logging.getLogger("llm_wire.agent")

#: ``gen_ai.provider.name`` of each built-in wire; another wire's provider keeps its own value.
_PROVIDER_NAMES = {
    Provider.OPENAI_RESPONSES: "openai",
    Provider.OPENAI_CHAT: "openai",
    Provider.ANTHROPIC: "anthropic",
    Provider.GOOGLE: "gcp.gemini",
}

#: Stops that are no error of the run: the model answered, or a person is asked to approve.
_CLEAN_STOPS = frozenset({StopReason.ANSWERED, StopReason.APPROVAL_REQUIRED})
_DENIALS = frozenset({ErrorCode.DENIED.value, ErrorCode.APPROVAL_DENIED.value})


def _cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` UTF-8 bytes, cut at a character boundary."""
    data = text.encode("utf-8", "surrogatepass")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


def _provider_name(provider: Provider) -> str:
    return _PROVIDER_NAMES.get(provider, provider.value)


@define
class _ToolSpan:
    """An admitted call's span, kept until its projection is known, and when its execution ended."""

    span: Span | None
    name: str
    ended_ns: int = 0


class RunTrace:
    """
    One run's spans and log records. The runner calls ``model_call`` before each model call, wraps each
    call's settling in ``tool``, hands every event to ``event``, and ends with ``ended`` and ``close``
    (through ``_tracing``, which makes it the task's active trace).
    """

    def __init__(
        self,
        tracer: Tracer | None,
        content_bytes: int,
        logged: bool,
        run: RunState,
        request: Request,
        provider: Provider,
    ) -> None:
        self._tracer = tracer
        self._content = content_bytes
        self._logged = logged
        self._run_id = run.run_id
        self._tools: dict[str, _ToolSpan] = {}
        self._pending: _ToolSpan | None = None
        self._chat: Span | None = None
        self._chat_token: Token[Context] | None = None
        self._span: Span | None = None
        self._context: Context | None = None
        self._token: Token[Context] | None = None
        self._ended = False
        #: The token of ``_tracing.ACTIVE`` set to this trace, for ``_tracing.close``.
        self.active: Token[RunTrace | None] | None = None
        if tracer is not None:
            from opentelemetry import context, trace

            self._span = tracer.start_span(
                "invoke_agent",
                kind=trace.SpanKind.INTERNAL,
                attributes={
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.provider.name": _provider_name(provider),
                    "gen_ai.request.model": request.model,
                    "llm_wire.run.id": run.run_id,
                },
            )
            self._context = trace.set_span_in_context(self._span)
            self._token = context.attach(self._context)
        self._log("run %s started", run.run_id)

    def _log(self, message: str, *args: object) -> None:
        if self._logged:
            LOG.debug(message, *args)

    # -- the model -------------------------------------------------------------------------------------

    def model_call(self, prepared: Prepared, round_: int) -> None:
        """A model call starts: its ``chat`` span, current while the model works."""
        self._end_pending()
        model = prepared.request.model
        self._log("run %s: model call %d to %s", self._run_id, round_, model)
        if self._tracer is None:
            return
        from opentelemetry import context, trace

        provider = _provider_name(prepared.provider)
        self._chat = self._tracer.start_span(
            f"chat {model}",
            context=self._context,
            kind=trace.SpanKind.CLIENT,
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": provider,
                "gen_ai.request.model": model,
            },
        )
        self._chat_token = context.attach(trace.set_span_in_context(self._chat, self._context))

    def _model_completed(self, event: ModelCompleted) -> None:
        outcome = event.outcome
        kind = type(outcome).__name__
        self._log("run %s: model call %d returned %s", self._run_id, event.round, kind)
        issues = outcome.issues if isinstance(outcome, NeedsTools) else ()
        for issue in issues:
            self._log("run %s: call %s refused by admission (%s)", self._run_id, issue.call_id, _kind(issue))
        chat = self._chat
        if chat is None:
            return
        usage = outcome.usage
        if usage is not None and usage.input_tokens is not None:
            chat.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
        if usage is not None and usage.output_tokens is not None:
            chat.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
        finish = _finish_reason(outcome)
        if finish is not None:
            chat.set_attribute("gen_ai.response.finish_reasons", (finish,))
        if isinstance(outcome, Failure):
            self._error(chat, type(outcome.error).__name__)
        for issue in issues:
            attributes = {"gen_ai.tool.call.id": issue.call_id, "llm_wire.issue": _kind(issue)}
            if isinstance(issue, InvalidArguments):  # a declared name; an unknown one is the model's text
                attributes["gen_ai.tool.name"] = issue.name
            chat.add_event("llm_wire.admission_issue", attributes)
        self._end_chat()

    def _end_chat(self, stop: str | None = None) -> None:
        chat, self._chat = self._chat, None
        if chat is None:
            return
        from opentelemetry import context

        if self._chat_token is not None:
            context.detach(self._chat_token)
        if stop is not None:
            self._error(chat, stop)
        chat.end()

    # -- tool calls ------------------------------------------------------------------------------------

    async def tool(self, planned: Planned, work: Awaitable[ToolOutcome]) -> ToolOutcome:
        """
        ``work``, the settling of an admitted call, under its ``execute_tool`` span (current while it runs);
        the span ends when the call's projection is known, at the time its execution ended.
        """
        admitted, descriptor = planned.admitted, planned.descriptor
        if admitted is None or descriptor is None:
            return await work
        call = planned.call
        span: Span | None = None
        token: Token[Context] | None = None
        if self._tracer is not None:
            from opentelemetry import context, trace

            attributes: dict[str, str] = {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": descriptor.name,
                "gen_ai.tool.call.id": call.id,
                "gen_ai.tool.type": "function",
            }
            if self._content:
                shown = render(descriptor.redact(admitted.arguments))
                attributes["gen_ai.tool.call.arguments"] = _cut(shown, self._content)
            span = self._tracer.start_span(
                f"execute_tool {descriptor.name}",
                context=self._context,
                kind=trace.SpanKind.INTERNAL,
                attributes=attributes,
            )
            token = context.attach(trace.set_span_in_context(span, self._context))
        record = _ToolSpan(span, descriptor.name)
        self._tools[call.id] = record
        try:
            outcome = await work
        except BaseException as exc:
            if span is not None:
                self._error(span, type(exc).__name__)
            raise
        finally:
            record.ended_ns = time.time_ns()
            if token is not None:
                from opentelemetry import context

                context.detach(token)
        self._settled(planned, record, outcome)
        return outcome

    def _settled(self, planned: Planned, record: _ToolSpan, outcome: ToolOutcome) -> None:
        failure = outcome.failure
        call_id = planned.call.id
        if failure is None:
            self._log("run %s: tool %s call %s succeeded", self._run_id, record.name, call_id)
            return
        denied = planned.preset is not None and failure.code in _DENIALS
        what = "denied" if denied else "failed"
        self._log("run %s: tool %s call %s %s (%s)", self._run_id, record.name, call_id, what, failure.code)
        span = record.span
        if span is None:
            return
        if denied:
            span.add_event("llm_wire.tool.denied", {"llm_wire.code": failure.code})
        elif failure.category is ErrorCategory.TIMEOUT:
            span.add_event("llm_wire.tool.timeout", {"llm_wire.code": failure.code})
        self._error(span, failure.code)

    def _end_pending(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None and pending.span is not None:
            pending.span.end(end_time=pending.ended_ns or None)

    # -- events ----------------------------------------------------------------------------------------

    def event(self, event: RunEvent) -> None:
        """Record one run event on its span and in the log."""
        pending = self._pending
        if pending is not None and not (
            isinstance(event, ToolOutputTruncated) and self._tools.get(event.call.id) is pending
        ):
            self._end_pending()
        match event:
            case ModelCompleted():
                self._model_completed(event)
            case ToolStarted(call=call, attempt=attempt):
                self._log(
                    "run %s: tool %s call %s attempt %d started", self._run_id, call.name, call.id, attempt
                )
            case ToolRetrying(call=call, attempt=attempt, delay=delay, outcome=failed):
                code = failed.failure.code if failed.failure is not None else "unknown"
                self._log(
                    "run %s: call %s attempt %d failed (%s), retry in %.3fs",
                    self._run_id,
                    call.id,
                    attempt,
                    code,
                    delay,
                )
                self._add(
                    call.id,
                    "llm_wire.tool.retry",
                    {"llm_wire.attempt": attempt, "llm_wire.delay_s": delay, "error.type": code},
                )
            case ToolCompensated(call=call, outcome=compensation):
                self._log("run %s: call %s compensated (ok: %s)", self._run_id, call.id, compensation.ok)
                self._add(call.id, "llm_wire.tool.compensated", {"llm_wire.ok": compensation.ok})
            case ToolHeartbeat(call=call):
                self._log("run %s: call %s heartbeat", self._run_id, call.id)
            case ApprovalRequested(request=asked):
                self._log(
                    "run %s: approval asked for tool %s call %s", self._run_id, asked.tool, asked.call_id
                )
                if self._span is not None:
                    self._span.add_event(
                        "llm_wire.approval_requested",
                        {"gen_ai.tool.name": asked.tool, "gen_ai.tool.call.id": asked.call_id},
                    )
            case ToolCompleted(call=call, message=message):
                self._log("run %s: call %s result sent to the model", self._run_id, call.id)
                record = self._tools.get(call.id)
                if record is not None:
                    if record.span is not None and self._content:
                        record.span.set_attribute("gen_ai.tool.call.result", _cut(message, self._content))
                    self._pending = record
            case ToolOutputTruncated(call=call, report=report):
                self._log(
                    "run %s: call %s output cut from %d to %d bytes",
                    self._run_id,
                    call.id,
                    report.original_bytes,
                    report.projected_bytes,
                )
                self._add(
                    call.id,
                    "llm_wire.tool.output_truncated",
                    {
                        "llm_wire.original_bytes": report.original_bytes,
                        "llm_wire.projected_bytes": report.projected_bytes,
                        "llm_wire.max_bytes": report.max_bytes,
                        "llm_wire.max_tokens": report.max_tokens,
                        "llm_wire.limiting_factor": report.limiting_factor.value,
                    },
                )
                self._end_pending()
            case ToolOutputProjectionFailed(call=call, error=error, code=code):
                self._log(
                    "run %s: call %s output could not be projected (%s)", self._run_id, call.id, error.name
                )
                record = self._tools.get(call.id)
                if record is not None and record.span is not None:
                    record.span.add_event(
                        "llm_wire.tool.output_projection_failed", {"error.type": error.name}
                    )
                    self._error(record.span, code)
                    self._pending = record
            case ModelStarted():
                pass  # ``model_call`` opened its span and logged it

    def _add(self, call_id: str, name: str, attributes: dict[str, Any]) -> None:
        record = self._tools.get(call_id)
        if record is not None and record.span is not None:
            record.span.add_event(name, attributes)

    # -- the end ---------------------------------------------------------------------------------------

    def ended(self, result: RunResult) -> None:
        """The run's result: its stop reason, rounds and token usage on the run span."""
        self._ended = True
        stop = result.stop
        self._log("run %s ended: %s after %d tool rounds", self._run_id, stop.value, result.rounds)
        span = self._span
        if span is None:
            return
        usage = result.total_usage
        span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
        span.set_attribute("llm_wire.stop_reason", stop.value)
        span.set_attribute("llm_wire.tool_rounds", result.rounds)
        if stop not in _CLEAN_STOPS:
            self._error(span, stop.value)
        self._end_chat(stop.value)

    def close(self) -> None:
        """End every span still open (a run that raised: with the exception's type); restore the context."""
        raised = sys.exc_info()[0]
        failure = None if self._ended or raised is None else raised.__name__
        self._end_pending()
        self._end_chat(failure or "abandoned")
        for record in self._tools.values():
            if record.span is not None and record.span.is_recording():
                record.span.end(end_time=record.ended_ns or None)
        span = self._span
        if span is None:
            return
        from opentelemetry import context

        if failure is not None:
            self._error(span, failure)
        if self._token is not None:
            context.detach(self._token)
        span.end()

    def _error(self, span: Span, kind: str) -> None:
        from opentelemetry.trace import Status, StatusCode

        span.set_attribute("error.type", kind)
        span.set_status(Status(StatusCode.ERROR))


def _kind(issue: ToolCallIssue) -> str:
    """``unknown_tool``, or the refused arguments' failure (``schema_rejected``...)."""
    return issue.failure.name if isinstance(issue, InvalidArguments) else "unknown_tool"


def _finish_reason(outcome: object) -> str | None:
    match outcome:
        case Answer():
            return "stop"
        case NeedsTools():
            return "tool_calls"
        case OutputLimited():
            return "length"
        case Refused(reason=reason):
            return str(reason.value)
    return None
