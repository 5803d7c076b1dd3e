"""
Hypothesis strategies shared by the tests: JSON values, documents for the ``json`` module, and broken text.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
from collections.abc import Iterator
from decimal import Decimal
from typing import TypeAlias

from hypothesis import strategies as st

from llm_wire.value import Value

#: Examples for the strict parser's properties: 2,000 in CI (``HYPOTHESIS_PROFILE=ci``), fewer locally.
PARSER_EXAMPLES = 2000 if os.environ.get("HYPOTHESIS_PROFILE") == "ci" else 200

__all__ = [
    "collector_paused",
    "JsonDoc",
    "arbitrary_bytes",
    "arbitrary_text",
    "finite_decimals",
    "json_documents",
    "json_text",
    "json_values",
    "mutated_json",
    "short_numbers",
    "to_value",
]

#: What the ``json`` module reads and writes: a ``Value`` with floats instead of decimals.
JsonDoc: TypeAlias = "bool | str | int | float | list[JsonDoc] | dict[str, JsonDoc] | None"

#: Characters that matter to a JSON reader, so that generated text often comes close to JSON.
_JSONISH = "{}[]\",:\\/ \t\n\r0123456789.-+eEtrufalsnNIiy'\x00\x1f\x7f\ufeffé\u2028😀"

_strings = (
    st.text()
    | st.text(alphabet='"\\/\b\f\n\r\t\x00\x1f\x7f\u2028é😀\ud7ff\ue000', max_size=12)
    | st.sampled_from(["", "a", "\\u0061", "~0", "a/b", "\U0010ffff"])
)

_keys = st.text(max_size=10) | st.sampled_from(["a", "A", "é", "\\", '"', "~1/", "", "a\u0000"])

_integers = st.integers(min_value=-(10**40), max_value=10**40) | st.sampled_from(
    [0, -1, 2**53 + 1, 2**63, -(2**63) - 1, 10**799, -(10**799)]
)


def finite_decimals() -> st.SearchStrategy[Decimal]:
    """
    Finite decimals inside the default number limits, with every kind of exponent and trailing zeros.
    """
    built = st.builds(
        lambda negative, digits, exponent: Decimal(f"{'-' if negative else ''}{digits}E{exponent}"),
        st.booleans(),
        st.integers(min_value=0, max_value=10**40 - 1),
        st.integers(min_value=-400, max_value=400),
    )
    edge = st.sampled_from(["0.1", "-0", "-0.0", "1E+2", "0E-5", "1.10", "1E+1200", "9" * 799 + ".9"])
    return built | edge.map(Decimal)


#: Short decimal spellings: halves, tenths, hundredths, ``2.0``-style integers and exponents.
_SHORT = ("0.5", "1.5", "-2.5", "2.0", "-1.0", "0.1", "0.3", "0.25", "1E+1", "1e-1", "1.10", "-0.0", "1E+20")


def short_numbers() -> st.SearchStrategy[int | Decimal | float]:
    """
    Small numbers as ints, as ``Decimal``s from short strings, or as the Python floats of those strings (which
    read back exactly through their shortest repr): the numbers that schemas and values in a differential
    test share, so that ``1``, ``1.0`` and ``Decimal("1.0")`` meet.
    """
    texts = st.sampled_from(_SHORT) | st.integers(-3, 3).map(str)
    return st.integers(-3, 3) | texts.map(Decimal) | texts.map(float)


def json_values(*, max_leaves: int = 12) -> st.SearchStrategy[Value]:
    """
    Values of the ``Value`` type: ``None``, bools, strings, ints, finite decimals, lists and objects.
    """
    scalars: st.SearchStrategy[Value] = st.none() | st.booleans() | _strings | _integers | finite_decimals()
    return st.recursive(
        scalars,
        lambda children: st.lists(children, max_size=6) | st.dictionaries(_keys, children, max_size=6),
        max_leaves=max_leaves,
    )


def json_documents(*, max_leaves: int = 12) -> st.SearchStrategy[JsonDoc]:
    """
    What ``json.dumps`` takes: like ``json_values`` with finite floats in place of decimals.
    """
    scalars: st.SearchStrategy[JsonDoc] = (
        st.none() | st.booleans() | _strings | _integers | st.floats(allow_nan=False, allow_infinity=False)
    )
    return st.recursive(
        scalars,
        lambda children: st.lists(children, max_size=6) | st.dictionaries(_keys, children, max_size=6),
        max_leaves=max_leaves,
    )


def to_value(doc: JsonDoc) -> Value:
    """
    The value ``parse`` must give for ``json.dumps(doc)``: each float becomes ``Decimal(repr(f))``.
    """
    if isinstance(doc, float):
        return Decimal(repr(doc))
    if isinstance(doc, list):
        return [to_value(item) for item in doc]
    if isinstance(doc, dict):
        return {key: to_value(item) for key, item in doc.items()}
    return doc


# Strategies are built once here: building a recursive strategy inside a composite costs more than drawing.
_documents = json_documents()
_indents = st.none() | st.integers(min_value=0, max_value=2)


@st.composite
def json_text(draw: st.DrawFn) -> str:
    """
    ``json.dumps`` output for a generated document, ASCII-escaped or not, compact or indented.
    """
    return json.dumps(draw(_documents), ensure_ascii=draw(st.booleans()), indent=draw(_indents))


#: Pieces inserted into valid documents: structure, bad numbers, literals, escapes, odd characters.
_NOISE = (
    "{", "}", "[", "]", '"', ",", ":", "\\", " ", "\n", "\t", "0", "1", "-", "+", ".", "e", "E",
    "t", "n", "N", "I", "/", "'", "\x00", "\x1f", "\ufeff", "\\u", "\\ud800", "\\udc00", "\\ud83d",
    "é", "😀", "true", "null", "NaN", "Infinity", "01", "1e9999", ",]", ",}", "//", "/*", '"a":1,',
)  # fmt: skip


_pieces = st.sampled_from(_NOISE) | st.characters()
_edits = st.sampled_from(("insert", "delete", "replace"))
_json_text = json_text()


@st.composite
def mutated_json(draw: st.DrawFn) -> str:
    """
    A valid document with one to four characters or pieces inserted, deleted or replaced.
    """
    text = draw(_json_text)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        at = draw(st.integers(min_value=0, max_value=len(text)))
        piece = draw(_pieces)
        match draw(_edits):
            case "insert":
                text = text[:at] + piece + text[at:]
            case "delete":
                text = text[:at] + text[at + draw(st.integers(min_value=1, max_value=3)) :]
            case _:
                text = text[:at] + piece + text[at + 1 :]
    return text


def arbitrary_text() -> st.SearchStrategy[str]:
    """
    Any string, lone surrogates included, and strings made of JSON-ish characters.
    """
    return (
        st.text(st.characters() | st.characters(categories=["Cs"]))
        | st.text(alphabet=_JSONISH)
        | mutated_json()
    )


_jsonish = st.text(alphabet=_JSONISH)
_near_json = _jsonish | _json_text


@st.composite
def _broken_utf8(draw: st.DrawFn) -> bytes:
    raw = draw(_near_json).encode("utf-8")
    at = draw(st.integers(min_value=0, max_value=len(raw)))
    return raw[:at] + draw(st.binary(min_size=1, max_size=3)) + raw[at:]


def arbitrary_bytes() -> st.SearchStrategy[bytes]:
    """
    Any bytes, the UTF-8 of JSON-ish text with a few bytes inserted, and mutated documents.
    """
    return (
        st.binary() | _broken_utf8() | mutated_json().map(lambda text: text.encode("utf-8", "surrogatepass"))
    )


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off (after one collection) for the block, so ``gc.collect()`` then counts only
    the cycles the block left behind."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        yield
    finally:
        if was_enabled:
            gc.enable()
