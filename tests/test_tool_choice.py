"""
The tool choice end to end: each wire's exact ``tool_choice`` JSON, ``prepare``'s checks of it, and admission
of a response against it (``ToolChoiceViolation`` under ``REJECT`` and ``REPORT``) through every wire's
decoder, bodies and streams alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import llm_wire as rq
from llm_wire.admission import (
    InvalidArguments,
    InvalidToolCall,
    ToolChoiceViolation,
    UnknownTool,
    describe_issue,
)
from llm_wire.message import Provider, ToolCall
from llm_wire.outcome import Answer, Failure, NeedsTools, Outcome, Sent, resolve, resolve_stream, resolve_with
from llm_wire.providers import WIRES, UnsupportedSetting
from llm_wire.providers.response import FinishReason, Terminal
from llm_wire.result import Err, Ok, unwrap
from llm_wire.sse import Event
from llm_wire.tool import ToolCallChecks, from_json_schema

SEARCH = unwrap(
    from_json_schema(
        "search",
        "Search the web",
        {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    )
)
FETCH = unwrap(
    from_json_schema("fetch", "Fetch a page", {"type": "object", "properties": {"url": {"type": "string"}}})
)
CLOCK = unwrap(from_json_schema("clock", "The time", {"type": "object"}))
TOOLS = (SEARCH, FETCH, CLOCK)
CONFIGS = {
    Provider.OPENAI_RESPONSES: rq.Config.openai_responses(),
    Provider.OPENAI_CHAT: rq.Config.openai_chat(),
    Provider.ANTHROPIC: rq.Config.anthropic(),
    Provider.GOOGLE: rq.Config.google(),
}
PROVIDERS = list(CONFIGS)
CHECKS = [ToolCallChecks.REJECT, ToolCallChecks.REPORT]
#: A name the model made up: no text may repeat it.
SECRET = "zz_secret_tool"


def conversation(choice: rq.ToolChoice | rq.UseTool | rq.AllowedTools | None = None) -> rq.Request:
    req = rq.request("model-x", [rq.user("Find it.")]).with_tools(TOOLS)
    return req if choice is None else req.with_tool_choice(choice)


def prepared(
    provider: Provider,
    choice: rq.ToolChoice | rq.UseTool | rq.AllowedTools | None,
    checks: ToolCallChecks = ToolCallChecks.REJECT,
    *,
    stream: bool = False,
) -> rq.Prepared:
    config = CONFIGS[provider].with_tool_call_checks(checks)
    return unwrap(rq.prepare(config.with_stream(stream), conversation(choice)))


def sent(provider: Provider, choice: rq.ToolChoice | rq.UseTool | rq.AllowedTools) -> Any:
    return prepared(provider, choice).body


def answered(ready: rq.Prepared, text: str, *calls: ToolCall) -> Outcome:
    """The outcome of ``ready``'s response holding ``text`` and ``calls``, as its API writes the body."""
    body = WIRES[ready.provider].speech.body(text, calls, "model-x")
    return resolve(ready.decode_body(body), ready)


def streamed(ready: rq.Prepared, text: str, *calls: ToolCall) -> Outcome:
    """The same, from the API's SSE events fed to ``ready``'s stream decoder."""
    decoder = ready.decoder()
    for name, data in WIRES[ready.provider].speech.events(text, calls, 8, "model-x"):
        assert isinstance(decoder.feed(Event(data, name)), Ok)
    return resolve_stream(decoder, ready)


def search(call_id: str = "c1") -> ToolCall:
    return ToolCall(call_id, "search", '{"q": "llm"}')


def fetch(call_id: str = "c2") -> ToolCall:
    return ToolCall(call_id, "fetch", '{"url": "https://example.com"}')


# ---------------------------------------------------------------------------------------------------------
# The request: each wire's exact JSON


