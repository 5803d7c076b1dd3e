"""
Regular expressions for ``pattern`` and ``patternProperties`` (codec string patterns and contracts alike):
ECMA-262 meaning, linear time, never a hang.

Patterns run on RE2 (google-re2), whose matching time is linear in the input whatever the pattern, so a
hostile pattern such as ``^(a+)+$`` cannot backtrack. RE2 refuses what needs backtracking (lookaround,
backreferences); such a pattern is refused, never run on a backtracking engine. Matching is a search
(unanchored), as JSON Schema requires. ``compile_pattern`` is the entry point.

ECMA-262 syntax is mostly shared with RE2. What differs is rewritten by ``translate`` so that RE2 gives
ECMA's answer: ``\\s``/``\\S`` (ECMA's white space and line terminators, not RE2's ASCII set), ``.`` (no line
terminator), ``\\uXXXX`` and ``\\u{...}`` escapes (surrogate pairs joined), ``\\cX`` control escapes, ``\\0``,
``\\/``, ``[^]`` and ``[]``, ``(?<name>``, and ``\\p{...}`` with ECMA's long property names. What RE2
cannot run in linear time (lookaround, backreferences) or what ECMA's Unicode mode calls an error is refused
with a reason. An anchored, deterministic pattern runs on Python's faster ``re``, on which
``linear_python`` proves it linear.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from llm_wire._fast import LazyPattern
from llm_wire.result import Err, Ok, Result

if TYPE_CHECKING:
    import re2

__all__ = [
    "MAX_PATTERN_COST",
    "MAX_PATTERN_LENGTH",
    "compile_pattern",
    "linear_python",
    "pattern_cost",
    "translate",
]

# ECMA-262 WhiteSpace and LineTerminator: what \s matches.
_SPACES = (
    (0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
    (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF),
)  # fmt: skip


def _ranges(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges)


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out = []
    start = 0
    for a, b in ranges:
        if a > start:
            out.append((start, a - 1))
        start = b + 1
    out.append((start, 0x10FFFF))
    # UTF-8 text holds no surrogates; leave them out of explicit ranges.
    split = []
    for a, b in out:
        if a < 0xD800 <= b:
            split.extend([(a, 0xD7FF), (0xE000, b)] if b >= 0xE000 else [(a, 0xD7FF)])
        else:
            split.append((a, b))
    return tuple(split)


_SPACE_SET = _ranges(_SPACES)
_NOT_SPACE_SET = _ranges(_complement(_SPACES))
_DOT = "[^\\n\\r\\x{2028}\\x{2029}]"
_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
_CONTROL = {"t": "\\t", "n": "\\n", "v": "\\v", "f": "\\f", "r": "\\r"}

#: ECMA's General_Category values, long and short, to RE2's one- or two-letter names.
_CATEGORIES = {
    "Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
    "Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M",
    "Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
    "Number": "N", "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
    "Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
    "Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
    "Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm",
    "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z",
    "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C",
    "Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co",
}  # fmt: skip
_SHORT = frozenset(_CATEGORIES.values()) - {"LC"}


def translate(pattern: str) -> Result[str, str]:
    """
    The RE2 spelling of an ECMA-262 pattern, or ``Err`` with why it cannot be honoured.
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            match _escape(pattern, i, in_class):
                case Err(why):
                    return Err(why)
                case Ok((text, i)):
                    out.append(text)
            continue
        if in_class:
            if c == "]":
                in_class = False
            out.append("\\[" if c == "[" else c)
            i += 1
            continue
        if c == "[":
            if pattern.startswith("[^]", i):
                out.append("(?s:.)")
                i += 3
                continue
            if pattern.startswith("[]", i):
                out.append("[^\\x00-\\x{10FFFF}]")
                i += 2
                continue
            in_class = True
            start = 2 if pattern.startswith("[^", i) else 1
            out.append(pattern[i : i + start])
            i += start
            if pattern.startswith("]", i):  # ECMA: a class cannot start with a literal ]
                return Err("pattern has an empty character class followed by ]")
            continue
        if c == ".":
            out.append(_DOT)
        elif c == "(" and pattern.startswith("(?", i):
            head = pattern[i + 2 : i + 4]
            if head[:1] in ("=", "!") or head in ("<=", "<!"):
                return Err("pattern uses lookaround, which cannot run in linear time")
            if head[:1] == "<":
                out.append("(?P<")
                i += 3
                continue
            if head[:1] != ":":
                return Err("pattern uses a group syntax that ECMA-262 does not have")
            out.append("(?:")
            i += 3
            continue
        else:
            out.append(c)
        i += 1
    if in_class:
        return Err("pattern has an unterminated character class")
    return Ok("".join(out))


