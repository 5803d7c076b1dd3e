"""
Each tool as a wire sends it, computed once: its projection into a dialect and that wire schema's JSON text.

A ``Tool`` is an immutable record, so its projection into one ``Profile`` (a wire, strict or not, legacy or
not) never changes: ``projected`` computes it on the tool's first request in that dialect and returns the
same ``Projection`` (or the same refusal) afterwards, with the compact JSON text of its wire schema, which
``prepare`` hands ``value.render_with`` so that the body's bytes are assembled from these fragments instead
of being walked again. The cache is a weak map keyed by the tool: it goes when the tool goes, and holds at
most ``PER_TOOL`` dialects per tool (the oldest is dropped first).
"""

from __future__ import annotations

import threading
import weakref

from attrs import frozen

from llm_wire._fast import Lean
from llm_wire.providers.projection import Profile, Projection, ProjectionError, project_schema
from llm_wire.result import Ok, Result
from llm_wire.tool import Tool
from llm_wire.value import NotJson
from llm_wire.value._render import render_with

__all__ = ["PER_TOOL", "Wired", "projected"]

#: The most dialects one tool keeps (four wires, strict or not, is eight).
PER_TOOL = 8


@frozen
class Wired(Lean):
    """A tool's projection into ``profile`` (or why it cannot be), and its wire schema's JSON text."""

    profile: Profile
    result: Result[Projection, ProjectionError]
    #: ``render`` of the wire schema; ``None`` when refused or not JSON (the body's render says where).
    text: str | None


_cache: weakref.WeakKeyDictionary[Tool, list[Wired]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def projected(tool: Tool, profile: Profile) -> Wired:
    """``tool``'s schema in ``profile``'s dialect with its text, computed on first use and kept."""
    entries = _cache.get(tool)
    if entries is not None:
        for entry in entries:
            if entry.profile is profile:
                return entry
    result = project_schema(tool.schema, profile)
    text = None
    if isinstance(result, Ok):
        try:
            text = render_with(result.value.wire_schema, {})
        except NotJson:
            text = None
    made = Wired(profile, result, text)
    with _lock:
        entries = _cache.setdefault(tool, [])
        if len(entries) >= PER_TOOL:
            del entries[0]
        entries.append(made)
    return made
