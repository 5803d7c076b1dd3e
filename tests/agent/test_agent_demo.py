"""The demo's agent section runs and shows each contract feature."""

from __future__ import annotations

import pytest

from llm_wire.cli import main
from llm_wire.demo import agent


class TestAgentDemo:
    """``llm-wire demo agent`` (over HTTP to the fake provider) shows a fixed argument, a timeout, a retry, an
    approval, a refusal, a parallel batch whose write runs alone, tool output bounded by default, and a
    streamed run."""

    def test_runs(self, capsys: pytest.CaptureFixture[str]) -> None:
        agent.run()
        out = capsys.readouterr().out
        assert '"category":"invalid_input"' in out
        assert '"forecast":"sunny"' in out
        assert '"category":"timeout"' in out
        assert "retrying" in out
        assert '"token": "[redacted]"' in out
        assert "s3cr3t" not in out
        assert "The model answered." in out
        assert "6 HTTP requests" in out
        assert "DefinitionError" in out
        together = "start read a, start read b, end read a, end read b"
        assert f"{together}, start write b, end write b, start read b, end read b" in out
        assert "read_log: 10010 bytes cut to 241" in out
        # No projection option given: the runner's default bound (64 KiB, 10,000 tokens) holds.
        assert "dump_table: returned 240010 bytes, the model saw 39995" in out
        assert "ToolOutputTruncated dump_table: 240010 bytes cut to 39995 (ceilings 65536 bytes, 10000" in out
        assert "usage over 2 model calls: 2480 tokens, 2048 cached" in out
        assert "cost (priced once): 0.005440" in out
        streamed = out[out.index("Runner.stream over SSE") :].splitlines()[1:]
        assert streamed[:4] == [
            "  ModelStarted round 0",
            "  TextDelta 'Let '",
            "  TextDelta 'me '",
            "  TextDelta 'look.'",
        ]
        assert "  ToolCallStarted get_weather (toolu_1)" in streamed
        admitted = streamed.index("  ModelCompleted round 0: NeedsTools, 1 call admitted (now it may run)")
        assert max(n for n, line in enumerate(streamed) if "ArgumentsDelta" in line) < admitted
        assert streamed.index("  ToolStarted get_weather") == admitted + 1
        assert streamed[-1] == "  RunCompleted: The model answered. Answer: Sunny in Oslo for two days."

    def test_trace_prints_the_spans(self, capsys: pytest.CaptureFixture[str]) -> None:
        """``llm-wire demo agent --trace`` (``make demo DEMO_FLAGS=--trace``) prints each span as it ends."""
        assert main(["demo", "agent", "--trace"]) == 0
        out = capsys.readouterr().out
        spans = [line.split(" [")[0].strip() for line in out.splitlines() if line.startswith("  span ")]
        assert spans == [
            "span chat fake-model",
            "span chat fake-model",
            "span execute_tool get_weather",
            "span chat fake-model",
            "span execute_tool slow_report",
            "span chat fake-model",
            "span execute_tool fetch_quote",
            "span chat fake-model",
            "span execute_tool deploy_service",
            "span chat fake-model",
            "span invoke_agent",
        ]
        assert "event llm_wire.admission_issue" in out
        assert "event llm_wire.tool.timeout {'llm_wire.code': 'timeout'}" in out
        assert "event llm_wire.tool.retry" in out
        assert "event llm_wire.approval_requested" in out
        assert "s3cr3t" not in out
