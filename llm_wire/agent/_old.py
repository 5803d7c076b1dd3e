"""
The functions ``llm_wire.agent`` gave up, kept under their old names for one release
(``llm_wire._deprecated.ALIASES``): each warns naming its replacement, then does what it does.
"""

from __future__ import annotations

from llm_wire import _deprecated
from llm_wire import tool as _tool
from llm_wire.agent._descriptor import ToolContract, ToolDescriptor
from llm_wire.agent._invocation import ToolInvocation
from llm_wire.agent._tool_outcome import ErrorCategory, ToolOutcome
from llm_wire.agent.projection import project_payload, project_tool_outcome

__all__: list[str] = []


def _describe(tool: _tool.Tool, contract: ToolContract | None = None) -> ToolDescriptor:
    return ToolDescriptor(tool, ToolContract() if contract is None else contract)


def _retry_advice(
    outcome: ToolOutcome, contract: ToolContract, tool: str, *, consumes_key: bool, compensated: bool = False
) -> ToolOutcome:
    return contract.retry_advice(outcome, tool, consumes_key=consumes_key, compensated=compensated)


abandoned_outcome = _deprecated.renamed(ToolOutcome.abandoned, "llm_wire.agent.abandoned_outcome")
invalid_arguments = _deprecated.renamed(ToolOutcome.invalid_arguments, "llm_wire.agent.invalid_arguments")
outcome_for_exception = _deprecated.renamed(
    ToolOutcome.from_exception, "llm_wire.agent.outcome_for_exception"
)
outcome_unknown = _deprecated.renamed(ToolOutcome.unknown, "llm_wire.agent.outcome_unknown")
unknown_tool = _deprecated.renamed(ToolOutcome.unknown_tool, "llm_wire.agent.unknown_tool")
category_for_exception = _deprecated.renamed(
    ErrorCategory.for_exception, "llm_wire.agent.category_for_exception"
)
category_for_status = _deprecated.renamed(ErrorCategory.for_status, "llm_wire.agent.category_for_status")
describe = _deprecated.renamed(_describe, "llm_wire.agent.describe")
descriptor_from_json_schema = _deprecated.renamed(
    ToolDescriptor.from_json_schema, "llm_wire.agent.descriptor_from_json_schema"
)
invocation_for = _deprecated.renamed(ToolInvocation.of, "llm_wire.agent.invocation_for")
redact = _deprecated.renamed(ToolDescriptor.redact, "llm_wire.agent.redact")
retry_advice = _deprecated.renamed(_retry_advice, "llm_wire.agent.retry_advice")
project = _deprecated.renamed(project_payload, "llm_wire.agent.project")
project_outcome = _deprecated.renamed(project_tool_outcome, "llm_wire.agent.project_outcome")
