"""
Function tools as a recorded request body declares them, read back for each API.

For replaying recorded exchanges (the corpus tests and the demo): ``recorded_tools`` finds each function
declaration in a request body, where each API puts it: OpenAI Chat ``tools[].function``, OpenAI Responses
``tools[]`` of type ``function``, Anthropic ``tools[]`` with an ``input_schema``, and Gemini
``functionDeclarations`` (or ``function_declarations``) with the schema in ``parametersJsonSchema``,
``parameters_json_schema`` or the legacy OpenAPI ``parameters``. ``Recorded.json_schema`` reads a legacy
Gemini schema back as JSON Schema. Nothing raises: an entry that does not have the expected shape is skipped.
"""

from __future__ import annotations

from collections.abc import Iterator

from attrs import frozen

from llm_wire.message import Provider
from llm_wire.value import Value

__all__ = ["Recorded", "lowercase_types", "recorded_tools"]

_GEMINI_KEYS = ("parametersJsonSchema", "parameters_json_schema", "parameters")


@frozen
class Recorded:
    """One recorded function declaration: its schema and the tool-level members around it."""

    name: str
    description: Value
    #: The schema as recorded (a legacy Gemini ``parameters`` schema keeps its uppercase types).
    schema: Value
    strict: Value
    #: Which member holds a Gemini declaration's schema; ``""`` for the other APIs.
    key: str
    #: The whole declaration as recorded.
    raw: dict[str, Value]

    @property
    def json_schema(self) -> Value:
        """The schema as JSON Schema, for ``tool.from_json_schema``."""
        return lowercase_types(self.schema) if self.key == "parameters" else self.schema


def recorded_tools(provider: Provider, body: Value) -> Iterator[Recorded]:
    """The function tools a request body for ``provider`` declares, in order."""
    tools = body.get("tools") if isinstance(body, dict) else None
    entries = [tools] if isinstance(tools, dict) else tools if isinstance(tools, list) else []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if provider is Provider.OPENAI_CHAT and entry.get("type") == "function":
            yield from _declaration(entry.get("function"), "parameters", "")
        elif provider is Provider.OPENAI_RESPONSES and entry.get("type") == "function":
            yield from _declaration(entry, "parameters", "")
        elif provider is Provider.ANTHROPIC and "input_schema" in entry:
            yield from _declaration(entry, "input_schema", "")
        elif provider is Provider.GOOGLE:
            found = entry.get("functionDeclarations", entry.get("function_declarations"))
            for declaration in found if isinstance(found, list) else []:
                for key in _GEMINI_KEYS:
                    if isinstance(declaration, dict) and key in declaration:
                        yield from _declaration(declaration, key, key)


def _declaration(raw: Value, schema_key: str, key: str) -> Iterator[Recorded]:
    if isinstance(raw, dict) and isinstance(name := raw.get("name"), str):
        strict = None if key else raw.get("strict")  # a Gemini declaration has no strict flag
        yield Recorded(name, raw.get("description"), raw.get(schema_key), strict, key, raw)


def lowercase_types(schema: Value) -> Value:
    """A legacy Gemini ``parameters`` schema read back as JSON Schema (``"OBJECT"`` -> ``"object"``)."""
    if isinstance(schema, dict):
        return {
            k: (v.lower() if k == "type" and isinstance(v, str) else lowercase_types(v))
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [lowercase_types(v) for v in schema]
    return schema
