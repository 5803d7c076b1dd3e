"""
Tests for ``llm_wire.toolkits.filesystem``: the reference's scenarios 49-51 (revisions, operations, policy
boundaries), and properties: no generated path reaches outside the root, and concurrent writes with one
expected revision give exactly one success.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from llm_wire.agent.events import Verdict
from llm_wire.agent.steps import Cancellation
from llm_wire.toolkits.filesystem import (
    EntryType,
    FileResult,
    FileStatus,
    FilesystemLimits,
    FilesystemPolicy,
    FilesystemRuntime,
)
from llm_wire.toolkits.governance import (
    ApproveAll,
    AuditEvent,
    AuditKind,
    AuditLog,
    ConfigurationError,
    EffectRequest,
)

SECRET = "outside-secret-7f3a"


def _policy(root: Path, **changes: object) -> FilesystemPolicy:
    enabled = {
        "allow_write": True,
        "allow_create_directory": True,
        "allow_copy": True,
        "allow_move": True,
        "allow_remove": True,
    }
    return attrs.evolve(FilesystemPolicy(root), **{**enabled, **changes})  # type: ignore[arg-type]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A root with a sibling ``outside`` holding a secret, and a link from the root to it."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text(SECRET)
    inside = tmp_path / "root"
    inside.mkdir()
    (inside / "link").symlink_to(tmp_path / "outside")
    return inside


@pytest.fixture
def log() -> AuditLog:
    return AuditLog()


@pytest.fixture
def fs(root: Path, log: AuditLog) -> FilesystemRuntime:
    """Everything enabled, approved by the host."""
    return FilesystemRuntime(_policy(root), approver=ApproveAll(), audit=log)


class Raising:
    """An approver and audit sink that raise: both must fail closed or be ignored."""

    def decide(self, request: EffectRequest) -> Verdict:
        raise RuntimeError("approver down")

    def record(self, event: AuditEvent) -> None:
        raise RuntimeError("sink down")


class TestScenario49Revisions:
    """Scenario 49: revisions, spoofed metadata, create_new and optimistic concurrency."""

    def test_scenario_49_write_gives_a_revision(self, fs: FilesystemRuntime) -> None:
        """A write gives a non-empty ``sha256:`` revision of the content."""
        result = fs.write_text("notes.txt", "hello")
        assert result.ok
        assert result.revision is not None
        assert result.revision.startswith("sha256:")
        assert len(result.revision) == len("sha256:") + 64

    def test_scenario_49_spoofed_metadata_is_overwritten(self, fs: FilesystemRuntime) -> None:
        """Caller metadata for ``operation_id``, ``partial`` and ``type`` is dropped or overwritten."""
        spoofed: dict[str, str | int | bool] = {
            "operation_id": "mine",
            "partial": True,
            "type": "directory",
            "ticket": "T-1",
        }
        result = fs.write_text("notes.txt", "hello", metadata=spoofed)
        assert result.metadata["operation_id"] != "mine"
        assert "partial" not in result.metadata
        assert "type" not in result.metadata
        assert result.metadata["ticket"] == "T-1"
        info = fs.file_info("notes.txt", metadata=spoofed)
        assert info.metadata["type"] == "file"

    def test_scenario_49_create_new_never_overwrites(self, fs: FilesystemRuntime, root: Path) -> None:
        """``create_new`` on an existing file is ``already_exists`` and leaves it as it was."""
        fs.write_text("notes.txt", "first")
        result = fs.write_text("notes.txt", "second", create_new=True)
        assert result.status is FileStatus.ALREADY_EXISTS
        assert (root / "notes.txt").read_text() == "first"

    def test_scenario_49_stale_revision_conflicts(self, fs: FilesystemRuntime, root: Path) -> None:
        """A stale ``expected_revision`` is a conflict; a missing file with one is a conflict too."""
        first = fs.write_text("notes.txt", "one")
        fs.write_text("notes.txt", "two")
        stale = fs.write_text("notes.txt", "three", expected_revision=first.revision)
        assert stale.status is FileStatus.CONFLICT
        assert (root / "notes.txt").read_text() == "two"
        missing = fs.write_text("absent.txt", "x", expected_revision=first.revision)
        assert missing.status is FileStatus.CONFLICT

    def test_scenario_49_concurrent_writes_one_success(self, fs: FilesystemRuntime) -> None:
        """Two concurrent writes with the same expected revision: exactly one success and one conflict."""
        base = fs.write_text("race.txt", "base").revision
        statuses = _race(fs, fs, base, 2)
        assert sorted(s.value for s in statuses) == ["conflict", "ok"]


def _race(a: FilesystemRuntime, b: FilesystemRuntime, base: str | None, n: int) -> list[FileStatus]:
    barrier = threading.Barrier(n)
    statuses: list[FileStatus] = []

    def write(runtime: FilesystemRuntime, i: int) -> None:
        barrier.wait()
        statuses.append(runtime.write_text("race.txt", f"writer {i}", expected_revision=base).status)

    threads = [threading.Thread(target=write, args=(a if i % 2 else b, i)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


class TestScenario50Operations:
    """Scenario 50: replace, read, search, copy, move, list, glob, remove, audit."""

    def test_scenario_50_replace_exactly_once(self, fs: FilesystemRuntime, root: Path) -> None:
        """Replacing a single occurrence affects 1 item; an ambiguous replace is rejected."""
        fs.write_text("a.txt", "alpha beta gamma beta")
        once = fs.replace_text("a.txt", "alpha", "ALPHA")
        assert (once.status, once.affected_items) == (FileStatus.OK, 1)
        ambiguous = fs.replace_text("a.txt", "beta", "BETA")
        assert ambiguous.status is FileStatus.CONFLICT
        assert (root / "a.txt").read_text() == "ALPHA beta gamma beta"
        both = fs.replace_text("a.txt", "beta", "BETA", expected_replacements=2)
        assert both.affected_items == 2
        assert fs.replace_text("a.txt", "delta", "x").status is FileStatus.CONFLICT

    def test_scenario_50_read_round_trips_with_the_info_revision(self, fs: FilesystemRuntime) -> None:
        """A read returns what was written, and ``file_info``'s revision equals the read's."""
        text = "zürich\nline two\n"
        written = fs.write_text("r.txt", text)
        read = fs.read_text("r.txt")
        info = fs.file_info("r.txt", include_revision=True)
        assert read.content == text
        assert read.revision == info.revision == written.revision

    def test_scenario_50_search_returns_root_relative_lines(self, fs: FilesystemRuntime) -> None:
        """A search returns 2 root-relative line matches with 1-based lines and byte columns."""
        fs.write_text("src/a.txt", "needle here\nnothing\n", create_parents=True)
        fs.write_text("src/b.txt", "no\nü needle\n")
        result = fs.search_text("needle", path="src")
        assert [(m.path, m.line, m.column) for m in result.matches] == [
            ("src/a.txt", 1, 1),
            ("src/b.txt", 2, 4),
        ]

    def test_scenario_50_search_output_budget(self, fs: FilesystemRuntime) -> None:
        """A tiny output budget returns no matches and flags the limit."""
        fs.write_text("a.txt", "needle\n")
        result = fs.search_text("needle", max_output_bytes=1)
        assert result.matches == ()
        assert result.truncated
        assert result.metadata["output_limit_reached"] is True

    def test_scenario_50_copy(self, fs: FilesystemRuntime, root: Path) -> None:
        """Copy reports its bytes; copying into itself is ``invalid_path``."""
        fs.write_text("d/f.txt", "12345", create_parents=True)
        copied = fs.copy_path("d/f.txt", "g.txt")
        assert (copied.status, copied.bytes_processed) == (FileStatus.OK, 5)
        assert (root / "g.txt").read_text() == "12345"
        assert fs.copy_path("d", "d/inner", recursive=True).status is FileStatus.INVALID_PATH

    def test_scenario_50_move(self, fs: FilesystemRuntime, root: Path) -> None:
        """A move result is root-relative; a directory move needs ``recursive``."""
        fs.write_text("m/f.txt", "x", create_parents=True)
        moved = fs.move_path("m/f.txt", "./m/../f.txt")
        assert (moved.status, moved.path, moved.destination) == (FileStatus.OK, "m/f.txt", "f.txt")
        assert fs.move_path("m", "n").status is FileStatus.INVALID_REQUEST
        assert fs.move_path("m", "n", recursive=True).ok
        assert (root / "n").is_dir()

    def test_scenario_50_recursive_list_and_glob(self, fs: FilesystemRuntime) -> None:
        """A recursive listing walks down; ``**`` globbing spans directories."""
        fs.write_text("a/b/c.py", "", create_parents=True)
        fs.write_text("a/d.py", "")
        fs.write_text("e.txt", "")
        listing = fs.list_directory("a", recursive=True)
        assert [(e.path, e.type) for e in listing.entries] == [
            ("a/b", EntryType.DIRECTORY),
            ("a/b/c.py", EntryType.FILE),
            ("a/d.py", EntryType.FILE),
        ]
        assert [e.path for e in fs.glob_files("**/*.py").entries] == ["a/b/c.py", "a/d.py"]
        assert [e.path for e in fs.glob_files("*.txt").entries] == ["e.txt"]

    def test_scenario_50_copy_through_destination_symlink(
        self, fs: FilesystemRuntime, tmp_path: Path
    ) -> None:
        """A recursive copy through a pre-existing destination symlink is ``permission_denied``."""
        fs.write_text("tree/f.txt", "x", create_parents=True)
        result = fs.copy_path("tree", "link/tree", recursive=True)
        assert result.status is FileStatus.PERMISSION_DENIED
        assert not (tmp_path / "outside" / "tree").exists()

    def test_scenario_50_recursive_remove(self, fs: FilesystemRuntime, root: Path) -> None:
        """A recursive remove reports every entry it removed."""
        fs.write_text("gone/a/b.txt", "x", create_parents=True)
        result = fs.remove_path("gone", recursive=True)
        assert result.ok
        assert result.affected_items >= 2
        assert not (root / "gone").exists()

    def test_scenario_50_audit_events(self, fs: FilesystemRuntime, log: AuditLog) -> None:
        """Every operation is audited: policy, approval for a mutation, and one finishing event."""
        fs.write_text("a.txt", "x")
        fs.read_text("a.txt")
        assert log.kinds() == [
            AuditKind.POLICY_EVALUATED,
            AuditKind.APPROVAL_APPROVED,
            AuditKind.OPERATION_FINISHED,
            AuditKind.POLICY_EVALUATED,
            AuditKind.OPERATION_FINISHED,
        ]
        finished = log.events[-1]
        assert (finished.operation, finished.status, finished.resources) == ("read_text", "ok", ("a.txt",))


class TestScenario51PolicyBoundaries:
    """Scenario 51: paths, content types, cancellation, links, the write gate, the root, the backend."""

    def test_scenario_51_escape_and_absolute(self, fs: FilesystemRuntime) -> None:
        """``../outside.txt`` is ``outside_root``; an absolute path is ``permission_denied``."""
        assert fs.read_text("../outside.txt").status is FileStatus.OUTSIDE_ROOT
        assert fs.read_text("/etc/hostname").status is FileStatus.PERMISSION_DENIED

    def test_scenario_51_binary_and_empty_query(self, fs: FilesystemRuntime, root: Path) -> None:
        """A NUL byte is ``type_mismatch``; an empty query is ``invalid_request`` (not a path status)."""
        (root / "bin.dat").write_bytes(b"text\x00more")
        assert fs.read_text("bin.dat").status is FileStatus.TYPE_MISMATCH
        assert fs.search_text("").status is FileStatus.INVALID_REQUEST

    def test_scenario_51_pre_cancelled_read(self, fs: FilesystemRuntime, root: Path) -> None:
        """A read cancelled before it starts is ``cancelled``."""
        (root / "a.txt").write_text("x")
        cancel = Cancellation()
        cancel.cancel()
        assert fs.read_text("a.txt", cancel=cancel).status is FileStatus.CANCELLED

    def test_scenario_51_symlink_component(self, fs: FilesystemRuntime) -> None:
        """A symlink anywhere in the path is ``permission_denied``, and nothing outside is read."""
        result = fs.read_text("link/secret.txt")
        assert result.status is FileStatus.PERMISSION_DENIED
        assert result.content is None

    def test_scenario_51_write_gates(self, root: Path) -> None:
        """The default policy refuses writes; an enabled write with no approver is ``approval_denied``."""
        assert FilesystemRuntime(FilesystemPolicy(root)).write_text("a.txt", "x").status is (
            FileStatus.PERMISSION_DENIED
        )
        unapproved = FilesystemRuntime(FilesystemPolicy(root, allow_write=True))
        assert unapproved.write_text("a.txt", "x").status is FileStatus.APPROVAL_DENIED
        raising = FilesystemRuntime(FilesystemPolicy(root, allow_write=True), approver=Raising())
        assert raising.write_text("a.txt", "x").status is FileStatus.APPROVAL_DENIED
        assert not (root / "a.txt").exists()

    def test_scenario_51_pre_cancel_asks_no_approval(self, root: Path) -> None:
        """A cancelled write is ``cancelled`` without asking the approver."""
        asked: list[EffectRequest] = []

        class Recording:
            def decide(self, request: EffectRequest) -> Verdict:
                asked.append(request)
                return Verdict.ALLOW

        runtime = FilesystemRuntime(FilesystemPolicy(root, allow_write=True), approver=Recording())
        cancel = Cancellation()
        cancel.cancel()
        assert runtime.write_text("a.txt", "x", cancel=cancel).status is FileStatus.CANCELLED
        assert asked == []
        assert runtime.write_text("a.txt", "x").ok
        assert [r.capability for r in asked] == ["filesystem.write"]

    def test_scenario_51_root_is_never_removed(self, fs: FilesystemRuntime, root: Path) -> None:
        """Removing ``.`` (the root, in any spelling) is ``permission_denied``."""
        for spelling in (".", "./", "a/..", "././."):
            assert fs.remove_path(spelling, recursive=True).status is FileStatus.PERMISSION_DENIED
        assert root.is_dir()

    def test_scenario_51_broken_backend_is_io_error(self, root: Path) -> None:
        """A backend failure (no descriptor left, in a child interpreter) is ``io_error``, audited."""
        (root / "a.txt").write_text("x")
        script = f"""
