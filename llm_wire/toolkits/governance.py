"""
What the toolkits share: approval, audit events and cancellation (an approver answers with
``llm_wire.agent.events.Verdict``; a run's ``llm_wire.agent.steps.Cancellation`` can cancel an effect).

Schema validation is not authorization: the filesystem and process runtimes check their policy, ask an
``Approver`` and record ``AuditEvent``s themselves, at the moment they perform the effect. An approver that
raises, or answers anything but ``Verdict.ALLOW``, denies (fail closed). A sink that raises is ignored, so
telemetry can never turn a finished mutation into an ambiguous failure.
"""

from __future__ import annotations

import contextlib
import enum
import os
import threading
from collections.abc import Mapping
from typing import Protocol, TypeAlias

from attrs import define, field, frozen

from llm_wire.agent import Risk
from llm_wire.agent.events import Verdict
from llm_wire.agent.steps import Cancellation  # noqa: F401 (an old name: llm_wire._deprecated.ALIASES)

__all__ = [
    "EffectRequest",
    "EffectApprover",
    "ApproveAll",
    "AuditKind",
    "AuditEvent",
    "AuditSink",
    "AuditLog",
    "CancelSignal",
    "ConfigurationError",
]

#: A metadata value: JSON scalars only.
_MetadataValue: TypeAlias = str | int | bool
#: Caller or runtime metadata attached to a request or result.
_Metadata: TypeAlias = Mapping[str, _MetadataValue]


@frozen
class EffectRequest:
    """
    What an approver is asked: the capability (``filesystem.write``, ``process.execute``,
    ``process.shell``), its risk, the operation, and the resources it touches (root-relative paths, or the
    executable and workdir).
    """

    capability: str
    risk: Risk
    operation: str
    operation_id: str
    resources: tuple[str, ...]


class EffectApprover(Protocol):
    """
    Decides a runtime's approval requests: ``Verdict.ALLOW`` (or ``True``) approves; ``DENY``, ``ASK``
    (manual review, which a runtime cannot wait for), anything else or an exception deny.
    """

    def decide(self, request: EffectRequest) -> Verdict | bool:
        """The decision for ``request``."""
        ...


@frozen
class ApproveAll:
    """An approver that approves everything: for a host that has already approved the call itself."""

    def decide(self, request: EffectRequest) -> Verdict | bool:
        """``Verdict.ALLOW``."""
        return Verdict.ALLOW


class AuditKind(enum.Enum):
    """What an audit event records."""

    #: The policy allowed the request (approval may still be needed).
    POLICY_EVALUATED = "policy_evaluated"
    APPROVAL_APPROVED = "approval_approved"
    APPROVAL_DENIED = "approval_denied"
    #: A filesystem operation ended, with any status (every operation ends with exactly one).
    OPERATION_FINISHED = "operation_finished"
    #: A process was launched.
    PROCESS_STARTED = "process_started"
    #: A process request ended, launched or refused (every request ends with exactly one).
    PROCESS_FINISHED = "process_finished"


@frozen
class AuditEvent:
    """
    One audit record. ``status`` is the operation's status or termination reason on a finishing event, and
    ``details`` holds counts and flags (bytes, items, truncation, exit code): runtime values, never content.
    """

    kind: AuditKind
    toolkit: str
    operation: str
    operation_id: str
    resources: tuple[str, ...] = ()
    status: str | None = None
    error: str | None = None
    details: Mapping[str, _MetadataValue] = field(factory=dict)


class AuditSink(Protocol):
    """Receives audit events; whatever it raises is swallowed."""

    def record(self, event: AuditEvent) -> None:
        """Keep or forward ``event``."""
        ...


@define
class AuditLog:
    """An in-memory sink: every event, in order (thread-safe)."""

    events: list[AuditEvent] = field(factory=list)
    _lock: threading.Lock = field(factory=threading.Lock, init=False, repr=False)

    def record(self, event: AuditEvent) -> None:
        """Append ``event``."""
        with self._lock:
            self.events.append(event)

    def kinds(self) -> list[AuditKind]:
        """The kinds recorded so far, in order."""
        with self._lock:
            return [event.kind for event in self.events]


class CancelSignal(Protocol):
    """Anything with a ``cancelled`` flag: a ``Cancellation``, or an agent's ``InvocationContext``."""

    @property
    def cancelled(self) -> bool:
        """Whether the operation should stop."""
        ...


def _check_cancel(cancel: object) -> CancelSignal | None:
    """``cancel`` as a signal; a ``TypeError`` when it has no ``cancelled`` flag."""
    if cancel is not None and not isinstance(getattr(cancel, "cancelled", None), bool):
        raise TypeError("cancel must have a bool cancelled attribute (a Cancellation)")
    return cancel  # type: ignore[return-value]  # checked just above


def _emit(sink: AuditSink | None, event: AuditEvent) -> None:
    """Give ``event`` to ``sink``, swallowing whatever it raises."""
    if sink is None:
        return
    # A broken sink must not change the operation's outcome.
    with contextlib.suppress(Exception):
        sink.record(event)


def _ask(approver: EffectApprover | None, request: EffectRequest) -> bool:
    """Whether ``approver`` approves ``request``; no approver, an exception or any other answer deny."""
    if approver is None:
        return False
    try:
        answer = approver.decide(request)
    except Exception:
        return False
    return answer is Verdict.ALLOW or answer is True


def _path(value: str | os.PathLike[str]) -> str:
    """A path setting as text; anything else is a ``TypeError``."""
    if not isinstance(value, str | os.PathLike):
        raise TypeError("a root must be a str or path")
    text = os.fspath(value)
    if not isinstance(text, str):
        raise TypeError("a root must be a str or path")
    return text


class ConfigurationError(ValueError):
    """A toolkit policy that cannot be used, found at construction; the message names the setting."""
