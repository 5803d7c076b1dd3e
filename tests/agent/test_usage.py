"""
Usage across rounds, pricing once, and the ``prepare_model_request`` hook (§10 scenario 48, the runner's
part; the durable part is in ``tests/test_durable.py``).
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import ClassVar

import attrs
import pytest
from hypothesis import given
from strategies import json_values

from llm_wire import config, request, user
from llm_wire.agent import InvocationContext, Runner, RunResult, RunUsage, StopReason, make_tool, reflect
from llm_wire.agent._usage import cached_tokens, reasoning_tokens
from llm_wire.agent.events import ModelRequest
from llm_wire.agent.scripted import ScriptedClient, ScriptedReply, call, reply
from llm_wire.message import Provider
from llm_wire.providers.response import Usage
from llm_wire.value import Value

#: Two rounds' usage as OpenAI Chat and Responses report it (cached and reasoning tokens in their details).
CHAT = Usage(
    10,
    5,
    15,
    {"prompt_tokens_details": {"cached_tokens": 4}, "completion_tokens_details": {"reasoning_tokens": 2}},
)
RESPONSES = Usage(
    20,
    7,
    27,
    {"input_tokens_details": {"cached_tokens": 8}, "output_tokens_details": {"reasoning_tokens": 3}},
)


@attrs.frozen
class Note:
    """Keep a note; records the context it ran in."""

    text: str
    seen: ClassVar[list[tuple[str, str, dict[str, str]]]] = []

    def invoke(self, ctx: InvocationContext) -> str:
        Note.seen.append((ctx.run_id, ctx.trace_id, dict(ctx.metadata)))
        return "noted"


def two_rounds() -> ScriptedClient:
    """A tool round, then an answer, each with usage."""
    return ScriptedClient(
        [
            ScriptedReply("", (call("note", '{"text": "a"}'),), usage=CHAT),
            ScriptedReply("done", usage=RESPONSES),
        ]
    )


def run(runner: Runner, **options: object) -> RunResult:
    return asyncio.run(runner.arun(request("any-model", [user("go")]), **options))  # type: ignore[arg-type]


class TestUsage:
    """Usage adds up across rounds, cached and reasoning tokens included."""

    def test_scenario_48_usage_across_rounds(self) -> None:
        """Both rounds' counts are summed in ``total_usage``."""
        result = run(Runner(two_rounds(), config(Provider.OPENAI_CHAT), reflect(make_tool(Note))))
        assert result.ok
        assert result.total_usage == RunUsage(30, 12, 42, 12, 5, 2)
        assert result.total_usage.counts()["cached_tokens"] == 12

    def test_counts_round_trip(self) -> None:
        """``from_counts(counts())`` is the same usage; a bad or missing counter is 0."""
        usage = RunUsage(1, 2, 3, 4, 5, 6)
        assert RunUsage.from_counts(usage.counts()) == usage
        assert (
            RunUsage.from_counts({"input_tokens": -1, "output_tokens": True, "total_tokens": "9"})
            == RunUsage()
        )
        assert usage.plus(usage) == RunUsage(2, 4, 6, 8, 10, 12)

    @given(json_values())
    def test_any_raw_usage_reads_as_a_count(self, raw: Value) -> None:
        """Whatever a provider's raw usage holds, cached and reasoning tokens read as counts >= 0."""
        usage = Usage(None, None, None, raw)
        for count in (cached_tokens(usage), reasoning_tokens(usage)):
            assert isinstance(count, int)
            assert count >= 0


