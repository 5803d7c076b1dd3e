"""
Run records as versioned JSON: the record's codec (``codec.derive`` of the store's records), the
``record_to_json``/``record_from_json`` pair over it, and the reader of format 1.

A stored document is the record's object with ``"format": 2``. The maps by call id (started calls, admitted
results, audits, approvals) are kept as the lists of their values in order; a continuation keeps its
projection policy's two ceilings beside its other members. A record is written whole, so every member is
required on reading; an audit must carry a SHA-256 and a report that agrees with itself, and a number a
record cannot hold (a float past its range, an empty error code) is refused like a wrong type.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any, Protocol, TypeVar

from attrs import evolve, frozen

from llm_wire import codec
from llm_wire.agent.projection import ProjectionReport
from llm_wire.agent.projection._types import policy_of
from llm_wire.agent.store import _record
from llm_wire.agent.store._record import (
    _RECORD_LIMITS,
    _SHA256,
    RECORD_FORMAT,
    AdmittedResult,
    ApprovalState,
    Continuation,
    ProjectionAudit,
    RecordEvent,
    RunNotFound,
    RunRecord,
    StartedCall,
    StoreError,
    UnreadableRecord,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import DefinitionError, Schema, make
from llm_wire.value import NotJson, Value, parse, render

__all__ = [
    "record_from_json",
    "record_to_json",
]

T = TypeVar("T")

#: What every refused part of a stored record reads as.
_WRONG_SHAPE = "a member is missing or has the wrong type"
#: A stored record's members in order: its head, then its rows (which the SQLite store keeps in tables of
#: their own, a row per item).
HEAD = ("run_id", "trace_id", "status", "revision", "metadata", "approvals", "continuation", "result")
ROWS = ("events", "started", "admitted", "audits")


class _CallKeyed(Protocol):
    @property
    def call_id(self) -> str: ...


K = TypeVar("K", bound=_CallKeyed)


def _by_call_id(item: codec.Codec[K]) -> codec.Codec[Mapping[str, K]]:
    """A map by call id, kept as the list of its values in order (a repeated id: the last one counts)."""
    return codec.map(codec.list_of(item), _keyed, _values)


def _keyed(items: list[K]) -> Mapping[str, K]:
    return {item.call_id: item for item in items}


def _values(keyed: Mapping[str, K]) -> list[K]:
    return list(keyed.values())


def _checked_audit(audit: ProjectionAudit) -> Result[ProjectionAudit, str]:
    if not _SHA256.fullmatch(audit.projected_content_sha256):
        return Err("the projected content SHA-256 is not 64 lowercase hex characters")
    if not audit.report.is_consistent():
        return Err("the projection report contradicts itself")
    return Ok(audit)


def _continuation_of(stored: dict[str, Any]) -> Result[Continuation, str]:
    match policy_of(stored["max_bytes"], stored["max_tokens"]):
        case Err(error):
            return Err(error.describe())
        case Ok(policy):
            pass
    return Ok(
        Continuation(stored["state"], policy, stored["token_sha256"], stored["active"], stored["claims"])
    )


def _continuation_members(continuation: Continuation) -> Result[dict[str, Any], str]:
    policy = continuation.policy
    return Ok(
        {
            "state": continuation.state,
            "max_bytes": policy.max_bytes,
            "max_tokens": policy.max_tokens,
            "token_sha256": continuation.token_sha256,
            "active": continuation.active,
            "claims": continuation.claims,
        }
    )


def _as_it_is(value: Value) -> Result[Value, str]:
    return Ok(value)


def _object(value: Value) -> Result[Value, str]:
    return Ok(value) if isinstance(value, dict) else Err("expected an object")


#: Tool data and a continuation's state: any JSON value. A stored record is read with ``parse`` and written
#: with ``render``, which take nothing else (``render`` raises ``NotJson``, and writes a finite float as its
#: shortest repr, as it always has), so the codec takes the value as it is rather than walk it a second
#: time: ``json_value()`` with the walking left to the two ends.
_STORED_VALUE = codec.custom(_as_it_is, _as_it_is, schema=Schema())
#: An event's data, the same way: any JSON object.
_STORED_OBJECT = codec.custom(_object, _as_it_is, schema=make(("type", "object")))


@frozen
class Codecs:
    """The codecs of a stored record, of its head alone, and of the parts kept apart (events, rows)."""

    record: codec.Codec[RunRecord]
    #: The record without its rows (``ROWS``): what the SQLite store keeps in its ``runs`` table.
    head: codec.Codec[RunRecord]
    event: codec.Codec[RecordEvent]
    #: The started calls, admitted results and audits, under the names of their members (``ROWS``).
    keyed: Mapping[str, codec.Codec[Any]]
    report: codec.Codec[ProjectionReport]


@functools.cache
def codecs() -> Codecs:
    """The codecs, derived on first use."""
    value = _STORED_VALUE
    # The records print ``llm_wire.agent.store`` as their home, which binds neither the names their hints use
    # (``ToolOutcome``, ``ProjectionPolicy``) nor ``Decimal``, which ``Value`` names: their module does.
    names = {**vars(_record), "Decimal": Decimal}
    derived: dict[Any, codec.Codec[Any]] = {Value: value, Mapping[str, Value]: _STORED_OBJECT}

    def stored(hint: Any) -> codec.Codec[Any]:
        return codec.derive(hint, namespace=names, codecs=derived, require_all=True)

    report = stored(ProjectionReport)
    derived[ProjectionReport] = report
    audit = codec.try_map(stored(ProjectionAudit), _checked_audit, Ok)
    continuation = codec.try_map(
        codec.record(
            dict,
            codec.required("state", value),
            codec.required("max_bytes", codec.integer()),
            codec.required("max_tokens", codec.integer()),
            codec.required("token_sha256", codec.string()),
            codec.required("active", codec.boolean()),
            codec.required("claims", codec.integer()),
        ),
        _continuation_of,
        _continuation_members,
    )
    event, started, admitted = stored(RecordEvent), stored(StartedCall), stored(AdmittedResult)
    derived.update(
        {
            RecordEvent: event,
            Continuation: continuation,
            Mapping[str, StartedCall]: _by_call_id(started),
            Mapping[str, AdmittedResult]: _by_call_id(admitted),
            Mapping[str, ProjectionAudit]: _by_call_id(audit),
            Mapping[str, ApprovalState]: _by_call_id(stored(ApprovalState)),
        }
    )
    # A run record's members in the order they are written, each with the codec its type hint derives.
    hints = typing.get_type_hints(RunRecord, localns=names)
    if set(hints) != {*HEAD, *ROWS}:
        raise DefinitionError("RunRecord: HEAD and ROWS must name each of its fields once")
    members = {name: codec.required(name, stored(hints[name])) for name in (*HEAD, *ROWS)}
    whole = codec.record(RunRecord, *members.values())
    head = codec.record(RunRecord, *(members[name] for name in HEAD))
    keyed: dict[str, codec.Codec[Any]] = {"started": started, "admitted": admitted, "audits": audit}
    return Codecs(whole, head, event, keyed, report)


def encoded(part: codec.Codec[T], value: T) -> dict[str, Value]:
    """``value`` as its stored object; raises ``NotJson`` for a part that is no JSON value (as ``render``)."""
    match part.encode(value):
        case Ok(document):
            assert isinstance(document, dict)
            return document
        case Err(error):
            raise NotJson(error.path, error.reason.describe())


def decoded(part: codec.Codec[T], document: Value) -> Result[T, StoreError]:
    """A stored part from its object; ``UnreadableRecord`` for one of the wrong shape."""
    match part.decode(document):
        case Ok(value):
            return Ok(value)
        case Err():
            return Err(UnreadableRecord(_WRONG_SHAPE))


def parsed(text: str | bytes) -> Result[Value, StoreError]:
    """Stored JSON text as a value, within the store's limits."""
    match parse(text, _RECORD_LIMITS):
        case Ok(document):
            return Ok(document)
        case Err():
            return Err(UnreadableRecord("the record is not valid JSON"))


