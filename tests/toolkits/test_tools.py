"""
Tests for ``llm_wire.toolkits.tools``: the toolkits as ``ToolProvider``s (the provider halves of scenarios 51
and 53), honest descriptors, statuses as outcome categories, cancellation through the invocation context,
and a property: any arguments give an outcome, never an exception.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llm_wire import config, request, schema, user
from llm_wire.agent import (
    Approval,
    ErrorCategory,
    ErrorCode,
    Idempotency,
    Runner,
    RunResult,
    SideEffect,
    StopReason,
    ToolDescriptor,
    ToolInvocation,
    ToolOutcome,
    ToolProvider,
    compose,
)
from llm_wire.agent.events import ApprovalRequest, Verdict
from llm_wire.agent.scripted import ScriptedClient, ScriptedReply, call, reply
from llm_wire.message import Provider, ToolCall
from llm_wire.result import unwrap
from llm_wire.toolkits.filesystem import FileStatus, FilesystemLimits, FilesystemPolicy, FilesystemRuntime
from llm_wire.toolkits.governance import AuditKind, AuditLog, EffectRequest
from llm_wire.toolkits.process import ProcessPolicy, ProcessRuntime, TerminationReason
from llm_wire.toolkits.tools import (
    ApprovalRoute,
    FilesystemTools,
    ProcessTools,
    _category_of_status,
    _category_of_termination,
)
from llm_wire.value import Value

#: Every filesystem tool, in the order ``FilesystemTools`` lists them (all 11 with everything enabled).
FILESYSTEM_TOOLS = (
    "file_info",
    "read_file",
    "list_directory",
    "glob_files",
    "search_text",
    "write_file",
    "replace_text",
    "create_directory",
    "copy_path",
    "move_path",
    "remove_path",
)


def _full(root: Path) -> FilesystemPolicy:
    """A policy with every mutation enabled (each still approval-gated)."""
    return FilesystemPolicy(
        root,
        allow_write=True,
        allow_create_directory=True,
        allow_copy=True,
        allow_move=True,
        allow_remove=True,
    )


def _call(provider: ToolProvider, name: str, arguments: dict[str, object]) -> ToolOutcome:
    descriptor = _descriptor(provider, name)
    invocation = unwrap(ToolInvocation.of(descriptor, json.dumps(arguments)))
    return asyncio.run(provider.invoke(invocation))


def _descriptor(provider: ToolProvider, name: str) -> ToolDescriptor:
    (found,) = [d for d in provider.descriptors() if d.name == name]
    return found


def _data(outcome: ToolOutcome) -> dict[str, Value]:
    payload = outcome.model_payload()
    assert isinstance(payload, dict)
    if outcome.ok:
        data = payload["data"]
    else:
        error = payload["error"]
        assert isinstance(error, dict)
        data = error["details"]
    assert isinstance(data, dict)
    return data


class Approves:
    """An approver that approves, and remembers what it was asked."""

    def __init__(self) -> None:
        self.asked: list[EffectRequest] = []

    def decide(self, request: EffectRequest) -> Verdict:
        self.asked.append(request)
        return Verdict.ALLOW


class TestScenario51Provider:
    """Scenario 51, the provider's half: the fully enabled provider and its JSON tools."""

    def test_scenario_51_fully_enabled_provider_has_11_tools(self, tmp_path: Path) -> None:
        """Everything enabled gives 11 tools in the reference's order; the default policy, the 5 reads."""
        full = FilesystemTools(FilesystemRuntime(_full(tmp_path)))
        assert [d.name for d in full.descriptors()] == list(FILESYSTEM_TOOLS)
        assert len(full.descriptors()) == 11
        default = FilesystemTools(FilesystemRuntime(FilesystemPolicy(tmp_path)))
        assert [d.name for d in default.descriptors()] == list(FILESYSTEM_TOOLS[:5])

    def test_scenario_51_write_and_read_through_json(self, tmp_path: Path) -> None:
        """``write_file`` then ``read_file`` through JSON arguments; the outcome carries the revision."""
        tools = FilesystemTools(FilesystemRuntime(FilesystemPolicy(tmp_path, allow_write=True)))
        written = _call(tools, "write_file", {"path": "notes/a.txt", "content": "hi", "create_parents": True})
        assert written.ok
        read = _call(tools, "read_file", {"path": "notes/a.txt"})
        assert _data(read)["content"] == "hi"
        assert read.resource_version == written.resource_version == _data(written)["revision"]

    def test_scenario_51_schemas_mirror_the_policy(self, tmp_path: Path) -> None:
        """Schemas are closed, paths non-empty, and limits bounded by the policy maxima."""
        tools = FilesystemTools(FilesystemRuntime(_full(tmp_path)))
        for descriptor in tools.descriptors():
            document = schema.to_value(descriptor.tool.schema)
            assert isinstance(document, dict)
            assert document["additionalProperties"] is False
        read = schema.to_value(_descriptor(tools, "read_file").tool.schema)
        assert read["properties"]["path"]["minLength"] == 1  # type: ignore[index, call-overload]
        assert read["properties"]["max_bytes"]["maximum"] == 4 * 1024 * 1024  # type: ignore[index, call-overload]

    def test_listing_depth_declares_the_walk_bound(self, tmp_path: Path) -> None:
        """``list_directory``'s ``max_depth`` maximum is the depth a walk can reach: neither limit above."""
        limits = FilesystemLimits(max_search_depth=500, max_depth=40)
        tools = FilesystemTools(FilesystemRuntime(FilesystemPolicy(tmp_path, limits=limits)))
        listing = schema.to_value(_descriptor(tools, "list_directory").tool.schema)
        assert listing["properties"]["max_depth"]["maximum"] == 40  # type: ignore[index, call-overload]

    def test_scenario_51_refused_arguments(self, tmp_path: Path) -> None:
        """Arguments that break the schema are ``invalid_input`` before the runtime is reached."""
        tools = FilesystemTools(FilesystemRuntime(FilesystemPolicy(tmp_path)))
        descriptor = _descriptor(tools, "read_file")
        call = ToolCall(id="c1", name="read_file", arguments_json='{"path": ""}')
        invocation = ToolInvocation(call, descriptor, {"path": ""}, None, "c1")
        outcome = asyncio.run(tools.invoke(invocation))
        assert outcome.category is ErrorCategory.INVALID_INPUT


