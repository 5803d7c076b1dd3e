"""
Fields of calls beyond id, name and arguments (issue 26, item 4): OpenAI Responses ``namespace`` and
``caller`` on ``function_call`` items, Anthropic ``caller`` on ``tool_use`` blocks (programmatic tool
calling).

The wire shapes are the SDKs' own types: openai-python ``ResponseFunctionToolCall`` (``namespace: str``,
``caller: {"type": "direct"} | {"type": "program", "caller_id": str}``) and anthropic-sdk-python
``ToolUseBlock`` (``caller: DirectCaller | ServerToolCaller | ServerToolCaller20260120``, the last two
``{"type": "code_execution_...", "tool_id": str}``); the Anthropic exchange below was recorded from the live
API by anthropic-sdk-python's tests (``../shared/corpora/provider-responses``). Each field is kept on the
``ToolCall``, sent back as received in the next request, persisted, and seen by admission and the hooks.
"""

from __future__ import annotations

import base64
import json
import pickle
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import llm_wire as rq
from llm_wire import message
from llm_wire.admission import InvalidToolCall, UnknownTool, admit
from llm_wire.codec import derive
from llm_wire.durable._records import _outcome_of, _terminal_value
from llm_wire.error import ProtocolError
from llm_wire.message import AssistantTurn, Message, Provider, ToolCall, ToolResult
from llm_wire.outcome import NeedsTools, resolve
from llm_wire.providers import anthropic, openai_responses
from llm_wire.providers.response import Terminal
from llm_wire.result import Err, Ok, unwrap
from llm_wire.tool import ToolCallChecks, new
from llm_wire.value import Value, parse, render

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "provider-responses"
#: anthropic-sdk-python, tests/lib/tools/__inline_snapshot__/test_runners/TestSyncRunTools/092be1de-...:
#: the second round of a run whose tool is called from code execution (``allowed_callers``).
PROGRAMMATIC = CORPUS / "anthropic" / "anthropic-sdk-python--test_runners--TestSyncRunTools--092be1de--1.json"

PROGRAM: Value = {"type": "program", "caller_id": "ci_7"}
CODE_EXECUTION: Value = {"type": "code_execution_20260120", "tool_id": "srvtoolu_1"}


@attrs.frozen
class Where:
    location: str


WEATHER = new("get_weather", "The weather.", derive(Where))


def next_request(provider: Provider, turn: AssistantTurn, result: str = "sunny") -> dict[str, Value]:
    """The body of the request after ``turn``, each of its calls answered with ``result``."""
    messages: list[Message] = [rq.user("Weather?"), turn]
    messages += [ToolResult(call.id, result) for call in turn.calls]
    body = unwrap(rq.prepare(rq.config(provider), rq.request("m", messages).with_tools([WEATHER]))).body
    assert isinstance(body, dict)
    return body


def responses_body(*items: Value) -> Value:
    return {"id": "resp_1", "object": "response", "status": "completed", "output": list(items)}


def function_call(call_id: str = "call_1", **members: Value) -> dict[str, Value]:
    """A finished ``function_call`` output item to ``get_weather``, with ``members`` added."""
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": "get_weather",
        "arguments": '{"location": "Paris"}',
        "status": "completed",
        **members,
    }


def sse(events: list[Value]) -> bytes:
    return b"".join(f"data: {render(event)}\n\n".encode() for event in events)


