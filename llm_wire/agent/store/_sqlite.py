"""
``SqliteRunStore``: the run store in one SQLite file (standard library ``sqlite3``, WAL).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

from attrs import evolve

from llm_wire.agent.store._json import (
    _admitted_of,
    _admitted_value,
    _audit_of,
    _audit_value,
    _Bad,
    _checked_format,
    _event_of,
    _event_value,
    _head_of,
    _head_value,
    _reading,
    _started_of,
    _started_value,
)
from llm_wire.agent.store._protocol import (
    Step,
    StoreWrites,
)
from llm_wire.agent.store._record import (
    _RECORD_LIMITS,
    RECORD_FORMAT,
    AdmittedResult,
    ProjectionAudit,
    RunExists,
    RunNotFound,
    RunRecord,
    StartedCall,
    StoreBusy,
    StoreCorrupt,
    StoreError,
    StoreUnavailable,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value, parse, render

__all__ = ["SqliteRunStore"]

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, format INTEGER NOT NULL, revision INTEGER NOT NULL, head TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL, sequence INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, sequence)
);
CREATE TABLE IF NOT EXISTS started (
    run_id TEXT NOT NULL, position INTEGER NOT NULL, call_id TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (run_id, call_id)
);
CREATE TABLE IF NOT EXISTS admitted (
    run_id TEXT NOT NULL, position INTEGER NOT NULL, call_id TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (run_id, call_id)
);
CREATE TABLE IF NOT EXISTS audits (
    run_id TEXT NOT NULL, position INTEGER NOT NULL, call_id TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (run_id, call_id)
);
"""

_EVENTS = "SELECT body FROM events WHERE run_id = ? ORDER BY sequence"
_MOVE_HEAD = "UPDATE runs SET format = ?, revision = ?, head = ? WHERE run_id = ? AND revision = ?"


def _parsed(text: str) -> Value:
    match parse(text, _RECORD_LIMITS):
        case Ok(value):
            return value
        case Err():
            raise _Bad("json")


def _write_started(item: object) -> Value:
    assert isinstance(item, StartedCall)
    return _started_value(item)


def _write_admitted(item: object) -> Value:
    assert isinstance(item, AdmittedResult)
    return _admitted_value(item)


def _write_audit(item: object) -> Value:
    assert isinstance(item, ProjectionAudit)
    return _audit_value(item)


#: The tables keyed by call id: how a row is read back and written.
_KEYED_READS: Mapping[str, tuple[str, Callable[[Value], object]]] = {
    "started": ("SELECT body FROM started WHERE run_id = ? ORDER BY position", _started_of),
    "admitted": ("SELECT body FROM admitted WHERE run_id = ? ORDER BY position", _admitted_of),
    "audits": ("SELECT body FROM audits WHERE run_id = ? ORDER BY position", _audit_of),
}
_KEYED_WRITES: Mapping[str, Callable[[object], Value]] = {
    "started": _write_started,
    "admitted": _write_admitted,
    "audits": _write_audit,
}


def _store_error(exc: sqlite3.Error, timeout: float) -> StoreError:
    """One boundary for the database's failures: busy, damaged, or unusable otherwise."""
    extended = getattr(exc, "sqlite_errorcode", None)  # absent on the module's own errors
    code = extended & 0xFF if isinstance(extended, int) else None
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return StoreBusy(timeout)
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return StoreCorrupt()
    return StoreUnavailable(code)


