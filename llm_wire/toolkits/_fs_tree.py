"""
Bounded, descriptor-relative tree walks for the filesystem toolkit: listing, globbing, copy and removal.

Every subdirectory is entered with ``descend`` (``O_NOFOLLOW``) from its parent's descriptor, so a walk never
leaves the tree it started in, whatever is renamed or swapped while it runs. Symlinks are reported as entries
and never followed.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable, Generator

from attrs import define, field, frozen

from llm_wire.toolkits._fs_core import (
    EntryType,
    FileStatus,
    Refusal,
    descend,
    open_regular,
    read_bounded,
    write_atomic,
)

__all__ = [
    "TreeNode",
    "WalkBudget",
    "iter_tree",
    "glob_matches",
    "check_pattern",
    "plan_copy",
    "CopyProgress",
    "copy_node",
    "count_tree",
    "remove_tree",
]


@frozen
class TreeNode:
    """One entry of a walk: its parts below the walk's base, type, size (files) and children (copy plans)."""

    parts: tuple[str, ...]
    type: EntryType
    size: int | None
    children: tuple[TreeNode, ...] = ()


@define
class WalkBudget:
    """Counts a walk spends, and whether a bound cut it short."""

    entries: int = 0
    cut: bool = False
    depth_cut: bool = False
    check: Callable[[], None] = field(default=lambda: None)


def _scan(dir_fd: int, limit: int, budget: WalkBudget) -> list[os.DirEntry[str]]:
    """At most ``limit`` entries of ``dir_fd`` sorted by name; a longer directory marks the budget cut."""
    found: list[os.DirEntry[str]] = []
    with os.scandir(dir_fd) as scan:
        for entry in scan:
            if len(found) >= limit:
                budget.cut = True
                break
            found.append(entry)
    found.sort(key=lambda e: e.name)
    return found


def _entry_type(entry: os.DirEntry[str]) -> EntryType:
    if entry.is_symlink():
        return EntryType.SYMLINK
    if entry.is_dir(follow_symlinks=False):
        return EntryType.DIRECTORY
    if entry.is_file(follow_symlinks=False):
        return EntryType.FILE
    return EntryType.OTHER


def iter_tree(
    dir_fd: int, *, max_depth: int, max_entries: int, budget: WalkBudget, prefix: tuple[str, ...] = ()
) -> Generator[tuple[TreeNode, int], None, None]:
    """
    Entries under ``dir_fd`` in sorted pre-order with the descriptor of their directory, down to ``max_depth``
    levels and at most ``max_entries`` in all (the budget records a cut).
    """
    for entry in _scan(dir_fd, max_entries - budget.entries, budget):
        budget.check()
        if budget.entries >= max_entries:
            budget.cut = True
            return
        kind = _entry_type(entry)
        size = entry.stat(follow_symlinks=False).st_size if kind is EntryType.FILE else None
        budget.entries += 1
        parts = (*prefix, entry.name)
        yield TreeNode(parts, kind, size), dir_fd
        if kind is EntryType.DIRECTORY:
            if max_depth <= 1:
                budget.depth_cut = True
                continue
            child = descend(dir_fd, entry.name)
            try:
                yield from iter_tree(
                    child, max_depth=max_depth - 1, max_entries=max_entries, budget=budget, prefix=parts
                )
            finally:
                os.close(child)


def check_pattern(pattern: str, max_bytes: int) -> tuple[str, ...]:
    """The segments of a glob pattern; raises ``Refusal(INVALID_REQUEST)`` for an unusable one."""
    if pattern == "":
        raise Refusal(FileStatus.INVALID_REQUEST, "the pattern is empty")
    if len(pattern.encode("utf-8", "surrogatepass")) > max_bytes:
        raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the pattern is longer than {max_bytes} bytes")
    if "\x00" in pattern or pattern.startswith("/"):
        raise Refusal(FileStatus.INVALID_REQUEST, "the pattern must be a relative pattern without NUL")
    segments = tuple(s for s in pattern.split("/") if s not in ("", "."))
    if ".." in segments or not segments:
        raise Refusal(FileStatus.INVALID_REQUEST, "the pattern may not climb out with '..'")
    return segments


