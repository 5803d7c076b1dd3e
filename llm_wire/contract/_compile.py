"""
Compiling a checked schema (a ``Plan``) into validator closures, once per contract.

Every keyword has a compiler in a table (``_keywords.KEYWORDS``), named after it; keywords that only mean
something together, such as ``properties``/``required``/``additionalProperties``, share one. A keyword
without a compiler never reaches this module: the document was refused. Each schema node becomes one
closure that dispatches on the value's Python class, so a value pays only for the keywords of its type.

A plan that is a tree (no reference, no node reached twice; most tool schemas) is compiled bottom-up in one
pass: without references there is no loop, chain or shared node to look for.

``$dynamicRef`` is resolved at compile time: a node is compiled once per *dynamic context* (for each dynamic
anchor name that can matter, the outermost resource in scope that defines it), which is exactly what the
dynamic scope decides at run time.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from operator import attrgetter
from typing import Any, TypeAlias

from llm_wire.contract._checks import (
    NOT_JSON,
    Check,
    Fail,
    Memo,
    Out,
    Res,
    accept,
    is_integral,
    memoized,
    more,
    normalize,
    reject,
    sharing,
)
from llm_wire.contract._errors import LoadError, failure, too_large
from llm_wire.contract._load import Node, Plan
from llm_wire.contract._reasons import InvalidShape, NotJsonValue, ReferenceLoop
from llm_wire.reasons import WrongType
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import Schema

__all__ = [
    "ALL",
    "Compiler",
    "EvaluatedFn",
    "Key",
    "KeywordCompiler",
    "Refuse",
    "Rule",
    "compile_plan",
    "plain_plan",
]

#: The ``(node id, dynamic context)`` a closure is compiled for.
Key: TypeAlias = tuple[int, tuple[tuple[str, int], ...]]
_NONE_TYPE = type(None)


class Refuse(Exception):
    """Raised by a keyword compiler that finds what it cannot honour; carries the ``LoadError``."""

    def __init__(self, error: LoadError) -> None:
        self.error = error


class Rule:
    """One compiled keyword: where it sits in the documented order, which classes it applies to, its check."""

    __slots__ = ("check", "fallback", "kinds", "order")

    def __init__(
        self, order: int, kinds: tuple[type, ...] | None, check: Check, fallback: list[Check] | None = None
    ) -> None:
        self.order = order
        self.kinds = kinds
        self.check = check
        #: For a check that tests the value's class itself: where to send other classes. A node whose only
        #: rule has one can be that check, one call less on the hot path.
        self.fallback = fallback


_NUMBERS = (int, Decimal)
#: The places of ``$ref``, ``$dynamicRef`` and ``allOf``: a node with only one of them is that check.
_PASS_THROUGH = frozenset({60, 61, 62})
_IN_PLACE = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"})
_DESCENDING = frozenset(
    {"properties", "patternProperties", "additionalProperties", "propertyNames", "items", "prefixItems"}
    | {"contains", "unevaluatedItems", "unevaluatedProperties"}
)
_EDGES = _IN_PLACE | _DESCENDING
_CLASSES: dict[str, tuple[type, ...]] = {
    "null": (_NONE_TYPE,),
    "boolean": (bool,),
    "string": (str,),
    "array": (list,),
    "object": (dict,),
    "number": (int, Decimal),
    "integer": (int, Decimal),
}
_ALL_CLASSES = (_NONE_TYPE, bool, str, list, dict, int, Decimal)
_JSON_CLASSES = frozenset(_ALL_CLASSES)
ALL: Any = object()  # "every member / item was evaluated"
EvaluatedFn: TypeAlias = Callable[[Any], Any]
#: A keyword's compiler: the rules of one keyword (or keyword group) of one node.
KeywordCompiler: TypeAlias = Callable[["Compiler", Schema, Any], "list[Rule]"]


class Compiler:
    """
    One compilation: the graph of (node, dynamic context) keys, their checks, and what keyword compilers ask
    for while a node is assembled (``sub``, ``accepted``, ``refuse``).
    """

    def __init__(
        self,
        plan: Plan,
        keywords: Mapping[str, KeywordCompiler | None],
        assert_formats: bool,
        memo: Memo | None = None,
    ) -> None:
        self.plan = plan
        self.keywords = keywords
        self.assert_formats = assert_formats
        self.graph: dict[Key, list[tuple[Key, bool, bool]]] = {}
        self.checks: dict[Key, Check] = {}
        self.visiting: set[Key] = set()
        self.cells: dict[Key, list[Check]] = {}
        self.props_fns: dict[Key, EvaluatedFn] = {}
        self.items_fns: dict[Key, EvaluatedFn] = {}
        self.key: Key = (0, ())
        self.accepts: dict[int, frozenset[Any]] = {}
        self.extended: dict[tuple[tuple[tuple[str, int], ...], str], tuple[tuple[str, int], ...]] = {}
        #: Keys reached along several edges, with children: their results are shared within a validation.
        self.shared: dict[Key, int] = {}
        self.memo = Memo() if memo is None else memo

    # Keys and edges -------------------------------------------------------------------------------------

    def info(self, node: Schema) -> Node:
        return self.plan.nodes[id(node)]

    def child_key(self, node: Schema, ctx: tuple[tuple[str, int], ...]) -> Key:
        resource = self.plan.nodes[id(node)].resource
        anchors = self.plan.anchors.get(resource)
        if anchors:
            memo = (ctx, resource)
            found = self.extended.get(memo)
            if found is None:
                scope = dict(ctx)
                for name, target in anchors.items():
                    scope.setdefault(name, id(target))
                found = self.extended[memo] = tuple(sorted(scope.items()))
            ctx = found
        return (id(node), ctx)

    def dynamic_target(self, info: Node, ctx: tuple[tuple[str, int], ...]) -> Schema | None:
        if info.dynamic_name is not None:
            for name, target in ctx:
                if name == info.dynamic_name:
                    return self.plan.nodes[target].schema
        return info.dynamic_ref

    def edges(self, key: Key) -> list[tuple[Key, bool, bool]]:
        info = self.plan.nodes[key[0]]
        ctx = key[1]
        out: list[tuple[Key, bool, bool]] = []
        for name, value in info.schema.keywords:
            if name in _EDGES:
                in_place = name in _IN_PLACE
                out.extend((self.child_key(child, ctx), in_place, False) for child in _subschemas(value))
        targets = (info.ref, self.dynamic_target(info, ctx))
        out.extend((self.child_key(t, ctx), True, True) for t in targets if t and t.boolean is None)
        return out

    def discover(self, root: Key, max_nodes: int) -> None:
        """Every key reachable from ``root`` and its edges; dynamic contexts may multiply nodes, boundedly."""
        max_keys = 4 * max_nodes
        todo = [root]
        self.graph[root] = []
        while todo:
            key = todo.pop()
            edges = self.graph[key] = self.edges(key)
            for child, _, _ in edges:
                if child not in self.graph:
                    self.graph[child] = []
                    todo.append(child)
                    if len(self.graph) > max_keys:
                        path = self.plan.nodes[child[0]].path
                        raise Refuse(LoadError(path, None, too_large("max_nodes", max_nodes)))

    def check_in_place(self, max_ref_depth: int) -> None:
        """Refuse references that loop without descending, and in-place reference chains that are too long."""
        incoming = dict.fromkeys(self.graph, 0)
        for edges in self.graph.values():
            for child, in_place, _ in edges:
                if in_place:
                    incoming[child] += 1
        ready = [key for key, n in incoming.items() if n == 0]
        depth = dict.fromkeys(self.graph, 0)
        done = 0
        while ready:
            key = ready.pop()
            done += 1
            for child, in_place, is_ref in self.graph[key]:
                if not in_place:
                    continue
                depth[child] = max(depth[child], depth[key] + is_ref)
                if depth[child] > max_ref_depth:
                    path = self.plan.nodes[key[0]].path
                    raise Refuse(LoadError(path, "$ref", too_large("max_ref_depth", max_ref_depth)))
                incoming[child] -= 1
                if incoming[child] == 0:
                    ready.append(child)
        if done < len(self.graph):
            looping = [key for key, n in incoming.items() if n > 0]
            for key in looping:
                info = self.plan.nodes[key[0]]
                for keyword in ("$ref", "$dynamicRef"):
                    if keyword in info.schema:
                        raise Refuse(LoadError(info.path, keyword, ReferenceLoop()))
            raise Refuse(LoadError(self.plan.nodes[looping[0][0]].path, None, ReferenceLoop()))

    def find_shared(self) -> None:
        """The keys whose results ``_memoized`` shares: more than one way in, and some work below."""
        incoming = dict.fromkeys(self.graph, 0)
        for edges in self.graph.values():
            for child, _, _ in edges:
                incoming[child] += 1
        for key, n in incoming.items():
            if n > 1 and self.graph[key]:
                self.shared[key] = len(self.shared)

    def memo_fn(self, key: Key, fn: EvaluatedFn, props: bool) -> EvaluatedFn:
        """An ``unevaluated*`` annotation function of a shared key, sharing its results like its check."""
        slot = self.shared.get(key)
        if slot is None:
            return fn
        slot = -2 * slot - (2 if props else 1)
        memo = self.memo

        def memoized(v: Any) -> Any:
            table = memo.table
            if table is None:
                return fn(v)
            k = (slot, id(v))
            hit = table.get(k)
            if hit is not None and hit[0] is v:
                return hit[1]
            memo.computed += 1
            found = table[k] = (v, fn(v))
            return found[1]

        return memoized

    def assemble_tree(self, root: Schema) -> Check:
        """
        The check of a tree's root (no reference, no node reached twice): the graph is the tree, every node
        has one way in and one dynamic context, so there is no loop, chain of references or sharing to find,
        and each node is assembled after every node below it (``check_of`` never needs a cell).
        """
        order: list[Key] = []
        stack = [root]
        while stack:
            node = stack.pop()
            order.append((id(node), ()))
            for name, value in node.keywords:
                if name in _EDGES:
                    stack.extend(_subschemas(value))
        checks = self.checks
        for key in reversed(order):
            checks[key] = self.assemble(key)
        return checks[order[0]]

    def assemble_all(self, root: Key) -> Check:
        stack: list[tuple[Key, bool]] = [(root, False)]
        while stack:
            key, expanded = stack.pop()
            if expanded:
                check = self.assemble(key)
                if key in self.shared:
                    check = memoized(check, self.shared[key], self.memo)
                self.checks[key] = check
                self.visiting.discard(key)
                if key in self.cells:
                    self.cells[key][0] = check
                continue
            if key in self.checks or key in self.visiting:
                continue
            self.visiting.add(key)
            stack.append((key, True))
            stack.extend((child, False) for child, _, _ in reversed(self.graph[key]))
        return self.checks[root]

    def check_of(self, key: Key) -> Check:
        found = self.checks.get(key)
        if found is not None:
            return found
        # Not compiled yet: an ancestor, or a later sibling that ``unevaluated*`` reaches through a reference
        # back up. Every key of the graph is compiled before validation starts, filling the cell.
        assert key in self.graph, "a compiler asked for a subschema outside the graph"
        cell = self.cells.setdefault(key, [reject])

        def later(v: Any, out: Out) -> Res:
            return cell[0](v, out)

        return later

    # Helpers for keyword compilers -------------------------------------------------------------------------

    def sub(self, node: Schema) -> Check:
        """The check of a subschema of the node being compiled."""
        if node.boolean is not None:
            return accept if node.boolean else reject
        if self.plan.anchors:
            return self.check_of(self.child_key(node, self.key[1]))
        key = (id(node), self.key[1])  # no dynamic anchor: a child's context is its parent's
        return self.checks.get(key) or self.check_of(key)

    def sub_or_none(self, node: Schema) -> Check | None:
        """Like ``sub``, but ``None`` for ``true`` (nothing to check)."""
        return None if node.boolean is True else self.sub(node)

    def refuse(self, keyword: str, error: Any) -> Refuse:
        return Refuse(LoadError(self.plan.nodes[self.key[0]].path, keyword, error))

    # Assembly of one node ----------------------------------------------------------------------------------

    def assemble(self, key: Key) -> Check:
        self.key = key
        node = self.plan.nodes[key[0]].schema
        rules: list[Rule] = []
        seen: set[object] = set()
        for name, value in node.keywords:
            compiler = self.keywords.get(name)
            if compiler is None or compiler in seen:
                continue  # an annotation, or a keyword whose group already ran
            seen.add(compiler)
            try:
                rules.extend(compiler(self, node, value))
            except RecursionError:  # a JSON value (const, enum) built in code, nested beyond the stack
                raise self.refuse(name, InvalidShape("holds a value nested too deeply")) from None
        declared = node.get("type")
        if declared is None:
            names: tuple[str, ...] = ()
        else:
            names = (declared,) if isinstance(declared, str) else tuple(declared)  # type: ignore[arg-type]
        if not rules:  # e.g. {"type": "string", "description": ...}: one shared check per type list
            found = _PLAIN_NODES.get(names)
            if found is None:
                found = _PLAIN_NODES[names] = _dispatch(names, rules, _nothing_accepted)
        else:
            if len(rules) > 1:
                rules.sort(key=_ORDER)
            if declared is None and len(rules) == 1 and rules[0].order in _PASS_THROUGH:
                return rules[0].check  # e.g. a node that is only a $ref: no extra frame, its target checks
            found = _dispatch(names, rules, self.accepted)
        check, accepted = found
        if accepted is not None:
            self.accept(check, accepted)
        return check

    def accept(self, check: Check, accepted: frozenset[Any]) -> None:
        """
        Note that ``check`` accepts, as they are, every value whose class is in ``accepted`` and every
        string in ``accepted`` (callers test ``cls in s or cls is str and v in s``) and only checks others.
        """
        self.accepts[id(check)] = accepted

    def accepted(self, check: Check | None) -> frozenset[Any] | None:
        """What ``accept`` noted for ``check``, if anything."""
        return None if check is None else self.accepts.get(id(check))


_ORDER = attrgetter("order")
#: The check of a node without rules, by its type names (a bounded set: unique names of seven types).
_PLAIN_NODES: dict[tuple[str, ...], tuple[Check, frozenset[Any] | None]] = {}
#: What a list of type names dispatches on: the classes, the failure of others, whether only integers pass.
_TYPE_NAMES: dict[tuple[str, ...], tuple[tuple[type, ...], WrongType, bool]] = {}


def _nothing_accepted(check: Check | None) -> None:
    return None


def _dispatch(
    names: tuple[str, ...], rules: list[Rule], accepted_of: Callable[[Check | None], frozenset[Any] | None]
) -> tuple[Check, frozenset[Any] | None]:
    """
    The check of a node with type ``names`` and ``rules`` (in order), dispatching on the value's class, and
    what it accepts as it is (``Compiler.accept``), if that can be said.
    """
    found = _TYPE_NAMES.get(names)
    if found is None:
        classes = tuple(dict.fromkeys(c for name in names for c in _CLASSES[name])) or _ALL_CLASSES
        found = _TYPE_NAMES[names] = (classes, WrongType(names), "integer" in names and "number" not in names)
    classes, wrong, integral_only = found
    table: dict[type, tuple[Check, ...]] = {}
    for cls in classes:
        checks = [rule.check for rule in rules if rule.kinds is None or cls in rule.kinds]
        if cls is Decimal and integral_only:
            checks.insert(0, _integral(wrong))
        if cls is Decimal and (checks or names):
            checks = [_finite_then(tuple(checks))]  # NaN and infinities are no JSON numbers
        table[cls] = tuple(checks)
    final: list[weakref.ref[Check]] = []
    slow = _slow(wrong, final)
    if len(rules) == 1 and rules[0].fallback is not None and len(table) == 1 and rules[0].kinds == classes:
        rules[0].fallback[0] = slow
        final.append(weakref.ref(rules[0].check))
        return rules[0].check, None
    check = _specialised(table, slow)
    final.append(weakref.ref(check))
    if not any(table.values()):
        return check, frozenset(table)
    if classes == (str,) and len(table[str]) == 1:
        strings = accepted_of(table[str][0])  # e.g. {"type": "string", "enum": [...]}
        if strings is not None and all(isinstance(x, str) for x in strings):
            return check, strings
    return check, None


def _integral(wrong: WrongType) -> Check:
    def integral(v: Any, out: Out) -> Res:
        return None if is_integral(v) else failure(wrong)

    return integral


def _subschemas(value: object) -> Iterable[Schema]:
    if isinstance(value, Schema):
        if value.boolean is None:
            yield value
    elif isinstance(value, tuple):
        for item in value:
            if isinstance(item, tuple) and len(item) == 2:
                item = item[1]
            if isinstance(item, Schema) and item.boolean is None:
                yield item


_NOT_JSON_VALUE = NotJsonValue()


def _finite_then(checks: tuple[Check, ...]) -> Check:
    """A node's checks of a ``Decimal``, run only on a finite one (else that one failure)."""

    def finite_then(v: Any, out: Out) -> Res:
        if not v.is_finite():
            return failure(_NOT_JSON_VALUE)
        acc: list[Fail] | None = None
        for check in checks:
            found = check(v, out)
            if found is not None:
                if out is None:
                    return found
                acc = more(acc, found, None, out)
                if out.left <= 0:
                    return acc
        return acc

    return finite_then


