"""
The transport's settings: ``Timeouts`` (each bound a number of seconds or ``NO_LIMIT``, written out) and the
opt-in ``RetryPolicy``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, Literal, TypeAlias

from attrs import Attribute, field, frozen

from llm_wire._checks import positive_int

__all__ = ["NO_LIMIT", "Bound", "NoLimit", "RetryPolicy", "Timeouts", "seconds_of"]


class NoLimit(enum.Enum):
    """The explicit absence of a bound: ``Timeouts(total=NO_LIMIT)``."""

    NO_LIMIT = "no_limit"


#: No bound at all; a timeout is never left out by accident, only written as this.
NO_LIMIT = NoLimit.NO_LIMIT

#: A bound in seconds, or ``NO_LIMIT``.
Bound: TypeAlias = float | Literal[NoLimit.NO_LIMIT]


def _seconds(owner: str) -> Callable[[object, Attribute[Any], Any], None]:
    def check(_: object, attribute: Attribute[Any], value: Any) -> None:
        if value is NO_LIMIT:
            return
        if isinstance(value, bool) or not isinstance(value, int | float):
            kind = type(value).__name__
            msg = f"{owner}.{attribute.name} must be a number of seconds or NO_LIMIT, not {kind}"
            raise TypeError(msg)
        if not 0 < value < float("inf"):
            msg = f"{owner}.{attribute.name} must be a positive finite number of seconds (or NO_LIMIT)"
            raise ValueError(msg)

    return check


def seconds_of(bound: Bound) -> float | None:
    """A bound as seconds, ``None`` for ``NO_LIMIT``."""
    return None if bound is NO_LIMIT else float(bound)


_timeout = _seconds("Timeouts")


@frozen
class Timeouts:
    """
    How long one call may take. Each bound is seconds, or ``NO_LIMIT`` written out.

    ``connect`` bounds opening the connection; ``first_byte`` the wait, once the request is written, for the
    response to start; ``idle`` every later gap between two chunks of the body or stream; ``total`` the whole
    call, from the first connect to the last byte.
    """

    total: Bound = field(default=600.0, validator=_timeout)
    connect: Bound = field(default=10.0, validator=_timeout)
    first_byte: Bound = field(default=120.0, validator=_timeout)
    idle: Bound = field(default=60.0, validator=_timeout)


def _fraction(_: object, attribute: Attribute[Any], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"RetryPolicy.{attribute.name} must be a number, not {type(value).__name__}"
        raise TypeError(msg)
    if not 0 <= value <= 1:
        msg = f"RetryPolicy.{attribute.name} must be between 0 and 1"
        raise ValueError(msg)


_policy = _seconds("RetryPolicy")


@frozen
class RetryPolicy:
    """
    Opt-in retries of safe failures only: a failure that sent nothing (``Sent.NOT_SENT``), or a provider
    error its provider marks retryable. The ``n``-th retry waits ``min(max_delay, initial * multiplier **
    (n - 1))`` less up to ``jitter`` of it at random, or longer when the provider asked (``Retry-After``).
    No attempt starts, and none runs, past ``deadline`` after the first began. A provider asking for a wait
    past the deadline (past ``max_delay`` when there is no deadline) is never retried early: the send ends
    with its error and advice.

    Not ``agent.ToolRetryPolicy``, which retries a tool call under its contract: there the declared
    schedule is the mean wait (jitter both ways), the draw is the runner's and the bound is the contract's
    ``timeout``. Here the jitter only shortens a wait (full jitter by default, spreading clients that hit
    one rate-limited API), so ``max_delay`` and ``deadline`` bound every wait; the generator is the plan's
    own (``seed``), and what is retried is decided by what reached the provider, not by idempotency.
    """

    #: Attempts in all, the first included.
    attempts: int = field(default=3, validator=positive_int(wrong_type=TypeError))
    initial: float = field(default=0.5, validator=_policy)
    multiplier: float = field(default=2.0, validator=_policy)
    max_delay: float = field(default=30.0, validator=_policy)
    #: The share of each delay taken off at random (0: none, 1: "full jitter").
    jitter: float = field(default=1.0, validator=_fraction)
    deadline: Bound = field(default=120.0, validator=_policy)
    #: Seeds the jitter, for a reproducible schedule; ``None`` draws from the system.
    seed: int | None = None
