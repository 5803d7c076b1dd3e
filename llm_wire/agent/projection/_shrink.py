"""
The projection algorithm (reference §7.2): model payloads and their canonical text, structural shrinking of
JSON data, the envelope with a UTF-8-safe head/tail preview, and the preflight of a policy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from decimal import Decimal
from typing import TypeAlias

from attrs import frozen

from llm_wire.agent._tool_outcome import ErrorCategory
from llm_wire.agent.projection._estimators import (
    HeuristicEstimator,
    TokenEstimator,
    _cut,
    _EstimatorFailed,
    _tokens,
)
from llm_wire.agent.projection._types import (
    DEFAULT_POLICY,
    LimitingFactor,
    OutputProjectionError,
    ProjectedOutput,
    ProjectionFailure,
    ProjectionMethod,
    ProjectionPolicy,
    ProjectionReport,
    limiting_factor,
)
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Value

__all__ = [
    "CATEGORIES",
    "MARKER",
    "MAX_CODE_CHARS",
    "FailurePayload",
    "ModelPayload",
    "PlainPayload",
    "SuccessPayload",
    "bounded_preview",
    "canonical_text",
    "check_policy",
    "project_payload",
]

#: The marker between the head and the tail of a preview.
MARKER = "\n... tool output omitted ...\n"
#: Error categories a failure payload may carry, besides ``none`` (reference §5.1).
CATEGORIES = tuple(category.value for category in ErrorCategory)
#: The longest error code a truncation envelope holds whole (preflight renders one this long); a longer
#: code is cut to this many characters there (structural shrinking keeps every code whole).
MAX_CODE_CHARS = 32
#: The largest count an envelope is checked with (20 digits).
_MAX_COUNT = 2**64 - 1
_ITERATIONS = 32
#: Structural shrinking tries this cap (characters per string, items per array) first.
_FIRST_CAP = 16


# ---------------------------------------------------------------------------------------------------------
# Model payloads and their canonical text (reference §5.2)


@frozen
class PlainPayload:
    """A plain success: the content, shown verbatim."""

    text: str


@frozen
class SuccessPayload:
    """A structured success: ``{"artifacts", "data", "message", "ok": true}``."""

    message: str
    data: Value
    artifacts: tuple[str, ...] = ()


@frozen
class FailurePayload:
    """
    A failure: ``{"error": {"category", "code", "details", "message", "retryable"}, "ok": false}``, with
    ``details`` only when it is not ``None``.
    """

    category: str
    code: int | str
    message: str
    retryable: bool
    details: Value = None


ModelPayload: TypeAlias = PlainPayload | SuccessPayload | FailurePayload


class _Unserializable(Exception):
    """A payload holds what JSON cannot carry (a lone surrogate, a non-finite number, a non-JSON type)."""


def _dumps(value: object) -> str:
    try:
        return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, RecursionError):  # a Decimal, a non-JSON value, or nesting too deep for ``json``:
        return _render(value, None, _Caps(None, None))  # the exact renderer keeps a stack, not a recursion
    except ValueError as error:
        raise _Unserializable from error


def _structure(payload: SuccessPayload | FailurePayload) -> dict[str, Value]:
    if isinstance(payload, FailurePayload):
        error: dict[str, Value] = {
            "category": payload.category,
            "code": payload.code,
            "message": payload.message,
            "retryable": payload.retryable,
        }
        if payload.details is not None:
            error["details"] = payload.details
        return {"error": error, "ok": False}
    artifacts: list[Value] = list(payload.artifacts)
    return {"artifacts": artifacts, "data": payload.data, "message": payload.message, "ok": True}


def _canonical(payload: ModelPayload) -> str:
    text = payload.text if isinstance(payload, PlainPayload) else _dumps(_structure(payload))
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise _Unserializable from error
    return text


def canonical_text(payload: ModelPayload) -> Result[str, OutputProjectionError]:
    """
    The canonical model-visible text: compact sorted-key JSON for structured payloads, the text itself for a
    plain one; ``Err(SERIALIZATION_FAILURE)`` when it is not valid UTF-8 or not JSON.
    """
    try:
        return Ok(_canonical(payload))
    except _Unserializable:
        return Err(OutputProjectionError(ProjectionFailure.SERIALIZATION_FAILURE))


# ---------------------------------------------------------------------------------------------------------
# Structural shrinking


@frozen
class _Caps:
    """The longest string (in code points) and array kept whole; ``None`` keeps everything."""

    string: int | None
    array: int | None


class _OverBudget(Exception):
    """The rendering passed its byte budget."""


def _elided_chars(n: int) -> str:
    return f" [... {n} more characters]"


def _elided_items(n: int) -> str:
    return f"[... {n} more items]"


def _render(value: object, budget: int | None, caps: _Caps) -> str:
    """
    Sorted-key compact JSON of ``value`` with strings and arrays cut at ``caps``; raises ``_OverBudget`` once
    the text passes ``budget`` characters (a lower bound of its bytes), ``_Unserializable`` on a non-JSON
    value.
    """
    out: list[str] = []
    size = 0
    stack: list[object] = [value]
    dump = json.encoder.encode_basestring
    while stack:
        item = stack.pop()
        if isinstance(item, _Piece):
            piece = item.text
        elif item is None:
            piece = "null"
        elif item is True:
            piece = "true"
        elif item is False:
            piece = "false"
        elif isinstance(item, str):
            if caps.string is not None and len(item) > caps.string:
                item = item[: caps.string] + _elided_chars(len(item) - caps.string)
            piece = str(dump(item))
        elif isinstance(item, int):
            try:
                piece = int.__repr__(item)
            except ValueError:  # more digits than sys.get_int_max_str_digits() allows
                piece = str(Decimal(item))
        elif isinstance(item, Decimal | float):
            if not math.isfinite(item):
                raise _Unserializable
            piece = str(item) if isinstance(item, Decimal) else float.__repr__(item)
        elif isinstance(item, list | tuple):
            kept = list(item) if caps.array is None or len(item) <= caps.array else list(item[: caps.array])
            if len(kept) < len(item):
                kept.append(_Piece(str(dump(_elided_items(len(item) - len(kept))))))
            # n elements take at least 2n + 1 characters: fail now rather than after pushing them all.
            if budget is not None and size + 2 * len(kept) + 1 > budget:
                raise _OverBudget
            piece = "["
            stack.append(_CLOSE_ARRAY)
            for index in range(len(kept) - 1, -1, -1):
                stack.append(kept[index])
                if index:
                    stack.append(_COMMA)
        elif isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                raise _Unserializable
            # n members take at least 4n + 1 characters (``"":0`` and a comma each).
            if budget is not None and size + 4 * len(item) + 1 > budget:
                raise _OverBudget
            piece = "{"
            stack.append(_CLOSE_OBJECT)
            members = sorted(item.items())
            for index in range(len(members) - 1, -1, -1):
                key, member = members[index]
                stack.append(member)
                stack.append(_Piece(str(dump(key)) + ":"))
                if index:
                    stack.append(_COMMA)
        else:
            raise _Unserializable
        size += len(piece)
        if budget is not None and size > budget:
            raise _OverBudget
        out.append(piece)
    text = "".join(out)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise _Unserializable from error
    return text


@frozen
class _Piece:
    text: str


_COMMA, _CLOSE_ARRAY, _CLOSE_OBJECT = _Piece(","), _Piece("]"), _Piece("}")


# ---------------------------------------------------------------------------------------------------------
# Envelopes


def _truncation(original_bytes: int, original_tokens: int) -> dict[str, Value]:
    return {
        "original_bytes": original_bytes,
        "original_estimated_tokens": original_tokens,
        "truncated": True,
    }


def _envelope(payload: ModelPayload, preview: str, original_bytes: int, original_tokens: int) -> str:
    if isinstance(payload, PlainPayload):
        head = f"Warning: tool output truncated (original bytes: {original_bytes}, "
        return f"{head}estimated tokens: {original_tokens}).\n{preview}"
    shape: dict[str, Value] = {
        "ok": isinstance(payload, SuccessPayload),
        "preview": preview,
        "truncation": _truncation(original_bytes, original_tokens),
    }
    if isinstance(payload, FailurePayload):
        code = payload.code[:MAX_CODE_CHARS] if isinstance(payload.code, str) else payload.code
        shape["error"] = {"category": payload.category, "code": code, "retryable": payload.retryable}
    return _dumps(shape)


def _fits(text: str, policy: ProjectionPolicy, estimator: TokenEstimator) -> tuple[int, int] | None:
    """The byte and token counts of ``text`` when it fits both ceilings."""
    if len(text) > policy.max_bytes:
        return None
    size = len(text.encode("utf-8"))
    if size > policy.max_bytes:
        return None
    tokens = _tokens(estimator, text)
    return (size, tokens) if tokens <= policy.max_tokens else None


# ---------------------------------------------------------------------------------------------------------
# Preview


def _byte_head_tail(data: bytes, limit: int) -> str | None:
    """Head and tail of ``data`` within ``limit`` bytes joined by the marker, cut on code points."""
    if len(data) <= limit:
        return data.decode("utf-8")
    marker_size = len(MARKER)
    if limit <= marker_size:
        return None
    content = limit - marker_size
    head, tail_start = content // 2, len(data) - (content - content // 2)
    while head > 0 and data[head] & 0xC0 == 0x80:
        head -= 1
    while tail_start < len(data) and data[tail_start] & 0xC0 == 0x80:
        tail_start += 1
    return data[:head].decode("utf-8") + MARKER + data[tail_start:].decode("utf-8")


def _preview(
    data: bytes, byte_limit: int, token_limit: int, estimator: TokenEstimator, marker_tokens: int
) -> str:
    if byte_limit <= 0 or token_limit <= 0 or not data:
        return ""
    source = _byte_head_tail(data, 2 * byte_limit)
    if source is None:
        return ""
    if len(source.encode("utf-8")) <= byte_limit and _tokens(estimator, source) <= token_limit:
        return source
    candidate = token_limit
    for _ in range(_ITERATIONS):
        if candidate <= marker_tokens:
            break
        content = candidate - marker_tokens
        head = _cut(estimator, source, content // 2, keep_tail=False)
        tail = _cut(estimator, source, content - content // 2, keep_tail=True)
        text = head + MARKER + tail
        if len(text.encode("utf-8")) <= byte_limit and _tokens(estimator, text) <= token_limit:
            return text
        smaller = candidate * 3 // 4
        candidate = smaller if smaller < candidate else candidate - 1
    # The estimator's cuts did not fit (a broken ``truncate``): cut by bytes until its count fits.
    limit = byte_limit
    for _ in range(_ITERATIONS):
        cut = _byte_head_tail(data, limit)
        if cut is None:
            break
        if len(cut.encode("utf-8")) <= byte_limit and _tokens(estimator, cut) <= token_limit:
            return cut
        limit = limit * 3 // 4
    return ""


def bounded_preview(
    text: str, byte_limit: int, token_limit: int, estimator: TokenEstimator | None = None
) -> Result[str, OutputProjectionError]:
    """
    A head and tail of ``text`` within both limits, joined by ``MARKER``, never splitting a code point; the
    empty string when no such excerpt fits. ``Err`` when the estimator fails or ``text`` is not valid UTF-8.
    """
    chosen = HeuristicEstimator() if estimator is None else estimator
    try:
        data = text.encode("utf-8")
        return Ok(_preview(data, byte_limit, token_limit, chosen, _tokens(chosen, MARKER)))
    except UnicodeEncodeError:
        return Err(OutputProjectionError(ProjectionFailure.SERIALIZATION_FAILURE))
    except _EstimatorFailed:
        return Err(OutputProjectionError(ProjectionFailure.ESTIMATOR_FAILURE))


# ---------------------------------------------------------------------------------------------------------
# Projection


def _shrink(
    payload: SuccessPayload | FailurePayload,
    policy: ProjectionPolicy,
    estimator: TokenEstimator,
    original: tuple[int, int],
) -> tuple[str, tuple[int, int]] | None:
    """The payload with strings and arrays cut in place at the largest caps that fit; ``None`` if none."""
    truncation = _dumps(_truncation(*original))
    parts: list[object]
    # The canonical text written out in sorted key order; only the parts between the joiners shrink, so the
    # failure identity (category, code, retryable) and the truncation record stay exact.
    if isinstance(payload, FailurePayload):
        retryable = "true" if payload.retryable else "false"
        identity = f'{{"error":{{"category":{_dumps(payload.category)},"code":{_dumps(payload.code)}'
        tail = f',"retryable":{retryable}}},"ok":false,"truncation":{truncation}}}'
        if payload.details is None:
            joiners, parts = [identity + ',"message":', tail], [payload.message]
        else:
            joiners = [identity + ',"details":', ',"message":', tail]
            parts = [payload.details, payload.message]
    else:
        joiners = ['{"artifacts":', ',"data":', ',"message":', f',"ok":true,"truncation":{truncation}}}']
        parts = [list(payload.artifacts), payload.data, payload.message]
    fixed = sum(len(joiner) for joiner in joiners)

    def attempt(cap: int) -> tuple[str, tuple[int, int]] | None:
        remaining = policy.max_bytes - fixed
        pieces = [joiners[0]]
        try:
            for part, joiner in zip(parts, joiners[1:], strict=True):
                rendered = _render(part, remaining, _Caps(cap, cap))
                remaining -= len(rendered)
                pieces.extend((rendered, joiner))
        except _OverBudget:
            return None
        text = "".join(pieces)
        counts = _fits(text, policy, estimator)
        return None if counts is None else (text, counts)

    # Search from small caps up: an attempt costs about what it renders, and small caps render little.
    cap, failed = _FIRST_CAP, None
    found = attempt(cap)
    while found is None:  # even the first cap is too big: go down
        if cap == 0:
            return None
        failed, cap = cap, cap // 2
        found = attempt(cap)
    while failed is None and cap < policy.max_bytes:  # go up while it fits
        bigger = attempt(2 * cap)
        if bigger is None:
            failed = 2 * cap
        else:
            cap, found = 2 * cap, bigger
    # Refine between the cap that fitted and the one that did not, to within an eighth.
    low, high = cap, failed
    while high is not None and high - low > max(1, low // 8):
        middle = (low + high) // 2
        better = attempt(middle)
        if better is None:
            high = middle
        else:
            low, found = middle, better
    return found


def _project(payload: ModelPayload, policy: ProjectionPolicy, estimator: TokenEstimator) -> ProjectedOutput:
    text = _canonical(payload)
    data = text.encode("utf-8")
    original_bytes, original_tokens = len(data), _tokens(estimator, text)
    factor = limiting_factor(original_bytes, original_tokens, policy.max_bytes, policy.max_tokens)

    def report(size: int, tokens: int, method: ProjectionMethod) -> ProjectionReport:
        return ProjectionReport(
            truncated=method is not ProjectionMethod.VERBATIM,
            original_bytes=original_bytes,
            projected_bytes=size,
            original_estimated_tokens=original_tokens,
            projected_estimated_tokens=tokens,
            max_bytes=policy.max_bytes,
            max_tokens=policy.max_tokens,
            limiting_factor=factor,
            method=method,
        )

    if factor is LimitingFactor.NONE:
        return ProjectedOutput(text, report(original_bytes, original_tokens, ProjectionMethod.VERBATIM))
    if not isinstance(payload, PlainPayload):
        shrunk = _shrink(payload, policy, estimator, (original_bytes, original_tokens))
        if shrunk is not None:
            shrunk_text, (size, tokens) = shrunk
            return ProjectedOutput(shrunk_text, report(size, tokens, ProjectionMethod.STRUCTURAL))
    empty = _envelope(payload, "", original_bytes, original_tokens)
    empty_counts = _fits(empty, policy, estimator)
    if empty_counts is None:
        raise _EnvelopeTooLarge
    byte_budget = policy.max_bytes - empty_counts[0]
    token_budget = policy.max_tokens - _tokens(estimator, empty)
    marker_tokens = _tokens(estimator, MARKER)
    for _ in range(_ITERATIONS):
        if byte_budget <= 0 and token_budget <= 0:
            break
        preview = _preview(data, byte_budget, token_budget, estimator, marker_tokens)
        if preview:
            candidate = _envelope(payload, preview, original_bytes, original_tokens)
            counts = _fits(candidate, policy, estimator)
            if counts is not None:
                return ProjectedOutput(candidate, report(*counts, ProjectionMethod.PREVIEW))
        byte_budget, token_budget = byte_budget // 2, token_budget // 2
    return ProjectedOutput(empty, report(*empty_counts, ProjectionMethod.EMPTY))


class _EnvelopeTooLarge(Exception):
    """Even the empty-preview envelope exceeds a ceiling."""


def _checked(estimator: TokenEstimator | None) -> TokenEstimator:
    if estimator is None:
        return HeuristicEstimator()
    if not isinstance(estimator, TokenEstimator):
        msg = f"estimator must be a TokenEstimator, not {type(estimator).__name__}"
        raise TypeError(msg)
    return estimator


def project_payload(
    payload: ModelPayload, policy: ProjectionPolicy = DEFAULT_POLICY, estimator: TokenEstimator | None = None
) -> Result[ProjectedOutput, OutputProjectionError]:
    """
    The model-visible text of ``payload`` within both ceilings of ``policy``, with its report. ``Err`` when
    the payload cannot be serialized, the estimator fails, or even the empty envelope does not fit.
    """
    if not isinstance(payload, PlainPayload | SuccessPayload | FailurePayload):
        msg = f"payload must be a ModelPayload, not {type(payload).__name__}"
        raise TypeError(msg)
    if not isinstance(policy, ProjectionPolicy):
        msg = f"policy must be a ProjectionPolicy, not {type(policy).__name__}"
        raise TypeError(msg)
    return _projected(payload, policy, _checked(estimator))


def _projected(
    payload: ModelPayload, policy: ProjectionPolicy, estimator: TokenEstimator
) -> Result[ProjectedOutput, OutputProjectionError]:
    """``project_payload`` of arguments already checked (a runner's hook checks them once)."""
    try:
        return Ok(_project(payload, policy, estimator))
    except _Unserializable:
        return Err(OutputProjectionError(ProjectionFailure.SERIALIZATION_FAILURE))
    except _EstimatorFailed:
        return Err(OutputProjectionError(ProjectionFailure.ESTIMATOR_FAILURE))
    except _EnvelopeTooLarge:
        return Err(OutputProjectionError(ProjectionFailure.ENVELOPE_EXCEEDS_LIMITS))


def _worst_envelopes(categories: Sequence[str]) -> list[str]:
    code = "x" * MAX_CODE_CHARS
    worst: list[ModelPayload] = [PlainPayload(""), SuccessPayload("", None)]
    worst.extend(FailurePayload(category, code, "", True) for category in categories)
    return [_envelope(payload, "", _MAX_COUNT, _MAX_COUNT) for payload in worst]


def check_policy(
    policy: ProjectionPolicy, estimator: TokenEstimator | None = None
) -> Result[None, OutputProjectionError]:
    """
    Preflight: every empty truncation envelope, with the largest counts and the longest code, fits both
    ceilings under ``estimator``. ``Err(ENVELOPE_EXCEEDS_LIMITS)`` or ``Err(ESTIMATOR_FAILURE)`` otherwise.
    """
    if not isinstance(policy, ProjectionPolicy):
        msg = f"policy must be a ProjectionPolicy, not {type(policy).__name__}"
        raise TypeError(msg)
    chosen = _checked(estimator)
    try:
        for envelope in _worst_envelopes(CATEGORIES):
            if _fits(envelope, policy, chosen) is None:
                return Err(OutputProjectionError(ProjectionFailure.ENVELOPE_EXCEEDS_LIMITS))
    except _EstimatorFailed:
        return Err(OutputProjectionError(ProjectionFailure.ESTIMATOR_FAILURE))
    return Ok(None)
