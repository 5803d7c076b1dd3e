"""
The typed failures of ``llm_wire.contract``: why a schema document was refused (``LoadError``) and why a value
was refused (``ValidationError``); ``contract`` re-exports them. The reasons only contracts have are in
``_reasons``, which loads on first use.

The reasons a contract shares with codecs (wrong type, enum, bounds, lengths, pattern, items, missing and
unexpected members, format, depth, invalid JSON) are ``llm_wire.reasons``; bounds on a document are
``llm_wire.error.LimitExceeded``::

    LoadError(path, keyword, reason)      a schema document that cannot be honoured
    └── LoadReason
        ├── InvalidJson                       (llm_wire.reasons) the text is not strict JSON
        ├── LimitExceeded                     (llm_wire.error) max_nodes, max_depth, max_ref_depth,
        │                                     max_pattern_cost
        ├── InvalidShape(problem), UnsupportedKeyword(why), UnsupportedDialect
        ├── RemoteReference, UnresolvableReference(why), ReferenceLoop
        └── UnsupportedPattern(why), UnknownFormat

    ValidationError(path, reason)         a value outside the contract
    └── Reason
        ├── the shared reasons of llm_wire.reasons
        ├── NotJsonValue                      a Python object that is not JSON (a NaN, a tuple)
        ├── NotConst(expected)
        ├── DuplicateItems, TooFewMatches, TooManyMatches, UnexpectedItem  (arrays)
        ├── TooFewProperties, TooManyProperties, MissingDependency, InvalidPropertyName  (objects)
        └── NotAllowed, NoMatch, SeveralMatch, MatchesNot  (false, anyOf/oneOf, not)

Texts name paths, keywords and what the schema expects; they never contain a value taken from the instance,
and an instance key that the schema does not declare shows as ``[*]`` (``llm_wire.reasons.render_hidden``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attrs import frozen
from attrs.exceptions import FrozenInstanceError

from llm_wire._described import Described, InvalidJson, render_redacted
from llm_wire._fast import new, slot_setters
from llm_wire.error import LimitExceeded
from llm_wire.value import Path, render_path

if TYPE_CHECKING:
    from llm_wire.contract._reasons import LoadReason, Reason

__all__ = ["LoadError", "ValidationError", "failure", "too_large"]


_LIMITS = {
    "max_nodes": "number of schema nodes",
    "max_depth": "nesting of subschemas",
    "max_ref_depth": "chain of references followed in place",
    "max_pattern_cost": "the RE2 program its counted repetitions add",
}


def too_large(setting: str, limit: int) -> LimitExceeded:
    """The bound ``setting`` (a ``load`` argument, ``max_nodes`` say) at ``limit``, reached by a document."""
    return LimitExceeded(f"contract.load({setting}=)", limit, what=_LIMITS[setting])


@frozen
class LoadError(Described):
    """
    A schema document that ``load`` refused: where (``path`` in the document, ``keyword``) and why.
    """

    path: Path
    keyword: str | None
    reason: LoadReason

    def describe(self) -> str:
        """``$["properties"]["a"]: "pattern" cannot be honoured: ...``; no schema value is repeated."""
        if isinstance(self.reason, InvalidJson):
            return self.reason.describe()
        where = render_path(self.path)
        if self.keyword is None:
            return f"{where}: {self.reason.describe()}"
        if isinstance(self.reason, LimitExceeded):  # a sentence of its own: "<what> exceeds <limit> (...)"
            return f'{where}: "{self.keyword}": {self.reason.describe()}'
        return f'{where}: "{self.keyword}" {self.reason.describe()}'


class Hidden(tuple[str]):
    """
    In a path under construction: a member name taken from the value that the schema does not declare.

    Made as ``Hidden((key,))``: a one-item tuple, so that making one costs no Python call.
    """

    __slots__ = ()

    @property
    def key(self) -> str:
        """The member name."""
        return self[0]


_SHOWN: frozenset[int] = frozenset()


class ValidationError:
    """
    Why a value is outside a contract: ``path`` in the value and a typed ``reason``. Immutable.

    ``hidden`` holds the positions in ``path`` of member names that came from the value without being
    declared by the schema; they stay in ``path`` for code and show as ``[*]`` in ``describe()``.

    (Written by hand rather than with attrs: validation builds one per failure on its hot path, with its
    path reversed in ``rpath`` while the failure travels up; ``path`` is settled on first use.)
    """

    __slots__ = ("_hidden", "_path", "reason", "rpath")
    __match_args__ = ("path", "reason", "hidden")

    reason: Reason
    rpath: list[str | int | Hidden]
    _path: Path
    _hidden: frozenset[int]

    def __init__(self, path: Path, reason: Reason, hidden: frozenset[int] = _SHOWN) -> None:
        _set_reason(self, reason)
        _set_rpath(self, [])
        _set_path(self, tuple(path))
        _set_hidden(self, frozenset(hidden))

    @property
    def path(self) -> Path:
        """Where, outermost first: member names and item indexes."""
        try:
            return self._path
        except AttributeError:
            return self._settle()[0]

    @property
    def hidden(self) -> frozenset[int]:
        """Positions in ``path`` that ``describe()`` shows as ``[*]``."""
        try:
            return self._hidden
        except AttributeError:
            return self._settle()[1]

    def _settle(self) -> tuple[Path, frozenset[int]]:
        segments = self.rpath[::-1]
        positions = [n for n, segment in enumerate(segments) if isinstance(segment, Hidden)]
        path: Path = tuple(segment.key if isinstance(segment, Hidden) else segment for segment in segments)
        hidden = frozenset(positions) if positions else _SHOWN
        _set_path(self, path)
        _set_hidden(self, hidden)
        return path, hidden

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ValidationError):
            return NotImplemented
        return (self.path, self.reason, self.hidden) == (other.path, other.reason, other.hidden)

    def __hash__(self) -> int:
        return hash((self.path, self.reason, self.hidden))

    def __repr__(self) -> str:
        return f"ValidationError(path={self.path!r}, reason={self.reason!r}, hidden={self.hidden!r})"

    def describe(self) -> str:
        """``$["city"]: expected a string``; a hidden segment shows as ``[*]``."""
        return f"{render_redacted(self.path, self.hidden)}: {self.reason.describe()}"

    def __str__(self) -> str:
        return self.describe()


_set_reason, _set_rpath, _set_path, _set_hidden = slot_setters(
    ValidationError, "reason", "rpath", "_path", "_hidden"
)
_new = new


def failure(reason: Reason) -> ValidationError:
    """A failure under construction at the failing value (its parents add their path segments)."""
    made = _new(ValidationError)
    _set_reason(made, reason)
    _set_rpath(made, [])
    return made
