"""
Blocking work off the event loop, each call on a daemon thread of its own: a call abandoned at its deadline
never holds the caller's loop (``asyncio.run`` joins only its default executor) nor the process exit, and
the in-flight slot of its attempt is kept until the thread really ends.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import asyncio

__all__ = ["Slot", "in_thread"]

T = TypeVar("T")


class Slot:
    """
    One attempt's in-flight slot: held by its task and by every thread the task started, and given back
    (``release``) when the last of them ends.
    """

    def __init__(self, release: Callable[[], None]) -> None:
        self._holders = 1
        self._lock = threading.Lock()
        self._release = release

    def hold(self) -> Callable[[], None]:
        """One more holder; the function that drops it."""
        with self._lock:
            self._holders += 1
        return self.drop

    def drop(self, _: object = None) -> None:
        """One holder fewer; the slot is given back with the last."""
        with self._lock:
            self._holders -= 1
            last = self._holders == 0
        if last:
            self._release()


#: The slot of the attempt running in this context, if any.
CURRENT_SLOT: contextvars.ContextVar[Slot | None] = contextvars.ContextVar("llm_wire_slot", default=None)


async def in_thread(fn: Callable[..., T], *args: object) -> T:
    """
    ``fn(*args)`` on a new daemon thread, in a copy of the caller's context. Cancelled, it returns at once:
    the thread runs on (a thread cannot be killed) and keeps the current attempt's slot until it ends; its
    result is dropped. Whatever ``fn`` raises, ``BaseException`` included, is raised here.
    """
    import asyncio  # a run loads it; a tool declared by a program that never runs one does not

    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    slot = CURRENT_SLOT.get()
    drop = None if slot is None else slot.hold()
    context = contextvars.copy_context()

    def work() -> None:
        try:
            result = context.run(fn, *args)
        except BaseException as exc:  # SystemExit in a thread would end it silently: hand it over
            settle = _failing(future, exc)
        else:
            settle = _settling(future, result)
        finally:
            if drop is not None:
                drop()
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits for this result any more
            loop.call_soon_threadsafe(settle)

    threading.Thread(target=work, name="llm_wire.agent.worker", daemon=True).start()
    return await future


def _settling(future: asyncio.Future[T], result: T) -> Callable[[], None]:
    def settle() -> None:
        if not future.done():
            future.set_result(result)

    return settle


def _failing(future: asyncio.Future[T], exc: BaseException) -> Callable[[], None]:
    def settle() -> None:
        if not future.done():
            future.set_exception(exc)

    return settle