class TestScenario53Provider:
    """Scenario 53, the provider's half: the shell tool needs both opt-ins."""

    def test_scenario_53_default_is_run_process_only(self, tmp_path: Path) -> None:
        """By default only ``run_process`` is exposed, and its argv works."""
        tools = ProcessTools(ProcessRuntime(ProcessPolicy(tmp_path, allowed_executables=("/bin/echo",))))
        assert [d.name for d in tools.descriptors()] == ["run_process"]
        outcome = _call(tools, "run_process", {"executable": "echo", "arguments": ["argv", "works"]})
        assert _data(outcome)["stdout"] == "argv works\n"

    def test_scenario_53_shell_needs_the_policy_too(self, tmp_path: Path) -> None:
        """The provider opt-in alone exposes no shell; the runtime still refuses it, audited."""
        log = AuditLog()
        runtime = ProcessRuntime(ProcessPolicy(tmp_path, allowed_executables=("/bin/echo",)), audit=log)
        tools = ProcessTools(runtime, expose_shell_tool=True)
        assert [d.name for d in tools.descriptors()] == ["run_process"]
        refused = runtime.run_shell("echo no")
        assert refused.termination_reason is TerminationReason.POLICY_DENIED
        assert [(e.kind, e.status) for e in log.events] == [(AuditKind.PROCESS_FINISHED, "policy_denied")]

    def test_scenario_53_shell_without_approver_is_denied(self, tmp_path: Path) -> None:
        """A shell allowed and exposed, approved by the runtime with no approver, is denied."""
        runtime = ProcessRuntime(ProcessPolicy(tmp_path, allow_shell=True))
        tools = ProcessTools(runtime, expose_shell_tool=True, approvals=ApprovalRoute.RUNTIME)
        outcome = _call(tools, "run_shell", {"command": "echo no"})
        assert outcome.category is ErrorCategory.PERMISSION_DENIED
        assert _data(outcome)["termination_reason"] == "approval_denied"

    def test_scenario_53_both_opt_ins_and_approval(self, tmp_path: Path) -> None:
        """Policy, provider opt-in and an approving service: 2 tools, and ``echo shell-ok`` runs."""
        approver = Approves()
        policy = ProcessPolicy(tmp_path, allowed_executables=("/bin/echo",), allow_shell=True)
        tools = ProcessTools(
            ProcessRuntime(policy, approver=approver), expose_shell_tool=True, approvals=ApprovalRoute.RUNTIME
        )
        assert [d.name for d in tools.descriptors()] == ["run_process", "run_shell"]
        outcome = _call(tools, "run_shell", {"command": "echo shell-ok"})
        assert _data(outcome)["stdout"] == "shell-ok\n"
        assert [r.capability for r in approver.asked] == ["process.shell"]

    def test_scenario_53_shell_is_critical_and_approval_gated(self, tmp_path: Path) -> None:
        """The shell descriptor is destructive, critical and asks the runner for approval."""
        policy = ProcessPolicy(tmp_path, allow_shell=True)
        shell = _descriptor(ProcessTools(ProcessRuntime(policy), expose_shell_tool=True), "run_shell")
        assert shell.contract.approval is Approval.ALWAYS
        assert shell.contract.side_effect is SideEffect.DESTRUCTIVE
        assert [(cap.name, cap.risk.value) for cap in shell.contract.capabilities] == [
            ("process.shell", "critical")
        ]


