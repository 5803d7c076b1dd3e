"""
The run as sans-I/O steps, for those who build their own driver (a queue worker, a durable workflow, a UI
that pauses between rounds) instead of calling ``Runner.run``/``arun``.

``RunSteps`` is the state machine the runner's drivers step: from what just happened it says what to do
next, ``CallModel`` (send a prepared request to a ``Model``), ``RunTools`` (authorize and run a batch of
``Planned`` calls) or ``Finish``; it touches no clock, thread or network. ``CallRecord`` is a call with its
final outcome, as ``RunResult.calls`` keeps it. ``Recovery`` is what a recoverable model mistake (an unknown
tool, a denied call) does to the run, ``Cancellation`` stops a run from any thread, and ``in_thread`` runs
blocking work off the event loop, as the runner runs a ``SyncModel`` and a sync tool.
"""

from __future__ import annotations

from llm_wire import _public
from llm_wire.agent._control import Cancellation
from llm_wire.agent._runner import AsyncModel, Model, SyncModel
from llm_wire.agent._steps import CallModel, CallRecord, Finish, Planned, Recovery, RunSteps, RunTools, Step
from llm_wire.agent._threads import in_thread

__all__ = [
    "AsyncModel",
    "CallModel",
    "CallRecord",
    "Cancellation",
    "Finish",
    "Model",
    "Planned",
    "Recovery",
    "RunSteps",
    "RunTools",
    "Step",
    "SyncModel",
    "in_thread",
]

_public.rehome(__name__, __all__, globals())
