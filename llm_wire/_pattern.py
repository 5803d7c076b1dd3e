"""
Regular expressions for ``pattern`` and ``patternProperties``: linear time, never a hang.

Patterns run on RE2 (google-re2), whose matching time is linear in the input whatever the pattern, so a
hostile pattern such as ``^(a+)+$`` cannot backtrack. RE2 refuses what needs backtracking (lookaround,
backreferences); such a pattern is refused, never run on a backtracking engine. Matching is a search
(unanchored), as JSON Schema requires. Patterns are ECMA-262 (``_ecma`` rewrites where RE2 differs); an
anchored, deterministic pattern runs on Python's faster ``re``, on which ``_ecma`` proves it linear.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import re2

from llm_wire._ecma import linear_python, translate
from llm_wire.result import Err, Ok, Result

__all__ = ["MAX_PATTERN_LENGTH", "compile_pattern"]

#: Longest pattern source accepted, in characters.
MAX_PATTERN_LENGTH = 4096

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.max_mem = 8 << 20  # bounds the compiled program, so a pattern cannot exhaust memory
_OPTIONS.never_capture = True  # a yes/no search needs no groups, and RE2 is fastest without them


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> Result[Callable[[str], bool], str]:
    """
    A search predicate for ``pattern``, or ``Err`` with why it cannot be honoured in linear time.
    """
    if len(pattern) > MAX_PATTERN_LENGTH:
        return Err(f"pattern longer than {MAX_PATTERN_LENGTH} characters")
    match translate(pattern):
        case Err(why):
            return Err(why)
        case Ok(translated):
            pass
    try:
        compiled = re2.compile(translated, _OPTIONS)
    except re2.error:
        return Err("pattern uses syntax the linear-time engine cannot run")
    except (TypeError, ValueError):
        return Err("pattern cannot be compiled")
    simple = linear_python(pattern)
    if simple is not None:  # anchored and deterministic: Python's engine is linear on it, and faster
        match = re.compile(simple).match
        return Ok(lambda text: match(text) is not None)
    return Ok(_searcher(compiled))


def _searcher(compiled: re2._Regexp) -> Callable[[str], bool]:
    # re2's Python ``search`` builds match objects and maps offsets (~14 us a call); the compiled program's
    # own ``Match`` on UTF-8 bytes answers the same question several times faster.
    program = getattr(compiled, "_regexp", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    no_match = getattr(re2, "_NULL_SPAN", None)
    if program is None or anchor is None or no_match is None:
        search = compiled.search
        return lambda text: search(text) is not None
    match = program.Match

    def fast(text: str) -> bool:
        data = text.encode("utf-8", "surrogatepass")
        return bool(match(anchor, data, 0, len(data))[0] != no_match)

    return fast
