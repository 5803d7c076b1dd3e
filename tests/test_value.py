"""
Tests for ``llm_wire.value``: every strict rule with its location and typed reason, the limits, hostile input,
rendering and paths, and properties that hold both engines to each other and to the ``json`` module.

Each rule runs on ``str`` and ``bytes`` input and on both engines: ``fast`` is the public ``parse`` (the C
scanner first, the exact parser when it declines), ``exact`` is ``parse`` with the fast engine switched off.
"""

from __future__ import annotations

import contextlib
import decimal
import json
import re
import sys
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, Literal, Protocol, TypeAlias
from unittest import mock

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import (
    PARSER_EXAMPLES,
    JsonDoc,
    arbitrary_bytes,
    arbitrary_text,
    json_documents,
    json_values,
    to_value,
)

from llm_wire import value
from llm_wire.error import LimitExceeded
from llm_wire.result import Err, Ok, Result, unwrap
from llm_wire.value import (
    DEFAULT,
    DuplicateKey,
    Limits,
    Location,
    NotJson,
    ParseError,
    ParseReason,
    Path,
    Syntax,
    Value,
    _exact,
    _parse,
    is_limit_exceeded,
    parse,
    pointer,
    render,
    render_path,
)
from llm_wire.value._parse import parse_value

Engine: TypeAlias = Literal["fast", "exact"]
Kind: TypeAlias = Literal["str", "bytes"]
Parsed: TypeAlias = Result[Value, ParseError]

MIB = 1024 * 1024
ENGINES: tuple[Engine, ...] = ("fast", "exact")


class Parse(Protocol):
    def __call__(self, text: str, limits: Limits = ..., /) -> Parsed: ...


@contextlib.contextmanager
def fast_engines_off() -> Iterator[None]:
    """Every fast engine declines (jiter and the hooked C scanner), so ``parse`` takes the exact engine."""
    with (
        mock.patch.object(_parse, "_from_json", side_effect=ValueError),
        mock.patch.object(_parse, "_short", return_value=None),
        mock.patch.object(_parse, "_scanned", return_value=None),
        mock.patch.object(_parse, "_native", return_value=None),
    ):
        yield


def parse_with(text: str | bytes, limits: Limits = DEFAULT, *, engine: Engine = "fast") -> Parsed:
    """``parse`` on one engine: ``exact`` switches the fast engines off."""
    if engine == "exact":
        with fast_engines_off():
            return parse(text, limits)
    return parse(text, limits)


_DECLINED = ParseError(Location(0, 1, 1), Syntax.EXPECTED_VALUE)


def fast_engine(text: str, limits: Limits = DEFAULT) -> tuple[Value] | None:
    """The fast engines' answer: the value in a 1-tuple, or ``None`` when they leave it to the exact one."""
    with mock.patch.object(_parse, "exact", return_value=_DECLINED):
        parsed = parse_value(text, limits)
    return None if isinstance(parsed, ParseError) else (parsed,)


@pytest.fixture(params=["str", "bytes"])
def kind(request: pytest.FixtureRequest) -> Kind:
    chosen: Kind = request.param
    return chosen


@pytest.fixture(params=["fast", "exact"])
def engine(request: pytest.FixtureRequest) -> Engine:
    chosen: Engine = request.param
    return chosen


@pytest.fixture
def parse_as(kind: Kind, engine: Engine) -> Parse:
    """``parse`` for one input kind and one engine."""

    def run(text: str, limits: Limits = DEFAULT) -> Parsed:
        source: str | bytes = text if kind == "str" else text.encode("utf-8")
        return parse_with(source, limits, engine=engine)

    return run


def error_of(result: Parsed) -> ParseError:
    assert isinstance(result, Err), f"expected Err, got {result!r}"[:300]
    return result.error


def value_of(result: Parsed) -> Value:
    assert isinstance(result, Ok), f"expected Ok, got {result!r}"[:300]
    return result.value


def assert_same(actual: object, expected: object) -> None:
    """
    Equal with the same types all the way down: ``True`` is not ``1``, ``1`` is not ``Decimal(1)``, a
    decimal keeps its digits and exponent, and object keys keep their order.
    """
    stack: list[tuple[object, object]] = [(actual, expected)]
    while stack:
        a, e = stack.pop()
        assert type(a) is type(e), f"{type(a).__name__} where {type(e).__name__} was expected"
        if isinstance(a, Decimal) and isinstance(e, Decimal):
            assert a.as_tuple() == e.as_tuple()
        elif isinstance(a, list) and isinstance(e, list):
            assert len(a) == len(e)
            stack.extend(zip(a, e, strict=True))
        elif isinstance(a, dict) and isinstance(e, dict):
            assert list(a) == list(e)
            stack.extend(zip(a.values(), e.values(), strict=True))
        else:
            assert a == e