class TestEncoding:
    """Every choice is part of the request, in each API's own words."""

    def test_openai_responses(self) -> None:
        """Responses: strings, a function object, and ``allowed_tools`` with its mode and function refs."""
        p = Provider.OPENAI_RESPONSES
        assert sent(p, rq.ToolChoice.NONE)["tool_choice"] == "none"
        assert sent(p, rq.ToolChoice.AUTO)["tool_choice"] == "auto"
        assert sent(p, rq.ToolChoice.REQUIRED)["tool_choice"] == "required"
        assert sent(p, rq.UseTool("fetch"))["tool_choice"] == {"type": "function", "name": "fetch"}
        assert sent(p, rq.AllowedTools(["search", "fetch"]))["tool_choice"] == {
            "type": "allowed_tools",
            "mode": "auto",
            "tools": [{"type": "function", "name": "search"}, {"type": "function", "name": "fetch"}],
        }
        required = rq.AllowedTools(("clock",), rq.ToolChoice.REQUIRED)
        assert sent(p, required)["tool_choice"] == {
            "type": "allowed_tools",
            "mode": "required",
            "tools": [{"type": "function", "name": "clock"}],
        }

    def test_openai_chat(self) -> None:
        """Chat: the same choices, ``allowed_tools`` nested under its own key with ``function`` refs."""
        p = Provider.OPENAI_CHAT
        assert sent(p, rq.ToolChoice.NONE)["tool_choice"] == "none"
        assert sent(p, rq.ToolChoice.REQUIRED)["tool_choice"] == "required"
        assert sent(p, rq.UseTool("fetch"))["tool_choice"] == {
            "type": "function",
            "function": {"name": "fetch"},
        }
        required = rq.AllowedTools(("search", "clock"), rq.ToolChoice.REQUIRED)
        assert sent(p, required)["tool_choice"] == {
            "type": "allowed_tools",
            "allowed_tools": {
                "mode": "required",
                "tools": [
                    {"type": "function", "function": {"name": "search"}},
                    {"type": "function", "function": {"name": "clock"}},
                ],
            },
        }

    def test_google(self) -> None:
        """Gemini: a mode, and ``allowedFunctionNames`` under ANY (required) or VALIDATED (auto)."""
        p = Provider.GOOGLE

        def calling(choice: rq.ToolChoice | rq.UseTool | rq.AllowedTools) -> Any:
            return sent(p, choice)["toolConfig"]["functionCallingConfig"]

        assert calling(rq.ToolChoice.NONE) == {"mode": "NONE"}
        assert calling(rq.ToolChoice.AUTO) == {"mode": "AUTO"}
        assert calling(rq.ToolChoice.REQUIRED) == {"mode": "ANY"}
        assert calling(rq.UseTool("fetch")) == {"mode": "ANY", "allowedFunctionNames": ["fetch"]}
        allowed = ["search", "fetch"]
        assert calling(rq.AllowedTools(allowed)) == {"mode": "VALIDATED", "allowedFunctionNames": allowed}
        required = rq.AllowedTools(allowed, rq.ToolChoice.REQUIRED)
        assert calling(required) == {"mode": "ANY", "allowedFunctionNames": allowed}

    def test_anthropic(self) -> None:
        """Anthropic: ``auto|any|tool|none``; a subset is sent only as its exact equivalent."""
        p = Provider.ANTHROPIC
        assert sent(p, rq.ToolChoice.NONE)["tool_choice"] == {"type": "none"}
        assert sent(p, rq.ToolChoice.AUTO)["tool_choice"] == {"type": "auto"}
        assert sent(p, rq.ToolChoice.REQUIRED)["tool_choice"] == {"type": "any"}
        assert sent(p, rq.UseTool("fetch"))["tool_choice"] == {"type": "tool", "name": "fetch"}
        every = ["clock", "search", "fetch"]
        assert sent(p, rq.AllowedTools(every))["tool_choice"] == {"type": "auto"}
        assert sent(p, rq.AllowedTools(every, rq.ToolChoice.REQUIRED))["tool_choice"] == {"type": "any"}
        one = rq.AllowedTools(["fetch"], rq.ToolChoice.REQUIRED)
        assert sent(p, one)["tool_choice"] == {"type": "tool", "name": "fetch"}

    @pytest.mark.parametrize(
        "choice",
        [
            rq.AllowedTools(["search", "fetch"]),
            rq.AllowedTools(["fetch"]),
            rq.AllowedTools(["search", "fetch"], rq.ToolChoice.REQUIRED),
        ],
    )
    def test_anthropic_refuses_a_subset(self, choice: rq.AllowedTools) -> None:
        """A subset Anthropic's ``tool_choice`` cannot say is refused before sending, naming the setting."""
        refused = rq.prepare(CONFIGS[Provider.ANTHROPIC], conversation(choice))
        assert isinstance(refused, Err)
        assert isinstance(refused.error, UnsupportedSetting)
        assert refused.error.setting == "tool_choice"
        assert refused.error.provider is Provider.ANTHROPIC


