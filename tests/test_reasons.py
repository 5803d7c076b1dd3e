"""
The shared vocabulary of value failures: its texts, its one redaction rule, and that both layers use it.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import typing
from decimal import Decimal
from typing import Any

import attrs
import cattrs
import pytest

from llm_wire import admission, codec, contract, reasons, tool
from llm_wire._described import Described
from llm_wire.message import ToolCall
from llm_wire.result import Err, unwrap
from llm_wire.schema import Schema
from llm_wire.value import ParseError, Value, parse
from llm_wire.value._render import render_redacted


class TestTexts:
    """Each shared reason's text."""

    @pytest.mark.parametrize(
        ("reason", "text"),
        [
            (reasons.WrongType(("string",)), "expected a string"),
            (reasons.WrongType(("integer", "array", "null")), "expected an integer, an array or null"),
            (reasons.NotInEnum(('"a"', "1")), 'expected one of "a", 1'),
            (reasons.NotInEnum(tuple(f'"{n}"' for n in range(9))), "expected one of the 9 allowed values"),
            (reasons.BelowMinimum(1), "expected at least 1"),
            (reasons.BelowMinimum(Decimal("0.5"), exclusive=True), "expected more than 0.5"),
            (reasons.AboveMaximum(10), "expected at most 10"),
            (reasons.AboveMaximum(10, exclusive=True), "expected less than 10"),
            (reasons.NotMultipleOf(Decimal("0.25")), "expected a multiple of 0.25"),
            (reasons.TooShort(1), "expected at least 1 character"),
            (reasons.TooLong(3), "expected at most 3 characters"),
            (reasons.PatternMismatch('^"a"$'), 'expected a string matching the pattern "^\\"a\\"$"'),
            (reasons.PatternMismatch("a" * 121), "expected a string matching the schema's pattern"),
            (reasons.TooFewItems(2), "expected at least 2 items"),
            (reasons.TooManyItems(1), "expected at most 1 item"),
            (reasons.MissingProperty(), "required property is missing"),
            (reasons.UnexpectedProperty(), "unexpected property"),
            (
                reasons.UnexpectedProperty(("a", "b")),
                'unexpected property; the allowed properties are "a", "b"',
            ),
            (
                reasons.UnexpectedProperty(tuple("abcdefghijklm")),
                "unexpected property; 13 properties are allowed",
            ),
            (reasons.TooDeep(), "value nested too deeply"),
        ],
    )
    def test_texts(self, reason: Described, text: str) -> None:
        """Each reason reads ``expected ...`` where it can; its ``str()`` is its ``describe()``."""
        assert reason.describe() == text
        assert str(reason) == text

    def test_invalid_json_carries_the_parse_error(self) -> None:
        """``InvalidJson`` renders the parser's own text, which never quotes the input."""
        match parse('{"secret": 1,}'):
            case Err(error):
                reason = reasons.InvalidJson(error)
                assert str(reason) == error.describe()
                assert "secret" not in str(reason)
                assert reason.name == "invalid_json"
            case _:
                pytest.fail("trailing comma accepted")

    @pytest.mark.parametrize(
        ("path", "hidden", "text"),
        [
            ((), frozenset(), "$"),
            (("a", 0), frozenset(), '$["a"][0]'),
            (("tags", "sk-secret"), frozenset({1}), '$["tags"][*]'),
            (("sk-secret", "n"), frozenset({0}), '$[*]["n"]'),
            (("a", "b", "c"), (0, 2), '$[*]["b"][*]'),
        ],
    )
    def test_render_redacted(self, path: tuple[str | int, ...], hidden: frozenset[int], text: str) -> None:
        """Hidden segments show as ``[*]``; the others render as JSON paths."""
        assert render_redacted(path, hidden) == text


def unwrap_schema(made: codec.Codec[Any]) -> Schema:
    """The codec's schema (every codec here has one)."""
    assert made.schema is not None
    return made.schema


class TestRedaction:
    """One redaction rule for codec and contract."""

    def test_both_layers_share_the_classes_and_the_rule(self) -> None:
        """
        An undeclared member: the same reason object type and the same ``[*]`` text from codec and contract.
        """
        strict = codec.record(dict, codec.required("a", codec.integer()))
        value: Value = {"a": 1, "sk-secret": 2}
        decoded = strict.decode(value)
        validated = contract.validate(unwrap(contract.from_schema(unwrap_schema(strict))), value)
        assert isinstance(decoded, Err)
        assert isinstance(validated, Err)
        assert decoded.error.reason == validated.error.reason == reasons.UnexpectedProperty(("a",))
        assert decoded.error.path == validated.error.path == ("sk-secret",)
        assert (
            str(decoded.error)
            == str(validated.error)
            == '$[*]: unexpected property; the allowed properties are "a"'
        )


