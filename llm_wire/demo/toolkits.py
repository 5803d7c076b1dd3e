"""
Demo section ``toolkits``: governed filesystem and process tools, alone and under the agent runner.

First the runtimes on their own, in a scratch project: a path that climbs out, an absolute path and a
symlink component are refused; a stale revision conflicts; a process is run by argv with an allowlisted
executable, and a process tree that overruns its timeout is killed (checked in ``/proc``). Then an agent run
with the agent layer's scripted model: it reads a file, fixes a typo with an approval-gated,
revision-guarded ``replace_text`` (the runner's approver is asked), counts the lines with ``run_process``,
and answers. No keys, no network.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from llm_wire import Request, config, request, user
from llm_wire.agent import ApprovalRequest, Runner, ScriptedModel, Verdict, call, compose, reply
from llm_wire.message import Provider, ToolResult
from llm_wire.toolkits.filesystem import FilesystemPolicy, FilesystemRuntime
from llm_wire.toolkits.governance import AuditLog
from llm_wire.toolkits.process import ProcessPolicy, ProcessRuntime
from llm_wire.toolkits.tools import FilesystemTools, ProcessTools

__all__ = ["agent_model", "run"]

NOTES = "Release notes\nteh parser is strict now\nthe runner is bounded\n"


def _scratch() -> Path:
    base = Path(tempfile.mkdtemp(prefix="llm_wire-toolkits-"))
    (base / "project").mkdir()
    (base / "project" / "notes.txt").write_text(NOTES)
    (base / "outside.txt").write_text("not for the model")
    (base / "project" / "escape").symlink_to(base)
    return base


def _runtimes(base: Path) -> None:
    project = base / "project"
    log = AuditLog()
    fs = FilesystemRuntime(
        FilesystemPolicy(project, allow_write=True, require_approval_for_write=False), audit=log
    )
    print("filesystem runtime, root = a scratch project:")
    for path in ("../outside.txt", "/etc/passwd", "escape/outside.txt", "notes.txt"):
        result = fs.read_text(path)
        shown = (
            f"{len(result.content or '')} chars, {result.revision[:19]}..."
            if result.revision
            else result.error
        )
        print(f"  read {path!r:24} -> {result.status.value}: {shown}")
    first = fs.read_text("notes.txt").revision
    fs.write_text("notes.txt", NOTES + "one more line\n", expected_revision=first)
    stale = fs.write_text("notes.txt", "lost update", expected_revision=first)
    print(f"  write with a stale expected_revision -> {stale.status.value}: {stale.error}")
    print(
        f"  audit: {len(log.events)} events, the last {log.events[-1].kind.value} ({log.events[-1].status})"
    )

    processes = ProcessRuntime(
        ProcessPolicy(project, allowed_executables=("/bin/sh", shutil.which("wc") or "/usr/bin/wc"))
    )
    print("process runtime, argv only, nothing inherited:")
    counted = processes.run_process("wc", ["-l", "notes.txt"])
    print(f"  wc -l notes.txt -> {counted.termination_reason.value}, stdout {counted.stdout.strip()!r}")
    denied = processes.run_process("rm", ["-rf", "."])
    print(f"  rm -rf . -> {denied.termination_reason.value}: {denied.error}")
    shell = processes.run_shell("echo hi")
    print(f"  run_shell -> {shell.termination_reason.value}: {shell.error}")
    marker = f"{time.time_ns() % 10**6}"
    started = time.monotonic()
    slow = processes.run_process(
        "sh", ["-c", f"sleep 60.{marker} & sleep 61.{marker} & wait"], timeout_ms=300
    )
    left = [pid for pid in os.listdir("/proc") if pid.isdigit() and _has(pid, marker)]
    elapsed = time.monotonic() - started
    print(
        f"  a tree of 3 processes, timeout 300 ms -> {slow.termination_reason.value} after {elapsed:.2f} s;"
    )
    print(f"  processes of that tree left in /proc: {len(left)}")


def _has(pid: str, marker: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            found = marker.encode() in handle.read()
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return found and handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _last_result_holds(text: str) -> Callable[[Request], bool]:
    """An ``expect`` check: the last tool message the model was sent contains ``text``."""

    def check(sent: Request) -> bool:
        results = [m for m in sent.messages if isinstance(m, ToolResult)]
        return bool(results) and text in results[-1].content

    return check


def agent_model(notes: str) -> ScriptedModel:
    """
    The scripted model: read the notes, fix the typo under the revision it was sent, count the lines, answer.
    """
    revision = "sha256:" + hashlib.sha256(notes.encode()).hexdigest()
    fix = json.dumps({"path": "notes.txt", "old": "teh", "new": "the", "expected_revision": revision})
    count = json.dumps({"executable": "wc", "arguments": ["-l", "notes.txt"]})
    return ScriptedModel(
        [
            reply("Let me read the notes.", call("read_file", '{"path": "notes.txt"}')),
            reply(
                "There is a typo; fixing it.", call("replace_text", fix), expect=_last_result_holds(revision)
            ),
            reply("Now counting the lines.", call("run_process", count)),
            reply("Fixed the typo; wc counted 3 lines.", expect=_last_result_holds('"exit_code":0')),
        ]
    )


def _agent(base: Path) -> None:
    project = base / "project"
    (project / "notes.txt").write_text(NOTES)
    files = FilesystemTools(FilesystemRuntime(FilesystemPolicy(project, allow_write=True)))
    search = ("/usr/bin", "/bin")
    processes = ProcessTools(
        ProcessRuntime(ProcessPolicy(project, allowed_executables=("wc",), executable_search_paths=search))
    )
    tools = compose(files, processes)
    asked: list[str] = []

    def approver(request: ApprovalRequest) -> Verdict:
        asked.append(f"{request.tool} ({request.side_effect.value}, {request.idempotency.value})")
        return Verdict.ALLOW

    print(f"agent run with the scripted model, {len(tools.descriptors())} tools exposed:")
    print("  " + ", ".join(d.name for d in tools.descriptors()))
    model = agent_model(NOTES)
    runner = Runner(model, config(Provider.OPENAI_CHAT), tools, approver=approver)
    try:
        result = runner.run(request("any-model", [user("Fix the typo in notes.txt and count its lines.")]))
    finally:
        runner.close()
    for record in result.calls:
        status = "ok" if record.outcome.ok else record.outcome.category
        print(f"  called {record.call.name}: {status}")
    print(f"  the runner's approver was asked about: {', '.join(asked)}")
    print(f"  answer after {len(model.requests)} model calls: {result.text}")
    print(f"  notes.txt line 2 is now: {(project / 'notes.txt').read_text().splitlines()[1]!r}")


def run() -> None:
    """Both runtimes on their own, then an agent run against the fake provider."""
    base = _scratch()
    try:
        _runtimes(base)
        print()
        _agent(base)
    finally:
        shutil.rmtree(base)
