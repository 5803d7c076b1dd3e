"""
Output projection: the reference's scenarios 31-38 (§10), the hard ceilings under any estimator, structural
shrinking that keeps keys and types, and the tiktoken estimator on a real (byte-level) encoding.
"""

from __future__ import annotations

import asyncio
import json
import re
from decimal import Decimal

import attrs
import pytest
import tiktoken
from agent_tools import EchoText
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import arbitrary_text, finite_decimals

from llm_wire import config, request, user
from llm_wire.agent import (
    ErrorCategory,
    OutputCeilings,
    Runner,
    RunResult,
    StopReason,
    ToolContract,
    ToolOutcome,
    make_tool,
    reflect,
)
from llm_wire.agent._runner import ProjectOutput
from llm_wire.agent.events import RunEvent, ToolCompleted, ToolOutputProjectionFailed, ToolOutputTruncated
from llm_wire.agent.projection import (
    FailurePayload,
    HeuristicEstimator,
    LimitingFactor,
    ModelPayload,
    OutputProjectionError,
    PlainPayload,
    ProjectedOutput,
    ProjectionFailure,
    ProjectionMethod,
    ProjectionPolicy,
    ProjectionReport,
    SuccessPayload,
    TiktokenEstimator,
    TokenEstimator,
    check_policy,
    project_payload,
    project_tool_outcome,
    projector,
)
from llm_wire.agent.projection._outcomes import PROJECTION_FAILED, payload_of, policy_for
from llm_wire.agent.projection._shrink import MARKER, bounded_preview, canonical_text
from llm_wire.agent.projection._types import policy_of
from llm_wire.agent.scripted import ScriptedClient, call, reply
from llm_wire.agent.steps import Recovery
from llm_wire.message import Provider, ToolResult
from llm_wire.result import Err, Ok, unwrap
from llm_wire.schema import DefinitionError
from llm_wire.value import Limits, Value, parse

H = HeuristicEstimator()


class ByteEstimator:
    """One token per UTF-8 byte, cutting correctly."""

    def estimate(self, text: str) -> int:
        return len(text.encode("utf-8"))

    def truncate(self, text: str, token_limit: int, *, keep_tail: bool) -> str:
        data = text.encode("utf-8")
        if len(data) <= token_limit:
            return text
        piece = data[len(data) - token_limit :] if keep_tail else data[:token_limit]
        return piece.decode("utf-8", errors="ignore")


class IgnoringEstimator(ByteEstimator):
    """Counts bytes but ``truncate`` ignores its limit."""

    def truncate(self, text: str, token_limit: int, *, keep_tail: bool) -> str:
        return text


class GarbageEstimator(ByteEstimator):
    """``truncate`` returns text that is no part of its input, and longer."""

    def truncate(self, text: str, token_limit: int, *, keep_tail: bool) -> str:
        return "ζ" * (token_limit + 50)


class ThrowingEstimator:
    """Raises on every call."""

    def estimate(self, text: str) -> int:
        raise RuntimeError("estimator down")

    def truncate(self, text: str, token_limit: int, *, keep_tail: bool) -> str:
        raise RuntimeError("estimator down")


class NegativeEstimator(ByteEstimator):
    """Returns a negative count."""

    def estimate(self, text: str) -> int:
        return -1


ESTIMATORS: list[TokenEstimator] = [H, ByteEstimator(), IgnoringEstimator(), GarbageEstimator()]


def projected(
    payload: ModelPayload, policy: ProjectionPolicy, estimator: TokenEstimator = H
) -> ProjectedOutput:
    return unwrap(project_payload(payload, policy, estimator))


def fits(projection: ProjectedOutput, policy: ProjectionPolicy, estimator: TokenEstimator = H) -> bool:
    size = len(projection.text.encode("utf-8"))
    tokens = estimator.estimate(projection.text)
    report = projection.report
    counted = report.projected_bytes == size and report.projected_estimated_tokens == tokens
    return counted and size <= policy.max_bytes and tokens <= policy.max_tokens