def responses_stream(added: dict[str, Value], done: dict[str, Value]) -> bytes:
    """A Responses stream of one function call: ``added`` when it starts, ``done`` when it ends."""
    return sse(
        [
            {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
            {"type": "response.output_item.added", "output_index": 0, "item": added},
            {"type": "response.output_item.done", "output_index": 0, "item": done},
            {"type": "response.completed", "response": responses_body(done)},
        ]
    )


def decoded(wire: Any, body: Value | bytes) -> Terminal:
    if isinstance(body, bytes):
        decoder = wire.decoder()
        assert isinstance(decoder.feed_bytes(body), Ok)
        return unwrap(decoder.finish())  # type: ignore[no-any-return]
    return unwrap(wire.decode_body(body))  # type: ignore[no-any-return]


class TestOpenAIResponses:
    def test_namespace_and_caller_are_kept_and_sent_back(self) -> None:
        """A plain call item (no replay data) keeps both fields; the next request carries them as received."""
        item = function_call(namespace="crm", caller=PROGRAM)
        terminal = decoded(openai_responses.WIRE, responses_body(item))
        [call] = terminal.calls
        assert (call.namespace, call.caller, call.by_program) == ("crm", PROGRAM, True)
        assert terminal.provider_data is None
        sent = next_request(Provider.OPENAI_RESPONSES, terminal.turn)["input"]
        assert isinstance(sent, list)
        replayed = sent[1]
        assert isinstance(replayed, dict)
        assert render(replayed["namespace"]) == render(item["namespace"])
        assert render(replayed["caller"]) == render(item["caller"])

    def test_a_direct_call_is_the_model_s(self) -> None:
        """``{"type": "direct"}`` is the model itself: kept and sent back, not a program's call."""
        terminal = decoded(openai_responses.WIRE, responses_body(function_call(caller={"type": "direct"})))
        [call] = terminal.calls
        assert (call.caller, call.by_program, call.namespace) == ({"type": "direct"}, False, None)
        sent = next_request(Provider.OPENAI_RESPONSES, terminal.turn)["input"]
        assert isinstance(sent, list)
        assert sent[1] == {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"location": "Paris"}',
            "caller": {"type": "direct"},
        }

    @pytest.mark.parametrize("on", ["added", "done", "both"])
    def test_a_stream_takes_the_fields_from_either_event(self, on: str) -> None:
        """The fields may come when the item starts, when it is done, or both (alike)."""
        full = function_call(namespace="crm", caller=PROGRAM)
        bare = function_call()
        added = {**(full if on in ("added", "both") else bare), "arguments": "", "status": "in_progress"}
        done = full if on in ("done", "both") else bare
        [call] = decoded(openai_responses.WIRE, responses_stream(added, done)).calls
        assert (call.namespace, call.caller) == ("crm", PROGRAM)

    @pytest.mark.parametrize(
        "changed", [{"namespace": "billing"}, {"caller": {"type": "direct"}}], ids=["namespace", "caller"]
    )
    def test_a_stream_that_changes_a_field_is_refused(self, changed: dict[str, Value]) -> None:
        full = function_call(namespace="crm", caller=PROGRAM)
        stream = responses_stream({**full, "arguments": ""}, {**full, **changed})
        decoder = openai_responses.WIRE.decoder()
        assert isinstance(decoder.feed_bytes(stream), Err)

    @pytest.mark.parametrize(
        ("member", "value"), [("namespace", 3), ("namespace", ["crm"]), ("caller", "program"), ("caller", [])]
    )
    def test_a_field_of_the_wrong_type_is_a_protocol_error(self, member: str, value: Value) -> None:
        result = openai_responses.WIRE.decode_body(responses_body(function_call("call_1", **{member: value})))
        assert isinstance(result, Err)
        assert isinstance(result.error, ProtocolError)

    def test_another_api_s_caller_is_not_sent(self) -> None:
        """A caller is each API's own: an Anthropic call's is not sent to OpenAI, its namespace would be."""
        call = ToolCall("toolu_1", "get_weather", "{}", caller=CODE_EXECUTION)
        turn = AssistantTurn("", (call,), Provider.ANTHROPIC)
        item = next_request(Provider.OPENAI_RESPONSES, turn)["input"]
        assert isinstance(item, list)
        assert item[1] == {
            "type": "function_call",
            "call_id": "toolu_1",
            "name": "get_weather",
            "arguments": "{}",
        }
        written = AssistantTurn("", (ToolCall("c1", "get_weather", "{}", namespace="crm"),))
        item = next_request(Provider.OPENAI_RESPONSES, written)["input"]
        assert isinstance(item, list)
        assert isinstance(item[1], dict)
        assert item[1]["namespace"] == "crm"

    def test_the_fake_provider_speaks_the_fields(self) -> None:
        """The fake provider's Responses speech carries what a call holds, body and stream alike."""
        said = (ToolCall("call_1", "get_weather", "{}", namespace="crm", caller=PROGRAM),)
        speech = openai_responses.WIRE.speech
        assert speech is not None
        [from_body] = decoded(openai_responses.WIRE, speech.body("", said, "m")).calls
        events = [unwrap(parse(data)) for _, data in speech.events("", said, 4, "m")]
        [from_stream] = decoded(openai_responses.WIRE, sse(events)).calls
        assert from_body == from_stream == attrs.evolve(said[0], provider_id="fc_0")
        assert from_body.caller == from_stream.caller == PROGRAM


