"""
Calls made by a program rather than the model (issue 26, item 4), through the runner over the fake provider
on loopback: ``allow_tool_call`` sees ``call.by_program`` and ``call.caller`` and can refuse the call, an
approver sees ``ApprovalRequest.by_program``, and the request after the call sends its caller back as
received.
"""

from __future__ import annotations

import json

import pytest
from agent_tools import Programmable

from llm_wire import config, request, user
from llm_wire.agent import Approval, Runner, RunResult, StopReason, ToolContract, ToolDescriptor
from llm_wire.agent.events import ApprovalRequest, Verdict
from llm_wire.message import Provider, ToolCall, ToolResult
from llm_wire.transport import Client
from llm_wire.transport.fake import FakeCall, FakeProvider, Received, ScriptedModel
from llm_wire.transport.fake._scripted import Turn
from llm_wire.value import Value

#: The callers each API sends for a call made by code the model ran (openai-python ``CallerProgram``,
#: anthropic-sdk-python ``ServerToolCaller20260120``).
PROGRAMS: dict[Provider, Value] = {
    Provider.OPENAI_RESPONSES: {"type": "program", "caller_id": "ci_1"},
    Provider.ANTHROPIC: {"type": "code_execution_20260120", "tool_id": "srvtoolu_1"},
}
WIRES = pytest.mark.parametrize("provider", list(PROGRAMS), ids=lambda provider: provider.value)


def run(
    provider: Provider, caller: Value, tool: Programmable, bodies: list[Value], **options: object
) -> RunResult:
    """A two-round run: the model calls the tool (made by ``caller``), then answers."""

    def respond(received: Received, _: Provider) -> Turn:
        bodies.append(received.json())
        if len(bodies) == 1:
            return "", [FakeCall("call-1", "contract_tool", "{}", caller=caller)]
        return "done", []

    with FakeProvider(ScriptedModel(respond)) as fake, Client(base_url=fake.url, api_key="k") as client:
        runner = Runner(client, config(provider), tool, **options)  # type: ignore[arg-type]
        try:
            return runner.run(request("m", [user("go")]))
        finally:
            runner.close()


def shown(result: RunResult) -> list[dict[str, object]]:
    """What the model saw of each tool result, parsed."""
    return [json.loads(m.content) for m in result.request.messages if isinstance(m, ToolResult)]


@WIRES
def test_a_host_refuses_a_call_made_by_a_program(provider: Provider) -> None:
    """The hook sees who made the call; refusing programs' calls leaves the tool unrun."""
    seen: list[ToolCall] = []

    def allow(call: ToolCall, descriptor: ToolDescriptor) -> bool:
        seen.append(call)
        return not call.by_program

    tool, bodies = Programmable(), list[Value]()
    result = run(provider, PROGRAMS[provider], tool, bodies, allow_tool_call=allow)
    assert result.stop is StopReason.ANSWERED
    [call] = seen
    assert call.by_program
    assert call.caller == PROGRAMS[provider]
    assert tool.invocations == []
    assert shown(result)[0]["error"]["code"] == "denied"  # type: ignore[index]


@WIRES
def test_the_model_s_own_call_runs(provider: Provider) -> None:
    """The same hook lets a direct call run, and the next request carries its caller as received."""
    tool, bodies = Programmable(), list[Value]()
    direct: Value = {"type": "direct"}
    result = run(provider, direct, tool, bodies, allow_tool_call=lambda call, _: not call.by_program)
    assert result.stop is StopReason.ANSWERED
    assert len(tool.invocations) == 1
    second = bodies[1]
    assert isinstance(second, dict)
    history = second["input"] if provider is Provider.OPENAI_RESPONSES else second["messages"]
    assert isinstance(history, list)
    assert direct in [item.get("caller") for item in _items(history)]


def _items(history: list[Value]) -> list[dict[str, Value]]:
    """The history's items, with an Anthropic message's content blocks in place of the message."""
    found: list[dict[str, Value]] = []
    for item in history:
        assert isinstance(item, dict)
        content = item.get("content")
        found += (
            [block for block in content if isinstance(block, dict)] if isinstance(content, list) else [item]
        )
    return found


@WIRES
def test_an_approver_sees_who_made_the_call(provider: Provider) -> None:
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> Verdict:
        asked.append(request)
        return Verdict.DENY if request.by_program else Verdict.ALLOW

    tool = Programmable(contract=ToolContract(approval=Approval.ALWAYS))
    result = run(provider, PROGRAMS[provider], tool, [], approver=approver)
    assert [request.by_program for request in asked] == [True]
    assert tool.invocations == []
    assert shown(result)[0]["error"]["code"] == "approval_denied"  # type: ignore[index]