class _Sqlite:
    """
    The engine over one file. The connection opens on first use (and again after a failure to open), so a
    store whose file is busy, damaged or missing answers every call with a typed error instead of raising.
    """

    def __init__(self, path: Path, timeout: float) -> None:
        self._path = path
        self._timeout = timeout
        self._db: sqlite3.Connection | None = None
        self._closed = False
        self._lock = threading.Lock()
        with suppress(sqlite3.Error):  # open now when it can: a failure is what each call returns
            self._opened()

    def _opened(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        # Autocommit mode: every write opens its own ``BEGIN IMMEDIATE`` transaction.
        db = sqlite3.connect(self._path, timeout=self._timeout, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            with _transaction(db):
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
        except BaseException:
            db.close()
            raise
        self._db = db
        return db

    def _guarded(self, work: Callable[[sqlite3.Connection], Result[T, StoreError]]) -> Result[T, StoreError]:
        """``work`` on the open connection under the lock; a database failure is a typed error."""
        with self._lock:
            if self._closed:
                return Err(StoreUnavailable())
            try:
                return work(self._opened())
            except sqlite3.Error as exc:
                return Err(_store_error(exc, self._timeout))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._db is not None:
                self._db.close()
                self._db = None

    def insert(self, record: RunRecord) -> Result[None, StoreError]:
        def work(db: sqlite3.Connection) -> Result[None, StoreError]:
            try:
                with _transaction(db):
                    db.execute(
                        "INSERT INTO runs (run_id, format, revision, head) VALUES (?, ?, ?, ?)",
                        (record.run_id, RECORD_FORMAT, record.revision, render(_head_value(record))),
                    )
                    self._append(db, RunRecord(record.run_id, record.trace_id), record)
            except sqlite3.IntegrityError:  # another writer created this run first
                return Err(RunExists(record.run_id))
            return Ok(None)

        return self._guarded(work)

    def _head(
        self, db: sqlite3.Connection, run_id: str, call_id: str | None, *, whole: bool = False
    ) -> Result[RunRecord, StoreError]:
        """The run's head with its keyed rows: all of them (``whole``), those of ``call_id``, or none."""
        row = db.execute("SELECT format, head FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            return Err(RunNotFound(run_id))
        if isinstance(checked := _checked_format(row[0]), Err):
            return checked
        parts: dict[str, list[str]] = {table: [] for table in _KEYED_READS}
        if whole or call_id is not None:
            for table, (query, _) in _KEYED_READS.items():
                where = query if whole else query.replace("run_id = ?", "run_id = ? AND call_id = ?")
                arguments = (run_id,) if whole else (run_id, call_id)
                parts[table] = [body for (body,) in db.execute(where, arguments)]

        def read() -> RunRecord:
            rows = {t: [_KEYED_READS[t][1](_parsed(body)) for body in found] for t, found in parts.items()}
            return evolve(
                _head_of(_parsed(row[1])),
                started={c.call_id: c for c in rows["started"] if isinstance(c, StartedCall)},
                admitted={a.call_id: a for a in rows["admitted"] if isinstance(a, AdmittedResult)},
                audits={a.call_id: a for a in rows["audits"] if isinstance(a, ProjectionAudit)},
            )

        return _reading(read)

    def read(self, run_id: str) -> Result[RunRecord, StoreError]:
        def work(db: sqlite3.Connection) -> Result[RunRecord, StoreError]:
            match self._head(db, run_id, None, whole=True):
                case Err() as failed:
                    return failed
                case Ok(head):
                    pass
            rows = db.execute(_EVENTS, (run_id,)).fetchall()
            return _reading(lambda: evolve(head, events=tuple(_event_of(_parsed(body)) for (body,) in rows)))

        return self._guarded(work)

    def _append(self, db: sqlite3.Connection, before: RunRecord, after: RunRecord) -> None:
        db.executemany(
            "INSERT INTO events (run_id, sequence, body) VALUES (?, ?, ?)",
            [(after.run_id, e.sequence, render(_event_value(e))) for e in after.events[len(before.events) :]],
        )
        keyed: list[tuple[str, Mapping[str, object], Mapping[str, object]]] = [
            ("started", before.started, after.started),
            ("admitted", before.admitted, after.admitted),
            ("audits", before.audits, after.audits),
        ]
        for table, old, new in keyed:
            db.executemany(
                f"INSERT OR REPLACE INTO {table} (run_id, position, call_id, body) VALUES (?, ?, ?, ?)",
                [
                    (after.run_id, after.revision, call_id, render(_KEYED_WRITES[table](item)))
                    for call_id, item in new.items()
                    if old.get(call_id) != item
                ],
            )

    def update(self, run_id: str, step: Step[T], call_id: str | None = None) -> Result[T, StoreError]:
        def work(db: sqlite3.Connection) -> Result[T, StoreError]:
            with _transaction(db):
                match self._head(db, run_id, call_id):
                    case Err() as failed:
                        return failed
                    case Ok(before):
                        pass
                match step(before):
                    case Err() as failed:
                        return failed
                    case Ok((after, answer)):
                        pass
                if after.revision != before.revision:
                    head = render(_head_value(after))
                    db.execute(_MOVE_HEAD, (RECORD_FORMAT, after.revision, head, run_id, before.revision))
                    self._append(db, before, after)
                return Ok(answer)

        return self._guarded(work)


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One ``BEGIN IMMEDIATE`` transaction: committed, or rolled back on any exception (nothing half done)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.in_transaction:
            with suppress(sqlite3.Error):  # the failure that brought us here is the one to report
                db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


class SqliteRunStore(StoreWrites):
    """
    A ``RunStore`` in one SQLite file (standard library ``sqlite3``, WAL): every write is one
    ``BEGIN IMMEDIATE`` transaction, so several processes can share the file. A file that is damaged or no
    database is ``StoreCorrupt``, a lock held past ``timeout`` seconds ``StoreBusy`` (nothing written: retry),
    any other database failure (or a call after ``close()``) ``StoreUnavailable``, from each call, never
    raised. ``close()`` when done.
    """

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        if not isinstance(path, str | Path):
            raise TypeError(f"path must be a str or Path, not {type(path).__name__}")
        self.path = Path(path)
        self._sqlite = _Sqlite(self.path, timeout)
        super().__init__(self._sqlite)

    def __repr__(self) -> str:
        return f"<SqliteRunStore {self.path.name}>"

    def close(self) -> None:
        """Close the connection."""
        self._sqlite.close()
