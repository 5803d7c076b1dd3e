"""
Records that earlier code wrote (``tests/fixtures/``, whose README says which code) read with today's: each
file gives back the record it was written from (``tests/stored_records.py``), fields left out of ``==``
(replay data, tool data, times) included.
"""

from __future__ import annotations

import base64
import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from stored_records import (
    CONVERSATIONS,
    RESPONSES,
    ROUND_USAGE,
    RUN_RECORDS,
    RUNNING,
    round_prepared,
)

from llm_wire import message, user
from llm_wire.agent import ErrorCategory, ToolFailure, ToolOutcome
from llm_wire.agent.projection import ProjectionPolicy
from llm_wire.agent.store import (
    AdmittedResult,
    RunStatus,
    SqliteRunStore,
    StoredResult,
    record_from_json,
    record_to_json,
)
from llm_wire.durable._records import _outcome_of, _start_of, _Stopped, _stopped_of, _tool_outcome_of
from llm_wire.message import AssistantTurn, Message, Provider, ToolCall
from llm_wire.outcome import Answer, Failure, NeedsTools, Outcome, OutputLimited, Refused, resolve
from llm_wire.providers.response import FinishReason, Usage
from llm_wire.result import Ok, unwrap
from llm_wire.value import Value, parse

FIXTURES = Path(__file__).with_name("fixtures")
APP = Path(__file__).with_name("durable_fixture_app.py")


