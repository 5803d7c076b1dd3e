"""
``ToolInvocation``: one admitted call on its way to a provider, with its ``InvocationContext`` (run, call,
attempt, idempotency key, deadline, cooperative cancellation and heartbeats).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from attrs import evolve, field, frozen

from llm_wire import _public
from llm_wire._fast import Lean
from llm_wire.admission import InvalidArguments, admit
from llm_wire.agent._descriptor import ToolDescriptor
from llm_wire.agent._face import FACE as _FACE
from llm_wire.agent._tool_outcome import ToolOutcome
from llm_wire.message import ToolCall
from llm_wire.result import Err, Ok, Result
from llm_wire.tool import Tool, ToolCallChecks
from llm_wire.value import Value

__all__ = ["Heartbeat", "InvocationContext", "ToolInvocation"]

T = TypeVar("T")


@frozen
class Heartbeat(Lean):
    """A liveness report from a running tool: a message and an optional progress in [0, 1]."""

    message: str = ""
    progress: float | None = None
    at: float = field(factory=time.monotonic)


def _strings(value: Mapping[str, str]) -> dict[str, str]:
    return dict(value)


@frozen(eq=False)
class InvocationContext(Lean):
    """
    What a running tool may know and do: its run (and trace) and call, the attempt, the idempotency key
    (the same on every attempt), the deadline (``time.monotonic`` seconds), whether it was cancelled, the
    run's metadata, and ``heartbeat`` to report liveness.
    """

    run_id: str = ""
    call_id: str = ""
    attempt: int = 1
    idempotency_key: str = ""
    deadline: float | None = None
    metadata: Mapping[str, str] = field(factory=dict, converter=_strings)
    #: The run's trace id (kept whatever a host hook does to ``metadata``).
    trace_id: str = ""
    _cancel: threading.Event = field(factory=threading.Event, alias="_cancel", repr=False)
    _beat: Callable[[Heartbeat], None] | None = field(default=None, alias="_beat", repr=False)

    @property
    def cancelled(self) -> bool:
        """Whether the call was cancelled or abandoned (deadline, heartbeat timeout, run cancelled)."""
        return self._cancel.is_set()

    def remaining(self) -> float:
        """Seconds left before the deadline (``inf`` without one, never below 0)."""
        return math.inf if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def wait_cancelled(self, timeout: float | None = None) -> bool:
        """Block (in a sync tool) until cancelled or ``timeout`` seconds pass; whether it was cancelled."""
        return self._cancel.wait(timeout)

    def heartbeat(self, message: str = "", progress: float | None = None) -> None:
        """Report liveness (and progress in [0, 1]); a no-op when the contract asks for no heartbeats."""
        if self._beat is not None:
            self._beat(Heartbeat(message, progress))

    def cancel(self) -> None:
        """Ask the tool to stop (the runner does this when it abandons the call)."""
        self._cancel.set()


@frozen
class ToolInvocation(Lean):
    """
    One call to run: the model's ``call``, the registered ``descriptor`` (authoritative), the admitted
    ``arguments`` (a JSON value) and their ``decoded`` form (the tool codec's native value), the attempt,
    the idempotency key, the expected resource version and the context.
    """

    call: ToolCall
    descriptor: ToolDescriptor
    arguments: Value = field(eq=False)
    decoded: Any = field(eq=False)
    idempotency_key: str
    attempt: int = 1
    expected_resource_version: str | None = None
    context: InvocationContext = field(factory=InvocationContext, eq=False)

    @property
    def name(self) -> str:
        """The registered tool name (the descriptor's)."""
        return self.descriptor.name

    @property
    def call_id(self) -> str:
        """The model's call id."""
        return self.call.id

    def decoded_as(self, tool: Tool[T]) -> T | None:
        """
        The decoded arguments typed as ``tool``'s input when this invocation's descriptor holds ``tool``
        itself (the same object, ``TypedTool.tool`` for a typed tool); ``None`` for another tool.
        """
        if not isinstance(tool, Tool):
            raise TypeError(f"tool must be a Tool, not {type(tool).__name__}")
        return self.decoded if self.descriptor.tool is tool else None

    @classmethod
    def of(
        cls,
        descriptor: ToolDescriptor,
        arguments_json: str,
        *,
        call_id: str = "call-1",
        run_id: str = "",
        metadata: Mapping[str, str] | None = None,
    ) -> Result[ToolInvocation, ToolOutcome]:
        """
        An invocation of ``descriptor`` with ``arguments_json`` admitted against its input schema (outside a
        runner: tests, adapters); ``Err`` holds the ``invalid_input`` outcome to show the model.
        """
        call = ToolCall(id=call_id, name=descriptor.name, arguments_json=arguments_json)
        match admit([call], [descriptor.tool], checks=ToolCallChecks.REPORT):
            case Err(error):
                return Err(ToolOutcome.invalid_arguments(descriptor.name, None, error.describe()))
            case Ok(admitted):
                pass
        for issue in admitted.issues:
            if isinstance(issue, InvalidArguments):
                return Err(ToolOutcome.invalid_arguments(descriptor.name, issue.failure))
        found = admitted.admitted[0]
        key = f"{run_id}:{call_id}" if run_id else call_id
        context = InvocationContext(run_id, call_id, 1, key, None, metadata or {})
        return Ok(cls(call, descriptor, found.arguments, found.decoded, key, 1, None, context))

    def with_descriptor(self, descriptor: ToolDescriptor) -> ToolInvocation:
        """A copy carrying ``descriptor`` instead."""
        return evolve(self, descriptor=descriptor)


_public.rehome("llm_wire.agent", _FACE[__name__], globals())
