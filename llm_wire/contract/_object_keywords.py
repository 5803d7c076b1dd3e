"""
Keyword compilers for objects: ``properties`` with ``required``, ``patternProperties`` and
``additionalProperties`` (one pass over the members), ``propertyNames``, ``minProperties``/``maxProperties``,
``dependentRequired`` and ``dependentSchemas``. ``_keywords`` puts them in the table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llm_wire._regex import compile_pattern
from llm_wire.contract._checks import Check, Fail, Out, Res, more
from llm_wire.contract._compile import Compiler, Rule
from llm_wire.contract._errors import Hidden, failure
from llm_wire.contract._reasons import (
    InvalidPropertyName,
    MissingDependency,
    TooFewProperties,
    TooManyProperties,
    UnsupportedPattern,
)
from llm_wire.reasons import (
    MissingProperty,
    UnexpectedProperty,
)
from llm_wire.result import Err, Ok
from llm_wire.schema import Schema

__all__ = [
    "dependentRequired",
    "dependentSchemas",
    "maxProperties",
    "minProperties",
    "predicate",
    "properties",
    "propertyNames",
]

# Their places in the documented order of checks within one node (see ``_keywords``).
_O_MIN_PROPERTIES, _O_MAX_PROPERTIES, _O_MEMBERS = 50, 51, 52
_O_NAMES, _O_DEP_REQUIRED, _O_DEP_SCHEMAS = 53, 54, 55


def predicate(c: Compiler, keyword: str, pattern: str) -> Callable[[str], bool]:
    """The search for a pattern that load already accepted (else the compile is refused)."""
    match compile_pattern(pattern):
        case Ok(search):
            return search
        case Err(why):
            raise c.refuse(keyword, UnsupportedPattern(why))


def minProperties(c: Compiler, node: Schema, n: int) -> list[Rule]:
    reason = TooFewProperties(n)

    def check(v: Any, out: Out) -> Res:
        return failure(reason) if len(v) < n else None

    return [Rule(_O_MIN_PROPERTIES, (dict,), check)]


def maxProperties(c: Compiler, node: Schema, n: int) -> list[Rule]:
    reason = TooManyProperties(n)

    def check(v: Any, out: Out) -> Res:
        return failure(reason) if len(v) > n else None

    return [Rule(_O_MAX_PROPERTIES, (dict,), check)]


_ABSENT: Any = object()
_MISSING = MissingProperty()


def properties(c: Compiler, node: Schema, value: Any) -> list[Rule]:
    """``properties``, ``required``, ``patternProperties`` and ``additionalProperties``, in one walk."""
    get: Callable[[str], Any] = node.get  # the node was checked: each keyword has its shape
    sub_or_none = c.sub_or_none
    declared_pairs: tuple[tuple[str, Schema], ...] = get("properties") or ()
    required: list[str] = get("required") or []
    pattern_pairs: tuple[tuple[str, Schema], ...] = get("patternProperties") or ()
    additional = get("additionalProperties")
    wanted = frozenset(required)
    declared = tuple([(name, sub_or_none(s), name in wanted) for name, s in declared_pairs])
    declared_names = tuple([name for name, _ in declared_pairs])
    names = frozenset(declared_names)
    others = tuple([name for name in dict.fromkeys(required) if name not in names])
    patterns = tuple(
        [(predicate(c, "patternProperties", source), sub_or_none(s)) for source, s in pattern_pairs]
    )
    closed = isinstance(additional, Schema) and additional.boolean is False
    extra = sub_or_none(additional) if isinstance(additional, Schema) and not closed else None
    unexpected = UnexpectedProperty(declared_names)
    members = declared or others
    if not members and not patterns and not closed and extra is None:
        return []

    def walk(v: Any, out: Out) -> Res:
        acc: list[Fail] | None = None
        get = v.get
        for name, sub, needed in declared:
            x = get(name, _ABSENT)
            if x is _ABSENT:
                if needed:
                    found: Res = failure(_MISSING)
                    found.rpath.append(name)  # type: ignore[union-attr]
                    if out is None:
                        return found
                    acc = more(acc, found, None, out)  # type: ignore[arg-type]
                    if out.left <= 0:
                        return acc
            elif sub is not None:
                found = sub(x, out)
                if found is not None:
                    if out is None:
                        found.rpath.append(name)  # type: ignore[union-attr]
                        return found
                    acc = more(acc, found, name, out)
                    if out.left <= 0:
                        return acc
        for name in others:
            if name not in v:
                found = failure(_MISSING)
                found.rpath.append(name)
                if out is None:
                    return found
                acc = more(acc, found, None, out)
                if out.left <= 0:
                    return acc
        if patterns or ((closed or extra is not None) and not v.keys() <= names):
            for k, x in v.items():
                known = k in names
                matched = False
                for search, sub in patterns:
                    if k.__class__ is str and search(k):
                        matched = True
                        if sub is not None:
                            found = sub(x, out)
                            if found is not None:
                                segment = k if known else Hidden((k,))
                                if out is None:
                                    found.rpath.append(segment)  # type: ignore[union-attr]
                                    return found
                                acc = more(acc, found, segment, out)
                                if out.left <= 0:
                                    return acc
                if known or matched:
                    continue
                if closed:
                    found = failure(unexpected)
                elif extra is not None:
                    found = extra(x, out)
                    if found is None:
                        continue
                else:
                    continue
                if out is None:
                    found.rpath.append(Hidden((k,)))  # type: ignore[union-attr]
                    return found
                acc = more(acc, found, Hidden((k,)), out)
                if out.left <= 0:
                    return acc
        return acc

    if patterns:
        return [Rule(_O_MEMBERS, (dict,), walk)]
    # Without patterns, the first failure in the documented order comes from one pass over the members
    # present (each checked at most once), ranking failures: declared index, then other required names,
    # then unknown members in input order. Valid objects pay for their members, not for the declaration.
    # A member whose schema only tests the class is checked inline (``accepts``), without a call.
    table = {name: (n, sub) for n, (name, sub, _) in enumerate(declared)}
    lookup = table.get
    plain = {name: classes for name, sub, _ in declared if (classes := c.accepted(sub)) is not None}
    plain_classes = plain.get
    needed_ranked = tuple(name for name, _, needed in declared if needed)
    needed_all = frozenset(needed_ranked).union(others)
    others_base = len(declared)
    extra_base = others_base + len(others)
    unbounded = extra_base + 1
    fallback: list[Check] = [walk]

    def first(v: Any, out: Out) -> Res:
        if v.__class__ is not dict:
            return fallback[0](v, out)
        if out is not None:
            return walk(v, out)
        best: Fail | None = None
        rank = unbounded
        if not v.keys() >= needed_all:
            for name in needed_ranked:
                if name not in v:
                    best = failure(_MISSING)
                    best.rpath.append(name)
                    rank = table[name][0]
                    break
            if best is None:
                for j, name in enumerate(others):
                    if name not in v:
                        best = failure(_MISSING)
                        best.rpath.append(name)
                        rank = others_base + j
                        break
            if not rank:
                return best
        for k, x in v.items():
            fast = plain_classes(k)
            if fast is not None:
                cls = x.__class__
                if cls in fast or (cls is str and x in fast):
                    continue
            entry = lookup(k)
            if entry is None:
                if rank <= extra_base:
                    continue
                if closed:
                    found: Res = failure(unexpected)
                elif extra is not None:
                    found = extra(x, None)
                    if found is None:
                        continue
                else:
                    continue
                found.rpath.append(Hidden((k,)))  # type: ignore[union-attr]
                best, rank = found, extra_base  # type: ignore[assignment]
                continue
            index, sub = entry
            if sub is None or index >= rank:
                continue
            found = sub(x, None)
            if found is not None:
                found.rpath.append(k)  # type: ignore[union-attr]
                best, rank = found, index  # type: ignore[assignment]
                if not index:
                    break  # nothing ranks before the first declared property
        return best

    return [Rule(_O_MEMBERS, (dict,), first, fallback)]


def propertyNames(c: Compiler, node: Schema, schema: Schema) -> list[Rule]:
    if schema.boolean is True:
        return []
    sub = c.sub(schema)

    def check(v: Any, out: Out) -> Res:
        acc: list[Fail] | None = None
        for k in v:
            found = sub(k, None)
            if found is not None:
                named = failure(InvalidPropertyName(found.reason))  # type: ignore[union-attr]
                named.rpath.append(Hidden((k,)))
                if out is None:
                    return named
                acc = more(acc, named, None, out)
                if out.left <= 0:
                    return acc
        return acc

    return [Rule(_O_NAMES, (dict,), check)]


def dependentRequired(c: Compiler, node: Schema, value: Any) -> list[Rule]:
    dependencies = tuple(
        (trigger, MissingDependency(trigger), tuple(names)) for trigger, names in value.items()
    )

    def check(v: Any, out: Out) -> Res:
        acc: list[Fail] | None = None
        for trigger, reason, names in dependencies:
            if trigger in v:
                for name in names:
                    if name not in v:
                        found = failure(reason)
                        found.rpath.append(name)
                        if out is None:
                            return found
                        acc = more(acc, found, None, out)
                        if out.left <= 0:
                            return acc
        return acc

    return [Rule(_O_DEP_REQUIRED, (dict,), check)]


def dependentSchemas(c: Compiler, node: Schema, value: Any) -> list[Rule]:
    dependencies = tuple((trigger, c.sub(s)) for trigger, s in value if s.boolean is not True)
    if not dependencies:
        return []

    def check(v: Any, out: Out) -> Res:
        acc: list[Fail] | None = None
        for trigger, sub in dependencies:
            if trigger in v:
                found = sub(v, out)
                if found is not None:
                    if out is None:
                        return found
                    acc = more(acc, found, None, out)
                    if out.left <= 0:
                        return acc
        return acc

    return [Rule(_O_DEP_SCHEMAS, (dict,), check)]
