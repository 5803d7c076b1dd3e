"""
The streamed run behind ``Runner.stream``: the run's own driver (``arun``) on a task of its own, whose events,
with each model call's progress as ``Client.stream`` yields it, reach the consumer through a bounded feed, and
``RunCompleted`` last. Stopping the iteration (``aclose``, ``close``) cancels the run as its ``Cancellation``
would and waits until its driver has ended. ``RunStream`` is the one iterator for ``async for`` and ``for``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from types import TracebackType
from typing import Any

from llm_wire._request import Prepared
from llm_wire.agent._control import Cancellation, Portal, following
from llm_wire.agent._steps import RunResult
from llm_wire.agent._threads import in_thread
from llm_wire.agent.events import RunCompleted, StreamEvent
from llm_wire.outcome import Answer, Failure, NeedsTools, OutputLimited, Refused
from llm_wire.providers.response import ArgumentsDelta, TextDelta, ToolCallStarted

__all__ = ["RunStream", "outside_stream", "run_events", "streamed", "to_stream"]

#: Events a run's feed holds before a model's stream waits for the consumer to take them (the consumer
#: holds at most as many again, taken but not yet read).
BACKLOG = 256

_PROGRESS = (TextDelta, ToolCallStarted, ArgumentsDelta)
_OUTCOMES = (Answer, NeedsTools, OutputLimited, Refused, Failure)


class _Feed:
    """The events of one streamed run, in the order they came, until the consumer takes them."""

    def __init__(self) -> None:
        self._items: deque[StreamEvent] = deque()
        self._ready = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        #: The tasks that read the run's model calls (one per call).
        self._reads: list[asyncio.Task[Any]] = []
        #: What to call once the events put with them are taken.
        self._on_take: list[Callable[[], None]] = []

    def put(self, item: StreamEvent, on_take: Callable[[], None] | None = None) -> None:
        self._items.append(item)
        if on_take is not None:
            self._on_take.append(on_take)
        self._ready.set()
        if len(self._items) >= BACKLOG:
            self._room.clear()

    def wake(self, _: object = None) -> None:
        self._ready.set()

    def take(self) -> list[StreamEvent]:
        """The events that came since the last take, oldest first (none yet: empty)."""
        items = list(self._items)
        self._items.clear()
        self._ready.clear()
        self._room.set()
        on_take, self._on_take = self._on_take, []
        for call in on_take:
            call()
        return items

    async def arrival(self) -> None:
        await self._ready.wait()

    async def room(self) -> None:
        await self._room.wait()

    async def reading(self, work: Awaitable[object]) -> object:
        """``work``'s outcome, its task kept so that ``settled`` can wait for it."""
        task = asyncio.current_task()
        if task is not None:
            self._reads.append(task)
        return await work

    async def settled(self) -> None:
        """Wait until every model read has ended (one cancelled at a deadline closes its stream first)."""
        pending = [task for task in self._reads if not task.done()]
        if pending:
            await asyncio.wait(pending)


#: The feed of the streamed run whose driver runs in this context, if any.
_FEED: contextvars.ContextVar[_Feed | None] = contextvars.ContextVar("llm_wire_stream_feed", default=None)


def to_stream(event: StreamEvent) -> None:
    """Hand ``event`` to the streamed run of this context, if there is one."""
    feed = _FEED.get()
    if feed is not None:
        feed.put(event)


def outside_stream(context: contextvars.Context) -> None:
    """Keep a tool's ``context`` (copied from this one) out of the stream: its own runs stream nothing."""
    if _FEED.get() is not None:
        context.run(_FEED.set, None)


def streamed(model: object, prepared: Prepared) -> Awaitable[object] | None:
    """
    The outcome of ``prepared`` read through ``model.stream`` with its progress fed to the streamed run of
    this context; ``None`` outside a streamed run or for a model without ``stream`` (it completes as in
    ``run``).
    """
    feed = _FEED.get()
    stream = getattr(model, "stream", None)
    if feed is None or not callable(stream):
        return None
    items = stream(prepared)
    if isinstance(items, AsyncIterator):
        return feed.reading(_read(items, feed))
    if isinstance(items, Iterator):
        return feed.reading(_read_in_thread(items, feed))
    raise TypeError(f"model.stream must return an iterator, not {type(items).__name__}")


def _last(item: object) -> object:
    if not isinstance(item, _OUTCOMES):
        kind = type(item).__name__
        raise TypeError(f"model.stream must yield progress and end with an Outcome, not {kind}")
    return item


async def _read(items: AsyncIterator[object], feed: _Feed) -> object:
    """An async stream's outcome; cancelled, it closes the stream (and so the connection)."""
    try:
        async for item in items:
            if not isinstance(item, _PROGRESS):
                return _last(item)
            feed.put(item)
            await feed.room()
        return _last(None)
    finally:
        close = getattr(items, "aclose", None)
        if close is not None:
            await close()