class TestDescriptors:
    """Descriptors say what a call does, so the runner's retry and approval rules apply unconfigured."""

    def test_reads_are_idempotent_and_ungated(self, tmp_path: Path) -> None:
        tools = FilesystemTools(FilesystemRuntime(FilesystemPolicy(tmp_path)))
        for descriptor in tools.descriptors():
            contract = descriptor.contract
            assert (contract.side_effect, contract.idempotency, contract.approval) == (
                SideEffect.READ,
                Idempotency.IDEMPOTENT,
                Approval.NEVER,
            )

    def test_mutations_are_not_idempotent_and_gated(self, tmp_path: Path) -> None:
        """Every mutation is non-idempotent (never retried) and asks the runner's approver by default."""
        tools = FilesystemTools(FilesystemRuntime(_full(tmp_path)))
        effects = {d.name: d.contract.side_effect for d in tools.descriptors()[5:]}
        assert effects == {
            "write_file": SideEffect.WRITE,
            "replace_text": SideEffect.WRITE,
            "create_directory": SideEffect.WRITE,
            "copy_path": SideEffect.WRITE,
            "move_path": SideEffect.DESTRUCTIVE,
            "remove_path": SideEffect.DESTRUCTIVE,
        }
        for descriptor in tools.descriptors()[5:]:
            assert descriptor.contract.idempotency is Idempotency.NON_IDEMPOTENT
            assert descriptor.contract.approval is Approval.ALWAYS
            assert descriptor.contract.retry.max_attempts == 1

    def test_runtime_route_and_ungated_policy_ask_the_runner_nothing(self, tmp_path: Path) -> None:
        """Approval by the runtime, or a policy that needs none, leaves the descriptors at ``never``."""
        policy = _full(tmp_path)
        by_runtime = FilesystemTools(FilesystemRuntime(policy), approvals=ApprovalRoute.RUNTIME)
        ungated = FilesystemTools(
            FilesystemRuntime(FilesystemPolicy(tmp_path, allow_write=True, require_approval_for_write=False))
        )
        for tools in (by_runtime, ungated):
            assert {d.contract.approval for d in tools.descriptors()} == {Approval.NEVER}

    def test_runtime_route_uses_the_runtime_approver(self, tmp_path: Path) -> None:
        """With ``ApprovalRoute.RUNTIME`` an unapproved write is ``approval_denied``, as permission_denied."""
        policy = FilesystemPolicy(tmp_path, allow_write=True)
        tools = FilesystemTools(FilesystemRuntime(policy), approvals=ApprovalRoute.RUNTIME)
        outcome = _call(tools, "write_file", {"path": "a.txt", "content": "x"})
        assert outcome.category is ErrorCategory.PERMISSION_DENIED
        assert _data(outcome)["status"] == "approval_denied"
        assert not (tmp_path / "a.txt").exists()

    def test_providers_compose(self, tmp_path: Path) -> None:
        """Both toolkits compose with the agent layer's composite, with a prefix to keep names apart."""
        files = FilesystemTools(FilesystemRuntime(FilesystemPolicy(tmp_path)), prefix="fs_")
        processes = ProcessTools(ProcessRuntime(ProcessPolicy(tmp_path, allowed_executables=("/bin/echo",))))
        both = compose(files, processes)
        assert [d.name for d in both.descriptors()][:2] == ["fs_file_info", "fs_read_file"]
        assert both.capabilities("run_process") is not None


