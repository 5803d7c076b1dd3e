"""
Durable runs on DBOS: a worker killed with SIGKILL at 50 different points resumes in a new process, and no
non-idempotent tool runs twice (``tests/durable_app.py`` is the application, run in real subprocesses).
"""

from __future__ import annotations

import json
import pickle
import re
import subprocess
import sys
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

import attrs
import pytest
from durable_app import (
    FINAL,
    POLICY,
    REPLAY_MODEL,
    REPLAY_PROMPT,
    RUN_ID,
    SCRIPT,
    TOOL_TEXT,
    replay_config,
    replay_tools,
)

from llm_wire import Prepared, config, prepare, request, user
from llm_wire.agent import (
    ErrorCategory,
    ErrorCode,
    Idempotency,
    Runner,
    StopReason,
    ToolContract,
    ToolDescriptor,
    ToolOutcome,
    make_tool,
)
from llm_wire.agent.projection import ProjectionPolicy, project_tool_outcome
from llm_wire.agent.store import RunStatus, SqliteRunStore, StoreBusy, UnreadableRecord
from llm_wire.agent.store._rules import sha256_hex
from llm_wire.demo import durable as durable_demo
from llm_wire.durable import DurableRunError, sqlite_config
from llm_wire.durable._records import (
    _START,
    _STOPPED,
    _outcome_of,
    _Start,
    _start_of,
    _Stopped,
    _stopped_of,
    _terminal_value,
    _tool_outcome_of,
    _tool_step_value,
)
from llm_wire.error import ProtocolError
from llm_wire.message import Provider, ToolCall
from llm_wire.outcome import Answer, Failure, NeedsTools, Outcome, Refused, Sent, resolve
from llm_wire.providers.response import FinishReason, PartialCall, Terminal, Usage
from llm_wire.result import Ok, unwrap
from llm_wire.transport import Client
from llm_wire.transport.fake import FakeCall, FakeProvider, Received, Reply, answer, recorded
from llm_wire.value import Limits, NotJson, Value, parse, render

APP = Path(__file__).with_name("durable_app.py")


