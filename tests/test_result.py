"""
Tests for ``llm_wire.result``: ``Ok`` and ``Err`` as frozen, matchable values, and the small helpers.
"""

from __future__ import annotations

from typing import assert_type

import attrs
import pytest

from llm_wire.result import Err, Ok, Result, UnwrapError, is_err, is_ok, map, map_err, unwrap
from llm_wire.value import parse


def describe(result: Result[int, str]) -> str:
    """``match`` takes both arms apart; mypy narrows each (``assert_type`` is checked statically)."""
    match result:
        case Ok(value):
            assert_type(value, int)
            return f"ok {value + 1}"
        case Err(error):
            assert_type(error, str)
            return f"err {error.upper()}"


class TestValues:
    def test_match(self) -> None:
        assert describe(Ok(41)) == "ok 42"
        assert describe(Err("boom")) == "err BOOM"

    def test_match_args(self) -> None:
        assert Ok.__match_args__ == ("value",)
        assert Err.__match_args__ == ("error",)

    def test_fields(self) -> None:
        assert Ok(3).value == 3
        assert Err("e").error == "e"

    def test_equality_and_hash(self) -> None:
        assert Ok(1) == Ok(1)
        assert Ok(1) != Ok(2)
        assert Err(1) == Err(1)
        ok: object = Ok(1)
        assert ok != Err(1)
        assert len({Ok(1), Ok(1), Err(1)}) == 2

    def test_frozen(self) -> None:
        result = Ok(1)
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            result.value = 2  # type: ignore[misc]
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            Err("e").error = "f"  # type: ignore[misc]

    def test_a_parse_result_matches(self) -> None:
        match parse("[1, 2]"):
            case Ok([first, *rest]):
                assert (first, rest) == (1, [2])
            case other:
                pytest.fail(f"unexpected {other!r}")


class TestHelpers:
    def test_map(self) -> None:
        assert map(Ok(2), lambda v: v * 10) == Ok(20)

    def test_map_passes_err_through_without_calling(self) -> None:
        calls: list[int] = []
        error: Result[int, str] = Err("e")
        assert map(error, calls.append) == Err("e")
        assert calls == []

    def test_map_err(self) -> None:
        assert map_err(Err("e"), str.upper) == Err("E")

    def test_map_err_passes_ok_through_without_calling(self) -> None:
        calls: list[str] = []
        ok: Result[int, str] = Ok(1)
        assert map_err(ok, calls.append) == Ok(1)
        assert calls == []

    def test_unwrap_ok(self) -> None:
        assert unwrap(Ok("v")) == "v"

    def test_unwrap_err_raises_with_the_typed_error(self) -> None:
        failure = parse("[1,]")
        assert isinstance(failure, Err)
        with pytest.raises(UnwrapError) as info:
            unwrap(failure)
        assert info.value.error is failure.error
        assert str(info.value) == "unwrap of Err: invalid JSON at line 1, column 3: trailing comma"

    def test_unwrap_error_text_has_no_input(self) -> None:
        with pytest.raises(UnwrapError) as info:
            unwrap(parse('{"password": "hunter2", "password": "x"}'))
        assert "hunter2" not in str(info.value)
        assert "password" not in str(info.value)

    def test_is_ok_and_is_err(self) -> None:
        assert is_ok(Ok(None))
        assert not is_ok(Err(None))
        assert is_err(Err(None))
        assert not is_err(Ok(None))
