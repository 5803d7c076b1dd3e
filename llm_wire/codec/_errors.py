"""
Decode and encode failures of codecs: the errors with their paths, and the failure that unwinds a decode or
an encode to its entry point. The reasons only codecs have are in ``_reasons``; the ones a codec shares with
contracts (wrong type, bounds, lengths, pattern, enum, missing and unexpected members, depth, invalid JSON)
are ``llm_wire.reasons``.
"""

from __future__ import annotations

from attrs import field, frozen

from llm_wire._described import Described
from llm_wire.codec._reasons import DecodeReason, EncodeReason
from llm_wire.reasons import InvalidJson
from llm_wire.value import Path
from llm_wire.value._render import render_redacted

__all__ = ["DecodeError", "EncodeError"]

_SHOWN: frozenset[int] = frozenset()


@frozen
class DecodeError(Described):
    """
    Why a value did not decode: where (``path``, outermost first) and why (a typed ``reason``).

    ``hidden`` lists the positions in ``path`` of member names taken from the input that the codec does not
    declare (string-map keys, an unexpected member); the text shows them as ``[*]``.
    """

    path: Path
    reason: DecodeReason
    hidden: frozenset[int] = field(default=_SHOWN, kw_only=True)

    def describe(self) -> str:
        """``$["user"]["age"]: expected at most 150``; never contains an input value."""
        if isinstance(self.reason, InvalidJson):
            return self.reason.describe()
        return f"{render_redacted(self.path, self.hidden)}: {self.reason.describe()}"


@frozen
class EncodeError(Described):
    """
    Why a native value did not encode: where (``path`` in the JSON it would have become) and why.
    """

    path: Path
    reason: EncodeReason
    hidden: frozenset[int] = field(default=_SHOWN, kw_only=True)

    def describe(self) -> str:
        """``$["location"]["latitude"]: number is not finite``."""
        return f"{render_redacted(self.path, self.hidden)}: {self.reason.describe()}"


class _CodecFailure(Exception):
    """
    Internal: unwinds a decode or encode from the failing value to the codec's entry point.

    Each enclosing combinator appends its path segment, so ``rpath`` is innermost first.
    """

    def __init__(self, reason: DecodeReason | EncodeReason) -> None:
        self.reason = reason
        self.rpath: list[str | int] = []
        self.rkeys: list[int] = []

    def at(self, segment: str | int) -> _CodecFailure:
        """Append one segment (outer to this failure); returns ``self`` for ``raise``."""
        self.rpath.append(segment)
        return self

    def at_key(self, key: str) -> _CodecFailure:
        """Append a member name taken from the input that the codec does not declare (shown as ``[*]``)."""
        self.rkeys.append(len(self.rpath))
        self.rpath.append(key)
        return self

    @classmethod
    def of(
        cls, path: Path, reason: DecodeReason | EncodeReason, hidden: frozenset[int] = _SHOWN
    ) -> _CodecFailure:
        """A failure that already carries a path (from a ``custom`` callback's error)."""
        fail = cls(reason)
        n = len(path)
        fail.rpath = list(reversed(path))
        fail.rkeys = [n - 1 - k for k in hidden]
        return fail

    def path(self) -> tuple[Path, frozenset[int]]:
        """The path outermost first, and the positions of hidden segments in it."""
        n = len(self.rpath)
        return tuple(reversed(self.rpath)), frozenset(n - 1 - k for k in self.rkeys) if self.rkeys else _SHOWN


def decode_error(fail: _CodecFailure) -> DecodeError:
    """The public error for an internal decode failure."""
    path, hidden = fail.path()
    return DecodeError(path, fail.reason, hidden=hidden)  # type: ignore[arg-type]


def encode_error(fail: _CodecFailure) -> EncodeError:
    """The public error for an internal encode failure."""
    path, hidden = fail.path()
    return EncodeError(path, fail.reason, hidden=hidden)  # type: ignore[arg-type]
