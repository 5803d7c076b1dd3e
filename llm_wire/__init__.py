"""
llm_wire: typed, checked and bounded language-model tool calling.

Declare tools from typed codecs (``llm_wire.codec``) or runtime JSON Schemas (``llm_wire.contract``), build a
``request`` (each ``with_*`` method returns a copy), ``prepare`` it for OpenAI, Anthropic or Gemini, decode
the response with the prepared request (``prepared.decode_body`` or ``prepared.decoder()``), and ``resolve``
it: every call a model returns is admitted before your code sees it.

The names load on first use, so ``import llm_wire.value`` (or any other part) loads only that part and what
it stands on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llm_wire._public import lazy_face

if TYPE_CHECKING:
    from llm_wire._request import (
        Config,
        DuplicateCallId,
        DuplicateResult,
        DuplicateToolName,
        EmptyConversation,
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
    from llm_wire.providers.google import GoogleSchema
    from llm_wire.result import Err, Ok, Result
    from llm_wire.tool import Tool, ToolCallChecks

__all__ = [
    "Answer",
    "Choice",
    "Config",
    "DuplicateCallId",
    "DuplicateResult",
    "DuplicateToolName",
    "EmptyConversation",
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

#: Where each name of the facade lives.
_HOMES = {
    "Answer": "llm_wire.outcome",
    "Choice": "llm_wire.providers",
    "Config": "llm_wire._request",
    "DuplicateCallId": "llm_wire._request",
    "DuplicateResult": "llm_wire._request",
    "DuplicateToolName": "llm_wire._request",
    "EmptyConversation": "llm_wire._request",
    "Err": "llm_wire.result",
    "Failure": "llm_wire.outcome",
    "GoogleSchema": "llm_wire.providers.google",
    "InvalidReplay": "llm_wire.providers",
    "InvalidSetting": "llm_wire._request",
    "Limit": "llm_wire._request",
    "MissingResult": "llm_wire._request",
    "NeedsTools": "llm_wire.outcome",
    "NotEncodable": "llm_wire._request",
    "Ok": "llm_wire.result",
    "OrphanResult": "llm_wire._request",
    "Output": "llm_wire._request",
    "OutputLimited": "llm_wire.outcome",
    "PrepareError": "llm_wire._request",
    "Prepared": "llm_wire._request",
    "Refused": "llm_wire.outcome",
    "Request": "llm_wire._request",
    "RequestTooLarge": "llm_wire._request",
    "Result": "llm_wire.result",
    "Strictness": "llm_wire._request",
    "Tool": "llm_wire.tool",
    "ToolCallChecks": "llm_wire.tool",
    "ToolChoice": "llm_wire.providers",
    "UnknownToolChoice": "llm_wire._request",
    "UnsupportedOutput": "llm_wire._request",
    "UnsupportedSchema": "llm_wire._request",
    "UnsupportedSetting": "llm_wire.providers",
    "UseTool": "llm_wire.providers",
    "assistant": "llm_wire._request",
    "config": "llm_wire._request",
    "prepare": "llm_wire._request",
    "request": "llm_wire._request",
    "resolve": "llm_wire.outcome",
    "system": "llm_wire._request",
    "tool_result": "llm_wire._request",
    "user": "llm_wire._request",
}


if not TYPE_CHECKING:  # mypy reads the imports above, so a misspelt name stays an error
    __getattr__, __dir__ = lazy_face(__name__, _HOMES, globals())
