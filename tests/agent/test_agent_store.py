"""
Run stores: the reference's scenarios 43-45 (§10) on every store (memory, SQLite, PostgreSQL), approvals and
continuations, the versioned JSON record, SQLite shared by two processes through one file, and PostgreSQL
shared by two processes racing on one run.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import json_values

from llm_wire.agent import ErrorCategory, ToolOutcome
from llm_wire.agent.projection import (
    LimitingFactor,
    PlainPayload,
    ProjectionMethod,
    ProjectionPolicy,
    ProjectionReport,
    project_payload,
)
from llm_wire.agent.store import (
    AdmittedResult,
    ApprovalDecision,
    CallRebound,
    InvalidTransition,
    InvalidWrite,
    MemoryRunStore,
    PostgresRunStore,
    ProjectionAudit,
    RecordEventKind,
    RevisionConflict,
    RunExists,
    RunNotFound,
    RunRecord,
    RunStatus,
    RunStore,
    SensitiveMetadata,
    SqliteRunStore,
    StartedCall,
    StoreBusy,
    StoreCorrupt,
    StoredResult,
    StoreUnavailable,
    UnreadableRecord,
    WriteProblem,
    record_from_json,
    record_to_json,
)
from llm_wire.agent.store._record import RECORD_FORMAT
from llm_wire.agent.store._rules import is_sensitive_key, sha256_hex
from llm_wire.result import Err, Ok, unwrap
from llm_wire.value import Value, parse, render


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunStore]:
    if request.param == "memory":
        yield MemoryRunStore()
    elif request.param == "sqlite":
        sqlite = SqliteRunStore(tmp_path / "runs.sqlite")
        yield sqlite
        sqlite.close()
    else:
        url = request.getfixturevalue("postgres").url()
        postgres = PostgresRunStore(url, schema=f"test_{uuid.uuid4().hex}")
        yield postgres
        postgres.close()


def running(store: RunStore) -> RunRecord:
    created = unwrap(store.create(metadata={"tenant": "acme"}))
    return unwrap(store.transition(created.run_id, created.revision, RunStatus.RUNNING))


def admitted(call_id: str, outcome: ToolOutcome, *, key: str = "", tool: str = "echo") -> AdmittedResult:
    return AdmittedResult(call_id, key or f"run:{call_id}", tool, outcome)


def audit_of(call_id: str, text: str, policy: ProjectionPolicy, tool: str = "echo") -> ProjectionAudit:
    projection = unwrap(project_payload(PlainPayload(text), policy))
    return ProjectionAudit(call_id, tool, sha256_hex(projection.text), projection.report)


class TestScenarios:
    """§10 scenarios 43-45 of the reference, one test each, on every store."""

    def test_scenario_43_revisions_admissions_terminal(self, store: RunStore) -> None:
        """Revisions, stale writes, duplicate admissions and terminal states behave as the reference says."""
        record = running(store)
        assert record.revision == 2
        assert record.run_id.startswith("run-")
        assert len(record.run_id) == 36
        stale = store.transition(record.run_id, 1, RunStatus.CANCELLED)
        assert stale == Err(RevisionConflict(1, 2))
        first = unwrap(store.admit(record.run_id, 2, admitted("call-1", ToolOutcome.success("original"))))
        assert not first.duplicate
        assert first.record.revision == 3
        again = unwrap(store.admit(record.run_id, 2, admitted("call-1", ToolOutcome.success("different"))))
        assert again.duplicate
        assert again.record.revision == 3
        assert again.admitted is not None
        assert again.admitted.outcome.content == "original"
        cancelled = unwrap(store.transition(record.run_id, 3, RunStatus.CANCELLED))
        assert cancelled.status is RunStatus.CANCELLED
        assert store.transition(record.run_id, 4, RunStatus.COMPLETED) == Err(
            InvalidTransition(RunStatus.CANCELLED, RunStatus.COMPLETED)
        )
        late = store.admit(record.run_id, 4, admitted("call-2", ToolOutcome.success("late")))
        assert late == Err(InvalidTransition(RunStatus.CANCELLED))

    def test_scenario_44_record_round_trip(self, store: RunStore) -> None:
        """A failed 5000-char outcome, ``timed_out`` and an audit survive; v1 loads; bad ones are refused."""
        record = running(store)
        failure = ToolOutcome.failed(ErrorCategory.TIMEOUT, "timeout", "t" * 5000, details={"after": 3})
        store.admit(record.run_id, 2, admitted("call-1", failure))
        policy = ProjectionPolicy(max_bytes=256, max_tokens=64)
        audit = audit_of("call-1", "t" * 5000, policy)
        unwrap(store.record_projection(record.run_id, 3, audit))
        ended = StoredResult("deadline", "deadline_reached", {"k": "v"}, {"input_tokens": 7})
        unwrap(store.transition(record.run_id, 4, RunStatus.TIMED_OUT, result=ended))
        loaded = unwrap(store.load(record.run_id))
        text = record_to_json(loaded)
        back = unwrap(record_from_json(text))
        assert back == loaded
        assert back.status is RunStatus.TIMED_OUT
        outcome = back.admitted["call-1"].outcome
        assert outcome.failure == failure.failure
        assert outcome.content == "t" * 5000
        assert back.audits["call-1"].projected_content_sha256 == audit.projected_content_sha256
        assert back.audits["call-1"].report.limiting_factor is LimitingFactor.BYTES_AND_TOKENS
        assert back.result == ended
        version1 = json.loads(text)
        version1["format"] = 1
        del version1["audits"]
        assert unwrap(record_from_json(json.dumps(version1))).audits == {}
        broken = json.loads(text)
        broken["audits"][0]["report"]["limiting_factor"] = "none"
        assert isinstance(record_from_json(json.dumps(broken)).error, UnreadableRecord)  # type: ignore[union-attr]
        future = json.loads(text)
        future["format"] = 99
        assert record_from_json(json.dumps(future)) == Err(
            UnreadableRecord("the format version is not 1 or 2", 99)
        )

    def test_scenario_45_projection_audit(self, store: RunStore) -> None:
        """An audit bumps the revision; a replay is a duplicate with no event; a different SHA is refused."""
        record = running(store)
        unwrap(store.admit(record.run_id, 2, admitted("call-1", ToolOutcome.success("x" * 3000))))
        policy = ProjectionPolicy(max_bytes=256, max_tokens=64)
        audit = audit_of("call-1", "x" * 3000, policy)
        recorded = unwrap(store.record_projection(record.run_id, 3, audit))
        assert recorded.record.revision == 4
        replay = unwrap(store.record_projection(record.run_id, 3, audit))
        assert replay.duplicate
        loaded = unwrap(store.load(record.run_id))
        assert [e.sequence for e in loaded.events] == [1, 2, 3, 4]
        last = loaded.events[-1]
        assert last.kind is RecordEventKind.TOOL_OUTPUT_PROJECTION_RECORDED
        assert "x" * 10 not in json.dumps(dict(last.data))
        other = ProjectionAudit("call-1", "echo", "0" * 64, audit.report)
        assert store.record_projection(record.run_id, 4, other) == Err(
            CallRebound("call-1", "model-visible projection")
        )
        bad = ProjectionReport(
            truncated=False,
            original_bytes=3000,
            projected_bytes=100,
            original_estimated_tokens=750,
            projected_estimated_tokens=25,
            max_bytes=256,
            max_tokens=64,
            limiting_factor=LimitingFactor.NONE,
            method=ProjectionMethod.VERBATIM,
        )
        inconsistent = ProjectionAudit("call-1", "echo", audit.projected_content_sha256, bad)
        assert store.record_projection(record.run_id, 4, inconsistent) == Err(
            InvalidWrite(WriteProblem.INCONSISTENT_REPORT)
        )


class TestWrites:
    """Malformed writes and the secret-key rule."""

    def test_malformed_writes(self, store: RunStore) -> None:
        """Empty ids, a bad SHA, an audit without admission and an unknown run are typed errors."""
        record = running(store)
        empty = admitted("", ToolOutcome.success("x"))
        assert store.admit(record.run_id, 2, empty) == Err(InvalidWrite(WriteProblem.EMPTY_CALL_ID))
        policy = ProjectionPolicy()
        audit = audit_of("call-9", "hello", policy)
        assert store.record_projection(record.run_id, 2, audit) == Err(
            InvalidWrite(WriteProblem.NOT_ADMITTED)
        )
        bad_sha = ProjectionAudit("call-9", "echo", "ABC", audit.report)
        assert store.record_projection(record.run_id, 2, bad_sha) == Err(
            InvalidWrite(WriteProblem.BAD_SHA256)
        )
        assert store.load("run-missing") == Err(RunNotFound("run-missing"))
        unwrap(store.admit(record.run_id, 2, admitted("call-1", ToolOutcome.success("x"))))
        rebound = admitted("call-1", ToolOutcome.success("x"), key="other-key")
        assert store.admit(record.run_id, 3, rebound) == Err(CallRebound("call-1", "idempotency_key"))
        renamed = admitted("call-1", ToolOutcome.success("x"), tool="other")
        assert store.admit(record.run_id, 3, renamed) == Err(CallRebound("call-1", "tool_name"))

    def test_started_calls_and_existing_runs(self, store: RunStore) -> None:
        """A started call is marked once (a repeat is a duplicate); a run id is created once."""
        record = running(store)
        call = StartedCall("call-1", "run:call-1", "echo")
        first = unwrap(store.start_call(record.run_id, 2, call))
        assert not first.duplicate
        again = unwrap(store.start_call(record.run_id, 2, call))
        assert again.duplicate
        assert again.admitted is None
        assert again.record.started == {"call-1": call}
        other = StartedCall("call-1", "other", "echo")
        assert isinstance(store.start_call(record.run_id, 3, other).error, CallRebound)  # type: ignore[union-attr]
        assert store.create(run_id=record.run_id) == Err(RunExists(record.run_id))
        loaded = unwrap(store.load(record.run_id))
        assert unwrap(record_from_json(record_to_json(loaded))).started == {"call-1": call}

    def test_interleaved_calls(self, store: RunStore) -> None:
        """Writes of one call between two of another: the repeat of the first is still seen as one."""
        record = running(store)
        first, second = StartedCall("c1", "run:c1", "echo"), StartedCall("c2", "run:c2", "echo")
        assert not unwrap(store.start_call(record.run_id, 2, first)).duplicate
        assert not unwrap(store.start_call(record.run_id, 3, second)).duplicate
        assert unwrap(store.start_call(record.run_id, 4, first)).duplicate
        outcome = admitted("c1", ToolOutcome.success("x"), key="run:c1")
        unwrap(store.admit(record.run_id, 4, outcome))
        unwrap(store.admit(record.run_id, 5, admitted("c2", ToolOutcome.success("y"), key="run:c2")))
        replay = unwrap(store.admit(record.run_id, 6, outcome))
        assert (replay.duplicate, replay.admitted) == (True, outcome)
        final = unwrap(store.load(record.run_id))
        assert (final.revision, list(final.started), list(final.admitted)) == (6, ["c1", "c2"], ["c1", "c2"])

    def test_sensitive_metadata(self, store: RunStore) -> None:
        """Keys that look like secrets are refused at run start, and the text does not repeat the key."""
        for key in ("token", "apiKey", "session.cookie", "db_password", "x-api-key", "clientSecret"):
            assert is_sensitive_key(key), key
        for key in ("tenant", "tokenizer", "user_id", "cookies_enabled"):
            assert not is_sensitive_key(key), key
        refused = store.create(metadata={"authToken": "abc"})
        assert refused == Err(SensitiveMetadata("authToken"))
        assert isinstance(refused, Err)
        assert "authToken" not in str(refused.error)


class TestApprovals:
    """Suspension, resolution and claims (recovery included) at the store."""

    def test_approve_claim_and_reclaim(self, store: RunStore) -> None:
        """Approve, claim, reclaim after a crash; a terminal write clears the continuation."""
        record = running(store)
        policy = ProjectionPolicy(max_bytes=1024, max_tokens=128)
        suspended = unwrap(store.suspend(record.run_id, 2, (("write-a", "write"),), {"round": 1}, policy))
        waiting = suspended.record
        assert waiting.status is RunStatus.WAITING_FOR_APPROVAL
        assert waiting.continuation is not None
        assert waiting.continuation.policy == policy
        assert suspended.token not in record_to_json(unwrap(store.load(record.run_id)))
        early = store.claim(record.run_id, 3, suspended.token)
        assert early == Err(InvalidWrite(WriteProblem.NOT_APPROVED))
        wrong = store.resolve_approval(record.run_id, 3, "not-the-token", "write-a", approved=True)
        assert wrong == Err(InvalidWrite(WriteProblem.BAD_TOKEN))
        approved = unwrap(store.resolve_approval(record.run_id, 3, suspended.token, "write-a", approved=True))
        assert approved.approvals["write-a"].decision is ApprovalDecision.APPROVED
        claimed = unwrap(store.claim(record.run_id, 4, suspended.token))
        assert claimed.status is RunStatus.RUNNING
        assert claimed.continuation is not None
        assert claimed.continuation.active
        assert store.claim(record.run_id, 4, suspended.token) == Err(RevisionConflict(4, 5))
        reclaimed = unwrap(store.claim(record.run_id, 5, suspended.token))
        assert reclaimed.continuation is not None
        assert reclaimed.continuation.claims == 2
        assert reclaimed.continuation.state == {"round": 1}
        done = unwrap(
            store.transition(record.run_id, 6, RunStatus.COMPLETED, result=StoredResult("ok", "stop"))
        )
        assert done.continuation is None
        assert [e.sequence for e in unwrap(store.load(record.run_id)).events] == list(range(1, 8))

    def test_denial_fails_the_run(self, store: RunStore) -> None:
        """A denied approval ends the run as failed with the reason."""
        record = running(store)
        suspended = unwrap(store.suspend(record.run_id, 2, (("c1", "write"),), None, ProjectionPolicy()))
        denied = unwrap(
            store.resolve_approval(record.run_id, 3, suspended.token, "c1", approved=False, reason="no")
        )
        assert denied.status is RunStatus.FAILED
        assert denied.result == StoredResult("no", "tool_call_denied", {"tool_call_id": "c1"})


class TestRecords:
    """The versioned JSON record."""

    def test_corrupt_json_is_typed(self) -> None:
        """Text that is not a record is an ``UnreadableRecord``, never an exception."""
        for text in ("", "{", "[]", '{"format": 2}', '{"format": "2"}', "null"):
            assert isinstance(record_from_json(text), Err)
        with pytest.raises(TypeError, match="text"):
            record_from_json(3)  # type: ignore[arg-type]

    @settings(max_examples=60)
    @given(json_values(), st.text(max_size=200), st.booleans())
    def test_round_trip(self, data: object, content: str, failed: bool) -> None:
        """Any admitted outcome (exact numbers included) survives ``record_to_json``/``record_from_json``."""
        store = MemoryRunStore()
        record = running(store)
        outcome = (
            ToolOutcome.failed(ErrorCategory.CONFLICT, "conflict", content, details=data)  # type: ignore[arg-type]
            if failed
            else ToolOutcome.success(content, data)  # type: ignore[arg-type]
        )
        unwrap(store.admit(record.run_id, 2, admitted("c", outcome)))
        loaded = unwrap(store.load(record.run_id))
        back = unwrap(record_from_json(record_to_json(loaded)))
        assert back == loaded
        kept = back.admitted["c"].outcome
        # Equal as JSON values: ``-0`` (a Decimal) reads back as the integer 0.
        assert parse(kept.model_text()) == parse(outcome.model_text())
        assert json.loads(record_to_json(back))["format"] == RECORD_FORMAT

    @settings(max_examples=100)
    @given(st.text(max_size=300))
    def test_arbitrary_text_never_raises(self, text: str) -> None:
        """Arbitrary text is refused or read, never raised on."""
        assert isinstance(record_from_json(text), Ok | Err)

    @pytest.mark.parametrize(
        ("where", "value"),
        [
            (("events", 0, "at"), 10**400),
            (("admitted", 0, "outcome", "failure", "code"), ""),
            (("admitted", 0, "outcome", "failure", "retry_after"), 10**400),
            (("audits", 0, "at"), -(10**400)),
            (("started", 0, "attempt"), "1"),
        ],
        ids=["event-at-huge", "empty-code", "retry-after-huge", "audit-at-huge", "attempt-as-text"],
    )
    def test_parts_a_record_refuses_are_typed(self, where: tuple[str | int, ...], value: Value) -> None:
        """A number out of a float's range or an empty code is ``UnreadableRecord``, not an exception."""
        assert isinstance(record_from_json(render(_replaced(_rich_document(), where, value))), Err)

    @settings(max_examples=150)
    @given(st.data())
    def test_any_part_replaced_never_raises(self, data: st.DataObject) -> None:
        """Any member of a stored record replaced by any JSON value is read or refused, never raised on."""
        document = _rich_document()
        where = data.draw(st.sampled_from(_paths(document)))
        edges: list[Value] = [10**400, -(10**400), "", -1, 0]
        value = data.draw(json_values() | st.sampled_from(edges))
        match record_from_json(render(_replaced(document, where, value))):
            case Err(error):
                assert isinstance(error, UnreadableRecord)
            case Ok(record):
                assert isinstance(record, RunRecord)