class TestPrepare:
    """``prepare`` checks the tools a choice names against the declared ones."""

    @pytest.mark.parametrize("provider", PROVIDERS)
    def test_an_undeclared_allowed_tool(self, provider: Provider) -> None:
        """Allowing a tool that is not declared is ``UnknownToolChoice`` naming it."""
        got = rq.prepare(CONFIGS[provider], conversation(rq.AllowedTools(["search", "nope"])))
        assert got == Err(rq.UnknownToolChoice("nope"))

    @pytest.mark.parametrize(
        ("choice", "reason"),
        [
            (rq.AllowedTools([]), "AllowedTools must allow at least one tool"),
            (rq.AllowedTools(["search", "search"]), "AllowedTools names a tool twice"),
            (
                rq.AllowedTools(["search"], rq.ToolChoice.NONE),
                "AllowedTools.mode must be ToolChoice.AUTO or REQUIRED",
            ),
        ],
    )
    def test_invalid_allowed_tools(self, choice: rq.AllowedTools, reason: str) -> None:
        """An empty subset, a name twice, or a mode other than auto/required is an ``InvalidSetting``."""
        assert rq.prepare(CONFIGS[Provider.OPENAI_CHAT], conversation(choice)) == Err(
            rq.InvalidSetting("tool_choice", reason)
        )

    def test_wrong_python_types(self) -> None:
        """A wrong type in the choice is a ``TypeError`` naming the field; a ``str`` is no list of names."""
        config = CONFIGS[Provider.OPENAI_CHAT]
        with pytest.raises(TypeError, match=r"AllowedTools\.names"):
            rq.AllowedTools("search")
        with pytest.raises(TypeError, match=r"AllowedTools\.mode"):
            rq.prepare(config, conversation(rq.AllowedTools(["search"], "auto")))  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"AllowedTools\.names"):
            rq.prepare(config, conversation(rq.AllowedTools([1])))  # type: ignore[list-item]
        with pytest.raises(TypeError, match=r"request\.tool_choice"):
            rq.prepare(config, conversation("auto"))  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------------
# The response: admission against the choice


#: Each broken choice, where its API can say it: the choice, the calls made, the index of the first broken
#: call (``None``: no call was made), and the tools the violation says are allowed.
BROKEN = [
    ("none_but_called", rq.ToolChoice.NONE, (search(),), 0, ()),
    ("required_no_call", rq.ToolChoice.REQUIRED, (), None, ("search", "fetch", "clock")),
    ("forced_other", rq.UseTool("search"), (fetch("c1"),), 0, ("search",)),
    ("forced_no_call", rq.UseTool("search"), (), None, ("search",)),
    (
        "outside_allowed",
        rq.AllowedTools(["search", "clock"]),
        (search("c1"), fetch("c2")),
        1,
        ("search", "clock"),
    ),
    (
        "allowed_required_no_call",
        rq.AllowedTools(["search", "clock"], rq.ToolChoice.REQUIRED),
        (),
        None,
        ("search", "clock"),
    ),
]


def _expressible(provider: Provider, choice: object) -> bool:
    return provider is not Provider.ANTHROPIC or not isinstance(choice, rq.AllowedTools)


CASES = [
    pytest.param(provider, checks, choice, calls, index, allowed, id=f"{name}-{provider.value}-{checks.name}")
    for name, choice, calls, index, allowed in BROKEN
    for provider in PROVIDERS
    if _expressible(provider, choice)
    for checks in CHECKS
]


