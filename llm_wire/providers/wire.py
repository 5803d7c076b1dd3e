"""
The old home of the wire records, for one release: they are ``llm_wire.providers``'s now (``Wire``,
``Wires``, ``Outgoing``...). This module lists nothing (``llm_wire._deprecated.ALIASES``).
"""

from __future__ import annotations

from llm_wire.providers import (  # noqa: F401
    Declared,
    DecoderFactory,
    EncodeError,
    Http,
    InvalidReplay,
    Outgoing,
    OutputSpec,
    Speech,
    ToolChoice,
    UnsupportedSetting,
    UseTool,
    Wire,
    Wires,
)

__all__: list[str] = []