class TestScenarios:
    """§10 scenarios 31-38 of the reference, one test each."""

    def test_scenario_31_small_output_is_unchanged(self) -> None:
        """Plain output below the limits is byte-identical; structured success is the canonical JSON."""
        plain = projected(PlainPayload("hello world"), ProjectionPolicy())
        assert plain.text == "hello world"
        assert plain.report == ProjectionReport(
            truncated=False,
            original_bytes=11,
            projected_bytes=11,
            original_estimated_tokens=H.estimate("hello world"),
            projected_estimated_tokens=H.estimate("hello world"),
            max_bytes=65536,
            max_tokens=10000,
            limiting_factor=LimitingFactor.NONE,
        )
        payload = SuccessPayload("found", {"answer": 42}, ("artifact://result",))
        success = projected(payload, ProjectionPolicy())
        expected = '{"artifacts":["artifact://result"],"data":{"answer":42},"message":"found","ok":true}'
        assert success.text == expected
        assert not success.report.truncated

    def test_scenario_32_limiting_factors(self) -> None:
        """Bytes, tokens, or both limit, judged on the original; the result fits both ceilings."""
        cases = [
            ("b" * 2000, ProjectionPolicy(max_bytes=256, max_tokens=1000), LimitingFactor.BYTES),
            ("界" * 300, ProjectionPolicy(max_bytes=4096, max_tokens=64), LimitingFactor.TOKENS),
            ("x" * 5000, ProjectionPolicy(max_bytes=256, max_tokens=64), LimitingFactor.BYTES_AND_TOKENS),
        ]
        for text, policy, factor in cases:
            result = projected(PlainPayload(text), policy)
            assert result.report.limiting_factor is factor
            assert fits(result, policy)
            assert result.text.startswith("Warning: tool output truncated (original bytes: ")

    def test_scenario_32_observed_preview(self) -> None:
        """3000 x at {256, 64}: the reference's observed text, 72 x on each side of the marker, 251 bytes."""
        result = projected(PlainPayload("x" * 3000), ProjectionPolicy(max_bytes=256, max_tokens=64))
        head = "Warning: tool output truncated (original bytes: 3000, estimated tokens: 750).\n"
        assert result.text == head + "x" * 72 + MARKER + "x" * 72
        assert (result.report.projected_bytes, result.report.projected_estimated_tokens) == (251, 63)

    def test_scenario_33_exact_boundary_is_not_truncated(self) -> None:
        """Exactly 256 bytes at {256, 64} passes unchanged: the ceilings are inclusive."""
        text = "y" * 256
        result = projected(PlainPayload(text), ProjectionPolicy(max_bytes=256, max_tokens=64))
        assert result.text == text
        assert not result.report.truncated

    def test_scenario_34_other_estimators(self) -> None:
        """A byte-count estimator limits by tokens; one whose truncate ignores its limit still fits."""
        policy = ProjectionPolicy(max_bytes=4096, max_tokens=256)
        for estimator in (ByteEstimator(), IgnoringEstimator(), GarbageEstimator()):
            result = projected(PlainPayload("x" * 2000), policy, estimator)
            assert result.report.limiting_factor is LimitingFactor.TOKENS
            assert fits(result, policy, estimator)
            assert result.report.method is ProjectionMethod.PREVIEW

    def test_scenario_35_preflight(self) -> None:
        """{256, 64} passes with the heuristic, not with bytes as tokens; a throwing estimator is typed."""
        policy = ProjectionPolicy(max_bytes=256, max_tokens=64)
        assert check_policy(policy) == Ok(None)
        exceeds = OutputProjectionError(ProjectionFailure.ENVELOPE_EXCEEDS_LIMITS)
        assert check_policy(policy, ByteEstimator()) == Err(exceeds)
        failed = Err(OutputProjectionError(ProjectionFailure.ESTIMATOR_FAILURE))
        assert check_policy(policy, ThrowingEstimator()) == failed
        assert project_payload(PlainPayload("x" * 3000), policy, ThrowingEstimator()) == failed
        assert project_payload(PlainPayload("x"), policy, NegativeEstimator()) == failed

    def test_scenario_35_serialization_failure(self) -> None:
        """Content holding a lone surrogate, with large data, is a serialization failure, never a crash."""
        payload = SuccessPayload("bad \udc80 content", {"rows": ["r" * 100] * 1000})
        failure = Err(OutputProjectionError(ProjectionFailure.SERIALIZATION_FAILURE))
        assert project_payload(payload, ProjectionPolicy()) == failure
        assert canonical_text(payload) == failure
        assert project_payload(PlainPayload("\ud800"), ProjectionPolicy()) == failure

    def test_scenario_36_utf8_head_and_tail(self) -> None:
        """Mixed CJK and emoji at {256, 1000}: deterministic, valid UTF-8, head, tail and marker kept."""
        content = "HEAD-你好🙂-" + "数据🚀" * 400 + "-再见🙂-TAIL"
        policy = ProjectionPolicy(max_bytes=256, max_tokens=1000)
        first, second = projected(PlainPayload(content), policy), projected(PlainPayload(content), policy)
        assert first == second
        assert "HEAD-" in first.text
        assert "-TAIL" in first.text
        assert "tool output omitted" in first.text
        assert fits(first, policy)

    def test_scenario_37_structured_envelopes_stay_json(self) -> None:
        """Quotes, backslashes, newlines shrink to parseable JSON; a failure keeps category, code, retry."""
        policy = ProjectionPolicy(max_bytes=256, max_tokens=64)
        data: Value = {"quotes": '"' * 1000, "slashes": "\\" * 1000, "lines": "\n" * 1000}
        success = projected(SuccessPayload("", data), policy)
        shown = json.loads(success.text)
        assert shown["ok"] is True
        assert shown["truncation"]["truncated"] is True
        assert sorted(shown["data"]) == ["lines", "quotes", "slashes"]
        assert all(isinstance(v, str) for v in shown["data"].values())
        assert fits(success, policy)
        failure = projected(FailurePayload("timeout", "timeout", "e" * 4000, True), policy)
        error = json.loads(failure.text)
        assert error["ok"] is False
        assert error["error"]["category"] == "timeout"
        assert error["error"]["code"] == "timeout"
        assert error["error"]["retryable"] is True
        assert fits(failure, policy)

    def test_scenario_37_preview_envelope(self) -> None:
        """An object with too many keys to shrink falls back to the envelope with a string preview."""
        policy = ProjectionPolicy(max_bytes=512, max_tokens=128)
        result = projected(SuccessPayload("", {f"k{i}": i for i in range(2000)}), policy)
        shown = json.loads(result.text)
        assert result.report.method is ProjectionMethod.PREVIEW
        assert shown["ok"] is True
        assert isinstance(shown["preview"], str)
        assert shown["truncation"]["truncated"] is True
        assert fits(result, policy)

    def test_scenario_38_policy_minimums(self) -> None:
        """255 bytes and 63 tokens are each rejected, at construction and from stored data."""
        with pytest.raises(DefinitionError, match="max_bytes"):
            ProjectionPolicy(max_bytes=255, max_tokens=64)
        with pytest.raises(DefinitionError, match="max_tokens"):
            ProjectionPolicy(max_bytes=256, max_tokens=63)
        invalid = Err(OutputProjectionError(ProjectionFailure.INVALID_POLICY))
        assert policy_of(255, 64) == invalid
        assert policy_of(256, 63) == invalid
        assert policy_of(True, 64) == invalid
        assert policy_of(256, 64) == Ok(ProjectionPolicy(max_bytes=256, max_tokens=64))