def depth_of(v: Value) -> int:
    """Nesting depth of containers, without recursion."""
    deepest = 0
    stack: list[tuple[Value, int]] = [(v, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, list | dict):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


# ---------------------------------------------------------------------------------------------------------
# The strict rules. Each case: the document, where the error is (UTF-8 byte offset, line, column), why.


@attrs.frozen
class Case:
    id: str
    text: str
    where: tuple[int, int, int]
    reason: ParseReason
    #: Whether ``text`` is a JSON value position on its own, so that it can sit inside a larger document.
    embeddable: bool = True


CASES = [
    # Duplicate keys, compared after unescaping.
    Case("duplicate key", '{"a": 1, "b": 2, "a": 3}', (17, 1, 18), DuplicateKey("a")),
    Case("duplicate after unescaping", '{"a": 1, "\\u0061": 2}', (9, 1, 10), DuplicateKey("a")),
    Case("duplicate non-ASCII key", '{"é": 1, "\\u00e9": 2}', (10, 1, 10), DuplicateKey("é")),
    Case("duplicate on a later line", '[\n  {"k": 1,\n   "k": 2}\n]', (16, 3, 4), DuplicateKey("k")),
    Case("duplicate empty key", '{"": 1, "": 2}', (8, 1, 9), DuplicateKey("")),
    # Surrogate escapes must come in high-low pairs.
    Case("lone high surrogate", '"\\ud800"', (1, 1, 2), Syntax.LONE_SURROGATE),
    Case("lone low surrogate", '"\\udc00"', (1, 1, 2), Syntax.LONE_SURROGATE),
    Case("reversed surrogates", '"\\udc00\\ud800"', (1, 1, 2), Syntax.LONE_SURROGATE),
    Case("high then non-low", '"ab\\ud83d\\u0041"', (3, 1, 4), Syntax.LONE_SURROGATE),
    Case("high at the end", '"ab\\uD83D"', (3, 1, 4), Syntax.LONE_SURROGATE),
    Case("high then high", '["\\ud83d\\ud83d"]', (2, 1, 3), Syntax.LONE_SURROGATE),
    Case("low after an escaped backslash", '"\\\\ud83d\\udc00"', (8, 1, 9), Syntax.LONE_SURROGATE),
    Case("high before an escaped backslash", '"\\ud83d\\\\udc00"', (1, 1, 2), Syntax.LONE_SURROGATE),
    Case("halves in two strings", '["\\ud83d", "\\ude00"]', (2, 1, 3), Syntax.LONE_SURROGATE),
    # Numbers.
    Case("NaN", "NaN", (0, 1, 1), Syntax.NON_FINITE),
    Case("Infinity", "[1, Infinity]", (4, 1, 5), Syntax.NON_FINITE),
    Case("-Infinity", "-Infinity", (0, 1, 1), Syntax.NON_FINITE),
    Case("leading zero", "01", (0, 1, 1), Syntax.LEADING_ZERO),
    Case("negative leading zero", "[-007]", (1, 1, 2), Syntax.LEADING_ZERO),
    Case("plus sign", "+1", (0, 1, 1), Syntax.PLUS_SIGN),
    Case("no fraction digits", "[1.]", (1, 1, 2), Syntax.INVALID_NUMBER),
    Case("no exponent digits", "1e+", (0, 1, 1), Syntax.INVALID_NUMBER),
    Case("lone minus", "[-]", (1, 1, 2), Syntax.INVALID_NUMBER),
    Case("no integer digits", ".5", (0, 1, 1), Syntax.EXPECTED_VALUE),
    # Comments, quotes, commas.
    Case("block comment", "[1, /* c */ 2]", (4, 1, 5), Syntax.COMMENT),
    Case("line comment", "[1 // c\n]", (3, 1, 4), Syntax.COMMENT),
    Case("comment after a value", "1 // c", (2, 1, 3), Syntax.COMMENT),
    Case("single-quoted string", "'a'", (0, 1, 1), Syntax.SINGLE_QUOTE),
    Case("single-quoted key", "{'a': 1}", (1, 1, 2), Syntax.SINGLE_QUOTE),
    Case("trailing comma in an array", "[1, 2, ]", (5, 1, 6), Syntax.TRAILING_COMMA),
    Case("trailing comma in an object", '{"a": 1,\n}', (7, 1, 8), Syntax.TRAILING_COMMA),
    Case("trailing comma before a newline", "[\n 1,\n\n]", (4, 2, 3), Syntax.TRAILING_COMMA),
    # Strings.
    Case("raw tab in a string", '"a\tb"', (2, 1, 3), Syntax.CONTROL_CHARACTER),
    Case("raw newline in a string", '["a\nb"]', (3, 1, 4), Syntax.CONTROL_CHARACTER),
    Case("raw NUL after non-ASCII", '"é\x00"', (3, 1, 3), Syntax.CONTROL_CHARACTER),
    Case("raw unit separator", '"\x1f"', (1, 1, 2), Syntax.CONTROL_CHARACTER),
    Case("unknown escape", '"\\x41"', (1, 1, 2), Syntax.INVALID_ESCAPE),
    Case("escaped single quote", '"\\\'"', (1, 1, 2), Syntax.INVALID_ESCAPE),
    Case("bad unicode escape", '["ok", "\\u12G4"]', (8, 1, 9), Syntax.INVALID_ESCAPE),
    Case("unterminated string", '"abc', (0, 1, 1), Syntax.UNTERMINATED_STRING, embeddable=False),
    Case("escape at the end", '"abc\\', (0, 1, 1), Syntax.UNTERMINATED_STRING, embeddable=False),
    # Structure.
    Case("trailing content", "[1] [2]", (4, 1, 5), Syntax.TRAILING_CONTENT, embeddable=False),
    Case("two scalars", '"a"\n"b"', (4, 2, 1), Syntax.TRAILING_CONTENT, embeddable=False),
    Case("empty document", "", (0, 1, 1), Syntax.UNEXPECTED_END, embeddable=False),
    Case("only whitespace", " \n\t ", (4, 2, 3), Syntax.UNEXPECTED_END, embeddable=False),
    Case("unclosed array", "[1,", (3, 1, 4), Syntax.UNEXPECTED_END, embeddable=False),
    Case("unclosed object", '{"a": ', (6, 1, 7), Syntax.UNEXPECTED_END, embeddable=False),
    Case("no-break space before", "\u00a0[1]", (0, 1, 1), Syntax.EXPECTED_VALUE, embeddable=False),
    Case("no-break space after", "[1]\u00a0", (3, 1, 4), Syntax.TRAILING_CONTENT, embeddable=False),
    Case("vertical tab inside", "[1,\x0b2]", (3, 1, 4), Syntax.EXPECTED_VALUE),
    Case("bare word", "[yes]", (1, 1, 2), Syntax.EXPECTED_VALUE),
    Case("missing comma in an array", "[1 2]", (3, 1, 4), Syntax.EXPECTED_COMMA_OR_BRACKET),
    Case("missing comma in an object", '{"a": 1 "b": 2}', (8, 1, 9), Syntax.EXPECTED_COMMA_OR_BRACE),
    Case("missing colon", '{"a" 1}', (5, 1, 6), Syntax.EXPECTED_COLON),
    Case("number as key", "{1: 2}", (1, 1, 2), Syntax.EXPECTED_KEY),
    Case("byte order mark", "\ufeff[1]", (0, 1, 1), Syntax.BYTE_ORDER_MARK, embeddable=False),
]

# A realistic tool-call document with non-ASCII text before the hole on the same line and above it, so
# that byte offsets and columns differ. The hole takes a value; everything around it is valid.
PREFIX = (
    "{\n"
    '  "tool": "search_files",\n'
    '  "city": "Zürich",\n'
    '  "arguments": {"pattern": "*.py", "limit": 25, "tags": ["naïve", "données"],\n'
    '    "filters": [{"size": 1.5e3, "owner": "Jürgen", "value": '
)
SUFFIX = '}], "recursive": true, "ratio": -0.25},\n  "count": 3\n}'


def embedded(case: Case) -> tuple[str, tuple[int, int, int]]:
    """The case's text in the hole of the realistic document, and where its error moves to."""
    offset, line, column = case.where
    last_line = PREFIX[PREFIX.rfind("\n") + 1 :]
    where = (
        len(PREFIX.encode("utf-8")) + offset,
        PREFIX.count("\n") + line,
        len(last_line) + column if line == 1 else column,
    )
    return PREFIX + case.text + SUFFIX, where


class TestRealisticDocument:
    """A realistic document parses as json.loads reads it."""

    def test_the_realistic_document_is_valid(self) -> None:
        """The surroundings of embedded cases parse, so an error can only come from the case."""
        parsed = value_of(parse(PREFIX + "null" + SUFFIX))
        assert isinstance(parsed, dict)
        assert list(parsed) == ["tool", "city", "arguments", "count"]


class TestRules:
    """Each strict rule, alone and deep inside a realistic document."""

    @pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
    def test_alone(self, parse_as: Parse, case: Case) -> None:
        """A tiny document breaking one rule is refused there, for that reason."""
        error = error_of(parse_as(case.text))
        assert error == ParseError(Location(*case.where), case.reason)

    @pytest.mark.parametrize("case", [c for c in CASES if c.embeddable], ids=lambda c: c.id)
    def test_embedded(self, parse_as: Parse, case: Case) -> None:
        """The same break deep inside an otherwise normal document is found at its place."""
        text, where = embedded(case)
        error = error_of(parse_as(text))
        assert error == ParseError(Location(*where), case.reason)

    def test_every_reason_has_a_case(self) -> None:
        """No ``Syntax`` member goes untested (invalid UTF-8 has its own bytes tests below)."""
        covered = {c.reason for c in CASES if isinstance(c.reason, Syntax)} | {Syntax.INVALID_UTF8}
        assert covered == set(Syntax)

    def test_engines_really_differ(self) -> None:
        """The ``exact`` switch takes the C scanner out, and ``fast`` really uses it."""
        plain = PREFIX + "[1, 2]" + SUFFIX
        with mock.patch.object(_exact._Parser, "run", side_effect=AssertionError("exact engine ran")):
            assert isinstance(parse_with(plain, engine="fast"), Ok)
            with pytest.raises(AssertionError, match="exact engine ran"):
                parse_with(plain, engine="exact")


class TestFastEngineShapes:
    """Shapes that stay on the fast engine."""

    def test_surrogate_pairs_stay_on_the_fast_engine(self) -> None:
        """Pairs, even after escaped backslashes, need no exact engine; the C scanner decodes them."""
        text = PREFIX + '["\\\\\\ud83d\\ude00", "\\\\", "\\u00e9\\uD83D\\uDE80"]' + SUFFIX
        with mock.patch.object(_exact._Parser, "run", side_effect=AssertionError("exact engine ran")):
            parsed = value_of(parse(text))
        assert isinstance(parsed, dict)
        arguments = parsed["arguments"]
        assert isinstance(arguments, dict)
        assert arguments["filters"] == [
            {"size": Decimal("1.5e3"), "owner": "Jürgen", "value": ["\\😀", "\\", "é🚀"]}
        ]


class TestAccepted:
    """What strict JSON allows still parses, to the exact value and type."""

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("0", 0),
            ("-0", 0),
            ("10", 10),
            ("-12345678901234567890123", -12345678901234567890123),
            ("1.0", Decimal("1.0")),
            ("0.1", Decimal("0.1")),
            ("-0.0", Decimal("-0.0")),
            ("1E+2", Decimal("1E+2")),
            ("2.5e-3", Decimal("0.0025")),
            ("true", True),
            ("false", False),
            ("null", None),
            ('"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\/\b\f\n\r\t'),
            ('"\\u0000\\u00e9\\u20AC"', "\x00é€"),
            ('"\\ud83d\\ude00 \\uD83D\\uDE00"', "😀 😀"),
            ('"\\\\\\ud83d\\ude00\\\\"', "\\😀\\"),
            ('"raw é 😀 \x7f \u2028"', "raw é 😀 \x7f \u2028"),
            (" \t\r\n[ 1 ,\n\t2 ] \r\n", [1, 2]),
            ('{"b": 1, "a": 2, "A": 3}', {"b": 1, "a": 2, "A": 3}),
            ('{"a": {"a": [{}, []]}}', {"a": {"a": [{}, []]}}),
        ],
    )
    def test_values(self, parse_as: Parse, text: str, expected: Value) -> None:
        assert_same(value_of(parse_as(text)), expected)

    def test_embedded_values(self, parse_as: Parse) -> None:
        """The realistic document reads to exact types: ``1.5e3`` stays a decimal, ``25`` an int."""
        parsed = value_of(parse_as(PREFIX + '"x"' + SUFFIX))
        assert isinstance(parsed, dict)
        arguments = parsed["arguments"]
        assert isinstance(arguments, dict)
        assert_same(arguments["limit"], 25)
        assert_same(arguments["ratio"], Decimal("-0.25"))
        assert_same(arguments["filters"], [{"size": Decimal("1.5e3"), "owner": "Jürgen", "value": "x"}])


