"""
The exact engine of ``llm_wire.value``: an iterative pure-Python parser, so depth never meets Python's
recursion limit, that locates and explains every refusal. The fast engine (``_parse``) hands it every
document it declines, and shares its number rule (``NUMBER``, ``number_problem``).
"""

from __future__ import annotations

import decimal
import sys
from decimal import Decimal

from llm_wire._fast import LazyPattern
from llm_wire.error import LimitExceeded
from llm_wire.value._records import (
    DuplicateKey,
    Limits,
    Location,
    ParseError,
    ParseReason,
    Syntax,
    Value,
    over,
)

__all__ = ["NUMBER", "WS", "byte_location", "exact", "location", "number_problem"]

NUMBER = LazyPattern(r"-?(?:0|[1-9][0-9]*)(?P<frac>\.[0-9]+)?(?P<exp>[eE][+-]?[0-9]+)?")
_CHUNK = LazyPattern(r'[^"\\\x00-\x1f]*')
_HEX4 = LazyPattern(r"[0-9a-fA-F]{4}")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS: tuple[tuple[str, Value], ...] = (("true", True), ("false", False), ("null", None))
#: Integer strings this long always convert with int(), whatever sys.set_int_max_str_digits says.
_INT_STR_SAFE = sys.int_info.str_digits_check_threshold
WS = LazyPattern(r"[ \t\n\r]*")


class _Fail(Exception):
    def __init__(self, index: int, reason: ParseReason) -> None:
        self.index = index
        self.reason = reason


def exact(source: str, limits: Limits) -> Value | ParseError:
    """The exact engine: the value, or the error located and explained."""
    try:
        return _Parser(source, limits).run()
    except _Fail as fail:
        return ParseError(location(source, fail.index), fail.reason)


def number_problem(token: str, exponent: str | None, limits: Limits) -> LimitExceeded | None:
    """The number limit that ``token`` (with its exponent part, if any) breaks, if any."""
    if len(token) > limits.max_number_bytes:
        return over("with_max_number_bytes", limits.max_number_bytes)
    mantissa = token[: len(token) - len(exponent)] if exponent else token
    if len(mantissa.lstrip("-").replace(".", "").lstrip("0")) > limits.max_number_digits:
        return over("with_max_number_digits", limits.max_number_digits)
    if exponent:
        written = exponent.lstrip("eE+-").lstrip("0")
        # Compare lengths first: never convert a huge digit string.
        if len(written) > len(str(limits.max_exponent)) or int(written or "0") > limits.max_exponent:
            return over("with_max_exponent", limits.max_exponent)
    return None