def rows_of(part: codec.Codec[T], bodies: list[str]) -> Result[list[T], StoreError]:
    """Stored rows (JSON texts) read with ``part``, in order; the first unreadable one is the error."""
    out = []
    for body in bodies:
        match parsed(body):
            case Err() as failed:
                return failed
            case Ok(document):
                pass
        match decoded(part, document):
            case Err() as failed:
                return failed
            case Ok(row):
                out.append(row)
    return Ok(out)


#: The tables keyed by call id, named as the record's members, in the order the stores read them.
KEYED = ("started", "admitted", "audits")


def rows_query(mark: str, *, whole: bool) -> str:
    """
    The rows of a run in one query (``mark``: the driver's parameter mark), as ``(part, number, body)``
    ordered by part then number: the keyed rows of one call (part 0 to 2, ``KEYED``'s order), or
    (``whole``) the head first (part -1, its format as number), every keyed row and the events (part 3).
    One statement reads one snapshot.
    """
    where = f"run_id = {mark}" if whole else f"run_id = {mark} AND call_id = {mark}"
    parts = [
        f"SELECT {n} AS part, position AS number, body FROM {t} WHERE {where}" for n, t in enumerate(KEYED)
    ]
    if whole:
        parts.insert(0, f"SELECT -1 AS part, format AS number, head AS body FROM runs WHERE run_id = {mark}")
        parts.append(
            f"SELECT {len(KEYED)} AS part, sequence AS number, body FROM events WHERE run_id = {mark}"
        )
    return " UNION ALL ".join(parts) + " ORDER BY part, number"


