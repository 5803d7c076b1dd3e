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
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import evolve

from llm_wire.agent.store._codecs import (
    checked_format,
    codecs,
    encoded,
    head_of,
    head_value,
    parsed,
    rows_of,
)
from llm_wire.agent.store._protocol import (
    Step,
    StoreWrites,
)
from llm_wire.agent.store._record import (
    RECORD_FORMAT,
    RunExists,
    RunNotFound,
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

#: The tables keyed by call id, named as the record's members, in the order one query returns them.
_KEYED = ("started", "admitted", "audits")

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
    for table in _KEYED
)

_HEAD = "SELECT format, head FROM runs WHERE run_id = %s"
_EVENTS = "SELECT body FROM events WHERE run_id = %s ORDER BY sequence"
_MOVE_HEAD = "UPDATE runs SET format = %s, revision = %s, head = %s WHERE run_id = %s AND revision = %s"


def _keyed_query(*, one_call: bool) -> str:
    """The keyed rows of a run (or of one call of it) in one query: ``(table index, body)`` in order."""
    where = "run_id = %s AND call_id = %s" if one_call else "run_id = %s"
    parts = [
        f"SELECT {n} AS part, position, body FROM {table} WHERE {where}" for n, table in enumerate(_KEYED)
    ]
    return " UNION ALL ".join(parts) + " ORDER BY part, position"


_ALL_KEYED, _CALL_KEYED = _keyed_query(one_call=False), _keyed_query(one_call=True)

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
            try:
                with db.transaction():
                    db.execute(
                        "INSERT INTO runs (run_id, format, revision, head) VALUES (%s, %s, %s, %s)",
                        (record.run_id, RECORD_FORMAT, record.revision, render(head_value(record))),
                    )
                    self._append(db, RunRecord(record.run_id, record.trace_id), record)
            except self._psycopg.errors.UniqueViolation:  # another writer created this run first
                return Err(RunExists(record.run_id))
            return Ok(None)

        return self._guarded(work)

    def _head(
        self, db: psycopg.Connection[Any], run_id: str, call_id: str | None, *, whole: bool = False
    ) -> Result[RunRecord, StoreError]:
        """
        The run's head with its keyed rows: all of them (``whole``), those of ``call_id``, or none. Outside
        ``whole`` (a write) the run's row is locked until the transaction ends.
        """
        row = db.execute(_HEAD if whole else _HEAD + " FOR UPDATE", (run_id,)).fetchone()
        if row is None:
            return Err(RunNotFound(run_id))
        if isinstance(checked := checked_format(row[0]), Err):
            return checked
        match parsed(row[1]):
            case Err() as failed:
                return failed
            case Ok(document):
                pass
        match head_of(document):
            case Err() as failed:
                return failed
            case Ok(head):
                pass
        if not whole and call_id is None:
            return Ok(head)
        query, arguments = (_ALL_KEYED, (run_id,) * 3) if whole else (_CALL_KEYED, (run_id, call_id) * 3)
        bodies: list[list[str]] = [[] for _ in _KEYED]
        for part, _, body in db.execute(query, arguments):
            bodies[part].append(body)
        keyed: dict[str, Any] = {}
        for table, rows in zip(_KEYED, bodies, strict=True):
            match rows_of(codecs().keyed[table], rows):
                case Err() as failed:
                    return failed
                case Ok(found):
                    keyed[table] = {item.call_id: item for item in found}
        return Ok(evolve(head, **keyed))

    def read(self, run_id: str) -> Result[RunRecord, StoreError]:
        def work(db: psycopg.Connection[Any]) -> Result[RunRecord, StoreError]:
            with db.transaction():  # one snapshot: the head and its rows as one writer left them
                db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                match self._head(db, run_id, None, whole=True):
                    case Err() as failed:
                        return failed
                    case Ok(head):
                        pass
                bodies = [body for (body,) in db.execute(_EVENTS, (run_id,))]
            match rows_of(codecs().event, bodies):
                case Err() as failed:
                    return failed
                case Ok(events):
                    return Ok(evolve(head, events=tuple(events)))

        return self._guarded(work)

    def _append(self, db: psycopg.Connection[Any], before: RunRecord, after: RunRecord) -> None:
        parts = codecs()
        with db.cursor() as cursor:
            events = [
                (after.run_id, e.sequence, render(encoded(parts.event, e)))
                for e in after.events[len(before.events) :]
            ]
            if events:
                cursor.executemany("INSERT INTO events (run_id, sequence, body) VALUES (%s, %s, %s)", events)
            keyed: list[tuple[str, Mapping[str, object], Mapping[str, object]]] = [
                ("started", before.started, after.started),
                ("admitted", before.admitted, after.admitted),
                ("audits", before.audits, after.audits),
            ]
            for table, old, new in keyed:
                part = parts.keyed[table]
                rows = [
                    (after.run_id, after.revision, call_id, render(encoded(part, item)))
                    for call_id, item in new.items()
                    if old.get(call_id) != item
                ]
                if rows:
                    cursor.executemany(
                        f"INSERT INTO {table} (run_id, position, call_id, body) VALUES (%s, %s, %s, %s) "
                        "ON CONFLICT (run_id, call_id) DO UPDATE SET position = EXCLUDED.position, "
                        "body = EXCLUDED.body",
                        rows,
                    )

    def update(self, run_id: str, step: Step[T], call_id: str | None = None) -> Result[T, StoreError]:
        def work(db: psycopg.Connection[Any]) -> Result[T, StoreError]:
            with db.transaction():
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
                    head = render(head_value(after))
                    db.execute(_MOVE_HEAD, (RECORD_FORMAT, after.revision, head, run_id, before.revision))
                    self._append(db, before, after)
                return Ok(answer)

        return self._guarded(work)


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
