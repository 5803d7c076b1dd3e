"""Tools: names, declarations and their errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from declared import SEARCH, SEARCH_SCHEMA, WEATHER, Weather

from llm_wire import codec, tool
from llm_wire.result import Err, Ok
from llm_wire.schema import DefinitionError
from llm_wire.tool import (
    EmptyName,
    InputNotObject,
    InvalidCharacter,
    InvalidName,
    InvalidSchema,
    NameTooLong,
)


class TestCheckName:
    """The name rule, checked in order: empty, first bad character, byte length."""

    @pytest.mark.parametrize("good", ["a", "get_weather", "A-9_z", "x" * 64])
    def test_accepts(self, good: str) -> None:
        assert tool.check_name(good) == Ok(None)

    def test_empty(self) -> None:
        assert tool.check_name("") == Err(EmptyName())

    def test_first_bad_character(self) -> None:
        assert tool.check_name("get weather.now") == Err(InvalidCharacter(" "))
        assert tool.check_name("météo") == Err(InvalidCharacter("é"))

    def test_bad_character_wins_over_length(self) -> None:
        assert tool.check_name("x" * 70 + ".") == Err(InvalidCharacter("."))

    def test_too_long_in_bytes(self) -> None:
        assert tool.check_name("x" * 65) == Err(NameTooLong(65))


class TestNew:
    """``new`` raises DefinitionError, naming the tool, for mistakes in source."""

    def test_declares(self) -> None:
        assert WEATHER.name == "get_weather"
        assert WEATHER.description == "Current weather"
        assert WEATHER.schema.get("type") == "object"
        assert repr(WEATHER) == "<Tool 'get_weather' (2 properties)>"

    def test_bad_name(self) -> None:
        with pytest.raises(DefinitionError, match="get weather"):
            tool.new("get weather", "x", codec.derive(Weather))

    def test_codec_without_schema(self) -> None:
        no_schema = codec.custom(lambda v: Ok(v), lambda v: Ok(v))
        with pytest.raises(DefinitionError, match=r"no_schema.*no schema"):
            tool.new("no_schema", "x", no_schema)

    def test_root_must_be_object(self) -> None:
        with pytest.raises(DefinitionError, match=r"just_text.*object"):
            tool.new("just_text", "x", codec.string())

    def test_only_constructors_make_tools(self) -> None:
        with pytest.raises(TypeError, match=r"tool\.new"):
            tool.Tool("x", "y", WEATHER.schema, WEATHER.contract, None, _key=object())


class TestFromJsonSchema:
    """Runtime declarations return typed errors."""

    def test_from_text_and_document_agree(self) -> None:
        made = tool.from_json_schema("search", "d", json.dumps(SEARCH_SCHEMA))
        assert isinstance(made, Ok)
        assert made.value.schema == SEARCH.schema

    def test_invalid_name(self) -> None:
        assert tool.from_json_schema("", "d", SEARCH_SCHEMA) == Err(InvalidName("", EmptyName()))

    def test_invalid_schema(self) -> None:
        made = tool.from_json_schema("t", "d", {"type": "object", "minProperties": -1})
        assert isinstance(made, Err)
        assert isinstance(made.error, InvalidSchema)
        assert "minProperties" in made.error.describe()

    def test_not_json(self) -> None:
        made = tool.from_json_schema("t", "d", '{"type": "object",}')
        assert isinstance(made, Err)
        assert isinstance(made.error, InvalidSchema)

    def test_root_not_object(self) -> None:
        assert tool.from_json_schema("t", "d", {"type": "string"}) == Err(InputNotObject("t"))

    def test_describe_error(self) -> None:
        text = InvalidName("bad name", InvalidCharacter(" ")).describe()
        assert text == "invalid tool name: the name may only hold ASCII letters, digits, '_' and '-'"


class TestBoundary:
    """Constructors given the wrong Python types raise ``TypeError`` naming the parameter."""

    @pytest.mark.parametrize(
        ("arguments", "parameter"),
        [
            (("x", "y", dict), "codec"),
            ((5, "y", codec.derive(Weather)), "name"),
            (("x", None, codec.derive(Weather)), "description"),
        ],
    )
    def test_new(self, arguments: tuple[Any, Any, Any], parameter: str) -> None:
        """``tool.new`` checks its three parameters before anything else."""
        with pytest.raises(TypeError, match=f"^{parameter} must"):
            tool.new(*arguments)

    def test_from_contract(self) -> None:
        """``from_contract`` wants a loaded ``Contract``, not a schema document."""
        with pytest.raises(TypeError, match=r"^contract must be a Contract, not dict$"):
            tool.from_contract("x", "y", {"type": "object"})  # type: ignore[arg-type]
