"""
Reading a schema document before it is compiled: its dialect, draft-07 rewritten with Draft 2020-12 meaning,
the bounds, the keyword policy (fail closed), and every reference resolved with ``referencing``.

The result is a ``Plan``: the checked ``Schema`` tree and, for each of its nodes, its path, the schema
resource it belongs to and the static targets of its references. The common document, without references,
is read in one walk (``_fastload``); the others go through ``schema.from_value`` and a second walk here.
Nothing here touches the network: a reference that leaves the document is refused.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterator
from typing import TypeAlias

from llm_wire import _keywords
from llm_wire import schema as _schema
from llm_wire._keywords import Role
from llm_wire._regex import compile_pattern, pattern_cost
from llm_wire.contract._errors import LoadError, too_large
from llm_wire.contract._fastload import quick_plan
from llm_wire.contract._reasons import (
    InvalidShape,
    RemoteReference,
    UnknownFormat,
    UnresolvableReference,
    UnsupportedDialect,
    UnsupportedKeyword,
    UnsupportedPattern,
)
from llm_wire.contract._rules import Rules
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import _FALSE, _TRUE, Schema
from llm_wire.value import Path, Value

__all__ = ["Dialect", "Node", "Plan", "Rules", "plain_document", "prepare_document", "prepare_schema"]

_URI_2020 = "https://json-schema.org/draft/2020-12/schema"
_URI_07 = "http://json-schema.org/draft-07/schema"


class Dialect(enum.Enum):
    """The JSON Schema dialect a document was written in."""

    DRAFT_2020_12 = "draft2020-12"
    DRAFT_07 = "draft-07"


def _dialect_of(uri: str) -> Dialect | None:
    uri = uri[:-1] if uri.endswith("#") else uri
    if uri == _URI_2020:
        return Dialect.DRAFT_2020_12
    if uri == _URI_07:
        return Dialect.DRAFT_07
    return None


class Node:
    """One object schema of the document, with where it is and what its references point at."""

    __slots__ = ("dynamic_name", "dynamic_ref", "path", "ref", "resource", "schema")

    def __init__(self, schema: Schema, path: Path, resource: str) -> None:
        self.schema = schema
        self.path = path
        #: The absolute URI of the schema resource this node belongs to ("" for an unnamed root).
        self.resource = resource
        #: Static targets of ``$ref`` and ``$dynamicRef``.
        self.ref: Schema | None = None
        self.dynamic_ref: Schema | None = None
        #: The ``$dynamicAnchor`` name when ``$dynamicRef`` may resolve dynamically.
        self.dynamic_name: str | None = None


class Plan:
    """A checked schema tree ready to compile."""

    __slots__ = ("anchors", "keywords", "nodes", "plain", "root", "tree")

    def __init__(
        self,
        root: Schema,
        nodes: dict[int, Node],
        anchors: dict[str, dict[str, Schema]],
        *,
        tree: bool,
        plain: bool = False,
        keywords: int | None = None,
    ) -> None:
        self.root = root
        #: Every object schema, by ``id()`` of its ``Schema`` node.
        self.nodes = nodes
        #: For each resource, its dynamic anchors that some ``$dynamicRef`` may land on: name -> node.
        self.anchors = anchors
        #: Whether the nodes form a tree: no reference, and no node reached twice (a ``Schema`` built in code
        #: may hold one node in several places).
        self.tree = tree
        #: Read in one walk by ``quick_plan``, which takes nothing the compile could refuse: compiling it
        #: cannot fail, so it may wait for the first validation.
        self.plain = plain
        #: How many keywords the nodes hold (counted from the node table when not given).
        self.keywords = sum(len(n.schema.keywords) for n in nodes.values()) if keywords is None else keywords


#: Keywords kept beside ``$ref`` in a draft-07 document (where every other sibling is ignored by the spec).
_KEPT_BESIDE_REF = frozenset(
    {"$ref", "title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
    | {"definitions", "$defs"}
)
#: Draft 2020-12 keywords that draft-07 does not have: a draft-07 document using them is ambiguous.
_NOT_DRAFT_07 = frozenset(
    {"$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "$vocabulary"}
    | {"prefixItems", "dependentRequired", "dependentSchemas", "minContains", "maxContains"}
    | {"unevaluatedItems", "unevaluatedProperties", "contentSchema"}
)
#: What sends a document past ``quick_plan``, the exact way: references and resources (resolved with
#: ``referencing``), a nested ``$schema``; under draft-07 also what its rewrite changes or refuses.
_EXACT_WAY = frozenset({"$ref", "$dynamicRef", "$id", "$schema"})
_EXACT_WAY_07 = _EXACT_WAY | _NOT_DRAFT_07 | {"dependencies", "additionalItems"}
_07_SCHEMA = frozenset({"additionalProperties", "contains", "else", "if", "not", "propertyNames", "then"})
_07_LIST = frozenset({"allOf", "anyOf", "oneOf"})
_07_MAP = frozenset({"definitions", "$defs", "properties", "patternProperties"})

Renames: TypeAlias = dict[tuple[Path, str], str]


def prepare_document(document: Value, rules: Rules) -> Result[tuple[Dialect, Plan], LoadError]:
    """
    Check a schema document and resolve its references; ``Err(LoadError)`` names what cannot be honoured.

    A plain document (no reference, no resource, every keyword plainly shaped) is read in one walk
    (``quick_plan``); any other, and every refusal, the exact way, which gives the same plan where both do.
    """

    dialect = Dialect.DRAFT_2020_12
    if isinstance(document, dict) and "$schema" in document:
        declared = document["$schema"]
        if not isinstance(declared, str):
            return Err(LoadError((), "$schema", InvalidShape("must be a string")))
        found = _dialect_of(declared)
        if found is None:
            return Err(LoadError((), "$schema", UnsupportedDialect()))
        dialect = found

    quick = quick_plan(
        document, rules, exact_way=_EXACT_WAY_07 if dialect is Dialect.DRAFT_07 else _EXACT_WAY, node=Node
    )
    if quick is not None:
        root, nodes, keywords = quick
        return Ok((dialect, Plan(root, nodes, {}, tree=True, plain=True, keywords=keywords)))
    match _prepare_exactly(document, dialect, rules):
        case Ok(plan):
            return Ok((dialect, plan))
        case Err(error):
            return Err(error)


def plain_document(document: Value, rules: Rules) -> tuple[Dialect, Plan] | None:
    """
    ``prepare_document``'s result for a plain document read in one walk, without the node table a plain
    plan does not need at load (``Plan.plain``); ``None`` for any other document, which ``prepare_document``
    then reads.
    """
    dialect = Dialect.DRAFT_2020_12
    if isinstance(document, dict) and "$schema" in document:
        declared = document["$schema"]
        found = _dialect_of(declared) if declared.__class__ is str else None
        if found is None:
            return None
        dialect = found
    quick: tuple[Schema, dict[int, Node], int] | None = quick_plan(
        document, rules, exact_way=_EXACT_WAY_07 if dialect is Dialect.DRAFT_07 else _EXACT_WAY, node=None
    )
    if quick is None:
        return None
    root, _, keywords = quick
    return dialect, Plan(root, {}, {}, tree=True, plain=True, keywords=keywords)


def _prepare_exactly(document: Value, dialect: Dialect, rules: Rules) -> Result[Plan, LoadError]:
    """``prepare_document`` the exact way, past ``quick_plan``: every document, every refusal explained."""
    renames: Renames = {}
    if dialect is Dialect.DRAFT_07:
        match _translate_07(document, rules.annotations, renames):
            case Err(error):
                return Err(error)
            case Ok(document):
                pass
    elif isinstance(document, dict):
        document = {k: v for k, v in document.items() if k != "$schema"}
    match _schema.from_value(document, max_nodes=rules.max_nodes, max_depth=rules.max_depth):
        case Err(problem):
            error = _shape_error(problem, rules.max_nodes, rules.max_depth)
        case Ok(root):
            match _analyse(document, root, dialect, rules):
                case Ok(plan):
                    return Ok(plan)
                case Err(error):
                    pass
    if renames:
        path, keyword = _original(error.path, error.keyword, renames)
        error = LoadError(path, keyword, error.reason)
    return Err(error)


def prepare_schema(root: Schema, rules: Rules) -> Result[Plan, LoadError]:
    """
    Check a ``Schema`` built in code (Draft 2020-12) as ``prepare_document`` checks a document.
    """

    nodes = 0
    stack: list[tuple[Schema, Path, int]] = [(root, (), 1)]
    while stack:
        node, path, depth = stack.pop()
        if node.boolean is not None:
            continue
        nodes += 1
        if nodes > rules.max_nodes:
            return Err(LoadError(path, None, too_large("max_nodes", rules.max_nodes)))
        if depth > rules.max_depth:
            return Err(LoadError(path, None, too_large("max_depth", rules.max_depth)))
        stack.extend((child, child_path, depth + 1) for child, child_path in _children(node, path))
    declared = root.get("$schema")
    if isinstance(declared, str) and _dialect_of(declared) is not Dialect.DRAFT_2020_12:
        return Err(LoadError((), "$schema", UnsupportedDialect()))
    return _analyse(_schema.to_value(root), root, Dialect.DRAFT_2020_12, rules)


def _shape_error(problem: _schema.SchemaProblem, max_nodes: int, max_depth: int) -> LoadError:

    if problem.limit == "max_nodes":
        return LoadError(problem.path, None, too_large("max_nodes", max_nodes))
    if problem.limit == "max_depth":
        return LoadError(problem.path, None, too_large("max_depth", max_depth))
    return LoadError(problem.path, problem.keyword, InvalidShape(problem.problem))


def _children(node: Schema, path: Path) -> Iterator[tuple[Schema, Path]]:
    for name, value in node.keywords:
        if isinstance(value, Schema):
            yield value, (*path, name)
        elif isinstance(value, tuple) and value:
            for n, item in enumerate(value):
                if isinstance(item, Schema):
                    yield item, (*path, name, n)
                elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Schema):
                    yield item[1], (*path, name, item[0])


# ---------------------------------------------------------------------------------------------------------
# Draft-07, read with its own meaning and rewritten in Draft 2020-12 terms.


def _translate_07(
    document: Value, annotations: Collection[str], renames: Renames
) -> Result[Value, LoadError]:

    if not isinstance(document, dict):
        return Ok(document)
    root: dict[str, Value] = {}
    # Work items: a draft-07 schema object, its path, and the new object to fill.
    stack: list[tuple[dict[str, Value], Path, dict[str, Value]]] = [(document, (), root)]

    def sub(value: Value, at: Path) -> Value:
        if isinstance(value, dict):
            new: dict[str, Value] = {}
            stack.append((value, at, new))
            return new
        return value

    while stack:
        raw, path, out = stack.pop()
        beside_ref = "$ref" in raw
        for name, value in raw.items():
            here = (*path, name)
            if beside_ref and not (name in _KEPT_BESIDE_REF or name.startswith("x-") or name in annotations):
                continue
            if name == "$schema":
                if not isinstance(value, str) or _dialect_of(value) is not Dialect.DRAFT_07:
                    return Err(LoadError(path, name, UnsupportedDialect()))
                continue
            if name in _NOT_DRAFT_07:
                return Err(LoadError(path, name, UnsupportedKeyword("it is not a draft-07 keyword")))
            if name == "$id" and isinstance(value, str):
                if value.startswith("#"):
                    if len(value) > 1:
                        out["$anchor"] = value[1:]
                        renames[(path, "$anchor")] = "$id"
                    continue
                out["$id"] = value[:-1] if value.endswith("#") else value
            elif name == "items" and isinstance(value, list):
                if value:
                    out["prefixItems"] = [
                        sub(item, (*path, "prefixItems", n)) for n, item in enumerate(value)
                    ]
                    renames[(path, "prefixItems")] = "items"
                if "additionalItems" in raw:
                    out["items"] = sub(raw["additionalItems"], (*path, "items"))
                    renames[(path, "items")] = "additionalItems"
            elif name == "additionalItems":
                continue  # used above beside an array of items, and ignored by draft-07 otherwise
            elif name == "dependencies":
                if not isinstance(value, dict):
                    return Err(LoadError(path, name, InvalidShape("must be an object")))
                required: dict[str, Value] = {}
                schemas: dict[str, Value] = {}
                for key, dependency in value.items():
                    if isinstance(dependency, list):
                        required[key] = dependency
                    elif isinstance(dependency, dict | bool):
                        schemas[key] = sub(dependency, (*path, "dependentSchemas", key))
                    else:
                        return Err(LoadError(here, key, InvalidShape("must be an array or a schema")))
                if required:
                    out["dependentRequired"] = required
                    renames[(path, "dependentRequired")] = "dependencies"
                if schemas:
                    out["dependentSchemas"] = schemas
                    renames[(path, "dependentSchemas")] = "dependencies"
            elif name in _07_SCHEMA or name == "items":
                out[name] = sub(value, here)
            elif name in _07_LIST and isinstance(value, list):
                out[name] = [sub(item, (*here, n)) for n, item in enumerate(value)]
            elif name in _07_MAP and isinstance(value, dict):
                out[name] = {key: sub(item, (*here, key)) for key, item in value.items()}
            else:
                out[name] = value
    return Ok(root)


def _original(path: Path, keyword: str | None, renames: Renames) -> tuple[Path, str | None]:
    """The draft-07 spelling of a path (and keyword) in the rewritten document."""
    out: list[str | int] = []
    for n, segment in enumerate(path):
        if isinstance(segment, str):
            out.append(renames.get((path[:n], segment), segment))
        else:
            out.append(segment)
    if keyword is not None:
        keyword = renames.get((path, keyword), keyword)
    return tuple(out), keyword


# ---------------------------------------------------------------------------------------------------------
# One pass over every node: keyword policy, patterns, formats, resources; then the references.


def _analyse(document: Value, root: Schema, dialect: Dialect, rules: Rules) -> Result[Plan, LoadError]:

    nodes: dict[int, Node] = {}
    by_raw: dict[int, Schema] = {}
    refs: list[tuple[Node, str, str]] = []
    dynamic_anchors: list[tuple[Node, str]] = []
    visits = 0
    # Work items: the raw document object, its node, its path and the base URI of its parent.
    stack: list[tuple[Value, Schema, Path, str]] = [(document, root, (), "")]
    while stack:
        raw, node, path, base = stack.pop()
        if node.boolean is not None or not isinstance(raw, dict):
            continue
        declared_id = node.get("$id")
        if isinstance(declared_id, str):
            from urllib.parse import urldefrag, urljoin  # loaded only by documents that declare an ``$id``

            try:
                uri, fragment = urldefrag(urljoin(base, declared_id))
            except ValueError:
                return Err(LoadError(path, "$id", InvalidShape("must be a URI reference")))
            if fragment:
                return Err(LoadError(path, "$id", InvalidShape("must not have a fragment")))
            base = uri
        info = Node(node, path, base)
        visits += 1
        nodes[id(node)] = info
        by_raw[id(raw)] = node
        for name, value in node.keywords:
            problem = _policy(name, value, path, rules)
            if problem is not None:
                return Err(problem)
            if name in ("$ref", "$dynamicRef") and isinstance(value, str):
                refs.append((info, name, value))
            elif name == "$dynamicAnchor" and isinstance(value, str):
                dynamic_anchors.append((info, value))
            if isinstance(value, Schema):
                stack.append((raw.get(name), value, (*path, name), base))
            elif isinstance(value, tuple):
                raw_value = raw.get(name)
                for n, item in enumerate(value):
                    if isinstance(item, Schema) and isinstance(raw_value, list):
                        stack.append((raw_value[n], item, (*path, name, n), base))
                    elif isinstance(item, tuple) and isinstance(raw_value, dict):
                        key, child = item
                        if isinstance(child, Schema):
                            stack.append((raw_value.get(key), child, (*path, name, key), base))
    anchors: dict[str, dict[str, Schema]] = {}
    if refs:
        match _resolve(document, refs, by_raw):
            case Err(error):
                return Err(error)
            case Ok(names):
                for info, name in dynamic_anchors:
                    if name in names:
                        anchors.setdefault(info.resource, {}).setdefault(name, info.schema)
    return Ok(Plan(root, nodes, anchors, tree=not refs and visits == len(nodes)))


def _policy(name: str, value: object, path: Path, rules: Rules) -> LoadError | None:
    if name not in rules.supported:
        if name in rules.annotations or _keywords.keyword(name).role is Role.ANNOTATION:
            return None

        return LoadError(
            path,
            name,
            UnsupportedKeyword("unknown keywords are refused, since one may be a misspelled assertion"),
        )
    if name == "$schema" and isinstance(value, str) and _dialect_of(value) is not Dialect.DRAFT_2020_12:
        return LoadError(path, name, UnsupportedDialect())
    if name == "pattern" and isinstance(value, str):
        return _pattern_problem(value, path, name, rules.max_pattern_cost)
    if name == "patternProperties" and isinstance(value, tuple):
        for pattern, _ in value:
            problem = _pattern_problem(pattern, (*path, name, pattern), name, rules.max_pattern_cost)
            if problem is not None:
                return problem
    if name == "format" and rules.assert_formats and value not in rules.formats:
        return LoadError(path, name, UnknownFormat())
    return None


def _pattern_problem(pattern: str, path: Path, keyword: str, max_cost: int) -> LoadError | None:
    match compile_pattern(pattern):
        case Err(why):
            return LoadError(path, keyword, UnsupportedPattern(why))
    if pattern_cost(pattern) > max_cost:
        return LoadError(path, keyword, too_large("max_pattern_cost", max_cost))
    return None


def _resolve(
    document: Value, refs: list[tuple[Node, str, str]], by_raw: dict[int, Schema]
) -> Result[frozenset[str], LoadError]:
    """Point each reference at its node; ``Ok`` holds the anchor names ``$dynamicRef`` may use dynamically."""
    # Loaded here, not at import: only a document with references needs them (they cost ~20 ms to import).
    from urllib.parse import urldefrag, urljoin

    from referencing import Registry
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    registry = Registry().with_resource("", DRAFT202012.create_resource(document)).crawl()
    dynamic: set[str] = set()
    for info, keyword, ref in refs:
        try:
            uri, fragment = urldefrag(urljoin(info.resource, ref))
        except ValueError:
            return Err(LoadError(info.path, keyword, UnresolvableReference("it is not a URI reference")))
        if uri not in registry:
            return Err(LoadError(info.path, keyword, RemoteReference()))
        try:
            if fragment and not fragment.startswith("/"):
                contents = registry.anchor(uri, fragment).value.resource.contents
            else:
                contents = registry.resolver(info.resource).lookup(ref).contents
        except (Unresolvable, LookupError, ValueError, TypeError):
            return Err(LoadError(info.path, keyword, UnresolvableReference("no such place in the document")))
        if contents is True or contents is False:
            target = _TRUE if contents else _FALSE
        else:
            found = by_raw.get(id(contents))
            if found is None:
                return Err(
                    LoadError(info.path, keyword, UnresolvableReference("it does not point at a schema"))
                )
            target = found
        if keyword == "$ref":
            info.ref = target
        else:
            info.dynamic_ref = target
            if fragment and not fragment.startswith("/") and target.get("$dynamicAnchor") == fragment:
                info.dynamic_name = fragment
                dynamic.add(fragment)
    return Ok(frozenset(dynamic))
