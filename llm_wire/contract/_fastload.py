"""
The contract load path's speed trick, kept in one place (the package's others are in ``llm_wire._fast``).

``quick_plan`` reads the common schema document in one walk, building each ``Schema`` node straight from
its object: the same nodes, keyword order, values and node paths that ``schema.from_value`` and ``_load``'s
own walk make, in under a third of their time. It takes only what it can read plainly: every keyword allowed
and of its plainest shape (exact JSON classes, counts already ``int``, ``enum`` and ``const`` values of exact
JSON classes nested at most 32 deep), nothing the caller sends the exact way (references, resources, a
nested ``$schema``), nesting no deeper than a few dozen levels. At anything else it gives up (``None``) and
the exact path reads the document again, so every refusal, and every document this walk does not take,
keeps that path's result and texts. What it takes, the compile cannot refuse (``Plan.plain``): a contract
loaded this way compiles on its first validation.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from decimal import Decimal
from typing import Any, Generic, TypeVar

from llm_wire._keywords import KEYWORDS, Role, Shape
from llm_wire._regex import compile_pattern, pattern_cost
from llm_wire.contract._rules import Rules
from llm_wire.result import Ok
from llm_wire.schema import _FALSE, _TRUE, Schema
from llm_wire.value import Path, Value

__all__ = ["quick_plan"]

N = TypeVar("N")

#: Nesting beyond this goes the exact (iterative) way: the walk here recurses.
_DEEPEST = 48
_TYPES = frozenset({"null", "boolean", "object", "array", "number", "string", "integer"})


def _count(v: Any) -> bool:
    return v.__class__ is int and v >= 0


def _number(v: Any) -> bool:
    return v.__class__ is int or (v.__class__ is Decimal and v.is_finite())


def _positive(v: Any) -> bool:
    return _number(v) and v > 0


def _strings(v: Any) -> bool:
    return v.__class__ is list and all(s.__class__ is str for s in v) and len(set(v)) == len(v)


def _type(v: Any) -> bool:
    if v.__class__ is str:
        return v in _TYPES
    return _strings(v) and len(v) > 0 and all(t in _TYPES for t in v)


#: For each shape of a JSON value, whether a value plainly has it (``False`` also for what the exact path
#: accepts after a conversion, such as a count written ``2.0``).
_PLAIN: dict[Shape, Callable[[Any], bool]] = {
    Shape.TYPE: _type,
    Shape.COUNT: _count,
    Shape.NUMBER: _number,
    Shape.POSITIVE: _positive,
    Shape.STRING: lambda v: v.__class__ is str,
    Shape.STRINGS: _strings,
    Shape.STRINGS_MAP: lambda v: v.__class__ is dict and all(_strings(s) for s in v.values()),
    Shape.BOOLEAN: lambda v: v.__class__ is bool,
    Shape.ARRAY: lambda v: v.__class__ is list,
    Shape.OBJECT: lambda v: v.__class__ is dict,
    Shape.ANY: lambda v: True,
}
#: Each vocabulary keyword's shape, and the plain test of a keyword holding a JSON value.
_SHAPES: dict[str, Shape] = {name: entry.shape for name, entry in KEYWORDS.items()}
_TESTS: dict[str, Callable[[Any], bool]] = {
    name: _PLAIN[entry.shape] for name, entry in KEYWORDS.items() if entry.shape in _PLAIN
}
#: The subschema shapes, as constants: reading an enum member off its class costs ~0.1 µs on Python 3.11.
_SCHEMA, _SCHEMA_LIST, _SCHEMA_MAP = Shape.SCHEMA, Shape.SCHEMA_LIST, Shape.SCHEMA_MAP
_ANNOTATION_ROLE = frozenset(name for name, entry in KEYWORDS.items() if entry.role is Role.ANNOTATION)


class _Bail(Exception):
    """The document goes the exact way."""


def quick_plan(
    document: Value, rules: Rules, *, exact_way: Collection[str], node: Callable[[Schema, Path, str], N]
) -> tuple[Schema, dict[int, N]] | None:
    """
    The root node and ``{id(node): node(schema, path, "")}`` of a plain document (see the module), else
    ``None``; so is a document with a keyword in ``exact_way`` (but the root's ``$schema``, left out as the
    exact path leaves it out).
    """
    if document.__class__ is not dict:
        return None
    formats = rules.formats if rules.assert_formats else None
    reader = _Reader(node, exact_way, rules.supported, rules.annotations, formats)
    reader.max_nodes = rules.max_nodes
    reader.deepest = min(rules.max_depth, _DEEPEST)
    reader.max_pattern_cost = rules.max_pattern_cost
    try:
        root = reader.read(document, (), 1)
    except (_Bail, RecursionError):
        return None
    return root, reader.nodes


class _Reader(Generic[N]):
    """One walk of ``quick_plan`` (an object, not closures: closures calling each other form a reference
    cycle, which would keep every node it made alive until the garbage collector runs)."""

    __slots__ = (
        "annotations",
        "count",
        "deepest",
        "exact_way",
        "formats",
        "make_node",
        "max_nodes",
        "max_pattern_cost",
        "nodes",
        "supported",
    )

    def __init__(
        self,
        make_node: Callable[[Schema, Path, str], N],
        exact_way: Collection[str],
        supported: Collection[str],
        annotations: Collection[str],
        formats: Collection[str] | None,
    ) -> None:
        self.make_node = make_node
        self.exact_way = exact_way
        self.supported = supported
        self.annotations = annotations
        #: The formats asserted, or ``None`` when ``format`` is an annotation.
        self.formats = formats
        self.max_nodes = self.deepest = self.max_pattern_cost = 0
        self.nodes: dict[int, N] = {}
        self.count = 0

    def sub(self, raw: Any, path: Path, depth: int) -> Schema:
        cls = raw.__class__
        if cls is dict:
            return self.read(raw, path, depth)
        if cls is bool:
            return _TRUE if raw else _FALSE
        raise _Bail

    def read(self, raw: dict[str, Any], path: Path, depth: int) -> Schema:
        self.count += 1
        if self.count > self.max_nodes or depth > self.deepest:
            raise _Bail
        exact_way, supported, annotations, sub = self.exact_way, self.supported, self.annotations, self.sub
        shapes, tests = _SHAPES, _TESTS
        pairs: list[tuple[str, Any]] = []
        for name, value in raw.items():
            if name in exact_way:
                if name == "$schema" and depth == 1:
                    continue
                raise _Bail
            shape = shapes.get(name)
            if shape is None:  # not in the vocabulary: kept as it is, if it is an annotation
                if not (name in annotations or (name.__class__ is str and name.startswith("x-"))):
                    raise _Bail
            elif name not in supported and not (name in annotations or name in _ANNOTATION_ROLE):
                raise _Bail
            elif shape is _SCHEMA:
                value = sub(value, (*path, name), depth + 1)
            elif shape is _SCHEMA_LIST:
                if value.__class__ is not list or not value:
                    raise _Bail
                value = tuple([sub(item, (*path, name, n), depth + 1) for n, item in enumerate(value)])
            elif shape is _SCHEMA_MAP:
                if value.__class__ is not dict:
                    raise _Bail
                if name == "patternProperties":
                    for source in value:
                        _plain_pattern(source, self.max_pattern_cost)
                value = tuple([(k, sub(item, (*path, name, k), depth + 1)) for k, item in value.items()])
                if not all(k.__class__ is str for k, _ in value):
                    raise _Bail  # a member name that is not a string: the exact way refuses it
            elif not tests[name](value):
                raise _Bail
            elif name in _COMPILED_VALUES and not _plain_json(value):
                raise _Bail  # the compile renders and keys these values: it could refuse what is not JSON
            elif name == "pattern":
                _plain_pattern(value, self.max_pattern_cost)
            elif name == "format" and self.formats is not None and value not in self.formats:
                raise _Bail
            pairs.append((name, value))
        made = Schema(tuple(pairs))
        self.nodes[id(made)] = self.make_node(made, path, "")
        return made


#: Keywords whose JSON values the compile reads (renders and keys), and how deep such a value may nest here.
_COMPILED_VALUES = frozenset({"enum", "const"})
_VALUE_DEPTH = 32
_SCALARS = frozenset({str, int, bool, type(None)})


def _plain_json(value: object) -> bool:
    """Whether ``value`` is JSON of the exact classes (finite numbers, string keys), at most 32 deep."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        cls = item.__class__
        if cls in _SCALARS:
            continue
        if cls is Decimal:
            if not item.is_finite():  # type: ignore[attr-defined]
                return False
        elif depth >= _VALUE_DEPTH:
            return False
        elif cls is list:
            stack.extend((member, depth + 1) for member in item)  # type: ignore[attr-defined]
        elif cls is dict:
            if not all(key.__class__ is str for key in item):  # type: ignore[attr-defined]
                return False
            stack.extend((member, depth + 1) for member in item.values())  # type: ignore[attr-defined]
        else:
            return False
    return True


def _plain_pattern(source: object, max_cost: int) -> None:
    if not (
        source.__class__ is str
        and isinstance(compile_pattern(source), Ok)
        and pattern_cost(source) <= max_cost
    ):
        raise _Bail