def _app(*args: str, timeout: float) -> list[Any]:
    """Run ``tests/durable_app.py`` with ``args`` in a fresh interpreter: each line it printed, parsed."""
    done = subprocess.run(
        [sys.executable, str(APP), *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


SEEDS = 50
CALLS = {call_id: tool for round_calls in SCRIPT for call_id, tool, _ in round_calls}


def check_run(directory: Path) -> dict[str, int]:
    """
    The run in ``directory`` completed with a whole record, and its effects obey the contracts; returns
    counts of the interesting cases met (unknown outcomes, repeated idempotent calls).
    """
    store = SqliteRunStore(directory / "runs.sqlite")
    record = unwrap(store.load(RUN_ID))
    store.close()
    assert record.status is RunStatus.COMPLETED
    assert record.result is not None
    assert record.result.content == FINAL
    assert record.result.stop_reason == "answered"
    assert [event.sequence for event in record.events] == list(range(1, record.revision + 1))
    assert set(record.admitted) == set(CALLS)
    assert set(record.started) <= set(record.admitted)
    assert set(record.audits) == set(record.admitted)
    effects: dict[str, list[str]] = defaultdict(list)
    path = directory / "effects.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        entry = json.loads(line)
        effects[entry["call_id"]].append(entry["key"])
    seen = {"unknown": 0, "repeated": 0}
    for call_id, admitted in record.admitted.items():
        outcome, ran = admitted.outcome, effects[call_id]
        assert admitted.tool_name == CALLS[call_id]
        # What the model saw is what projection of the stored outcome gives, to the byte.
        audit = record.audits[call_id]
        assert audit.projected_content_sha256 == sha256_hex(
            unwrap(project_tool_outcome(outcome, POLICY)).text
        )
        assert all(key == f"{RUN_ID}:{call_id}" for key in ran), "an idempotent call ran with another key"
        if admitted.tool_name == "append_note":
            assert len(ran) <= 1, f"{call_id} ran {len(ran)} times"
            if outcome.ok:
                assert len(ran) == 1
            else:
                assert outcome.failure is not None
                assert outcome.failure.code == ErrorCode.OUTCOME_UNKNOWN
                seen["unknown"] += 1
        else:
            assert outcome.ok
            assert len(ran) >= 1
            seen["repeated"] += len(ran) > 1
    return seen


class TestCrashes:
    """SIGKILL at 50 different points, resumed in new processes."""

    def test_sigkill_anywhere_runs_nothing_twice(self, tmp_path: Path) -> None:
        """Every seed's run completes; non-idempotent calls ran at most once, idempotent ones with one key."""
        reports = _app("crash", str(tmp_path), str(SEEDS), timeout=600)
        assert len(reports) == SEEDS + 1
        kills = set()
        for report in reports:
            steps = report["steps"]
            assert steps[-1]["done"] == "completed", report
            assert all("pause" in step and step["killed"] for step in steps[:1] if report["seed"] != "dry")
            assert all(step["killed"] or step.get("done") == "completed" for step in steps[1:-1]), report
            if report["seed"] != "dry":
                kills.add(report["kill_at"])
        assert len(kills) >= 30  # the points differ (the last seeds draw theirs at random)
        totals = {"unknown": 0, "repeated": 0}
        for directory in sorted(tmp_path.iterdir()):
            for name, count in check_run(directory).items():
                totals[name] += count
        # Kills landed inside tools: some non-idempotent outcomes were unknown, some idempotent calls reran.
        assert totals["unknown"] >= 3
        assert totals["repeated"] >= 2


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the approvals application saw, run once in a real subprocess."""
    directory = tmp_path_factory.mktemp("approvals")
    facts: dict[str, Any] = _app("approvals", str(directory), timeout=300)[-1]
    return facts


class TestApprovals:
    """
    §10 scenarios 46-48: a durable run suspends for manual review and resumes in the store, with its usage
    and cost; scenario 41's projection failure ends one.
    """

    def test_scenario_46_approval_suspends_and_resumes(self, seen: dict[str, Any]) -> None:
        """Suspended with the call and its policy, nothing run; approved, it runs once and completes."""
        assert seen["46_suspended"] == {
            "status": "waiting_for_approval",
            "pending": ["write-a"],
            "policy": [1024, 128],
            "model_calls": 1,
            "asked": ["write-a", "filesystem.write"],
        }
        assert seen["46_done"] == {
            "status": "completed",
            "content": "written",
            "continuation": False,
            "admitted": ["write-a"],
            "model_calls": 2,
            "sequences_ok": True,
            "usage": seen["46_done"]["usage"],
            # The persisted {1024, 128}, tightened by the resume's {2048, 64}: never widened.
            "projected_with": [[1024, 64]],
        }

    def test_scenario_48_usage_adds_up_across_a_suspension(self, seen: dict[str, Any]) -> None:
        """
        The stored result counts both model calls (one before the suspension, one after), one round, their
        tokens with cached and reasoning ones, and the cost priced once on the whole usage; a host
        ``prepare_model_request`` that clears the execution context leaves the tool the run and trace ids.
        """
        assert seen["48"] == {
            "usage": {
                "model_calls": 2,
                "rounds": 1,
                "input_tokens": 20,
                "output_tokens": 10,
                "total_tokens": 30,
                "cached_tokens": 8,
                "reasoning_tokens": 4,
            },
            "cost": "0.0003",
            "priced": 1,
            "correlated": [[True, True]],
        }
        assert seen["46_done"]["usage"] == seen["48"]["usage"]

    def test_scenario_41_projection_failure_ends_a_durable_run(self, seen: dict[str, Any]) -> None:
        """
        An estimator failing on the tool's text fails the run (``tool_output_projection_failed``, error
        ``estimator_failure``) after one model call; the raw result is admitted and no audit is recorded.
        """
        assert seen["41"] == {
            "status": "failed",
            "stop": "tool_output_projection_failed",
            "error": "estimator_failure",
            "model_calls": 1,
            "admitted": ["write-r"],
            "raw": ["HEAD-"],
            "audits": 0,
        }

    def test_scenario_47_batch_approvals_accumulate(self, seen: dict[str, Any]) -> None:
        """A batch of two gated calls suspends on each in turn, runs neither early, then both once."""
        assert seen["47_steps"] == [
            {"pending": ["write-a"], "admitted": []},
            {"pending": ["write-b"], "admitted": []},
        ]
        assert seen["47_done"] == {
            "status": "completed",
            "admitted": ["write-a", "write-b"],
            "model_calls": 2,
        }
        assert sorted(seen["effects"]) == ["write-a", "write-a", "write-b"]  # one run each: a in 46 and 47


SEAMS = Path(__file__).with_name("durable_seams.py")


@pytest.fixture(scope="module")
def seams(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The lines of ``durable_seams.py``: both seam properties, run once under one DBOS launch."""
    directory = tmp_path_factory.mktemp("seams")
    done = subprocess.run(
        [sys.executable, str(SEAMS), str(directory)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


class TestSeams:
    """The plain and the durable runner keep the same promises, example by example."""

    def test_retry_advice_is_safe_and_shared(self, seams: list[dict[str, Any]]) -> None:
        """
        Over side effect x idempotency x compensation x timeout point, ``retryable`` is true exactly when
        repeating is safe and the runner repeated; an unsafe timeout is ``outcome_unknown`` in both runners.
        """
        assert "retry" in seams[-1]["passed"]
        codes = {line["code"] for line in seams if "retry" in line}
        assert "outcome_unknown" in codes
        assert codes - {"outcome_unknown"}  # some examples were safe to repeat

    def test_output_bounded_by_default_in_both_runners(self, seams: list[dict[str, Any]]) -> None:
        """
        Any output under any tool ceilings fits both ceilings in both runners, with no ``project_output``
        given; the whole outcome reaches ``on_event`` and the store.
        """
        assert "output" in seams[-1]["passed"]
        assert any(line["cut"] for line in seams if "output" in line)  # some outputs were cut to fit


@pytest.fixture(scope="module")
def reads(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What a round cost the store, and a run whose record moved under it, run once in a subprocess."""
    facts: dict[str, Any] = _app("reads", str(tmp_path_factory.mktemp("reads")), timeout=120)[-1]
    return facts


class TestRoundCost:
    """Issue 28, item 3: a durable round does less work and keeps every promise."""

    def test_a_round_reads_its_record_once(self, reads: dict[str, Any]) -> None:
        """
        A fresh round writes its six records (created, running, started, admitted, audited, completed) and
        reads the whole record once, for ``run``'s answer: not before every write.
        """
        assert reads["status"] == "completed"
        assert (reads["writes"], reads["loads"]) == (6, 1)

    def test_a_record_moved_by_another_writer_is_read_again(self, reads: dict[str, Any]) -> None:
        """
        A write the runner did not make (here by the tool itself) moves the record's revision: the runner's
        next write is refused, the record read again and the write repeated, and the run completes whole.
        """
        assert reads["bumped"] == {
            "status": "completed",
            "started": ["side", "write-z"],
            "admitted": ["write-z"],
            "audited": ["write-z"],
        }


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What durable runs over damaged and locked store files raised, run once in a real subprocess."""
    directory = tmp_path_factory.mktemp("stores")
    facts: dict[str, Any] = _app("stores", str(directory), timeout=120)[-1]
    return facts


class TestStores:
    """
    Issue 23, item 14 at the durable runner's join: a run whose SQLite store is damaged or locked ends in
    a typed ``DurableRunError`` carrying the store's error, never a raw ``sqlite3`` exception, and the store
    keeps what it held.
    """

    def test_a_damaged_store_file_is_a_typed_error(self, stores: dict[str, Any]) -> None:
        """A file that is no database, or one cut in half, is ``StoreCorrupt``; neither file is touched."""
        corrupt = {
            "raised": "DurableRunError",
            "error": "StoreCorrupt",
            "text": "the run store's file is not a database or is damaged",
        }
        assert stores["notes"] == stores["cut"] == corrupt
        assert stores["unchanged"] is True

    def test_a_store_locked_before_the_run_is_busy_and_nothing_is_written(
        self, stores: dict[str, Any]
    ) -> None:
        """
        A lock held past the store's timeout is ``StoreBusy`` with no record written; once released, a run
        on the same store completes.
        """
        busy = {
            "raised": "DurableRunError",
            "error": "StoreBusy",
            "text": "the run store stayed locked by another writer for 0.2 s; nothing was written (retry)",
        }
        assert stores["locked"] == busy
        assert stores["locked_record"] == "RunNotFound"
        assert stores["locked_then"] == {"raised": None}
        assert stores["unlocked_record"] == {"status": "completed", "admitted": ["write-x"]}

    def test_a_store_locked_mid_run_is_busy_for_every_worker(self, stores: dict[str, Any]) -> None:
        """
        A lock taken while the tool runs makes the admission ``StoreBusy``; the worker that started the run,
        one waiting for it and a second start of it all get that typed error (DBOS keeps it pickled), and
        the record still holds the started call, which ran once.
        """
        busy = {
            "raised": "DurableRunError",
            "error": "StoreBusy",
            "text": "the run store stayed locked by another writer for 0.2 s; nothing was written (retry)",
        }
        assert stores["midrun"] == stores["midrun_waited"] == stores["midrun_again"] == busy
        assert stores["midrun_record"] == {
            "status": "running",
            "started": ["write-y"],
            "admitted": [],
            "lock_taken": 1,
        }

    def test_the_error_survives_pickling(self) -> None:
        """``DurableRunError`` pickles with its typed error (DBOS stores a workflow's exception that way)."""
        again = pickle.loads(pickle.dumps(DurableRunError(StoreBusy(0.2))))
        assert isinstance(again, DurableRunError)
        assert again.error == StoreBusy(0.2)
        assert str(again) == StoreBusy(0.2).describe()


class TestContracts:
    """Which calls may run again, and what the model is told otherwise."""

    @pytest.mark.parametrize(
        ("idempotency", "consumes_key", "safe"),
        [
            (Idempotency.IDEMPOTENT, False, True),
            (Idempotency.IDEMPOTENT_WITH_KEY, True, True),
            (Idempotency.IDEMPOTENT_WITH_KEY, False, False),
            (Idempotency.NON_IDEMPOTENT, True, False),
            (Idempotency.UNKNOWN, True, False),
        ],
    )
    def test_safe_to_repeat(self, idempotency: Idempotency, consumes_key: bool, safe: bool) -> None:
        """Only idempotent tools, or keyed ones whose provider consumes the key, may run again."""
        from durable_app import AppendNote

        descriptor: ToolDescriptor = make_tool(
            AppendNote, contract=ToolContract(idempotency=idempotency)
        ).descriptor
        assert descriptor.contract.is_repeatable(consumes_key=consumes_key) is safe

    def test_outcome_unknown_message(self) -> None:
        """The model gets a typed, non-retryable failure naming the tool and what to check."""
        outcome = ToolOutcome.unknown("append_note")
        shown = json.loads(outcome.model_text())
        assert shown["ok"] is False
        assert shown["error"]["code"] == ErrorCode.OUTCOME_UNKNOWN
        assert shown["error"]["retryable"] is False
        assert "append_note" in shown["error"]["message"]

    def test_sqlite_config(self) -> None:
        """The DBOS configuration points at one SQLite file."""
        assert sqlite_config("app", "/tmp/x.sqlite")["system_database_url"] == "sqlite:////tmp/x.sqlite"


class TestDemo:
    """``llm-wire demo durable``: a worker killed mid-tool, a run recovered, each effect done once."""

    def test_runs(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The demo kills the first worker, the second finishes the run, and each effect happened once."""
        durable_demo.run()
        out = capsys.readouterr().out
        assert "Worker 1 killed with SIGKILL (exit status -9)." in out
        assert "The run ended completed" in out
        assert "charge_card: done 1 time(s), with 1 idempotency key(s)" in out
        assert "send_email: done 1 time(s), with 1 idempotency key(s)" in out
        assert "send_email's recorded outcome: outcome_unknown" in out


CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "provider-responses"
_READ = Limits(max_bytes=64 * 1024 * 1024, max_values=10_000_000, max_depth=256)
_RESPONSES = (
    "openai-responses/pydantic-ai--test_openai_responses--test_openai_responses_thinking_with_tool_calls"
)
_GEMINI = "gemini/pydantic-ai--test_google--test_google_prompted_output_with_tools"
_GEMINI_STREAM = "gemini/pydantic-ai--test_structured_output--test_native_output_with_function_tools_stream"
#: Per wire: the recorded exchange whose response calls the tool, and the one answering after it.
RECORDED = {
    # The first response is recorded only inside the next request (the assistant turn sent back).
    "anthropic": (None, "anthropic/pydantic-ai--test_anthropic--test_anthropic_tool_with_thinking--1.json"),
    "openai-responses": (f"{_RESPONSES}--0.json", f"{_RESPONSES}--1.json"),
    "gemini": (f"{_GEMINI}--0.json", f"{_GEMINI}--1.json"),
    "gemini-stream": (f"{_GEMINI_STREAM}--0.json", f"{_GEMINI_STREAM}--1.json"),
}


def _record(name: str) -> dict[str, Value]:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"provider-responses corpus not found at {CORPUS}")
    record = unwrap(parse(path.read_bytes(), _READ))
    assert isinstance(record, dict)
    return record


def _replies(wire: str) -> tuple[Reply, Reply, list[str]]:
    """
    The recorded reply that calls the tool, the recorded reply after it, and the replay data the first
    carries (thinking signatures, reasoning items' encrypted content, thought signatures).
    """
    first_name, then_name = RECORDED[wire]
    then = _record(then_name)
    if first_name is None:  # Anthropic: the turn the next request sends back, as the response it was
        sent = then["request"]
        assert isinstance(sent, dict)
        assert isinstance(sent["messages"], list)
        turn = sent["messages"][1]
        assert isinstance(turn, dict)
        assert turn["role"] == "assistant"
        body: Value = {
            "id": "msg_recorded_turn",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-20250514",
            "content": turn["content"],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 12, "output_tokens": 34},
        }
        first = recorded({"http_status": 200, "stream": False, "response": body})
    else:
        record = _record(first_name)
        body = record["response_events"] if record["stream"] else record["response"]
        first = recorded(record)
    markers = re.findall(r'"(?:signature|encrypted_content|thoughtSignature)":"([^"]+)"', render(body))
    return first, recorded(then), markers


class TestReplayData:
    """
    Issue 23, item 5: a model round a durable run replays from its record sends the provider's replay data
    back as an uninterrupted run does (recorded responses served over loopback by the fake provider).
    """

    @pytest.mark.parametrize("wire", sorted(RECORDED))
    def test_a_resumed_run_sends_the_replay_data_back(self, wire: str, tmp_path: Path) -> None:
        """
        The request after the tool round is the same, byte for byte, from a plain ``Runner``, a durable run
        straight through, and a durable run killed inside its tool call and resumed by a new worker; it
        carries every signature or encrypted reasoning item of the recorded response.
        """
        first, then, markers = _replies(wire)
        assert markers, "the recorded response carries no replay data"

        def reply(received: Received) -> Reply:
            return then if TOOL_TEXT.encode() in received.body else first

        with FakeProvider(reply) as fake:
            with Client(base_url=fake.url) as client:
                plain = Runner(client, replay_config(wire), replay_tools(wire))
                answered = plain.run(request(REPLAY_MODEL, [user(REPLAY_PROMPT)]))
            assert answered.stop is StopReason.ANSWERED
            runs = _app("replay", str(tmp_path), fake.url, wire, timeout=120)[-1]
            bodies = [exchange.received.body for exchange in fake.exchanges]
        assert runs["straight"]["done"] == runs["resumed"]["done"] == "completed", runs
        assert runs["killed"]["killed"], runs
        assert runs["resumed"]["answer"] == runs["straight"]["answer"] == answered.text
        # Plain, straight and killed each asked once for the tool call; the resumed worker replayed that
        # round from its record, and only asked again after the tool.
        asks = [TOOL_TEXT.encode() in body for body in bodies]
        assert asks == [False, True, False, True, False, True]
        after_plain, after_straight, after_resume = (body for body in bodies if TOOL_TEXT.encode() in body)
        for marker in markers:
            assert marker.encode() in after_plain
            assert marker.encode() in after_resume, "the resumed run dropped the provider's replay data"
        assert after_straight == after_plain
        assert after_resume == after_plain


#: Two rounds of one id-less Gemini call each (get_user_country, then generate_topic), each with its thought
#: signature, then the answer.
_ROUNDS = (
    f"{_GEMINI}--0.json",
    "gemini/pydantic-ai--test_google--test_google_instructions_only_with_tool_calls--1.json",
    f"{_GEMINI}--1.json",
)


class TestGeminiRounds:
    """
    Issues 23, items 5 and 10 together: a durable Gemini run of two tool rounds of id-less calls, killed
    inside its second call and resumed by a new worker, answers as an uninterrupted run does.
    """

    def test_a_resumed_two_round_run_keeps_its_ids_and_signatures(self, tmp_path: Path) -> None:
        """
        The plain ``Runner``, a durable run straight through and one killed in its second tool call and
        resumed give the calls the same ids, and send the same requests byte for byte, every recorded
        thought signature included.
        """
        records = [_record(name) for name in _ROUNDS]
        replies = [recorded(record) for record in records]
        markers = re.findall(r'"thoughtSignature":"([^"]+)"', "".join(render(r["response"]) for r in records))
        assert len(markers) == 3

        def reply(received: Received) -> Reply:
            return replies[min(received.body.count(b'"functionResponse"'), 2)]

        with FakeProvider(reply) as fake:
            with Client(base_url=fake.url) as client:
                plain = Runner(client, config(Provider.GOOGLE), replay_tools("gemini-rounds"))
                answered = plain.run(request(REPLAY_MODEL, [user(REPLAY_PROMPT)]))
            assert answered.stop is StopReason.ANSWERED, answered.stop
            runs = _app("replay", str(tmp_path), fake.url, "gemini-rounds", "2", timeout=120)[-1]
            bodies = [exchange.received.body for exchange in fake.exchanges]
        assert runs["straight"]["done"] == runs["resumed"]["done"] == "completed", runs
        assert runs["killed"]["killed"], runs
        assert runs["resumed"]["answer"] == runs["straight"]["answer"] == answered.text
        ids = [record.call.id for record in answered.calls]
        assert len(set(ids)) == 2
        assert runs["straight"]["ids"] == runs["resumed"]["ids"] == ids
        # Plain and straight asked three times; the killed worker twice (it died in the second tool); the
        # resumed one replayed both model rounds from their records and asked once, after the tool.
        rounds = [body.count(b'"functionResponse"') for body in bodies]
        assert rounds == [0, 1, 2, 0, 1, 2, 0, 1, 2]
        for seen in (1, 2):
            sent = [body for body, n in zip(bodies, rounds, strict=True) if n == seen]
            assert len(set(sent)) == 1, f"the requests after round {seen} differ"
        last = bodies[-1]
        for marker in markers[:2]:
            assert marker.encode() in last, "a thought signature was dropped"
        for call_id in ids:
            assert call_id.encode() not in last, "an id Gemini never gave was sent to it"


class TestUnknownOutcomes:
    """
    Issue 23, items 1 and 2 at the resume: what the model is told about a call that may have taken effect,
    and what the store audits, are the same whether the call timed out in a plain run or its worker died.
    """

    def test_a_call_cut_by_a_kill_reads_as_one_cut_by_its_deadline(self, tmp_path: Path) -> None:
        """
        A card charge (destructive, not idempotent) past its deadline in a plain ``Runner``, and the same
        charge killed mid-call in a durable run and resumed by a new worker: the request after the tool is
        the same byte for byte (``outcome_unknown``, not retryable), and the resumed run's store audits the
        exact text the model saw.
        """
        calling = answer(Provider.OPENAI_CHAT, "", [FakeCall("call-1", "charge_card", "{}")])
        answered = answer(Provider.OPENAI_CHAT, "I could not tell whether the card was charged.")

        def reply(received: Received) -> Reply:
            return answered if b'"tool_call_id"' in received.body else calling

        with FakeProvider(reply) as fake:
            with Client(base_url=fake.url) as client:
                plain = Runner(client, config(Provider.OPENAI_CHAT), replay_tools("chat-charge"))
                try:
                    result = plain.run(request(REPLAY_MODEL, [user(REPLAY_PROMPT)]))
                finally:
                    plain.close(timeout=0)
            assert result.stop is StopReason.ANSWERED, result.stop
            runs = _app("replay", str(tmp_path), fake.url, "chat-charge", "1", timeout=120)[-1]
            bodies = [exchange.received.body for exchange in fake.exchanges]
        assert runs["killed"]["killed"], runs
        assert runs["straight"]["done"] == runs["resumed"]["done"] == "completed", runs
        after_plain, after_straight, after_resume = (body for body in bodies if b'"tool_call_id"' in body)
        assert after_straight == after_plain
        assert after_resume == after_plain, "the resumed run told the model something else"
        shown = json.loads(after_resume)["messages"][-1]["content"]
        error = json.loads(shown)["error"]
        assert (error["category"], error["code"], error["retryable"]) == ("timeout", "outcome_unknown", False)
        assert "charge_card" in error["message"]
        assert runs["resumed"]["audits"] == {"call-1": sha256_hex(shown)}

    @pytest.mark.parametrize(
        ("wire", "tool"), [("chat-charge-late", "charge_card"), ("chat-transfer-late", "transfer_funds")]
    )
    def test_a_late_answer_the_first_run_dropped_stays_dropped_on_resume(
        self, wire: str, tool: str, tmp_path: Path
    ) -> None:
        """
        A call that must not run twice answers (success) after the runner abandoned it, at its deadline
        (the card charge) or when its heartbeats stopped (the transfer): the runner drops the answer and
        tells the model ``outcome_unknown``, while the attempt's thread runs on to its end. The worker is
        killed in the next call, once that late answer was in; the recovered run replays the abandoned
        step and tells the model what the uninterrupted run did, byte for byte, and completes.
        """
        charge = answer(Provider.OPENAI_CHAT, "", [FakeCall("call-1", tool, "{}")])
        settle = answer(Provider.OPENAI_CHAT, "", [FakeCall("call-2", "check_settlement", "{}")])
        answered = answer(Provider.OPENAI_CHAT, "I could not tell whether the card was charged.")

        def reply(received: Received) -> Reply:
            if b'"tool_call_id":"call-2"' in received.body:
                return answered
            return settle if b'"tool_call_id"' in received.body else charge

        with FakeProvider(reply) as fake:
            runs = _app("replay", str(tmp_path), fake.url, wire, "2", timeout=120)[-1]
            bodies = [exchange.received.body for exchange in fake.exchanges]
        assert runs["killed"]["killed"], runs
        assert runs["straight"]["done"] == runs["resumed"]["done"] == "completed", runs
        after_straight, after_resume = (body for body in bodies if b'"tool_call_id":"call-2"' in body)
        assert after_resume == after_straight, "the resumed run told the model something else"
        messages = json.loads(after_resume)["messages"]
        shown = next(m["content"] for m in messages if m.get("tool_call_id") == "call-1")
        error = json.loads(shown)["error"]
        assert (error["category"], error["code"], error["retryable"]) == ("timeout", "outcome_unknown", False)
        assert runs["resumed"]["audits"] == runs["straight"]["audits"]


def _replay_data(outcome: Outcome) -> list[Value]:
    """What equality leaves out: the response id, replay data and the provider's usage object."""
    usage = outcome.usage
    kept: list[Value] = [None if usage is None else usage.raw]
    if isinstance(outcome, Answer | NeedsTools):
        turn = outcome.turn
        kept += [turn.response_id, turn.provider_data, [call.provider_state for call in turn.calls]]
    return kept


class TestModelRoundRecords:
    """
    What a model step records (DBOS pickles it) is the whole response, read back to the same outcome with
    the same replay data; a record in the positional format of earlier versions still reads.
    """

    @staticmethod
    def prepared() -> Prepared:
        tools = [descriptor.tool for descriptor in replay_tools("gemini").descriptors()]
        return unwrap(prepare(config(Provider.GOOGLE), request(REPLAY_MODEL, [user("go")]).with_tools(tools)))

    def test_every_outcome_reads_back_with_its_replay_data(self) -> None:
        """Answers, tool calls, cut and filtered responses come back equal, replay data and usage included."""
        prepared = self.prepared()
        usage = Usage(10, 5, 15, {"thoughtsTokenCount": 3, "ratio": Decimal("0.25")})
        call = ToolCall("call-1", "get_user_country", "{}", provider_state={"thoughtSignature": "c2ln"})
        parts: Value = [{"thought": True, "text": "thinking", "thoughtSignature": "dGhpbms="}]
        responses = [
            Terminal(Provider.GOOGLE, FinishReason.TOOL_CALLS, "", (call,), usage=usage, response_id="r-1"),
            Terminal(Provider.GOOGLE, FinishReason.STOP, "Mexico City", usage=usage, provider_data=parts),
            Terminal(
                Provider.GOOGLE,
                FinishReason.LENGTH,
                "cut",
                (call,),
                (PartialCall("call-2", "get_user_country", '{"'),),
                usage=usage,
            ),
            Terminal(Provider.GOOGLE, FinishReason.CONTENT_FILTER, "", usage=usage, finish_detail="SAFETY"),
            Terminal(Provider.GOOGLE, FinishReason.REFUSAL, "", refusal="no", usage=usage),
        ]
        failed = Failure(ProtocolError("the body is not JSON"), Sent.COMPLETED, usage=usage)
        outcomes = [resolve(Ok(response), prepared) for response in responses]
        for outcome in [*outcomes, failed]:
            record = pickle.loads(pickle.dumps(_terminal_value(outcome, prepared)))
            again = _outcome_of(record, prepared)
            if isinstance(outcome, Failure):
                assert isinstance(again, Failure)
                assert again.usage == outcome.usage
                continue
            assert again == outcome
            assert _replay_data(again) == _replay_data(outcome)
        assert [type(outcome).__name__ for outcome in outcomes] == [
            "NeedsTools",
            "Answer",
            "OutputLimited",
            "Refused",
            "Refused",
        ]

    def test_a_response_that_is_not_json_is_recorded_as_a_failure(self) -> None:
        """Replay data a custom model filled with a Python float cannot be kept: the round fails, typed."""
        prepared = self.prepared()
        not_json: Any = 0.5
        answer = resolve(
            Ok(Terminal(Provider.GOOGLE, FinishReason.STOP, "hi", provider_data=not_json)), prepared
        )
        again = _outcome_of(_terminal_value(answer, prepared), prepared)
        assert isinstance(again, Failure)
        assert again.describe() == (
            "provider protocol violation: the model's response held a value that is not JSON, so a durable"
            " run cannot record it (completed)"
        )

    def test_a_positional_record_still_reads(self) -> None:
        """
        A record written before (positional text and calls, no replay data), met by a run recovered across
        an upgrade, reads as it did; anything else is a typed failure, never an exception.
        """
        prepared = self.prepared()
        calls: Value = {
            "usage": [10, 5, 15],
            "usage_raw": {"cached": 4},
            "finish": "tool_calls",
            "text": "",
            "calls": [["call-1", "get_user_country", "{}"]],
        }
        needs = _outcome_of(calls, prepared)
        assert isinstance(needs, NeedsTools)
        assert needs.turn.calls == (ToolCall("call-1", "get_user_country", "{}"),)
        assert needs.usage == Usage(10, 5, 15)
        assert needs.usage.raw == {"cached": 4}
        refused: Value = {
            "usage": None,
            "usage_raw": None,
            "finish": "refusal",
            "text": "",
            "calls": [],
            "refusal": "no",
        }
        assert _outcome_of(refused, prepared) == Refused(FinishReason.REFUSAL, "no", "", None)
        failure = _outcome_of({"usage": [1, 2, 3], "usage_raw": None, "failure": True}, prepared)
        assert isinstance(failure, Failure)
        assert failure.usage == Usage(1, 2, 3)
        unreadable: list[Value] = [{"nope": 1}, [], None, {"usage": "x", "usage_raw": None}]
        for record in unreadable:
            got = _outcome_of(record, prepared)
            assert isinstance(got, Failure)
            assert got.describe() == (
                "provider protocol violation: a recorded model round is not one this runner wrote (completed)"
            )


class TestStepRecords:
    """
    What DBOS keeps of a run besides model rounds (tool steps, a workflow's input and output) is a JSON value
    a derived codec reads back; anything else is a typed refusal, never an exception.
    """

    def test_tool_outcomes_read_back_whole(self) -> None:
        """Successes, failures and the runner's own outcomes read back field for field, floats kept."""
        data: Any = {"ratio": 0.5, "exact": Decimal("0.1"), "rows": [1, None, True]}
        failure = ToolOutcome.failed(
            ErrorCategory.RATE_LIMITED, "busy", "later", details={"after": 3}, retry_after=2.5
        )
        outcomes = [
            ToolOutcome("ok", data, artifacts=("a://1",), resource_version="v2", metadata={"ms": "3"}),
            attrs.evolve(failure, compensation_required=True, compensation_token="undo"),
            ToolOutcome.abandoned("t"),
            ToolOutcome.unknown("t"),
        ]
        for outcome in outcomes:
            recorded = pickle.loads(pickle.dumps(_tool_step_value(outcome)))
            assert attrs.asdict(_tool_outcome_of(recorded, "t")) == attrs.asdict(outcome)

    def test_an_unreadable_tool_step_is_an_unknown_outcome(self) -> None:
        """A tool step record this runner did not write says nothing of the call: ``outcome_unknown``."""
        unreadable: list[Any] = [None, {}, {"content": 5}, [1], "text"]
        for step in unreadable:
            assert _tool_outcome_of(step, "charge") == ToolOutcome.unknown("charge")

    def test_tool_data_that_is_no_json_is_refused_when_recorded(self) -> None:
        """A tool's data that is no JSON value cannot be recorded: ``NotJson``, as the run store says."""
        odd: Any = {"ids": {1, 2}}
        with pytest.raises(NotJson):
            _tool_step_value(ToolOutcome.success("x", odd))

    def test_workflow_inputs_and_outputs(self) -> None:
        """A start and an end read back; inputs and outputs this runner did not write are typed refusals."""
        start = _Start("m", "{}", ProjectionPolicy(max_bytes=1024, max_tokens=128), ("c1",), {"rounds": 1})
        assert _start_of(unwrap(_START.encode(start)), ()) == start
        assert _start_of("m", ("{}", ["c1"], {"rounds": 1}, [1024, 128])) == start
        junk: list[tuple[Value, tuple[Any, ...]]] = [
            (None, ()),
            ({"model_name": "m"}, ()),
            ("m", ("{}", [], {}, [1, 1])),  # ceilings below the minimum
            ("m", ("{}", [], {})),
        ]
        for value, earlier in junk:
            with pytest.raises(DurableRunError) as raised:
                _start_of(value, earlier)
            assert raised.value.error == UnreadableRecord("the workflow's input is not one this runner wrote")
        ended = _Stopped(RunStatus.WAITING_FOR_APPROVAL, "tok")
        assert _stopped_of(unwrap(_STOPPED.encode(ended))) == ended
        assert _stopped_of("completed") == _Stopped(RunStatus.COMPLETED)
        others: list[Any] = [None, "done", {"status": "nope"}, {"status": "completed"}, 3]
        for output in others:
            assert _stopped_of(output) is None