class TestEncodings:
    """Bytes must be UTF-8 without a byte order mark; strings must be encodable."""

    @pytest.mark.parametrize(
        ("data", "where"),
        [
            (b'["ok", "\xff"]', (8, 1, 9)),
            (b'"\xe2\x82', (1, 1, 2)),  # cut short at the end
            (b'"\xc0\x80"', (1, 1, 2)),  # overlong NUL
            (b'"\xed\xa0\x80"', (1, 1, 2)),  # an encoded surrogate
            (b'"\xf4\x90\x80\x80"', (1, 1, 2)),  # beyond U+10FFFF
            (b'{\n "\xc3\xa9": "\xff"}', (10, 2, 8)),  # columns count characters, offsets bytes
            (b"\xff\xfe[\x001\x00]\x00", (0, 1, 1)),  # UTF-16 with its BOM: no sniffing
        ],
    )
    def test_invalid_utf8_at_the_first_bad_byte(
        self, engine: Engine, data: bytes, where: tuple[int, int, int]
    ) -> None:
        assert error_of(parse_with(data, engine=engine)) == ParseError(Location(*where), Syntax.INVALID_UTF8)

    def test_utf16_without_bom_is_not_sniffed(self, engine: Engine) -> None:
        """``json.loads`` guesses UTF-16 from NUL bytes; ``parse`` reads UTF-8 and meets a NUL."""
        data = "[1]".encode("utf-16-le")
        assert json.loads(data) == [1]
        assert error_of(parse_with(data, engine=engine)) == ParseError(
            Location(1, 1, 2), Syntax.EXPECTED_VALUE
        )

    def test_utf8_bom_in_bytes(self, engine: Engine) -> None:
        error = error_of(parse_with(b"\xef\xbb\xbf{}", engine=engine))
        assert error == ParseError(Location(0, 1, 1), Syntax.BYTE_ORDER_MARK)

    @pytest.mark.parametrize(
        ("text", "where"),
        [
            ('"\ud800"', (1, 1, 2)),
            ('["é", "\udfff"]', (8, 1, 8)),
            ("\udc00", (0, 1, 1)),
        ],
    )
    def test_raw_lone_surrogate_in_str(self, engine: Engine, text: str, where: tuple[int, int, int]) -> None:
        assert error_of(parse_with(text, engine=engine)) == ParseError(
            Location(*where), Syntax.LONE_SURROGATE
        )

    def test_bytearray_and_memoryview(self) -> None:
        assert value_of(parse(bytearray(b"[1]"))) == [1]  # type: ignore[arg-type]
        assert value_of(parse(memoryview(b'{"a": 2}'))) == {"a": 2}  # type: ignore[arg-type]

    def test_other_types_are_a_bug(self) -> None:
        with pytest.raises(TypeError, match="str or bytes"):
            parse(1)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------------
# Limits.

SETTERS = [
    ("with_max_bytes", "max_bytes"),
    ("with_max_depth", "max_depth"),
    ("with_max_values", "max_values"),
    ("with_max_number_bytes", "max_number_bytes"),
    ("with_max_number_digits", "max_number_digits"),
    ("with_max_exponent", "max_exponent"),
]


class TestLimitSettings:
    def test_defaults(self) -> None:
        assert Limits() == DEFAULT
        expected = Limits(
            max_bytes=1_048_576,
            max_depth=64,
            max_values=262_144,
            max_number_bytes=1024,
            max_number_digits=800,
            max_exponent=1200,
        )
        assert expected == DEFAULT

    @pytest.mark.parametrize(("setter", "field"), SETTERS)
    def test_setter_returns_a_changed_copy(self, setter: str, field: str) -> None:
        changed = getattr(DEFAULT, setter)(7)
        assert getattr(changed, field) == 7
        assert attrs.evolve(changed, **{field: getattr(DEFAULT, field)}) == DEFAULT
        assert Limits() == DEFAULT

    @pytest.mark.parametrize(("setter", "field"), SETTERS)
    @pytest.mark.parametrize("bad", [0, -1, True, 2.0, "5"])
    def test_setter_refuses_non_positive_ints(self, setter: str, field: str, bad: object) -> None:
        with pytest.raises(ValueError, match="positive int"):
            getattr(DEFAULT, setter)(bad)

    def test_frozen(self) -> None:
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            DEFAULT.max_depth = 3  # type: ignore[misc]


