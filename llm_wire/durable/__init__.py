"""
Durable agent runs on DBOS (extra ``dbos``): a run survives a crash, a deploy or ``kill -9`` and resumes from
its last completed step, on this machine or another, without running a tool call that must not run twice.

``DurableRunner`` runs ``llm_wire.agent.Runner`` inside one DBOS workflow: each model round is a step and
each tool attempt is a step. A model round's step keeps the whole response (``codec.derive`` of its
``Terminal``), replay data included, so a recovered run sends the next request as an uninterrupted one
would. Everything DBOS keeps for a run (a workflow's input and output, each step's output) and the state a
suspended run leaves in the store is a JSON value made by a derived codec; what earlier versions kept (model
rounds and workflow inputs by position, pickled tool outcomes, ``status:token`` texts) still reads, so a run
recovered or resumed across an upgrade goes on. Before a tool runs, its call is marked started in the
``RunStore``; once the
runner has its final outcome, the outcome is admitted there and the projection the model saw is audited
(SHA-256 of the exact text). When a recovered workflow meets a call that was started but never finished,
the outcome is unknown: the call runs again only when its contract makes that safe (``idempotent``, or
``idempotent_with_key`` with a provider that consumes the key, always under the same key); otherwise the
model gets a typed ``outcome_unknown`` tool message. An admitted call is never run again: its stored outcome
is replayed. An attempt the runner abandoned (its deadline passed, its heartbeats stopped) records that
abandonment as its step even when the tool answers later, so a recovered run is told what the first one
was. A run the approver suspends waits in the store for ``resume``.

DBOS keeps its own state in SQLite by default (``sqlite_config``; no server to start); PostgreSQL
(``postgres_config``) is the setting for many workers: ``DurableRunner.enqueue`` puts runs on a queue any
worker takes them from, and each ``Worker`` holds a lease that tells the others it is alive and hands a dead
worker's runs back to the queue. The application configures and launches DBOS; create every
``DurableRunner`` before ``DBOS.launch()``, which is when DBOS recovers the runs this process left pending.
"""

from __future__ import annotations

from llm_wire import _deprecated, _public
from llm_wire.agent import ErrorCode as _ErrorCode
from llm_wire.agent import ToolDescriptor as _ToolDescriptor
from llm_wire.agent import ToolOutcome as _ToolOutcome
from llm_wire.agent.store import Suspended as _Suspended
from llm_wire.durable._records import DurableRunError
from llm_wire.durable._runner import DurableRunner, sqlite_config
from llm_wire.durable._workers import Worker, postgres_config

__all__ = ["DurableRunError", "DurableRunner", "Worker", "postgres_config", "sqlite_config"]

_public.rehome(__name__, __all__, globals())


# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
OUTCOME_UNKNOWN = _ErrorCode.OUTCOME_UNKNOWN
Suspension = _Suspended


def _is_safe_to_repeat(descriptor: _ToolDescriptor, consumes_key: bool) -> bool:
    return descriptor.contract.is_repeatable(consumes_key=consumes_key)


is_safe_to_repeat = _deprecated.renamed(_is_safe_to_repeat, "llm_wire.durable.is_safe_to_repeat")
outcome_unknown = _deprecated.renamed(_ToolOutcome.unknown, "llm_wire.durable.outcome_unknown")
