"""The failures of ``llm_wire.mcp``: typed records whose texts never repeat arguments or server words."""

from __future__ import annotations

from typing import TypeAlias

from attrs import field, frozen

from llm_wire import _public
from llm_wire._described import Described
from llm_wire.admission import ValueFailure
from llm_wire.contract import ValidationError
from llm_wire.error import LimitExceeded, ProtocolError
from llm_wire.mcp._face import FACE as _FACE
from llm_wire.value import Path

__all__ = [
    "ConnectFailed",
    "RequestFailed",
    "TimedOut",
    "ConnectionClosed",
    "UnknownMcpTool",
    "ArgumentsRefused",
    "InexactNumber",
    "McpError",
    "OutputMissing",
    "OutputRejected",
    "OutputProblem",
]

# ---------------------------------------------------------------------------------------------------------
# Errors


@frozen
class ConnectFailed(Described):
    """The server could not be started, or did not complete ``initialize``; ``detail`` is for logs."""

    reason: str
    detail: str = field(default="", eq=False, repr=False)

    @property
    def name(self) -> str:
        """``connect_failed``."""
        return "connect_failed"

    def describe(self) -> str:
        """``could not connect to the MCP server: the server could not be started (FileNotFoundError)``."""
        return f"could not connect to the MCP server: {self.reason}"


@frozen
class RequestFailed(Described):
    """The server answered ``method`` with a JSON-RPC error; its ``message`` is kept out of texts."""

    method: str
    code: int
    message: str = field(default="", eq=False, repr=False)

    @property
    def name(self) -> str:
        """``request_failed``."""
        return "request_failed"

    def describe(self) -> str:
        """``the MCP server answered tools/call with error -32602``."""
        return f"the MCP server answered {self.method} with error {self.code}"


@frozen
class TimedOut(Described):
    """No answer to ``method`` within ``seconds``."""

    method: str
    seconds: float

    @property
    def name(self) -> str:
        """``timed_out``."""
        return "timed_out"

    def describe(self) -> str:
        """``the MCP server did not answer tools/call within 60 s (raise McpLimits.timeout)``."""
        return (
            f"the MCP server did not answer {self.method} within {self.seconds:g} s (raise McpLimits.timeout)"
        )


@frozen
class ConnectionClosed(Described):
    """The connection ended before ``method`` was answered."""

    method: str

    @property
    def name(self) -> str:
        """``connection_closed``."""
        return "connection_closed"

    def describe(self) -> str:
        """``the MCP server closed the connection during tools/call``."""
        return f"the MCP server closed the connection during {self.method}"


@frozen
class UnknownMcpTool(Described):
    """A call to a wire name the listing does not hold (or a tool it left out)."""

    name: str

    @property
    def code(self) -> str:
        """``unknown_tool``."""
        return "unknown_tool"

    TEXT = "no tool of this MCP server has that name"


@frozen
class ArgumentsRefused(Described):
    """Arguments for tool ``name`` (its wire name) that its input schema refuses; nothing was sent."""

    name: str
    failure: ValueFailure

    def describe(self) -> str:
        """``arguments for tool NAME refused: schema validation failed: ...``."""
        return f"arguments for tool {self.name} refused: {self.failure.describe()}"


@frozen
class InexactNumber(Described):
    """
    A number that the SDK (which writes numbers from Python ``int`` and ``float``) cannot carry exactly:
    more digits than a float's shortest form, or out of its range. ``path`` is where; nothing was sent.
    """

    path: Path

    TEXT = "an argument holds a number that MCP's SDK cannot send exactly; nothing was sent"


McpError: TypeAlias = (
    ConnectFailed
    | RequestFailed
    | TimedOut
    | ConnectionClosed
    | UnknownMcpTool
    | ArgumentsRefused
    | InexactNumber
    | ProtocolError
    | LimitExceeded
)


@frozen
class OutputMissing(Described):
    """A tool that declares an ``outputSchema`` returned no structured content."""

    name: str

    def describe(self) -> str:
        """Names the tool's wire name."""
        return f"tool {self.name} declares an output schema but returned no structured content"


@frozen
class OutputRejected(Described):
    """Structured content outside the tool's ``outputSchema``: each failure, bounded."""

    name: str
    errors: tuple[ValidationError, ...]

    def describe(self) -> str:
        """``tool NAME returned output outside its schema: $["count"]: ...``."""
        listed = "; ".join(error.describe() for error in self.errors)
        return f"tool {self.name} returned output outside its schema: {listed}"


OutputProblem: TypeAlias = OutputMissing | OutputRejected


_public.rehome("llm_wire.mcp", _FACE[__name__], globals())
