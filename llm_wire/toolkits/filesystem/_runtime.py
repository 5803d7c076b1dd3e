"""
``FilesystemRuntime``: the frame every filesystem operation runs in (argument types, policy switch,
approval, the root's descriptor and lock, cancellation, audit events, and the ``FileResult``); the
operations' effects are ``_reading``'s and ``_writing``'s.
"""

from __future__ import annotations

import copy as copy_module
import enum
import fcntl
import os
import stat
import uuid
from collections.abc import Callable, Mapping

from llm_wire.agent import Risk
from llm_wire.toolkits._common import caller_metadata
from llm_wire.toolkits.filesystem import _reading as reading
from llm_wire.toolkits.filesystem import _writing as writing
from llm_wire.toolkits.filesystem._core import (
    FileStatus,
    Refusal,
    classify_os_error,
    open_root,
    render,
    split_path,
)
from llm_wire.toolkits.filesystem._reading import Act
from llm_wire.toolkits.filesystem._records import (
    RESERVED_METADATA,
    FileResult,
    FilesystemPolicy,
    OperationOutcome,
)
from llm_wire.toolkits.governance import (
    AuditEvent,
    AuditKind,
    AuditSink,
    CancelSignal,
    ConfigurationError,
    EffectApprover,
    EffectRequest,
    _ask,
    _check_cancel,
    _emit,
    _Metadata,
    _MetadataValue,
)

__all__ = ["FilesystemRuntime"]


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
        act: Act,
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
        meta: dict[str, _MetadataValue] = {**caller, **out.metadata}
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
        details: dict[str, _MetadataValue] = {
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
        details: Mapping[str, _MetadataValue] | None = None,
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
        metadata: _Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """
        The UTF-8 text of a file, at most ``max_bytes`` (0: the policy maximum); a longer file is cut at a
        character boundary and ``truncated``, with no revision. Binary content is ``type_mismatch``.
        """
        path, limit = _text("path", path), _count("max_bytes", max_bytes)
        act = reading.read_text(self.policy.limits, path, limit)
        return self._perform(
            "read_text", _Gate.READ, metadata=metadata, cancel=cancel, prepare=self._one_path(path), act=act
        )

    def file_info(
        self,
        path: str,
        *,
        include_revision: bool = False,
        metadata: _Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """The type and size of a path, and with ``include_revision`` a file's revision."""
        path, with_revision = _text("path", path), _flag("include_revision", include_revision)
        act = reading.file_info(self.policy.limits, path, with_revision)
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
        metadata: _Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """The entries of a directory, sorted; ``recursive`` walks ``max_depth`` levels."""
        path, deep = _text("path", path), _flag("recursive", recursive)
        depth, count = _count("max_depth", max_depth), _count("max_entries", max_entries)
        act = reading.list_directory(self.policy.limits, path, deep, depth, count)
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
        metadata: _Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """Entries under ``path`` whose path below it matches ``pattern`` (``**`` spans directories)."""
        pattern, path, count = (
            _text("pattern", pattern),
            _text("path", path),
            _count("max_results", max_results),
        )
        act = reading.glob_files(self.policy.limits, pattern, path, count)
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
        metadata: _Metadata | None = None,
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
        act = reading.search_text(self.policy.limits, query, path, exact, results, output)
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
        metadata: _Metadata | None = None,
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
        act = writing.write_text(self.policy.limits, path, content, new, parents, expected)
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
        metadata: _Metadata | None = None,
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
        act = writing.replace_text(self.policy.limits, path, old, new, expected_count, every, expected)
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
        metadata: _Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """Create a directory (with ``parents``, its missing parents); else ``already_exists``."""
        path, with_parents, tolerate = (
            _text("path", path),
            _flag("parents", parents),
            _flag("exist_ok", exist_ok),
        )
        act = writing.create_directory(path, with_parents, tolerate)
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
        metadata: _Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """
        Copy a file, or with ``recursive`` a directory tree, after validating the whole plan (no link or
        special file, entry, byte and depth bounds). ``overwrite`` replaces a regular file only. On failure
        the result reports what was done and ``partial``.
        """
        source, destination = _text("source", source), _text("destination", destination)
        deep, replace = _flag("recursive", recursive), _flag("overwrite", overwrite)
        act = writing.copy_path(self.policy.limits, source, destination, deep, replace)
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
        metadata: _Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> FileResult:
        """
        Move (rename) a path inside the root; a directory needs ``recursive``. ``overwrite`` replaces a
        regular file only; otherwise an existing destination is never replaced.
        """
        source, destination = _text("source", source), _text("destination", destination)
        deep, replace = _flag("recursive", recursive), _flag("overwrite", overwrite)
        act = writing.move_path(source, destination, deep, replace)
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
        metadata: _Metadata | None = None,
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

        act = writing.remove_path(self.policy.limits, path, deep, expected)
        return self._perform(
            "remove_path", _Gate.REMOVE, metadata=metadata, cancel=cancel, prepare=prepare, act=act
        )

    # -- helpers -----------------------------------------------------------------------------------------

    def _pair(self, source: str, destination: str) -> Callable[[OperationOutcome], tuple[str, ...]]:
        def prepare(out: OperationOutcome) -> tuple[str, ...]:
            src, dst = writing.two_paths(source, destination)
            out.path, out.destination = render(src), render(dst)
            return (out.path, out.destination)

        return prepare
