"""
One call under its contract: the resource-version precondition, attempts under the in-flight cap and the
deadline (cooperative cancellation, late results discarded), heartbeats, safe retries with one
idempotency key, and compensation. Everything a provider raises becomes an outcome here, and the final
outcome carries the retry advice of ``ToolContract.retry_advice``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from attrs import define, evolve, frozen

from llm_wire.agent._control import RunState, settle
from llm_wire.agent._descriptor import HeartbeatPolicy, ToolDescriptor
from llm_wire.agent._invocation import Heartbeat, InvocationContext, ToolInvocation
from llm_wire.agent._providers import CompensatingProvider, ToolProvider
from llm_wire.agent._streaming import outside_stream
from llm_wire.agent._threads import CURRENT_SLOT, Slot
from llm_wire.agent._tool_outcome import ErrorCategory, ErrorCode, ToolOutcome
from llm_wire.agent.events import RunEvent, ToolCompensated, ToolHeartbeat, ToolRetrying, ToolStarted
from llm_wire.message import ToolCall

__all__ = ["Executor"]

_LOG = logging.getLogger("llm_wire.agent")


class Executor:
    """
    Runs calls of one provider under their contracts, with an in-flight cap shared by every run of its
    runner: calls beyond it queue for a slot in arrival order, and an abandoned straggler keeps its slot
    until it really ends.
    """

    def __init__(
        self,
        provider: ToolProvider,
        *,
        max_in_flight: int,
        emit: Callable[[RunEvent], None],
        log_exception_text: bool,
        draw: Callable[[], float],
    ) -> None:
        self._provider = provider
        self._compensates = isinstance(provider, CompensatingProvider)
        self._max_in_flight = max_in_flight
        self._in_flight = 0
        self._flight_lock = threading.Lock()
        self._idle = threading.Condition(self._flight_lock)
        self._waiters: deque[_Waiter] = deque()
        self._emit = emit
        self._log_text = log_exception_text
        self._draw = draw

    @property
    def in_flight(self) -> int:
        """Attempts still running, abandoned stragglers included."""
        return self._in_flight

    def settle(self, timeout: float | None) -> bool:
        """Wait at most ``timeout`` seconds for every attempt to end, stragglers' threads included."""
        with self._idle:
            return self._idle.wait_for(lambda: self._in_flight == 0, timeout)

    async def execute(
        self, run: RunState, call: ToolCall, descriptor: ToolDescriptor, arguments: Any, decoded: Any
    ) -> ToolOutcome:
        """
        Run one admitted call under its contract, to its final outcome (before ``prepare_tool_result``):
        the precondition, then attempts until one succeeds or no retry is safe, within the call's deadline
        (the contract's timeout and the run's deadline, shared by every attempt and backoff).
        """
        contract = descriptor.contract
        expected = contract.resource_version.expected_version(descriptor.name, arguments)
        if isinstance(expected, ToolOutcome):
            return expected
        deadline = run.deadline
        if contract.timeout is not None:
            own = time.monotonic() + contract.timeout
            deadline = own if deadline is None else min(deadline, own)
        key = f"{run.run_id}:{call.id}"
        attempt = 1
        while True:
            invocation = ToolInvocation(call, descriptor, arguments, decoded, key, attempt, expected)
            outcome = await self._attempt(run, invocation, deadline)
            outcome = outcome.with_metadata(tool_attempt=str(attempt))
            if outcome.ok:
                return outcome
            compensated = False
            consumes_key = self._consumes_key(descriptor.name)
            if outcome.compensation_required:
                compensated = await self._compensate(run, invocation, outcome)
                outcome = outcome.with_metadata(compensation_succeeded=str(compensated).lower())
                if not compensated:
                    return contract.retry_advice(outcome, descriptor.name, consumes_key=consumes_key)
            drawn = self._draw()
            if not isinstance(drawn, float | int) or isinstance(drawn, bool):
                raise TypeError(f"draw must return a float, not {type(drawn).__name__}")
            delay = contract.retry_delay(outcome, attempt, compensated, drawn, consumes_key=consumes_key)
            if delay is None:
                return contract.retry_advice(
                    outcome, descriptor.name, consumes_key=consumes_key, compensated=compensated
                )
            left = math.inf if deadline is None else deadline - time.monotonic()
            if left <= delay:
                message = f"tool {descriptor.name} could not be retried before its deadline"
                return ToolOutcome.failed(
                    ErrorCategory.TIMEOUT, ErrorCode.RETRY_DEADLINE, message
                ).with_metadata(tool_attempt=str(attempt))
            self._emit(ToolRetrying(call, attempt, delay, outcome))
            if delay > 0:
                await asyncio.wait({run.stopped}, timeout=delay)
            if run.cancel.cancelled:
                message = f"the call to tool {descriptor.name} was cancelled during its retry backoff"
                return ToolOutcome.failed(
                    ErrorCategory.CANCELLED, ErrorCode.CANCELLED, message, retryable=False
                )
            attempt += 1

    def _consumes_key(self, name: str) -> bool:
        capabilities = self._provider.capabilities(name)
        return capabilities is not None and capabilities.idempotency_key

    async def _compensate(self, run: RunState, invocation: ToolInvocation, failure: ToolOutcome) -> bool:
        settings = invocation.descriptor.contract.compensation
        provider = self._provider
        if not settings.enabled or not self._compensates or not isinstance(provider, CompensatingProvider):
            return False
        for _ in range(settings.max_attempts):
            deadline = run.deadline
            if settings.timeout is not None:
                own = time.monotonic() + settings.timeout
                deadline = own if deadline is None else min(deadline, own)
            outcome = await self._attempt(run, invocation, deadline, compensating=failure)
            self._emit(ToolCompensated(invocation.call, outcome))
            if outcome.ok:
                return True
        return False

    async def _attempt(
        self,
        run: RunState,
        invocation: ToolInvocation,
        deadline: float | None,
        *,
        compensating: ToolOutcome | None = None,
    ) -> ToolOutcome:
        """One attempt: the in-flight slot, the task, and the wait for its end, a deadline or a stop."""
        name = invocation.name
        if run.cancel.cancelled:
            message = f"the call to tool {name} was cancelled before it started"
            return ToolOutcome.failed(ErrorCategory.CANCELLED, ErrorCode.CANCELLED, message, retryable=False)
        if not await self._acquire(run, deadline):
            if run.cancel.cancelled:
                message = f"the call to tool {name} was cancelled before it started"
                return ToolOutcome.failed(
                    ErrorCategory.CANCELLED, ErrorCode.CANCELLED, message, retryable=False
                )
            message = f"tool {name} could not start before its deadline: too many calls are in flight"
            busy = ToolOutcome.failed(ErrorCategory.UNAVAILABLE, ErrorCode.CAPACITY_EXHAUSTED, message)
            return busy.with_metadata(tool_execution_capacity_exhausted="true")
        slot = Slot(self._release)
        contract = invocation.descriptor.contract
        heartbeat = contract.heartbeat if compensating is None else None
        beats = _Beats(self._emit, invocation.call, heartbeat.minimum_interval if heartbeat else 0.0)
        context = InvocationContext(
            run.run_id,
            invocation.call_id,
            invocation.attempt,
            invocation.idempotency_key,
            deadline,
            run.metadata,
            run.trace_id,
            _beat=beats.beat if heartbeat is not None and heartbeat.enabled else None,
        )
        invocation = evolve(invocation, context=context)
        if compensating is None:
            self._emit(ToolStarted(invocation.call, invocation.attempt))
            work = self._guarded(partial(self._provider.invoke, invocation), name, "invoke")
        else:
            provider = self._provider
            assert isinstance(provider, CompensatingProvider)
            work = self._guarded(partial(provider.compensate, invocation, compensating), name, "compensate")
        scope = contextvars.copy_context()
        scope.run(CURRENT_SLOT.set, slot)
        outside_stream(scope)
        task = asyncio.get_running_loop().create_task(work, context=scope)
        task.add_done_callback(slot.drop)
        try:
            return await self._await_attempt(run, task, context, beats, heartbeat, deadline, name)
        except asyncio.CancelledError:  # the run itself was cancelled by its caller: stop the call too
            context.cancel()
            task.cancel()
            raise

    async def _await_attempt(
        self,
        run: RunState,
        task: asyncio.Future[_Answer],
        context: InvocationContext,
        beats: _Beats,
        heartbeat: HeartbeatPolicy | None,
        deadline: float | None,
        name: str,
    ) -> ToolOutcome:
        limit = heartbeat.timeout if heartbeat is not None and heartbeat.enabled else None
        while True:
            wait = None if deadline is None else deadline - time.monotonic()
            if limit is not None:
                silent = time.monotonic() - beats.last
                wait = limit - silent if wait is None else min(wait, limit - silent)
            if wait is not None and wait <= 0 and not task.done():
                break
            watched: set[asyncio.Future[Any]] = {task, run.stopped}
            await asyncio.wait(watched, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
            beats.flush()
            if task.done():
                answer = task.result()
                # A tool that blocked the loop past the deadline answered late: its result is dropped too.
                if deadline is None or answer.at <= deadline:
                    return answer.outcome
                break
            if run.cancel.cancelled:
                break
        context.cancel()
        task.cancel()
        if run.cancel.cancelled:
            message = f"the call to tool {name} was cancelled"
            outcome = ToolOutcome.failed(
                ErrorCategory.CANCELLED, ErrorCode.CANCELLED, message, retryable=False
            )
            return outcome.with_metadata(late_result_discarded="true")
        silent = limit is not None and time.monotonic() - beats.last >= limit
        return ToolOutcome.abandoned(
            name, heartbeat=silent and (deadline is None or time.monotonic() < deadline)
        )

    async def _acquire(self, run: RunState, deadline: float | None) -> bool:
        """
        Take an in-flight slot, or queue for one behind the calls already waiting (a freed slot goes to
        the first of them, so none is free while any waits); ``False`` when the deadline passes or the run
        stops first.
        """
        loop = asyncio.get_running_loop()
        with self._flight_lock:
            if self._in_flight < self._max_in_flight:
                self._in_flight += 1
                return True
            waiter = _Waiter(loop, loop.create_future())
            self._waiters.append(waiter)
        usable = False
        try:
            wait = None if deadline is None else deadline - time.monotonic()
            if not run.cancel.cancelled and (wait is None or wait > 0):
                watched: set[asyncio.Future[Any]] = {waiter.woken, run.stopped}
                await asyncio.wait(watched, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
            usable = not run.cancel.cancelled and (deadline is None or time.monotonic() < deadline)
        finally:
            usable = self._leave(waiter, usable)
        return usable

    def _leave(self, waiter: _Waiter, usable: bool) -> bool:
        """
        Take ``waiter`` off the queue; whether it holds a slot now. A slot handed to it that it can no
        longer use (it gave up as the slot came) goes on to the next.
        """
        with self._flight_lock:
            granted = waiter.granted
            if not granted:
                with contextlib.suppress(ValueError):  # passed over already: its loop was closed
                    self._waiters.remove(waiter)
        if granted and not usable:
            self._release()
        return granted and usable

    def _release(self) -> None:
        """Give a slot back: to the first queued call whose loop still runs (one wake), else to the pool."""
        with self._flight_lock:
            while self._waiters:
                waiter = self._waiters.popleft()
                with contextlib.suppress(RuntimeError):  # that call's loop is closed: it waits no more
                    waiter.loop.call_soon_threadsafe(settle, waiter.woken)
                    waiter.granted = True
                    return
            self._in_flight -= 1
            self._idle.notify_all()

    async def _guarded(self, work: Callable[[], Awaitable[object]], name: str, step: str) -> _Answer:
        """
        The provider's answer and when it came; anything it raises, ``BaseException`` included (an argparse
        ``SystemExit``), becomes a sanitized outcome. The provider's coroutine is made here, so a task
        cancelled before it starts leaves no coroutine unawaited.
        """
        try:
            result = await work()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            self.log(exc, name, step)
            return _Answer(ToolOutcome.from_exception(exc, name), time.monotonic())
        if not isinstance(result, ToolOutcome):
            message = f"the provider of tool {name} returned something that is not a ToolOutcome"
            failed = ToolOutcome.failed(ErrorCategory.INTERNAL, ErrorCode.INTERNAL, message, retryable=False)
            return _Answer(failed, time.monotonic())
        return _Answer(result, time.monotonic())

    def log(self, exc: BaseException, name: str, step: str) -> None:
        if self._log_text:
            _LOG.warning("tool %s raised %s in %s: %s", name, type(exc).__name__, step, exc)
        else:
            _LOG.warning("tool %s raised %s in %s", name, type(exc).__name__, step)


@define(eq=False)
class _Waiter:
    """A call queued for a slot: its loop, the future that wakes it, and whether a slot was handed to it."""

    loop: asyncio.AbstractEventLoop
    woken: asyncio.Future[None]
    granted: bool = False


@frozen
class _Answer:
    """A provider's outcome and the ``time.monotonic()`` it arrived at."""

    outcome: ToolOutcome
    at: float


class _Beats:
    """A call's heartbeats: liveness from any thread, events rate-limited and emitted on the loop."""

    def __init__(self, emit: Callable[[RunEvent], None], call: ToolCall, interval: float) -> None:
        self.emit = emit
        self.call = call
        self.interval = interval
        self.last = time.monotonic()
        self.emitted = -math.inf
        self.pending: Heartbeat | None = None
        self.lock = threading.Lock()
        self.loop = asyncio.get_running_loop()
        self.context = contextvars.copy_context()  # the run's: its events reach its stream from any thread

    def beat(self, heartbeat: Heartbeat) -> None:
        with self.lock:
            self.last = time.monotonic()
            progress = heartbeat.progress
            if progress is not None and not 0 <= progress <= 1:
                return
            if self.last - self.emitted < self.interval:
                return
            first = self.pending is None
            self.pending = heartbeat
            self.emitted = self.last
        if first:
            self.loop.call_soon_threadsafe(self.flush, context=self.context)

    def flush(self) -> None:
        with self.lock:
            pending, self.pending = self.pending, None
        if pending is not None:
            self.emit(ToolHeartbeat(self.call, pending))
