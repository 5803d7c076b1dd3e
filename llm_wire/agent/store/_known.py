"""
The records a store's process last wrote, by run, so that its next write starts from one instead of reading
the run again. Sound because every change of a record moves its revision: a store writes from a known record
only with a conditional write (``... WHERE revision = known``), and when that moves nothing the run changed
elsewhere, the known record is forgotten and the write reads the run as usual.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias, TypeVar

from attrs import evolve, frozen

from llm_wire.agent.store._codecs import KEYED, stored_head, with_call_rows
from llm_wire.agent.store._protocol import Step
from llm_wire.agent.store._record import RunRecord, StoreError
from llm_wire.result import Err, Ok, Result

__all__ = ["Known", "KnownRecords", "from_known", "from_read"]

T = TypeVar("T")
#: The record a write left (``None`` when it never read one) and the step's answer.
Written: TypeAlias = tuple[RunRecord | None, Result[T, StoreError]]
#: Writes ``after`` over ``before`` if the run is still at ``before``'s revision; whether it was.
Move: TypeAlias = Callable[[RunRecord, RunRecord], bool]

#: Runs remembered at most (the oldest forgotten first): a running run is written every few seconds.
_SIZE = 1024


@frozen
class Known:
    """What one write of a run left: the record as the next write would read it, while the run stays there."""

    #: The head after the write, without events, with the keyed rows of ``call`` only.
    record: RunRecord
    #: The call whose keyed rows ``record`` holds (``None``: none).
    call: str | None
    #: Whether the store holds no keyed row of this run beyond those of ``call``.
    complete: bool

    def view(self, call_id: str | None) -> RunRecord | None:
        """The record a write of ``call_id`` reads (the head and that call's keyed rows), if it is known."""
        if call_id is not None and call_id == self.call:
            return self.record
        if call_id is None or self.complete:
            return _head(self.record)
        return None


def _head(record: RunRecord) -> RunRecord:
    return evolve(record, events=(), started={}, admitted={}, audits={})


def _has_rows(record: RunRecord) -> bool:
    return bool(record.started or record.admitted or record.audits)


class KnownRecords:
    """
    What the last write of each run left (``Known``), kept by a store's engine under its lock: ``take`` it
    before a write, and give the write's result back (``created``, ``wrote``) once it is committed.
    """

    def __init__(self) -> None:
        self._known: dict[str, Known] = {}

    def take(self, run_id: str) -> Known | None:
        """What is known of the run, forgotten until the write that takes it is committed."""
        return self._known.pop(run_id, None)

    def created(self, record: RunRecord) -> None:
        """``record`` was just inserted whole."""
        self._remember(record.run_id, Known(evolve(record, events=()), None, not _has_rows(record)))

    def wrote(self, run_id: str, call_id: str | None, after: RunRecord, start: Known | None) -> None:
        """
        A write of ``call_id`` (or a refused one) left the run at ``after``, the record as the write saw and
        returned it; ``start``: the known record it started from, ``None`` when it read the run.
        """
        if after.status.terminal:
            return
        if call_id is None:
            if start is None or _has_rows(after):
                known = Known(_head(after), None, False)
            else:  # the head moved; the rows known are as they were
                rows = start.record
                record = evolve(
                    after, events=(), started=rows.started, admitted=rows.admitted, audits=rows.audits
                )
                known = Known(record, start.call, start.complete)
        else:
            # The store may hold rows of ``call_id`` and of the call known before: ``call_id``'s are kept.
            complete = start is not None and start.complete and start.call in (None, call_id)
            known = Known(evolve(after, events=()), call_id, complete)
        self._remember(run_id, known)

    def _remember(self, run_id: str, known: Known) -> None:
        self._known[run_id] = known
        if len(self._known) > _SIZE:
            del self._known[next(iter(self._known))]


def from_known(step: Step[T], known: Known | None, call_id: str | None, move: Move) -> Written[T] | None:
    """
    The write from the record the last write left, when known and the step moves the run on from it;
    ``None`` when the run is no longer at its revision (nothing written) or the step must see the run.
    """
    before = None if known is None else known.view(call_id)
    if before is None:
        return None
    match step(before):
        case Ok((after, answer)) if after.revision != before.revision:
            if move(before, after):
                return after, Ok(answer)
    return None


def from_read(
    execute: Callable[[str, tuple[str, ...]], Any],
    queries: tuple[str, str],
    run_id: str,
    step: Step[T],
    call_id: str | None,
    move: Move,
) -> Written[T]:
    """
    The write from the run as read with ``execute`` (its head by ``queries[0]``, and the keyed rows of
    ``call_id`` by ``queries[1]``), in the caller's transaction.
    """
    head, rows = queries
    match stored_head(run_id, execute(head, (run_id,)).fetchone()):
        case Err() as failed:
            return None, failed
        case Ok(before):
            pass
    if call_id is not None:
        match with_call_rows(before, execute(rows, (run_id, call_id) * len(KEYED))):
            case Err() as failed:
                return None, failed
            case Ok(before):
                pass
    match step(before):
        case Err() as failed:
            return before, failed
        case Ok((after, answer)):
            pass
    if after.revision != before.revision:
        move(before, after)
    return after, Ok(answer)
