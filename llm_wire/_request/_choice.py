"""
The tool choice, checked once in ``prepare``: its Python types (a ``TypeError``), then the tools it names
against the declared ones (a ``PrepareError``).
"""

from __future__ import annotations

from collections.abc import Collection

from llm_wire._request._errors import InvalidSetting, PrepareError, UnknownToolChoice
from llm_wire.providers import AllowedTools, ToolChoice, UseTool

__all__ = ["choice_problem", "choice_type_problem"]

_MODES = (ToolChoice.AUTO, ToolChoice.REQUIRED)


def choice_type_problem(choice: object) -> str | None:
    """What is of the wrong Python type in ``request.tool_choice``, or ``None``."""
    if choice is None or isinstance(choice, ToolChoice | UseTool):
        return None
    if not isinstance(choice, AllowedTools):
        return (
            f"request.tool_choice must be a ToolChoice, UseTool or AllowedTools, not {type(choice).__name__}"
        )
    if not isinstance(choice.mode, ToolChoice):
        return f"AllowedTools.mode must be a ToolChoice, not {type(choice.mode).__name__}"
    wrong = next((name for name in choice.names if not isinstance(name, str)), None)
    if wrong is not None:
        return f"AllowedTools.names must hold str, not {type(wrong).__name__}"
    return None


def choice_problem(choice: object, declared: Collection[str]) -> PrepareError | None:
    """
    Why the tool choice cannot go with the ``declared`` tool names: it names an undeclared tool, requires a
    call with no tool declared, or allows no tool, a tool twice, or a mode other than ``AUTO``/``REQUIRED``.
    """
    match choice:
        case UseTool(name=name) if name not in declared:
            return UnknownToolChoice(name)
        case ToolChoice.REQUIRED if not declared:
            return InvalidSetting("tool_choice", "requires a tool but none is declared")
        case AllowedTools(names=names, mode=mode):
            if mode not in _MODES:
                return InvalidSetting("tool_choice", "AllowedTools.mode must be ToolChoice.AUTO or REQUIRED")
            if not names:
                return InvalidSetting("tool_choice", "AllowedTools must allow at least one tool")
            unknown = next((name for name in names if name not in declared), None)
            if unknown is not None:
                return UnknownToolChoice(unknown)
            if len(set(names)) != len(names):
                return InvalidSetting("tool_choice", "AllowedTools names a tool twice")
    return None
