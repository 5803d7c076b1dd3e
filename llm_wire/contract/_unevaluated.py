"""
``unevaluatedProperties`` and ``unevaluatedItems``: which members and items the in-place subschemas that hold
have evaluated (their annotations), computed by functions compiled once per node, next to its check.
"""

from __future__ import annotations

from typing import Any

from llm_wire._regex import compile_pattern
from llm_wire.contract._checks import Check, Fail, Out, Res, accept, more, reject
from llm_wire.contract._compile import ALL, Compiler, EvaluatedFn, Key, Rule
from llm_wire.contract._errors import Hidden, failure
from llm_wire.contract._reasons import UnexpectedItem
from llm_wire.reasons import (
    UnexpectedProperty,
)
from llm_wire.result import Ok
from llm_wire.schema import Schema

__all__ = ["unevaluatedItems", "unevaluatedProperties"]

_O_UNEVALUATED_ITEMS, _O_UNEVALUATED_PROPERTIES = 70, 71


def _get(node: Schema, name: str) -> Any:
    return node.get(name)


def unevaluatedProperties(c: Compiler, node: Schema, schema: Schema) -> list[Rule]:
    if schema.boolean is True:
        return []
    evaluated = _evaluated(c, c.key, props=True, outer=True)
    sub = None if schema.boolean is False else c.sub(schema)
    unexpected = UnexpectedProperty()

    def check(v: Any, out: Out) -> Res:
        seen = evaluated(v)
        if seen is ALL:
            return None
        acc: list[Fail] | None = None
        for k, x in v.items():
            if k in seen:
                continue
            found = failure(unexpected) if sub is None else sub(x, out)
            if found is not None:
                if out is None:
                    found.rpath.append(Hidden((k,)))  # type: ignore[union-attr]
                    return found
                acc = more(acc, found, Hidden((k,)), out)
                if out.left <= 0:
                    return acc
        return acc

    return [Rule(_O_UNEVALUATED_PROPERTIES, (dict,), check)]


def unevaluatedItems(c: Compiler, node: Schema, schema: Schema) -> list[Rule]:
    if schema.boolean is True:
        return []
    evaluated = _evaluated(c, c.key, props=False, outer=True)
    sub = None if schema.boolean is False else c.sub(schema)
    unexpected = UnexpectedItem()

    def check(v: Any, out: Out) -> Res:
        seen = evaluated(v)
        if seen is ALL:
            return None
        acc: list[Fail] | None = None
        for i, x in enumerate(v):
            if i in seen:
                continue
            found = failure(unexpected) if sub is None else sub(x, out)
            if found is not None:
                if out is None:
                    found.rpath.append(i)  # type: ignore[union-attr]
                    return found
                acc = more(acc, found, i, out)
                if out.left <= 0:
                    return acc
        return acc

    return [Rule(_O_UNEVALUATED_ITEMS, (list,), check)]


def _evaluated(c: Compiler, key: Key, *, props: bool, outer: bool = False) -> EvaluatedFn:
    """
    For the node at ``key``, a function from a value (that the node accepts) to the set of member names
    (``props``) or item indexes it evaluated, or ``ALL``. ``outer`` leaves out the node's own unevaluated*.
    """
    fns = c.props_fns if props else c.items_fns
    if not outer and key in fns:
        return fns[key]
    first = _evaluated_one(c, key, props=props, outer=outer)
    todo = [k for k in first[1] if k not in fns]
    while todo:
        child = todo.pop()
        if child in fns:
            continue
        fn, more = _evaluated_one(c, child, props=props, outer=False)
        fns[child] = c.memo_fn(child, fn, props)
        todo.extend(k for k in more if k not in fns)
    if not outer:
        fns[key] = c.memo_fn(key, first[0], props)
        return fns[key]
    return first[0]


