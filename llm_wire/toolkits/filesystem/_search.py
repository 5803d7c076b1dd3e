"""
The filesystem toolkit's literal text search: one search's budgets and tallies, file by file.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from attrs import define

from llm_wire.toolkits.filesystem._core import decode_text, open_regular, read_bounded
from llm_wire.toolkits.filesystem._records import FilesystemLimits, Match, OperationOutcome
from llm_wire.toolkits.governance import _MetadataValue

__all__ = ["Search"]


@define
class Search:
    """One search's budgets and tallies."""

    needle: bytes
    exact: bool
    max_results: int
    max_output: int
    limits: FilesystemLimits
    out: OperationOutcome
    total: int = 0
    output: int = 0
    skipped_binary: int = 0
    skipped_oversized: int = 0
    files: int = 0
    stopped: bool = False

    #: A matched line is shown up to this many bytes.
    LINE_PREVIEW = 512

    def counts(self) -> dict[str, _MetadataValue]:
        return {
            "skipped_binary_files": self.skipped_binary,
            "skipped_oversized_files": self.skipped_oversized,
            "output_bytes": self.output,
        }

    def file(self, dir_fd: int, name: str, shown: str, check: Callable[[], None]) -> bool:
        """Search one file; returns whether the search goes on."""
        check()
        if self.stopped:
            return False
        fd, info = open_regular(dir_fd, name)
        try:
            if info.st_size > self.limits.max_search_file_bytes:
                self.skipped_oversized += 1
                return True
            if self.total + info.st_size > self.limits.max_search_total_bytes:
                return self._stop()
            data, more = read_bounded(fd, self.limits.max_search_file_bytes)
        finally:
            os.close(fd)
        if more:
            self.skipped_oversized += 1
            return True
        self.total += len(data)
        if b"\x00" in data:
            self.skipped_binary += 1
            return True
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            self.skipped_binary += 1
            return True
        self.files += 1
        haystack = data if self.exact else data.lower()
        for number, (line, folded) in enumerate(
            zip(data.split(b"\n"), haystack.split(b"\n"), strict=True), 1
        ):
            column = folded.find(self.needle)
            while column >= 0:
                text = decode_text(line[: self.LINE_PREVIEW], cut=True)
                cost = len(shown.encode("utf-8")) + len(text.encode("utf-8")) + 32
                if len(self.out.matches) >= self.max_results:
                    return self._stop()
                if self.output + cost > self.max_output:
                    self.out.metadata["output_limit_reached"] = True
                    return self._stop()
                self.output += cost
                self.out.matches.append(Match(shown, number, column + 1, text))
                column = folded.find(self.needle, column + len(self.needle))
        return True

    def _stop(self) -> bool:
        self.stopped = True
        self.out.truncated = True
        return False