class TestCategories:
    """Every status and termination reason maps to a category the model can act on."""

    def test_every_status_maps(self) -> None:
        assert _category_of_status(FileStatus.OK) is None
        assert all(_category_of_status(s) is not None for s in FileStatus if s is not FileStatus.OK)
        assert _category_of_status(FileStatus.CONFLICT) is ErrorCategory.CONFLICT
        assert _category_of_status(FileStatus.NOT_FOUND) is ErrorCategory.NOT_FOUND
        assert _category_of_status(FileStatus.OUTSIDE_ROOT) is ErrorCategory.PERMISSION_DENIED

    def test_every_termination_maps(self) -> None:
        assert _category_of_termination(TerminationReason.EXITED) is None
        others = [r for r in TerminationReason if r is not TerminationReason.EXITED]
        assert all(_category_of_termination(r) is not None for r in others)
        assert _category_of_termination(TerminationReason.TIMED_OUT) is ErrorCategory.TIMEOUT

    def test_non_zero_exit_is_a_success(self, tmp_path: Path) -> None:
        tools = ProcessTools(ProcessRuntime(ProcessPolicy(tmp_path, allowed_executables=("/bin/sh",))))
        outcome = _call(tools, "run_process", {"executable": "sh", "arguments": ["-c", "exit 4"]})
        assert outcome.ok
        assert _data(outcome)["exit_code"] == 4

    def test_timeout_of_a_process_is_outcome_unknown(self, tmp_path: Path) -> None:
        """A process is not idempotent: past its timeout it may have taken effect, so it is not retryable."""
        tools = ProcessTools(ProcessRuntime(ProcessPolicy(tmp_path, allowed_executables=("/bin/sh",))))
        outcome = _call(
            tools, "run_process", {"executable": "sh", "arguments": ["-c", "sleep 5"], "timeout_ms": 200}
        )
        assert outcome.category is ErrorCategory.TIMEOUT
        assert outcome.failure is not None
        assert (outcome.failure.code, outcome.failure.retryable) == (ErrorCode.OUTCOME_UNKNOWN, False)
        assert isinstance(outcome.failure.details, dict)
        assert outcome.failure.details["termination_reason"] == "timed_out"


class TestCancellation:
    """A call the runner abandons stops: the invocation context is the runtime's cancellation signal."""

    def test_cancelled_context_kills_the_process(self, tmp_path: Path) -> None:
        tools = ProcessTools(ProcessRuntime(ProcessPolicy(tmp_path, allowed_executables=("/bin/sh",))))
        descriptor = _descriptor(tools, "run_process")
        invocation = unwrap(
            ToolInvocation.of(descriptor, '{"executable": "sh", "arguments": ["-c", "sleep 30"]}')
        )

        async def run() -> ToolOutcome:
            asyncio.get_running_loop().call_later(0.3, invocation.context.cancel)
            return await tools.invoke(invocation)

        outcome = asyncio.run(run())
        assert outcome.category is ErrorCategory.CANCELLED
        assert _data(outcome)["termination_reason"] == "cancelled"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**7) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
KEYS = st.sampled_from(
    ["path", "content", "source", "destination", "recursive", "pattern", "query", "old", "new", "max_bytes"]
)


class TestArgumentsProperty:
    """Whatever arguments reach a toolkit provider, it answers with an outcome."""

    @settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(name=st.sampled_from(FILESYSTEM_TOOLS), arguments=st.dictionaries(KEYS, JSON, max_size=4))
    def test_no_arguments_raise(self, tmp_path: Path, name: str, arguments: dict[str, Value]) -> None:
        root = tmp_path / "root"
        root.mkdir(exist_ok=True)
        tools = FilesystemTools(FilesystemRuntime(_full(root)), approvals=ApprovalRoute.RUNNER)
        descriptor = _descriptor(tools, name)
        call = ToolCall(id="c", name=name, arguments_json=json.dumps(arguments))
        outcome = asyncio.run(tools.invoke(ToolInvocation(call, descriptor, arguments, None, "c")))
        assert isinstance(outcome, ToolOutcome)
        assert isinstance(outcome.model_text(), str)
        assert not os.path.exists(tmp_path / "planted")


CONFIG = config(Provider.OPENAI_CHAT)


def _run(provider: ToolProvider, replies: list[ScriptedReply], **options: object) -> RunResult:
    runner = Runner(ScriptedClient(replies), CONFIG, provider, **options)  # type: ignore[arg-type]
    return asyncio.run(runner.arun(request("m", [user("go")])))


def _write_call(path: str = "out.txt") -> list[ScriptedReply]:
    return [
        reply("", call("write_file", json.dumps({"path": path, "content": "from the model"}))),
        reply("done"),
    ]


