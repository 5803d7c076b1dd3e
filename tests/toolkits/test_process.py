"""
Tests for ``llm_wire.toolkits.process``: the reference's scenario 52 (and 53's runtime half: the shell), the
process tree gone after a timeout (checked in ``/proc``), and a property: no request raises or launches what
the policy does not allow.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_wire.agent.events import Verdict
from llm_wire.agent.steps import Cancellation
from llm_wire.toolkits.governance import ApproveAll, AuditKind, AuditLog, ConfigurationError, EffectRequest
from llm_wire.toolkits.process import ProcessLimits, ProcessPolicy, ProcessRuntime, TerminationReason

SH = "/bin/sh"
SH_REAL = os.path.realpath(SH)
ECHO = shutil.which("echo") or "/bin/echo"


def _runtime(root: Path, log: AuditLog | None = None, **changes: object) -> ProcessRuntime:
    settings_: dict[str, object] = {
        "allowed_executables": (SH, ECHO, "cat", "env"),
        "executable_search_paths": ("/usr/bin", "/bin"),
        "base_environment": {"PATH": "/usr/bin:/bin"},
        "allowed_environment_overrides": {"GREETING"},
        "limits": ProcessLimits(max_stdout_bytes=64 * 1024, timeout_ms=20_000),
        **changes,
    }
    return ProcessRuntime(ProcessPolicy(root, **settings_), audit=log)  # type: ignore[arg-type]


@pytest.fixture
def log() -> AuditLog:
    return AuditLog()


@pytest.fixture
def runtime(tmp_path: Path, log: AuditLog) -> ProcessRuntime:
    (tmp_path / "work").mkdir()
    return _runtime(tmp_path, log)


def _processes_with(marker: str) -> list[int]:
    """Live (not zombie) processes whose command line holds ``marker``, read from ``/proc``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                cmdline = handle.read()
            with open(f"/proc/{name}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != b"Z":
            found.append(int(name))
    return found


class TestScenario52Process:
    """Scenario 52: argv, environment, stdin, limits, timeout, descriptors, allowlist, workdir, audit."""

    def test_scenario_52_invalid_default_workdir_raises(self, tmp_path: Path) -> None:
        """A default workdir that is missing or outside the root raises at construction."""
        for workdir in ("missing", "../", "/tmp"):
            with pytest.raises(ConfigurationError, match="default_workdir"):
                _runtime(tmp_path, default_workdir=workdir)

    def test_scenario_52_echo_via_argv(self, runtime: ProcessRuntime) -> None:
        """Arguments reach the program as argv, shell characters and all."""
        result = runtime.run_process("echo", ["hello", "$HOME;", "*"])
        assert (result.termination_reason, result.exit_code) == (TerminationReason.EXITED, 0)
        assert result.stdout == "hello $HOME; *\n"

    def test_scenario_52_spoofed_metadata(self, runtime: ProcessRuntime) -> None:
        """Runtime-owned metadata cannot be spoofed; the caller's other keys are kept."""
        spoofed: dict[str, str | int | bool] = {
            "operation_id": "x",
            "shell": True,
            "executable": "/evil",
            "signal": 9,
            "ticket": "T-2",
        }
        result = runtime.run_process("echo", ["x"], metadata=spoofed)
        assert result.metadata["operation_id"] != "x"
        assert result.metadata["shell"] is False
        assert result.metadata["executable"] == os.path.realpath(ECHO)
        assert "signal" not in result.metadata
        assert result.metadata["ticket"] == "T-2"

    def test_scenario_52_allowlisted_env_override(self, runtime: ProcessRuntime) -> None:
        """An allowlisted override is delivered; nothing of this process's environment is inherited."""
        os.environ["LLM_WIRE_LEAK"] = "1"
        try:
            result = runtime.run_process("env", environment={"GREETING": "hi"})
        finally:
            del os.environ["LLM_WIRE_LEAK"]
        assert sorted(result.stdout.splitlines()) == ["GREETING=hi", "PATH=/usr/bin:/bin"]

    def test_scenario_52_stdin_without_shell(self, runtime: ProcessRuntime) -> None:
        """stdin text reaches the program through a pipe."""
        assert runtime.run_process("cat", stdin_text="line one\n$(id)\n").stdout == "line one\n$(id)\n"

    def test_scenario_52_limits_before_launch(self, tmp_path: Path, log: AuditLog) -> None:
        """Argument count, stdin and environment limits refuse before anything is launched."""
        limits = ProcessLimits(max_arguments=2, max_stdin_bytes=4, max_environment_entries=1)
        runtime = _runtime(tmp_path, log, limits=limits)
        assert (
            runtime.run_process("echo", ["a", "b", "c"]).termination_reason
            is TerminationReason.INVALID_REQUEST
        )
        assert (
            runtime.run_process("cat", stdin_text="12345").termination_reason
            is TerminationReason.INVALID_REQUEST
        )
        too_many = runtime.run_process("env", environment={"GREETING": "x"})
        assert too_many.termination_reason is TerminationReason.INVALID_REQUEST
        assert runtime.run_process("echo", ["a\x00b"]).termination_reason is TerminationReason.INVALID_REQUEST
        assert AuditKind.PROCESS_STARTED not in log.kinds()

    def test_scenario_52_output_limits(self, runtime: ProcessRuntime) -> None:
        """A limit of 32 keeps 32 bytes and sets truncated; 0 means the policy maximum, not unbounded."""
        script = "head -c 100000 /dev/zero | tr '\\0' x"
        small = runtime.run_process("sh", ["-c", script], max_stdout_bytes=32)
        assert (small.stdout, small.stdout_truncated) == ("x" * 32, True)
        zero = runtime.run_process("sh", ["-c", script], max_stdout_bytes=0)
        assert (len(zero.stdout), zero.stdout_truncated) == (64 * 1024, True)
        assert zero.termination_reason is TerminationReason.EXITED

    def test_scenario_52_timeout_kills_the_tree(self, runtime: ProcessRuntime) -> None:
        """A timed-out process and the children it spawned are all gone within the bound (no orphan)."""
        marker = f"{time.time_ns() % 10**9}.{uuid.uuid4().int % 10**6}"
        script = f"sleep 9{marker} & sleep 8{marker} & (sleep 7{marker} & wait) & wait"
        started = time.monotonic()
        result = runtime.run_process("sh", ["-c", script], timeout_ms=500)
        elapsed = time.monotonic() - started
        assert result.termination_reason is TerminationReason.TIMED_OUT
        assert result.exit_code is None
        assert elapsed < 10
        deadline = time.monotonic() + 5
        while _processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _processes_with(marker) == []

    def test_scenario_52_a_child_that_leaves_the_group_is_killed(self, runtime: ProcessRuntime) -> None:
        """A descendant in its own session (``setsid``) is found by parentage and killed as well."""
        marker = f"{uuid.uuid4().int % 10**8}"
        code = f"import os,time; os.setsid(); time.sleep(60); print({marker})"
        script = f"{sys.executable} -c '{code}' & wait"
        result = runtime.run_process("sh", ["-c", script], timeout_ms=800)
        assert result.termination_reason is TerminationReason.TIMED_OUT
        deadline = time.monotonic() + 5
        while _processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _processes_with(marker) == []

    def test_scenario_52_inherited_descriptors_are_closed(self, runtime: ProcessRuntime) -> None:
        """A descriptor this process made inheritable is not open in the child."""
        read_end, write_end = os.pipe()
        os.set_inheritable(write_end, True)
        try:
            listing = runtime.run_process("sh", ["-c", "ls /proc/self/fd"]).stdout.split()
        finally:
            os.close(read_end)
            os.close(write_end)
        assert str(write_end) not in listing
        assert {"0", "1", "2"} <= set(listing)

    def test_scenario_52_pre_cancel_prevents_launch(self, runtime: ProcessRuntime, log: AuditLog) -> None:
        """A cancelled request launches nothing."""
        cancel = Cancellation()
        cancel.cancel()
        assert (
            runtime.run_process("echo", ["x"], cancel=cancel).termination_reason
            is TerminationReason.CANCELLED
        )
        assert log.kinds() == [AuditKind.PROCESS_FINISHED]

    def test_scenario_52_allowlist(self, runtime: ProcessRuntime) -> None:
        """A non-allowlisted executable is denied; a bare-name entry rejects an absolute path of that name."""
        assert runtime.run_process("ls").termination_reason is TerminationReason.POLICY_DENIED
        cat = shutil.which("cat") or "/bin/cat"
        assert runtime.run_process(cat).termination_reason is TerminationReason.POLICY_DENIED
        assert runtime.run_process("./cat").termination_reason is TerminationReason.POLICY_DENIED
        assert runtime.run_process(SH, ["-c", "true"]).ok

    def test_scenario_52_env_override_denied(self, runtime: ProcessRuntime) -> None:
        """An override outside the allowlist is denied; a malformed key is an invalid request."""
        assert runtime.run_process("env", environment={"LD_PRELOAD": "x"}).termination_reason is (
            TerminationReason.POLICY_DENIED
        )
        assert runtime.run_process("env", environment={"A=B": "x"}).termination_reason is (
            TerminationReason.INVALID_REQUEST
        )

    def test_scenario_52_workdir_escape_denied(self, runtime: ProcessRuntime, tmp_path: Path) -> None:
        """A workdir outside the root, absolute or through a link, is denied; one inside is used."""
        (tmp_path / "work" / "out").symlink_to("/tmp")
        for workdir in ("..", "/tmp", "work/out"):
            result = runtime.run_process("sh", ["-c", "pwd"], workdir=workdir)
            assert result.termination_reason is TerminationReason.POLICY_DENIED
        assert runtime.run_process("sh", ["-c", "pwd"], workdir="work").stdout == f"{tmp_path / 'work'}\n"

    def test_scenario_52_audit_events(self, runtime: ProcessRuntime, log: AuditLog) -> None:
        """A run is audited: policy, start, finish with the exit code."""
        runtime.run_process("sh", ["-c", "exit 3"])
        assert log.kinds() == [
            AuditKind.POLICY_EVALUATED,
            AuditKind.PROCESS_STARTED,
            AuditKind.PROCESS_FINISHED,
        ]
        finished = log.events[-1]
        assert (finished.status, finished.details["exit_code"]) == ("exited", 3)
        assert finished.resources == (SH_REAL, ".")


class TestScenario53ShellRuntime:
    """Scenario 53, the runtime's half: the shell is off by default and approval-gated when on."""

    def test_scenario_53_shell_disabled_is_denied_and_audited(
        self, runtime: ProcessRuntime, log: AuditLog
    ) -> None:
        """``run_shell`` with the policy disabled is ``policy_denied``, and the denial is audited."""
        result = runtime.run_shell("echo no")
        assert result.termination_reason is TerminationReason.POLICY_DENIED
        assert [(e.kind, e.status) for e in log.events] == [(AuditKind.PROCESS_FINISHED, "policy_denied")]

    def test_scenario_53_shell_without_approver(self, tmp_path: Path) -> None:
        """A shell allowed without an approval service is ``approval_denied``."""
        runtime = _runtime(tmp_path, allow_shell=True)
        assert runtime.run_shell("echo no").termination_reason is TerminationReason.APPROVAL_DENIED

    def test_scenario_53_approved_shell_runs(self, tmp_path: Path) -> None:
        """An approved shell runs ``echo shell-ok``; the approver saw a critical ``process.shell`` request."""
        asked: list[EffectRequest] = []

        class Recording:
            def decide(self, request: EffectRequest) -> Verdict:
                asked.append(request)
                return Verdict.ALLOW

        policy = ProcessPolicy(tmp_path, allow_shell=True)
        result = ProcessRuntime(policy, approver=Recording()).run_shell("echo shell-ok")
        assert (result.termination_reason, result.stdout) == (TerminationReason.EXITED, "shell-ok\n")
        assert [(r.capability, r.risk.value) for r in asked] == [("process.shell", "critical")]


class TestConstruction:
    """A policy that cannot be used is refused when the runtime is made."""

    def test_relative_entry_with_directories(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="allowed_executables"):
            ProcessRuntime(ProcessPolicy(tmp_path, allowed_executables=("bin/tool",)))

    def test_bare_name_needs_search_paths(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="search_paths"):
            ProcessRuntime(ProcessPolicy(tmp_path, allowed_executables=("echo",)))

    def test_bad_environment_key(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="environment"):
            ProcessRuntime(ProcessPolicy(tmp_path, base_environment={"A=B": "x"}))

    def test_wrong_python_type(self, runtime: ProcessRuntime, tmp_path: Path) -> None:
        """A wrong Python type is a ``TypeError`` naming the parameter (or the policy setting)."""
        with pytest.raises(TypeError, match="allow_shell"):
            ProcessPolicy(tmp_path, allow_shell=1)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="arguments"):
            runtime.run_process("echo", "not a list")
        with pytest.raises(TypeError, match="timeout_ms"):
            runtime.run_process("echo", timeout_ms=1.5)  # type: ignore[arg-type]


