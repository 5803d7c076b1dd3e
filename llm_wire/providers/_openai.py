"""
What OpenAI's two APIs share: the schema dialects (non-strict and strict) and the error object.

Responses and Chat Completions take the same function schemas and report errors as the same
``{"error": {message, type, code, param}}`` object; each API module reads (and, for the fake provider,
writes) them from here.
"""

from __future__ import annotations

from llm_wire.providers._http_errors import lenient, provider_error
from llm_wire.providers.projection import Optionals, Profile
from llm_wire.providers.response import _DEFAULT_LIMITS, ErrorKind, ProviderError, _Headers
from llm_wire.value import Value

__all__ = ["LOOSE", "STRICT", "decode_error", "openai_error", "speak_error"]

#: Non-strict tools: any JSON Schema, but every array needs ``items`` ("array schema missing items").
LOOSE = Profile(name="openai", array_items=True)

#: Strict tools and structured output (python_ecosystem.md §3.1).
STRICT = Profile(
    name="openai-strict",
    keep=frozenset(
        {
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "anyOf",
            "enum",
            "const",
            "$ref",
            "description",
            "title",
            "pattern",
            "format",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minItems",
            "maxItems",
        }
    ),
    close_objects=True,
    optionals=Optionals.NULLABLE,
    ref_siblings=frozenset(),
    one_of=False,
    all_of=False,
    formats=frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}),
    refused_pattern=r"\(\?<?[=!]",
    typed=True,
    array_items=True,
    root_combinators=False,
)

_KINDS = {
    "invalid_request_error": ErrorKind.INVALID_REQUEST,
    "authentication_error": ErrorKind.AUTHENTICATION,
    "invalid_api_key": ErrorKind.AUTHENTICATION,
    "permission_error": ErrorKind.PERMISSION,
    "not_found_error": ErrorKind.NOT_FOUND,
    "model_not_found": ErrorKind.NOT_FOUND,
    "rate_limit_exceeded": ErrorKind.RATE_LIMITED,
    "rate_limit_error": ErrorKind.RATE_LIMITED,
    "insufficient_quota": ErrorKind.RATE_LIMITED,
    "server_error": ErrorKind.SERVER,
    "server_is_overloaded": ErrorKind.OVERLOADED,
    "slow_down": ErrorKind.OVERLOADED,
}


def openai_error(error: Value, status: int | None, headers: _Headers | None) -> ProviderError:
    """An OpenAI error object (``{message, type, code, param}``) as a ``ProviderError``."""
    code = error.get("code") if isinstance(error, dict) else None
    kind_name = error.get("type") if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    code = code if isinstance(code, str) else None
    kind_name = kind_name if isinstance(kind_name, str) else None
    kind = _KINDS.get(code or "") or _KINDS.get(kind_name or "")
    text = message if isinstance(message, str) else None
    return provider_error(status, headers, kind, code or kind_name, text)


def decode_error(status: int, body: bytes | str | Value, headers: _Headers | None = None) -> ProviderError:
    """
    An HTTP error response as a ``ProviderError`` with retry advice; an unreadable body still gives one.
    """
    parsed = lenient(body, _DEFAULT_LIMITS.response_body_bytes)
    found = parsed.get("error") if isinstance(parsed, dict) else None
    return openai_error(found, status, headers)


#: The error ``type`` the fake provider sends for an HTTP status.
_SPOKEN = {
    429: "rate_limit_exceeded",
    500: "server_error",
    503: "server_error",
    400: "invalid_request_error",
}


def speak_error(status: int, message: str) -> Value:
    """An OpenAI error body for the fake provider."""
    kind = _SPOKEN.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}
