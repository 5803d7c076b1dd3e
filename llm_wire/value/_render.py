"""
Rendering of ``llm_wire.value``: compact exact JSON text (``render``), plain Python numbers for SDKs
(``to_plain``), and paths as text (``render_path``, ``pointer``).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from decimal import Decimal
from typing import Any, TypeAlias

from attrs import frozen

from llm_wire._described import Described
from llm_wire.result import Err, Ok, Result
from llm_wire.value._records import Path, PlainValue, Value

__all__ = [
    "Fragments",
    "NotJson",
    "UnrepresentableNumber",
    "pointer",
    "render",
    "render_path",
    "render_redacted",
    "render_with",
    "to_plain",
]


class NotJson(TypeError):
    """
    ``render`` met something that is not a JSON value; ``path`` says where.
    """

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{render_path(path)}: {problem}")
        self.path = path
        self.problem = problem


_dump_str = json.encoder.encode_basestring
_INF = float("inf")


#: A path being walked: ``(parent, segment)`` links, turned into a ``Path`` only when an error needs it, so
#: that deep values cost linear time.
_Link: TypeAlias = "tuple[_Link, str | int] | None"


def _path_of(link: _Link) -> Path:
    segments: list[str | int] = []
    while link is not None:
        link, segment = link
        segments.append(segment)
    return tuple(reversed(segments))


#: Text already rendered, by the ``id`` of the list or dict it renders, with that object (the ``id`` counts
#: only while the object is the one named: the entry holds it, so its ``id`` cannot go to another object).
Fragments: TypeAlias = Mapping[int, tuple[object, str]]


def render(value: Value) -> str:
    """
    Compact, exact JSON text for ``value``; raises ``NotJson`` for anything that is not a JSON value.

    A finite Python ``float`` is written as its shortest repr, which reads back as the same number.
    """
    return render_with(value, {})


def render_with(value: Value, fragments: Fragments) -> str:
    """
    ``render``, writing each list or dict that ``fragments`` holds as its text there (``render`` of that
    same object, computed once by the caller and not mutated since) instead of walking it again.
    """
    out: list[str] = []
    # Work items: a value with its path, or a literal piece of punctuation.
    stack: list[tuple[object, _Link] | str] = [(value, None)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        v, link = item
        if v is None:
            out.append("null")
        elif v is True:
            out.append("true")
        elif v is False:
            out.append("false")
        elif isinstance(v, str):
            out.append(_render_str(v, link))
        elif isinstance(v, int):
            out.append(_render_int(v))
        elif isinstance(v, Decimal):
            if not v.is_finite():
                raise NotJson(_path_of(link), "a JSON number must be finite")
            out.append(str(v))
        elif isinstance(v, float):
            # A Python float from ``json.loads`` or an SDK: its shortest repr is exact and valid JSON.
            if v != v or v in (_INF, -_INF):
                raise NotJson(_path_of(link), "a JSON number must be finite")
            out.append(float.__repr__(v))
        elif fragments and (known := fragments.get(id(v))) is not None and known[0] is v:
            out.append(known[1])
        elif isinstance(v, list):
            out.append("[")
            stack.append("]")
            for index in range(len(v) - 1, -1, -1):
                stack.append((v[index], (link, index)))
                if index:
                    stack.append(",")
        elif isinstance(v, dict):
            out.append("{")
            stack.append("}")
            items = list(v.items())
            for index in range(len(items) - 1, -1, -1):
                key, member = items[index]
                if not isinstance(key, str):
                    raise NotJson(_path_of(link), "object keys must be strings")
                stack.append((member, (link, key)))
                stack.append(_render_str(key, link) + ":")
                if index:
                    stack.append(",")
        else:
            raise NotJson(_path_of(link), f"{type(v).__name__} is not a JSON value")
    return "".join(out)


def _render_int(v: int) -> str:
    try:
        return int.__repr__(v)
    except ValueError:  # more digits than sys.get_int_max_str_digits() allows; Decimal has no such limit
        return str(Decimal(v))


def _render_str(s: str, link: _Link) -> str:
    if not s.isascii():
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            raise NotJson(_path_of(link), "a string holds an unpaired surrogate") from None
    return str(_dump_str(s))


@frozen
class UnrepresentableNumber(Described):
    """
    A number that no Python ``float`` holds (beyond about 1.8e308, or so small it would become 0); ``path``
    says where. The text shows neither the number nor the path, whose keys may come from the input.
    """

    path: Path

    TEXT = "a number is outside the range of a float"


def to_plain(value: Value) -> Result[PlainValue, UnrepresentableNumber]:
    """
    ``value`` with every ``Decimal`` as the nearest ``float`` (ints stay ints), for ``json.dumps`` and SDKs.

    A number no float can hold is ``Err(UnrepresentableNumber(path))``, never ``inf`` or a silent ``0.0``.
    Walks iteratively; raises ``NotJson`` for anything that is not a JSON value, as ``render`` does.
    """
    root: list[PlainValue] = [None]
    # Work items: a value, the container and slot its conversion goes into, and its path.
    stack: list[tuple[object, Any, Any, _Link]] = [(value, root, 0, None)]
    while stack:
        v, into, slot, link = stack.pop()
        if v is None or v is True or v is False or isinstance(v, str | int):
            into[slot] = v
        elif isinstance(v, Decimal | float):
            f = float(v) if (v.is_finite() if isinstance(v, Decimal) else v == v) else _INF
            if f in (_INF, -_INF) or (f == 0 and v != 0):
                return Err(UnrepresentableNumber(_path_of(link)))
            into[slot] = f
        elif isinstance(v, list):
            items: list[PlainValue] = [None] * len(v)
            into[slot] = items
            stack.extend((v[i], items, i, (link, i)) for i in range(len(v) - 1, -1, -1))
        elif isinstance(v, dict):
            members: dict[str, PlainValue] = dict.fromkeys(v)
            into[slot] = members
            for key in reversed(v):
                if not isinstance(key, str):
                    raise NotJson(_path_of(link), "object keys must be strings")
                stack.append((v[key], members, key, (link, key)))
        else:
            raise NotJson(_path_of(link), f"{type(v).__name__} is not a JSON value")
    return Ok(root[0])


def render_path(path: Path) -> str:
    """
    ``$["a"][0]``-style text for a path.
    """
    return "$" + "".join(
        f"[{segment}]" if isinstance(segment, int) else f"[{_dump_str(segment)}]" for segment in path
    )


def render_redacted(path: Path, hidden: Collection[int]) -> str:
    """
    ``$["tags"][*]``: the path as text, with the segments at the ``hidden`` positions (taken from the input
    and not declared by a codec or schema) shown as ``[*]``. The one redaction rule of every error text.
    """
    if not hidden:
        return render_path(path)
    return "$" + "".join(
        "[*]" if n in hidden else render_path((segment,))[1:] for n, segment in enumerate(path)
    )


def pointer(path: Path) -> str:
    """
    The RFC 6901 JSON Pointer for a path (``""`` for the root).
    """
    return "".join(
        "/" + (str(segment) if isinstance(segment, int) else segment.replace("~", "~0").replace("/", "~1"))
        for segment in path
    )