def _rich_document() -> Value:
    """A stored record with every kind of row: a started call, a failed admission, an audit."""
    store = MemoryRunStore()
    record = running(store)
    started = unwrap(store.start_call(record.run_id, record.revision, StartedCall("c", "run:c", "echo", 1)))
    outcome = ToolOutcome.failed(ErrorCategory.RATE_LIMITED, "busy", "later", retryable=True, retry_after=2.5)
    done = unwrap(store.admit(record.run_id, started.record.revision, admitted("c", outcome)))
    policy = ProjectionPolicy(max_bytes=4096, max_tokens=1024)
    unwrap(store.record_projection(record.run_id, done.record.revision, audit_of("c", "later", policy)))
    return unwrap(parse(record_to_json(unwrap(store.load(record.run_id)))))


def _paths(value: Value, here: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    found = [here] if here else []
    if isinstance(value, dict):
        for key, member in value.items():
            found += _paths(member, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*here, index))
    return found


def _replaced(value: Value, where: tuple[str | int, ...], new: Value) -> Value:
    if not where:
        return new
    head, rest = where[0], where[1:]
    if isinstance(value, dict) and isinstance(head, str):
        return {**value, head: _replaced(value[head], rest, new)}
    assert isinstance(value, list)
    assert isinstance(head, int)
    return [_replaced(item, rest, new) if index == head else item for index, item in enumerate(value)]


