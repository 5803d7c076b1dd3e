"""
The one schema representation: an immutable, checked JSON Schema (Draft 2020-12) node tree.

Codecs build schemas in source, contracts load them from documents received at runtime, tools keep them,
and provider wires rewrite them. A ``Schema`` is either a boolean schema or an ordered tuple of keywords.
Every keyword's value is checked against its shape when the node is made: subschemas are ``Schema``
nodes (alone, in a tuple, or in an ordered name map), everything else is a JSON value. Authored order is
kept, so a rendered document reads as it was written.

What each keyword *means* lives above (``contract`` compiles assertions); here a keyword only has a role
(core, assertion, applicator, annotation, definitions, or unknown) and a shape.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import TypeAlias

from attrs import frozen

from llm_wire._described import Described as _Described
from llm_wire._keywords import Shape as _Shape
from llm_wire._keywords import keyword as _keyword
from llm_wire.result import Err, Ok, Result
from llm_wire.value import Path, Value, render_path

__all__ = [
    "DefinitionError",
    "Schema",
    "SchemaProblem",
    "build",
    "from_value",
    "make",
    "to_document",
    "to_value",
]

#: The dialect every rendered document declares at its root.
_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class DefinitionError(ValueError):
    """
    A mistake written in source (a codec, a schema or a tool definition); the message names it.
    """


_TYPES = frozenset({"null", "boolean", "object", "array", "number", "string", "integer"})

_setattr = object.__setattr__

#: A keyword's value: a subschema, subschemas in order, named subschemas in order, or a JSON value.
_KeywordValue: TypeAlias = "Schema | tuple[Schema, ...] | tuple[tuple[str, Schema], ...] | Value"


@frozen(eq=False, init=False)
class Schema:
    """
    One schema node: ``boolean`` for ``true``/``false`` schemas, otherwise ``keywords`` in authored order.

    Make nodes with ``build``/``make`` (from keywords) or ``from_value`` (from a document); both check them.
    """

    keywords: tuple[tuple[str, _KeywordValue], ...]
    boolean: bool | None

    def __init__(
        self, keywords: tuple[tuple[str, _KeywordValue], ...] = (), boolean: bool | None = None
    ) -> None:
        # Written out, as attrs documents for a frozen class: a document's load makes one per schema object.
        # No index by name: a node holds a few keywords, read when compiled or projected, not per call.
        _setattr(self, "keywords", keywords)
        _setattr(self, "boolean", boolean)

    def get(self, name: str) -> _KeywordValue | None:
        """The value of keyword ``name``, or ``None`` when absent."""
        for keyword, value in self.keywords:
            if keyword == name:
                return value
        return None

    def __contains__(self, name: object) -> bool:
        return any(keyword == name for keyword, _ in self.keywords)

    def names(self) -> tuple[str, ...]:
        """The keyword names in authored order."""
        return tuple(name for name, _ in self.keywords)

    def with_keyword(self, name: str, value: _KeywordValue) -> Schema:
        """A copy with ``name`` set (replaced in place, or appended); raises ``DefinitionError`` if bad."""
        pairs = list(self.keywords)
        names = [keyword for keyword, _ in pairs]
        if name in names:
            pairs[names.index(name)] = (name, value)
        else:
            pairs.append((name, value))
        return make(*pairs)

    def without(self, *names: str) -> Schema:
        """A copy without the given keywords."""
        drop = set(names)
        return Schema(tuple(pair for pair in self.keywords if pair[0] not in drop))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Schema):
            return NotImplemented
        return _canonical(to_value(self)) == _canonical(to_value(other))

    def __hash__(self) -> int:
        return hash(_canonical(to_value(self)))

    def __repr__(self) -> str:
        if self.boolean is not None:
            return f"<Schema {str(self.boolean).lower()}>"
        return f"<Schema {', '.join(self.names()) or 'empty'}>"


_TRUE = Schema(boolean=True)
_FALSE = Schema(boolean=False)


@frozen
class SchemaProblem(_Described):
    """
    A keyword whose value does not have its shape, or a document too large; texts carry no input values.
    """

    path: Path
    keyword: str | None
    problem: str
    #: For a document too large, the ``from_value`` argument that bounds it (``max_nodes``, ``max_depth``).
    limit: str | None = None

    def describe(self) -> str:
        """``$["properties"]["a"]: "minLength" must be a non-negative integer``."""
        where = render_path(self.path)
        if self.keyword is None:
            return f"{where}: {self.problem}"
        return f'{where}: "{self.keyword}" {self.problem}'


# ---------------------------------------------------------------------------------------------------------
# Building from keywords (source code) and from documents (runtime data).


def build(*pairs: tuple[str, object]) -> Result[Schema, SchemaProblem]:
    """
    A node from ``(keyword, value)`` pairs whose subschema values are already ``Schema`` nodes.
    """
    seen: set[str] = set()
    checked: list[tuple[str, _KeywordValue]] = []
    for name, raw in pairs:
        if name in seen:
            return Err(SchemaProblem((), name, "appears twice"))
        seen.add(name)
        problem = _check_built(_keyword(name).shape, raw)
        if problem is not None:
            return Err(SchemaProblem((), name, f"must be {problem}"))
        checked.append((name, raw))  # type: ignore[arg-type]
    return Ok(Schema(tuple(checked)))


def make(*pairs: tuple[str, object]) -> Schema:
    """
    ``build`` for schemas written in source: raises ``DefinitionError`` instead of returning ``Err``.
    """
    match build(*pairs):
        case Ok(node):
            return node
        case Err(problem):
            raise DefinitionError(f"invalid schema: {problem.describe()}")


def _check_built(shape: _Shape, raw: object) -> str | None:
    if shape is _Shape.SCHEMA:
        return None if isinstance(raw, Schema) else shape.value
    if shape is _Shape.SCHEMA_LIST:
        ok = isinstance(raw, tuple) and raw and all(isinstance(s, Schema) for s in raw)
        return None if ok else shape.value
    if shape is _Shape.SCHEMA_MAP:
        if not isinstance(raw, tuple) or not all(
            isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], Schema)
            for p in raw
        ):
            return str(shape.value)
        if len({p[0] for p in raw}) != len(raw):
            return "an object of schemas with unique names"
        return None
    return _check_json(shape, raw)


def _check_json(shape: _Shape, raw: object) -> str | None:
    """``None`` when ``raw`` (a JSON value) has ``shape``, else the shape's text."""
    ok: bool
    if shape is _Shape.ANY:
        ok = True
    elif shape is _Shape.TYPE:
        if isinstance(raw, str):
            ok = raw in _TYPES
        else:
            ok = (
                isinstance(raw, list)
                and len(raw) > 0
                and all(isinstance(t, str) and t in _TYPES for t in raw)
                and len(set(raw)) == len(raw)
            )
    elif shape is _Shape.COUNT:
        ok = _is_integral(raw) and raw >= 0  # type: ignore[operator]
    elif shape is _Shape.NUMBER:
        ok = _is_number(raw)
    elif shape is _Shape.POSITIVE:
        ok = _is_number(raw) and raw > 0  # type: ignore[operator]
    elif shape is _Shape.STRING:
        ok = isinstance(raw, str)
    elif shape is _Shape.STRINGS:
        ok = _is_string_set(raw)
    elif shape is _Shape.STRINGS_MAP:
        ok = isinstance(raw, dict) and all(_is_string_set(v) for v in raw.values())
    elif shape is _Shape.BOOLEAN:
        ok = isinstance(raw, bool)
    elif shape is _Shape.ARRAY:
        ok = isinstance(raw, list)
    elif shape is _Shape.OBJECT:
        ok = isinstance(raw, dict)
    else:  # subschema shapes are checked by the callers
        ok = False
    return None if ok else shape.value


