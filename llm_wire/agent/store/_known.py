"""
The records a store's process last wrote, by run, so that its next write starts from one instead of reading
the run again. Sound because every change of a record moves its revision: a store writes from a known record
only with a conditional write (``... WHERE revision = known``), and when that moves nothing the run changed
elsewhere, the known record is forgotten and the write reads the run as usual.
"""

from __future__ import annotations

from attrs import evolve, frozen

from llm_wire.agent.store._record import RunRecord

__all__ = ["Known", "KnownRecords"]

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