_WRITER = """
import sys
from llm_wire.agent import ToolOutcome
from llm_wire.agent.store import AdmittedResult, SqliteRunStore
from llm_wire.result import unwrap

store = SqliteRunStore(sys.argv[1])
run_id = sys.argv[2]
for n in range(int(sys.argv[3])):
    while True:
        record = unwrap(store.load(run_id))
        call = f"{sys.argv[4]}-{n}"
        admitted = AdmittedResult(call, call, "t", ToolOutcome.success("x"))
        result = store.admit(run_id, record.revision, admitted)
        if result.__class__.__name__ == "Ok":
            break
store.close()
"""


class TestSqlite:
    """Two processes share one SQLite file."""

    def test_two_processes_write_one_run(self, tmp_path: Path) -> None:
        """Concurrent writers retry on conflicts; every admission lands once and the sequence stays whole."""
        path = tmp_path / "shared.sqlite"
        store = SqliteRunStore(path)
        record = running(store)
        script = textwrap.dedent(_WRITER)
        writers = [
            subprocess.Popen([sys.executable, "-c", script, str(path), record.run_id, "20", name])
            for name in ("a", "b")
        ]
        assert [w.wait(timeout=120) for w in writers] == [0, 0]
        final = unwrap(store.load(record.run_id))
        assert len(final.admitted) == 40
        assert [e.sequence for e in final.events] == list(range(1, final.revision + 1))
        assert final.revision == 42
        store.close()
        assert SqliteRunStore(path).load(record.run_id) == Ok(final)


