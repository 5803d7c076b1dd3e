"""
``PostgresRunStore``: the run store in a PostgreSQL database (``psycopg`` 3, extra ``postgres``), one source
of truth for many worker processes. Same tables and record codecs as the SQLite store; ``psycopg`` is imported
when a store is made, never with the package.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from contextlib import suppress
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

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

if TYPE_CHECKING:
    import psycopg

__all__ = ["PostgresRunStore"]

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, format INTEGER NOT NULL, revision INTEGER NOT NULL, head TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL, sequence INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, sequence)
);
""" + "".join(
    f"""
CREATE TABLE IF NOT EXISTS {table} (
    run_id TEXT NOT NULL, position INTEGER NOT NULL, call_id TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (run_id, call_id)
);"""
    for table in KEYED
)

_HEAD = "SELECT format, head FROM runs WHERE run_id = %s FOR UPDATE"


def _written(first: str) -> str:
    """
    One statement that writes a run's head (``first``: an ``INSERT`` or ``UPDATE`` of ``runs``) with its
    new events and keyed rows (arrays, ``_rows_of``), which are written only when the head is, and counts
    the heads written: atomic as one statement is, and one round trip.
    """
    keyed = "".join(
        f""", {table}_rows AS (
    INSERT INTO {table} (run_id, position, call_id, body)
    SELECT head.run_id, %s, r.call_id, r.body FROM head, unnest(%s::text[], %s::text[]) AS r(call_id, body)
    ON CONFLICT (run_id, call_id) DO UPDATE SET position = EXCLUDED.position, body = EXCLUDED.body)"""
        for table in KEYED
    )
    return f"""WITH head AS ({first} RETURNING run_id), event_rows AS (
    INSERT INTO events (run_id, sequence, body)
    SELECT head.run_id, e.sequence, e.body FROM head, unnest(%s::int[], %s::text[]) AS e(sequence, body)
){keyed}
SELECT count(*) FROM head"""


#: A run's first head, and a move of its head from a revision, each with its rows.
_CREATE = _written("INSERT INTO runs (run_id, format, revision, head) VALUES (%s, %s, %s, %s)")
_MOVE = _written("UPDATE runs SET format = %s, revision = %s, head = %s WHERE run_id = %s AND revision = %s")
#: The whole record, and one call's keyed rows, each in one query.
_WHOLE, _CALL_KEYED = rows_query("%s", whole=True), rows_query("%s", whole=False)
#: A write's reads: the run's head, then one call's keyed rows.
_READ = (_HEAD, _CALL_KEYED)

#: Who takes the schema lock while making the tables (``CREATE ... IF NOT EXISTS`` races between sessions).
_SCHEMA_LOCK = 0x6C6C6D5F77697265  # "llm_wire"
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]{0,62}")
#: SQLSTATEs of a write that waited too long or lost a race: nothing written, retry.
_BUSY = frozenset({"55P03", "40001", "40P01", "57014"})
#: SQLSTATEs of damaged data or indexes.
_CORRUPT = frozenset({"XX001", "XX002"})


def _store_error(exc: Exception, timeout: float) -> StoreError:
    """One boundary for the server's failures: busy, damaged, or unusable otherwise (connection, disk)."""
    state = getattr(exc, "sqlstate", None)
    if state in _BUSY:
        return StoreBusy(timeout)
    if state in _CORRUPT:
        return StoreCorrupt()
    return StoreUnavailable(int(state) if isinstance(state, str) and state.isdigit() else None)