def whole_record(run_id: str, rows: Sequence[Sequence[Any]]) -> Result[RunRecord, StoreError]:
    """The whole record from the rows of ``rows_query(whole=True)``."""
    if not rows or rows[0][0] != -1:
        return Err(RunNotFound(run_id))
    match stored_head(run_id, rows[0][1:]):
        case Err() as failed:
            return failed
        case Ok(head):
            pass
    bodies = _bodies(rows[1:], len(KEYED) + 1)
    return with_rows(head, bodies[:-1], bodies[-1])


def with_call_rows(head: RunRecord, rows: Iterable[Sequence[Any]]) -> Result[RunRecord, StoreError]:
    """``head`` with one call's keyed rows, from the rows of ``rows_query(whole=False)``."""
    return with_rows(head, _bodies(rows, len(KEYED)))


def _bodies(rows: Iterable[Sequence[Any]], count: int) -> list[list[str]]:
    bodies: list[list[str]] = [[] for _ in range(count)]
    for part, _, body in rows:
        bodies[part].append(body)
    return bodies


def stored_head(run_id: str, row: Sequence[Any] | None) -> Result[RunRecord, StoreError]:
    """A run's head from its stored ``(format, head)`` row, with no rows yet; ``RunNotFound`` for none."""
    if row is None:
        return Err(RunNotFound(run_id))
    if isinstance(checked := checked_format(row[0]), Err):
        return checked
    match parsed(row[1]):
        case Err() as failed:
            return failed
        case Ok(document):
            return head_of(document)


def with_rows(
    head: RunRecord, keyed: Sequence[list[str]], events: list[str] | None = None
) -> Result[RunRecord, StoreError]:
    """
    ``head`` with its keyed rows (the bodies of each table of ``KEYED``, in order) and, when given, its
    events; the first unreadable row is the error.
    """
    parts = codecs()
    found: dict[str, Any] = {}
    for table, bodies in zip(KEYED, keyed, strict=True):
        match rows_of(parts.keyed[table], bodies):
            case Err() as failed:
                return failed
            case Ok(items):
                found[table] = {item.call_id: item for item in items}
    if events is not None:
        match rows_of(parts.event, events):
            case Err() as failed:
                return failed
            case Ok(read):
                found["events"] = tuple(read)
    return Ok(evolve(head, **found))


def head_value(record: RunRecord) -> dict[str, Value]:
    """The record's stored object without its rows (``ROWS``), which the SQLite store keeps in tables."""
    return encoded(codecs().head, record)


def head_of(document: Value) -> Result[RunRecord, StoreError]:
    """A record from its head object, with no rows yet."""
    return decoded(codecs().head, document)


def checked_format(version: object) -> Result[int, StoreError]:
    """The format version of a stored record, if this library reads it."""
    if isinstance(version, bool) or not isinstance(version, int):
        return Err(UnreadableRecord("the format version is missing"))
    if version not in (1, RECORD_FORMAT):
        return Err(UnreadableRecord("the format version is not 1 or 2", version))
    return Ok(version)


def record_to_json(record: RunRecord) -> str:
    """The record as versioned JSON (format ``RECORD_FORMAT``)."""
    return render({"format": RECORD_FORMAT, **encoded(codecs().record, record)})


def record_from_json(text: str | bytes) -> Result[RunRecord, StoreError]:
    """
    A record from its versioned JSON; format 1 loads with no started calls and no audits.
    ``Err(UnreadableRecord)`` for corrupt JSON, a wrong shape, an inconsistent audit report, or an unknown
    format version.
    """
    if not isinstance(text, str | bytes):
        raise TypeError(f"text must be a str or bytes, not {type(text).__name__}")
    match parsed(text):
        case Err() as failed:
            return failed
        case Ok(document):
            pass
    version = document.get("format") if isinstance(document, dict) else None
    if isinstance(checked := checked_format(version), Err):
        return checked
    assert isinstance(document, dict)
    body = {key: member for key, member in document.items() if key != "format"}
    return decoded(codecs().record, body if checked.value == RECORD_FORMAT else _format_1(body))


def _format_1(document: dict[str, Value]) -> dict[str, Value]:
    """Format 1 kept no started calls and no audits: members of those names are left out, and none read."""
    return {**document, "started": [], "audits": []}