@pytest.fixture(params=["sqlite", "postgres"])
def two_stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[RunStore, RunStore]]:
    """Two stores (two connections) on one database."""
    if request.param == "sqlite":
        stores: tuple[Any, Any] = (
            SqliteRunStore(tmp_path / "runs.sqlite"),
            SqliteRunStore(tmp_path / "runs.sqlite"),
        )
    else:
        url, schema = request.getfixturevalue("postgres").url(), f"two_{uuid.uuid4().hex}"
        stores = (PostgresRunStore(url, schema=schema), PostgresRunStore(url, schema=schema))
    yield stores
    for store in stores:
        store.close()


class TestTwoStores:
    """
    Two stores write one run: a store writes from the record its own last write left, and only while the
    run is still at that revision; what the other store wrote in between is seen as a fresh read sees it.
    """

    def test_writes_between_are_seen(self, two_stores: tuple[RunStore, RunStore]) -> None:
        """The other store's started call, admission and move are seen; the record ends whole and in order."""
        first, second = two_stores
        record = running(first)
        call = StartedCall("c1", "run:c1", "echo")
        assert not unwrap(second.start_call(record.run_id, 2, call)).duplicate
        again = unwrap(first.start_call(record.run_id, 3, call))  # the first store never saw c1 started
        assert again.duplicate
        assert again.record.started == {"c1": call}
        assert first.transition(record.run_id, 2, RunStatus.COMPLETED) == Err(RevisionConflict(2, 3))
        outcome = ToolOutcome.success("x")
        assert not unwrap(first.admit(record.run_id, 3, admitted("c1", outcome, key="run:c1"))).duplicate
        replay = unwrap(second.admit(record.run_id, 3, admitted("c1", outcome, key="run:c1")))
        assert replay.duplicate
        assert replay.admitted == admitted("c1", outcome, key="run:c1")
        other = StartedCall("c2", "run:c2", "echo")
        assert not unwrap(second.start_call(record.run_id, 4, other)).duplicate
        assert first.start_call(record.run_id, 4, StartedCall("c2", "run:c2", "echo", 1)) == Ok(
            unwrap(second.start_call(record.run_id, 5, other))
        )
        ended = unwrap(first.transition(record.run_id, 5, RunStatus.COMPLETED))
        final = unwrap(second.load(record.run_id))
        assert (final.status, final.revision, ended.revision) == (RunStatus.COMPLETED, 6, 6)
        assert list(final.started) == ["c1", "c2"]
        assert list(final.admitted) == ["c1"]
        assert [e.sequence for e in final.events] == list(range(1, 7))
        assert final == unwrap(first.load(record.run_id))

    def test_each_write_returns_the_run_as_stored(self, two_stores: tuple[RunStore, RunStore]) -> None:
        """Every write's record has the head a fresh read gives, and its call's rows as stored."""
        first, second = two_stores
        record = running(first)
        call = StartedCall("c1", "run:c1", "echo")
        written: list[RunRecord] = [unwrap(first.start_call(record.run_id, 2, call)).record]
        result = admitted("c1", ToolOutcome.success("x", {"n": 1}), key="run:c1")
        written.append(unwrap(first.admit(record.run_id, 3, result)).record)
        audit = audit_of("c1", "x", ProjectionPolicy())
        written.append(unwrap(first.record_projection(record.run_id, 4, audit)).record)
        for record_written in written:
            stored = unwrap(second.load(record.run_id))
            assert record_written.status == stored.status
            assert record_written.revision <= stored.revision
            for table in ("started", "admitted", "audits"):
                for call_id, item in getattr(record_written, table).items():
                    assert getattr(stored, table)[call_id] == item
        assert written[-1].revision == unwrap(second.load(record.run_id)).revision == 5