@pytest.mark.skipif(not PROGRAMMATIC.is_file(), reason=f"recorded exchange not found at {PROGRAMMATIC}")
class TestAnthropicRecorded:
    """A tool called from code execution, as the Messages API sent it and the SDK sent it back."""

    def recorded(self) -> dict[str, Any]:
        document = json.loads(PROGRAMMATIC.read_text(encoding="utf-8"))
        assert isinstance(document, dict)
        return document

    def test_the_response_s_caller_is_kept_and_sent_back(self) -> None:
        """The response holds one ``tool_use`` block (no replay data); its caller goes back as received."""
        response = unwrap(parse(json.dumps(self.recorded()["response"])))
        terminal = decoded(anthropic.WIRE, response)
        [call] = terminal.calls
        assert terminal.provider_data is None
        assert isinstance(response, dict)
        content = response["content"]
        assert isinstance(content, list)
        block = content[0]
        assert isinstance(block, dict)
        assert call.caller == block["caller"]
        assert call.by_program
        assistant = next_request(Provider.ANTHROPIC, terminal.turn)["messages"]
        assert isinstance(assistant, list)
        sent = assistant[1]
        assert isinstance(sent, dict)
        assert isinstance(sent["content"], list)
        assert render(sent["content"][0]) == render(block)

    def test_the_request_s_history_replays_byte_for_byte(self) -> None:
        """
        The assistant turn the SDK sent back (text, the code execution block, the call it made) decoded as
        the response it was, then encoded again: every block comes out as the recorded request has it.
        """
        history = self.recorded()["request"]["messages"]
        blocks = history[1]["content"]
        body = {"id": "msg_1", "type": "message", "role": "assistant", "content": blocks}
        terminal = decoded(anthropic.WIRE, unwrap(parse(json.dumps({**body, "stop_reason": "tool_use"}))))
        [call] = terminal.calls
        assert call.by_program
        sent = next_request(Provider.ANTHROPIC, terminal.turn, history[2]["content"][0]["content"])
        messages = sent["messages"]
        assert isinstance(messages, list)
        replayed = messages[1]
        assert isinstance(replayed, dict)
        assert render(replayed["content"]) == render(unwrap(parse(json.dumps(blocks))))


class TestAnthropic:
    def test_the_stream_s_caller_is_kept(self) -> None:
        """Streamed, the caller comes on ``content_block_start``."""
        speech = anthropic.WIRE.speech
        assert speech is not None
        said = (ToolCall("toolu_1", "get_weather", '{"location":"Paris"}', caller=CODE_EXECUTION),)
        events = [unwrap(parse(data)) for _, data in speech.events("", said, 5, "m")]
        [call] = decoded(anthropic.WIRE, sse(events)).calls
        assert call == said[0]
        assert call.caller == CODE_EXECUTION

    def test_a_caller_of_the_wrong_type_is_a_protocol_error(self) -> None:
        block: Value = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}, "caller": "direct"}
        result = anthropic.WIRE.decode_body(
            {"type": "message", "content": [block], "stop_reason": "tool_use"}
        )
        assert isinstance(result, Err)
        assert isinstance(result.error, ProtocolError)