class TestPolicy:
    """Ceilings only tighten, and wrong Python types are named."""

    def test_tighten_takes_the_minimum(self) -> None:
        """{512, 128} on {1024, 64} gives {512, 64} (scenario 11); an unset ceiling keeps the policy's."""
        base = ProjectionPolicy(max_bytes=1024, max_tokens=64)
        assert base.tighten(max_bytes=512, max_tokens=128) == ProjectionPolicy(max_bytes=512, max_tokens=64)
        assert base.tighten(max_bytes=2048) == base
        with pytest.raises(DefinitionError):
            base.tighten(max_bytes=255)

    def test_wrong_types(self) -> None:
        """A non-int ceiling, a non-payload and a non-estimator raise TypeError naming the parameter."""
        with pytest.raises(TypeError, match="max_bytes"):
            ProjectionPolicy(max_bytes="1024")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="payload"):
            project_payload("text")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="estimator"):
            project_payload(PlainPayload("x"), ProjectionPolicy(), object())  # type: ignore[arg-type]

    def test_error_text(self) -> None:
        """An error prints its description, and names its failure."""
        error = OutputProjectionError(ProjectionFailure.ESTIMATOR_FAILURE)
        assert str(error) == error.describe()
        assert error.name == "estimator_failure"


class TestOutcomes:
    """Projection of ``ToolOutcome``s, under the tool's own ceilings."""

    def test_descriptor_ceilings_only_tighten(self) -> None:
        """{512, 128} on a run policy {1024, 64} gives {512, 64} (scenario 11), and the output obeys it."""
        contract = ToolContract(output_ceilings=OutputCeilings(max_bytes=512, max_tokens=128))
        descriptor = make_tool(EchoText, contract=contract).descriptor
        run = ProjectionPolicy(max_bytes=1024, max_tokens=64)
        assert policy_for(run, descriptor) == ProjectionPolicy(max_bytes=512, max_tokens=64)
        result = unwrap(project_tool_outcome(ToolOutcome.success("z" * 5000), run, descriptor=descriptor))
        assert result.report.max_bytes == 512
        assert result.report.projected_bytes <= 512

    def test_canonical_text_is_the_outcome_model_text(self) -> None:
        """The payload of an outcome renders exactly as ``ToolOutcome.model_text``."""
        outcomes = [
            ToolOutcome.success("plain"),
            ToolOutcome.success("found", {"answer": 42, "b": [1, "x"]}, artifacts=("artifact://r",)),
            ToolOutcome.success("", ""),
            ToolOutcome.success("txt", {}),
            ToolOutcome.failed(ErrorCategory.TIMEOUT, "timeout", "slow", details={"after": 3}),
            ToolOutcome.failed(ErrorCategory.INTERNAL, "tool_crashed", "boom"),
        ]
        for outcome in outcomes:
            assert unwrap(canonical_text(payload_of(outcome))) == outcome.model_text()

    def test_a_long_code_is_cut_in_the_envelope(self) -> None:
        """A code past ``MAX_CODE_CHARS`` keeps its head in the preview envelope, which still fits."""
        policy = ProjectionPolicy(max_bytes=256, max_tokens=64)
        outcome = ToolOutcome.failed(ErrorCategory.CONFLICT, "c" * 200, "m" * 3000, details=list(range(900)))
        result = unwrap(project_tool_outcome(outcome, policy))
        error = json.loads(result.text)["error"]
        assert error["category"] == "conflict"
        assert error["code"] == "c" * 32
        assert fits(result, policy)