import resource, os
from llm_wire.toolkits.filesystem import FilesystemPolicy, FilesystemRuntime
from llm_wire.toolkits.governance import AuditLog
log = AuditLog()
runtime = FilesystemRuntime(FilesystemPolicy({str(root)!r}), audit=log)
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
held = []
try:
    while True:
        held.append(os.open("/dev/null", os.O_RDONLY))
except OSError:
    pass
os.close(held.pop())
result = runtime.read_text("a.txt")
finished = log.events[-1]
print(result.status.value, finished.kind.value, finished.status)
"""
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        assert run.stdout.split() == ["io_error", "operation_finished", "io_error"]

    def test_scenario_51_broken_audit_sink_is_ignored(self, root: Path) -> None:
        """A sink that raises does not change a finished write's result."""
        runtime = FilesystemRuntime(_policy(root), approver=ApproveAll(), audit=Raising())
        assert runtime.write_text("a.txt", "x").ok
        assert (root / "a.txt").read_text() == "x"


class TestOperations:
    """The operations' finer rules: search tallies, overwrite, existing paths, partial results."""

    def test_search_skips_and_counts(self, fs: FilesystemRuntime, root: Path) -> None:
        """Binary and oversized files are skipped and counted; folding is ASCII only."""
        (root / "bin.dat").write_bytes(b"Needle\x00")
        (root / "big.txt").write_text("needle " * 10)
        (root / "a.txt").write_text("NEEDLE and needle\n")
        limits = FilesystemLimits(max_search_file_bytes=32)
        runtime = FilesystemRuntime(FilesystemPolicy(root, limits=limits))
        result = runtime.search_text("needle", case_sensitive=False)
        assert [(m.path, m.column) for m in result.matches] == [("a.txt", 1), ("a.txt", 12)]
        assert (result.metadata["skipped_binary_files"], result.metadata["skipped_oversized_files"]) == (1, 1)

    def test_copy_and_move_overwrite_regular_files_only(self, fs: FilesystemRuntime, root: Path) -> None:
        fs.write_text("a.txt", "new")
        fs.write_text("b.txt", "old")
        fs.create_directory("d")
        assert fs.copy_path("a.txt", "b.txt").status is FileStatus.ALREADY_EXISTS
        assert fs.copy_path("a.txt", "b.txt", overwrite=True).ok
        assert (root / "b.txt").read_text() == "new"
        assert fs.move_path("a.txt", "d", overwrite=True).status is FileStatus.TYPE_MISMATCH
        assert fs.move_path("a.txt", "b.txt").status is FileStatus.ALREADY_EXISTS
        assert fs.move_path("a.txt", "b.txt", overwrite=True).ok
        assert not (root / "a.txt").exists()

    def test_existing_directories(self, fs: FilesystemRuntime) -> None:
        assert fs.create_directory("d").ok
        assert fs.create_directory("d").status is FileStatus.ALREADY_EXISTS
        assert fs.create_directory("d", exist_ok=True).ok
        fs.write_text("d/f.txt", "x")
        assert fs.remove_path("d").status is FileStatus.INVALID_REQUEST

    def test_remove_guarded_by_revision(self, fs: FilesystemRuntime, root: Path) -> None:
        first = fs.write_text("f.txt", "one").revision
        current = fs.write_text("f.txt", "two").revision
        assert fs.remove_path("f.txt", expected_revision=first).status is FileStatus.CONFLICT
        assert fs.remove_path("f.txt", expected_revision=current).ok
        assert not (root / "f.txt").exists()

    def test_failed_write_reports_created_parents(self, fs: FilesystemRuntime, root: Path) -> None:
        """A write that fails after creating its parents says so: ``partial`` and the parents flag."""
        revision = "sha256:" + "0" * 64
        result = fs.write_text("t/u/s.txt", "x", create_parents=True, expected_revision=revision)
        assert result.status is FileStatus.CONFLICT
        assert (result.metadata["partial"], result.metadata["parent_directories_created"]) == (True, True)
        assert (root / "t" / "u").is_dir()
        assert not (root / "t" / "u" / "s.txt").exists()


