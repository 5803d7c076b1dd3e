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

from llm_wire import _public
from llm_wire.toolkits.filesystem._core import EntryType, FileStatus
from llm_wire.toolkits.filesystem._records import (
    Entry,
    FileResult,
    FilesystemLimits,
    FilesystemPolicy,
    Match,
)
from llm_wire.toolkits.filesystem._runtime import FilesystemRuntime

__all__ = [
    "FileStatus",
    "EntryType",
    "FilesystemLimits",
    "FilesystemPolicy",
    "Entry",
    "Match",
    "FileResult",
    "FilesystemRuntime",
]

_public.rehome(__name__, __all__, globals())