def _slow(wrong: WrongType, final: list[weakref.ref[Check]]) -> Check:
    """
    What a node does with a class its table does not list: a type failure, or normalise and retry the node.

    The node's check is held weakly (``final``, set once it is made): it is running whenever this runs, and
    without a reference cycle a dropped contract is freed at once, not left to the garbage collector.
    """

    def slow(v: Any, out: Out) -> Res:
        if v.__class__ in _JSON_CLASSES:
            return failure(_NOT_JSON_VALUE if v.__class__ is Decimal and not v.is_finite() else wrong)
        normal = normalize(v)
        if normal is NOT_JSON:
            return failure(_NOT_JSON_VALUE)
        return final[0]()(normal, out)  # type: ignore[misc]  # alive: it called this

    return slow


def _specialised(table: dict[type, tuple[Check, ...]], slow: Check) -> Check:
    """The cheapest closure for a node's dispatch table (most nodes have one class or one check)."""
    variants = set(table.values())
    allowed = frozenset(table)
    only = next(iter(allowed)) if len(allowed) == 1 else None
    if len(variants) == 1 and not next(iter(variants)):
        if len(allowed) == len(_ALL_CLASSES):
            return accept

        def exactly(v: Any, out: Out) -> Res:
            return None if v.__class__ is only else slow(v, out)

        def among(v: Any, out: Out) -> Res:
            return None if v.__class__ in allowed else slow(v, out)

        return exactly if only is not None else among
    if len(variants) == 1 and len(next(iter(variants))) == 1:
        ((check,),) = variants

        def exactly_then(v: Any, out: Out) -> Res:
            return check(v, out) if v.__class__ is only else slow(v, out)

        def among_then(v: Any, out: Out) -> Res:
            return check(v, out) if v.__class__ in allowed else slow(v, out)

        return exactly_then if only is not None else among_then

    def node(v: Any, out: Out) -> Res:
        checks = table.get(v.__class__)
        if checks is None:
            return slow(v, out)
        acc: list[Fail] | None = None
        for check in checks:
            found = check(v, out)
            if found is not None:
                if out is None:
                    return found
                acc = more(acc, found, None, out)
                if out.left <= 0:
                    return acc
        return acc

    return node