class TestLimits:
    """Every result is bounded; 0 means the policy maximum."""

    def test_read_is_cut_at_a_character(self, root: Path) -> None:
        """A read past ``max_bytes`` is cut at a UTF-8 boundary, truncated, with no revision."""
        (root / "a.txt").write_text("ééééé")
        runtime = FilesystemRuntime(FilesystemPolicy(root))
        result = runtime.read_text("a.txt", max_bytes=5)
        assert (result.content, result.truncated, result.revision) == ("éé", True, None)

    def test_zero_means_the_policy_maximum(self, root: Path) -> None:
        """``max_entries=0`` is the policy's ``max_directory_entries``; a larger request is clamped."""
        for i in range(5):
            (root / f"f{i}").write_text("")
        runtime = FilesystemRuntime(FilesystemPolicy(root, limits=FilesystemLimits(max_directory_entries=3)))
        for requested in (0, 100):
            listing = runtime.list_directory(max_entries=requested)
            assert (len(listing.entries), listing.truncated) == (3, True)

    def test_write_over_the_limit(self, root: Path) -> None:
        """Content over ``max_write_bytes`` is ``limit_exceeded`` and nothing is written."""
        policy = _policy(root, limits=FilesystemLimits(max_write_bytes=4))
        result = FilesystemRuntime(policy, approver=ApproveAll()).write_text("a.txt", "12345")
        assert result.status is FileStatus.LIMIT_EXCEEDED
        assert not (root / "a.txt").exists()

    def test_recursive_remove_over_the_entry_bound_removes_nothing(self, root: Path) -> None:
        """A tree larger than ``max_directory_entries`` is refused before anything is removed."""
        (root / "t").mkdir()
        for i in range(4):
            (root / "t" / f"f{i}").write_text("")
        policy = _policy(root, limits=FilesystemLimits(max_directory_entries=3))
        result = FilesystemRuntime(policy, approver=ApproveAll()).remove_path("t", recursive=True)
        assert result.status is FileStatus.LIMIT_EXCEEDED
        assert len(list((root / "t").iterdir())) == 4