def _escape(pattern: str, i: int, in_class: bool) -> Result[tuple[str, int], str]:
    """The RE2 text for the escape at ``i`` (a backslash) and where the pattern continues."""
    c = pattern[i + 1 : i + 2]
    if not c:
        return Err("pattern ends with a lone backslash")
    if c in "dDwW":
        return Ok(("\\" + c, i + 2))
    if c == "s":
        return Ok((_SPACE_SET if in_class else f"[{_SPACE_SET}]", i + 2))
    if c == "S":
        return Ok((_NOT_SPACE_SET if in_class else f"[^{_SPACE_SET}]", i + 2))
    if c in "bB":
        if in_class:
            return Ok(("\\x08", i + 2)) if c == "b" else Err("pattern uses \\B inside a class")
        return Ok(("\\" + c, i + 2))
    if c in _CONTROL:
        return Ok((_CONTROL[c], i + 2))
    if c == "0" and not _is_digits(pattern[i + 2 : i + 3]):
        return Ok(("\\x00", i + 2))
    if _is_digits(c) or c == "k":
        return Err("pattern uses a backreference, which cannot run in linear time")
    if c == "c":
        letter = pattern[i + 2 : i + 3]
        if letter.isascii() and letter.isalpha():
            return Ok((f"\\x{{{ord(letter) % 32:X}}}", i + 3))
        return Err("pattern has an invalid \\c escape")
    if c == "x":
        digits = pattern[i + 2 : i + 4]
        if len(digits) == 2 and _is_hex(digits):
            return Ok((f"\\x{{{digits}}}", i + 4))
        return Err("pattern has an invalid \\x escape")
    if c == "u":
        return _unicode_escape(pattern, i)
    if c in "pP":
        return _property(pattern, i, in_class)
    if c in _SYNTAX or c == "-":
        return Ok(("/" if c == "/" else "\\" + c, i + 2))
    if not c.isascii():
        return Ok((c, i + 2))
    return Err("pattern has an escape that ECMA-262 does not define")


def _is_digits(text: str) -> bool:
    """ECMA-262 decimal digits are ASCII only (``str.isdigit`` also takes ``²``)."""
    return text.isascii() and text.isdigit()


def _is_hex(text: str) -> bool:
    return all(ch in "0123456789abcdefABCDEF" for ch in text)


def _unicode_escape(pattern: str, i: int) -> Result[tuple[str, int], str]:
    if pattern.startswith("{", i + 2):
        end = pattern.find("}", i + 3)
        digits = pattern[i + 3 : end] if end > 0 else ""
        if not digits or not _is_hex(digits) or int(digits, 16) > 0x10FFFF:
            return Err("pattern has an invalid \\u{...} escape")
        code, after = int(digits, 16), end + 1
    else:
        digits = pattern[i + 2 : i + 6]
        if len(digits) != 4 or not _is_hex(digits):
            return Err("pattern has an invalid \\u escape")
        code, after = int(digits, 16), i + 6
        low = pattern[after + 2 : after + 6]
        if 0xD800 <= code <= 0xDBFF and pattern.startswith("\\u", after) and _is_hex(low) and len(low) == 4:
            second = int(low, 16)
            if 0xDC00 <= second <= 0xDFFF:
                code, after = 0x10000 + ((code - 0xD800) << 10) + (second - 0xDC00), after + 6
    if 0xD800 <= code <= 0xDFFF:
        return Err("pattern names a lone surrogate, which no string can hold")
    return Ok((f"\\x{{{code:X}}}", after))


def _property(pattern: str, i: int, in_class: bool) -> Result[tuple[str, int], str]:
    negated = pattern[i + 1] == "P"
    end = pattern.find("}", i + 3)
    if not pattern.startswith("{", i + 2) or end < 0:
        return Err("pattern has an invalid \\p escape")
    name = pattern[i + 3 : end]
    key, _, value = name.partition("=")
    if value:
        if key in ("General_Category", "gc"):
            name = value
        elif key in ("Script", "sc"):
            return Ok((f"\\{'P' if negated else 'p'}{{{value}}}", end + 1))
        else:
            return Err("pattern uses a Unicode property that cannot be honoured")
    short = _CATEGORIES.get(name, name if name in _SHORT or name == "LC" else None)
    if short is None:
        return Err("pattern uses a Unicode property that cannot be honoured")
    if short == "LC":  # RE2 has no LC: spell it out
        if in_class:
            return (
                Ok(("\\p{Lu}\\p{Ll}\\p{Lt}", end + 1))
                if not negated
                else Err("pattern negates LC in a class")
            )
        return Ok((f"[{'^' if negated else ''}\\p{{Lu}}\\p{{Ll}}\\p{{Lt}}]", end + 1))
    return Ok((f"\\{'P' if negated else 'p'}{{{short}}}", end + 1))


