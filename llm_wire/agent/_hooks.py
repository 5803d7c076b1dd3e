"""
Calling the host's hooks: an exception a hook raises becomes a ``HostHookError`` naming the hook, an answer
becomes a ``Verdict``; and the type checks of a run's arguments.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from llm_wire import _public
from llm_wire._request import Request
from llm_wire.agent._control import Cancellation
from llm_wire.agent._face import FACE as _FACE
from llm_wire.agent.events import Verdict

T = TypeVar("T")


async def maybe(value: T | Awaitable[T]) -> T:
    return await value if inspect.isawaitable(value) else value


class HostHookError(Exception):
    """
    A hook the host gave the runner raised: ``hook`` names it, ``error_type`` the exception's type. The
    text repeats neither the exception's message nor any input; the exception itself is the ``__cause__``.
    """

    def __init__(self, hook: str, error_type: str) -> None:
        super().__init__(f"the {hook} hook raised {error_type}")
        self.hook = hook
        self.error_type = error_type


def called(hook: str, fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)``; an exception it raises is a ``HostHookError`` naming ``hook``."""
    try:
        return fn(*args)
    except Exception as exc:
        raise HostHookError(hook, type(exc).__name__) from exc


async def awaited(hook: str, fn: Callable[..., T | Awaitable[T]], *args: object) -> T:
    """``called`` for a hook that may be async."""
    try:
        return await maybe(fn(*args))
    except Exception as exc:
        raise HostHookError(hook, type(exc).__name__) from exc


def as_verdict(hook: str, answer: object) -> Verdict:
    """A hook's answer as a ``Verdict`` (``True`` allows, ``False`` denies); else a ``TypeError``."""
    if isinstance(answer, Verdict):
        return answer
    if answer is True or answer is False:
        return Verdict.ALLOW if answer else Verdict.DENY
    raise TypeError(f"{hook} must return a Verdict or a bool, not {type(answer).__name__}")


async def arrival(pending: Awaitable[T]) -> tuple[T, float]:
    """What ``pending`` gives and the ``time.monotonic()`` it came at."""
    value = await pending
    return value, time.monotonic()


def check_callable(name: str, value: object) -> None:
    if value is not None and not callable(value):
        raise TypeError(f"{name} must be callable, not {type(value).__name__}")


def check_run(request: object, cancel: object, replay: object) -> None:
    """A ``TypeError`` naming the first of a run's arguments that has a wrong type."""
    if not isinstance(request, Request):
        raise TypeError(f"request must be a Request, not {type(request).__name__}")
    if cancel is not None and not isinstance(cancel, Cancellation):
        raise TypeError(f"cancel must be a Cancellation, not {type(cancel).__name__}")
    check_callable("replay", replay)


_public.rehome("llm_wire.agent", _FACE[__name__], globals())
