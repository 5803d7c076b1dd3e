"""
The filesystem toolkit's records: its limits and policy, and what an operation returns.
"""

from __future__ import annotations

from collections.abc import Mapping

from attrs import define, field, frozen

from llm_wire.toolkits._common import positive_limit
from llm_wire.toolkits.filesystem._core import EntryType, FileStatus
from llm_wire.toolkits.governance import _MetadataValue, _path

__all__ = [
    "RESERVED_METADATA",
    "FilesystemLimits",
    "FilesystemPolicy",
    "Entry",
    "Match",
    "FileResult",
    "OperationOutcome",
]

_MiB = 1 << 20

#: Metadata keys only the runtime sets; a caller's values for them are dropped (and any ``skipped_*`` key).
RESERVED_METADATA = frozenset(
    {
        "operation_id",
        "operation",
        "partial",
        "parent_directories_created",
        "destination_created",
        "type",
        "size",
        "output_limit_reached",
        "file_enumeration_truncated",
        "output_bytes",
    }
)


@frozen
class FilesystemLimits:
    """The policy maxima; a request's limit of 0 means the maximum, and a larger one is clamped to it."""

    max_read_bytes: int = field(default=4 * _MiB, validator=positive_limit)
    max_write_bytes: int = field(default=4 * _MiB, validator=positive_limit)
    max_search_file_bytes: int = field(default=2 * _MiB, validator=positive_limit)
    max_search_total_bytes: int = field(default=64 * _MiB, validator=positive_limit)
    max_search_output_bytes: int = field(default=4 * _MiB, validator=positive_limit)
    max_copy_bytes: int = field(default=64 * _MiB, validator=positive_limit)
    max_directory_entries: int = field(default=10_000, validator=positive_limit)
    max_search_results: int = field(default=2_000, validator=positive_limit)
    max_search_depth: int = field(default=64, validator=positive_limit)
    max_pattern_bytes: int = field(default=4096, validator=positive_limit)
    #: Directory levels any walk may enter (the top one counted): each holds a descriptor while it is walked.
    max_depth: int = field(default=64, validator=positive_limit)


def _bool(instance: object, attribute: object, value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{type(instance).__name__}.{getattr(attribute, 'name', 'flag')} must be a bool")


def _limits(instance: object, attribute: object, value: object) -> None:
    if not isinstance(value, FilesystemLimits):
        raise TypeError("FilesystemPolicy.limits must be a FilesystemLimits")


@frozen
class FilesystemPolicy:
    """
    What the runtime may do under ``root`` (an existing directory). Reading is on; every mutation is off until
    enabled, and each enabled mutation asks for approval unless its ``require_approval_*`` flag is turned off
    (write approval also covers replace, create_directory and copy).
    """

    root: str = field(converter=_path)
    allow_read: bool = field(default=True, validator=_bool)
    allow_write: bool = field(default=False, validator=_bool)
    allow_create_directory: bool = field(default=False, validator=_bool)
    allow_copy: bool = field(default=False, validator=_bool)
    allow_move: bool = field(default=False, validator=_bool)
    allow_remove: bool = field(default=False, validator=_bool)
    require_approval_for_write: bool = field(default=True, validator=_bool)
    require_approval_for_move: bool = field(default=True, validator=_bool)
    require_approval_for_remove: bool = field(default=True, validator=_bool)
    limits: FilesystemLimits = field(default=FilesystemLimits(), validator=_limits)


@frozen
class Entry:
    """A listed or globbed entry: root-relative path, type, and size for a file."""

    path: str
    type: EntryType
    size: int | None = None

    def to_plain(self) -> dict[str, object]:
        """The entry as JSON-ready data."""
        return {"path": self.path, "type": self.type.value, "size": self.size}


@frozen
class Match:
    """A search hit: root-relative path, 1-based line and column (the column counts UTF-8 bytes), the line."""

    path: str
    line: int
    column: int
    text: str

    def to_plain(self) -> dict[str, object]:
        """The match as JSON-ready data."""
        return {"path": self.path, "line": self.line, "column": self.column, "text": self.text}


@frozen
class FileResult:
    """
    How an operation ended. Paths are root-relative; ``error`` is our text (never input) when ``status`` is
    not ``OK``; ``metadata`` holds the caller's keys with the reserved ones set by the runtime.
    """

    status: FileStatus
    operation: str
    path: str | None = None
    destination: str | None = None
    revision: str | None = None
    bytes_processed: int = 0
    affected_items: int = 0
    truncated: bool = False
    content: str | None = None
    entries: tuple[Entry, ...] = ()
    matches: tuple[Match, ...] = ()
    metadata: Mapping[str, _MetadataValue] = field(factory=dict)
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the operation succeeded."""
        return self.status is FileStatus.OK

    def to_plain(self) -> dict[str, object]:
        """The result as JSON-ready data (what a model sees)."""
        plain: dict[str, object] = {
            "status": self.status.value,
            "path": self.path,
            "destination": self.destination,
            "revision": self.revision,
            "bytes_processed": self.bytes_processed,
            "affected_items": self.affected_items,
            "truncated": self.truncated,
            "metadata": dict(self.metadata),
        }
        if self.error is not None:
            plain["error"] = self.error
        if self.content is not None:
            plain["content"] = self.content
        if self.entries:
            plain["entries"] = [e.to_plain() for e in self.entries]
        if self.matches:
            plain["matches"] = [m.to_plain() for m in self.matches]
        return plain


@define
class OperationOutcome:
    """What an operation has produced so far; kept when it stops part way."""

    path: str | None = None
    destination: str | None = None
    revision: str | None = None
    bytes: int = 0
    items: int = 0
    truncated: bool = False
    content: str | None = None
    entries: list[Entry] = field(factory=list)
    matches: list[Match] = field(factory=list)
    metadata: dict[str, _MetadataValue] = field(factory=dict)
