"""
What controls a run from outside its loop: ``Cancellation`` (from any thread), the run's state, and the
event-loop thread the sync facade runs on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import math
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from typing import Any, Generic, TypeVar, cast

from attrs import frozen

from llm_wire.agent._tool_outcome import ToolOutcome
from llm_wire.message import ToolCall

__all__ = ["Cancellation", "Portal", "RunState", "following", "settle"]

T = TypeVar("T")


class Cancellation:
    """Ask a run to stop, from any thread; the run ends with ``StopReason.CANCELLED``."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._followers: list[Cancellation] = []

    @property
    def cancelled(self) -> bool:
        """Whether ``cancel`` was called."""
        return self._event.is_set()

    def cancel(self) -> None:
        """Stop the runs watching this (idempotent)."""
        with self._lock:
            self._event.set()
            waiters, self._waiters = self._waiters, []
            followers, self._followers = self._followers, []
        for loop, future in waiters:
            loop.call_soon_threadsafe(settle, future)
        for follower in followers:
            follower.cancel()

    def _watch(self) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._event.is_set():
                future.set_result(None)
            else:
                self._waiters.append((loop, future))
        return future

    def _forget(self, future: asyncio.Future[None]) -> None:
        with self._lock:
            self._waiters = [(loop, waiting) for loop, waiting in self._waiters if waiting is not future]


@contextlib.contextmanager
def following(leader: Cancellation | None) -> Iterator[Cancellation]:
    """
    A cancellation of its own that ``leader`` also cancels, while the block runs: cancelling it stops one
    run, never the others that share ``leader``.
    """
    own = Cancellation()
    if leader is None:
        yield own
        return
    with leader._lock:
        if leader._event.is_set():
            own._event.set()
        else:
            leader._followers.append(own)
    try:
        yield own
    finally:
        with leader._lock, contextlib.suppress(ValueError):
            leader._followers.remove(own)


def settle(future: asyncio.Future[None]) -> None:
    """Complete ``future`` unless it is done already."""
    if not future.done():
        future.set_result(None)


class RunState:
    """One run's moving parts: its id, deadline, cancellation, metadata, approved call ids and replay."""

    def __init__(
        self, run_id: str, deadline: float | None, cancel: Cancellation, metadata: Mapping[str, str]
    ):
        self.run_id = run_id
        self.deadline = deadline
        self.cancel = cancel
        self.metadata = dict(metadata)
        self.trace_id = ""
        self.stopped: asyncio.Future[None] = cancel._watch()
        self.approved: frozenset[str] = frozenset()
        self.replay: Callable[[ToolCall], ToolOutcome | None] | None = None

    def close(self) -> None:
        """The run is over: stop watching its cancellation."""
        settle(self.stopped)
        self.cancel._forget(self.stopped)

    def remaining(self) -> float:
        """Seconds left before the run's deadline (``inf`` without one)."""
        return math.inf if self.deadline is None else self.deadline - time.monotonic()


class Portal:
    """An event loop on its own daemon thread, for the sync facade."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="llm_wire.agent", daemon=True)
        self.thread.start()

    @property
    def alive(self) -> bool:
        """Whether the loop thread still runs."""
        return self.thread.is_alive()

    def call(self, work: Coroutine[Any, Any, T]) -> T:
        """
        Run ``work`` on the loop and wait for it. Whatever it raises, ``SystemExit`` and
        ``KeyboardInterrupt`` included, is raised here, in the caller's thread; the loop thread runs on.
        """
        future: concurrent.futures.Future[_Ended[T]] = asyncio.run_coroutine_threadsafe(
            _ended(work), self.loop
        )
        ended = future.result()
        if ended.error is not None:
            raise ended.error
        return cast(T, ended.value)

    def close(self, timeout: float | None) -> None:
        pending = asyncio.run_coroutine_threadsafe(_settled(timeout), self.loop).result()
        if pending:  # a straggler still runs: leave the daemon thread to it rather than destroy its task
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


@frozen
class _Ended(Generic[T]):
    """How a coroutine ended: its value, or what it raised."""

    value: T | None
    error: BaseException | None


async def _ended(work: Coroutine[Any, Any, T]) -> _Ended[T]:
    """
    ``work`` to its end. A ``BaseException`` is caught here, so it never stops the loop (asyncio re-raises
    ``SystemExit`` and ``KeyboardInterrupt`` out of ``run_forever``, which would leave the caller waiting).
    """
    try:
        return _Ended(await work, None)
    except asyncio.CancelledError:
        raise
    except BaseException as exc:
        return _Ended(None, exc)


async def _settled(timeout: float | None) -> int:
    """Wait for the loop's other tasks (abandoned stragglers) at most ``timeout``; how many remain."""
    others = {task for task in asyncio.all_tasks() if task is not asyncio.current_task()}
    if not others:
        return 0
    _, pending = await asyncio.wait(others, timeout=timeout)
    return len(pending)