_STACK = "import llm_wire, llm_wire.codec, llm_wire.contract, llm_wire.admission, llm_wire.outcome"
_VOCABULARIES = {
    "llm_wire.reasons",
    "llm_wire.contract._reasons",
    "llm_wire.codec._reasons",
    "llm_wire._tool_errors",
    "llm_wire._admission_issues",
}


def _fresh(statement: str) -> list[str]:
    """What a fresh interpreter prints after ``statement``, split at spaces."""
    out = subprocess.run([sys.executable, "-c", statement], capture_output=True, text=True, check=True)
    return out.stdout.split()


class TestVocabulariesLoadWithTheirFaces:
    """
    The reasons, and the refusals of tool declarations and of admission, load with the face that exports
    them: a face imports its parts at the top, so a name is bound before anyone looks it up.
    """

    def test_the_stack_loads_every_vocabulary(self) -> None:
        """Importing every layer of the wire builds the errors' envelopes and their reasons."""
        loaded = _fresh(f"{_STACK}; import sys; print(*sys.modules)")
        assert "llm_wire.contract._errors" in loaded
        assert "llm_wire.codec._errors" in loaded
        assert set(loaded) >= _VOCABULARIES

    def test_a_refusal_loads_its_reasons(self) -> None:
        """A refused schema and a refused value come back with their typed reasons, printed by their face."""
        shown = _fresh(
            f"{_STACK}; from llm_wire import contract; "
            "error = contract.load({'type': 'integer', 'minimum': 'one'}).error; "
            "print(type(error.reason).__module__, type(error.reason).__name__)"
        )
        assert shown == ["llm_wire.contract", "InvalidShape"]
        decoded = _fresh(
            f"{_STACK}; from llm_wire.codec import integer; "
            "reason = integer().decode('7').error.reason; "
            "print(type(reason).__module__, type(reason).__name__)"
        )
        assert decoded == ["llm_wire.reasons", "WrongType"]
        named = _fresh(
            f"{_STACK}; from llm_wire import tool; problem = tool.check_name('a b').error; "
            "print(type(problem).__module__, type(problem).__name__)"
        )
        assert named == ["llm_wire.tool", "InvalidCharacter"]
        refused = _fresh(
            f"{_STACK}; from llm_wire import admission; from llm_wire.message import ToolCall; "
            "error = admission.admit([ToolCall('c1', 'nope', '{}')], []).error; "
            "print(type(error).__module__, type(error).__name__, type(error.issue).__name__)"
        )
        assert refused == ["llm_wire.admission", "InvalidToolCall", "UnknownTool"]

    @pytest.mark.parametrize(
        ("face", "name"),
        [
            (contract, "NotConst"),
            (contract, "UnsupportedKeyword"),
            (contract, "Reason"),
            (codec, "Custom"),
            (codec, "DecodeReason"),
            (reasons, "WrongType"),
            (reasons, "InvalidJson"),
            (tool, "InvalidName"),
            (tool, "ToolError"),
            (admission, "InvalidToolCall"),
            (admission, "ValueFailure"),
            (admission, "describe_issue"),
        ],
    )
    def test_every_name_is_on_its_face(self, face: Any, name: str) -> None:
        """Each reason is found on its face, listed by ``dir``, and a class prints the face as its home."""
        found = getattr(face, name)
        assert name in dir(face)
        assert name in face.__all__
        if isinstance(found, type):
            assert found.__module__ == face.__name__

    @pytest.mark.parametrize(
        "reason",
        [
            contract.NotConst("1"),
            codec.Custom("no"),
            reasons.WrongType(("string",)),
            reasons.TooDeep(),
            contract.UnsupportedPattern("lookahead"),
            tool.InvalidName("", tool.EmptyName()),
            admission.UnknownTool("c1", "nope", ("get_weather",)),
        ],
    )
    def test_reasons_pickle_through_their_face(self, reason: object) -> None:
        """A reason pickles by its face's name and comes back equal."""
        assert pickle.loads(pickle.dumps(reason)) == reason

    @pytest.mark.parametrize(
        ("face", "home"),
        [
            ("llm_wire.contract", "llm_wire.contract._reasons"),
            ("llm_wire.tool", "llm_wire._tool_errors"),
            ("llm_wire.admission", "llm_wire._admission_issues"),
        ],
    )
    def test_the_private_home_is_on_its_face(self, face: str, home: str) -> None:
        """What a private home exports, its face exports too, bound at import: nothing loads on use."""
        unbound = _fresh(f"import {face} as f; print(*sorted(set(f.__all__) - f.__dict__.keys()))")
        missing = _fresh(f"import {face} as f, {home} as h; print(*sorted(set(h.__all__) - set(f.__all__)))")
        assert unbound == missing == []

    def test_an_unknown_name_is_an_attribute_error(self) -> None:
        """The contract face's look-up refuses a name it does not have."""
        with pytest.raises(AttributeError, match="no attribute 'NoSuchReason'"):
            contract.NoSuchReason  # type: ignore[attr-defined]  # noqa: B018