def _evaluated_one(c: Compiler, key: Key, *, props: bool, outer: bool) -> tuple[EvaluatedFn, list[Key]]:
    info = c.plan.nodes[key[0]]
    node, ctx = info.schema, key[1]
    everything = ("additionalProperties",) if props else ("items",)
    own = "unevaluatedProperties" if props else "unevaluatedItems"
    if any(k in node for k in everything) or (not outer and own in node):
        return (lambda v: ALL), []
    fns = c.props_fns if props else c.items_fns

    def keyed(schema: Schema) -> tuple[Check, Key] | None:
        if schema.boolean is not None:
            return None  # true evaluates nothing, false never holds
        k = c.child_key(schema, ctx)
        return c.check_of(k), k

    # In-place subschemas whose annotations count when they hold: (check, key) pairs.
    conditional: list[tuple[Check, Key]] = []
    for keyword in ("allOf", "anyOf", "oneOf"):
        for s in _get(node, keyword) or ():
            found = keyed(s)
            if found is not None:
                conditional.append(found)
    for target in (info.ref, c.dynamic_target(info, ctx)):
        if target is not None:
            found = keyed(target)
            if found is not None:
                conditional.append(found)
    # dependentSchemas applies to objects only: it never evaluates an array's items.
    dependents = [
        (trigger, found)
        for trigger, s in (_get(node, "dependentSchemas") or () if props else ())
        if (found := keyed(s)) is not None
    ]
    branch: tuple[Check, Key | None, Key | None, Key | None] | None = None
    condition = _get(node, "if")
    if isinstance(condition, Schema) and condition.boolean is None:
        test = c.check_of(c.child_key(condition, ctx))
        then_s, else_s = _get(node, "then"), _get(node, "else")
        then_k = keyed(then_s) if isinstance(then_s, Schema) else None
        else_k = keyed(else_s) if isinstance(else_s, Schema) else None
        branch = (
            test,
            c.child_key(condition, ctx),
            then_k[1] if then_k else None,
            else_k[1] if else_k else None,
        )
    elif isinstance(condition, Schema) and condition.boolean is True:
        then_s = _get(node, "then")
        then_k = keyed(then_s) if isinstance(then_s, Schema) else None
        if then_k is not None:
            conditional.append(then_k)
    elif isinstance(condition, Schema):
        else_s = _get(node, "else")
        else_k = keyed(else_s) if isinstance(else_s, Schema) else None
        if else_k is not None:
            conditional.append(else_k)
    children = [k for _, k in conditional] + [k for _, (_, k) in dependents]
    if branch is not None:
        children.extend(k for k in branch[1:] if k is not None)

    if props:
        names = frozenset(name for name, _ in _get(node, "properties") or ())
        searches = tuple(_search(p) for p, _ in _get(node, "patternProperties") or ())

        def own_part(v: Any) -> set[Any]:
            found = {k for k in v if k in names}
            if searches:
                found.update(k for k in v if k.__class__ is str and any(s(k) for s in searches))
            return found

    else:
        prefix = len(_get(node, "prefixItems") or ())
        contained = _get(node, "contains")
        matches = None
        if isinstance(contained, Schema):
            found_key = keyed(contained)
            matches = found_key[0] if found_key else (accept if contained.boolean else reject)

        def own_part(v: Any) -> set[Any]:
            found = set(range(min(prefix, len(v))))
            if matches is not None:
                found.update(i for i, x in enumerate(v) if matches(x, None) is None)
            return found

    def evaluated(v: Any) -> Any:
        found = own_part(v)
        for check, k in conditional:
            if check(v, None) is None:
                more = fns[k](v)
                if more is ALL:
                    return ALL
                found |= more
        for trigger, (check, k) in dependents:
            if trigger in v and check(v, None) is None:
                more = fns[k](v)
                if more is ALL:
                    return ALL
                found |= more
        if branch is not None:
            test, if_key, then_key, else_key = branch
            held = test(v, None) is None
            picked: list[Key | None] = [if_key, then_key] if held else [else_key]
            for target in picked:
                if target is None:
                    continue
                if target is not if_key and c.check_of(target)(v, None) is not None:
                    continue
                more = fns[target](v)
                if more is ALL:
                    return ALL
                found |= more
        return found

    return evaluated, children


#: Every keyword this contract understands, with its compiler. Annotations compile to nothing.


def _search(pattern: str) -> Any:
    compiled = compile_pattern(pattern)
    assert isinstance(compiled, Ok), "patterns are checked at load"
    return compiled.value