def plain_plan(root: Schema) -> Plan:
    """
    The plan of a plain schema tree (``Plan.plain``) again, from its root: every node the compile reaches,
    without its path, which would only name a refusal, and a plain plan meets none.
    """
    nodes: dict[int, Node] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        nodes[id(node)] = Node(node, (), "")
        for name, value in node.keywords:
            if name in _EDGES:
                stack.extend(_subschemas(value))
    return Plan(root, nodes, {}, tree=True, plain=True)


def compile_plan(
    plan: Plan,
    keywords: Mapping[str, KeywordCompiler | None],
    *,
    assert_formats: bool,
    max_nodes: int,
    max_ref_depth: int,
    memo: Memo | None = None,
) -> Result[tuple[Check, Memo], LoadError]:
    """
    The compiled check of a plan's root and its memo (``memo`` when given); ``Err`` for references that
    loop or chain too deep.
    """
    root = plan.root
    if root.boolean is not None:
        return Ok((accept if root.boolean else reject, Memo() if memo is None else memo))
    compiler = Compiler(plan, keywords, assert_formats, memo)
    try:
        if plan.tree:
            return Ok((compiler.assemble_tree(root), compiler.memo))
        key = compiler.child_key(root, ())
        compiler.discover(key, max_nodes)
        compiler.check_in_place(max_ref_depth)
        compiler.find_shared()
        check = compiler.assemble_all(key)
        return Ok((sharing(check, compiler.memo) if compiler.shared else check, compiler.memo))
    except Refuse as refusal:
        return Err(refusal.error)