class TestViolations:
    """A response that breaks the choice is a typed ``ToolChoiceViolation`` in both check modes."""

    @pytest.mark.parametrize(("provider", "checks", "choice", "calls", "index", "allowed"), CASES)
    def test_broken_choice(
        self,
        provider: Provider,
        checks: ToolCallChecks,
        choice: Any,
        calls: tuple[ToolCall, ...],
        index: int | None,
        allowed: tuple[str, ...],
    ) -> None:
        """``REJECT`` fails on the first broken call; ``REPORT`` lists it (no call: ``call_id`` ``None``)."""
        ready = prepared(provider, choice, checks)
        for got in (answered(ready, "I know it.", *calls), streamed(ready, "I know it.", *calls)):
            call_id = None if index is None else calls[index].id
            name = "" if index is None else calls[index].name
            expected = ToolChoiceViolation(call_id, name, allowed)
            if checks is ToolCallChecks.REJECT:
                assert isinstance(got, Failure)
                assert got.error == InvalidToolCall(expected, 0 if index is None else index)
                assert got.sent is Sent.COMPLETED
            else:
                assert isinstance(got, NeedsTools)
                assert got.issues == (expected,)
                assert [(c.id, c.name) for c in got.turn.calls] == [(c.id, c.name) for c in calls]
                assert [a.call.id for a in got.admitted] == [c.id for c in calls if c.id != call_id]

    @pytest.mark.parametrize("provider", PROVIDERS)
    @pytest.mark.parametrize("checks", CHECKS)
    def test_obeyed_choices_are_admitted(self, provider: Provider, checks: ToolCallChecks) -> None:
        """A response within its choice is admitted as before: the forced call, an allowed call, an answer."""
        forced = answered(prepared(provider, rq.UseTool("search"), checks), "", search())
        assert isinstance(forced, NeedsTools)
        assert (forced.issues, [a.call.id for a in forced.admitted]) == ((), ["c1"])
        quiet = answered(prepared(provider, rq.ToolChoice.NONE, checks), "It is 4.")
        assert isinstance(quiet, Answer)
        assert quiet.text == "It is 4."
        required = answered(prepared(provider, rq.ToolChoice.REQUIRED, checks), "", fetch())
        assert isinstance(required, NeedsTools)
        assert required.issues == ()
        auto = answered(prepared(provider, rq.ToolChoice.AUTO, checks), "It is 4.")
        assert isinstance(auto, Answer)
        if _expressible(provider, rq.AllowedTools(["x"])):
            subset = answered(prepared(provider, rq.AllowedTools(["search", "clock"]), checks), "Done.")
            assert isinstance(subset, Answer)

    def test_a_violation_comes_before_other_issues_in_provider_order(self) -> None:
        """Under ``REPORT`` a broken call and a call with bad arguments are both listed, in provider order."""
        ready = prepared(Provider.OPENAI_CHAT, rq.AllowedTools(["search"]), ToolCallChecks.REPORT)
        bad = ToolCall("c1", "search", '{"q": 5}')
        got = answered(ready, "", bad, fetch("c2"), search("c3"))
        assert isinstance(got, NeedsTools)
        assert isinstance(got.issues[0], InvalidArguments)
        assert got.issues[1] == ToolChoiceViolation("c2", "fetch", ("search",))
        assert [a.call.id for a in got.admitted] == ["c3"]
        rejected = answered(prepared(Provider.OPENAI_CHAT, rq.AllowedTools(["search"])), "", fetch("c0"), bad)
        assert isinstance(rejected, Failure)
        assert rejected.error == InvalidToolCall(ToolChoiceViolation("c0", "fetch", ("search",)), 0)

    def test_an_undeclared_tool_outside_the_choice_breaks_it(self) -> None:
        """Under a restricting choice, a made-up tool is a violation that lists the allowed tools only."""
        ready = prepared(Provider.GOOGLE, rq.UseTool("clock"), ToolCallChecks.REPORT)
        got = answered(ready, "", ToolCall("c1", SECRET, "{}"))
        assert isinstance(got, NeedsTools)
        assert got.issues == (ToolChoiceViolation("c1", SECRET, ("clock",)),)
        auto = answered(
            prepared(Provider.GOOGLE, rq.ToolChoice.AUTO, ToolCallChecks.REPORT),
            "",
            ToolCall("c1", SECRET, "{}"),
        )
        assert isinstance(auto, NeedsTools)
        assert isinstance(auto.issues[0], UnknownTool)

    def test_texts_say_what_to_do_and_never_echo_the_call(self) -> None:
        """Each text tells the model what it may do now, and no text repeats the name the model used."""
        assert describe_issue(ToolChoiceViolation("c1", SECRET, ())) == (
            "Error: no tool may be called in this turn. Answer without calling a tool."
        )
        assert describe_issue(ToolChoiceViolation("c1", SECRET, ("search",))) == (
            "Error: that tool may not be called in this turn. Call the tool search instead."
        )
        assert describe_issue(ToolChoiceViolation("c1", SECRET, ("search", "clock"))) == (
            "Error: that tool may not be called in this turn. Call one of the tools search, clock instead."
        )
        assert describe_issue(ToolChoiceViolation(None, "", ("search", "clock"))) == (
            "Error: this turn requires a tool call and none was made. Call one of the tools search, clock."
        )
        failed = answered(
            prepared(Provider.OPENAI_RESPONSES, rq.ToolChoice.NONE), "", ToolCall("c1", SECRET, "{}")
        )
        assert isinstance(failed, Failure)
        assert SECRET not in str(failed)
        assert str(failed.error) == (
            "call 0 breaks the tool choice: no tool may be called in this turn."
            " Answer without calling a tool."
        )

    def test_resolve_with_takes_the_choice(self) -> None:
        """``resolve_with`` checks the choice given to it, for a response with no ``Prepared`` request."""
        terminal = Terminal(Provider.ANTHROPIC, FinishReason.STOP, "no call")
        got = resolve_with(Ok(terminal), TOOLS, checks=ToolCallChecks.REPORT, choice=rq.ToolChoice.REQUIRED)
        assert isinstance(got, NeedsTools)
        assert got.issues == (ToolChoiceViolation(None, "", ("search", "fetch", "clock")),)
        assert isinstance(resolve_with(Ok(terminal), TOOLS), Answer)