def whole(value: object) -> Any:
    """Every field of attrs records (in a dict or tuple too), recursively, those ``==`` leaves out too."""
    if isinstance(value, dict):
        return {key: whole(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [whole(item) for item in value]
    return attrs.asdict(value)  # type: ignore[arg-type]


def text_of(*parts: str) -> str:
    return FIXTURES.joinpath(*parts).read_text(encoding="utf-8")


class TestStoreFiles:
    """Run records of format 2 (and 1), alone and in a SQLite store file."""

    @pytest.mark.parametrize("name", list(RUN_RECORDS))
    def test_a_record_reads_whole(self, name: str) -> None:
        """Each status, event kind, call, audit, approval, continuation and result reads back as written."""
        assert whole(unwrap(record_from_json(text_of("store", f"{name}.json")))) == whole(RUN_RECORDS[name])

    @pytest.mark.parametrize("name", list(RUN_RECORDS))
    def test_today_writes_the_same_document(self, name: str) -> None:
        """The record written today is the stored document, member for member (the format is still 2)."""
        assert parse(record_to_json(RUN_RECORDS[name])) == parse(text_of("store", f"{name}.json"))

    def test_format_1_reads_without_started_calls_and_audits(self) -> None:
        """Format 1 had no started calls nor audits: it reads as the record without them."""
        expected = attrs.evolve(RUNNING, started={}, audits={})
        assert whole(unwrap(record_from_json(text_of("store", "format-1.json")))) == whole(expected)

    def test_a_store_file_reads_and_takes_new_writes(self, tmp_path: Path) -> None:
        """Every record of an old SQLite file loads whole, and its runs go on under today's writes."""
        path = tmp_path / "runs.sqlite"
        shutil.copy(FIXTURES / "store" / "runs.sqlite", path)
        store = SqliteRunStore(path)
        for name, record in RUN_RECORDS.items():
            assert whole(unwrap(store.load(record.run_id))) == whole(record), name
        late = AdmittedResult("c3", "run-running:c3", "charge", ToolOutcome.success("charged"))
        admitted = unwrap(store.admit("run-running", RUNNING.revision, late)).record
        ended = StoredResult("ok", "answered")
        unwrap(store.transition("run-running", admitted.revision, RunStatus.COMPLETED, result=ended))
        store.close()
        again = SqliteRunStore(path)
        loaded = unwrap(again.load("run-running"))
        again.close()
        assert (loaded.status, loaded.revision, loaded.result) == (RunStatus.COMPLETED, 12, ended)
        assert whole(loaded.events[:10]) == whole(RUNNING.events)
        assert [e.kind.value for e in loaded.events[10:]] == ["tool_result_admitted", "status_changed"]
        assert whole(loaded.admitted) == whole({**RUNNING.admitted, "c3": late})
        assert whole(loaded.started) == whole(RUNNING.started)
        assert whole(loaded.audits) == whole(RUNNING.audits)


class TestConversationFiles:
    """Conversations of format ``llm_wire.conversation.v1``."""

    @pytest.mark.parametrize("name", list(CONVERSATIONS))
    def test_a_conversation_reads_whole(self, name: str) -> None:
        """Every message kind and every provider's replay data reads back as written."""
        loaded = unwrap(message.loads(text_of("conversation", f"{name}.json")))
        assert [whole(m) for m in loaded] == [whole(m) for m in CONVERSATIONS[name]]

    @pytest.mark.parametrize("name", list(CONVERSATIONS))
    def test_today_writes_the_same_document(self, name: str) -> None:
        """A conversation written today is the stored document, member for member."""
        messages: tuple[Message, ...] = CONVERSATIONS[name]
        assert parse(message.dumps(messages)) == parse(text_of("conversation", f"{name}.json"))


def _replay_data(outcome: Outcome) -> list[Value]:
    """What ``==`` leaves out of an outcome: the provider's usage object, response id and replay data."""
    usage = outcome.usage
    kept: list[Value] = [None if usage is None else usage.raw]
    if isinstance(outcome, Answer | NeedsTools):
        turn = outcome.turn
        kept += [turn.response_id, turn.provider_data, [call.provider_state for call in turn.calls]]
    return kept


class TestModelRounds:
    """What a durable model step recorded, in today's form and in the positional form before it."""

    @pytest.mark.parametrize("name", list(RESPONSES))
    def test_a_round_resolves_to_its_outcome(self, name: str) -> None:
        """Each recorded response resolves again to the same outcome, replay data and usage included."""
        prepared = round_prepared()
        recorded = json.loads(text_of("durable", "rounds.json"))[name]
        expected = resolve(Ok(RESPONSES[name]), prepared)
        again = _outcome_of(unwrap(parse(json.dumps(recorded))), prepared)
        assert again == expected
        assert _replay_data(again) == _replay_data(expected)

    def test_failed_rounds_read_as_failures(self) -> None:
        """A failed call keeps its usage; a response that was not JSON reads as that failure."""
        prepared = round_prepared()
        recorded = unwrap(parse(text_of("durable", "rounds.json")))
        assert isinstance(recorded, dict)
        failed = _outcome_of(recorded["failure"], prepared)
        assert isinstance(failed, Failure)
        assert failed.usage == ROUND_USAGE
        assert failed.usage is not None
        assert failed.usage.raw == ROUND_USAGE.raw
        odd = _outcome_of(recorded["not-json"], prepared)
        assert isinstance(odd, Failure)
        assert "a value that is not JSON" in odd.describe()

    def test_positional_rounds_read_without_replay_data(self) -> None:
        """The positional rounds of earlier versions give their text, calls and usage, no replay data."""
        prepared = round_prepared()
        recorded = unwrap(parse(text_of("durable", "positional-rounds.json")))
        assert isinstance(recorded, dict)
        usage = Usage(10, 5, 15)
        call = ToolCall("call-1", "get_user_country", "{}")
        needs = _outcome_of(recorded["needs-tools"], prepared)
        assert isinstance(needs, NeedsTools)
        assert needs.turn.calls == (call,)
        assert [c.provider_state for c in needs.turn.calls] == [None]
        assert needs.usage == usage
        assert needs.usage is not None
        assert needs.usage.raw == ROUND_USAGE.raw
        answer = _outcome_of(recorded["answer"], prepared)
        assert isinstance(answer, Answer)
        assert (answer.turn.text, answer.turn.provider_data, answer.usage) == ("Mexico City", None, usage)
        cut = _outcome_of(recorded["output-limited"], prepared)
        assert isinstance(cut, OutputLimited)
        assert (cut.text, cut.calls, cut.incomplete) == ("cut", (call,), ())
        filtered = _outcome_of(recorded["content-filter"], prepared)
        assert filtered == Refused(FinishReason.CONTENT_FILTER, None, "", usage)
        assert _outcome_of(recorded["refusal"], prepared) == Refused(FinishReason.REFUSAL, "no", "", usage)
        plain = _outcome_of(recorded["answer-no-usage"], prepared)
        assert isinstance(plain, Answer)
        assert (plain.turn.text, plain.usage) == ("plain", None)
        failed = _outcome_of(recorded["failure"], prepared)
        assert isinstance(failed, Failure)
        assert failed.usage == usage


def _unpickled(text: str) -> Any:
    """A value DBOS kept (its default serializer: base64 of a pickle); the fixture is ours."""
    return pickle.loads(base64.b64decode(text))


def _dbos_records() -> dict[str, Any]:
    records: dict[str, Any] = json.loads(text_of("durable", "dbos-records.json"))
    return records


class TestDbosRecords:
    """What DBOS kept of runs that earlier code made, read by today's durable runner."""

    def test_model_steps_resolve_to_their_outcomes(self) -> None:
        """Each model step's record resolves to the response the scripted model gave."""
        from durable_fixture_app import USAGE, tools

        from llm_wire import config, prepare, request

        declared = [descriptor.tool for descriptor in tools().descriptors()]
        prepared = unwrap(
            prepare(config(Provider.OPENAI_CHAT), request("any-model", [user("go")]).with_tools(declared))
        )
        models = [s for s in _dbos_records()["steps"] if s["function_name"].endswith(".model")]
        outcomes = [_outcome_of(_unpickled(step["output"]), prepared) for step in models]
        calls = {
            "plain": (ToolCall("look-1", "lookup", '{"word": "wire"}'), ToolCall("flaky-1", "flaky", "{}")),
            "gated": (ToolCall("note-1", "note", '{"text": "hello"}'),),
        }
        for step, outcome in zip(models, outcomes, strict=True):
            assert outcome.usage == USAGE
            assert outcome.usage is not None
            assert outcome.usage.raw == USAGE.raw
            if isinstance(outcome, NeedsTools):
                assert outcome.turn.calls == calls[step["function_name"].split(".")[0]]
            else:
                assert isinstance(outcome, Answer)
                assert outcome.turn.text == "done"
        assert [type(o).__name__ for o in outcomes] == [
            "NeedsTools",
            "Answer",
            "NeedsTools",
            "Answer",
            "NeedsTools",
        ]

    def test_tool_steps_give_their_outcomes(self) -> None:
        """The pickled outcomes earlier tool steps kept read as they were: a success and a failure."""
        tools = [s for s in _dbos_records()["steps"] if s["function_name"].endswith(".tool")]
        outcomes = [_tool_outcome_of(_unpickled(step["output"]), "t") for step in tools]
        unavailable = "tool flaky failed: unavailable (ConnectionError)"
        failure = ToolFailure(ErrorCategory.UNAVAILABLE, "unavailable", unavailable, True)
        expected = [
            ToolOutcome("wire: a word"),
            ToolOutcome(unavailable, failure=failure, metadata={"tool_exception": "ConnectionError"}),
            ToolOutcome("noted hello"),
        ]
        assert [whole(o) for o in outcomes] == [whole(o) for o in expected]

    def test_workflow_inputs_and_outputs_read(self) -> None:
        """
        Inputs passed by position (model, conversation, approvals, usage, ceilings) read as one start, and
        the ``status`` and ``waiting_for_approval:token`` outputs as where the run was left.
        """
        workflows = {w["workflow_uuid"]: w for w in _dbos_records()["workflows"]}
        note = (
            user("note hello"),
            AssistantTurn("", (ToolCall("note-1", "note", '{"text": "hello"}'),), Provider.OPENAI_CHAT),
        )
        carried = {
            "input_tokens": 10,
            "output_tokens": 5,
            "total_tokens": 15,
            "cached_tokens": 4,
            "reasoning_tokens": 0,
            "model_calls": 1,
            "rounds": 0,
        }
        expected = {
            "run-plain": ((user("look up wire"),), ProjectionPolicy(), (), {}),
            "run-resumed": (note[:1], ProjectionPolicy(max_bytes=1024, max_tokens=128), (), {}),
            "run-resumed/resume-5": (
                note,
                ProjectionPolicy(max_bytes=1024, max_tokens=128),
                ("note-1",),
                carried,
            ),
            "run-suspended": (note[:1], ProjectionPolicy(max_bytes=1024, max_tokens=128), (), {}),
        }
        for uuid, (conversation, policy, approved, usage) in expected.items():
            args = _unpickled(workflows[uuid]["inputs"])["args"]
            assert args[0] == uuid.partition("/")[0]
            start = _start_of(args[1], tuple(args[2:]))
            assert (start.model_name, start.policy, start.approved, start.carried) == (
                "any-model",
                policy,
                approved,
                usage,
            )
            assert unwrap(message.loads(start.conversation)) == conversation
        ended = {uuid: _stopped_of(_unpickled(w["output"])) for uuid, w in workflows.items()}
        token = json.loads(text_of("durable", "suspended.json"))["token"]
        assert ended["run-plain"] == ended["run-resumed/resume-5"] == _Stopped(RunStatus.COMPLETED)
        assert ended["run-suspended"] == _Stopped(RunStatus.WAITING_FOR_APPROVAL, token)
        resumed = ended["run-resumed"]
        assert resumed is not None
        assert resumed.status is RunStatus.WAITING_FOR_APPROVAL
        assert resumed.token


class TestSuspendedRun:
    """A run that earlier code left waiting for approval."""

    def test_today_resumes_it(self, tmp_path: Path) -> None:
        """Approved with today's code, it runs its call once and completes, usage added up across both."""
        done = subprocess.run(
            [sys.executable, str(APP), "resume", str(tmp_path), str(FIXTURES / "durable")],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert json.loads(done.stdout.splitlines()[-1]) == {
            "status": "completed",
            "content": "done",
            "usage": {
                "input_tokens": 20,
                "output_tokens": 10,
                "total_tokens": 30,
                "cached_tokens": 8,
                "reasoning_tokens": 0,
                "model_calls": 2,
                "rounds": 1,
            },
            "admitted": {"note-1": "noted hello"},
            "audited": [[1024, 128]],
            "sequences_ok": True,
        }
