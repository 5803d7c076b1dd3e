"""
Tracing hooks of the runner: which run a task drives (``ACTIVE``), and ``begin``/``close`` of a run's
``RunTrace`` (``_spans``), made only when the ``Runner`` has an OpenTelemetry ``tracer`` or the
``llm_wire.agent`` logger takes DEBUG records as the run starts. Otherwise ``begin`` gives ``None``, nothing
more is imported, and a run costs one context-variable look-up per event.
"""

from __future__ import annotations

import contextvars
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from llm_wire._request import Request
    from llm_wire.agent._control import RunState
    from llm_wire.agent._spans import RunTrace
    from llm_wire.message import Provider

__all__ = ["ACTIVE", "begin", "check_tracing", "close"]

#: The trace of the run this task drives, for the events the runner emits.
ACTIVE: contextvars.ContextVar[RunTrace | None] = contextvars.ContextVar("llm_wire.agent.trace", default=None)

_LOG = logging.getLogger("llm_wire.agent")


def check_tracing(tracer: object, content_bytes: object) -> None:
    """``TypeError``/``ValueError`` naming the ``Runner`` parameter that is wrong."""
    if tracer is not None and not callable(getattr(tracer, "start_span", None)):
        raise TypeError(f"tracer must be an OpenTelemetry Tracer, not {type(tracer).__name__}")
    if type(content_bytes) is not int:
        raise TypeError(f"trace_content_bytes must be an int, not {type(content_bytes).__name__}")
    if content_bytes < 0:
        raise ValueError("trace_content_bytes must be an int >= 0")


def begin(
    tracer: Tracer | None, content_bytes: int, run: RunState, request: Request, provider: Provider
) -> RunTrace | None:
    """
    The trace of a run that starts now (its span made current), or ``None`` when nobody listens. A run inside
    a traced one (a tool's own runner) that nobody listens to gets a silent trace, so that its events never
    reach the outer run's spans.
    """
    logged = _LOG.isEnabledFor(logging.DEBUG)
    if tracer is None and not logged and ACTIVE.get() is None:
        return None
    from llm_wire.agent._spans import RunTrace

    trace = RunTrace(tracer, content_bytes, logged, run, request, provider)
    trace.active = ACTIVE.set(trace)
    return trace


def close(trace: RunTrace) -> None:
    """End the run's spans still open and make its task's active trace what it was before."""
    try:
        trace.close()
    finally:
        if trace.active is not None:
            ACTIVE.reset(trace.active)