class TestAnnotationsResolve:
    """A refusal's records name their face as home, and their annotations resolve there (as cattrs reads)."""

    def test_admission_and_tool_refusals(self) -> None:
        """An admission refusal and a declaration refusal resolve, and cattrs turns one into plain data."""
        refused = admission.admit([ToolCall("c1", "nope", "{}")], [])
        assert isinstance(refused, Err)
        error = refused.error
        assert typing.get_type_hints(type(error))["index"] is int
        assert isinstance(error, admission.InvalidToolCall)
        assert set(typing.get_type_hints(type(error.issue))) == {"call_id", "name", "declared"}
        assert cattrs.unstructure(error) == {
            "issue": {"call_id": "c1", "name": "nope", "declared": []},
            "index": 0,
        }
        declared = tool.from_json_schema("a b", "", {"type": "object"})
        assert isinstance(declared, Err)
        assert set(typing.get_type_hints(type(declared.error))) == {"name", "problem"}

    def test_reasons_and_errors(self) -> None:
        """The shared reasons, a contract's, a schema refusal and a decode error resolve."""
        assert typing.get_type_hints(reasons.InvalidJson) == {"error": ParseError}
        assert typing.get_type_hints(contract.NotConst) == {"expected": str}
        loaded = contract.load({"type": 5})
        assert isinstance(loaded, Err)
        assert set(typing.get_type_hints(type(loaded.error))) == {"path", "keyword", "reason"}
        decoded = codec.integer().decode("7")
        assert isinstance(decoded, Err)
        assert set(typing.get_type_hints(type(decoded.error))) == {"path", "reason", "hidden"}
        assert cattrs.unstructure(decoded.error)["reason"] == {"expected": ["integer"]}


def _subclasses(cls: type) -> list[type]:
    """The classes below ``cls`` that their module binds (not the class attrs replaced by a slotted one)."""
    found: list[type] = []
    subclasses: list[type] = cls.__subclasses__()
    for sub in subclasses:
        if getattr(sys.modules[sub.__module__], sub.__name__, None) is sub:
            found.append(sub)
        found += _subclasses(sub)
    return found


class TestRecordsWithoutFields:
    """A reason without fields inherits ``Described``'s empty frozen record; one with fields is its own."""

    @pytest.mark.parametrize("record", _subclasses(Described), ids=lambda c: c.__qualname__)
    def test_every_declared_field_is_a_field(self, record: type) -> None:
        """Each annotation a reason declares is an attrs field of it, so ``@frozen`` was not left out."""
        declared = set(vars(record).get("__annotations__", {}))
        assert declared <= {field.name for field in attrs.fields(record)}
        assert all("__dict__" not in vars(base) for base in record.__mro__)  # slotted, no instance dict

    def test_a_record_without_fields_is_frozen_and_a_value(self) -> None:
        """It compares, hashes, prints and pickles as attrs' own, and refuses a new attribute."""
        allowed, other = contract.NotAllowed(), contract.MatchesNot()
        assert allowed == contract.NotAllowed()
        assert allowed != typing.cast(object, other)
        assert hash(allowed) == hash(contract.NotAllowed())
        assert repr(allowed) == "NotAllowed()"
        assert pickle.loads(pickle.dumps(allowed)) == allowed
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            allowed.extra = 1  # type: ignore[attr-defined]