class TestAdmission:
    """Tools are keyed on (namespace, name): no declared tool is in a namespace."""

    @pytest.mark.parametrize("checks", list(ToolCallChecks))
    def test_a_call_in_a_namespace_is_not_the_plain_tool(self, checks: ToolCallChecks) -> None:
        call = ToolCall("c1", "get_weather", '{"location": "Paris"}', namespace="crm")
        match admit([call], [WEATHER], checks):
            case Ok(admitted):
                assert checks is ToolCallChecks.REPORT
                assert admitted.admitted == ()
                assert admitted.issues == (UnknownTool("c1", "get_weather", ("get_weather",)),)
            case Err(error):
                assert checks is ToolCallChecks.REJECT
                assert error == InvalidToolCall(UnknownTool("c1", "get_weather", ("get_weather",)), 0)

    def test_a_caller_does_not_change_admission(self) -> None:
        """A program's call is admitted like the model's; the hooks decide whether it runs."""
        call = ToolCall("c1", "get_weather", '{"location": "Paris"}', caller=PROGRAM)
        [admitted] = unwrap(admit([call], [WEATHER])).admitted
        assert admitted.call.by_program


class TestToolCall:
    def test_by_program(self) -> None:
        assert not ToolCall("c", "f", "{}").by_program
        assert not ToolCall("c", "f", "{}", caller={"type": "direct"}).by_program
        assert ToolCall("c", "f", "{}", caller=PROGRAM).by_program
        assert ToolCall("c", "f", "{}", caller=CODE_EXECUTION).by_program
        assert ToolCall("c", "f", "{}", caller={}).by_program

    def test_the_fields_take_part_in_equality(self) -> None:
        plain = ToolCall("c", "f", "{}")
        assert plain != ToolCall("c", "f", "{}", namespace="crm")
        assert plain != ToolCall("c", "f", "{}", caller=PROGRAM)
        assert hash(plain) == hash(ToolCall("c", "f", "{}", caller=PROGRAM))

    def test_a_namespace_that_is_not_a_str_is_a_type_error(self) -> None:
        with pytest.raises(TypeError, match=r"ToolCall\.namespace must be a str or None, not int"):
            ToolCall("c", "f", "{}", namespace=1)  # type: ignore[arg-type]


#: ``pickle.dumps(ToolCall("call_1", "get_weather", '{"city":"Oslo"}', "fc_1", "sig"))`` at c80cc9b.
OLD_PICKLE = (
    "gASVmwAAAAAAAACMEGxsbV93aXJlLm1lc3NhZ2WUjAhUb29sQ2FsbJSTlCmBlH2UKIwCaWSUjAZjYWxsXzGUjARuYW1llIwLZ2V0X3dl"
    "YXRoZXKUjA5hcmd1bWVudHNfanNvbpSMD3siY2l0eSI6Ik9zbG8ifZSMC3Byb3ZpZGVyX2lklIwEZmNfMZSMDnByb3ZpZGVyX3N0YXRl"
    "lIwDc2lnlHViLg=="
)
_namespaces = st.none() | st.text(max_size=12)
_callers = st.none() | st.fixed_dictionaries(
    {"type": st.sampled_from(["direct", "program", "code_execution_20260120"])},
    optional={"caller_id": st.text(max_size=8), "tool_id": st.text(max_size=8)},
)