def _is_number(raw: object) -> bool:
    if isinstance(raw, bool):
        return False
    return isinstance(raw, int) or (isinstance(raw, Decimal) and raw.is_finite())


def _is_integral(raw: object) -> bool:
    if isinstance(raw, Decimal):
        return raw.is_finite() and raw == raw.to_integral_value()
    return isinstance(raw, int) and not isinstance(raw, bool)


def _is_string_set(raw: object) -> bool:
    if not isinstance(raw, list) or not all(isinstance(s, str) for s in raw):
        return False
    return len(set(raw)) == len(raw)


def from_value(
    document: Value, *, max_nodes: int = 10_000, max_depth: int = 128
) -> Result[Schema, SchemaProblem]:
    """
    The node tree of a schema document (a parsed JSON value), checking every keyword's shape.

    Unknown keywords are kept as raw JSON with ``Role.UNKNOWN``; counts become ``int``. Refuses a document
    with more than ``max_nodes`` schema nodes or subschemas nested deeper than ``max_depth``.
    """
    # Post-order over an explicit stack, so that no document depth reaches Python's recursion limit.
    nodes = 0
    built: dict[Path, Schema] = {}
    stack: list[tuple[Value, Path, int, bool]] = [(document, (), 1, False)]
    while stack:
        raw, path, depth, expanded = stack.pop()
        if isinstance(raw, bool):
            built[path] = _TRUE if raw else _FALSE
            continue
        if not isinstance(raw, dict):
            return Err(SchemaProblem(path, None, "a schema must be an object or a boolean"))
        if not expanded:
            if not all(isinstance(name, str) for name in raw):
                return Err(SchemaProblem(path, None, "a schema's keyword names must be strings"))
            nodes += 1
            if nodes > max_nodes:
                return Err(SchemaProblem(path, None, f"more than {max_nodes} schema nodes", "max_nodes"))
            if depth > max_depth:
                return Err(
                    SchemaProblem(path, None, f"subschemas nested deeper than {max_depth}", "max_depth")
                )
            stack.append((raw, path, depth, True))
            stack.extend((child, child_path, depth + 1, False) for child, child_path in _children(raw, path))
            continue
        match _assemble(raw, path, built):
            case Err() as err:
                return err
            case Ok(node):
                built[path] = node
    return Ok(built[()])


