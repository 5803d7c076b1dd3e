"""
``SqliteRunStore``: the run store in one SQLite file (standard library ``sqlite3``, WAL).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from typing import TypeVar

from llm_wire.agent.store._codecs import (
    KEYED,
    codecs,
    encoded,
    head_value,
    rows_query,
    whole_record,
)
from llm_wire.agent.store._known import KnownRecords, from_known, from_read
from llm_wire.agent.store._protocol import (
    Step,
    StoreWrites,
)
from llm_wire.agent.store._record import (
    RECORD_FORMAT,
    RunExists,
    RunRecord,
    StoreBusy,
    StoreCorrupt,
    StoreError,
    StoreUnavailable,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import render

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

_HEAD = "SELECT format, head FROM runs WHERE run_id = ?"
_MOVE_HEAD = "UPDATE runs SET format = ?, revision = ?, head = ? WHERE run_id = ? AND revision = ?"
#: The whole record, and one call's keyed rows, each in one query.
_WHOLE, _CALL_KEYED = rows_query("?", whole=True), rows_query("?", whole=False)
#: A write's reads: the run's head, then one call's keyed rows.
_READ = (_HEAD, _CALL_KEYED)


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
        self._known = KnownRecords()
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
                        (record.run_id, RECORD_FORMAT, record.revision, render(head_value(record))),
                    )
                    self._append(db, RunRecord(record.run_id, record.trace_id), record)
            except sqlite3.IntegrityError:  # another writer created this run first
                return Err(RunExists(record.run_id))
            self._known.created(record)
            return Ok(None)

        return self._guarded(work)

    def read(self, run_id: str) -> Result[RunRecord, StoreError]:
        def work(db: sqlite3.Connection) -> Result[RunRecord, StoreError]:
            return whole_record(run_id, db.execute(_WHOLE, (run_id,) * (len(KEYED) + 2)).fetchall())

        return self._guarded(work)

    def _append(self, db: sqlite3.Connection, before: RunRecord, after: RunRecord) -> None:
        parts = codecs()
        db.executemany(
            "INSERT INTO events (run_id, sequence, body) VALUES (?, ?, ?)",
            [
                (after.run_id, e.sequence, render(encoded(parts.event, e)))
                for e in after.events[len(before.events) :]
            ],
        )
        for table in KEYED:
            old: Mapping[str, object] = getattr(before, table)
            part = parts.keyed[table]
            db.executemany(
                f"INSERT OR REPLACE INTO {table} (run_id, position, call_id, body) VALUES (?, ?, ?, ?)",
                [
                    (after.run_id, after.revision, call_id, render(encoded(part, item)))
                    for call_id, item in getattr(after, table).items()
                    if old.get(call_id) != item
                ],
            )

    def update(self, run_id: str, step: Step[T], call_id: str | None = None) -> Result[T, StoreError]:
        def work(db: sqlite3.Connection) -> Result[T, StoreError]:
            known = self._known.take(run_id)
            with _transaction(db):
                written = from_known(step, known, call_id, partial(self._moved, db))
                if written is None:
                    known = None
                    written = from_read(db.execute, _READ, run_id, step, call_id, partial(self._moved, db))
            seen, answer = written
            if seen is not None:
                self._known.wrote(run_id, call_id, seen, known)
            return answer

        return self._guarded(work)

    def _moved(self, db: sqlite3.Connection, before: RunRecord, after: RunRecord) -> bool:
        """Write ``after`` over ``before`` if the run is still at ``before``'s revision; whether it was."""
        head = render(head_value(after))
        arguments = (RECORD_FORMAT, after.revision, head, after.run_id, before.revision)
        if db.execute(_MOVE_HEAD, arguments).rowcount != 1:
            return False
        self._append(db, before, after)
        return True


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
