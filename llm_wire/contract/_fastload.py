"""
The contract load path's speed trick, kept in one place (the package's others are in ``llm_wire._fast``).

``quick_plan`` reads the common schema document in one walk, building each ``Schema`` node straight from
its object: the same nodes, keyword order, values and node paths that ``schema.from_value`` and ``_load``'s
own walk make, in under a third of their time. It takes only what it can read plainly: every keyword allowed
and of its plainest shape (exact JSON classes, counts already ``int``, every JSON value of exact classes, no
``float``, nested at most 32 deep), nothing the caller sends the exact way (references, resources, a
nested ``$schema``), nesting no deeper than a few dozen levels. At anything else it gives up (``None``) and
the exact path reads the document again, so every refusal, and every document this walk does not take,
keeps that path's result and texts. What it takes, the compile cannot refuse (``Plan.plain``): a contract
loaded this way compiles on its first validation.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from decimal import Decimal
from typing import Any, Generic, TypeAlias, TypeVar

from llm_wire._keywords import KEYWORDS, Role, Shape
from llm_wire._regex import MAX_PATTERN_COST, compile_pattern, pattern_cost
from llm_wire.contract._rules import Rules
from llm_wire.result import Ok
from llm_wire.schema import _FALSE, _TRUE, Schema
from llm_wire.value import Path, Value

__all__ = ["quick_plan"]

N = TypeVar("N")

#: Nesting beyond this goes the exact (iterative) way: the walk here recurses.
_DEEPEST = 48
_TYPES = frozenset({"null", "boolean", "object", "array", "number", "string", "integer"})
_STR = frozenset({str})


def _count(v: Any) -> bool:
    return v.__class__ is int and v >= 0


def _number(v: Any) -> bool:
    return v.__class__ is int or (v.__class__ is Decimal and v.is_finite())


def _positive(v: Any) -> bool:
    return _number(v) and v > 0


def _strings(v: Any) -> bool:
    return v.__class__ is list and _STR.issuperset(map(type, v)) and len(set(v)) == len(v)


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
    document: Value,
    rules: Rules,
    *,
    exact_way: Collection[str],
    node: Callable[[Schema, Path, str], N] | None,
) -> tuple[Schema, dict[int, N], int] | None:
    """
    The root node, ``{id(node): node(schema, path, "")}`` (empty when ``node`` is ``None``) and the count of
    keywords of a plain document (see the module), else ``None``; so is a document with a keyword in
    ``exact_way`` (but the root's ``$schema``, left out as the exact path leaves it out) or a ``float``
    anywhere (the exact path reads each exactly).
    """
    if document.__class__ is not dict:
        return None
    formats = rules.formats if rules.assert_formats else None
    reader = _Reader(node, exact_way, rules.supported, rules.annotations, formats, rules.max_pattern_cost)
    reader.max_nodes = rules.max_nodes
    reader.deepest = min(rules.max_depth, _DEEPEST)
    try:
        root = reader.read(document, (), 1)
    except (_Bail, RecursionError):
        return None
    return root, reader.nodes, reader.keywords


#: What the walk does with a keyword (``_Reader.table``): read a subschema, a list or map of them, keep a JSON
#: value (``_KEEP``), test a value (the entry is its test, or the exact class it must have), or leave the
#: document to the exact way. A test of strings or numbers also says the value is plain JSON.
_SUB, _LIST, _MAP, _EXACT, _KEEP, _PATTERN, _FORMAT = (
    "sub",
    "list",
    "map",
    "exact",
    "keep",
    "pattern",
    "format",
)
_Action: TypeAlias = "str | type | Callable[[Any], bool]"
#: The shapes a class says all of (a bool, a string), and those whose values may hold anything JSON.
_CLASSES: dict[Shape, type] = {Shape.STRING: str, Shape.BOOLEAN: bool, Shape.ARRAY: list, Shape.OBJECT: dict}
_OPEN = frozenset({Shape.ANY, Shape.STRINGS_MAP})
#: The classes of a leaf's members that make its content its key (``_Shared``).
_LEAF = frozenset({str, int, bool, type(None)})
#: How many leaves one ``_Shared`` keeps, and how many characters their names and strings hold in all.
_SHARED_NODES, _SHARED_CHARACTERS = 4096, 1 << 20
_LeafKey: TypeAlias = tuple[tuple[tuple[str, Any], ...], tuple[type, ...]]


class _Shared:
    """
    The leaf nodes read under one table, by content. A schema object below the root whose members are all
    strings, integers, booleans or nulls (a leaf: ``{"type": "string"}``, which MCP servers repeat across
    tools) reads to the same immutable node, and the same verdict, wherever it appears: the walk reads it
    once and every later copy gets that node. The key holds each member's class beside its value, so that
    ``1`` is not ``true``. Bounded in nodes and in characters; emptied when full.
    """

    __slots__ = ("characters", "nodes")

    def __init__(self) -> None:
        self.nodes: dict[_LeafKey, Schema] = {}
        self.characters = 0

    def keep(self, key: _LeafKey, node: Schema) -> None:
        size = sum(len(name) + (len(v) if v.__class__ is str else 1) for name, v in key[0])
        if len(self.nodes) >= _SHARED_NODES or self.characters + size > _SHARED_CHARACTERS:
            self.nodes.clear()
            self.characters = 0
            if size > _SHARED_CHARACTERS:
                return
        self.nodes[key] = node
        self.characters += size


#: Tables already made, with the leaves read under each, by the sets they are made from (bounded: a
#: caller's annotations make new ones).
_TABLES: dict[
    tuple[Collection[str], Collection[str], Collection[str]], tuple[dict[str, _Action], _Shared]
] = {}
_MAX_TABLES = 64


def _table(
    exact_way: Collection[str], supported: Collection[str], annotations: Collection[str]
) -> tuple[dict[str, _Action], _Shared]:
    """
    Each keyword the walk knows, with what it does with it (a name missing is an extension, or refused), and
    the leaves read under that table.
    """
    key = (exact_way, supported, annotations)
    found = _TABLES.get(key)
    if found is not None:
        return found
    table: dict[str, _Action] = dict.fromkeys(annotations, _KEEP)
    for name, shape in _SHAPES.items():
        if name not in supported and not (name in annotations or name in _ANNOTATION_ROLE):
            table[name] = _EXACT
        elif shape in _SUBSCHEMA_ACTIONS:
            table[name] = _SUBSCHEMA_ACTIONS[shape]
        elif name in ("pattern", "format"):
            table[name] = _PATTERN if name == "pattern" else _FORMAT
        elif shape in _OPEN:
            table[name] = _KEEP if shape is Shape.ANY else _TESTS[name]
        else:
            table[name] = _CLASSES.get(shape) or _TESTS[name]
    table.update(dict.fromkeys(exact_way, _EXACT))
    if len(_TABLES) >= _MAX_TABLES:
        _TABLES.clear()
    made = _TABLES[key] = (table, _Shared())
    return made


_SUBSCHEMA_ACTIONS = {Shape.SCHEMA: _SUB, Shape.SCHEMA_LIST: _LIST, Shape.SCHEMA_MAP: _MAP}
_FUNCTION = type(_count)


class _Reader(Generic[N]):
    """One walk of ``quick_plan`` (an object, not closures: closures calling each other form a reference
    cycle, which would keep every node it made alive until the garbage collector runs)."""

    __slots__ = (
        "count",
        "deepest",
        "formats",
        "keywords",
        "make_node",
        "max_nodes",
        "max_pattern_cost",
        "nodes",
        "shared",
        "table",
    )

    def __init__(
        self,
        make_node: Callable[[Schema, Path, str], N] | None,
        exact_way: Collection[str],
        supported: Collection[str],
        annotations: Collection[str],
        formats: Collection[str] | None,
        max_pattern_cost: int,
    ) -> None:
        self.make_node = make_node
        self.table, shared = _table(exact_way, supported, annotations)
        #: The formats asserted, or ``None`` when ``format`` is an annotation.
        self.formats = formats
        self.max_pattern_cost = max_pattern_cost
        #: The leaves read before under the same table, when their verdict is this walk's: ``format`` an
        #: annotation, the default pattern cost; and no node table to record, whose nodes must be distinct.
        self.shared = (
            shared if make_node is None and formats is None and max_pattern_cost == MAX_PATTERN_COST else None
        )
        self.max_nodes = self.deepest = 0
        self.nodes: dict[int, N] = {}
        self.count = self.keywords = 0

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
        shared, key = self.shared, None
        if shared is not None and depth > 1:  # not the root, where ``$schema`` is left out
            classes = tuple(map(type, raw.values()))
            if _LEAF.issuperset(classes):
                key = (tuple(raw.items()), classes)
                found = shared.nodes.get(key)
                if found is not None:
                    self.keywords += len(classes)
                    return found
        table, sub, read, record = self.table, self.sub, self.read, self.make_node is not None
        pairs: list[tuple[str, Any]] = []
        for name, value in raw.items():
            action = table.get(name)
            kind = action.__class__
            if kind is type:  # the class the value must have
                if value.__class__ is not action:
                    raise _Bail
                if (action is list or action is dict) and not _plain_json(value):
                    raise _Bail  # a float (read exactly the exact way), or what the compile could refuse
            elif kind is _FUNCTION:  # a test of strings or numbers (or of a map of string lists)
                if not action(value) or (value.__class__ is dict and not _plain_json(value)):  # type: ignore[operator,misc]
                    raise _Bail
            elif action is _SUB:
                if value.__class__ is dict:
                    value = read(value, (*path, name) if record else path, depth + 1)
                else:
                    value = sub(value, path, depth + 1)
            elif action is _MAP:
                if value.__class__ is not dict or not _STR.issuperset(map(type, value)):
                    raise _Bail  # a member name that is not a string: the exact way refuses it
                if name == "patternProperties":
                    for source in value:
                        _plain_pattern(source, self.max_pattern_cost)
                value = tuple(
                    [
                        (k, read(item, (*path, name, k) if record else path, depth + 1))
                        if item.__class__ is dict
                        else (k, sub(item, path, depth + 1))
                        for k, item in value.items()
                    ]
                )
            elif action is _LIST:
                if value.__class__ is not list or not value:
                    raise _Bail
                value = tuple(
                    [
                        sub(item, (*path, name, n) if record else path, depth + 1)
                        for n, item in enumerate(value)
                    ]
                )
            elif action is _KEEP or (action is None and name.__class__ is str and name.startswith("x-")):
                if value.__class__ not in _SCALARS and not _plain_json(value):
                    raise _Bail  # a float (read exactly the exact way), or what the compile could refuse
            elif action is _PATTERN:
                if value.__class__ is not str:
                    raise _Bail
                _plain_pattern(value, self.max_pattern_cost)
            elif action is _FORMAT:
                formats = self.formats
                if value.__class__ is not str or (formats is not None and value not in formats):
                    raise _Bail
            elif action is _EXACT and name == "$schema" and depth == 1:
                continue
            else:  # to the exact way, or not in the vocabulary and not an extension
                raise _Bail
            pairs.append((name, value))
        made = Schema(tuple(pairs))
        self.keywords += len(pairs)
        if record:
            self.nodes[id(made)] = self.make_node(made, path, "")  # type: ignore[misc]
        elif key is not None:
            shared.keep(key, made)  # type: ignore[union-attr]  # a key is made only with ``shared``
        return made


#: How deep a keyword's JSON value may nest here (the compile renders and keys ``enum`` and ``const``).
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
