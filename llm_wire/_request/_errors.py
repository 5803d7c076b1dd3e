"""
Why ``prepare`` refused a request: one frozen record per problem, each with ``describe()``.

``PrepareError`` is their union, with the provider encoders' ``EncodeError`` and ``OverProviderLimit`` (a
limit of the wire's table, ``Wire.limits``). Texts name tools, settings and message positions, never call ids,
arguments or contents. Public through ``llm_wire``.
"""

from __future__ import annotations

from typing import TypeAlias

from attrs import frozen

from llm_wire._described import Described
from llm_wire._request._config import Limit
from llm_wire.providers import EncodeError, OverProviderLimit
from llm_wire.providers.projection import ProjectionError
from llm_wire.tool import DuplicateToolName
from llm_wire.value import Path, render_path

__all__ = [
    "DuplicateCallId",
    "DuplicateResult",
    "DuplicateToolName",
    "EmptyConversation",
    "InvalidSetting",
    "MissingResult",
    "NotEncodable",
    "OrphanResult",
    "PrepareError",
    "RequestTooLarge",
    "UnknownToolChoice",
    "UnsupportedOutput",
    "UnsupportedSchema",
]


@frozen
class InvalidSetting(Described):
    """A setting out of range: an empty model, a limit or ``max_tokens`` not positive, and so on."""

    setting: str
    reason: str

    def describe(self) -> str:
        """Which setting, and what it must be."""
        return f"{self.setting} {self.reason}"


class EmptyConversation(Described):
    """The request holds no message: there is nothing for the model to answer."""

    __slots__ = ()
    TEXT = "the conversation has no message"


@frozen
class UnknownToolChoice(Described):
    """The tool choice names a tool that is not declared."""

    name: str

    def describe(self) -> str:
        """Names the tool."""
        return f"the tool choice names {self.name}, which is not declared"


@frozen
class UnsupportedSchema(Described):
    """A tool whose schema the provider cannot take, even after projection."""

    tool: str
    problem: ProjectionError

    def describe(self) -> str:
        """Names the tool and where its schema fails."""
        return f"tool {self.tool}: {self.problem.describe()}"


@frozen
class UnsupportedOutput(Described):
    """Structured output the provider cannot take: a codec without a schema, or a schema it refuses."""

    name: str
    problem: ProjectionError | None

    def describe(self) -> str:
        """Names the output and the problem."""
        if self.problem is None:
            return f"output {self.name}: the codec has no schema"
        return f"output {self.name}: {self.problem.describe()}"


@frozen
class OrphanResult(Described):
    """A tool result that answers no call of the assistant turn directly before it."""

    index: int
    call_id: str

    def describe(self) -> str:
        """Which message."""
        return f"message {self.index}: a tool result answers no call of the assistant turn before it"


@frozen
class DuplicateResult(Described):
    """A call answered twice."""

    index: int
    call_id: str

    def describe(self) -> str:
        """Which message."""
        return f"message {self.index}: a second result for the same call"


@frozen
class MissingResult(Described):
    """A call of the assistant turn at ``index`` with no result after it."""

    index: int
    call_id: str
    name: str

    def describe(self) -> str:
        """Which turn, and the tool of the unanswered call."""
        return f"message {self.index}: a call to {self.name} has no result"


@frozen
class DuplicateCallId(Described):
    """Two calls of one assistant turn share an id."""

    index: int
    call_id: str

    def describe(self) -> str:
        """Which turn."""
        return f"message {self.index}: two calls share one id"


@frozen
class RequestTooLarge(Described):
    """The request (or one part of its history) is over a limit."""

    limit: Limit
    value: int
    measured: int

    def describe(self) -> str:
        """The limit, the size, and how to raise it."""
        return (
            f"{self.limit.value} is {self.value}, the request needs {self.measured} "
            f"(raise it with Config.with_limit(Limit.{self.limit.name}, n))"
        )


@frozen
class NotEncodable(Described):
    """The body would hold something JSON cannot carry (a string with an unpaired surrogate, a NaN)."""

    path: Path
    problem: str

    def describe(self) -> str:
        """Where in the body, and what."""
        return f"body {render_path(self.path)}: {self.problem}"


PrepareError: TypeAlias = (
    InvalidSetting
    | EmptyConversation
    | DuplicateToolName
    | UnknownToolChoice
    | UnsupportedSchema
    | UnsupportedOutput
    | OrphanResult
    | DuplicateResult
    | MissingResult
    | DuplicateCallId
    | RequestTooLarge
    | NotEncodable
    | OverProviderLimit
    | EncodeError
)