TEXT = st.text(st.characters() | st.sampled_from(["\x00", "=", "/", ".", "\ud800"]), max_size=12)


class TestRequestProperty:
    """Whatever a model sends, the runtime answers with a result and launches only the allowlisted file."""

    @settings(max_examples=40, deadline=None)
    @given(
        executable=st.sampled_from(["true", "/bin/true", "sh", "../true", "", "TRUE", "true\x00"]) | TEXT,
        arguments=st.lists(TEXT, max_size=4),
        environment=st.dictionaries(TEXT, TEXT, max_size=2),
        workdir=st.none() | st.sampled_from([".", "..", "/", "a/../.."]) | TEXT,
        timeout=st.integers(min_value=-1, max_value=5000),
    )
    def test_no_request_raises(
        self,
        executable: str,
        arguments: list[str],
        environment: dict[str, str],
        workdir: str | None,
        timeout: int,
    ) -> None:
        log = AuditLog()
        root = Path(os.environ.get("TMPDIR", "/tmp"))
        runtime = ProcessRuntime(
            ProcessPolicy(root, allowed_executables=("true",), executable_search_paths=("/usr/bin", "/bin")),
            approver=ApproveAll(),
            audit=log,
        )
        result = runtime.run_process(
            executable, arguments, environment=environment, workdir=workdir, timeout_ms=timeout
        )
        started = [e.resources[0] for e in log.events if e.kind is AuditKind.PROCESS_STARTED]
        allowlisted = os.path.realpath(shutil.which("true") or "")
        if result.termination_reason is TerminationReason.EXITED:
            assert executable == "true"
            assert started == [allowlisted]
        elif result.termination_reason is TerminationReason.TIMED_OUT:
            # A timeout of a millisecond or so may fall after the launch: still only the allowlisted file.
            assert started in ([], [allowlisted])
        else:
            assert started == []
        assert log.events[-1].kind is AuditKind.PROCESS_FINISHED
