"""
What one load honours and how far it reads (``Rules``): made by ``contract``'s face, read by both readers of
a document (``_load``'s exact way and ``_fastload``'s one walk).
"""

from __future__ import annotations

from collections.abc import Collection

from attrs import frozen

__all__ = ["Rules"]


@frozen
class Rules:
    """What one load honours and how far it reads: handed whole from ``contract``'s face to the readers."""

    #: The keywords it asserts, and those it keeps as annotations.
    supported: Collection[str]
    annotations: Collection[str]
    assert_formats: bool
    #: The formats it can assert.
    formats: Collection[str]
    max_nodes: int
    max_depth: int
    max_pattern_cost: int
