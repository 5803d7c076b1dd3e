"""
What the filesystem and process runtimes check alike: a policy's positive limits, a request's limit
against the policy's maximum, and a caller's metadata.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from llm_wire._checks import positive_int
from llm_wire.toolkits.governance import ConfigurationError, _MetadataValue

__all__ = ["caller_metadata", "clamp", "positive_limit"]

#: The attrs validator of a policy limit: an int >= 1, else ``ConfigurationError`` naming the setting.
positive_limit = positive_int(ConfigurationError)


def clamp(name: str, requested: int, maximum: int, refuse: Callable[[str], Exception]) -> int:
    """0 selects ``maximum``; a larger request is clamped; a negative one raises ``refuse(message)``."""
    if requested < 0:
        raise refuse(f"{name} may not be negative (0 means the policy maximum)")
    return maximum if requested == 0 else min(requested, maximum)


def caller_metadata(
    metadata: object, reserved: frozenset[str], prefixes: tuple[str, ...] = ()
) -> dict[str, _MetadataValue]:
    """
    A caller's metadata without the keys only the runtime sets (``reserved``, or starting with one of
    ``prefixes``); ``TypeError`` unless it is a mapping of str to str, int or bool.
    """
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping) or not all(
        isinstance(key, str) and isinstance(value, str | int | bool) for key, value in metadata.items()
    ):
        raise TypeError("metadata must be a mapping of str to str, int or bool")
    return {
        key: value for key, value in metadata.items() if key not in reserved and not key.startswith(prefixes)
    }
