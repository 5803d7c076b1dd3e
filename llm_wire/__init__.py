"""
llm_wire: typed, checked and bounded language-model tool calling.

Declare tools from typed codecs (``llm_wire.codec``) or runtime JSON Schemas (``llm_wire.contract``), build a
``request`` (each ``with_*`` method returns a copy), ``prepare`` it for OpenAI, Anthropic or Gemini, decode
the response with the prepared request (``prepared.decode_body`` or ``prepared.decoder()``), and ``resolve``
it: every call a model returns is admitted before your code sees it.
"""

from llm_wire._request import (
    Config,
    DuplicateCallId,
    DuplicateResult,
    DuplicateToolName,
    GoogleSchema,
    InvalidSetting,
    Limit,
    MissingResult,
    NotEncodable,
    OrphanResult,
    Output,
    Prepared,
    PrepareError,
    Request,
    RequestTooLarge,
    Strictness,
    UnknownToolChoice,
    UnsupportedOutput,
    UnsupportedSchema,
    assistant,
    config,
    prepare,
    request,
    system,
    tool_result,
    user,
)
from llm_wire.outcome import Answer, Failure, NeedsTools, OutputLimited, Refused, resolve
from llm_wire.providers import Choice, InvalidReplay, ToolChoice, UnsupportedSetting, UseTool
from llm_wire.result import Err, Ok, Result
from llm_wire.tool import Tool, ToolCallChecks

__all__ = [
    "Answer",
    "Choice",
    "Config",
    "DuplicateCallId",
    "DuplicateResult",
    "DuplicateToolName",
    "Err",
    "Failure",
    "GoogleSchema",
    "InvalidReplay",
    "InvalidSetting",
    "Limit",
    "MissingResult",
    "NeedsTools",
    "NotEncodable",
    "Ok",
    "OrphanResult",
    "Output",
    "OutputLimited",
    "PrepareError",
    "Prepared",
    "Refused",
    "Request",
    "RequestTooLarge",
    "Result",
    "Strictness",
    "Tool",
    "ToolCallChecks",
    "ToolChoice",
    "UnknownToolChoice",
    "UnsupportedOutput",
    "UnsupportedSchema",
    "UnsupportedSetting",
    "UseTool",
    "assistant",
    "config",
    "prepare",
    "request",
    "resolve",
    "system",
    "tool_result",
    "user",
]
