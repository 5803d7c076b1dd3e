"""
Bounded, descriptor-relative tree walks for the filesystem toolkit: listing, globbing, copy and removal.

Every subdirectory is entered with ``descend`` (``O_NOFOLLOW``) from its parent's descriptor, so a walk never
leaves the tree it started in, whatever is renamed or swapped while it runs. Symlinks are reported as entries
and never followed. A walk holds the descriptors of the directories it is in, so every walk has a depth bound.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable, Generator, Iterator

from attrs import define, field, frozen

from llm_wire.toolkits.filesystem._core import (
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
    "copy_plan",
    "count_tree",
    "remove_tree",
]


def _too_deep(max_depth: int) -> Refusal:
    return Refusal(
        FileStatus.LIMIT_EXCEEDED, f"the tree is deeper than FilesystemLimits.max_depth ({max_depth} levels)"
    )


@frozen
class TreeNode:
    """One entry of a walk: its parts below the walk's base, type, and size (files)."""

    parts: tuple[str, ...]
    type: EntryType
    size: int | None


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
    levels and at most ``max_entries`` in all (the budget records a cut). The walk keeps a stack, not a
    recursion: a tree as deep as its entries allow is walked (a model may make one).
    """
    # One frame per directory entered: its descriptor, its parts, its entries left, the levels below it.
    frames = [(dir_fd, prefix, iter(_scan(dir_fd, max_entries - budget.entries, budget)), max_depth)]
    try:
        while frames:
            fd, base, pending, levels = frames[-1]
            entry = next(pending, None)
            if entry is None:
                frames.pop()
                if fd != dir_fd:
                    os.close(fd)
                continue
            budget.check()
            if budget.entries >= max_entries:
                budget.cut = True
                return
            kind = _entry_type(entry)
            size = entry.stat(follow_symlinks=False).st_size if kind is EntryType.FILE else None
            budget.entries += 1
            parts = (*base, entry.name)
            yield TreeNode(parts, kind, size), fd
            if kind is EntryType.DIRECTORY:
                if levels <= 1:
                    budget.depth_cut = True
                    continue
                child = descend(fd, entry.name)
                try:
                    listed = _scan(child, max_entries - budget.entries, budget)
                except BaseException:
                    os.close(child)
                    raise
                frames.append((child, parts, iter(listed), levels - 1))
    finally:
        for fd, *_ in frames:
            if fd != dir_fd:
                os.close(fd)


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
    dir_fd: int, name: str, *, max_entries: int, max_bytes: int, max_depth: int, check: Callable[[], None]
) -> tuple[TreeNode, ...]:
    """
    The whole tree at ``name`` as a plan in sorted pre-order (``name`` itself first, with no parts), validated
    before anything is copied: no symlink or special file, at most ``max_entries`` entries, ``max_bytes``
    bytes and ``max_depth`` directory levels, ``name`` counted (``Refusal`` otherwise).
    """
    check()
    info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode):
        raise Refusal(FileStatus.PERMISSION_DENIED, _LINK_IN_SOURCE)
    if stat.S_ISREG(info.st_mode):
        _check_bytes(info.st_size, max_bytes)
        return (TreeNode((), EntryType.FILE, info.st_size),)
    if not stat.S_ISDIR(info.st_mode):
        raise Refusal(FileStatus.PERMISSION_DENIED, _SPECIAL_IN_SOURCE)
    plan = [TreeNode((), EntryType.DIRECTORY, None)]
    total = 0
    budget = WalkBudget(check=check)
    child = descend(dir_fd, name)
    try:
        for node, _ in iter_tree(child, max_depth=max_depth, max_entries=max_entries - 1, budget=budget):
            if budget.depth_cut:
                raise _too_deep(max_depth)
            if node.type is EntryType.SYMLINK:
                raise Refusal(FileStatus.PERMISSION_DENIED, _LINK_IN_SOURCE)
            if node.type is EntryType.OTHER:
                raise Refusal(FileStatus.PERMISSION_DENIED, _SPECIAL_IN_SOURCE)
            total += node.size or 0
            _check_bytes(total, max_bytes)
            plan.append(node)
    finally:
        os.close(child)
    if budget.depth_cut:
        raise _too_deep(max_depth)
    if budget.cut:
        raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the copy has more than {max_entries} entries")
    return tuple(plan)


_LINK_IN_SOURCE = "the source holds a symbolic link; links are disabled"
_SPECIAL_IN_SOURCE = "the source holds a device file, FIFO or socket"


def _check_bytes(size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the copy is larger than {max_bytes} bytes")


@define
class CopyProgress:
    """What a copy has done so far: reported even when it stops part way."""

    items: int = 0
    bytes: int = 0


def copy_plan(
    plan: tuple[TreeNode, ...],
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
    Copy the planned tree from ``src_name`` in ``src_dir`` to ``dst_name`` in ``dst_dir`` (``replace``: the
    top file may replace a file there). Each step opens its source and destination again without following
    links, so a swap since planning refuses. Directories entered are a stack, not a recursion.
    """
    entered: list[tuple[int, int]] = []  # (source, destination) descriptors of each directory entered
    try:
        for node in plan:
            check()
            while len(entered) > len(node.parts):
                _close_pair(entered.pop())
            if node.parts:
                (src_parent, dst_parent), src, dst = entered[-1], node.parts[-1], node.parts[-1]
            else:
                src_parent, dst_parent, src, dst = src_dir, dst_dir, src_name, dst_name
            if node.type is EntryType.FILE:
                fd, info = open_regular(src_parent, src)
                try:
                    data, more = read_bounded(fd, node.size or 0)
                finally:
                    os.close(fd)
                if more:
                    raise Refusal(FileStatus.CONFLICT, "a source file grew while it was copied")
                top = replace and not node.parts
                write_atomic(dst_parent, dst, data, mode=stat.S_IMODE(info.st_mode), replace=top)
                progress.items += 1
                progress.bytes += len(data)
                continue
            os.mkdir(dst, 0o777, dir_fd=dst_parent)
            progress.items += 1
            src_child = descend(src_parent, src)
            try:
                dst_child = descend(dst_parent, dst)
            except BaseException:
                os.close(src_child)
                raise
            entered.append((src_child, dst_child))
    finally:
        while entered:
            _close_pair(entered.pop())


