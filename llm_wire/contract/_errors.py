"""
The typed failures of ``llm_wire.contract``: why a schema document was refused (``LoadError``) and why a value
was refused (``ValidationError``); ``contract`` re-exports them. The reasons only contracts have are in
``_reasons``.

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

from collections.abc import Callable
from functools import partial

from attrs import frozen

from llm_wire._described import Described
from llm_wire.contract._reasons import LoadReason, Reason
from llm_wire.error import LimitExceeded
from llm_wire.reasons import InvalidJson
from llm_wire.value import Path, render_path
from llm_wire.value._render import render_redacted

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
    Why a value is outside a contract: ``path`` in the value and a typed ``reason``. Read-only: ``path``,
    ``reason`` and ``hidden`` are properties.

    ``hidden`` holds the positions in ``path`` of member names that came from the value without being
    declared by the schema; they stay in ``path`` for code and show as ``[*]`` in ``describe()``.

    (A plain class rather than attrs: validation builds one per failure on its hot path, with its path
    reversed in ``rpath`` while the failure travels up; ``path`` is settled on first use.)
    """

    __slots__ = ("_hidden", "_path", "_reason", "rpath")
    __match_args__ = ("path", "reason", "hidden")

    rpath: list[str | int | Hidden]
    _path: Path
    _hidden: frozenset[int]

    def __init__(self, path: Path, reason: Reason, hidden: frozenset[int] = _SHOWN) -> None:
        self._reason = reason
        self.rpath = []
        if path is not _IN_RPATH:
            self._path = tuple(path)
            self._hidden = frozenset(hidden)

    @property
    def reason(self) -> Reason:
        """Why the value failed."""
        return self._reason

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
        self._path = path
        self._hidden = hidden
        return path, hidden

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


#: The path of a failure under construction: its segments are in ``rpath``, innermost first.
_IN_RPATH: Path = ("<in rpath>",)

#: A failure under construction at the failing value (its parents add their path segments to ``rpath``).
failure: Callable[[Reason], ValidationError] = partial(ValidationError, _IN_RPATH)