def _deep_tree(root: Path, name: str, depth: int) -> None:
    """``name/d/.../d/leaf.txt``, ``depth`` directories deep (made from descriptors: no long path)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in [name, *["d"] * (depth - 1)]:
            os.mkdir(part, dir_fd=fd)
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        leaf = os.open("leaf.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(leaf, b"bottom")
        os.close(leaf)
    finally:
        os.close(fd)


def _bottom(root: Path, name: str, depth: int) -> bytes:
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in [name, *["d"] * (depth - 1)]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        leaf = os.open("leaf.txt", os.O_RDONLY, dir_fd=fd)
        try:
            return os.read(leaf, 100)
        finally:
            os.close(leaf)
    finally:
        os.close(fd)


class TestDeepTrees:
    """
    A tree deeper than Python's recursion limit (a model can make one): walked by a stack, with one or two
    descriptors held per level, so every walk stops at ``FilesystemLimits.max_depth``.
    """

    DEPTH = 1500

    @pytest.fixture(autouse=True)
    def _remove_what_is_left(self, root: Path) -> Iterator[None]:
        """A tree this deep left in the temporary folder breaks pytest's own (recursive) clean-up later."""
        yield
        limits = FilesystemLimits(max_directory_entries=4 * self.DEPTH, max_depth=self.DEPTH)
        runtime = FilesystemRuntime(_policy(root, limits=limits), approver=ApproveAll())
        for name in ("deep", "copy", "shallow", "shallow-copy"):
            if (root / name).exists():
                assert runtime.remove_path(name, recursive=True).status is FileStatus.OK

    def test_copy_and_remove_a_deep_tree(self, root: Path, log: AuditLog) -> None:
        """With ``max_depth`` raised, ``copy_path`` and ``remove_path`` walk a stack: done, and audited."""
        _deep_tree(root, "deep", self.DEPTH)
        policy = _policy(root, limits=FilesystemLimits(max_depth=self.DEPTH))
        fs = FilesystemRuntime(policy, approver=ApproveAll(), audit=log)
        copied = fs.copy_path("deep", "copy", recursive=True)
        assert (copied.status, copied.affected_items) == (FileStatus.OK, self.DEPTH + 1)
        assert copied.bytes_processed == len(b"bottom")
        assert _bottom(root, "copy", self.DEPTH) == b"bottom"
        for name in ("deep", "copy"):
            removed = fs.remove_path(name, recursive=True)
            assert (removed.status, removed.affected_items) == (FileStatus.OK, self.DEPTH + 1)
            assert not (root / name).exists()
        finished = [e for e in log.events if e.kind is AuditKind.OPERATION_FINISHED]
        assert [(e.operation, e.status) for e in finished] == [
            ("copy_path", "ok"),
            ("remove_path", "ok"),
            ("remove_path", "ok"),
        ]

    def test_the_default_depth_refuses_a_deep_tree_and_leaves_it_whole(
        self, fs: FilesystemRuntime, root: Path, log: AuditLog
    ) -> None:
        """Past ``max_depth`` copy and remove are ``limit_exceeded`` naming it, before any effect, audited."""
        _deep_tree(root, "deep", self.DEPTH)
        copied = fs.copy_path("deep", "copy", recursive=True)
        removed = fs.remove_path("deep", recursive=True)
        for result in (copied, removed):
            assert (result.status, result.affected_items) == (FileStatus.LIMIT_EXCEEDED, 0)
            assert result.error is not None
            assert "FilesystemLimits.max_depth" in result.error
            assert "partial" not in result.metadata
        assert not (root / "copy").exists()
        assert _bottom(root, "deep", self.DEPTH) == b"bottom"
        finished = [e for e in log.events if e.kind is AuditKind.OPERATION_FINISHED]
        assert [(e.operation, e.status) for e in finished] == [
            ("copy_path", "limit_exceeded"),
            ("remove_path", "limit_exceeded"),
        ]

    def test_max_depth_counts_the_top_directory(self, root: Path) -> None:
        """A tree of exactly ``max_depth`` levels is copied and removed; one level more is refused."""
        _deep_tree(root, "shallow", 8)
        at = FilesystemRuntime(_policy(root, limits=FilesystemLimits(max_depth=8)), approver=ApproveAll())
        under = FilesystemRuntime(_policy(root, limits=FilesystemLimits(max_depth=7)), approver=ApproveAll())
        assert under.copy_path("shallow", "shallow-copy", recursive=True).status is FileStatus.LIMIT_EXCEEDED
        assert at.copy_path("shallow", "shallow-copy", recursive=True).ok
        assert under.remove_path("shallow-copy", recursive=True).status is FileStatus.LIMIT_EXCEEDED
        assert at.remove_path("shallow-copy", recursive=True).ok

    def test_every_walk_holds_descriptors_within_max_depth(self, root: Path) -> None:
        """
        With only ``2 * max_depth`` (and a few) descriptors left to the process, every walk of a 1,500-deep
        tree ends typed with no descriptor shortage, and a copy of a tree ``max_depth`` deep succeeds.
        """
        _deep_tree(root, "deep", self.DEPTH)
        _deep_tree(root, "shallow", 64)
        script = f"""
import os, resource
from llm_wire.toolkits.filesystem import FilesystemLimits, FilesystemPolicy, FilesystemRuntime
from llm_wire.toolkits.governance import ApproveAll
limits = FilesystemLimits(max_search_depth=10_000)
policy = FilesystemPolicy({str(root)!r}, allow_copy=True, allow_remove=True, limits=limits)
fs = FilesystemRuntime(policy, approver=ApproveAll())
held = max(int(fd) for fd in os.listdir("/proc/self/fd")) + 1  # every descriptor open now is below
resource.setrlimit(resource.RLIMIT_NOFILE, (held + 2 * 64 + 8, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
for result in (
    fs.list_directory("deep", recursive=True),
    fs.glob_files("**/leaf.txt", path="deep"),
    fs.search_text("bottom", path="deep"),
    fs.copy_path("deep", "copy", recursive=True),
    fs.remove_path("deep", recursive=True),
    fs.copy_path("shallow", "shallow-copy", recursive=True),
):
    print(result.operation, result.status.value, result.truncated)
"""
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        assert run.stdout.splitlines() == [
            "list_directory ok True",
            "glob_files ok True",
            "search_text ok True",
            "copy_path limit_exceeded False",
            "remove_path limit_exceeded False",
            "copy_path ok False",
        ]
        assert not (root / "copy").exists()
        assert _bottom(root, "shallow-copy", 64) == b"bottom"

    def test_a_deep_tree_over_the_entry_bound_is_refused(self, root: Path) -> None:
        """The entry bound still holds on a deep tree: refused before anything is copied or removed."""
        _deep_tree(root, "deep", self.DEPTH)
        limits = FilesystemLimits(max_directory_entries=1000, max_depth=self.DEPTH)
        runtime = FilesystemRuntime(_policy(root, limits=limits), approver=ApproveAll())
        assert runtime.copy_path("deep", "copy", recursive=True).status is FileStatus.LIMIT_EXCEEDED
        assert not (root / "copy").exists()
        assert runtime.remove_path("deep", recursive=True).status is FileStatus.LIMIT_EXCEEDED
        assert _bottom(root, "deep", self.DEPTH) == b"bottom"


