"""
The governed filesystem toolkit: read, write, list, search, copy, move and remove inside one root.

``FilesystemRuntime(FilesystemPolicy(root=...))`` performs each operation itself, with the policy enforced at
the moment of the effect: every path is root-relative (no absolute path, no ``..`` out of the root, no symlink
component, no device file), every result is bounded, mutations are off until enabled and approval-gated when
on, writes are atomic (temp file, fsync, rename) and carry ``sha256:`` revisions for optimistic concurrency.
Every operation returns a ``FileResult`` whose ``status`` says how it ended (no exception escapes on any
input) and ends with one ``operation_finished`` audit event.

Mutations under one root are serialized by an exclusive ``flock`` on the root directory, so a revision check
and its write are one critical section across threads and across processes that use this runtime; writers
that do not take the lock are not serialized. The local backend is Linux: it relies on ``O_PATH`` and
``/proc/self/fd``.
"""

from __future__ import annotations

import contextlib
import copy as copy_module
import enum
import fcntl
import os
import stat
import uuid
from collections.abc import Callable, Generator, Iterator, Mapping
from functools import partial

from llm_wire._public import rehome
from llm_wire.toolkits import _fs_tree as tree
from llm_wire.toolkits._common import caller_metadata, clamp
from llm_wire.toolkits._fs_core import (
    EntryType,
    FileStatus,
    Refusal,
    classify_os_error,
    decode_text,
    encode_text,
    kind_of,
    open_regular,
    open_root,
    read_bounded,
    rename_noreplace,
    render,
    revision_of,
    split_path,
    walk_dirs,
    write_atomic,
)
from llm_wire.toolkits._fs_records import (
    RESERVED_METADATA,
    Entry,
    FileResult,
    FilesystemLimits,
    FilesystemPolicy,
    Match,
    OperationOutcome,
)
from llm_wire.toolkits._fs_search import Search
from llm_wire.toolkits.governance import (
    AuditEvent,
    AuditKind,
    AuditSink,
    CancelSignal,
    ConfigurationError,
    EffectApprover,
    EffectRequest,
    Metadata,
    MetadataValue,
    Risk,
    _ask,
    _check_cancel,
    _emit,
)

__all__ = [
    "FileStatus",
    "EntryType",
    "FilesystemLimits",
    "FilesystemPolicy",
    "Entry",
    "Match",
    "FileResult",
    "FilesystemRuntime",
    "RESERVED_METADATA",
]

rehome(
    __name__,
    ["FileStatus", "EntryType", "FilesystemLimits", "FilesystemPolicy", "Entry", "Match", "FileResult"],
    globals(),
)


class _Gate(enum.Enum):
    """Which policy switch and approval flag an operation falls under."""

    READ = "read"
    WRITE = "write"
    CREATE_DIRECTORY = "create_directory"
    COPY = "copy"
    MOVE = "move"
    REMOVE = "remove"