class TestPreview:
    """``bounded_preview`` on its own."""

    def test_keeps_both_ends(self) -> None:
        """A long text keeps its head and tail within both limits, or is empty below the marker."""
        text = "HEAD-" + "m" * 5000 + "-TAIL"
        preview = unwrap(bounded_preview(text, 200, 60))
        assert preview.startswith("HEAD-")
        assert preview.endswith("-TAIL")
        assert len(preview.encode()) <= 200
        assert H.estimate(preview) <= 60
        assert unwrap(bounded_preview(text, 20, 60)) == ""
        assert unwrap(bounded_preview("", 200, 60)) == ""

    def test_typed_failures(self) -> None:
        """Invalid UTF-8 and a throwing estimator are typed errors."""
        assert bounded_preview("\udc80" * 10, 200, 60) == Err(
            OutputProjectionError(ProjectionFailure.SERIALIZATION_FAILURE)
        )
        assert bounded_preview("x" * 1000, 200, 60, ThrowingEstimator()) == Err(
            OutputProjectionError(ProjectionFailure.ESTIMATOR_FAILURE)
        )


class TestEstimators:
    """The heuristic and the tiktoken estimator."""

    def test_heuristic_counts(self) -> None:
        """A quarter token per ASCII character, rounded up, plus one per other code point."""
        assert H.estimate("") == 0
        assert H.estimate("abcde") == 2
        assert H.estimate("ab界🙂") == 3
        assert H.truncate("abcdefgh界界", 3, keep_tail=False) == "abcdefgh界"
        assert H.truncate("abcdefgh界界", 2, keep_tail=True) == "界界"
        assert H.truncate("abc", 0, keep_tail=True) == ""

    def test_tiktoken_on_a_byte_level_encoding(self) -> None:
        """With one token per byte, counts are UTF-8 bytes and cuts never split a code point."""
        encoding = tiktoken.Encoding(
            name="bytes",
            pat_str=r"\S+|\s+",
            mergeable_ranks={bytes([i]): i for i in range(256)},
            special_tokens={},
        )
        estimator = TiktokenEstimator(encoding)
        assert estimator.estimate("héllo") == 6
        assert estimator.truncate("界界界", 4, keep_tail=False) == "界"
        assert estimator.truncate("界界界", 5, keep_tail=True) == "界"
        assert estimator.truncate("abc", 10, keep_tail=False) == "abc"
        policy = ProjectionPolicy(max_bytes=4096, max_tokens=256)
        result = projected(PlainPayload("数据" * 500), policy, estimator)
        assert fits(result, policy, estimator)
        assert result.report.limiting_factor is LimitingFactor.TOKENS