class TestSpecialFiles:
    """Device files, FIFOs and non-directories in the way are refused without being opened."""

    def test_fifo_is_refused_without_blocking(self, fs: FilesystemRuntime, root: Path) -> None:
        """Reading a FIFO is refused (it would block forever if it were opened)."""
        os.mkfifo(root / "pipe")
        assert fs.read_text("pipe").status is FileStatus.PERMISSION_DENIED
        assert fs.write_text("pipe", "x").status is FileStatus.PERMISSION_DENIED

    def test_file_as_a_directory(self, fs: FilesystemRuntime) -> None:
        """A file used as a directory component is ``type_mismatch``."""
        fs.write_text("f", "x")
        assert fs.read_text("f/g").status is FileStatus.TYPE_MISMATCH

    def test_a_bad_root_raises_at_construction(self, tmp_path: Path) -> None:
        """A root that is not an existing directory is a ``ConfigurationError``."""
        with pytest.raises(ConfigurationError, match="root"):
            FilesystemRuntime(FilesystemPolicy(tmp_path / "missing"))

    def test_wrong_python_type_names_the_parameter(self, fs: FilesystemRuntime, root: Path) -> None:
        """A wrong Python type is a ``TypeError`` naming the parameter (or the policy setting)."""
        with pytest.raises(TypeError, match="allow_write"):
            FilesystemPolicy(root, allow_write="yes")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="path"):
            fs.read_text(b"a.txt")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="create_new"):
            fs.write_text("a.txt", "x", create_new=1)  # type: ignore[arg-type]