@attrs.frozen
class LimitCase:
    id: str
    limits: Limits
    ok: str
    bad: str
    where: tuple[int, int, int]
    reason: LimitExceeded


LIMIT_CASES = [
    LimitCase(
        "bytes",
        DEFAULT.with_max_bytes(8),
        "[1,2,34]",
        "[1,2,345]",
        (0, 1, 1),
        LimitExceeded("Limits.with_max_bytes", 8),
    ),
    LimitCase(
        "bytes of non-ASCII",
        DEFAULT.with_max_bytes(4),
        '"é"',
        '"é "',
        (0, 1, 1),
        LimitExceeded("Limits.with_max_bytes", 4),
    ),
    LimitCase(
        "UTF-8 bytes, not characters",
        DEFAULT.with_max_bytes(3),
        "[1]",
        '"é"',
        (0, 1, 1),
        LimitExceeded("Limits.with_max_bytes", 3),
    ),
    LimitCase(
        "depth",
        DEFAULT.with_max_depth(2),
        '[[1], {"a": 2}]',
        '[[1], {"a": []}]',
        (12, 1, 13),
        LimitExceeded("Limits.with_max_depth", 2),
    ),
    LimitCase(
        "depth of objects",
        DEFAULT.with_max_depth(2),
        '{"a": {}}',
        '{"a": {"b": {}}}',
        (12, 1, 13),
        LimitExceeded("Limits.with_max_depth", 2),
    ),
    LimitCase(
        "values",
        DEFAULT.with_max_values(4),
        '{"a": [1, 2]}',
        '{"a": [1, 2], "b": null}',
        (19, 1, 20),
        LimitExceeded("Limits.with_max_values", 4),
    ),
    LimitCase(
        "number bytes",
        DEFAULT.with_max_number_bytes(4),
        "[-123, 1e99]",
        "[1, -1234]",
        (4, 1, 5),
        LimitExceeded("Limits.with_max_number_bytes", 4),
    ),
    LimitCase(
        "number digits",
        DEFAULT.with_max_number_digits(3),
        "[0.00123, -999, 12.3e5]",
        "[1, 0.1234]",
        (4, 1, 5),
        LimitExceeded("Limits.with_max_number_digits", 3),
    ),
    LimitCase(
        "trailing zeros are digits",
        DEFAULT.with_max_number_digits(3),
        "[100]",
        "[100.0]",
        (1, 1, 2),
        LimitExceeded("Limits.with_max_number_digits", 3),
    ),
    LimitCase(
        "exponent",
        DEFAULT.with_max_exponent(10),
        "[1e10, 1E-10, 2e+010]",
        "[1, 1e-11]",
        (4, 1, 5),
        LimitExceeded("Limits.with_max_exponent", 10),
    ),
]


class TestLimits:
    @pytest.mark.parametrize("case", LIMIT_CASES, ids=lambda c: c.id)
    def test_at_the_limit(self, parse_as: Parse, case: LimitCase) -> None:
        """A document right at the bound parses."""
        assert isinstance(parse_as(case.ok, case.limits), Ok)

    @pytest.mark.parametrize("case", LIMIT_CASES, ids=lambda c: c.id)
    def test_over_the_limit(self, parse_as: Parse, case: LimitCase) -> None:
        """One step over is refused there, naming the setter that raises the bound."""
        error = error_of(parse_as(case.bad, case.limits))
        assert error == ParseError(Location(*case.where), case.reason)
        assert is_limit_exceeded(error)
        assert f"raise it with {case.reason.setting}" in str(error)

    @pytest.mark.parametrize("case", LIMIT_CASES, ids=lambda c: c.id)
    def test_the_default_takes_it(self, parse_as: Parse, case: LimitCase) -> None:
        assert isinstance(parse_as(case.bad), Ok)

    def test_invalid_is_not_too_large(self) -> None:
        for case in CASES:
            assert not is_limit_exceeded(error_of(parse(case.text)))


class TestDefaultLimits:
    """The defaults sit where the design says: the last allowed document parses, the next is refused."""

    def test_depth_64(self, engine: Engine) -> None:
        assert depth_of(value_of(parse_with("[" * 64 + "]" * 64, engine=engine))) == 64
        error = error_of(parse_with('{"a":' * 65 + "1" + "}" * 65, engine=engine))
        assert error == ParseError(Location(320, 1, 321), LimitExceeded("Limits.with_max_depth", 64))

    def test_800_digits(self, engine: Engine) -> None:
        assert value_of(parse_with("-" + "9" * 800, engine=engine)) == -(10**800 - 1)
        error = error_of(parse_with("[" + "9" * 801 + "]", engine=engine))
        assert error == ParseError(Location(1, 1, 2), LimitExceeded("Limits.with_max_number_digits", 800))

    def test_801_digits_anywhere(self) -> None:
        """The fast engine's pre-scan finds an over-long integer at every offset, not just some."""
        for offset in range(1700):
            text = " " * offset + "[" + "9" * 801 + "]"
            error = error_of(parse(text))
            assert error == ParseError(
                Location(offset + 1, 1, offset + 2), LimitExceeded("Limits.with_max_number_digits", 800)
            )

    def test_1024_number_bytes(self, engine: Engine) -> None:
        assert value_of(parse_with("0." + "0" * 1021 + "1", engine=engine)) == Decimal("1e-1022")
        error = error_of(parse_with("0." + "0" * 1022 + "1", engine=engine))
        assert error == ParseError(Location(0, 1, 1), LimitExceeded("Limits.with_max_number_bytes", 1024))

    def test_exponent_1200(self, engine: Engine) -> None:
        assert value_of(parse_with("[1e1200, -1E-1200, 1e+0001200]", engine=engine)) == [
            Decimal("1e1200"),
            Decimal("-1e-1200"),
            Decimal("1e1200"),
        ]
        error = error_of(parse_with("[0, 1e1201]", engine=engine))
        assert error == ParseError(Location(4, 1, 5), LimitExceeded("Limits.with_max_exponent", 1200))

    def test_262144_values(self, engine: Engine) -> None:
        at_limit = "[" + "0," * 262_142 + "0]"
        parsed = value_of(parse_with(at_limit, engine=engine))
        assert isinstance(parsed, list)
        assert len(parsed) == 262_143
        error = error_of(parse_with(at_limit[:-1] + ",0]", engine=engine))
        assert error == ParseError(
            Location(524_287, 1, 524_288), LimitExceeded("Limits.with_max_values", 262_144)
        )

    def test_one_mebibyte(self, parse_as: Parse) -> None:
        at_limit = '"' + "a" * (MIB - 2) + '"'
        assert len(at_limit) == MIB
        assert isinstance(parse_as(at_limit), Ok)
        error = error_of(parse_as(at_limit + " "))
        assert error == ParseError(Location(0, 1, 1), LimitExceeded("Limits.with_max_bytes", MIB))