def glob_matches(segments: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Whether ``parts`` match the pattern ``segments``; ``**`` spans any number of directories."""
    # ``reach[j]``: the first ``i`` pattern segments can match the first ``j`` parts.
    reach = [True] + [False] * len(parts)
    for segment in segments:
        if segment == "**":
            seen = False
            for j in range(len(reach)):
                seen = seen or reach[j]
                reach[j] = seen
        else:
            reach = [False] + [reach[j] and fnmatch.fnmatchcase(parts[j], segment) for j in range(len(parts))]
    return reach[-1]


def plan_copy(
    dir_fd: int, name: str, *, max_entries: int, max_bytes: int, check: Callable[[], None]
) -> TreeNode:
    """
    The whole tree at ``name`` as a plan, validated before anything is copied: no symlink or special file,
    at most ``max_entries`` entries and ``max_bytes`` bytes (``Refusal`` otherwise).
    """
    counts = [0, 0]

    def visit(parent: int, entry_name: str, parts: tuple[str, ...]) -> TreeNode:
        check()
        mode = os.stat(entry_name, dir_fd=parent, follow_symlinks=False).st_mode
        counts[0] += 1
        if counts[0] > max_entries:
            raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the copy has more than {max_entries} entries")
        if stat.S_ISLNK(mode):
            raise Refusal(
                FileStatus.PERMISSION_DENIED, "the source holds a symbolic link; links are disabled"
            )
        if stat.S_ISREG(mode):
            size = os.stat(entry_name, dir_fd=parent, follow_symlinks=False).st_size
            counts[1] += size
            if counts[1] > max_bytes:
                raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the copy is larger than {max_bytes} bytes")
            return TreeNode(parts, EntryType.FILE, size)
        if not stat.S_ISDIR(mode):
            raise Refusal(FileStatus.PERMISSION_DENIED, "the source holds a device file, FIFO or socket")
        child = descend(parent, entry_name)
        try:
            with os.scandir(child) as scan:
                names = sorted(e.name for e in scan)
            kids = tuple(visit(child, n, (*parts, n)) for n in names)
        finally:
            os.close(child)
        return TreeNode(parts, EntryType.DIRECTORY, None, kids)

    return visit(dir_fd, name, ())


@define
class CopyProgress:
    """What a copy has done so far: reported even when it stops part way."""

    items: int = 0
    bytes: int = 0


def copy_node(
    node: TreeNode,
    src_dir: int,
    src_name: str,
    dst_dir: int,
    dst_name: str,
    *,
    replace: bool,
    progress: CopyProgress,
    check: Callable[[], None],
) -> None:
    """
    Copy the planned ``node`` from ``src_name`` in ``src_dir`` to ``dst_name`` in ``dst_dir``; each step opens
    its source and destination again without following links, so a swap since planning refuses.
    """
    check()
    if node.type is EntryType.FILE:
        fd, info = open_regular(src_dir, src_name)
        try:
            data, more = read_bounded(fd, node.size or 0)
        finally:
            os.close(fd)
        if more:
            raise Refusal(FileStatus.CONFLICT, "a source file grew while it was copied")
        write_atomic(dst_dir, dst_name, data, mode=stat.S_IMODE(info.st_mode), replace=replace)
        progress.items += 1
        progress.bytes += len(data)
        return
    os.mkdir(dst_name, 0o777, dir_fd=dst_dir)
    progress.items += 1
    src_child = descend(src_dir, src_name)
    try:
        dst_child = descend(dst_dir, dst_name)
        try:
            for kid in node.children:
                name = kid.parts[-1]
                copy_node(
                    kid, src_child, name, dst_child, name, replace=False, progress=progress, check=check
                )
        finally:
            os.close(dst_child)
    finally:
        os.close(src_child)


def count_tree(dir_fd: int, *, max_entries: int, check: Callable[[], None]) -> int:
    """The entries under ``dir_fd`` (links not followed); ``Refusal(LIMIT_EXCEEDED)`` past ``max_entries``."""
    budget = WalkBudget(check=check)
    for _ in iter_tree(dir_fd, max_depth=1 << 30, max_entries=max_entries, budget=budget):
        pass
    if budget.cut:
        raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the tree has more than {max_entries} entries")
    return budget.entries


def remove_tree(parent: int, name: str, *, removed: list[int], check: Callable[[], None]) -> None:
    """
    Remove the directory ``name`` and everything in it; links are unlinked, never followed. ``removed[0]``
    counts the entries gone, even when it stops part way.
    """
    check()
    child = descend(parent, name)
    try:
        with os.scandir(child) as scan:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in scan]
        for entry_name, is_dir in entries:
            if is_dir:
                remove_tree(child, entry_name, removed=removed, check=check)
            else:
                check()
                os.unlink(entry_name, dir_fd=child)
                removed[0] += 1
    finally:
        os.close(child)
    os.rmdir(name, dir_fd=parent)
    removed[0] += 1