#: Path pieces that try to leave the root: climbs, links, Unicode look-alikes, absolute and odd separators.
PIECES = st.sampled_from(
    [
        "..",
        ".",
        "",
        "link",
        "flip",
        "sub",
        "secret.txt",
        "..\u2215secret.txt",  # division slash
        "\uff0e\uff0e",  # fullwidth dots
        "\u2024\u2024",  # one-dot leaders
        "%2e%2e",
        "..\\..",
        "\u202e..",
        "outside",
        "\ud800",
        "/",
        "//",
        "a\x00b",
    ]
)
PATHS = st.builds(
    lambda lead, parts, trail: lead + "/".join(parts) + trail,
    st.sampled_from(["", "/", "./", "//", "/proc/self/root/"]),
    st.lists(PIECES, max_size=6),
    st.sampled_from(["", "/", "/.", "//"]),
)


def _tree_of(path: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file() and not p.is_symlink()}


class TestContainmentProperty:
    """No generated path reaches outside the root, even with links swapped in and out during the calls."""

    @settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(path=PATHS, other=PATHS)
    @example(path="link/secret.txt", other="flip/secret.txt")
    @example(path="flip/secret.txt", other="flip/planted.txt")
    @example(path="sub/../../outside/secret.txt", other="/proc/self/root/etc")
    @example(path="link", other="flip")
    def test_no_path_escapes(self, tmp_path: Path, path: str, other: str) -> None:
        base = tmp_path / "world"
        if not base.exists():
            (base / "outside").mkdir(parents=True)
            (base / "outside" / "secret.txt").write_text(SECRET)
            (base / "root" / "sub").mkdir(parents=True)
            (base / "root" / "link").symlink_to(base / "outside")
        outside_before = _tree_of(base / "outside")
        runtime = FilesystemRuntime(_policy(base / "root"), approver=ApproveAll())
        flip = base / "root" / "flip"
        stop = threading.Event()

        def flipper() -> None:
            # ``flip`` alternates between a real directory and a link to the outside while the calls run.
            while not stop.is_set():
                try:
                    flip.symlink_to(base / "outside")
                    flip.unlink()
                    flip.mkdir()
                    flip.rmdir()
                except OSError:
                    pass

        thread = threading.Thread(target=flipper)
        thread.start()
        try:
            results: list[FileResult] = [
                runtime.read_text(path),
                runtime.file_info(path, include_revision=True),
                runtime.list_directory(path, recursive=True),
                runtime.search_text("secret", path=path),
                runtime.glob_files("**", path=path),
                runtime.write_text(path, "planted", create_parents=True),
                runtime.copy_path(path, other, recursive=True),
                runtime.move_path(other, path, recursive=True),
                runtime.remove_path(other, recursive=True),
            ]
        finally:
            stop.set()
            thread.join()
        for result in results:
            assert SECRET not in repr(result.to_plain())
            for shown in (result.path, result.destination, *(e.path for e in result.entries)):
                assert shown is None or (not shown.startswith(("/", "../")) and shown != "..")
        assert _tree_of(base / "outside") == outside_before
        assert sorted(p.name for p in (base / "outside").iterdir()) == ["secret.txt"]
        for leftover in (base / "root").iterdir():
            if leftover.name not in ("sub", "link", "flip"):
                subprocess.run(["rm", "-rf", str(leftover)], check=True)


