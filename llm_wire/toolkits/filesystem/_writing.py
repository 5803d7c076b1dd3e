"""
The filesystem toolkit's mutations, each the ``Act`` its runtime performs inside the operation's frame
(policy, approval, the root's lock and descriptor, audit): write, replace, create a directory, copy, move and
remove. A refusal part-way reports what was done (``partial``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from llm_wire.toolkits.filesystem import _tree as tree
from llm_wire.toolkits.filesystem._core import (
    EntryType,
    FileStatus,
    Refusal,
    decode_text,
    encode_text,
    kind_of,
    open_regular,
    read_bounded,
    rename_noreplace,
    revision_of,
    split_path,
    walk_dirs,
    write_atomic,
)
from llm_wire.toolkits.filesystem._reading import Act, revision
from llm_wire.toolkits.filesystem._records import FilesystemLimits, OperationOutcome

__all__ = [
    "copy_path",
    "create_directory",
    "move_path",
    "remove_path",
    "replace_text",
    "two_paths",
    "write_text",
]


def write_text(
    limits: FilesystemLimits, path: str, content: str, new: bool, parents: bool, expected: str | None
) -> Act:
    """Write ``content`` atomically (``new``: never overwrite; ``expected``: the current revision)."""

    def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
        data = encode_text(content)
        if len(data) > limits.max_write_bytes:
            bound = limits.max_write_bytes
            raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the content is larger than {bound} bytes")
        if new and expected is not None:
            raise Refusal(FileStatus.INVALID_REQUEST, "create_new and expected_revision exclude each other")
        parts = _file_parts(path)
        parent, created = walk_dirs(root, parts[:-1], create=parents)
        try:
            _write(limits, parent, parts[-1], data, out, new=new, expected=expected)
        except Refusal:
            if created:
                out.metadata["partial"] = True
                out.metadata["parent_directories_created"] = True
            raise
        finally:
            os.close(parent)
        if created:
            out.metadata["parent_directories_created"] = True

    return act


def replace_text(
    limits: FilesystemLimits,
    path: str,
    old: str,
    new: str,
    expected_count: int,
    every: bool,
    expected: str | None,
) -> Act:
    """Replace ``old`` by ``new``: ``expected_count`` occurrences unless ``every``."""

    def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
        if old == "":
            raise Refusal(FileStatus.INVALID_REQUEST, "the text to replace is empty")
        if expected_count < 1:
            raise Refusal(FileStatus.INVALID_REQUEST, "expected_replacements must be at least 1")
        encode_text(old)
        replacement = encode_text(new).decode("utf-8")
        parts = _file_parts(path)
        parent, _ = walk_dirs(root, parts[:-1])
        try:
            text, current, mode = _read_whole(limits, parent, parts[-1])
            if expected is not None and expected != current:
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
            if len(data) > limits.max_write_bytes:
                bound = limits.max_write_bytes
                raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the result is larger than {bound} bytes")
            write_atomic(parent, parts[-1], data, mode=mode, replace=True)
        finally:
            os.close(parent)
        out.revision = revision_of(data)
        out.bytes = len(data)
        out.items = found

    return act


def create_directory(path: str, with_parents: bool, tolerate: bool) -> Act:
    """Create a directory (``with_parents``: its missing parents; ``tolerate``: one that exists)."""

    def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
        parts = _file_parts(path)
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

    return act


def copy_path(limits: FilesystemLimits, source: str, destination: str, deep: bool, replace: bool) -> Act:
    """Copy a file, or with ``deep`` a tree, after validating the whole plan."""

    def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
        src, dst = two_paths(source, destination)
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

    return act


def move_path(source: str, destination: str, deep: bool, replace: bool) -> Act:
    """Move (rename) a path inside the root; ``replace`` overwrites a regular file only."""

    def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
        src, dst = two_paths(source, destination)
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

    return act


def remove_path(limits: FilesystemLimits, path: str, deep: bool, expected: str | None) -> Act:
    """Remove a file, an empty directory, or with ``deep`` a bounded tree."""

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
                if expected is not None and revision(limits, parent, parts[-1]) != expected:
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
            entries, depth = limits.max_directory_entries, limits.max_depth
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

    return act


def two_paths(source: str, destination: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A copy's or move's source and destination, neither the root nor the destination inside the source."""
    src, dst = split_path(source), split_path(destination)
    if not src or not dst:
        raise Refusal(FileStatus.INVALID_PATH, "the root itself cannot be copied, moved or replaced")
    if dst[: len(src)] == src:
        raise Refusal(FileStatus.INVALID_PATH, "the destination is the source or inside it")
    return src, dst


def _file_parts(path: str) -> tuple[str, ...]:
    parts = split_path(path)
    if not parts:
        raise Refusal(FileStatus.TYPE_MISMATCH, "the root is a directory, not a file")
    return parts


def _read_whole(limits: FilesystemLimits, dir_fd: int, name: str) -> tuple[str, str, int]:
    """A whole text file (bounded by ``max_read_bytes``), its revision and permission bits."""
    fd, info = open_regular(dir_fd, name)
    try:
        data, more = read_bounded(fd, limits.max_read_bytes)
    finally:
        os.close(fd)
    if more:
        bound = limits.max_read_bytes
        raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the file is larger than {bound} bytes")
    return decode_text(data, cut=False), revision_of(data), stat.S_IMODE(info.st_mode)


def _write(
    limits: FilesystemLimits,
    parent: int,
    name: str,
    data: bytes,
    out: OperationOutcome,
    *,
    new: bool,
    expected: str | None,
) -> None:
    kind = kind_of(parent, name)
    mode: int | None = None
    if kind is EntryType.SYMLINK:
        raise Refusal(FileStatus.PERMISSION_DENIED, "symbolic links are disabled by policy")
    if kind is EntryType.DIRECTORY:
        raise Refusal(FileStatus.TYPE_MISMATCH, "the path is a directory, not a file")
    if kind is EntryType.OTHER:
        raise Refusal(FileStatus.PERMISSION_DENIED, "device files, FIFOs and sockets are disabled by policy")
    if kind is EntryType.FILE:
        if new:
            raise Refusal(FileStatus.ALREADY_EXISTS, "the file already exists and create_new is set")
        if expected is not None and revision(limits, parent, name) != expected:
            raise Refusal(FileStatus.CONFLICT, "the file's revision is not expected_revision")
        mode = stat.S_IMODE(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    elif expected is not None:
        raise Refusal(FileStatus.CONFLICT, "expected_revision was given but the file does not exist")
    write_atomic(parent, name, data, mode=mode, replace=not new)
    out.revision = revision_of(data)
    out.bytes = len(data)
    out.items = 1
    out.metadata["destination_created"] = kind is None