# ---------------------------------------------------------------------------------------------------------
# Properties

_ELIDED_ITEMS = re.compile(r"\[\.\.\. (\d+) more items\]")
_ELIDED_CHARS = re.compile(r"(.*) \[\.\.\. (\d+) more characters\]", re.DOTALL)


def _scalars() -> st.SearchStrategy[Value]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**30), max_value=10**30),
        finite_decimals(),
        st.text(max_size=400),
    )


def _big_values() -> st.SearchStrategy[Value]:
    return st.recursive(
        _scalars(),
        lambda inner: st.one_of(
            st.lists(inner, max_size=80),
            st.dictionaries(st.text(max_size=6), inner, max_size=6),
        ),
        max_leaves=120,
    )


def _same_scalar(original: Value, shown: Value) -> bool:
    if isinstance(original, bool) or original is None:
        return shown is original
    if isinstance(original, int | Decimal):
        return not isinstance(shown, bool) and isinstance(shown, int | Decimal) and shown == original
    return False


def shape_kept(original: Value, shown: Value) -> bool:
    """``shown`` has the original's keys and value types; strings and arrays are cut heads with counts."""
    if isinstance(original, dict):
        return (
            isinstance(shown, dict)
            and shown.keys() == original.keys()
            and all(shape_kept(original[k], shown[k]) for k in original)
        )
    if isinstance(original, list):
        if not isinstance(shown, list):
            return False
        pairs = zip(original, shown, strict=False)
        if len(shown) == len(original) and all(shape_kept(a, b) for a, b in pairs):
            return True
        if not shown or not isinstance(shown[-1], str):
            return False
        marker = _ELIDED_ITEMS.fullmatch(shown[-1])
        kept = len(shown) - 1
        return (
            marker is not None
            and int(marker.group(1)) == len(original) - kept
            and all(shape_kept(a, b) for a, b in zip(original[:kept], shown[:kept], strict=True))
        )
    if isinstance(original, str):
        if not isinstance(shown, str):
            return False
        if shown == original:
            return True
        cut = _ELIDED_CHARS.fullmatch(shown)
        return (
            cut is not None
            and original.startswith(cut.group(1))
            and int(cut.group(2)) == len(original) - len(cut.group(1))
        )
    return _same_scalar(original, shown)