class TestPersisted:
    def test_a_conversation_keeps_the_fields(self) -> None:
        call = ToolCall("c1", "get_weather", "{}", namespace="crm", caller=PROGRAM)
        turn = AssistantTurn("", (call,), Provider.OPENAI_RESPONSES)
        [loaded] = unwrap(message.loads(message.dumps([turn])))
        assert isinstance(loaded, AssistantTurn)
        assert loaded.calls == (call,)
        assert loaded.calls[0].caller == PROGRAM

    def test_a_call_without_them_is_written_as_before(self) -> None:
        """Absent fields are not written: a document from before them is what today writes."""
        turn = AssistantTurn("", (ToolCall("c1", "f", "{}"),), Provider.ANTHROPIC)
        written = unwrap(parse(message.dumps([turn])))
        assert isinstance(written, dict)
        assert written["messages"] == [
            {
                "role": "assistant",
                "text": "",
                "calls": [
                    {
                        "id": "c1",
                        "name": "f",
                        "arguments_json": "{}",
                        "provider_id": None,
                        "provider_state": None,
                    }
                ],
                "provider": "anthropic",
                "response_id": None,
                "provider_data": None,
            }
        ]

    @given(_namespaces, _callers)
    def test_any_fields_round_trip(self, namespace: str | None, caller: Value) -> None:
        call = ToolCall("c1", "f", "{}", namespace=namespace, caller=caller)
        [loaded] = unwrap(message.loads(message.dumps([AssistantTurn("", (call,))])))
        assert isinstance(loaded, AssistantTurn)
        assert loaded.calls == (call,)
        assert render(loaded.calls[0].caller) == render(caller)

    def test_a_call_pickled_before_the_fields_reads_without_them(self) -> None:
        """A call pickled by llm_wire before the fields (c80cc9b) unpickles with both ``None``."""
        call = pickle.loads(base64.b64decode(OLD_PICKLE))
        assert call == ToolCall("call_1", "get_weather", '{"city":"Oslo"}', "fc_1")
        assert (call.provider_state, call.namespace, call.caller, call.by_program) == (
            "sig",
            None,
            None,
            False,
        )
        today = ToolCall("c1", "f", "{}", namespace="crm", caller=PROGRAM)
        assert pickle.loads(pickle.dumps(today)).caller == PROGRAM

    def test_a_namespace_that_is_not_a_string_is_refused(self) -> None:
        document = unwrap(parse(message.dumps([AssistantTurn("", (ToolCall("c1", "f", "{}"),))])))
        assert isinstance(document, dict)
        messages = document["messages"]
        assert isinstance(messages, list)
        assert isinstance(messages[0], dict)
        calls = messages[0]["calls"]
        assert isinstance(calls, list)
        assert isinstance(calls[0], dict)
        calls[0]["namespace"] = 1
        assert isinstance(message.loads(render(document)), Err)

    def test_a_durable_round_keeps_the_fields(self) -> None:
        """A model round a durable run records resolves again with the call's namespace and caller."""
        chosen = rq.config(Provider.OPENAI_RESPONSES).with_tool_call_checks(ToolCallChecks.REPORT)
        prepared = unwrap(rq.prepare(chosen, rq.request("m", [rq.user("x")]).with_tools([WEATHER])))
        body = responses_body(function_call(namespace="crm", caller=PROGRAM))
        outcome = resolve(openai_responses.WIRE.decode_body(body), prepared)
        assert isinstance(outcome, NeedsTools)
        recorded = unwrap(parse(render(_terminal_value(outcome, prepared))))
        again = _outcome_of(recorded, prepared)
        assert isinstance(again, NeedsTools)
        [call] = again.turn.calls
        assert (call.namespace, call.caller) == ("crm", PROGRAM)


@given(_namespaces, _callers, st.booleans())
def test_decoding_reads_the_fields_exactly(namespace: str | None, caller: Value, stream: bool) -> None:
    """Whatever namespace and caller an item holds, the call holds them, and the replay sends them back."""
    members: dict[str, Value] = {}
    if namespace is not None:
        members["namespace"] = namespace
    if caller is not None:
        members["caller"] = caller
    item = function_call("call_1", **members)
    body: Value | bytes = (
        responses_stream({**item, "arguments": ""}, item) if stream else responses_body(item)
    )
    terminal = decoded(openai_responses.WIRE, body)
    [call] = terminal.calls
    assert (call.namespace, call.caller) == (namespace, caller)
    sent = next_request(Provider.OPENAI_RESPONSES, terminal.turn)["input"]
    assert isinstance(sent, list)
    assert isinstance(sent[1], dict)
    assert {k: render(v) for k, v in sent[1].items() if k in members} == {
        k: render(v) for k, v in members.items()
    }
    blocks: Value = [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}, **members}]
    if namespace is None:  # Anthropic has no namespace; an unknown member of a block is the API's business
        anthropic_call = unwrap(
            anthropic.WIRE.decode_body({"type": "message", "content": blocks, "stop_reason": "tool_use"})
        ).calls[0]
        assert anthropic_call.caller == caller
