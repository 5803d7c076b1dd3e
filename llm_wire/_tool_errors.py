"""
Why a runtime tool declaration was refused, and why a name breaks the rule (``llm_wire.tool`` exports them).
"""

from __future__ import annotations

from typing import TypeAlias

from attrs import frozen

from llm_wire._described import Described
from llm_wire.contract import LoadError

__all__ = [
    "EmptyName",
    "InputNotObject",
    "InvalidCharacter",
    "InvalidName",
    "InvalidSchema",
    "NameProblem",
    "NameTooLong",
    "ToolError",
]

#: The longest tool name, in bytes (``tool.check_name``).
MAX_NAME_BYTES = 64


class EmptyName(Described):
    """The name is empty."""

    __slots__ = ()
    TEXT = "the name is empty"


@frozen
class InvalidCharacter(Described):
    """The first character outside ASCII letters, digits, ``_`` and ``-``."""

    character: str

    TEXT = "the name may only hold ASCII letters, digits, '_' and '-'"


@frozen
class NameTooLong(Described):
    """The name has more than 64 bytes."""

    length: int

    def describe(self) -> str:
        """The problem as text."""
        return f"the name has {self.length} bytes; at most {MAX_NAME_BYTES} are allowed"


NameProblem: TypeAlias = EmptyName | InvalidCharacter | NameTooLong


@frozen
class InvalidName(Described):
    """A runtime declaration whose name breaks the rule."""

    name: str
    problem: NameProblem

    def describe(self) -> str:
        """``invalid tool name: reason``; the name itself is not repeated."""
        return f"invalid tool name: {self.problem.describe()}"


@frozen
class InvalidSchema(Described):
    """A runtime declaration whose JSON Schema cannot be loaded and honoured."""

    load_error: LoadError

    def describe(self) -> str:
        """``invalid input schema: $["a"]: reason``."""
        return f"invalid input schema: {self.load_error.describe()}"


@frozen
class InputNotObject(Described):
    """A runtime declaration whose schema does not describe a JSON object at its root."""

    name: str

    def describe(self) -> str:
        """``the input schema of tool NAME must describe an object``."""
        return f"the input schema of tool {self.name} must describe an object"


ToolError: TypeAlias = InvalidName | InvalidSchema | InputNotObject
