"""The MCP tools as a ``ToolProvider``: contracts, outcomes and the provider over connected clients."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import TypeAlias

from llm_wire import _public
from llm_wire.agent import (
    ErrorCategory,
    ErrorCode,
    HeartbeatPolicy,
    Idempotency,
    InvocationContext,
    OutputValidation,
    ProviderCapabilities,
    SideEffect,
    ToolContract,
    ToolDescriptor,
    ToolInvocation,
    ToolOutcome,
)
from llm_wire.mcp._client import AsyncMcpClient, McpClient, Progress
from llm_wire.mcp._declare import (
    CallResult,
    LeftOut,
    Listing,
    McpTool,
    check_output,
)
from llm_wire.mcp._errors import (
    ArgumentsRefused,
    ConnectFailed,
    ConnectionClosed,
    InexactNumber,
    McpError,
    OutputMissing,
    RequestFailed,
    TimedOut,
    UnknownMcpTool,
)
from llm_wire.mcp._face import FACE as _FACE
from llm_wire.names import NameCollision, Named
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import DefinitionError
from llm_wire.value import Value, render

__all__ = [
    "contract_for",
    "tool_outcome_of",
    "Connected",
    "McpProvider",
    "aprovider",
    "provider",
]


#: The default liveness policy: none (progress notifications still arrive, and are not required).
_NO_HEARTBEATS = HeartbeatPolicy()


def contract_for(
    tool: McpTool,
    *,
    trust_hints: bool = False,
    output_validation: OutputValidation = OutputValidation.STRICT,
    heartbeat: HeartbeatPolicy = _NO_HEARTBEATS,
) -> ToolContract:
    """
    The contract of an MCP tool: its output contract under ``output_validation``, and what it may change.
    Without ``trust_hints`` a tool is taken at MCP's own defaults (it may destroy, repeating it may not be
    safe); with it, its annotations decide (``readOnlyHint``, ``destructiveHint``, ``idempotentHint``).
    ``heartbeat`` is its liveness policy: the server's progress notifications are its heartbeats.
    """
    side_effect, idempotency = SideEffect.DESTRUCTIVE, Idempotency.UNKNOWN
    if trust_hints:
        hints = tool.hints
        if hints.read_only:
            side_effect, idempotency = SideEffect.READ, Idempotency.IDEMPOTENT
        else:
            side_effect = SideEffect.WRITE if hints.destructive is False else SideEffect.DESTRUCTIVE
            if hints.idempotent:
                idempotency = Idempotency.IDEMPOTENT
    return ToolContract(
        output_schema=tool.output,
        side_effect=side_effect,
        idempotency=idempotency,
        output_validation=output_validation,
        heartbeat=heartbeat,
    )


def tool_outcome_of(
    tool: McpTool, result: Result[CallResult, McpError], mode: OutputValidation
) -> ToolOutcome:
    """
    A call's result as the model sees it. A success's ``content`` is its text blocks, resource links and
    embedded resources (as their URIs, and an embedded text's text) in order; every other block than text is
    also an artifact reference (its ``uri``, or a ``data:`` URI for images and audio, which the model does not
    see), and all blocks stay as sent in ``metadata["mcp.content"]``; ``structuredContent`` becomes
    ``data``, checked against the output schema under ``mode``. ``isError`` is a failed outcome carrying the
    tool's text; a refused or lost request is the failure its kind calls for (timeouts and lost connections
    may be retried; a server's JSON-RPC error is not, and its code is in ``details["jsonrpc_code"]``).
    """
    match result:
        case Err(problem):
            return _failure_outcome(tool, problem)
        case Ok(answer):
            pass
    content = render(list(answer.content))
    if answer.is_error:
        message = answer.text() or f"tool {tool.wire_name} reported an error"
        failed = ToolOutcome.failed(ErrorCategory.INTERNAL, "tool_error", message, retryable=False)
        return failed.with_metadata(**{"mcp.content": content})
    data = answer.structured
    notes = {"mcp.content": content}
    checked = check_output(tool, answer) if mode is not OutputValidation.DISABLED else Ok(data)
    if isinstance(checked, Err):
        if mode is OutputValidation.STRICT:
            missing = isinstance(checked.error, OutputMissing)
            code = ErrorCode.NO_STRUCTURED_DATA if missing else ErrorCode.OUTPUT_SCHEMA
            return ToolOutcome.failed(ErrorCategory.INTERNAL, code, checked.error.describe(), retryable=False)
        notes["mcp.output_problem"] = checked.error.describe()
    artifacts = tuple(ref for ref in map(_reference, answer.content) if ref is not None)
    shown = (_shown(block) for block in answer.content)
    outcome = ToolOutcome.success("\n".join(text for text in shown if text), data, artifacts=artifacts)
    return outcome.with_metadata(**notes)


def _shown(block: Value) -> str | None:
    """
    A block as the model reads it: a text block's text; a resource link, or an embedded resource, as its
    URI (and an embedded text's own text). Images and audio are not shown: tool results reach the model as
    text, so they stay artifacts (``data:`` URIs) for the application.
    """
    if not isinstance(block, dict):
        return None
    kind, text = block.get("type"), block.get("text")
    if kind == "text":
        return text if isinstance(text, str) else None
    if kind == "resource_link":
        uri, name, mime = block.get("uri"), block.get("name"), block.get("mimeType")
        about = ", ".join(part for part in (name, mime) if isinstance(part, str) and part)
        return f"resource link: {uri}" + (f" ({about})" if about else "") if isinstance(uri, str) else None
    resource = block.get("resource")
    if kind == "resource" and isinstance(resource, dict) and isinstance(resource.get("uri"), str):
        body = resource.get("text")
        mime = resource.get("mimeType")
        head = f"resource: {resource['uri']}" + (f" ({mime})" if isinstance(mime, str) and mime else "")
        return f"{head}\n{body}" if isinstance(body, str) else head
    return None


def _reference(block: Value) -> str | None:
    if not isinstance(block, dict) or block.get("type") == "text":
        return None
    resource = block.get("resource")
    uri = resource.get("uri") if isinstance(resource, dict) else block.get("uri")
    if isinstance(uri, str):
        return uri
    data, mime = block.get("data"), block.get("mimeType")
    if isinstance(data, str) and isinstance(mime, str):
        return f"data:{mime};base64,{data}"
    return None


def _failure_outcome(tool: McpTool, problem: McpError) -> ToolOutcome:
    message = problem.describe()
    match problem:
        case ArgumentsRefused(failure=failure):
            return ToolOutcome.invalid_arguments(tool.wire_name, failure)
        case InexactNumber():
            return ToolOutcome.failed(ErrorCategory.INVALID_INPUT, ErrorCode.INVALID_ARGUMENTS, message)
        case TimedOut():
            return ToolOutcome.failed(ErrorCategory.TIMEOUT, ErrorCode.TIMEOUT, message)
        case ConnectionClosed() | ConnectFailed():
            return ToolOutcome.failed(ErrorCategory.UNAVAILABLE, ErrorCode.UNAVAILABLE, message)
        case RequestFailed(code=code):
            # A server's answer, whatever its code (-32000 and -32001 included): not a lost connection or a
            # timeout. No code JSON-RPC or MCP defines promises that a repeat may succeed: none is retried.
            category, kind = (
                (ErrorCategory.INVALID_INPUT, ErrorCode.INVALID_INPUT)
                if code == _INVALID_PARAMS
                else (ErrorCategory.INTERNAL, ErrorCode.INTERNAL)
            )
            details: Value = {"jsonrpc_code": code}
            return ToolOutcome.failed(category, kind, message, retryable=False, details=details)
        case UnknownMcpTool():
            return ToolOutcome.failed(
                ErrorCategory.NOT_FOUND, ErrorCode.UNKNOWN_TOOL, message, retryable=False
            )
    return ToolOutcome.failed(ErrorCategory.INTERNAL, ErrorCode.INTERNAL, message, retryable=False)


_INVALID_PARAMS = -32602

Connected: TypeAlias = AsyncMcpClient | McpClient


class McpProvider:
    """
    The tools of one or more connected MCP servers as a ``ToolProvider``: each listed tool under its wire
    name (a prefix per server keeps several apart), calls sent to the server that listed it, results mapped
    to tool outcomes under the descriptor's output-validation mode. Made by ``provider`` or ``aprovider``.
    A call's progress notifications are its heartbeats (``ToolHeartbeat`` events, when ``heartbeat`` enables
    them), and its request is cancelled when the call's deadline passes. An ``AsyncMcpClient`` is called on
    the event loop it was entered on, so run such a provider there; a ``McpClient`` runs on its own thread
    and serves any loop.
    """

    def __init__(
        self,
        listed: Sequence[tuple[Connected, Listing]],
        *,
        trust_hints: bool = False,
        output_validation: OutputValidation = OutputValidation.STRICT,
        heartbeat: HeartbeatPolicy = _NO_HEARTBEATS,
    ) -> None:
        if not isinstance(heartbeat, HeartbeatPolicy):
            raise TypeError(f"heartbeat must be a HeartbeatPolicy, not {type(heartbeat).__name__}")
        self._routes: dict[str, tuple[Connected, McpTool]] = {}
        descriptors: list[ToolDescriptor] = []
        refused: list[LeftOut] = []
        for client, listing in listed:
            if not isinstance(client, AsyncMcpClient | McpClient) or not isinstance(listing, Listing):
                raise TypeError("listed must hold (AsyncMcpClient or McpClient, Listing) pairs")
            refused.extend(listing.refused)
            for found in listing.tools:
                if found.wire_name in self._routes:
                    first = self._routes[found.wire_name][1]
                    collision = NameCollision(
                        found.wire_name, Named(first.prefix, first.name), Named(found.prefix, found.name)
                    )
                    raise DefinitionError(collision.describe())
                self._routes[found.wire_name] = (client, found)
                contract = contract_for(
                    found, trust_hints=trust_hints, output_validation=output_validation, heartbeat=heartbeat
                )
                descriptors.append(ToolDescriptor(found.tool, contract))
        self._descriptors = tuple(descriptors)
        #: The tools the servers listed but that were left out, with their errors.
        self.refused = tuple(refused)

    def __repr__(self) -> str:
        return f"<McpProvider ({len(self._descriptors)} tools, {len(self.refused)} left out)>"

    def descriptors(self) -> Sequence[ToolDescriptor]:
        """Every declared tool's descriptor, in server and listing order."""
        return self._descriptors

    def capabilities(self, name: str) -> ProviderCapabilities | None:
        """
        Progress notifications are relayed as heartbeats; MCP servers take no idempotency key and compensate
        nothing. ``None`` for a name the provider lacks.
        """
        return None if name not in self._routes else _CAPABILITIES

    def tool(self, wire_name: str) -> McpTool | None:
        """The MCP tool behind a wire name."""
        route = self._routes.get(wire_name)
        return None if route is None else route[1]

    async def invoke(self, invocation: ToolInvocation) -> ToolOutcome:
        """Call the tool on its server with the admitted arguments; ``not_found`` for a name it lacks."""
        route = self._routes.get(invocation.name)
        if route is None:
            return ToolOutcome.unknown_tool([d.name for d in self._descriptors])
        client, found = route
        context = invocation.context
        left = context.remaining()
        timeout = None if math.isinf(left) else left
        arguments, relay = invocation.arguments, _relay(context)
        if isinstance(client, AsyncMcpClient):
            result = await client.call_tool(found, arguments, progress=relay, timeout=timeout)
        else:
            import anyio.to_thread

            call = partial(client.call_tool, found, arguments, progress=relay, timeout=timeout)
            result = await anyio.to_thread.run_sync(call)
        return tool_outcome_of(found, result, invocation.descriptor.contract.output_validation)


_CAPABILITIES = ProviderCapabilities(heartbeat=True)
#: Characters of a progress notification's message kept in its heartbeat.
_MESSAGE = 200


def _relay(context: InvocationContext) -> Progress:
    """Progress notifications as the call's heartbeats: ``progress / total`` when it lies in [0, 1]."""

    async def relay(progress: float, total: float | None, message: str | None) -> None:
        fraction = progress / total if total else None
        if fraction is not None and not 0 <= fraction <= 1:
            fraction = None
        context.heartbeat((message or "")[:_MESSAGE], fraction)

    return relay


async def aprovider(
    *clients: AsyncMcpClient,
    trust_hints: bool = False,
    output_validation: OutputValidation = OutputValidation.STRICT,
    heartbeat: HeartbeatPolicy = _NO_HEARTBEATS,
) -> Result[McpProvider, McpError | NameCollision]:
    """
    List every client's tools and make one provider of them; ``Err`` when a listing fails, or when two
    servers' tools would share a wire name (give each server its own prefix). ``heartbeat`` is every
    tool's liveness policy (``contract_for``).
    """
    listed: list[tuple[Connected, Listing]] = []
    for client in clients:
        match await client.list_tools():
            case Err(problem):
                return Err(problem)
            case Ok(listing):
                listed.append((client, listing))
    return _made(listed, trust_hints, output_validation, heartbeat)


def provider(
    *clients: McpClient,
    trust_hints: bool = False,
    output_validation: OutputValidation = OutputValidation.STRICT,
    heartbeat: HeartbeatPolicy = _NO_HEARTBEATS,
) -> Result[McpProvider, McpError | NameCollision]:
    """``aprovider`` for ``McpClient``s (code without an event loop)."""
    listed: list[tuple[Connected, Listing]] = []
    for client in clients:
        match client.list_tools():
            case Err(problem):
                return Err(problem)
            case Ok(listing):
                listed.append((client, listing))
    return _made(listed, trust_hints, output_validation, heartbeat)


def _made(
    listed: list[tuple[Connected, Listing]],
    trust_hints: bool,
    output_validation: OutputValidation,
    heartbeat: HeartbeatPolicy,
) -> Result[McpProvider, McpError | NameCollision]:
    seen: dict[str, McpTool] = {}
    for _, listing in listed:
        for found in listing.tools:
            first = seen.setdefault(found.wire_name, found)
            if first is not found:
                return Err(
                    NameCollision(
                        found.wire_name, Named(first.prefix, first.name), Named(found.prefix, found.name)
                    )
                )
    return Ok(
        McpProvider(listed, trust_hints=trust_hints, output_validation=output_validation, heartbeat=heartbeat)
    )


_public.rehome("llm_wire.mcp", _FACE[__name__], globals())
