"""
Regular expressions for ``pattern`` and ``patternProperties``: linear time, never a hang.

Patterns run on RE2 (google-re2), whose matching time is linear in the input whatever the pattern, so a
hostile pattern such as ``^(a+)+$`` cannot backtrack. RE2 refuses what needs backtracking (lookaround,
backreferences); such a pattern is refused, never run on a backtracking engine. Matching is a search
(unanchored), as JSON Schema requires.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import re2

from llm_wire.result import Err, Ok, Result

__all__ = ["MAX_PATTERN_LENGTH", "compile_pattern"]

#: Longest pattern source accepted, in characters.
MAX_PATTERN_LENGTH = 4096

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.max_mem = 8 << 20  # bounds the compiled program, so a pattern cannot exhaust memory


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> Result[Callable[[str], bool], str]:
    """
    A search predicate for ``pattern``, or ``Err`` with why it cannot be honoured in linear time.
    """
    if len(pattern) > MAX_PATTERN_LENGTH:
        return Err(f"pattern longer than {MAX_PATTERN_LENGTH} characters")
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except re2.error:
        return Err("pattern uses syntax the linear-time engine cannot run (lookaround or backreferences)")
    except (TypeError, ValueError):
        return Err("pattern cannot be compiled")
    search = compiled.search
    return Ok(lambda text: search(text) is not None)
