"""
What one load honours and how far it reads (``Rules``): made by ``contract``'s face, read by both readers of
a document (``_load``'s exact way and ``_fastload``'s one walk).
"""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["Rules"]


class Rules:
    """What one load honours and how far it reads: handed whole from ``contract``'s face to the readers."""

    __slots__ = (
        "annotations",
        "assert_formats",
        "formats",
        "max_depth",
        "max_nodes",
        "max_pattern_cost",
        "supported",
    )

    def __init__(
        self,
        supported: Collection[str],
        annotations: Collection[str],
        assert_formats: bool,
        formats: Collection[str],
        max_nodes: int,
        max_depth: int,
        max_pattern_cost: int,
    ) -> None:
        #: The keywords it asserts, and those it keeps as annotations.
        self.supported = supported
        self.annotations = annotations
        self.assert_formats = assert_formats
        #: The formats it can assert.
        self.formats = formats
        self.max_nodes = max_nodes
        self.max_depth = max_depth
        self.max_pattern_cost = max_pattern_cost