_POLICIES = st.builds(
    ProjectionPolicy,
    max_bytes=st.integers(min_value=256, max_value=4096),
    max_tokens=st.integers(min_value=64, max_value=1024),
)


def _payloads() -> st.SearchStrategy[ModelPayload]:
    return st.one_of(
        st.builds(PlainPayload, arbitrary_text()),
        st.builds(PlainPayload, st.text(min_size=200, max_size=3000)),
        st.builds(
            SuccessPayload, st.text(max_size=300), _big_values(), st.lists(st.text(max_size=40)).map(tuple)
        ),
        st.builds(
            FailurePayload,
            st.sampled_from(["timeout", "internal", "permission_denied"]),
            st.one_of(st.integers(min_value=-(2**31), max_value=2**31), st.text(max_size=32)),
            st.text(max_size=3000),
            st.booleans(),
        ),
    )


class TestProperties:
    """Every projection fits, is valid UTF-8, and parses when structured; shrinking keeps the shape."""

    @settings(max_examples=150)
    @given(_payloads(), _POLICIES, st.sampled_from(ESTIMATORS))
    def test_within_both_ceilings(
        self, payload: ModelPayload, policy: ProjectionPolicy, estimator: TokenEstimator
    ) -> None:
        """Ok results fit both ceilings under the estimator and encode as UTF-8; others are typed Errs."""
        match project_payload(payload, policy, estimator):
            case Ok(result):
                assert fits(result, policy, estimator)
                assert result.report.is_consistent()
                result.text.encode("utf-8")
                if not isinstance(payload, PlainPayload):
                    shown = json.loads(result.text)
                    assert shown["ok"] is isinstance(payload, SuccessPayload)
            case Err(error):
                assert isinstance(error, OutputProjectionError)
                assert error.failure in (
                    ProjectionFailure.SERIALIZATION_FAILURE,
                    ProjectionFailure.ENVELOPE_EXCEEDS_LIMITS,
                )

    @settings(max_examples=150)
    @given(_big_values(), _POLICIES)
    def test_shrinking_keeps_keys_and_types(self, data: Value, policy: ProjectionPolicy) -> None:
        """A structurally shrunk result parses and keeps every key and value type of the original data."""
        result = project_payload(SuccessPayload("note", data), policy)
        if not isinstance(result, Ok) or result.value.report.method is not ProjectionMethod.STRUCTURAL:
            return
        shown = unwrap(parse(result.value.text))
        assert isinstance(shown, dict)
        assert shape_kept(data, shown["data"])
        assert shown["truncation"] == {
            "original_bytes": result.value.report.original_bytes,
            "original_estimated_tokens": result.value.report.original_estimated_tokens,
            "truncated": True,
        }

    @settings(max_examples=100)
    @given(
        st.sampled_from(["timeout", "not_found", "permission_denied"]),
        st.integers(min_value=-(2**31), max_value=2**31),
        st.text(min_size=1000, max_size=5000),
        st.booleans(),
    )
    def test_failures_keep_their_identity(self, category: str, code: int, message: str, retry: bool) -> None:
        """At the smallest policy a failure keeps category, code and retryable, whatever the message."""
        policy = ProjectionPolicy(max_bytes=256, max_tokens=64)
        result = projected(FailurePayload(category, code, message, retry), policy)
        error = json.loads(result.text)["error"]
        assert (error["category"], error["code"], error["retryable"]) == (category, code, retry)
        assert fits(result, policy)


def _nested(depth: int, dicts: bool) -> Value:
    value: Value = "bottom " * 20
    for level in range(depth):
        value = {"k": value, "n": level} if dicts and level % 2 else [value, level]
    return value


_DEEP = Limits(max_bytes=1 << 26, max_depth=1 << 14, max_values=1 << 24)