# ---------------------------------------------------------------------------------------------------------
# A faster engine where it is provably safe. Python's backtracking ``re`` is several times faster than RE2's
# binding on short strings, and linear on a pattern that is anchored at the start and deterministic
# (1-unambiguous): at every choice between repeating and moving on, the next character decides, so a wrong
# branch dies on its first character. ``linear_python`` accepts only such patterns, in a small syntax (no
# alternation, ``.``, ``\s``, ``\b``, lazy quantifiers or Unicode escapes), and spells them with explicit
# ASCII classes so that Python gives ECMA-262's answer.

_Set = tuple[int, bool]  # (bit mask of ASCII code points, whether non-ASCII code points are in the set)
_DIGITS: _Set = (sum(1 << c for c in range(48, 58)), False)
_WORD: _Set = (_DIGITS[0] | sum(1 << c for c in (*range(65, 91), *range(97, 123), 95)), False)
_EMPTY: _Set = (0, False)
_CLASS_TEXT = {"d": "0-9", "w": "0-9A-Za-z_"}
_ASCII_ALL = (1 << 128) - 1


class _NotSimple(Exception):
    """The pattern is outside the subset ``linear_python`` proves linear."""


class _Term:
    __slots__ = ("body", "chars", "high", "low", "text")

    def __init__(self, text: str, chars: _Set | None, body: list[_Term] | None) -> None:
        self.text = text
        self.chars = chars
        self.body = body
        self.low, self.high = 1, 1  # high -1: unbounded


def _union(a: _Set, b: _Set) -> _Set:
    return a[0] | b[0], a[1] or b[1]


def _overlap(a: _Set, b: _Set) -> bool:
    return bool(a[0] & b[0]) or (a[1] and b[1])


def _literal(c: str) -> tuple[str, _Set]:
    code = ord(c)
    return _escape_py(c), ((1 << code, False) if code < 128 else (0, True))


def _escape_py(c: str) -> str:
    return "\\" + c if c in "\\^$.|?*+()[]{}-/#&~ \t\n\r\f\v" else c


def linear_python(pattern: str) -> str | None:
    """
    A Python ``re`` pattern (to use with ``match``) equivalent to ``pattern`` and linear in the input, or
    ``None`` when ``pattern`` is not in the subset this proves safe.
    """
    if not pattern.startswith("^"):
        return None
    try:
        items, i = _sequence(pattern, 1, 0)
        ends = pattern.endswith("$") and i == len(pattern) - 1
        if i != len(pattern) and not ends:
            return None
        _first(items, _EMPTY)
    except _NotSimple:
        return None
    return "".join(item.text for item in items) + ("\\Z" if ends else "")


def _sequence(p: str, i: int, depth: int) -> tuple[list[_Term], int]:
    items: list[_Term] = []
    while i < len(p):
        c = p[i]
        if c == ")" and depth:
            return items, i
        if c == "$" and i == len(p) - 1 and not depth:
            return items, i
        if c == "[":
            item, i = _class(p, i + 1)
        elif c == "\\":
            e = p[i + 1 : i + 2]
            if e in _CLASS_TEXT:
                item = _Term(f"[{_CLASS_TEXT[e]}]", _DIGITS if e == "d" else _WORD, None)
            elif e and e in "^$\\.*+?()[]{}|/-":
                text, chars = _literal(e)
                item = _Term(text, chars, None)
            else:
                raise _NotSimple
            i += 2
        elif c == "(":
            if not p.startswith("(?:", i) or depth > 8:
                raise _NotSimple
            body, i = _sequence(p, i + 3, depth + 1)
            if i >= len(p) or p[i] != ")" or not body:
                raise _NotSimple
            item = _Term("(?:" + "".join(b.text for b in body) + ")", None, body)
            i += 1
        elif c in ".|^$*+?{}]":
            raise _NotSimple
        else:
            text, chars = _literal(c)
            item = _Term(text, chars, None)
            i += 1
        i = _quantifier(p, i, item)
        items.append(item)
    if depth:
        raise _NotSimple
    return items, i


def _class(p: str, i: int) -> tuple[_Term, int]:
    negated = p.startswith("^", i)
    i += negated
    mask, other = 0, False
    parts: list[str] = []
    while i < len(p) and p[i] != "]":
        c = p[i]
        if c == "\\":
            e = p[i + 1 : i + 2]
            if e in _CLASS_TEXT:
                mask |= (_DIGITS if e == "d" else _WORD)[0]
                parts.append(_CLASS_TEXT[e])
                i += 2
                continue
            if not e or e not in "\\]-^[./":
                raise _NotSimple
            c = e
            i += 1
        if c == "[":
            raise _NotSimple
        low = ord(c)
        i += 1
        high = low
        if p.startswith("-", i) and i + 1 < len(p) and p[i + 1] != "]":
            end = p[i + 1]
            if end == "\\" or end == "[":
                raise _NotSimple
            high = ord(end)
            i += 2
            if high < low:
                raise _NotSimple
        if high >= 128:
            other = True
        mask |= sum(1 << code for code in range(low, min(high, 127) + 1))
        parts.append(_escape_py(chr(low)) + ("" if high == low else "-" + _escape_py(chr(high))))
    if i >= len(p) or not parts:
        raise _NotSimple
    text = "[" + ("^" if negated else "") + "".join(parts) + "]"
    chars: _Set = (_ASCII_ALL & ~mask, True) if negated else (mask, other)
    return _Term(text, chars, None), i + 1