class TestHostileInput:
    """What bad input gets: a typed error, never an escaping exception, and no work beyond the bounds."""

    @pytest.mark.parametrize(
        ("text", "where"),
        [
            ("[" * 100_000, (64, 1, 65)),
            ("[" * 100_000 + "]" * 100_000, (64, 1, 65)),
            ("[{}," * 100_000, (253, 1, 254)),  # the 64th "[" opens at 252; its "{" is level 65
            ('{"a":' * 100_000, (320, 1, 321)),
        ],
        ids=["open", "closed", "mixed", "objects"],
    )
    def test_deep_nesting_is_a_depth_error(
        self, parse_as: Parse, text: str, where: tuple[int, int, int]
    ) -> None:
        error = error_of(parse_as(text))
        assert error == ParseError(Location(*where), LimitExceeded("Limits.with_max_depth", 64))

    @pytest.mark.parametrize(
        ("text", "where"),
        [
            ("[]" + ",[]" * 69, (2, 1, 3)),
            ("[1]]" + ",[1]" * 69 + ",[[1]", (3, 1, 4)),
        ],
        ids=["values side by side", "closes and reopens"],
    )
    def test_several_values_with_many_containers(
        self, parse_as: Parse, text: str, where: tuple[int, int, int]
    ) -> None:
        """
        Values side by side, with more containers than ``max_depth``: the fast engine reads such a document
        inside arrays that spend the rest of jiter's depth, where it is one array of many. Still refused.
        """
        error = error_of(parse_as(text))
        assert error == ParseError(Location(*where), Syntax.TRAILING_CONTENT)

    def test_raised_depth_parses_on_the_exact_engine(self, engine: Engine) -> None:
        """5,000 levels are far beyond the C scanner's recursion, so the exact engine builds them."""
        limits = DEFAULT.with_max_depth(5000)
        assert depth_of(value_of(parse_with("[" * 5000 + "]" * 5000, limits, engine=engine))) == 5000
        error = error_of(parse_with("[" * 5001 + "]" * 5001, limits, engine=engine))
        assert error == ParseError(Location(5000, 1, 5001), LimitExceeded("Limits.with_max_depth", 5000))

    def test_huge_integer_is_a_number_limit_error(self, parse_as: Parse) -> None:
        error = error_of(parse_as("1" * 100_000))
        assert error == ParseError(Location(0, 1, 1), LimitExceeded("Limits.with_max_number_bytes", 1024))
        error = error_of(parse_as("[true, " + "1" * 100_000 + "]", DEFAULT.with_max_number_bytes(100_000)))
        assert error == ParseError(Location(7, 1, 8), LimitExceeded("Limits.with_max_number_digits", 800))

    @pytest.mark.parametrize(
        ("text", "where"),
        [("1e9999100000000000000", (0, 1, 1)), ("[0.5E-99999999999999999999]", (1, 1, 2))],
    )
    def test_exponent_beyond_decimal(self, parse_as: Parse, text: str, where: tuple[int, int, int]) -> None:
        """With the exponent limit raised past what ``Decimal`` holds, the number is still refused."""
        error = error_of(parse_as(text, DEFAULT.with_max_exponent(10**30)))
        assert error == ParseError(
            Location(*where), LimitExceeded("Limits.with_max_exponent", decimal.MAX_EMAX)
        )

    def test_huge_integer_with_raised_limits_is_exact(self, engine: Engine) -> None:
        limits = DEFAULT.with_max_number_bytes(100_000).with_max_number_digits(100_000)
        assert value_of(parse_with("1" * 100_000, limits, engine=engine)) == (10**100_000 - 1) // 9

    def test_integers_ignore_the_interpreter_digit_limit(self, engine: Engine) -> None:
        """``sys.set_int_max_str_digits`` may be as low as 640; the default 800 digits still parse."""
        before = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(640)
        try:
            parsed = value_of(parse_with("[" + "7" * 800 + "]", engine=engine))
        finally:
            sys.set_int_max_str_digits(before)
        assert parsed == [(10**800 - 1) // 9 * 7]

    @pytest.mark.parametrize(
        ("text", "where"),
        [
            ("1e999999", (0, 1, 1)),
            ("-1E-999999", (0, 1, 1)),
            ("[0.5e+999999999999999999999999999999]", (1, 1, 2)),
            ('{"n": 1e0000000000000000000001201}', (6, 1, 7)),
        ],
    )
    def test_huge_exponent_is_an_exponent_error(
        self, parse_as: Parse, text: str, where: tuple[int, int, int]
    ) -> None:
        error = error_of(parse_as(text))
        assert error == ParseError(Location(*where), LimitExceeded("Limits.with_max_exponent", 1200))

    @pytest.mark.parametrize(
        "text",
        [
            '"' + "a" * (2 * MIB) + '"',
            '"' + "é" * (MIB // 2 + 1) + '"',  # fewer characters than the limit, more bytes
            "}" * (2 * MIB),  # garbage: a scan would call it a syntax error first
            "\ud800" * (2 * MIB),  # lone surrogates would be found by any encoding step
        ],
        ids=["ascii", "non-ascii", "garbage", "surrogates"],
    )
    def test_two_mebibytes_of_str(self, engine: Engine, text: str) -> None:
        error = error_of(parse_with(text, engine=engine))
        assert error == ParseError(Location(0, 1, 1), LimitExceeded("Limits.with_max_bytes", MIB))

    @pytest.mark.parametrize(
        "data",
        [b"[" + b"1," * MIB + b"1]", b"\xff" * (2 * MIB), b"\xef\xbb\xbf" * MIB],
        ids=["json", "invalid-utf8", "boms"],
    )
    def test_two_mebibytes_of_bytes(self, engine: Engine, data: bytes) -> None:
        error = error_of(parse_with(data, engine=engine))
        assert error == ParseError(Location(0, 1, 1), LimitExceeded("Limits.with_max_bytes", MIB))

    def test_the_byte_limit_comes_before_any_parsing_work(self) -> None:
        """Neither engine runs on an oversized document."""
        with (
            mock.patch.object(_parse, "_from_json", side_effect=AssertionError("fast engine ran")),
            mock.patch.object(_parse, "_native", side_effect=AssertionError("fast engine ran")),
            mock.patch.object(_exact, "_Parser", side_effect=AssertionError("exact engine ran")),
        ):
            for source in ("[" * (2 * MIB), b"[" * (2 * MIB)):
                assert is_limit_exceeded(error_of(parse(source)))


# ---------------------------------------------------------------------------------------------------------
# Error text.

SECRET = "sk-live-4242-SECRET"


class TestErrorText:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("[1, 2, ]", "invalid JSON at line 1, column 6: trailing comma"),
            ('{\n  "a": 1,\n  "a": 2\n}', "invalid JSON at line 3, column 3: duplicate object key"),
            ("NaN", "invalid JSON at line 1, column 1: NaN and Infinity are not JSON numbers"),
            ('"\\ud800"', "invalid JSON at line 1, column 2: unpaired UTF-16 surrogate"),
            (
                "[" * 65,
                "invalid JSON at line 1, column 65: nesting depth exceeds 64 "
                "(raise it with Limits.with_max_depth)",
            ),
            (
                "1e1201",
                "invalid JSON at line 1, column 1: exponent of a number exceeds 1200 "
                "(raise it with Limits.with_max_exponent)",
            ),
        ],
    )
    def test_text(self, text: str, expected: str) -> None:
        error = error_of(parse(text))
        assert str(error) == expected
        assert error.describe() == expected

    @pytest.mark.parametrize(
        "text",
        [
            f'{{"{SECRET}": 1, "{SECRET}": 2}}',
            f'"{SECRET}\x01"',
            f'"{SECRET}',
            f'"{SECRET}\\q"',
            f"{SECRET}",
            f"[1, {SECRET}]",
            f"{{}} {SECRET}",
            f"'{SECRET}'",
            f'{{"token": "{SECRET}", }}',
            f'["{SECRET}", "\\udc00"]',
            f'["{SECRET}", ' + "4242" * 300 + "]",
            f'["{SECRET}", ' + "[" * 100,
        ],
    )
    def test_no_input_in_the_text(self, kind: Kind, text: str) -> None:
        source: str | bytes = text if kind == "str" else text.encode("utf-8")
        error = error_of(parse(source))
        for rendered in (str(error), error.describe(), f"{error}"):
            assert SECRET not in rendered
            assert "4242" not in rendered
            assert re.fullmatch(r'invalid JSON at line \d+, column \d+: [^"]+', rendered)

    def test_no_input_in_invalid_utf8_text(self) -> None:
        error = error_of(parse(f'"{SECRET}\xff"'.encode("latin-1")))
        assert SECRET not in str(error)
        assert error.reason is Syntax.INVALID_UTF8