def _children(raw: dict[str, Value], path: Path) -> Iterator[tuple[Value, Path]]:
    for name, value in raw.items():
        shape = _keyword(name).shape
        if shape is _Shape.SCHEMA:
            yield value, (*path, name)
        elif shape is _Shape.SCHEMA_LIST and isinstance(value, list):
            for n, item in enumerate(value):
                yield item, (*path, name, n)
        elif shape is _Shape.SCHEMA_MAP and isinstance(value, dict):
            for key, item in value.items():
                yield item, (*path, name, key)


def _assemble(raw: dict[str, Value], path: Path, built: dict[Path, Schema]) -> Result[Schema, SchemaProblem]:
    def child(_: Value, child_path: Path) -> Schema:
        return built[child_path]

    pairs: list[tuple[str, _KeywordValue]] = []
    for name, value in raw.items():
        shape = _keyword(name).shape
        here = (*path, name)
        if shape is _Shape.SCHEMA:
            pairs.append((name, child(value, here)))
        elif shape is _Shape.SCHEMA_LIST:
            if not isinstance(value, list) or not value:
                return Err(SchemaProblem(path, name, f"must be {shape.value}"))
            pairs.append((name, tuple(child(item, (*here, n)) for n, item in enumerate(value))))
        elif shape is _Shape.SCHEMA_MAP:
            if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
                return Err(SchemaProblem(path, name, f"must be {shape.value}"))
            pairs.append((name, tuple((key, child(item, (*here, key))) for key, item in value.items())))
        else:
            problem = _check_json(shape, value)
            if problem is not None:
                return Err(SchemaProblem(path, name, f"must be {problem}"))
            if shape is _Shape.COUNT and isinstance(value, Decimal):
                value = int(value)
            pairs.append((name, value))
    return Ok(Schema(tuple(pairs)))


# ---------------------------------------------------------------------------------------------------------
# Rendering and walking.


def to_value(schema: Schema) -> Value:
    """
    The schema as a JSON value, without ``$schema`` (unless the node itself carries one).
    """
    if schema.boolean is not None:
        return schema.boolean
    out: dict[str, Value] = {}
    for name, value in schema.keywords:
        out[name] = _render_keyword(value)
    return out


def _render_keyword(value: _KeywordValue) -> Value:
    if isinstance(value, Schema):
        return to_value(value)
    if isinstance(value, tuple):
        if value and isinstance(value[0], Schema):
            return [to_value(s) for s in value if isinstance(s, Schema)]
        return {name: to_value(s) for name, s in value}  # type: ignore[misc]
    return value


def to_document(schema: Schema) -> Value:
    """
    The schema as a Draft 2020-12 document: ``$schema`` first at the root, nowhere else added.
    """
    body = to_value(schema)
    if isinstance(body, bool):
        return body
    assert isinstance(body, dict)
    return {"$schema": _DIALECT, **{k: v for k, v in body.items() if k != "$schema"}}


def _walk(schema: Schema, path: Path = ()) -> Iterator[tuple[Path, Schema]]:
    """
    Every node below and including ``schema``, depth first, with its path in the rendered document.
    """
    stack: list[tuple[Path, Schema]] = [(path, schema)]
    while stack:
        here, node = stack.pop()
        yield here, node
        children: list[tuple[Path, Schema]] = []
        for name, value in node.keywords:
            children.extend(_child_nodes(name, value, here))
        stack.extend(reversed(children))


def _child_nodes(name: str, value: _KeywordValue, here: Path) -> Iterable[tuple[Path, Schema]]:
    if isinstance(value, Schema):
        return [((*here, name), value)]
    if isinstance(value, tuple) and value:
        first = value[0]
        if isinstance(first, Schema):
            return [((*here, name, n), s) for n, s in enumerate(value)]  # type: ignore[misc]
        if isinstance(first, tuple) and len(first) == 2 and isinstance(first[1], Schema):
            return [((*here, name, key), s) for key, s in value]  # type: ignore[misc]
    return []


def _canonical(value: Value) -> object:
    """A form where equal JSON compares equal and unequal JSON does not (bool is not 1)."""
    if isinstance(value, bool) or value is None:
        return (type(value).__name__, value)
    if isinstance(value, int | Decimal):
        return ("number", Decimal(value))  # Decimal equality and hashing are exact: 1 == 1.0
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("array", tuple(_canonical(v) for v in value))
    return ("object", tuple(sorted((k, _canonical(v)) for k, v in value.items())))