async def _read_in_thread(items: Iterator[object], feed: _Feed) -> object:
    """
    A blocking stream's outcome, read on a thread of its own that waits while ``BACKLOG`` of its events are
    not taken yet, and stops at its next item once cancelled.
    """
    loop = asyncio.get_running_loop()
    stop = threading.Event()
    room = threading.Semaphore(BACKLOG)

    def push(item: StreamEvent) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody reads this stream any more
            loop.call_soon_threadsafe(feed.put, item, room.release)

    try:
        return await in_thread(_drain, items, push, room, stop)
    finally:
        stop.set()
        room.release()  # a reader waiting for room wakes up, and stops


def _drain(
    items: Iterator[object],
    push: Callable[[StreamEvent], None],
    room: threading.Semaphore,
    stop: threading.Event,
) -> object:
    try:
        for item in items:
            if not isinstance(item, _PROGRESS):
                return _last(item)
            room.acquire()
            if stop.is_set():
                return None  # abandoned: nobody waits for the outcome
            push(item)
        return _last(None)
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()


async def run_events(
    start: Callable[..., Coroutine[Any, Any, RunResult]], cancel: Cancellation | None
) -> AsyncGenerator[list[StreamEvent], None]:
    """
    The events of the run ``start(cancel=cancellation)`` drives, in batches of those that came while the
    consumer was busy (one thread hop per batch for ``for``), then ``RunCompleted``; what the run raises is
    raised after the events before it. Closed early, the run is cancelled; either way the driver and every
    model read have ended when the generator does.
    """
    feed = _Feed()
    with following(cancel) as own:
        context = contextvars.copy_context()
        context.run(_FEED.set, feed)
        task = asyncio.get_running_loop().create_task(start(cancel=own), context=context)
        task.add_done_callback(feed.wake)
        try:
            while True:
                items = feed.take()
                if items:
                    yield items
                elif task.done():
                    break
                else:
                    await feed.arrival()
            await feed.settled()
            yield [RunCompleted(task.result())]
        finally:
            if not task.done():
                own.cancel()
                await _ended(task)
            await feed.settled()


async def _ended(task: asyncio.Task[RunResult]) -> None:
    """Wait for an abandoned run's driver to end; what it returns or raises is nobody's any more."""
    try:
        await asyncio.wait({task})
    except asyncio.CancelledError:
        task.cancel()
        raise
    if not task.cancelled():
        task.exception()


async def _next(batches: AsyncGenerator[list[StreamEvent], None]) -> list[StreamEvent]:
    return await anext(batches)


async def _close(batches: AsyncGenerator[list[StreamEvent], None]) -> None:
    await batches.aclose()


class RunStream:
    """
    The events of one run as they come (``Runner.stream``): ``async for`` them on the caller's loop, or
    ``for`` them from synchronous code (the run goes on the runner's own loop thread, as ``Runner.run``'s
    does). The last is ``RunCompleted``. ``aclose`` (``async with``) or ``close`` (``with``) stops the
    run early: it is cancelled, and they return once its driver has ended. Iterated once, one way.
    """

    def __init__(
        self, batches: AsyncGenerator[list[StreamEvent], None], portal: Callable[[], Portal]
    ) -> None:
        self._batches = batches
        self._taken: deque[StreamEvent] = deque()
        self._portal = portal
        self._loop: Portal | None = None
        self._way: str | None = None

    def __repr__(self) -> str:
        return f"<RunStream ({self._way or 'not started'})>"

    def _use(self, way: str) -> None:
        if self._way is None:
            self._way = way
        elif self._way != way:
            raise RuntimeError(f"this stream is read with {self._way}, not {way}")

    def __aiter__(self) -> RunStream:
        self._use("async for")
        return self

    async def __anext__(self) -> StreamEvent:
        self._use("async for")
        while not self._taken:
            self._taken.extend(await anext(self._batches))
        return self._taken.popleft()

    async def aclose(self) -> None:
        """Stop the run (if it still goes) and wait for its driver to end."""
        self._use("async for")
        self._taken.clear()
        await self._batches.aclose()

    async def __aenter__(self) -> RunStream:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

    def __iter__(self) -> RunStream:
        self._use("for")
        return self

    def __next__(self) -> StreamEvent:
        self._use("for")
        if self._loop is None:
            self._loop = self._portal()
        while not self._taken:
            try:
                self._taken.extend(self._loop.call(_next(self._batches)))
            except StopAsyncIteration:
                raise StopIteration from None
        return self._taken.popleft()

    def close(self) -> None:
        """``aclose`` for synchronous code."""
        self._use("for")
        self._taken.clear()
        if self._loop is not None:
            self._loop.call(_close(self._batches))

    def __enter__(self) -> RunStream:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