# ---------------------------------------------------------------------------------------------------------
# Rendering and paths.


class TestRender:
    def test_compact(self) -> None:
        assert render({"a": [1, 2, {}], "b": None, "c": [True, False, []]}) == (
            '{"a":[1,2,{}],"b":null,"c":[true,false,[]]}'
        )

    def test_insertion_order(self) -> None:
        assert render({"b": 1, "a": 2, "c": {"z": 0, "y": 1}}) == '{"b":1,"a":2,"c":{"z":0,"y":1}}'

    @pytest.mark.parametrize(
        ("number", "text"),
        [
            (Decimal("0.1"), "0.1"),
            (Decimal("1.10"), "1.10"),
            (Decimal("-0.000001"), "-0.000001"),
            (Decimal("1E+400"), "1E+400"),
            (Decimal("123456789012345678901234567890.123456789"), "123456789012345678901234567890.123456789"),
            (Decimal("-0"), "-0"),
            (10**30, "1000000000000000000000000000000"),
            (-7, "-7"),
        ],
    )
    def test_exact_numbers(self, number: Decimal | int, text: str) -> None:
        assert render(number) == text

    def test_bool_is_not_int(self) -> None:
        assert render([True, 1, False, 0]) == "[true,1,false,0]"

    def test_integers_beyond_the_interpreter_digit_limit(self) -> None:
        assert render(10**5000) == "1" + "0" * 5000
        assert render([-(10**5000)]) == "[-1" + "0" * 5000 + "]"

    def test_strings(self) -> None:
        assert render('"\\/\b\f\n\r\t\x00\x1f\x7f é😀') == '"\\"\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\x7f é😀"'
        assert render({'k"\n': "v"}) == '{"k\\"\\n":"v"}'

    @pytest.mark.parametrize(
        ("bad", "path", "text"),
        [
            (float("nan"), (), "$: a JSON number must be finite"),
            ({"a": [1, {"b": float("-inf")}]}, ("a", 1, "b"), '$["a"][1]["b"]: a JSON number must be finite'),
            ([Decimal("NaN")], (0,), "$[0]: a JSON number must be finite"),
            ({"x": Decimal("-Infinity")}, ("x",), '$["x"]: a JSON number must be finite'),
            ([Decimal("sNaN")], (0,), "$[0]: a JSON number must be finite"),
            ({"a": {1: 2}}, ("a",), '$["a"]: object keys must be strings'),
            ({None: 2}, (), "$: object keys must be strings"),
            (["ok", "\ud800"], (1,), "$[1]: a string holds an unpaired surrogate"),
            ({"\udfff": 1}, (), "$: a string holds an unpaired surrogate"),
            ({"s": {1, 2}}, ("s",), '$["s"]: set is not a JSON value'),
            ([(1, 2)], (0,), "$[0]: tuple is not a JSON value"),
            ([b"raw"], (0,), "$[0]: bytes is not a JSON value"),
        ],
    )
    def test_refuses_what_is_not_json(self, bad: object, path: Path, text: str) -> None:
        with pytest.raises(NotJson) as info:
            render(bad)  # type: ignore[arg-type]
        assert info.value.path == path
        assert str(info.value) == text
        assert isinstance(info.value, TypeError)

    @given(st.floats(allow_nan=False, allow_infinity=False))
    def test_finite_floats_render_exactly(self, number: float) -> None:
        """A float from ``json.loads`` or an SDK renders as its shortest repr, which reads back the same."""
        loaded: Any = json.loads(json.dumps([number]))  # as json.loads hands it over: typed Any
        text = render(loaded)
        parsed = value_of(parse(text))
        assert isinstance(parsed, list)
        assert isinstance(parsed[0], Decimal | int)
        assert float(parsed[0]) == number
        assert text == f"[{number!r}]"

    def test_deep_lists(self) -> None:
        deep: list[Value] = []
        for _ in range(100_000):
            deep = [deep]
        text = render(deep)
        assert text == "[" * 100_001 + "]" * 100_001
        parsed = value_of(parse(text, DEFAULT.with_max_depth(100_001)))
        assert render(parsed) == text

    def test_deep_objects(self) -> None:
        deep: Value = None
        for _ in range(100_000):
            deep = {"a": deep}
        assert render(deep) == '{"a":' * 100_000 + "null" + "}" * 100_000


class TestPaths:
    @pytest.mark.parametrize(
        ("path", "text"),
        [
            ((), "$"),
            (("a", 0), '$["a"][0]'),
            ((3, "b", 12), '$[3]["b"][12]'),
            (('say "hi"',), '$["say \\"hi\\""]'),
            (("back\\slash", "new\nline"), '$["back\\\\slash"]["new\\nline"]'),
            (("", "é", "~/"), '$[""]["é"]["~/"]'),
        ],
    )
    def test_render_path(self, path: Path, text: str) -> None:
        assert render_path(path) == text

    @pytest.mark.parametrize(
        ("path", "text"),
        [
            ((), ""),
            (("a", 0), "/a/0"),
            (("",), "/"),
            (("a/b", "m~n"), "/a~1b/m~0n"),
            (("~1",), "/~01"),  # "~" first, or "~1" would come back as "/"
            (("/~",), "/~1~0"),
            (('"q"', "é", " "), '/"q"/é/ '),
        ],
    )
    def test_pointer(self, path: Path, text: str) -> None:
        assert pointer(path) == text


# ---------------------------------------------------------------------------------------------------------
# Properties.


def as_parsed(v: Value) -> Value:
    """What parsing ``render(v)`` gives: a decimal written like an integer token reads back as ``int``."""
    if isinstance(v, Decimal) and re.fullmatch(r"-?[0-9]+", str(v)):
        return int(str(v))
    if isinstance(v, list):
        return [as_parsed(item) for item in v]
    if isinstance(v, dict):
        return {key: as_parsed(item) for key, item in v.items()}
    return v


