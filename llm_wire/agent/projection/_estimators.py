"""
Token estimators for projection: the protocol, the UTF-8-aware heuristic fallback and a ``tiktoken``
adapter, and the guarded calls projection makes into them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from attrs import frozen

from llm_wire._fast import Lean

if TYPE_CHECKING:
    import tiktoken

__all__ = ["HeuristicEstimator", "TiktokenEstimator", "TokenEstimator"]


# ---------------------------------------------------------------------------------------------------------
# Token estimators


@runtime_checkable
class TokenEstimator(Protocol):
    """
    Counts and cuts text in tokens. ``truncate`` returns the longest head (or tail, with ``keep_tail``) whose
    estimate is at most ``token_limit``; projection checks its results, so a wrong one cannot break a ceiling.
    """

    def estimate(self, text: str) -> int:
        """The estimated token count of ``text``."""
        ...

    def truncate(self, text: str, token_limit: int, *, keep_tail: bool) -> str:
        """A head (or tail) of ``text`` of at most ``token_limit`` tokens."""
        ...


@frozen
class HeuristicEstimator(Lean):
    """
    The UTF-8-aware fallback: a quarter token per ASCII character (rounded up), one token per other code
    point. ASCII text costs about a token per four bytes; CJK and emoji cost about one token per character.
    """

    def estimate(self, text: str) -> int:
        """``ceil(ascii / 4) + non_ascii``."""
        if text.isascii():
            return -(-len(text) // 4)
        ascii_count = len(text.encode("ascii", "ignore"))
        return -(-ascii_count // 4) + len(text) - ascii_count

    def truncate(self, text: str, token_limit: int, *, keep_tail: bool) -> str:
        """The longest head (or tail) of whole code points whose estimate is at most ``token_limit``."""
        if token_limit <= 0:
            return ""
        if self.estimate(text) <= token_limit:
            return text
        low, high = 0, len(text)  # the longest fitting length lies in [low, high)
        while high - low > 1:
            middle = (low + high) // 2
            piece = text[len(text) - middle :] if keep_tail else text[:middle]
            if self.estimate(piece) <= token_limit:
                low = middle
            else:
                high = middle
        return text[len(text) - low :] if keep_tail else text[:low]


@frozen
class TiktokenEstimator(Lean):
    """
    Counts from a ``tiktoken`` encoding (extra ``tokens``), for example
    ``TiktokenEstimator(tiktoken.get_encoding("o200k_base"))``. Special-token text counts as plain text.
    """

    encoding: tiktoken.Encoding

    def estimate(self, text: str) -> int:
        """The number of tokens the encoding makes of ``text``."""
        return len(self.encoding.encode(text, disallowed_special=()))

    def truncate(self, text: str, token_limit: int, *, keep_tail: bool) -> str:
        """The text of the first (or last) ``token_limit`` tokens, without a code point cut at its edge."""
        if token_limit <= 0:
            return ""
        tokens = self.encoding.encode(text, disallowed_special=())
        if len(tokens) <= token_limit:
            return text
        kept = tokens[len(tokens) - token_limit :] if keep_tail else tokens[:token_limit]
        # A token may end inside a code point; only the cut edge can hold a partial one.
        piece = self.encoding.decode_bytes(kept).decode("utf-8", errors="ignore")
        # Encoding the piece afresh may merge differently: drop characters at the cut until it fits.
        while piece and self.estimate(piece) > token_limit:
            piece = piece[1:] if keep_tail else piece[:-1]
        return piece


class _EstimatorFailed(Exception):
    """The injected estimator raised or returned something other than a count."""


def _tokens(estimator: TokenEstimator, text: str) -> int:
    try:
        count = estimator.estimate(text)
    except Exception as error:  # user code: any failure is an estimator failure, never a crash
        raise _EstimatorFailed from error
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise _EstimatorFailed
    return count


def _cut(estimator: TokenEstimator, text: str, limit: int, *, keep_tail: bool) -> str:
    try:
        piece = estimator.truncate(text, limit, keep_tail=keep_tail)
    except Exception as error:  # user code, as in _tokens
        raise _EstimatorFailed from error
    if not isinstance(piece, str):
        raise _EstimatorFailed
    if not piece.isascii():
        try:
            piece.encode("utf-8")
        except UnicodeEncodeError as error:
            raise _EstimatorFailed from error
    return piece
