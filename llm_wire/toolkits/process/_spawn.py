"""
The process toolkit's local backend: one argv, no shell, bounded pipes, and the whole tree killed.

The child starts in a new session (so a new process group) with only the pipes and the descriptors 0-2
inherited. On timeout or cancellation every process of that group and every descendant still linked to the
child by parentage is sent ``SIGKILL``. When the child exits by itself, what is left of its group is killed
too, while the child is still an unreaped zombie (``waitid(WNOWAIT)``), so its group id cannot be reused in
between. A descendant that both left the group (``setsid``) and lost its parent escapes: this is not a
sandbox.
"""

from __future__ import annotations

import contextlib
import enum
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence

from attrs import frozen

__all__ = ["Ending", "Spawned", "spawn", "descendants"]

#: How long pipes are drained after the tree is killed before our ends are closed anyway.
DRAIN_GRACE = 2.0
#: How often a wait wakes up to look at the cancellation flag.
POLL = 0.05


class Ending(enum.Enum):
    EXITED = "exited"
    TIMED_OUT = "timed_out"
    CANCELLED = "cancelled"
    LAUNCH_FAILED = "launch_failed"


@frozen
class Spawned:
    """What the backend saw: the ending, exit status, kept output and whether each stream was cut."""

    ending: Ending
    pid: int | None
    exit_code: int | None
    signal: int | None
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    elapsed_ms: int
    launch_errno: int | None = None


def descendants(pid: int) -> set[int]:
    """Every live process whose parent chain reaches ``pid``, read from ``/proc``."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                text = handle.read()
        except OSError:
            continue
        # ``pid (comm) state ppid ...``: comm may hold spaces and parentheses, so split after the last ')'.
        fields = text[text.rfind(b")") + 2 :].split()
        parents[int(name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _kill_tree(pid: int) -> None:
    """``SIGKILL`` the process group ``pid`` leads and every descendant of ``pid``, twice over."""
    for _ in range(2):
        for target in descendants(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(target, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


class _Stream:
    """One output pipe: keeps up to ``limit`` bytes and drains the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.truncated = False

    def take(self, chunk: bytes) -> None:
        room = self.limit - len(self.kept)
        if len(chunk) > room:
            self.truncated = True
        if room > 0:
            self.kept += chunk[:room]


def spawn(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    stdin: bytes,
    timeout: float,
    max_stdout: int,
    max_stderr: int,
    cancelled: Callable[[], bool],
    started: Callable[[int], None],
) -> Spawned:
    """Run ``argv`` to its end, its deadline or its cancellation; never raises for the child's behaviour."""
    begin = time.monotonic()
    try:
        child = subprocess.Popen(  # argv only, never a shell; the runtime checked the executable
            list(argv),
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            close_fds=True,
            start_new_session=True,
        )
    except OSError as exc:
        elapsed = int((time.monotonic() - begin) * 1000)
        return Spawned(Ending.LAUNCH_FAILED, None, None, None, b"", b"", False, False, elapsed, exc.errno)
    started(child.pid)
    out, err = _Stream(max_stdout), _Stream(max_stderr)
    ending = _pump(child, stdin, out, err, begin + timeout, cancelled)
    code = child.wait()
    elapsed = int((time.monotonic() - begin) * 1000)
    exit_code, sig = (code, None) if code >= 0 else (None, -code)
    if ending is not Ending.EXITED:
        exit_code = None
    return Spawned(
        ending,
        child.pid,
        exit_code,
        sig,
        bytes(out.kept),
        bytes(err.kept),
        out.truncated,
        err.truncated,
        elapsed,
    )


def _exited(pid: int) -> bool:
    """Whether ``pid`` has exited, leaving it unreaped so its process group id stays ours."""
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    return info is not None


def _pump(
    child: subprocess.Popen[bytes],
    stdin: bytes,
    out: _Stream,
    err: _Stream,
    deadline: float,
    cancelled: Callable[[], bool],
) -> Ending:
    selector = selectors.DefaultSelector()
    streams = {}
    for pipe, stream in ((child.stdout, out), (child.stderr, err)):
        assert pipe is not None  # both are PIPE
        os.set_blocking(pipe.fileno(), False)
        selector.register(pipe, selectors.EVENT_READ)
        streams[pipe.fileno()] = stream
    pending = memoryview(stdin)
    if child.stdin is not None:
        os.set_blocking(child.stdin.fileno(), False)
        selector.register(child.stdin, selectors.EVENT_WRITE)
    ending: Ending | None = None
    drain_until: float | None = None
    try:
        while selector.get_map():
            now = time.monotonic()
            if ending is None:
                if cancelled():
                    ending = Ending.CANCELLED
                elif now >= deadline:
                    ending = Ending.TIMED_OUT
                elif _exited(child.pid):
                    ending = Ending.EXITED
                if ending is not None:
                    _kill_tree(child.pid)
                    drain_until = now + DRAIN_GRACE
            if drain_until is not None and now >= drain_until:
                break
            until = deadline if drain_until is None else drain_until
            for key, _ in selector.select(max(0.0, min(POLL, until - now))):
                fd = key.fd
                if child.stdin is not None and key.fileobj is child.stdin:
                    try:
                        pending = pending[os.write(fd, pending[: 1 << 16]) :]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:
                        pending = pending[len(pending) :]
                    if not pending:
                        selector.unregister(child.stdin)
                        child.stdin.close()
                    continue
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if chunk:
                    streams[fd].take(chunk)
                else:
                    selector.unregister(key.fileobj)
        while ending is None:
            # Both pipes closed before the child exited: wait for it under the same deadline.
            if cancelled():
                ending = Ending.CANCELLED
            elif time.monotonic() >= deadline:
                ending = Ending.TIMED_OUT
            elif _exited(child.pid):
                ending = Ending.EXITED
            else:
                time.sleep(POLL)
                continue
            _kill_tree(child.pid)
    finally:
        selector.close()
        for pipe in (child.stdin, child.stdout, child.stderr):
            if pipe is not None and not pipe.closed:
                pipe.close()
    return ending
