"""
llm_wire: typed, checked and bounded language-model tool calling.

Declare tools from typed codecs or runtime JSON Schemas, send them to OpenAI, Anthropic and Gemini, and
admit every call a model returns before your code sees it.
"""

from llm_wire.result import Err, Ok, Result
from llm_wire.value import Limits, ParseError, Value, parse, render

__all__ = ["Err", "Limits", "Ok", "ParseError", "Result", "Value", "parse", "render"]