class TestDeepData:
    """Data nested deeper than Python's recursion limit is projected like any other, never raised on."""

    @settings(max_examples=30)
    @given(st.integers(min_value=900, max_value=3000), st.booleans(), st.booleans(), _POLICIES)
    def test_deep_data_fits(self, depth: int, dicts: bool, failed: bool, policy: ProjectionPolicy) -> None:
        """A success's data or a failure's details 900-3000 levels deep: an Ok within both ceilings, JSON."""
        deep = _nested(depth, dicts)
        payload: ModelPayload = (
            FailurePayload("internal", "deep", "m", False, deep) if failed else SuccessPayload("m", deep)
        )
        result = projected(payload, policy)
        assert fits(result, policy)
        assert isinstance(unwrap(parse(result.text, _DEEP)), dict)

    def test_deep_data_verbatim(self) -> None:
        """1,200 levels under a roomy policy: shown whole, exactly as ``canonical_text`` renders it."""
        payload = SuccessPayload("m", _nested(1200, dicts=True))
        result = projected(payload, ProjectionPolicy(max_bytes=1 << 20, max_tokens=1 << 20))
        assert result.report.method is ProjectionMethod.VERBATIM
        assert result.text == unwrap(canonical_text(payload))
        shown = unwrap(parse(result.text, _DEEP))
        assert isinstance(shown, dict)
        assert result.text.count('"bottom ') == 1
        depth, inner = 0, shown["data"]
        while isinstance(inner, dict | list):  # ``==`` on such data would itself recurse too deep
            depth, inner = depth + 1, inner["k"] if isinstance(inner, dict) else inner[0]
        assert (depth, inner) == (1200, "bottom " * 20)


@attrs.frozen
class BigText:
    """Return a long text with a head and a tail."""

    def invoke(self) -> str:
        return "HEAD-" + "x" * 5000 + "-TAIL"


@attrs.frozen
class SmallText:
    """Return a short text."""

    def invoke(self) -> str:
        return "small"


class FailsOnToolText(ByteEstimator):
    """Counts bytes, and raises on the tool's long text only."""

    def estimate(self, text: str) -> int:
        if "HEAD-xx" in text:
            raise RuntimeError("cannot count this")
        return len(text.encode("utf-8")) // 4


def run_one(
    tool: type,
    project_output: ProjectOutput,
    contract: ToolContract | None = None,
    events: list[RunEvent] | None = None,
) -> RunResult:
    """One round calling ``tool`` then a final answer, with ``project_output`` as the runner's hook."""
    model = ScriptedClient([reply("", call(make_tool(tool).name)), reply("done")])
    runner = Runner(
        model,
        config(Provider.OPENAI_CHAT),
        reflect(make_tool(tool, contract=contract)),
        project_output=project_output,
        on_event=None if events is None else events.append,
    )
    return asyncio.run(runner.arun(request("any-model", [user("go")])))