class TestSqliteFailures:
    """A damaged, foreign or locked file is a typed error from each call, and nothing is lost."""

    def test_not_a_database(self, tmp_path: Path) -> None:
        """A file that is no database is ``StoreCorrupt`` from every call, and is left as it was."""
        path = tmp_path / "notes.txt"
        path.write_bytes(b"these are my notes, not a database\n" * 200)
        before = path.read_bytes()
        store = SqliteRunStore(path)
        assert store.load("r") == Err(StoreCorrupt())
        assert store.create(run_id="r") == Err(StoreCorrupt())
        assert store.transition("r", 1, RunStatus.RUNNING) == Err(StoreCorrupt())
        store.close()
        assert path.read_bytes() == before
        assert "notes" not in str(StoreCorrupt())

    def test_truncated_file(self, tmp_path: Path) -> None:
        """A store file cut in half is ``StoreCorrupt``, never a ``sqlite3.DatabaseError``."""
        path = tmp_path / "runs.sqlite"
        store = SqliteRunStore(path)
        ids = [unwrap(store.create(metadata={"note": "x" * 400})).run_id for _ in range(150)]
        store.close()
        whole = path.read_bytes()
        path.write_bytes(whole[: len(whole) // 2])
        store = SqliteRunStore(path)
        assert store.load(ids[-1]) == Err(StoreCorrupt())
        assert store.create(run_id="late") == Err(StoreCorrupt())
        store.close()

    def test_locked_past_the_timeout(self, tmp_path: Path) -> None:
        """A write lock held past ``timeout`` is ``StoreBusy``; the record is intact and the retry lands."""
        path = tmp_path / "runs.sqlite"
        store = SqliteRunStore(path, timeout=0.2)
        record = unwrap(store.load(running(store).run_id))
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        busy = store.transition(record.run_id, record.revision, RunStatus.COMPLETED)
        assert busy == Err(StoreBusy(0.2))
        assert "locked" in str(StoreBusy(0.2))
        assert unwrap(store.load(record.run_id)) == record
        other.execute("ROLLBACK")
        other.close()
        done = unwrap(store.transition(record.run_id, record.revision, RunStatus.COMPLETED))
        assert done.status is RunStatus.COMPLETED
        assert unwrap(store.load(record.run_id)).revision == record.revision + 1
        store.close()

    def test_unopenable_path_and_closed_store(self, tmp_path: Path) -> None:
        """A path where no file can be made, or a closed store, is ``StoreUnavailable`` from each call."""
        store = SqliteRunStore(tmp_path / "missing" / "runs.sqlite")
        assert isinstance(store.create().error, StoreUnavailable)  # type: ignore[union-attr]
        assert isinstance(store.load("r").error, StoreUnavailable)  # type: ignore[union-attr]
        store.close()
        closed = SqliteRunStore(tmp_path / "runs.sqlite")
        record = running(closed)
        closed.close()
        assert closed.load(record.run_id) == Err(StoreUnavailable())
        moved = closed.transition(record.run_id, record.revision, RunStatus.COMPLETED)
        assert moved == Err(StoreUnavailable())


_RACER = """
import sys
from llm_wire.agent import ToolOutcome
from llm_wire.agent.store import AdmittedResult, PostgresRunStore, RevisionConflict
from llm_wire.result import Err, Ok, unwrap

url, schema, run_id, count, name = sys.argv[1:]
store = PostgresRunStore(url, schema=schema)
conflicts = 0
for n in range(int(count)):
    while True:
        record = unwrap(store.load(run_id))
        admitted = AdmittedResult(f"{name}-{n}", f"{name}-{n}", "t", ToolOutcome.success("x"))
        match store.admit(run_id, record.revision, admitted):
            case Ok():
                break
            case Err(RevisionConflict()):
                conflicts += 1
            case Err(other):
                raise SystemExit(f"unexpected {other}")
store.close()
print(conflicts)
"""


class TestPostgres:
    """Many processes share one PostgreSQL store; the server's failures are typed errors."""

    @pytest.fixture
    def url(self, postgres: Any) -> str:
        return str(postgres.url())

    def test_two_processes_race_on_one_run(self, url: str) -> None:
        """Two processes admit 20 calls each into one run: every write lands once, losers see a conflict."""
        schema = f"race_{uuid.uuid4().hex}"
        store = PostgresRunStore(url, schema=schema)
        record = running(store)
        script = textwrap.dedent(_RACER)
        racers = [
            subprocess.Popen(
                [sys.executable, "-c", script, url, schema, record.run_id, "20", name],
                stdout=subprocess.PIPE,
                text=True,
            )
            for name in ("a", "b")
        ]
        outputs = [racer.communicate(timeout=120)[0] for racer in racers]
        assert [racer.returncode for racer in racers] == [0, 0]
        assert all(text.strip().isdigit() for text in outputs)
        final = unwrap(store.load(record.run_id))
        assert len(final.admitted) == 40
        assert [e.sequence for e in final.events] == list(range(1, final.revision + 1))
        assert final.revision == 42
        store.close()
        again = PostgresRunStore(url, schema=schema)
        assert again.load(record.run_id) == Ok(final)
        again.close()

    def test_a_stale_writer_on_another_connection(self, url: str) -> None:
        """Two stores (two connections) on one run: the second write at a seen revision is a conflict."""
        schema = f"stale_{uuid.uuid4().hex}"
        first, second = PostgresRunStore(url, schema=schema), PostgresRunStore(url, schema=schema)
        record = running(first)
        seen = unwrap(second.load(record.run_id))
        unwrap(first.admit(record.run_id, record.revision, admitted("c1", ToolOutcome.success("x"))))
        late = second.transition(record.run_id, seen.revision, RunStatus.COMPLETED)
        assert late == Err(RevisionConflict(seen.revision, seen.revision + 1))
        assert second.create(run_id=record.run_id) == Err(RunExists(record.run_id))
        first.close()
        second.close()

    def test_row_locked_past_the_timeout(self, url: str) -> None:
        """A run's row locked by another session past ``timeout`` is ``StoreBusy``; the retry lands."""
        import psycopg

        schema = f"busy_{uuid.uuid4().hex}"
        store = PostgresRunStore(url, schema=schema, timeout=0.2)
        record = unwrap(store.load(running(store).run_id))
        with psycopg.connect(url) as other:
            other.execute(f"SELECT 1 FROM {schema}.runs WHERE run_id = %s FOR UPDATE", (record.run_id,))
            busy = store.transition(record.run_id, record.revision, RunStatus.COMPLETED)
            assert busy == Err(StoreBusy(0.2))
            assert unwrap(store.load(record.run_id)) == record
        done = unwrap(store.transition(record.run_id, record.revision, RunStatus.COMPLETED))
        assert done.status is RunStatus.COMPLETED
        store.close()

    def test_unreachable_server_closed_store_and_reconnect(self, url: str) -> None:
        """No server, a closed store: ``StoreUnavailable`` from each call; a dropped connection reopens."""
        import psycopg

        nowhere = PostgresRunStore("postgresql://llm_wire@127.0.0.1:1/postgres", timeout=1)
        assert isinstance(nowhere.create().error, StoreUnavailable)  # type: ignore[union-attr]
        assert isinstance(nowhere.load("r").error, StoreUnavailable)  # type: ignore[union-attr]
        nowhere.close()
        store = PostgresRunStore(url, schema=f"drop_{uuid.uuid4().hex}")
        record = running(store)
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
                "AND datname = 'postgres' AND backend_type = 'client backend'"
            )
        assert isinstance(store.load(record.run_id).error, StoreUnavailable)  # type: ignore[union-attr]
        assert unwrap(store.load(record.run_id)).revision == record.revision
        store.close()
        assert store.load(record.run_id) == Err(StoreUnavailable())
        with pytest.raises(TypeError, match="url"):
            PostgresRunStore(3)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="schema"):
            PostgresRunStore(url, schema="Robert'); DROP TABLE runs;--")

    def test_the_store_face_loads_no_driver(self) -> None:
        """``import llm_wire.agent.store`` does not load psycopg: the driver loads when a store is made."""
        code = "import sys, llm_wire.agent.store; print('psycopg' in sys.modules)"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert done.stdout.strip() == "False"