def check_against_oracles(source: str | bytes) -> None:
    """
    ``parse`` does not raise; both engines give the same result; whatever ``json.loads`` refuses is refused,
    and what ``parse`` accepts ``json.loads`` reads to the same value; errors are located inside the input.
    """
    result = parse(source)
    exact = parse_with(source, engine="exact")
    try:
        loaded: object = json.loads(source, parse_float=Decimal)
    except (ValueError, RecursionError, ArithmeticError):  # ArithmeticError: Decimal("1e9999999999999999999")
        assert isinstance(result, Err)
        loaded = None
    match result:
        case Ok(parsed):
            assert isinstance(exact, Ok)
            assert_same(parsed, exact.value)
            assert_same(parsed, loaded)
        case Err(error):
            assert exact == result
            size = len(source) if isinstance(source, bytes) else len(source.encode("utf-8", "surrogatepass"))
            assert 0 <= error.location.byte_offset <= size
            assert error.location.line >= 1
            assert error.location.column >= 1
            assert str(error).startswith(f"invalid JSON at line {error.location.line}, column ")


class TestProperties:
    """Parse and render properties against json."""

    @settings(max_examples=PARSER_EXAMPLES)
    @given(doc=json_documents(), ensure_ascii=st.booleans(), indent=st.none() | st.integers(0, 2))
    def test_reads_what_json_dumps_writes(self, doc: JsonDoc, ensure_ascii: bool, indent: int | None) -> None:
        """Every document ``json.dumps`` writes parses to it, floats read exactly as ``Decimal(repr(f))``."""
        text = json.dumps(doc, ensure_ascii=ensure_ascii, indent=indent)
        expected = to_value(doc)
        for source in (text, text.encode("utf-8")):
            for engine in ENGINES:
                assert_same(value_of(parse_with(source, engine=engine)), expected)

    @settings(max_examples=PARSER_EXAMPLES)
    @given(json_values())
    def test_render_round_trip(self, v: Value) -> None:
        """``parse(render(v)) == Ok(v)``, and ``json.loads`` reads the same text the same way."""
        text = render(v)
        parsed = parse(text)
        assert parsed == Ok(v)
        assert_same(value_of(parsed), as_parsed(v))
        assert_same(value_of(parse_with(text.encode("utf-8"), engine="exact")), as_parsed(v))
        assert_same(json.loads(text, parse_float=Decimal), as_parsed(v))

    @settings(max_examples=PARSER_EXAMPLES)
    @given(arbitrary_text())
    def test_arbitrary_text(self, text: str) -> None:
        """Any string, and valid documents with a few characters inserted, deleted or replaced."""
        check_against_oracles(text)

    @settings(max_examples=PARSER_EXAMPLES)
    @given(arbitrary_bytes())
    def test_arbitrary_bytes(self, data: bytes) -> None:
        """Any bytes, broken UTF-8, and the UTF-8 of mutated documents."""
        check_against_oracles(data)


class TestEngineChoice:
    """Documents within every limit stay on the fast engine, whatever their shape."""

    def test_a_long_digit_run_inside_a_string_stays_fast(self) -> None:
        """A 1,000-digit id inside a string breaks no number limit: the C scanner parses it."""
        source = '{"id": "' + "7" * 1000 + '", "n": 12}'
        assert fast_engine(source) == ({"id": "7" * 1000, "n": 12},)

    def test_a_long_integer_token_still_goes_to_the_exact_engine(self) -> None:
        """An integer token over the digit limit is refused by the exact engine, with its location."""
        source = '{"id": "' + "7" * 1000 + '", "n": ' + "1" * 900 + "}"
        assert fast_engine(source) is None
        error = error_of(parse(source))
        assert error.reason == LimitExceeded("Limits.with_max_number_digits", 800)
        assert error.location.byte_offset == source.index('"n"') + 5


class TestToPlain:
    """to_plain turns exact numbers into floats for json.dumps, refusing those no float holds."""

    def test_numbers(self) -> None:
        """Decimals become floats, ints stay ints, and json.dumps takes the result."""
        v = value_of(
            parse('{"price": 0.1, "count": 10, "ratio": 1.0, "big": 12345678901234567890, "l": [1e2]}')
        )
        plain = unwrap(value.to_plain(v))
        assert plain == {"price": 0.1, "count": 10, "ratio": 1.0, "big": 12345678901234567890, "l": [100.0]}
        assert isinstance(plain, dict)
        assert type(plain["count"]) is int
        assert type(plain["ratio"]) is float
        assert (
            json.dumps(plain)
            == '{"price": 0.1, "count": 10, "ratio": 1.0, "big": 12345678901234567890, "l": [100.0]}'
        )

    @pytest.mark.parametrize("text", ["1e400", "-1e400", "1e-400"])
    def test_out_of_range(self, text: str) -> None:
        """A number that would become inf or 0.0 is a typed error with its path, never a silent float."""
        v = value_of(parse('{"a": [0, {"b": ' + text + "}]}"))
        assert value.to_plain(v) == Err(value.UnrepresentableNumber(("a", 1, "b")))
        error = value.to_plain(v)
        assert isinstance(error, Err)
        assert str(error.error) == "a number is outside the range of a float"

    def test_deep_values_do_not_recurse(self) -> None:
        """Nesting far beyond the recursion limit converts."""
        deep: Value = 1
        for _ in range(sys.getrecursionlimit() * 3):
            deep = [deep]
        assert isinstance(value.to_plain(deep), Ok)

    def test_not_json(self) -> None:
        """A Python object that is not a JSON value is a bug: NotJson, as render raises."""
        with pytest.raises(value.NotJson):
            value.to_plain({"a": {1, 2}})  # type: ignore[dict-item]

    @settings(max_examples=PARSER_EXAMPLES)
    @given(json_values())
    def test_agrees_with_json(self, v: Value) -> None:
        """Each ``Decimal`` becomes its nearest float, the rest as json.loads reads it; an error points at a
        number no float holds."""
        match value.to_plain(v):
            case Ok(plain):
                assert _typed(plain) == _typed(_floated(json.loads(render(v)), v))
            case Err(error):
                number: Any = v
                for segment in error.path:
                    number = number[segment]
                assert isinstance(number, Decimal)
                assert float(number) in (float("inf"), float("-inf")) or (float(number) == 0 and number != 0)


def _floated(read: Any, source: Any) -> Any:
    """``read`` (json.loads of ``render(source)``) with a float wherever ``source`` held a ``Decimal``."""
    if isinstance(source, list):
        return [_floated(r, s) for r, s in zip(read, source, strict=True)]
    if isinstance(source, dict):
        return {key: _floated(read[key], item) for key, item in source.items()}
    return float(source) if isinstance(source, Decimal) else read


def _typed(tree: object) -> object:
    """A value with each number tagged by its type, so ``1`` and ``Decimal("1")`` differ."""
    if isinstance(tree, list):
        return [_typed(item) for item in tree]
    if isinstance(tree, dict):
        return {key: _typed(item) for key, item in tree.items()}
    return (type(tree).__name__, tree)


_TIGHT = (
    DEFAULT,
    DEFAULT.with_max_depth(3),
    DEFAULT.with_max_depth(1).with_max_values(6),
    DEFAULT.with_max_number_digits(3).with_max_number_bytes(6).with_max_exponent(9),
    DEFAULT.with_max_values(4),
)