class TestRunnerScenarios:
    """§10 scenarios 39-42: projection inside the agent runner (``project_output=projector(...)``)."""

    def test_scenario_39_tool_ceilings_in_a_run(self) -> None:
        """The tool's 256-byte ceiling tightens the run's {1024, 1000}; the model sees the bounded text."""
        reports: list[ProjectionReport] = []
        events: list[RunEvent] = []
        hook = projector(
            ProjectionPolicy(max_bytes=1024, max_tokens=1000),
            on_projection=lambda outcome, descriptor, report: reports.append(report),
        )
        contract = ToolContract(output_ceilings=OutputCeilings(max_bytes=256))
        result = run_one(BigText, hook, contract, events)
        assert result.ok
        [record] = result.calls
        assert record.outcome.content == "HEAD-" + "x" * 5000 + "-TAIL"  # the full outcome is kept
        assert len(record.message.encode("utf-8")) <= 256
        assert "Warning: tool output truncated" in record.message
        assert [r.max_bytes for r in reports] == [256]
        assert reports[0].truncated
        sent = [m for m in result.request.messages if isinstance(m, ToolResult)]
        assert [m.content for m in sent] == [record.message]
        # One truncation event, after the call's completion, with the tightened ceiling.
        truncated = [e for e in events if isinstance(e, ToolOutputTruncated)]
        assert [(e.call.id, e.max_bytes, e.max_tokens) for e in truncated] == [(record.call.id, 256, 1000)]
        assert truncated[0].report == reports[0]
        kinds = [type(e) for e in events if isinstance(e, ToolCompleted | ToolOutputTruncated)]
        assert kinds == [ToolCompleted, ToolOutputTruncated]

    def test_scenario_40_small_output_one_report(self) -> None:
        """Small output: one report, not truncated, limit none, the text unchanged, no truncation event."""
        reports: list[ProjectionReport] = []
        events: list[RunEvent] = []
        hook = projector(on_projection=lambda o, d, report: reports.append(report))
        result = run_one(SmallText, hook, events=events)
        assert [r.truncated for r in reports] == [False]
        assert reports[0].limiting_factor is LimitingFactor.NONE
        assert result.calls[0].message == "small"
        assert [e for e in events if isinstance(e, ToolOutputTruncated)] == []
        assert len([e for e in events if isinstance(e, ToolCompleted)]) == 1

    def test_scenario_41_estimator_failure_in_a_run(self) -> None:
        """
        An estimator that fails on the tool text ends the run with ``tool_output_projection_failed``
        (metadata error ``estimator_failure``) after one model call; the raw result is still observed.
        """
        reports: list[ProjectionReport] = []
        events: list[RunEvent] = []
        hook = projector(
            ProjectionPolicy(max_bytes=1024, max_tokens=1000),
            FailsOnToolText(),
            on_projection=lambda o, d, report: reports.append(report),
        )
        result = run_one(BigText, hook, events=events)
        assert result.stop is StopReason.TOOL_OUTPUT_PROJECTION_FAILED
        assert result.stop.value == "tool_output_projection_failed"
        assert result.detail["error"] == "estimator_failure"
        assert result.model_calls == 1
        assert reports == []
        [record] = result.calls
        assert record.outcome.content.startswith("HEAD-")  # the raw result is still observed
        assert record.message == ""  # nothing reached the model
        assert not any(isinstance(m, ToolResult) for m in result.request.messages)
        [failed] = [e for e in events if isinstance(e, ToolOutputProjectionFailed)]
        assert failed.code == result.stop.value
        assert failed.error.failure is ProjectionFailure.ESTIMATOR_FAILURE
        assert failed.outcome.content == record.outcome.content
        assert not any(isinstance(e, ToolCompleted | ToolOutputTruncated) for e in events)

    def test_scenario_41_tell_the_model_instead(self) -> None:
        """Under ``on_failure=Recovery.TELL_MODEL`` the model sees ``PROJECTION_FAILED``; the run goes on."""
        hook = projector(
            ProjectionPolicy(max_bytes=1024, max_tokens=1000),
            FailsOnToolText(),
            on_failure=Recovery.TELL_MODEL,
        )
        result = run_one(BigText, hook)
        assert result.ok
        assert result.calls[0].message == PROJECTION_FAILED
        assert json.loads(PROJECTION_FAILED)["error"]["code"] == "projection_failed"

    def test_a_wrong_hook_result_is_a_type_error(self) -> None:
        """``project_output`` returning something else raises ``TypeError`` naming the hook."""
        with pytest.raises(TypeError, match="project_output"):
            run_one(SmallText, lambda outcome, descriptor: 42)  # type: ignore[arg-type,return-value]
        with pytest.raises(TypeError, match="on_failure"):
            projector(on_failure="end")  # type: ignore[arg-type]

    def test_scenario_42_incompatible_policy_raises_before_a_run(self) -> None:
        """A policy whose envelopes cannot fit under the estimator raises when the hook is made."""
        with pytest.raises(ValueError, match="envelope"):
            projector(ProjectionPolicy(max_bytes=256, max_tokens=64), ByteEstimator())