class _Parser:
    def __init__(self, source: str, limits: Limits) -> None:
        self.s = source
        self.n = len(source)
        self.limits = limits
        self.values = 0

    def ws(self, i: int) -> int:
        return WS.match(self.s, i).end()  # type: ignore[union-attr]

    def count(self, i: int) -> None:
        self.values += 1
        if self.values > self.limits.max_values:
            raise _Fail(i, over("with_max_values", self.limits.max_values))

    def run(self) -> Value:
        s, n = self.s, self.n
        # Each frame: the container, and for objects the key awaiting its value.
        stack: list[tuple[list[Value] | dict[str, Value], str]] = []
        i = self.ws(0)
        while True:
            # A value starts at i.
            c = s[i] if i < n else ""
            value: Value
            if c == "{" or c == "[":
                self.count(i)
                if len(stack) >= self.limits.max_depth:
                    raise _Fail(i, over("with_max_depth", self.limits.max_depth))
                i = self.ws(i + 1)
                if c == "[":
                    if i < n and s[i] == "]":
                        value, i = [], i + 1
                    else:
                        stack.append(([], ""))
                        continue
                elif i < n and s[i] == "}":
                    value, i = {}, i + 1
                else:
                    obj: dict[str, Value] = {}
                    key, i = self.key(i, obj)
                    stack.append((obj, key))
                    continue
            else:
                self.count(i)
                value, i = self.scalar(i, c)
            # A value ended at i: attach it and find what follows.
            while True:
                if not stack:
                    i = self.ws(i)
                    if i < n:
                        raise _Fail(i, Syntax.COMMENT if s[i] == "/" else Syntax.TRAILING_CONTENT)
                    return value
                container, key = stack[-1]
                i = self.ws(i)
                c = s[i] if i < n else ""
                if isinstance(container, list):
                    container.append(value)
                    if c == ",":
                        comma, i = i, self.ws(i + 1)
                        if i < n and s[i] == "]":
                            raise _Fail(comma, Syntax.TRAILING_COMMA)
                        break
                    if c == "]":
                        stack.pop()
                        value, i = container, i + 1
                        continue
                    raise _Fail(i, self.after(c, Syntax.EXPECTED_COMMA_OR_BRACKET))
                container[key] = value
                if c == ",":
                    comma, i = i, self.ws(i + 1)
                    if i < n and s[i] == "}":
                        raise _Fail(comma, Syntax.TRAILING_COMMA)
                    key, i = self.key(i, container)
                    stack[-1] = (container, key)
                    break
                if c == "}":
                    stack.pop()
                    value, i = container, i + 1
                    continue
                raise _Fail(i, self.after(c, Syntax.EXPECTED_COMMA_OR_BRACE))

    @staticmethod
    def after(c: str, expected: Syntax) -> Syntax:
        if c == "":
            return Syntax.UNEXPECTED_END
        return Syntax.COMMENT if c == "/" else expected

    def key(self, i: int, obj: dict[str, Value]) -> tuple[str, int]:
        """Read a member name and its colon; return the name and where its value starts."""
        s, n = self.s, self.n
        c = s[i] if i < n else ""
        if c != '"':
            if c == "":
                raise _Fail(i, Syntax.UNEXPECTED_END)
            raise _Fail(i, {"'": Syntax.SINGLE_QUOTE, "/": Syntax.COMMENT}.get(c, Syntax.EXPECTED_KEY))
        key, end = self.string(i)
        if key in obj:
            raise _Fail(i, DuplicateKey(key))
        end = self.ws(end)
        if end >= n:
            raise _Fail(end, Syntax.UNEXPECTED_END)
        if s[end] != ":":
            raise _Fail(end, Syntax.COMMENT if s[end] == "/" else Syntax.EXPECTED_COLON)
        return key, self.ws(end + 1)

    def scalar(self, i: int, c: str) -> tuple[Value, int]:
        s = self.s
        if c == '"':
            return self.string(i)
        if c == "-" or "0" <= c <= "9":
            return self.number(i)
        for word, literal in _LITERALS:
            if s.startswith(word, i):
                return literal, i + len(word)
        if c == "":
            raise _Fail(i, Syntax.UNEXPECTED_END)
        if c == "N" or c == "I":
            raise _Fail(i, Syntax.NON_FINITE)
        if c == "+":
            raise _Fail(i, Syntax.PLUS_SIGN)
        if c == "'":
            raise _Fail(i, Syntax.SINGLE_QUOTE)
        if c == "/":
            raise _Fail(i, Syntax.COMMENT)
        raise _Fail(i, Syntax.EXPECTED_VALUE)

    def number(self, i: int) -> tuple[Value, int]:
        s, limits = self.s, self.limits
        m = NUMBER.match(s, i)
        if m is None:
            after_sign = i + 1
            c = s[after_sign] if after_sign < self.n else ""
            raise _Fail(i, Syntax.NON_FINITE if c == "I" else Syntax.INVALID_NUMBER)
        end = m.end()
        nxt = s[end] if end < self.n else ""
        if "0" <= nxt <= "9":  # only "0" or "-0" can stop before a digit
            raise _Fail(i, Syntax.LEADING_ZERO)
        if nxt in (".", "e", "E"):
            raise _Fail(i, Syntax.INVALID_NUMBER)
        token = m.group()
        exp = m.group("exp")
        problem = number_problem(token, exp, limits)
        if problem is not None:
            raise _Fail(i, problem)
        if m.group("frac") is None and exp is None:
            # int() of a long string obeys sys.set_int_max_str_digits (as low as 640); Decimal does not.
            return (int(token) if len(token) <= _INT_STR_SAFE else int(Decimal(token))), end
        try:
            return Decimal(token), end
        except ArithmeticError:  # beyond what Decimal can hold: only possible with a raised exponent limit
            maximum = min(limits.max_exponent, decimal.MAX_EMAX)
            raise _Fail(i, over("with_max_exponent", maximum)) from None

    def string(self, i: int) -> tuple[str, int]:
        """Read a string starting at its opening quote; return it and the index after it."""
        s, n = self.s, self.n
        parts: list[str] = []
        j = i + 1
        while True:
            m = _CHUNK.match(s, j)
            j = m.end()  # type: ignore[union-attr]
            parts.append(m.group())  # type: ignore[union-attr]
            if j >= n:
                raise _Fail(i, Syntax.UNTERMINATED_STRING)
            c = s[j]
            if c == '"':
                return "".join(parts), j + 1
            if c != "\\":
                raise _Fail(j, Syntax.CONTROL_CHARACTER)
            esc = s[j + 1] if j + 1 < n else ""
            if esc in _ESCAPES:
                parts.append(_ESCAPES[esc])
                j += 2
                continue
            if esc == "":  # the input ends inside the string: report where the string starts
                raise _Fail(i, Syntax.UNTERMINATED_STRING)
            if esc != "u" or not _HEX4.match(s, j + 2):
                raise _Fail(j, Syntax.INVALID_ESCAPE)
            code = int(s[j + 2 : j + 6], 16)
            if 0xD800 <= code <= 0xDBFF:
                low = s[j + 8 : j + 12] if s.startswith("\\u", j + 6) else ""
                if not (_HEX4.fullmatch(low) and 0xDC00 <= int(low, 16) <= 0xDFFF):
                    raise _Fail(j, Syntax.LONE_SURROGATE)
                code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                j += 12
            elif 0xDC00 <= code <= 0xDFFF:
                raise _Fail(j, Syntax.LONE_SURROGATE)
            else:
                j += 6
            parts.append(chr(code))


def location(source: str, index: int) -> Location:
    line = source.count("\n", 0, index) + 1
    column = index - source.rfind("\n", 0, index)
    prefix = source[:index]
    offset = index if prefix.isascii() else len(prefix.encode("utf-8", "surrogatepass"))
    return Location(offset, line, column)


def byte_location(data: bytes, offset: int) -> Location:
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return Location(offset, data.count(b"\n", 0, offset) + 1, column)