class TestAcrossProcesses:
    """The revision check and its write are one critical section across processes too (``flock``)."""

    def test_one_winner_among_processes(self, root: Path) -> None:
        base = FilesystemRuntime(_policy(root), approver=ApproveAll()).write_text("race.txt", "base").revision
        (root / "go").mkdir()
        script = f"""
import os, sys, time
from llm_wire.toolkits.filesystem import FilesystemPolicy, FilesystemRuntime
from llm_wire.toolkits.governance import ApproveAll
runtime = FilesystemRuntime(FilesystemPolicy({str(root)!r}, allow_write=True), approver=ApproveAll())
while os.path.isdir({str(root / "go")!r}):
    time.sleep(0.001)
print(runtime.write_text("race.txt", "writer " + sys.argv[1], expected_revision={base!r}).status.value)
"""
        writers = [
            subprocess.Popen([sys.executable, "-c", script, str(i)], stdout=subprocess.PIPE, text=True)
            for i in range(4)
        ]
        (root / "go").rmdir()
        statuses = sorted(writer.communicate(timeout=60)[0].strip() for writer in writers)
        assert statuses == ["conflict", "conflict", "conflict", "ok"]


class TestConcurrencyProperty:
    """Concurrent writes with one expected revision give exactly one success, across runtime instances."""

    @settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(writers=st.integers(min_value=2, max_value=5))
    def test_one_winner(self, root: Path, writers: int) -> None:
        first = FilesystemRuntime(_policy(root), approver=ApproveAll())
        second = FilesystemRuntime(_policy(root), approver=ApproveAll())
        base = first.write_text("race.txt", "base").revision
        statuses = _race(first, second, base, writers)
        assert statuses.count(FileStatus.OK) == 1
        assert statuses.count(FileStatus.CONFLICT) == writers - 1
        final = first.read_text("race.txt")
        assert final.content is not None
        assert final.content.startswith("writer ")
