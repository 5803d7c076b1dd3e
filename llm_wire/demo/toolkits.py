"""
Demo section ``toolkits``: governed filesystem and process tools, alone and under the agent runner.

First the runtimes on their own, in a scratch project: a path that climbs out, an absolute path and a
symlink component are refused; a stale revision conflicts; a process is run by argv with an allowlisted
executable, and a process tree that overruns its timeout is killed (checked in ``/proc``). Then an agent run
over real HTTP against the local fake provider: the model reads a file, fixes a typo with an
approval-gated, revision-guarded ``replace_text`` (the runner's approver is asked), counts the lines with
``run_process``, and answers. No keys, loopback only.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from llm_wire import config, request, user
from llm_wire.agent import Runner, compose
from llm_wire.agent.events import ApprovalRequest, Verdict
from llm_wire.message import Provider
from llm_wire.toolkits.filesystem import FilesystemPolicy, FilesystemRuntime
from llm_wire.toolkits.governance import AuditLog
from llm_wire.toolkits.process import ProcessPolicy, ProcessRuntime
from llm_wire.toolkits.tools import FilesystemTools, ProcessTools
from llm_wire.transport import Client, Timeouts
from llm_wire.transport.fake import FakeCall, FakeProvider, Received, ScriptedModel
from llm_wire.value import Value

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


def _tool_results(received: Received) -> list[dict[str, Value]]:
    """The JSON of every tool message in an OpenAI Chat request, in order."""
    body = received.json()
    messages = body.get("messages", []) if isinstance(body, dict) else []
    found: list[dict[str, Value]] = []
    for message in messages if isinstance(messages, list) else []:
        if (
            isinstance(message, dict)
            and message.get("role") == "tool"
            and isinstance(message.get("content"), str)
        ):
            parsed = json.loads(str(message["content"]))
            found.append(parsed if isinstance(parsed, dict) else {})
    return found


def agent_model(received: Received, provider: Provider) -> tuple[str, Sequence[FakeCall]]:
    """
    The fake provider's model: read the notes, fix the typo under the revision it read, count the lines,
    then answer from the count.
    """
    results = _tool_results(received)
    if not results:
        return "Let me read the notes.", (FakeCall("c1", "read_file", '{"path": "notes.txt"}'),)
    if len(results) == 1:
        data = results[0].get("data")
        revision = data.get("revision") if isinstance(data, dict) else None
        arguments = {"path": "notes.txt", "old": "teh", "new": "the", "expected_revision": revision}
        return "There is a typo; fixing it.", (FakeCall("c2", "replace_text", json.dumps(arguments)),)
    if len(results) == 2:
        count = FakeCall("c3", "run_process", '{"executable": "wc", "arguments": ["-l", "notes.txt"]}')
        return "Now counting the lines.", (count,)
    data = results[-1].get("data")
    stdout = str(data.get("stdout", "")).strip() if isinstance(data, dict) else "?"
    return f"Fixed the typo; wc says: {stdout}.", ()


def _agent(base: Path) -> None:
    project = base / "project"
    (project / "notes.txt").write_text(NOTES)
    files = FilesystemTools(FilesystemRuntime(FilesystemPolicy(project, allow_write=True)))
    processes = ProcessTools(
        ProcessRuntime(
            ProcessPolicy(project, allowed_executables=("wc",), executable_search_paths=("/usr/bin", "/bin"))
        )
    )
    tools = compose(files, processes)
    asked: list[str] = []

    def approver(request: ApprovalRequest) -> Verdict:
        asked.append(f"{request.tool} ({request.side_effect.value}, {request.idempotency.value})")
        return Verdict.ALLOW

    print(f"agent run over HTTP, {len(tools.descriptors())} tools exposed:")
    print("  " + ", ".join(d.name for d in tools.descriptors()))
    with (
        FakeProvider(ScriptedModel(agent_model)) as fake,
        Client(base_url=fake.url, timeouts=Timeouts(total=30.0)) as client,
    ):
        runner = Runner(client, config(Provider.OPENAI_CHAT), tools, approver=approver)
        try:
            result = runner.run(
                request("fake-model", [user("Fix the typo in notes.txt and count its lines.")])
            )
        finally:
            runner.close()
        requests = len(fake.exchanges)
    for record in result.calls:
        status = "ok" if record.outcome.ok else record.outcome.category
        print(f"  called {record.call.name}: {status}")
    print(f"  the runner's approver was asked about: {', '.join(asked)}")
    print(f"  answer after {requests} requests: {result.text}")
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