class TestRunnerApproval:
    """Under the agent runner, the descriptors' approval routes a gated call to the runner's approver."""

    def test_approved_write_runs_once(self, tmp_path: Path) -> None:
        """An approved write runs; the approver saw its side effect and capability, and the arguments."""
        asked: list[ApprovalRequest] = []

        def approver(request: ApprovalRequest) -> Verdict:
            asked.append(request)
            return Verdict.ALLOW

        tools = FilesystemTools(FilesystemRuntime(FilesystemPolicy(tmp_path, allow_write=True)))
        result = _run(tools, _write_call(), approver=approver)
        assert result.stop is StopReason.ANSWERED
        assert (tmp_path / "out.txt").read_text() == "from the model"
        (seen,) = asked
        assert (seen.tool, seen.side_effect, seen.idempotency) == (
            "write_file",
            SideEffect.WRITE,
            Idempotency.NON_IDEMPOTENT,
        )
        assert [c.name for c in seen.capabilities] == ["filesystem.write"]
        assert seen.arguments == {"path": "out.txt", "content": "from the model"}

    @pytest.mark.parametrize("verdict", [Verdict.DENY, None])
    def test_denied_or_unconfigured_write_never_runs(self, tmp_path: Path, verdict: Verdict | None) -> None:
        """A denial, or no approver at all, reaches the model as a denial; nothing is written."""
        options = {} if verdict is None else {"approver": lambda request: verdict}
        tools = FilesystemTools(FilesystemRuntime(FilesystemPolicy(tmp_path, allow_write=True)))
        result = _run(tools, _write_call(), **options)
        assert result.stop is StopReason.ANSWERED
        (record,) = result.calls
        assert record.outcome.category is ErrorCategory.PERMISSION_DENIED
        assert not (tmp_path / "out.txt").exists()

    def test_manual_review_suspends_the_run(self, tmp_path: Path) -> None:
        """An approver asking for review suspends the run with the write pending and unperformed."""
        tools = FilesystemTools(FilesystemRuntime(FilesystemPolicy(tmp_path, allow_write=True)))
        result = _run(tools, _write_call(), approver=lambda request: Verdict.ASK)
        assert result.stop is StopReason.APPROVAL_REQUIRED
        assert result.detail["tool_name"] == "write_file"
        assert not (tmp_path / "out.txt").exists()

    def test_reads_ask_nobody(self, tmp_path: Path) -> None:
        """A read runs without the approver being asked."""
        (tmp_path / "a.txt").write_text("text")
        asked: list[ApprovalRequest] = []
        tools = FilesystemTools(FilesystemRuntime(FilesystemPolicy(tmp_path, allow_write=True)))
        replies = [reply("", call("read_file", '{"path": "a.txt"}')), reply("done")]

        def approver(request: ApprovalRequest) -> Verdict:
            asked.append(request)
            return Verdict.DENY

        result = _run(tools, replies, approver=approver)
        assert result.calls[0].outcome.ok
        assert asked == []

    def test_shell_is_approval_gated_under_the_runner(self, tmp_path: Path) -> None:
        """With both opt-ins the shell still needs the runner's approver; denied, nothing runs."""
        marker = tmp_path / "ran"
        runtime = ProcessRuntime(ProcessPolicy(tmp_path, allow_shell=True))
        tools = ProcessTools(runtime, expose_shell_tool=True)
        replies = [reply("", call("run_shell", json.dumps({"command": f"touch {marker}"}))), reply("done")]
        denied = _run(tools, replies, approver=lambda request: Verdict.DENY)
        assert denied.calls[0].outcome.category is ErrorCategory.PERMISSION_DENIED
        assert not marker.exists()
        allowed = _run(tools, replies, approver=lambda request: Verdict.ALLOW)
        assert allowed.calls[0].outcome.ok
        assert marker.exists()


class TestDemo:
    """The ``toolkits`` demo section runs: refusals, the tree kill, and the agent run over HTTP."""

    def test_demo_runs(self, capsys: pytest.CaptureFixture[str]) -> None:
        from llm_wire.demo import toolkits

        toolkits.run()
        printed = capsys.readouterr().out
        assert "outside_root" in printed
        assert "processes of that tree left in /proc: 0" in printed
        assert "the runner's approver was asked about: replace_text (write, non_idempotent)" in printed
        assert "notes.txt line 2 is now: 'the parser is strict now'" in printed
