"""
llm_wire: typed, checked and bounded language-model tool calling.

Declare tools from typed codecs (``llm_wire.codec``) or runtime JSON Schemas (``llm_wire.contract``), build a
``request`` (each ``with_*`` method returns a copy), ``prepare`` it for OpenAI, Anthropic or Gemini, decode
the response with the prepared request (``prepared.decode_body`` or ``prepared.decoder()``), and ``resolve``
it: every call a model returns is admitted before your code sees it.

The names load on first use, so ``import llm_wire.value`` (or any other part) loads only that part and what
it stands on. ``_FACE`` lists them once, by the module that defines them; ``__all__`` and the look-up are
made from it. ``_OLD`` holds the names this face gave up, importable for one release
(``llm_wire._deprecated.ALIASES``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llm_wire import _public

#: The facade's names, by the module each comes from.
_FACE: dict[str, tuple[str, ...]] = {
    "llm_wire._request": (
        "Config",
        "DuplicateCallId",
        "DuplicateResult",
        "EmptyConversation",
        "InvalidSetting",
        "Limit",
        "MissingResult",
        "NotEncodable",
        "OrphanResult",
        "Output",
        "PrepareError",
        "Prepared",
        "Request",
        "RequestTooLarge",
        "Strictness",
        "UnknownToolChoice",
        "UnsupportedOutput",
        "UnsupportedSchema",
        "assistant",
        "config",
        "prepare",
        "request",
        "system",
        "tool_result",
        "user",
    ),
    "llm_wire.outcome": ("Answer", "Failure", "NeedsTools", "OutputLimited", "Refused", "resolve"),
    "llm_wire.providers": ("AllowedTools", "ToolChoice", "UseTool"),
    "llm_wire.tool": ("ToolCallChecks",),
}

#: Names the face gave up, importable for one release, unlisted: each is listed at its home.
_OLD: dict[str, tuple[str, ...]] = {
    "llm_wire.providers": ("InvalidReplay", "UnsupportedSetting"),
    "llm_wire.providers.google": ("GoogleSchema",),
    "llm_wire.result": ("Err", "Ok", "Result"),
    "llm_wire.tool": ("DuplicateToolName", "Tool"),
}

__all__ = sorted(name for names in _FACE.values() for name in names)

if (
    TYPE_CHECKING
):  # what mypy reads (``X as X`` re-exports X); tests/test_layout.py checks it names both tables
    from llm_wire._request import Config as Config
    from llm_wire._request import DuplicateCallId as DuplicateCallId
    from llm_wire._request import DuplicateResult as DuplicateResult
    from llm_wire._request import EmptyConversation as EmptyConversation
    from llm_wire._request import InvalidSetting as InvalidSetting
    from llm_wire._request import Limit as Limit
    from llm_wire._request import MissingResult as MissingResult
    from llm_wire._request import NotEncodable as NotEncodable
    from llm_wire._request import OrphanResult as OrphanResult
    from llm_wire._request import Output as Output
    from llm_wire._request import Prepared as Prepared
    from llm_wire._request import PrepareError as PrepareError
    from llm_wire._request import Request as Request
    from llm_wire._request import RequestTooLarge as RequestTooLarge
    from llm_wire._request import Strictness as Strictness
    from llm_wire._request import UnknownToolChoice as UnknownToolChoice
    from llm_wire._request import UnsupportedOutput as UnsupportedOutput
    from llm_wire._request import UnsupportedSchema as UnsupportedSchema
    from llm_wire._request import assistant as assistant
    from llm_wire._request import config as config
    from llm_wire._request import prepare as prepare
    from llm_wire._request import request as request
    from llm_wire._request import system as system
    from llm_wire._request import tool_result as tool_result
    from llm_wire._request import user as user
    from llm_wire.outcome import Answer as Answer
    from llm_wire.outcome import Failure as Failure
    from llm_wire.outcome import NeedsTools as NeedsTools
    from llm_wire.outcome import OutputLimited as OutputLimited
    from llm_wire.outcome import Refused as Refused
    from llm_wire.outcome import resolve as resolve
    from llm_wire.providers import AllowedTools as AllowedTools
    from llm_wire.providers import InvalidReplay as InvalidReplay
    from llm_wire.providers import ToolChoice as ToolChoice
    from llm_wire.providers import UnsupportedSetting as UnsupportedSetting
    from llm_wire.providers import UseTool as UseTool
    from llm_wire.providers.google import GoogleSchema as GoogleSchema
    from llm_wire.result import Err as Err
    from llm_wire.result import Ok as Ok
    from llm_wire.result import Result as Result
    from llm_wire.tool import DuplicateToolName as DuplicateToolName
    from llm_wire.tool import Tool as Tool
    from llm_wire.tool import ToolCallChecks as ToolCallChecks
else:
    __getattr__, __dir__ = _public.lazy_face(
        __name__,
        {name: home for table in (_FACE, _OLD) for home, names in table.items() for name in names},
        globals(),
    )
