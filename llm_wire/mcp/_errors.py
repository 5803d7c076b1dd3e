"""The failures of ``llm_wire.mcp``: typed records whose texts never repeat arguments or server words."""

from __future__ import annotations

from typing import TypeAlias

from attrs import field, frozen

from llm_wire.admission import ValueFailure
from llm_wire.contract import ValidationError
from llm_wire.error import LimitExceeded, ProtocolError
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
class ConnectFailed:
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

    def __str__(self) -> str:
        return self.describe()


@frozen
class RequestFailed:
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

    def __str__(self) -> str:
        return self.describe()


@frozen
class TimedOut:
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

    def __str__(self) -> str:
        return self.describe()


@frozen
class ConnectionClosed:
    """The connection ended before ``method`` was answered."""

    method: str

    @property
    def name(self) -> str:
        """``connection_closed``."""
        return "connection_closed"

    def describe(self) -> str:
        """``the MCP server closed the connection during tools/call``."""
        return f"the MCP server closed the connection during {self.method}"

    def __str__(self) -> str:
        return self.describe()


@frozen
class UnknownMcpTool:
    """A call to a wire name the listing does not hold (or a tool it left out)."""

    name: str

    @property
    def code(self) -> str:
        """``unknown_tool``."""
        return "unknown_tool"

    def describe(self) -> str:
        """The name is not repeated: it may come from a model."""
        return "no tool of this MCP server has that name"

    def __str__(self) -> str:
        return self.describe()


@frozen
class ArgumentsRefused:
    """Arguments for tool ``name`` (its wire name) that its input schema refuses; nothing was sent."""

    name: str
    failure: ValueFailure

    def describe(self) -> str:
        """``arguments for tool NAME refused: schema validation failed: ...``."""
        return f"arguments for tool {self.name} refused: {self.failure.describe()}"

    def __str__(self) -> str:
        return self.describe()


@frozen
class InexactNumber:
    """
    A number that the SDK (which writes numbers from Python ``int`` and ``float``) cannot carry exactly:
    more digits than a float's shortest form, or out of its range. ``path`` is where; nothing was sent.
    """

    path: Path

    def describe(self) -> str:
        """Shows neither the number nor its path (whose keys may come from a model)."""
        return "an argument holds a number that MCP's SDK cannot send exactly; nothing was sent"

    def __str__(self) -> str:
        return self.describe()


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
class OutputMissing:
    """A tool that declares an ``outputSchema`` returned no structured content."""

    name: str

    def describe(self) -> str:
        """Names the tool's wire name."""
        return f"tool {self.name} declares an output schema but returned no structured content"

    def __str__(self) -> str:
        return self.describe()


@frozen
class OutputRejected:
    """Structured content outside the tool's ``outputSchema``: each failure, bounded."""

    name: str
    errors: tuple[ValidationError, ...]

    def describe(self) -> str:
        """``tool NAME returned output outside its schema: $["count"]: ...``."""
        listed = "; ".join(error.describe() for error in self.errors)
        return f"tool {self.name} returned output outside its schema: {listed}"

    def __str__(self) -> str:
        return self.describe()


OutputProblem: TypeAlias = OutputMissing | OutputRejected