def _quantifier(p: str, i: int, item: _Term) -> int:
    c = p[i : i + 1]
    if c in ("?", "*", "+"):
        item.low, item.high = {"?": (0, 1), "*": (0, -1), "+": (1, -1)}[c]
        item.text += c
        i += 1
    elif c == "{":
        end = p.find("}", i)
        low, comma, high = p[i + 1 : end].partition(",") if end > 0 else ("", "", "")
        if not _is_digits(low) or (high and not _is_digits(high)) or int(low) > 1000 or int(high or 0) > 1000:
            raise _NotSimple
        item.low = int(low)
        item.high = (int(high) if high else -1) if comma else item.low
        if item.high != -1 and item.high < item.low:
            raise _NotSimple
        item.text += p[i : end + 1]
        i = end + 1
    if p[i : i + 1] in ("?", "*", "+", "{"):
        raise _NotSimple  # lazy or stacked quantifiers
    return i


def _first(items: list[_Term], follow: _Set) -> _Set:
    """The characters that can start ``items`` followed by ``follow``; raises when a choice is ambiguous."""
    for item in reversed(items):
        if item.body is not None:
            body_first = _first(item.body, _EMPTY)
            if _nullable(item.body):
                raise _NotSimple
            # Inside the group, what follows its end is another round or what follows the group.
            _first(item.body, _union(body_first, follow) if item.high != 1 else follow)
        else:
            assert item.chars is not None
            body_first = item.chars
        choice = item.high == -1 or item.high > item.low  # go on repeating, or move on
        if choice and _overlap(body_first, follow):
            raise _NotSimple
        follow = _union(body_first, follow) if item.low == 0 else body_first
    return follow


def _nullable(items: list[_Term]) -> bool:
    return all(item.low == 0 or (item.body is not None and _nullable(item.body)) for item in items)


# ---------------------------------------------------------------------------------------------------------
# Compiling: the predicate a pattern keyword runs.

#: Longest pattern source accepted, in characters.
MAX_PATTERN_LENGTH = 4096


@functools.cache
def _options() -> re2.Options:
    """RE2's options, made once: RE2 is loaded with the first pattern compiled, not at import."""
    import re2

    options = re2.Options()
    options.log_errors = False
    options.max_mem = 8 << 20  # bounds the compiled program, so a pattern cannot exhaust memory
    options.never_capture = True  # a yes/no search needs no groups, and RE2 is fastest without them
    return options


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
    import re2

    try:
        compiled = re2.compile(translated, _options())
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
    import re2

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


# ---------------------------------------------------------------------------------------------------------
# Cost: what counted repetitions add to the RE2 program.

#: Default bound on ``pattern_cost``. RE2's matching time is linear in the text, but its factor grows with
#: the program when the DFA gives up: ``(?:a|b)*a(?:a|b){1000}c`` (cost about 1,000) took 7 s on 1 MiB.
MAX_PATTERN_COST = 500
_COUNTED = LazyPattern(r"\{[0-9]+(?:,[0-9]*)?\}")


@functools.lru_cache(maxsize=1024)
def pattern_cost(pattern: str) -> int:
    """
    The RE2 instructions that counted repetitions (``{n}``, ``{n,}``, ``{n,m}``) add to a pattern that
    ``compile_pattern`` accepted; 0 for a pattern that runs on Python's linear fast path. Large character
    classes (``\\p{Letter}`` is a big program) cost nothing: the DFA runs them without trouble.
    """
    if linear_python(pattern) is not None:
        return 0
    full = _program_size(pattern)
    collapsed = _program_size(_collapse(pattern))
    if full is None:
        return 0
    return full if collapsed is None else max(0, full - collapsed)


def _program_size(pattern: str) -> int | None:
    import re2

    match translate(pattern):
        case Ok(translated):
            try:
                return int(re2.compile(translated, _options()).programsize)  # type: ignore[attr-defined]
            except (re2.error, TypeError, ValueError):
                return None
    return None


def _collapse(pattern: str) -> str:
    """``pattern`` with every counted repetition outside classes and escapes spelled ``+``."""
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "{":
            counted = _COUNTED.match(pattern, i)
            if counted is not None:
                out.append("+")
                i = counted.end()
                continue
        out.append(c)
        i += 1
    return "".join(out)
