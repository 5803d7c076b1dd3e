"""
The filesystem toolkit's reading operations, each the ``Act`` its runtime performs inside the operation's
frame (policy, approval, the root's descriptor, audit): read, inspect, list, glob and search, and the
bounded reads the writing operations share.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Generator, Iterator
from functools import partial
from typing import TypeAlias

from llm_wire.toolkits._common import clamp
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
    render,
    revision_of,
    split_path,
    walk_dirs,
)
from llm_wire.toolkits.filesystem._records import Entry, FilesystemLimits, OperationOutcome
from llm_wire.toolkits.filesystem._search import Search

__all__ = [
    "Act",
    "file_info",
    "glob_files",
    "list_directory",
    "open_file",
    "read_text",
    "revision",
    "search_text",
]

#: An operation's effect: the root's descriptor, the outcome it fills in, and the cancellation check.
Act: TypeAlias = Callable[[int, OperationOutcome, Callable[[], None]], None]


def _clamp(name: str, requested: int, maximum: int) -> int:
    return clamp(name, requested, maximum, partial(Refusal, FileStatus.INVALID_REQUEST))


def read_text(limits: FilesystemLimits, path: str, limit: int) -> Act:
    """Read a file's text, at most ``limit`` bytes (0: the policy maximum)."""

    def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
        bound = _clamp("max_bytes", limit, limits.max_read_bytes)
        fd, info = open_file(root, split_path(path))
        try:
            data, more = read_bounded(fd, bound)
        finally:
            os.close(fd)
        out.content = decode_text(data, cut=more)
        out.bytes = len(out.content.encode("utf-8"))
        out.truncated = more
        out.revision = None if more else revision_of(data)
        out.metadata["size"] = info.st_size

    return act


def file_info(limits: FilesystemLimits, path: str, with_revision: bool) -> Act:
    """The type and size of a path, and a file's revision when asked."""

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
                out.revision = revision(limits, parent, parts[-1])
        finally:
            os.close(parent)

    return act


def list_directory(limits: FilesystemLimits, path: str, deep: bool, depth: int, count: int) -> Act:
    """The entries of a directory, sorted; ``deep`` walks ``depth`` levels."""

    def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
        levels = _clamp("max_depth", depth, limits.max_search_depth) if deep else 1
        bound = _clamp("max_entries", count, limits.max_directory_entries)
        parts = split_path(path)
        with _walk(limits, root, parts, levels, bound, check) as (budget, nodes):
            for node, _ in nodes:
                out.entries.append(Entry(render((*parts, *node.parts)), node.type, node.size))
        out.items = len(out.entries)
        out.truncated = budget.cut or (deep and budget.depth_cut)

    return act


def glob_files(limits: FilesystemLimits, pattern: str, path: str, count: int) -> Act:
    """Entries under ``path`` whose path below it matches ``pattern``."""

    def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
        segments = tree.check_pattern(pattern, limits.max_pattern_bytes)
        bound = _clamp("max_results", count, limits.max_search_results)
        parts = split_path(path)
        with _walk(limits, root, parts, limits.max_search_depth, limits.max_directory_entries, check) as (
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

    return act


def search_text(
    limits: FilesystemLimits, query: str, path: str, exact: bool, results: int, output: int
) -> Act:
    """Lines holding the literal ``query`` in the files under ``path``."""

    def act(root: int, out: OperationOutcome, check: Callable[[], None]) -> None:
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
                with _walk(limits, root, parts, depth, entries, check) as (budget, nodes):
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

    return act


def open_file(root: int, parts: tuple[str, ...]) -> tuple[int, os.stat_result]:
    """A regular file's descriptor (the caller closes it) and its ``fstat``."""
    if not parts:
        raise Refusal(FileStatus.TYPE_MISMATCH, "the path is a directory, not a file")
    parent, _ = walk_dirs(root, parts[:-1])
    try:
        return open_regular(parent, parts[-1])
    finally:
        os.close(parent)


def revision(limits: FilesystemLimits, dir_fd: int, name: str) -> str:
    """A file's revision, read whole within ``max_read_bytes``."""
    fd, _ = open_regular(dir_fd, name)
    try:
        data, more = read_bounded(fd, limits.max_read_bytes)
    finally:
        os.close(fd)
    if more:
        bound = limits.max_read_bytes
        raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the file is larger than {bound} bytes to hash")
    return revision_of(data)


@contextlib.contextmanager
def _walk(
    limits: FilesystemLimits,
    root: int,
    parts: tuple[str, ...],
    depth: int,
    entries: int,
    check: Callable[[], None],
) -> Iterator[tuple[tree.WalkBudget, Generator[tuple[tree.TreeNode, int], None, None]]]:
    start, _ = walk_dirs(root, parts)
    budget = tree.WalkBudget(check=check)
    levels = min(depth, limits.max_depth)
    nodes = tree.iter_tree(start, max_depth=levels, max_entries=entries, budget=budget)
    try:
        yield budget, nodes
    finally:
        nodes.close()
        os.close(start)