def _close_pair(pair: tuple[int, int]) -> None:
    try:
        os.close(pair[1])
    finally:
        os.close(pair[0])


def count_tree(dir_fd: int, *, max_entries: int, max_depth: int, check: Callable[[], None]) -> int:
    """
    The entries under ``dir_fd`` (links not followed); ``Refusal(LIMIT_EXCEEDED)`` past ``max_entries``, or
    past ``max_depth`` directory levels, ``dir_fd`` counted.
    """
    budget = WalkBudget(check=check)
    for _ in iter_tree(dir_fd, max_depth=max_depth, max_entries=max_entries, budget=budget):
        if budget.depth_cut:
            raise _too_deep(max_depth)
    if budget.depth_cut:
        raise _too_deep(max_depth)
    if budget.cut:
        raise Refusal(FileStatus.LIMIT_EXCEEDED, f"the tree has more than {max_entries} entries")
    return budget.entries


def remove_tree(
    parent: int, name: str, *, removed: list[int], max_depth: int, check: Callable[[], None]
) -> None:
    """
    Remove the directory ``name`` and everything in it; links are unlinked, never followed. ``removed[0]``
    counts the entries gone, even when it stops part way. Directories entered are a stack, not a recursion,
    at most ``max_depth`` high (a tree grown deeper since it was counted stops the removal there).
    """
    # One frame per directory entered: its parent's descriptor, its name, its descriptor, its entries left.
    frames: list[tuple[int, str, int, Iterator[tuple[str, bool]]]] = []
    try:
        check()
        _enter(frames, parent, name)
        while frames:
            up, own, fd, pending = frames[-1]
            entry = next(pending, None)
            if entry is None:
                frames.pop()
                os.close(fd)
                os.rmdir(own, dir_fd=up)
                removed[0] += 1
                continue
            check()
            entry_name, is_dir = entry
            if is_dir:
                if len(frames) >= max_depth:
                    raise _too_deep(max_depth)
                _enter(frames, fd, entry_name)
            else:
                os.unlink(entry_name, dir_fd=fd)
                removed[0] += 1
    finally:
        for _, _, fd, _ in frames:
            os.close(fd)


def _enter(frames: list[tuple[int, str, int, Iterator[tuple[str, bool]]]], parent: int, name: str) -> None:
    fd = descend(parent, name)
    try:
        with os.scandir(fd) as scan:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in scan]
    except BaseException:
        os.close(fd)
        raise
    frames.append((parent, name, fd, iter(entries)))
