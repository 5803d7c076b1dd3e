"""
A scripted model, for tests and docs of code that runs the agent: ``ScriptedClient`` is a ``Model`` (the
protocol the ``Runner`` calls) that answers from a script of expected requests and canned replies (``reply``
with text and ``call``s), and raises ``ScriptError`` when the runner sends what the script does not expect.
Each reply goes through ``resolve`` with the prepared request, so its calls are admitted exactly as a real
response's would be.

It stands where a transport ``Client`` stands, above the wire: no HTTP, no provider's words, the canned
``Terminal`` built for whatever provider the request was prepared for. ``llm_wire.transport.fake``'s
``ScriptedModel`` is the other kind of script: it sits behind a real HTTP server and answers in each API's own
bytes, for tests of the transport and the decoders. One checks the runner, the other the wire, so they stay
two.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from attrs import frozen

from llm_wire._fast import Lean as _Lean
from llm_wire._request import Prepared, Request
from llm_wire.message import ToolCall
from llm_wire.outcome import Outcome, resolve
from llm_wire.providers.response import FinishReason, Terminal, Usage
from llm_wire.result import Ok

__all__ = ["ScriptedReply", "ScriptError", "ScriptedCall", "ScriptedClient", "call", "reply"]


class ScriptError(AssertionError):
    """The runner sent a request the script did not expect, or more requests than it holds."""


@frozen
class ScriptedCall(_Lean):
    """A call in a canned response; ``id`` ``None`` gets ``call-<response>-<index>``."""

    name: str
    arguments_json: str = "{}"
    id: str | None = None


@frozen
class ScriptedReply(_Lean):
    """
    One canned response, and optionally what the request before it must satisfy (``expect`` returns
    whether it does). Calls make it a tool-call response; otherwise it answers with ``text``.
    """

    text: str = ""
    calls: tuple[ScriptedCall, ...] = ()
    expect: Callable[[Request], bool] | None = None
    finish: FinishReason | None = None
    usage: Usage | None = None


def reply(
    text: str = "", *calls: ScriptedCall, expect: Callable[[Request], bool] | None = None
) -> ScriptedReply:
    """A canned response with ``text`` and ``calls``, after a request that satisfies ``expect``."""
    return ScriptedReply(text, calls, expect)


def call(name: str, arguments_json: str = "{}", id: str | None = None) -> ScriptedCall:
    """A call to ``name`` in a canned response."""
    return ScriptedCall(name, arguments_json, id)


class ScriptedClient:
    """
    A model client for tests (it has the clients' ``complete(prepared) -> Outcome``): answers each request
    with the next ``ScriptedReply``; raises ``ScriptError`` when the request breaks the reply's ``expect``
    or the script is used up. ``requests`` keeps every request it was sent.
    """

    def __init__(self, replies: Iterable[ScriptedReply]) -> None:
        self._replies = list(replies)
        for item in self._replies:
            if not isinstance(item, ScriptedReply):
                raise TypeError(f"replies must hold ScriptedReply objects, not {type(item).__name__}")
        self._next = 0
        self.requests: list[Request] = []

    def __repr__(self) -> str:
        return f"<ScriptedClient ({self.remaining} of {len(self._replies)} replies left)>"

    @property
    def remaining(self) -> int:
        """Replies not used yet."""
        return len(self._replies) - self._next

    async def complete(self, prepared: Prepared) -> Outcome:
        """The next canned response to ``prepared``, admitted by ``resolve``."""
        return self.answer(prepared)

    def answer(self, prepared: Prepared) -> Outcome:
        """``complete`` without awaiting (for sync drivers and benchmarks)."""
        index = self._next
        if index >= len(self._replies):
            raise ScriptError(f"the script has {len(self._replies)} replies; request {index} is one too many")
        step = self._replies[index]
        self._next += 1
        self.requests.append(prepared.request)
        if step.expect is not None and not step.expect(prepared.request):
            raise ScriptError(f"request {index} is not what the script expects")
        calls = tuple(
            ToolCall(item.id or f"call-{index}-{n}", item.name, item.arguments_json)
            for n, item in enumerate(step.calls)
        )
        finish = step.finish or (FinishReason.TOOL_CALLS if calls else FinishReason.STOP)
        terminal = Terminal(prepared.provider, finish, step.text, calls, usage=step.usage)
        return resolve(Ok(terminal), prepared)