class TestEnginesAgree:
    """The fast engine answers only what the exact engine would answer, and answers it the same."""

    @settings(max_examples=PARSER_EXAMPLES)
    @given(arbitrary_text(), st.sampled_from(_TIGHT))
    def test_fast_never_disagrees_with_exact(self, text: str, limits: Limits) -> None:
        """Where the fast engine gives a value, the exact engine gives that value with the same types."""
        exact = parse_with(text, limits, engine="exact")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return  # ``parse`` refuses a lone surrogate before any engine runs
        fast = fast_engine(text, limits)
        if fast is not None:
            assert isinstance(exact, Ok), "the fast engine accepted what the exact engine refuses"
            assert _typed(fast[0]) == _typed(exact.value)

    @settings(max_examples=PARSER_EXAMPLES)
    @given(json_documents(), st.sampled_from(_TIGHT))
    def test_valid_documents_agree(self, doc: JsonDoc, limits: Limits) -> None:
        """On documents ``json.dumps`` writes, under tight limits: refused by one, declined by the other."""
        text = json.dumps(doc)
        exact = parse_with(text, limits, engine="exact")
        fast = fast_engine(text, limits)
        if isinstance(exact, Err):
            assert fast is None
        elif fast is not None:  # it may decline (at exactly ``max_depth``): the exact engine reads it
            assert _typed(fast[0]) == _typed(exact.value)

    def test_a_document_at_the_depth_limit_still_parses(self) -> None:
        """At exactly ``max_depth`` the fast engine may decline; ``parse`` still gives the value."""
        for text in ("[" * 64 + "1" + "]" * 64, '{"a":' * 63 + "[]" + "}" * 63, "[" * 64 + "]" * 64):
            assert isinstance(parse(text), Ok)
            assert isinstance(parse("[" + text + "]"), Err)


class TestNumberShapes:
    """The pre-scan for number tokens that may break a limit tells strings from numbers."""

    def test_an_exponent_like_id_beside_escaped_quotes_stays_native(self) -> None:
        """``fc_68ebe7381`` holds "e7381"; inside a string (next to ``\\"``) it costs no careful scan."""
        source = '{"item_id": "fc_68ebe7381", "delta": "{\\"city\\": \\"Par"}'
        with mock.patch.object(_parse, "_scanned", side_effect=AssertionError("careful scan ran")):
            assert fast_engine(source) == ({"item_id": "fc_68ebe7381", "delta": '{"city": "Par'},)

    def test_a_big_exponent_after_an_escaped_quote_is_still_refused(self) -> None:
        """An exponent outside strings is found whatever escapes come before it."""
        source = '{"s": "a\\"b", "n": 1e9999}'
        assert fast_engine(source) is None
        assert error_of(parse(source)).reason == LimitExceeded("Limits.with_max_exponent", 1200)

    def test_an_escaped_backslash_sends_suspects_to_the_careful_scan(self) -> None:
        """After ``\\\\`` a quote may be real or not: the careful scan decides, and agrees."""
        many = [1] * _parse._FEW_COMMAS  # more values than ``_few_values`` reads: the pre-scan decides
        source = (
            '{"s": "a\\\\", "id": "1e12345", "many": ' + json.dumps(many) + ', "pad": "' + "x" * 900 + '"}'
        )
        with mock.patch.object(_parse, "_scanned", wraps=_parse._scanned) as scanned:
            assert fast_engine(source) == ({"s": "a\\", "id": "1e12345", "many": many, "pad": "x" * 900},)
        assert scanned.called


#: A text long enough that no integer token next to it can be over the limits by length alone.
_PAD = "x" * 1000


def _number_tokens() -> st.SearchStrategy[str]:
    """Number tokens with the zeros a value does not keep: leading zeros of the fraction and the exponent."""
    return st.builds(
        lambda sign, whole, zeros, fraction, mark, exp_zeros, exponent: (
            sign
            + whole
            + ("." + "0" * zeros + fraction if fraction is not None else "")
            + (mark + "0" * exp_zeros + exponent if exponent is not None else "")
        ),
        st.sampled_from(["", "-"]),
        st.sampled_from(["0", "1", "12", "9" * 5]),
        st.integers(0, 12),
        st.none() | st.sampled_from(["0", "5", "25", "1" * 4]),
        st.sampled_from(["e", "E+", "e-"]),
        st.integers(0, 12),
        st.none() | st.sampled_from(["0", "3", "9", "10", "1200", "1201"]),
    )


class TestFewValues:
    """A long document of few values is read by jiter and checked value by value, and agrees with the exact
    engine on every number limit, leading zeros included."""

    def test_a_long_text_with_a_few_scalars_skips_the_pre_scan(self) -> None:
        """A 2,000-digit id, a long text and two numbers: no pre-scan of the bytes, no careful scan."""
        doc = {"id": "7" * 2000, "text": "x" * 8000, "n": 12, "t": Decimal("0.5")}
        with (
            mock.patch.object(_parse._FastEngine, "suspects", side_effect=AssertionError("pre-scan ran")),
            mock.patch.object(_parse, "_scanned", side_effect=AssertionError("careful scan ran")),
        ):
            assert fast_engine(json.dumps(doc, default=str).replace('"0.5"', "0.5")) == (doc,)

    @pytest.mark.parametrize(
        ("number", "reason"),
        [
            ("1e" + "0" * 1100 + "5", LimitExceeded("Limits.with_max_number_bytes", 1024)),
            ("0." + "0" * 1100 + "1", LimitExceeded("Limits.with_max_number_bytes", 1024)),
            ("1e1201", LimitExceeded("Limits.with_max_exponent", 1200)),
            ("1" * 801, LimitExceeded("Limits.with_max_number_digits", 800)),
            ("0." + "1" * 801, LimitExceeded("Limits.with_max_number_digits", 800)),
        ],
        ids=["exponent-zeros", "fraction-zeros", "exponent", "integer-digits", "fraction-digits"],
    )
    def test_numbers_over_a_limit_are_still_refused(self, number: str, reason: LimitExceeded) -> None:
        """Zeros the value drops still count: the document goes to the engines that see its bytes."""
        source = '{"text": "' + _PAD + '", "n": ' + number + "}"
        assert fast_engine(source) is None
        assert error_of(parse(source)).reason == reason

    def test_a_deep_document_of_few_values_is_refused(self) -> None:
        """Nesting past ``max_depth`` is found by the walk, whatever the byte count."""
        source = "[" * 65 + '"' + _PAD + '"' + "]" * 65
        assert is_limit_exceeded(error_of(parse(source)))
        assert isinstance(parse(source[1:-1]), Ok)

    @settings(max_examples=PARSER_EXAMPLES)
    @given(st.lists(_number_tokens(), min_size=1, max_size=4), st.sampled_from(_TIGHT))
    def test_agrees_with_the_exact_engine(self, numbers: list[str], limits: Limits) -> None:
        """Whatever its zeros and limits, a number is read as the exact engine reads it, or refused alike."""
        source = '{"text": "' + _PAD + '", "n": [' + ", ".join(numbers) + "]}"
        exact = parse_with(source, limits, engine="exact")
        assert parse(source, limits) == exact
        fast = fast_engine(source, limits)
        if fast is not None:
            assert isinstance(exact, Ok)
            assert _typed(fast[0]) == _typed(exact.value)