def _text(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str")
    return value


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool")
    return value


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int")
    return value


def _optional_text(name: str, value: object) -> str | None:
    return None if value is None else _text(name, value)


def _clamp(name: str, requested: int, maximum: int) -> int:
    return clamp(name, requested, maximum, partial(Refusal, FileStatus.INVALID_REQUEST))


class FilesystemRuntime:
    """
    Performs filesystem operations under one policy. ``approver`` decides approval-gated operations (none:
    they are denied), ``audit`` receives every event. Raises ``ConfigurationError`` when the root is not an
    existing directory.
    """

    def __init__(
        self,
        policy: FilesystemPolicy,
        *,
        approver: EffectApprover | None = None,
        audit: AuditSink | None = None,
    ) -> None:
        if not isinstance(policy, FilesystemPolicy):
            raise TypeError("policy must be a FilesystemPolicy")
        root = os.path.realpath(policy.root)
        try:
            info = os.stat(root)
        except OSError:
            raise ConfigurationError("FilesystemPolicy.root must be an existing directory") from None
        if not stat.S_ISDIR(info.st_mode):
            raise ConfigurationError("FilesystemPolicy.root must be an existing directory")
        self.policy = policy
        self.root = root
        self._identity = (info.st_dev, info.st_ino)
        self._approver = approver
        self._audit = audit

    def __repr__(self) -> str:
        return "<FilesystemRuntime>"

    def with_approver(self, approver: EffectApprover | None) -> FilesystemRuntime:
        """The same runtime (policy, root, audit) asking ``approver`` instead."""
        copy = copy_module.copy(self)
        copy._approver = approver
        return copy

    # -- the shared frame of every operation -------------------------------------------------------------

    def _allowed(self, gate: _Gate) -> tuple[bool, bool]:
        """Whether the policy enables ``gate``, and whether it needs approval."""
        p = self.policy
        match gate:
            case _Gate.READ:
                return p.allow_read, False
            case _Gate.WRITE:
                return p.allow_write, p.require_approval_for_write
            case _Gate.CREATE_DIRECTORY:
                return p.allow_create_directory, p.require_approval_for_write
            case _Gate.COPY:
                return p.allow_copy, p.require_approval_for_write
            case _Gate.MOVE:
                return p.allow_move, p.require_approval_for_move
            case _Gate.REMOVE:
                return p.allow_remove, p.require_approval_for_remove

    def _perform(
        self,
        operation: str,
        gate: _Gate,
        *,
        metadata: object,
        cancel: CancelSignal | None,
        prepare: Callable[[OperationOutcome], tuple[str, ...]],
        act: Callable[[int, OperationOutcome, Callable[[], None]], None],
    ) -> FileResult:
        cancel = _check_cancel(cancel)
        caller = caller_metadata(metadata, RESERVED_METADATA, ("skipped_",))
        operation_id = uuid.uuid4().hex
        out = OperationOutcome()
        resources: tuple[str, ...] = ()

        def check() -> None:
            if cancel is not None and cancel.cancelled:
                raise Refusal(FileStatus.CANCELLED, "the operation was cancelled")

        status, error = FileStatus.OK, None
        try:
            check()
            enabled, needs_approval = self._allowed(gate)
            if not enabled:
                raise Refusal(FileStatus.PERMISSION_DENIED, f"{gate.value} operations are disabled by policy")
            resources = prepare(out)
            self._event(AuditKind.POLICY_EVALUATED, operation, operation_id, resources)
            if needs_approval:
                self._approve(operation, operation_id, resources)
            check()
            root_fd = open_root(self.root, self._identity)
            try:
                if gate is not _Gate.READ:
                    fcntl.flock(root_fd, fcntl.LOCK_EX)
                act(root_fd, out, check)
            finally:
                os.close(root_fd)
        except Refusal as refusal:
            status, error = refusal.status, refusal.message
        except OSError as exc:
            mapped = classify_os_error(exc)
            status, error = mapped.status, mapped.message
        meta: dict[str, MetadataValue] = {**caller, **out.metadata}
        meta["operation_id"] = operation_id
        meta["operation"] = operation
        result = FileResult(
            status=status,
            operation=operation,
            path=out.path,
            destination=out.destination,
            revision=out.revision if status is FileStatus.OK else None,
            bytes_processed=out.bytes,
            affected_items=out.items,
            truncated=out.truncated,
            content=out.content if status is FileStatus.OK else None,
            entries=tuple(out.entries),
            matches=tuple(out.matches),
            metadata=meta,
            error=error,
        )
        details: dict[str, MetadataValue] = {
            "bytes_processed": result.bytes_processed,
            "affected_items": result.affected_items,
            "truncated": result.truncated,
        }
        if "partial" in out.metadata:
            details["partial"] = out.metadata["partial"]
        self._event(
            AuditKind.OPERATION_FINISHED, operation, operation_id, resources, status.value, error, details
        )
        return result

    def _event(
        self,
        kind: AuditKind,
        operation: str,
        operation_id: str,
        resources: tuple[str, ...],
        status: str | None = None,
        error: str | None = None,
        details: Mapping[str, MetadataValue] | None = None,
    ) -> None:
        event = AuditEvent(
            kind, "filesystem", operation, operation_id, resources, status, error, details or {}
        )
        _emit(self._audit, event)

    def _approve(self, operation: str, operation_id: str, resources: tuple[str, ...]) -> None:
        request = EffectRequest("filesystem.write", Risk.HIGH, operation, operation_id, resources)
        if _ask(self._approver, request):
            self._event(AuditKind.APPROVAL_APPROVED, operation, operation_id, resources)
            return
        self._event(AuditKind.APPROVAL_DENIED, operation, operation_id, resources)
        raise Refusal(FileStatus.APPROVAL_DENIED, "the operation needs approval and was not approved")

    def _one_path(self, path: str) -> Callable[[OperationOutcome], tuple[str, ...]]:
        def prepare(out: OperationOutcome) -> tuple[str, ...]:
            out.path = render(split_path(path))
            return (out.path,)

        return prepare

    # -- reading -------------------------------------------------------------------------------------

    def read_text(
        self,
        path: str,
        *,
        max_bytes: int = 0,
        metadata: Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """
        The UTF-8 text of a file, at most ``max_bytes`` (0: the policy maximum); a longer file is cut at a
        character boundary and ``truncated``, with no revision. Binary content is ``type_mismatch``.
        """
        path, limit = _text("path", path), _count("max_bytes", max_bytes)

        def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
            bound = _clamp("max_bytes", limit, self.policy.limits.max_read_bytes)
            fd, info = self._open_file(root, split_path(path))
            try:
                data, more = read_bounded(fd, bound)
            finally:
                os.close(fd)
            out.content = decode_text(data, cut=more)
            out.bytes = len(out.content.encode("utf-8"))
            out.truncated = more
            out.revision = None if more else revision_of(data)
            out.metadata["size"] = info.st_size

        return self._perform(
            "read_text", _Gate.READ, metadata=metadata, cancel=cancel, prepare=self._one_path(path), act=act
        )

    def file_info(
        self,
        path: str,
        *,
        include_revision: bool = False,
        metadata: Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """The type and size of a path, and with ``include_revision`` a file's revision."""
        path, with_revision = _text("path", path), _flag("include_revision", include_revision)

        def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
            parts = split_path(path)
            parent, _ = walk_dirs(root, parts[:-1])
            try:
                if not parts:
                    kind = EntryType.DIRECTORY
                    size = os.fstat(parent).st_size
                else:
                    found = kind_of(parent, parts[-1])
                    if found is EntryType.SYMLINK:
                        raise Refusal(FileStatus.PERMISSION_DENIED, "symbolic links are disabled by policy")
                    if found is None:
                        raise Refusal(FileStatus.NOT_FOUND, "the path does not exist")
                    kind = found
                    size = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False).st_size
                out.metadata["type"] = kind.value
                out.metadata["size"] = size
                if with_revision and kind is EntryType.FILE:
                    out.revision = self._revision(parent, parts[-1])
            finally:
                os.close(parent)

        return self._perform(
            "file_info", _Gate.READ, metadata=metadata, cancel=cancel, prepare=self._one_path(path), act=act
        )

    def list_directory(
        self,
        path: str = ".",
        *,
        recursive: bool = False,
        max_depth: int = 0,
        max_entries: int = 0,
        metadata: Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """The entries of a directory, sorted; ``recursive`` walks ``max_depth`` levels."""
        path, deep = _text("path", path), _flag("recursive", recursive)
        depth, count = _count("max_depth", max_depth), _count("max_entries", max_entries)

        def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
            limits = self.policy.limits
            levels = _clamp("max_depth", depth, limits.max_search_depth) if deep else 1
            bound = _clamp("max_entries", count, limits.max_directory_entries)
            parts = split_path(path)
            with self._walk(root, parts, levels, bound, check) as (budget, nodes):
                for node, _ in nodes:
                    out.entries.append(Entry(render((*parts, *node.parts)), node.type, node.size))
            out.items = len(out.entries)
            out.truncated = budget.cut or (deep and budget.depth_cut)

        return self._perform(
            "list_directory",
            _Gate.READ,
            metadata=metadata,
            cancel=cancel,
            prepare=self._one_path(path),
            act=act,
        )

    def glob_files(
        self,
        pattern: str,
        *,
        path: str = ".",
        max_results: int = 0,
        metadata: Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """Entries under ``path`` whose path below it matches ``pattern`` (``**`` spans directories)."""
        pattern, path, count = (
            _text("pattern", pattern),
            _text("path", path),
            _count("max_results", max_results),
        )

        def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
            limits = self.policy.limits
            segments = tree.check_pattern(pattern, limits.max_pattern_bytes)
            bound = _clamp("max_results", count, limits.max_search_results)
            parts = split_path(path)
            with self._walk(root, parts, limits.max_search_depth, limits.max_directory_entries, check) as (
                budget,
                nodes,
            ):
                for node, _ in nodes:
                    if tree.glob_matches(segments, node.parts):
                        if len(out.entries) >= bound:
                            out.truncated = True
                            break
                        out.entries.append(Entry(render((*parts, *node.parts)), node.type, node.size))
            out.items = len(out.entries)
            if budget.cut or budget.depth_cut:
                out.truncated = True
                out.metadata["file_enumeration_truncated"] = True

        return self._perform(
            "glob_files", _Gate.READ, metadata=metadata, cancel=cancel, prepare=self._one_path(path), act=act
        )

    def search_text(
        self,
        query: str,
        *,
        path: str = ".",
        case_sensitive: bool = True,
        max_results: int = 0,
        max_output_bytes: int = 0,
        metadata: Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """
        Lines holding the literal ``query`` (ASCII case folding unless ``case_sensitive``) in the files under
        ``path``. Binary and oversized files are skipped and counted; result, byte and output budgets set
        ``truncated`` (``output_limit_reached`` in the metadata for the output budget).
        """
        query, path = _text("query", query), _text("path", path)
        exact = _flag("case_sensitive", case_sensitive)
        results, output = _count("max_results", max_results), _count("max_output_bytes", max_output_bytes)

        def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
            limits = self.policy.limits
            if query == "":
                raise Refusal(FileStatus.INVALID_REQUEST, "the query is empty")
            needle = encode_text(query)
            if len(needle) > limits.max_pattern_bytes:
                raise Refusal(
                    FileStatus.LIMIT_EXCEEDED, f"the query is longer than {limits.max_pattern_bytes} bytes"
                )
            search = Search(
                needle if exact else needle.lower(),
                exact,
                _clamp("max_results", results, limits.max_search_results),
                _clamp("max_output_bytes", output, limits.max_search_output_bytes),
                limits,
                out,
            )
            parts = split_path(path)
            parent, _ = walk_dirs(root, parts[:-1])
            try:
                if parts and kind_of(parent, parts[-1]) is EntryType.FILE:
                    search.file(parent, parts[-1], render(parts), check)
                else:
                    depth, entries = limits.max_search_depth, limits.max_directory_entries
                    with self._walk(root, parts, depth, entries, check) as (budget, nodes):
                        for node, dir_fd in nodes:
                            if node.type is EntryType.FILE and not search.file(
                                dir_fd, node.parts[-1], render((*parts, *node.parts)), check
                            ):
                                break
                    if budget.cut or budget.depth_cut:
                        out.truncated = True
                        out.metadata["file_enumeration_truncated"] = True
            finally:
                os.close(parent)
            out.items = len(out.matches)
            out.metadata.update(search.counts())

        return self._perform(
            "search_text", _Gate.READ, metadata=metadata, cancel=cancel, prepare=self._one_path(path), act=act
        )

    # -- writing ---------------------------------------------------------------------------------------

    def write_text(
        self,
        path: str,
        content: str,
        *,
        create_new: bool = False,
        expected_revision: str | None = None,
        create_parents: bool = False,
        metadata: Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """
        Write UTF-8 ``content`` atomically. ``create_new`` never overwrites (``already_exists``);
        ``expected_revision`` must equal the file's current revision (else ``conflict``, also for a missing
        file). Never writes through a symlink or onto a non-regular file.
        """
        path, content = _text("path", path), _text("content", content)
        new, parents = _flag("create_new", create_new), _flag("create_parents", create_parents)
        expected = _optional_text("expected_revision", expected_revision)

        def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
            data = encode_text(content)
            if len(data) > self.policy.limits.max_write_bytes:
                bound = self.policy.limits.max_write_bytes
                raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the content is larger than {bound} bytes")
            if new and expected is not None:
                raise Refusal(
                    FileStatus.INVALID_REQUEST, "create_new and expected_revision exclude each other"
                )
            parts = self._file_parts(path)
            parent, created = walk_dirs(root, parts[:-1], create=parents)
            try:
                self._write(parent, parts[-1], data, out, new=new, expected=expected)
            except Refusal:
                if created:
                    out.metadata["partial"] = True
                    out.metadata["parent_directories_created"] = True
                raise
            finally:
                os.close(parent)
            if created:
                out.metadata["parent_directories_created"] = True

        return self._perform(
            "write_text", _Gate.WRITE, metadata=metadata, cancel=cancel, prepare=self._one_path(path), act=act
        )

    def replace_text(
        self,
        path: str,
        old: str,
        new: str,
        *,
        expected_replacements: int = 1,
        replace_all: bool = False,
        expected_revision: str | None = None,
        metadata: Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """
        Replace ``old`` by ``new`` in a file: the occurrence count must equal ``expected_replacements`` unless
        ``replace_all``; none at all, or another count, is a ``conflict``. The write is atomic.
        """
        path, old, new = _text("path", path), _text("old", old), _text("new", new)
        expected_count = _count("expected_replacements", expected_replacements)
        every = _flag("replace_all", replace_all)
        expected = _optional_text("expected_revision", expected_revision)

        def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
            if old == "":
                raise Refusal(FileStatus.INVALID_REQUEST, "the text to replace is empty")
            if expected_count < 1:
                raise Refusal(FileStatus.INVALID_REQUEST, "expected_replacements must be at least 1")
            encode_text(old)
            replacement = encode_text(new).decode("utf-8")
            parts = self._file_parts(path)
            parent, _ = walk_dirs(root, parts[:-1])
            try:
                text, revision, mode = self._read_whole(parent, parts[-1])
                if expected is not None and expected != revision:
                    raise Refusal(FileStatus.CONFLICT, "the file's revision is not expected_revision")
                found = text.count(old)
                if found == 0:
                    raise Refusal(FileStatus.CONFLICT, "the text to replace does not occur in the file")
                if not every and found != expected_count:
                    raise Refusal(
                        FileStatus.CONFLICT,
                        f"the text occurs {found} times, not expected_replacements; make it unique",
                    )
                data = text.replace(old, replacement).encode("utf-8")
                if len(data) > self.policy.limits.max_write_bytes:
                    bound = self.policy.limits.max_write_bytes
                    raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the result is larger than {bound} bytes")
                write_atomic(parent, parts[-1], data, mode=mode, replace=True)
            finally:
                os.close(parent)
            out.revision = revision_of(data)
            out.bytes = len(data)
            out.items = found

        return self._perform(
            "replace_text",
            _Gate.WRITE,
            metadata=metadata,
            cancel=cancel,
            prepare=self._one_path(path),
            act=act,
        )

    def create_directory(
        self,
        path: str,
        *,
        parents: bool = False,
        exist_ok: bool = False,
        metadata: Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """Create a directory (with ``parents``, its missing parents); else ``already_exists``."""
        path, with_parents, tolerate = (
            _text("path", path),
            _flag("parents", parents),
            _flag("exist_ok", exist_ok),
        )

        def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
            parts = self._file_parts(path)
            parent, created = walk_dirs(root, parts[:-1], create=with_parents)
            try:
                kind = kind_of(parent, parts[-1])
                if kind is EntryType.DIRECTORY and tolerate:
                    return
                if kind is not None:
                    raise Refusal(FileStatus.ALREADY_EXISTS, "the path already exists")
                os.mkdir(parts[-1], 0o777, dir_fd=parent)
                out.items = 1
            finally:
                os.close(parent)
            if created:
                out.metadata["parent_directories_created"] = True

        return self._perform(
            "create_directory",
            _Gate.CREATE_DIRECTORY,
            metadata=metadata,
            cancel=cancel,
            prepare=self._one_path(path),
            act=act,
        )

    def copy_path(
        self,
        source: str,
        destination: str,
        *,
        recursive: bool = False,
        overwrite: bool = False,
        metadata: Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """
        Copy a file, or with ``recursive`` a directory tree, after validating the whole plan (no link or
        special file, entry, byte and depth bounds). ``overwrite`` replaces a regular file only. On failure
        the result reports what was done and ``partial``.
        """
        source, destination = _text("source", source), _text("destination", destination)
        deep, replace = _flag("recursive", recursive), _flag("overwrite", overwrite)

        def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
            src, dst = self._two_paths(source, destination)
            limits = self.policy.limits
            src_dir, _ = walk_dirs(root, src[:-1])
            try:
                dst_dir, _ = walk_dirs(root, dst[:-1])
                try:
                    plan = tree.plan_copy(
                        src_dir,
                        src[-1],
                        max_entries=limits.max_directory_entries,
                        max_bytes=limits.max_copy_bytes,
                        max_depth=limits.max_depth,
                        check=check,
                    )
                    if plan[0].type is EntryType.DIRECTORY and not deep:
                        raise Refusal(FileStatus.INVALID_REQUEST, "copying a directory needs recursive=true")
                    existing = kind_of(dst_dir, dst[-1])
                    if existing is EntryType.SYMLINK:
                        raise Refusal(FileStatus.PERMISSION_DENIED, "symbolic links are disabled by policy")
                    if existing is not None and not (
                        replace and existing is EntryType.FILE and plan[0].type is EntryType.FILE
                    ):
                        raise Refusal(FileStatus.ALREADY_EXISTS, "the destination already exists")
                    progress = tree.CopyProgress()
                    try:
                        tree.copy_plan(
                            plan,
                            src_dir,
                            src[-1],
                            dst_dir,
                            dst[-1],
                            replace=existing is not None,
                            progress=progress,
                            check=check,
                        )
                    finally:
                        out.items, out.bytes = progress.items, progress.bytes
                        if progress.items and progress.items < len(plan):
                            out.metadata["partial"] = True
                    out.metadata["destination_created"] = existing is None
                finally:
                    os.close(dst_dir)
            finally:
                os.close(src_dir)

        return self._perform(
            "copy_path",
            _Gate.COPY,
            metadata=metadata,
            cancel=cancel,
            prepare=self._pair(source, destination),
            act=act,
        )

    def move_path(
        self,
        source: str,
        destination: str,
        *,
        recursive: bool = False,
        overwrite: bool = False,
        metadata: Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """
        Move (rename) a path inside the root; a directory needs ``recursive``. ``overwrite`` replaces a
        regular file only; otherwise an existing destination is never replaced.
        """
        source, destination = _text("source", source), _text("destination", destination)
        deep, replace = _flag("recursive", recursive), _flag("overwrite", overwrite)

        def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
            src, dst = self._two_paths(source, destination)
            src_dir, _ = walk_dirs(root, src[:-1])
            try:
                dst_dir, _ = walk_dirs(root, dst[:-1])
                try:
                    kind = kind_of(src_dir, src[-1])
                    if kind is None:
                        raise Refusal(FileStatus.NOT_FOUND, "the source does not exist")
                    if kind is EntryType.SYMLINK:
                        raise Refusal(FileStatus.PERMISSION_DENIED, "symbolic links are disabled by policy")
                    if kind is EntryType.OTHER:
                        raise Refusal(
                            FileStatus.PERMISSION_DENIED, "device files, FIFOs and sockets are disabled"
                        )
                    if kind is EntryType.DIRECTORY and not deep:
                        raise Refusal(FileStatus.INVALID_REQUEST, "moving a directory needs recursive=true")
                    existing = kind_of(dst_dir, dst[-1])
                    if existing is not None and replace:
                        if existing is not EntryType.FILE or kind is not EntryType.FILE:
                            raise Refusal(FileStatus.TYPE_MISMATCH, "overwrite replaces a regular file only")
                        os.replace(src[-1], dst[-1], src_dir_fd=src_dir, dst_dir_fd=dst_dir)
                    else:
                        rename_noreplace(src_dir, src[-1], dst_dir, dst[-1])
                    os.fsync(dst_dir)
                    out.items = 1
                finally:
                    os.close(dst_dir)
            finally:
                os.close(src_dir)

        return self._perform(
            "move_path",
            _Gate.MOVE,
            metadata=metadata,
            cancel=cancel,
            prepare=self._pair(source, destination),
            act=act,
        )

    def remove_path(
        self,
        path: str,
        *,
        recursive: bool = False,
        expected_revision: str | None = None,
        metadata: Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """
        Remove a file, an empty directory, or with ``recursive`` a tree (bounded entries and depth, links
        unlinked and never followed). ``expected_revision`` guards a file. The root itself can never be
        removed.
        """
        path, deep = _text("path", path), _flag("recursive", recursive)
        expected = _optional_text("expected_revision", expected_revision)

        def prepare(out: OperationOutcome) -> tuple[str, ...]:
            parts = split_path(path)
            if not parts:
                raise Refusal(FileStatus.PERMISSION_DENIED, "the root itself can never be removed")
            out.path = render(parts)
            return (out.path,)

        def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
            parts = split_path(path)
            parent, _ = walk_dirs(root, parts[:-1])
            try:
                kind = kind_of(parent, parts[-1])
                if kind is None:
                    raise Refusal(FileStatus.NOT_FOUND, "the path does not exist")
                if kind is EntryType.SYMLINK:
                    raise Refusal(FileStatus.PERMISSION_DENIED, "symbolic links are disabled by policy")
                if kind is not EntryType.DIRECTORY:
                    if expected is not None and self._revision(parent, parts[-1]) != expected:
                        raise Refusal(FileStatus.CONFLICT, "the file's revision is not expected_revision")
                    os.unlink(parts[-1], dir_fd=parent)
                    out.items = 1
                    return
                if expected is not None:
                    raise Refusal(FileStatus.INVALID_REQUEST, "expected_revision applies to files only")
                if not deep:
                    os.rmdir(parts[-1], dir_fd=parent)
                    out.items = 1
                    return
                entries, depth = self.policy.limits.max_directory_entries, self.policy.limits.max_depth
                child, _ = walk_dirs(parent, parts[-1:])
                try:
                    tree.count_tree(child, max_entries=entries, max_depth=depth, check=check)
                finally:
                    os.close(child)
                removed = [0]
                try:
                    tree.remove_tree(parent, parts[-1], removed=removed, max_depth=depth, check=check)
                finally:
                    out.items = removed[0]
                    if removed[0] and kind_of(parent, parts[-1]) is not None:
                        out.metadata["partial"] = True
            finally:
                os.close(parent)

        return self._perform(
            "remove_path", _Gate.REMOVE, metadata=metadata, cancel=cancel, prepare=prepare, act=act
        )

    # -- helpers -----------------------------------------------------------------------------------------

    def _pair(self, source: str, destination: str) -> Callable[[OperationOutcome], tuple[str, ...]]:
        def prepare(out: OperationOutcome) -> tuple[str, ...]:
            src, dst = self._two_paths(source, destination)
            out.path, out.destination = render(src), render(dst)
            return (out.path, out.destination)

        return prepare

    @staticmethod
    def _two_paths(source: str, destination: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        src, dst = split_path(source), split_path(destination)
        if not src or not dst:
            raise Refusal(FileStatus.INVALID_PATH, "the root itself cannot be copied, moved or replaced")
        if dst[: len(src)] == src:
            raise Refusal(FileStatus.INVALID_PATH, "the destination is the source or inside it")
        return src, dst

    @staticmethod
    def _file_parts(path: str) -> tuple[str, ...]:
        parts = split_path(path)
        if not parts:
            raise Refusal(FileStatus.TYPE_MISMATCH, "the root is a directory, not a file")
        return parts

    def _open_file(self, root: int, parts: tuple[str, ...]) -> tuple[int, os.stat_result]:
        if not parts:
            raise Refusal(FileStatus.TYPE_MISMATCH, "the path is a directory, not a file")
        parent, _ = walk_dirs(root, parts[:-1])
        try:
            return open_regular(parent, parts[-1])
        finally:
            os.close(parent)

    def _read_whole(self, dir_fd: int, name: str) -> tuple[str, str, int]:
        """A whole text file (bounded by ``max_read_bytes``), its revision and permission bits."""
        fd, info = open_regular(dir_fd, name)
        try:
            data, more = read_bounded(fd, self.policy.limits.max_read_bytes)
        finally:
            os.close(fd)
        if more:
            bound = self.policy.limits.max_read_bytes
            raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the file is larger than {bound} bytes")
        return decode_text(data, cut=False), revision_of(data), stat.S_IMODE(info.st_mode)

    def _revision(self, dir_fd: int, name: str) -> str:
        fd, _ = open_regular(dir_fd, name)
        try:
            data, more = read_bounded(fd, self.policy.limits.max_read_bytes)
        finally:
            os.close(fd)
        if more:
            bound = self.policy.limits.max_read_bytes
            raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the file is larger than {bound} bytes to hash")
        return revision_of(data)

    def _write(
        self, parent: int, name: str, data: bytes, out: OperationOutcome, *, new: bool, expected: str | None
    ) -> None:
        kind = kind_of(parent, name)
        mode: int | None = None
        if kind is EntryType.SYMLINK:
            raise Refusal(FileStatus.PERMISSION_DENIED, "symbolic links are disabled by policy")
        if kind is EntryType.DIRECTORY:
            raise Refusal(FileStatus.TYPE_MISMATCH, "the path is a directory, not a file")
        if kind is EntryType.OTHER:
            raise Refusal(
                FileStatus.PERMISSION_DENIED, "device files, FIFOs and sockets are disabled by policy"
            )
        if kind is EntryType.FILE:
            if new:
                raise Refusal(FileStatus.ALREADY_EXISTS, "the file already exists and create_new is set")
            if expected is not None and self._revision(parent, name) != expected:
                raise Refusal(FileStatus.CONFLICT, "the file's revision is not expected_revision")
            mode = stat.S_IMODE(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
        elif expected is not None:
            raise Refusal(FileStatus.CONFLICT, "expected_revision was given but the file does not exist")
        write_atomic(parent, name, data, mode=mode, replace=not new)
        out.revision = revision_of(data)
        out.bytes = len(data)
        out.items = 1
        out.metadata["destination_created"] = kind is None

    @contextlib.contextmanager
    def _walk(
        self, root: int, parts: tuple[str, ...], depth: int, entries: int, check: Callable[[], None]
    ) -> Iterator[tuple[tree.WalkBudget, Generator[tuple[tree.TreeNode, int], None, None]]]:
        start, _ = walk_dirs(root, parts)
        budget = tree.WalkBudget(check=check)
        levels = min(depth, self.policy.limits.max_depth)
        nodes = tree.iter_tree(start, max_depth=levels, max_entries=entries, budget=budget)
        try:
            yield budget, nodes
        finally:
            nodes.close()
            os.close(start)