class TestPricing:
    """The pricing hook runs once per run, on the whole usage."""

    def test_scenario_48_cost_once(self) -> None:
        """One call of ``pricing``, given the total usage; the result carries its cost."""
        priced: list[RunUsage] = []

        def pricing(usage: RunUsage) -> Decimal:
            priced.append(usage)
            return Decimal(usage.input_tokens) * Decimal("0.001")

        runner = Runner(two_rounds(), config(Provider.OPENAI_CHAT), reflect(make_tool(Note)), pricing=pricing)
        result = run(runner)
        assert priced == [result.total_usage]
        assert result.cost == Decimal("0.030")

    def test_no_pricing_no_cost(self) -> None:
        """Without the hook the cost is unknown."""
        result = run(Runner(two_rounds(), config(Provider.OPENAI_CHAT), reflect(make_tool(Note))))
        assert result.cost is None

    def test_wrong_types(self) -> None:
        """A pricing that is no callable, or returns no Decimal, is a ``TypeError`` naming it."""
        with pytest.raises(TypeError, match="pricing"):
            Runner(two_rounds(), config(Provider.OPENAI_CHAT), reflect(make_tool(Note)), pricing=3)  # type: ignore[arg-type]
        runner = Runner(
            two_rounds(),
            config(Provider.OPENAI_CHAT),
            reflect(make_tool(Note)),
            pricing=lambda usage: 0.5,  # type: ignore[arg-type,return-value]
        )
        with pytest.raises(TypeError, match="pricing"):
            run(runner)


class TestPrepareModelRequest:
    """The host's ``prepare_model_request`` may change the request and clear the context, not the ids."""

    def test_scenario_48_clearing_the_context_keeps_correlation(self) -> None:
        """With the metadata cleared, tools still get the run and trace ids, and so does the result."""
        Note.seen.clear()
        given: list[ModelRequest] = []

        def clear(model_request: ModelRequest) -> ModelRequest:
            given.append(model_request)
            return attrs.evolve(model_request, metadata={}, run_id="", trace_id="")

        runner = Runner(
            two_rounds(), config(Provider.OPENAI_CHAT), reflect(make_tool(Note)), prepare_model_request=clear
        )
        result = run(runner, run_id="run-1", trace_id="trace-1", metadata={"tenant": "t"})
        assert result.ok
        assert (result.run_id, result.trace_id) == ("run-1", "trace-1")
        assert Note.seen == [("run-1", "trace-1", {})]
        assert [(m.run_id, m.trace_id, m.round, dict(m.metadata)) for m in given] == [
            ("run-1", "trace-1", 0, {"tenant": "t"}),
            ("run-1", "trace-1", 1, {}),
        ]

    def test_ids_are_generated(self) -> None:
        """A run started without ids gets a run id and a trace id."""
        result = run(Runner(two_rounds(), config(Provider.OPENAI_CHAT), reflect(make_tool(Note))))
        assert result.run_id.startswith("run-")
        assert len(result.trace_id) == 32

    def test_the_changed_request_is_sent(self) -> None:
        """A request the hook returns is what the model gets (here: the prompt rewritten)."""

        def rewrite(model_request: ModelRequest) -> ModelRequest:
            brief = attrs.evolve(model_request.request, messages=(user("go, briefly"),))
            return attrs.evolve(model_request, request=brief)

        model = ScriptedClient(
            [ScriptedReply("ok", expect=lambda sent: list(sent.messages) == [user("go, briefly")])]
        )
        runner = Runner(
            model, config(Provider.OPENAI_CHAT), reflect(make_tool(Note)), prepare_model_request=rewrite
        )
        result = run(runner)
        assert result.ok
        assert result.request.messages[0] == user("go")  # the run's own conversation is unchanged

    def test_an_unpreparable_request_ends_the_run(self) -> None:
        """A request that cannot be prepared ends the run with ``PREPARE_FAILED``; no model call is made."""

        def empty(model_request: ModelRequest) -> ModelRequest:
            return attrs.evolve(model_request, request=request("any-model", []))

        runner = Runner(
            ScriptedClient([reply("never")]),
            config(Provider.OPENAI_CHAT),
            reflect(make_tool(Note)),
            prepare_model_request=empty,
        )
        result = run(runner)
        assert result.stop is StopReason.PREPARE_FAILED
        assert result.model_calls == 0
        assert result.error is not None

    def test_a_wrong_result_is_a_type_error(self) -> None:
        """The hook must return a ``ModelRequest`` holding a ``Request``."""
        for bad in (lambda m: None, lambda m: attrs.evolve(m, request="text")):
            runner = Runner(
                ScriptedClient([reply("never")]),
                config(Provider.OPENAI_CHAT),
                reflect(make_tool(Note)),
                prepare_model_request=bad,  # type: ignore[arg-type]
            )
            with pytest.raises(TypeError, match="prepare_model_request"):
                run(runner)
