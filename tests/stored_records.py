"""
The records behind the files in ``tests/fixtures/``: run records, conversations and model rounds, by hand.

The fixture files were written from these values by the code of an earlier ``main``
(``tests/fixtures/README.md`` says which and how); ``tests/test_fixtures.py`` reads each file with today's
code and compares.
Every value here is spelled out, nothing is computed by the code that reads the files.
"""

from __future__ import annotations

from decimal import Decimal

from llm_wire import Prepared, codec, config, prepare, request, tool, user
from llm_wire.agent import ErrorCategory, ToolFailure, ToolOutcome
from llm_wire.agent.projection import LimitingFactor, ProjectionMethod, ProjectionPolicy, ProjectionReport
from llm_wire.agent.store import (
    AdmittedResult,
    ApprovalDecision,
    ApprovalState,
    Continuation,
    ProjectionAudit,
    RecordEvent,
    RecordEventKind,
    RunRecord,
    RunStatus,
    StartedCall,
    StoredResult,
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
from llm_wire.providers.response import FinishReason, PartialCall, Terminal, Usage
from llm_wire.result import unwrap
from llm_wire.value import Value

# ---------------------------------------------------------------------------------------------------------
# Run records: every status, every event kind, started and admitted calls, audits, approvals, continuations
# and stored results.

#: ``at`` times: one exact in binary, one that is not (its shortest repr must come back).
AT = 1767225600.125
LATER = 1767225601.1

TRUNCATED = ProjectionReport(
    truncated=True,
    original_bytes=5000,
    projected_bytes=1020,
    original_estimated_tokens=1250,
    projected_estimated_tokens=255,
    max_bytes=1024,
    max_tokens=256,
    limiting_factor=LimitingFactor.BYTES_AND_TOKENS,
    method=ProjectionMethod.PREVIEW,
)
VERBATIM = ProjectionReport(
    truncated=False,
    original_bytes=5,
    projected_bytes=5,
    original_estimated_tokens=2,
    projected_estimated_tokens=2,
    max_bytes=65536,
    max_tokens=10000,
    limiting_factor=LimitingFactor.NONE,
    method=ProjectionMethod.VERBATIM,
)
TRUNCATED_SHA = "b22d4f5d7b19f2a68f530c256c954c495251ee568a3aa63c24d502c87a3c0bdd"
VERBATIM_SHA = "c2333a7e3a607935c67c1e6f6810395decc9f66f592b812aaada7db94ba215d6"

SUCCESS = ToolOutcome(
    "sunny",
    {
        "city": "Paris",
        "celsius": Decimal("21.5"),
        "hourly": [1, 2, None],
        "ok": True,
        "exact": Decimal("1E+2"),
    },
    None,
    ("artifact://forecast/1",),
    "v7",
    False,
    "",
    {"latency_ms": "12"},
)
FAILURE = ToolOutcome(
    "t" * 5000,
    None,
    ToolFailure(
        ErrorCategory.RATE_LIMITED,
        "busy",
        "t" * 5000,
        True,
        {"after": 3, "path": ["a", 0], "why": "quota"},
        2.5,
    ),
    (),
    None,
    True,
    "undo-7",
    {},
)
PLAIN_FAILURE = ToolOutcome.failed(ErrorCategory.TIMEOUT, "timeout", "the tool did not finish in time")


def _event(sequence: int, kind: RecordEventKind, data: dict[str, Value], at: float = AT) -> RecordEvent:
    return RecordEvent(sequence, kind, data, at)


def _opened(run_id: str) -> tuple[RecordEvent, ...]:
    return (
        _event(1, RecordEventKind.RUN_CREATED, {"trace_id": f"trace-{run_id}"}),
        _event(2, RecordEventKind.STATUS_CHANGED, {"from": "created", "to": "running"}, LATER),
    )


def _ended(record: RunRecord, status: RunStatus, result: StoredResult | None) -> RunRecord:
    """``record`` moved to ``status`` with ``result``: one more revision and event, no continuation."""
    ending = _event(
        record.revision + 1,
        RecordEventKind.STATUS_CHANGED,
        {"from": record.status.value, "to": status.value},
        LATER,
    )
    return RunRecord(
        record.run_id,
        record.trace_id,
        status,
        record.revision + 1,
        record.metadata,
        (*record.events, ending),
        record.started,
        record.admitted,
        record.audits,
        record.approvals,
        None,
        result,
    )


def _with_calls(run_id: str) -> RunRecord:
    """
    A running run where two calls started, were admitted (a success, and a failure that asks for
    compensation) and audited, and a third started on its second attempt with no outcome yet.
    """
    return RunRecord(
        run_id,
        f"trace-{run_id}",
        RunStatus.RUNNING,
        10,
        {"tenant": "acme"},
        (
            *_opened(run_id),
            _event(
                3, RecordEventKind.TOOL_CALL_STARTED, {"call_id": "c1", "tool_name": "weather", "attempt": 1}
            ),
            _event(
                4,
                RecordEventKind.TOOL_RESULT_ADMITTED,
                {"call_id": "c1", "tool_name": "weather", "ok": True, "error_code": None},
            ),
            _event(
                5,
                RecordEventKind.TOOL_OUTPUT_PROJECTION_RECORDED,
                {
                    "call_id": "c1",
                    "tool_name": "weather",
                    "projected_content_sha256": VERBATIM_SHA,
                    "report": {
                        "truncated": False,
                        "original_bytes": 5,
                        "projected_bytes": 5,
                        "original_estimated_tokens": 2,
                        "projected_estimated_tokens": 2,
                        "max_bytes": 65536,
                        "max_tokens": 10000,
                        "limiting_factor": "none",
                        "method": "verbatim",
                    },
                },
            ),
            _event(
                6, RecordEventKind.TOOL_CALL_STARTED, {"call_id": "c2", "tool_name": "fetch", "attempt": 1}
            ),
            _event(
                7,
                RecordEventKind.TOOL_RESULT_ADMITTED,
                {"call_id": "c2", "tool_name": "fetch", "ok": False, "error_code": "busy"},
            ),
            _event(
                8,
                RecordEventKind.TOOL_OUTPUT_PROJECTION_RECORDED,
                {
                    "call_id": "c2",
                    "tool_name": "fetch",
                    "projected_content_sha256": TRUNCATED_SHA,
                    "report": {},
                },
            ),
            _event(
                9, RecordEventKind.TOOL_CALL_STARTED, {"call_id": "c3", "tool_name": "charge", "attempt": 1}
            ),
            _event(
                10, RecordEventKind.TOOL_CALL_STARTED, {"call_id": "c3", "tool_name": "charge", "attempt": 2}
            ),
        ),
        started={
            "c1": StartedCall("c1", f"{run_id}:c1", "weather"),
            "c2": StartedCall("c2", f"{run_id}:c2", "fetch", 1),
            "c3": StartedCall("c3", f"{run_id}:c3", "charge", 2),
        },
        admitted={
            "c1": AdmittedResult("c1", f"{run_id}:c1", "weather", SUCCESS),
            "c2": AdmittedResult("c2", f"{run_id}:c2", "fetch", FAILURE),
        },
        audits={
            "c1": ProjectionAudit("c1", "weather", VERBATIM_SHA, VERBATIM, AT),
            "c2": ProjectionAudit("c2", "fetch", TRUNCATED_SHA, TRUNCATED, LATER),
        },
    )


CREATED = RunRecord(
    "run-created",
    "trace-run-created",
    RunStatus.CREATED,
    1,
    {"tenant": "acme", "région": "été"},
    (_event(1, RecordEventKind.RUN_CREATED, {"trace_id": "trace-run-created"}),),
)
RUNNING = _with_calls("run-running")

#: Suspended for two approvals: the continuation holds the runner's state and the resolved policy.
WAITING = RunRecord(
    "run-waiting",
    "trace-run-waiting",
    RunStatus.WAITING_FOR_APPROVAL,
    3,
    {},
    (
        *_opened("run-waiting"),
        _event(
            3,
            RecordEventKind.TOOL_APPROVAL_REQUIRED,
            {
                "calls": [
                    {"call_id": "w1", "tool_name": "filesystem.write"},
                    {"call_id": "w2", "tool_name": "filesystem.write"},
                ]
            },
        ),
    ),
    approvals={
        "w1": ApprovalState("w1", "filesystem.write"),
        "w2": ApprovalState("w2", "filesystem.write", ApprovalDecision.PENDING, ""),
    },
    continuation=Continuation(
        {
            "conversation": '{"format":"llm_wire.conversation.v1","messages":[{"role":"user","text":"w"}]}',
            "usage": {"model_calls": 1, "rounds": 0, "input_tokens": 10, "ratio": Decimal("0.25")},
        },
        ProjectionPolicy(max_bytes=1024, max_tokens=128),
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ),
)

#: Both approvals granted and the continuation claimed twice (a worker died after the first claim).
CLAIMED = RunRecord(
    "run-claimed",
    "trace-run-claimed",
    RunStatus.RUNNING,
    7,
    {},
    (
        *WAITING.events,
        _event(4, RecordEventKind.APPROVAL_RESOLVED, {"call_id": "w1", "decision": "approved"}),
        _event(5, RecordEventKind.APPROVAL_RESOLVED, {"call_id": "w2", "decision": "approved"}),
        _event(6, RecordEventKind.CONTINUATION_CLAIMED, {"recovery": False, "claims": 1}),
        _event(7, RecordEventKind.CONTINUATION_CLAIMED, {"recovery": True, "claims": 2}),
    ),
    approvals={
        "w1": ApprovalState("w1", "filesystem.write", ApprovalDecision.APPROVED),
        "w2": ApprovalState("w2", "filesystem.write", ApprovalDecision.APPROVED, "looks fine"),
    },
    continuation=Continuation(
        None,
        ProjectionPolicy(),
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        True,
        2,
    ),
)

#: A denial fails the run with its reason.
DENIED = RunRecord(
    "run-denied",
    "trace-run-denied",
    RunStatus.FAILED,
    5,
    {},
    (
        *WAITING.events,
        _event(4, RecordEventKind.APPROVAL_RESOLVED, {"call_id": "w1", "decision": "denied"}),
        _event(5, RecordEventKind.STATUS_CHANGED, {"from": "waiting_for_approval", "to": "failed"}),
    ),
    approvals={
        "w1": ApprovalState("w1", "filesystem.write", ApprovalDecision.DENIED, "not today"),
        "w2": ApprovalState("w2", "filesystem.write"),
    },
    result=StoredResult("not today", "tool_call_denied", {"tool_call_id": "w1"}),
)

COMPLETED = _ended(
    _with_calls("run-completed"),
    RunStatus.COMPLETED,
    StoredResult(
        "all done",
        "answered",
        {},
        {"model_calls": 2, "rounds": 1, "input_tokens": 20, "cached_tokens": 8, "reasoning_tokens": 4},
        Decimal("0.0003"),
    ),
)
FAILED = _ended(
    RunRecord(
        "run-failed",
        "trace-run-failed",
        RunStatus.RUNNING,
        4,
        {},
        (
            *_opened("run-failed"),
            _event(3, RecordEventKind.TOOL_CALL_STARTED, {"call_id": "f1", "tool_name": "t", "attempt": 1}),
            _event(
                4,
                RecordEventKind.TOOL_RESULT_ADMITTED,
                {"call_id": "f1", "tool_name": "t", "ok": False, "error_code": "timeout"},
            ),
        ),
        started={"f1": StartedCall("f1", "run-failed:f1", "t")},
        admitted={"f1": AdmittedResult("f1", "run-failed:f1", "t", PLAIN_FAILURE)},
    ),
    RunStatus.FAILED,
    StoredResult(
        "", "tool_output_projection_failed", {"error": "estimator_failure"}, {"model_calls": 1}, Decimal(0)
    ),
)
CANCELLED = _ended(
    RunRecord("run-cancelled", "trace-run-cancelled", RunStatus.RUNNING, 2, {}, _opened("run-cancelled")),
    RunStatus.CANCELLED,
    None,
)
TIMED_OUT = _ended(
    RunRecord("run-timed-out", "trace-run-timed-out", RunStatus.RUNNING, 2, {}, _opened("run-timed-out")),
    RunStatus.TIMED_OUT,
    StoredResult("deadline", "deadline_reached", {"k": "v"}, {"input_tokens": 7}),
)

#: Every stored run record of the fixtures, by the name of its file (``tests/fixtures/store/<name>.json``).
RUN_RECORDS: dict[str, RunRecord] = {
    "created": CREATED,
    "running": RUNNING,
    "waiting": WAITING,
    "claimed": CLAIMED,
    "denied": DENIED,
    "completed": COMPLETED,
    "failed": FAILED,
    "cancelled": CANCELLED,
    "timed_out": TIMED_OUT,
}

# ---------------------------------------------------------------------------------------------------------
# Conversations: every message kind, every provider's replay data.

EVERY_KIND: tuple[Message, ...] = (
    SystemMessage("Answer briefly."),
    UserMessage("Weather in Paris and Oslo? «é» \u2028 \U0001f600"),
    AssistantTurn(
        text="Checking both.",
        calls=(
            ToolCall("c1", "get_weather", '{"city": "Paris"}', provider_state={"thoughtSignature": "c2ln"}),
            ToolCall("c2", "get_weather", '{"city":"Oslo"}', provider_id="fc_2"),
        ),
        provider=Provider.GOOGLE,
        response_id="resp_1",
        provider_data=[{"type": "reasoning", "summary": [], "weight": Decimal("0.5")}],
    ),
    ToolResult("c1", "sunny", name="get_weather"),
    ToolResult("c2", "Error: timeout", is_error=True),
    AssistantTurn("Paris is sunny; Oslo did not answer."),
    AssistantTurn(calls=(ToolCall("c3", "retry", "{}"),)),
    ToolResult("c3", "", False, None),
)

#: One exchange per provider, each with the replay data that provider sends back.
REPLAY: dict[Provider, tuple[Message, ...]] = {
    Provider.OPENAI_RESPONSES: (
        UserMessage("go"),
        AssistantTurn(
            "",
            (ToolCall("call_1", "lookup", '{"q":"x"}', provider_id="fc_abc"),),
            Provider.OPENAI_RESPONSES,
            "resp_68",
            [{"type": "reasoning", "id": "rs_1", "encrypted_content": "Z0FB", "summary": []}],
        ),
        ToolResult("call_1", "found"),
    ),
    Provider.OPENAI_CHAT: (
        UserMessage("go"),
        AssistantTurn(
            "", (ToolCall("call_9", "lookup", '{\n  "q": "x"\n}'),), Provider.OPENAI_CHAT, "chatcmpl-1"
        ),
        ToolResult("call_9", "found"),
    ),
    Provider.ANTHROPIC: (
        UserMessage("go"),
        AssistantTurn(
            "Let me look.",
            (ToolCall("toolu_1", "lookup", '{"q": "x"}'),),
            Provider.ANTHROPIC,
            "msg_01",
            [
                {"type": "thinking", "thinking": "The user wants x.", "signature": "RXVT"},
                {"type": "redacted_thinking", "data": "ZW5j"},
            ],
        ),
        ToolResult("toolu_1", "found", name="lookup"),
    ),
    Provider.GOOGLE: (
        UserMessage("go"),
        AssistantTurn(
            "",
            (
                ToolCall("gc-1", "lookup", '{"q":"x"}', provider_state={"thoughtSignature": "dGhpbms="}),
                ToolCall("gc-2", "lookup", '{"q":"y"}'),
            ),
            Provider.GOOGLE,
            None,
            [{"thought": True, "text": "thinking", "thoughtSignature": "dGhpbms="}],
        ),
        ToolResult("gc-1", "found", name="lookup"),
        ToolResult("gc-2", "none", True, "lookup"),
    ),
}

#: Every conversation of the fixtures, by the name of its file (``tests/fixtures/conversation/<name>.json``).
CONVERSATIONS: dict[str, tuple[Message, ...]] = {
    "empty": (),
    "every-kind": EVERY_KIND,
    **{f"replay-{provider.value}": messages for provider, messages in REPLAY.items()},
}

# ---------------------------------------------------------------------------------------------------------
# Durable model rounds: the responses a model step records (Gemini, whose calls carry replay data).

ROUND_USAGE = Usage(10, 5, 15, {"thoughtsTokenCount": 3, "ratio": Decimal("0.25")})
ROUND_CALL = ToolCall("call-1", "get_user_country", "{}", provider_state={"thoughtSignature": "c2ln"})

#: Each response a round may be resolved from, by the name of its entry in ``durable/rounds.json``.
RESPONSES: dict[str, Terminal] = {
    "needs-tools": Terminal(
        Provider.GOOGLE, FinishReason.TOOL_CALLS, "", (ROUND_CALL,), usage=ROUND_USAGE, response_id="r-1"
    ),
    "answer": Terminal(
        Provider.GOOGLE,
        FinishReason.STOP,
        "Mexico City",
        usage=ROUND_USAGE,
        provider_data=[{"thought": True, "text": "thinking", "thoughtSignature": "dGhpbms="}],
    ),
    "output-limited": Terminal(
        Provider.GOOGLE,
        FinishReason.LENGTH,
        "cut",
        (ROUND_CALL,),
        (PartialCall("call-2", "get_user_country", '{"'),),
        usage=ROUND_USAGE,
    ),
    "content-filter": Terminal(
        Provider.GOOGLE, FinishReason.CONTENT_FILTER, "", usage=ROUND_USAGE, finish_detail="SAFETY"
    ),
    "refusal": Terminal(Provider.GOOGLE, FinishReason.REFUSAL, "", refusal="no", usage=ROUND_USAGE),
    "answer-no-usage": Terminal(Provider.GOOGLE, FinishReason.STOP, "plain"),
}


def round_prepared() -> Prepared:
    """The request the rounds answer: Gemini, with the one tool their calls name."""
    country = tool.new("get_user_country", "The user's country.", codec.record(dict))
    return unwrap(
        prepare(config(Provider.GOOGLE), request("gemini-3-pro", [user("go")]).with_tools([country]))
    )