def _names() -> st.SearchStrategy[str]:
    return st.sampled_from(["search", "fetch", "clock", SECRET, "other_tool"])


CHOICES = st.one_of(
    st.sampled_from([None, *rq.ToolChoice]),
    st.builds(rq.UseTool, st.sampled_from(["search", "fetch", "clock"])),
    st.builds(
        rq.AllowedTools,
        st.lists(st.sampled_from(["search", "fetch", "clock"]), min_size=1, max_size=3, unique=True),
        st.sampled_from([rq.ToolChoice.AUTO, rq.ToolChoice.REQUIRED]),
    ),
)


@given(
    choice=CHOICES,
    names=st.lists(_names(), max_size=5),
    arguments=st.sampled_from(['{"q": "x"}', "{}", "not json", '{"q": 1}']),
    checks=st.sampled_from(CHECKS),
)
def test_every_response_is_judged_against_its_choice(
    choice: Any, names: list[str], arguments: str, checks: ToolCallChecks
) -> None:
    """
    Any batch under any choice: no exception escapes; a call is a violation exactly when the choice does not
    allow its tool; a missing call is one exactly when the choice requires a call; no text repeats a call.
    """
    calls = tuple(ToolCall(f"c{n}", name, arguments) for n, name in enumerate(names))
    finish = FinishReason.TOOL_CALLS if calls else FinishReason.STOP
    got = resolve_with(
        Ok(Terminal(Provider.OPENAI_CHAT, finish, "", calls)), TOOLS, checks=checks, choice=choice
    )
    match choice:
        case rq.ToolChoice.NONE:
            allowed: set[str] | None = set()
        case rq.UseTool(name=name):
            allowed = {name}
        case rq.AllowedTools(names=subset):
            allowed = set(subset)
        case _:
            allowed = None
    required = (
        choice is rq.ToolChoice.REQUIRED
        or isinstance(choice, rq.UseTool)
        or (isinstance(choice, rq.AllowedTools) and choice.mode is rq.ToolChoice.REQUIRED)
    )
    broken = [c.id for c in calls if allowed is not None and c.name not in allowed]
    if not calls and required:
        broken_ids: list[str | None] = [None]
    else:
        broken_ids = list(broken)
    if isinstance(got, NeedsTools):
        assert checks is ToolCallChecks.REPORT or not broken_ids
        violations = [i.call_id for i in got.issues if isinstance(i, ToolChoiceViolation)]
        assert violations == broken_ids
        texts = [describe_issue(i) for i in got.issues]
    elif isinstance(got, Failure):
        assert isinstance(got.error, InvalidToolCall)
        issue = got.error.issue
        if broken_ids and isinstance(issue, ToolChoiceViolation):
            assert issue.call_id in broken_ids
        texts = [str(got)]
    else:
        assert isinstance(got, Answer)
        assert not broken_ids
        texts = []
    assert all(SECRET not in text and "other_tool" not in text for text in texts)


def test_resolve_admits_against_the_tools_of_the_request_answered() -> None:
    """
    The same call, answered to two turns: a tool offered in turn 1 and not in turn 2 is ``UnknownTool`` in
    turn 2, and its text lists what turn 2 offers.
    """
    turn_1 = unwrap(rq.prepare(CONFIGS[Provider.ANTHROPIC], conversation()))
    later = conversation().with_tools([SEARCH, CLOCK])
    turn_2 = unwrap(
        rq.prepare(CONFIGS[Provider.ANTHROPIC].with_tool_call_checks(ToolCallChecks.REPORT), later)
    )
    assert isinstance(answered(turn_1, "", fetch("c1")), NeedsTools)
    got = answered(turn_2, "", fetch("c1"))
    assert isinstance(got, NeedsTools)
    assert got.issues == (UnknownTool("c1", "fetch", ("search", "clock")),)
    assert describe_issue(got.issues[0]) == (
        "Error: no tool with that name exists. Call one of the declared tools: search, clock."
    )