class _Postgres:
    """
    The engine over one connection. It opens on first use, and again after it broke, so a store whose server
    is down answers every call with a typed error instead of raising.
    """

    def __init__(self, url: str, timeout: float, schema: str) -> None:
        import psycopg

        self._psycopg = psycopg
        self._url = url
        self._timeout = timeout
        self._schema = schema
        self._db: psycopg.Connection[Any] | None = None
        self._closed = False
        self._lock = threading.Lock()
        self._known = KnownRecords()
        with suppress(psycopg.Error):  # connect now when it can: a failure is what each call returns
            self._opened()

    def _opened(self) -> psycopg.Connection[Any]:
        if self._db is not None and not self._db.broken:
            return self._db
        if self._db is not None:
            self._db.close()
            self._db = None
        wait = max(1, round(self._timeout))
        db = self._psycopg.connect(self._url, autocommit=True, connect_timeout=wait)
        try:
            db.execute(f"SET lock_timeout = {max(1, round(self._timeout * 1000))}")
            with db.transaction():
                db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                db.execute(f'CREATE SCHEMA IF NOT EXISTS "{self._schema}"')
                db.execute(f'SET search_path TO "{self._schema}"')
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
        except BaseException:
            db.close()
            raise
        self._db = db
        return db

    def _guarded(
        self, work: Callable[[psycopg.Connection[Any]], Result[T, StoreError]]
    ) -> Result[T, StoreError]:
        """``work`` on the open connection under the lock; a database failure is a typed error."""
        with self._lock:
            if self._closed:
                return Err(StoreUnavailable())
            try:
                return work(self._opened())
            except self._psycopg.Error as exc:
                return Err(_store_error(exc, self._timeout))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._db is not None:
                self._db.close()
                self._db = None

    def insert(self, record: RunRecord) -> Result[None, StoreError]:
        def work(db: psycopg.Connection[Any]) -> Result[None, StoreError]:
            head = (record.run_id, RECORD_FORMAT, record.revision, render(head_value(record)))
            try:
                db.execute(_CREATE, (*head, *_rows_of(RunRecord(record.run_id, record.trace_id), record)))
            except self._psycopg.errors.UniqueViolation:  # another writer created this run first
                return Err(RunExists(record.run_id))
            self._known.created(record)
            return Ok(None)

        return self._guarded(work)

    def read(self, run_id: str) -> Result[RunRecord, StoreError]:
        def work(db: psycopg.Connection[Any]) -> Result[RunRecord, StoreError]:
            return whole_record(run_id, db.execute(_WHOLE, (run_id,) * (len(KEYED) + 2)).fetchall())

        return self._guarded(work)

    def update(self, run_id: str, step: Step[T], call_id: str | None = None) -> Result[T, StoreError]:
        def work(db: psycopg.Connection[Any]) -> Result[T, StoreError]:
            known = self._known.take(run_id)
            written = from_known(step, known, call_id, partial(_moved, db))
            if written is None:
                known = None
                with db.transaction():
                    written = from_read(db.execute, _READ, run_id, step, call_id, partial(_moved, db))
            seen, answer = written
            if seen is not None:
                self._known.wrote(run_id, call_id, seen, known)
            return answer

        return self._guarded(work)


def _moved(db: psycopg.Connection[Any], before: RunRecord, after: RunRecord) -> bool:
    """Write ``after`` over ``before`` if the run is still at ``before``'s revision; whether it was."""
    head = (RECORD_FORMAT, after.revision, render(head_value(after)), after.run_id, before.revision)
    row = db.execute(_MOVE, (*head, *_rows_of(before, after))).fetchone()
    return row is not None and row[0] == 1


def _rows_of(before: RunRecord, after: RunRecord) -> list[object]:
    """The arguments of ``_written``'s rows: ``after``'s new events, then its keyed rows new or changed."""
    parts = codecs()
    events = after.events[len(before.events) :]
    arguments: list[object] = [
        [e.sequence for e in events],
        [render(encoded(parts.event, e)) for e in events],
    ]
    for table in KEYED:
        old: Mapping[str, object] = getattr(before, table)
        part = parts.keyed[table]
        changed = [
            (call_id, item) for call_id, item in getattr(after, table).items() if old.get(call_id) != item
        ]
        arguments += [
            after.revision,
            [call_id for call_id, _ in changed],
            [render(encoded(part, item)) for _, item in changed],
        ]
    return arguments


class PostgresRunStore(StoreWrites):
    """
    A ``RunStore`` in a PostgreSQL database (``url``: a libpq URL or conninfo), its tables in ``schema``
    (made when absent). Every write is one transaction that locks the run's row, so any number of processes
    share the store and a stale writer gets ``RevisionConflict``. A row lock held past ``timeout`` seconds
    (or a lost serialization race) is ``StoreBusy`` (nothing written: retry), damaged data ``StoreCorrupt``,
    any other failure (server down, a call after ``close()``) ``StoreUnavailable`` with the SQLSTATE when it
    is a number, from each call, never raised. ``close()`` when done. Needs the extra ``postgres``.
    """

    def __init__(self, url: str, *, timeout: float = 30.0, schema: str = "llm_wire") -> None:
        if not isinstance(url, str):
            raise TypeError(f"url must be a str, not {type(url).__name__}")
        if not isinstance(schema, str) or not _IDENTIFIER.fullmatch(schema):
            raise ValueError("schema must be a lowercase SQL identifier (letters, digits, _)")
        self.schema = schema
        self._postgres = _Postgres(url, timeout, schema)
        super().__init__(self._postgres)

    def __repr__(self) -> str:
        return f"<PostgresRunStore schema {self.schema}>"

    def close(self) -> None:
        """Close the connection."""
        self._postgres.close()
