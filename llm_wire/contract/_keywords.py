"""
The keyword table: one compiler per JSON Schema keyword, named after it, each turning a keyword of a node into
rules (checks) for ``_compile``. Annotations have no compiler (``None``); a keyword missing here is refused
at load.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from llm_wire.contract._checks import Fail, Out, Res, json_key, more
from llm_wire.contract._compile import Compiler, KeywordCompiler, Rule
from llm_wire.contract._errors import failure
from llm_wire.contract._formats import FORMATS
from llm_wire.contract._object_keywords import (
    dependentRequired,
    dependentSchemas,
    maxProperties,
    minProperties,
    predicate,
    properties,
    propertyNames,
)
from llm_wire.contract._reasons import (
    DuplicateItems,
    InvalidShape,
    MatchesNot,
    NoMatch,
    NotConst,
    SeveralMatch,
    TooFewMatches,
    TooManyMatches,
)
from llm_wire.contract._unevaluated import unevaluatedItems, unevaluatedProperties
from llm_wire.reasons import (
    AboveMaximum,
    BelowMinimum,
    FormatMismatch,
    NotInEnum,
    NotMultipleOf,
    PatternMismatch,
    TooFewItems,
    TooLong,
    TooManyItems,
    TooShort,
    WrongType,
)
from llm_wire.schema import Schema
from llm_wire.value import NotJson as _Unrenderable
from llm_wire.value import render

__all__ = ["KEYWORDS"]

_NUMBERS = (int, Decimal)


def _parts(n: int | Decimal) -> tuple[int, int]:
    """``(c, e)`` with ``n == c * 10**e`` and ``c >= 0``."""
    if isinstance(n, int):
        return abs(n), 0
    _, digits, exponent = n.as_tuple()
    assert isinstance(exponent, int)
    return int(Decimal((0, digits, 0))), exponent


def _is_multiple(v: int | Decimal, mc: int, me: int) -> bool:
    """Whether ``v`` is an integer multiple of ``mc * 10**me``, exactly, whatever the exponents."""
    c, e = _parts(v)
    if c == 0:
        return True
    k = e - me
    if k >= 0:
        return (c % mc) * pow(10, k, mc) % mc == 0
    if -k > c.bit_length():  # c < 2**bits <= 10**-k <= the divisor's scale: no multiple but 0
        return False
    return bool(c % (mc * 10**-k) == 0)


def _get(node: Schema, name: str) -> Any:
    """A keyword's value; the node was checked, so each keyword has its shape."""
    return node.get(name)


# The documented order of checks within one node.
_O_ENUM, _O_CONST = 10, 11
_O_MINIMUM, _O_EXCLUSIVE_MINIMUM, _O_MAXIMUM, _O_EXCLUSIVE_MAXIMUM, _O_MULTIPLE_OF = 20, 21, 22, 23, 24
_O_MIN_LENGTH, _O_MAX_LENGTH, _O_PATTERN, _O_FORMAT = 30, 31, 32, 33
_O_MIN_ITEMS, _O_MAX_ITEMS, _O_ITEMS, _O_CONTAINS, _O_UNIQUE = 40, 41, 42, 43, 44
# Objects take 50 to 55 (``_object_keywords``); unevaluated* take 70 and 71 (``_unevaluated``).
_O_REF, _O_DYNAMIC_REF, _O_ALL_OF, _O_ANY_OF, _O_ONE_OF, _O_NOT, _O_IF = 60, 61, 62, 63, 64, 65, 66


def _rendered(c: Compiler, keyword: str, value: Any) -> str:
    try:
        return render(value)
    except _Unrenderable as exc:
        raise c.refuse(keyword, InvalidShape("must hold JSON values")) from exc


def enum(c: Compiler, node: Schema, value: Any) -> list[Rule]:
    keys = frozenset(map(json_key, value))
    reason = NotInEnum(tuple(_rendered(c, "enum", item) for item in value))

    def check(v: Any, out: Out) -> Res:
        cls = v.__class__
        hit = v in keys if cls is str or cls is int or cls is Decimal or v is None else json_key(v) in keys
        return None if hit else failure(reason)

    if all(isinstance(item, str) for item in value):
        c.accept(check, frozenset(value))
    return [Rule(_O_ENUM, None, check)]


def const(c: Compiler, node: Schema, value: Any) -> list[Rule]:
    key = json_key(value)
    reason = NotConst(_rendered(c, "const", value))

    def check(v: Any, out: Out) -> Res:
        return None if json_key(v) == key else failure(reason)

    return [Rule(_O_CONST, None, check)]


def minimum(c: Compiler, node: Schema, limit: Any) -> list[Rule]:
    reason = BelowMinimum(limit)

    def check(v: Any, out: Out) -> Res:
        return failure(reason) if v < limit else None

    return [Rule(_O_MINIMUM, _NUMBERS, check)]


def exclusiveMinimum(c: Compiler, node: Schema, limit: Any) -> list[Rule]:
    reason = BelowMinimum(limit, exclusive=True)

    def check(v: Any, out: Out) -> Res:
        return failure(reason) if v <= limit else None

    return [Rule(_O_EXCLUSIVE_MINIMUM, _NUMBERS, check)]


def maximum(c: Compiler, node: Schema, limit: Any) -> list[Rule]:
    reason = AboveMaximum(limit)

    def check(v: Any, out: Out) -> Res:
        return failure(reason) if v > limit else None

    return [Rule(_O_MAXIMUM, _NUMBERS, check)]


def exclusiveMaximum(c: Compiler, node: Schema, limit: Any) -> list[Rule]:
    reason = AboveMaximum(limit, exclusive=True)

    def check(v: Any, out: Out) -> Res:
        return failure(reason) if v >= limit else None

    return [Rule(_O_EXCLUSIVE_MAXIMUM, _NUMBERS, check)]


def multipleOf(c: Compiler, node: Schema, divisor: Any) -> list[Rule]:
    reason = NotMultipleOf(divisor)
    mc, me = _parts(divisor)
    whole = divisor if isinstance(divisor, int) else None

    def check(v: Any, out: Out) -> Res:
        if whole is not None and v.__class__ is int:
            return None if v % whole == 0 else failure(reason)
        return None if _is_multiple(v, mc, me) else failure(reason)

    return [Rule(_O_MULTIPLE_OF, _NUMBERS, check)]


def minLength(c: Compiler, node: Schema, n: int) -> list[Rule]:
    reason = TooShort(n)

    def check(v: Any, out: Out) -> Res:
        return failure(reason) if len(v) < n else None

    return [Rule(_O_MIN_LENGTH, (str,), check)]


def maxLength(c: Compiler, node: Schema, n: int) -> list[Rule]:
    reason = TooLong(n)

    def check(v: Any, out: Out) -> Res:
        return failure(reason) if len(v) > n else None

    return [Rule(_O_MAX_LENGTH, (str,), check)]


def pattern(c: Compiler, node: Schema, source: str) -> list[Rule]:
    search = predicate(c, "pattern", source)
    reason = PatternMismatch(source)

    def check(v: Any, out: Out) -> Res:
        return None if search(v) else failure(reason)

    return [Rule(_O_PATTERN, (str,), check)]


def format(c: Compiler, node: Schema, name: str) -> list[Rule]:
    if not c.assert_formats:
        return []
    valid = FORMATS[name]
    reason = FormatMismatch(name)

    def check(v: Any, out: Out) -> Res:
        return None if valid(v) else failure(reason)

    return [Rule(_O_FORMAT, (str,), check)]


def minItems(c: Compiler, node: Schema, n: int) -> list[Rule]:
    reason = TooFewItems(n)

    def check(v: Any, out: Out) -> Res:
        return failure(reason) if len(v) < n else None

    return [Rule(_O_MIN_ITEMS, (list,), check)]


def maxItems(c: Compiler, node: Schema, n: int) -> list[Rule]:
    reason = TooManyItems(n)

    def check(v: Any, out: Out) -> Res:
        return failure(reason) if len(v) > n else None

    return [Rule(_O_MAX_ITEMS, (list,), check)]


def items(c: Compiler, node: Schema, value: Any) -> list[Rule]:
    """``prefixItems`` and ``items``."""
    prefix = tuple(c.sub_or_none(s) for s in _get(node, "prefixItems") or ())
    n = len(prefix)
    rest_schema = _get(node, "items")
    rest = None if not isinstance(rest_schema, Schema) else c.sub_or_none(rest_schema)
    closed = isinstance(rest_schema, Schema) and rest_schema.boolean is False
    too_many = TooManyItems(n)
    if rest is None and not any(prefix):
        return []
    fast = c.accepted(rest) if not closed else None

    def check(v: Any, out: Out) -> Res:
        acc: list[Fail] | None = None
        size = len(v)
        if fast is not None and not n:  # items that only need a class test: one pass, no calls
            for x in v:
                cls = x.__class__
                if not (cls in fast or (cls is str and x in fast)):
                    break
            else:
                return None
        for i in range(min(n, size)):
            sub = prefix[i]
            if sub is not None:
                found = sub(v[i], out)
                if found is not None:
                    if out is None:
                        found.rpath.append(i)  # type: ignore[union-attr]
                        return found
                    acc = more(acc, found, i, out)
                    if out.left <= 0:
                        return acc
        if closed:
            if size > n:
                found = failure(too_many)
                if out is None:
                    return found
                acc = more(acc, found, None, out)
        elif rest is not None:
            for i in range(n, size):
                found = rest(v[i], out)
                if found is not None:
                    if out is None:
                        found.rpath.append(i)  # type: ignore[union-attr]
                        return found
                    acc = more(acc, found, i, out)
                    if out.left <= 0:
                        return acc
        return acc

    return [Rule(_O_ITEMS, (list,), check)]


def contains(c: Compiler, node: Schema, value: Any) -> list[Rule]:
    """``contains`` with ``minContains`` and ``maxContains``."""
    schema = _get(node, "contains")
    if not isinstance(schema, Schema):
        return []  # minContains / maxContains without contains mean nothing
    sub = c.sub(schema)
    low = _get(node, "minContains")
    high = _get(node, "maxContains")
    least = 1 if low is None else int(low)
    most = None if high is None else int(high)
    too_few, too_many = TooFewMatches(least), TooManyMatches(most or 0)

    def check(v: Any, out: Out) -> Res:
        count = 0
        for x in v:
            if sub(x, None) is None:
                count += 1
                if most is None and count >= least:
                    return None
        if count < least:
            return failure(too_few)
        if most is not None and count > most:
            return failure(too_many)
        return None

    return [Rule(_O_CONTAINS, (list,), check)]


def uniqueItems(c: Compiler, node: Schema, value: Any) -> list[Rule]:
    if value is not True:
        return []

    def check(v: Any, out: Out) -> Res:
        if len(v) < 2:
            return None
        seen: dict[Any, int] = {}
        for i, x in enumerate(v):
            first = seen.setdefault(json_key(x), i)
            if first != i:
                return failure(DuplicateItems(first, i))
        return None

    return [Rule(_O_UNIQUE, (list,), check)]


def _in_place(order: int, target: Schema | None, c: Compiler) -> list[Rule]:
    if target is None or target.boolean is True:
        return []
    return [Rule(order, None, c.sub(target))]


def ref(c: Compiler, node: Schema, value: Any) -> list[Rule]:
    return _in_place(_O_REF, c.info(node).ref, c)


def dynamicRef(c: Compiler, node: Schema, value: Any) -> list[Rule]:
    return _in_place(_O_DYNAMIC_REF, c.dynamic_target(c.info(node), c.key[1]), c)


def allOf(c: Compiler, node: Schema, value: tuple[Schema, ...]) -> list[Rule]:
    subs = tuple(c.sub(s) for s in value if s.boolean is not True)
    if not subs:
        return []
    if len(subs) == 1:
        return [Rule(_O_ALL_OF, None, subs[0])]

    def check(v: Any, out: Out) -> Res:
        acc: list[Fail] | None = None
        for sub in subs:
            found = sub(v, out)
            if found is not None:
                if out is None:
                    return found
                acc = more(acc, found, None, out)
                if out.left <= 0:
                    return acc
        return acc

    return [Rule(_O_ALL_OF, None, check)]


def _pick(fails: list[Fail]) -> Fail:
    """The failure to report when no alternative matched: merged types, the one deeper failure, or NoMatch."""
    shallow = [f for f in fails if not f.rpath and isinstance(f.reason, WrongType)]
    if len(shallow) == len(fails):
        merged: dict[str, None] = {}
        for fail in shallow:
            merged.update(dict.fromkeys(fail.reason.expected))  # type: ignore[union-attr]
        if merged:
            return failure(WrongType(tuple(merged)))
    deeper = [f for f in fails if f.rpath or not isinstance(f.reason, WrongType)]
    if len(deeper) == 1:
        return deeper[0]
    return failure(NoMatch(len(fails)))


def anyOf(c: Compiler, node: Schema, value: tuple[Schema, ...]) -> list[Rule]:
    if any(s.boolean is True for s in value):
        return []
    subs = tuple(c.sub(s) for s in value)

    def check(v: Any, out: Out) -> Res:
        fails: list[Fail] = []
        for sub in subs:
            found = sub(v, None)
            if found is None:
                return None
            fails.append(found)  # type: ignore[arg-type]
        return _pick(fails)

    accepted = [c.accepted(sub) for sub in subs]
    if any(classes is None for classes in accepted):
        return [Rule(_O_ANY_OF, None, check)]
    # Every alternative only tests the class (``anyOf: [{"type": "string"}, {"type": "null"}]``): one test.
    union = frozenset().union(*accepted)  # type: ignore[arg-type]

    def classes(v: Any, out: Out) -> Res:
        cls = v.__class__
        return None if cls in union or (cls is str and v in union) else check(v, out)

    c.accept(classes, union)
    return [Rule(_O_ANY_OF, None, classes)]


def oneOf(c: Compiler, node: Schema, value: tuple[Schema, ...]) -> list[Rule]:
    subs = tuple(c.sub(s) for s in value)

    def check(v: Any, out: Out) -> Res:
        matched = -1
        fails: list[Fail] = []
        for i, sub in enumerate(subs):
            found = sub(v, None)
            if found is None:
                if matched >= 0:
                    return failure(SeveralMatch(matched, i))
                matched = i
            elif matched < 0:
                fails.append(found)  # type: ignore[arg-type]
        return None if matched >= 0 else _pick(fails)

    return [Rule(_O_ONE_OF, None, check)]


_MATCHES_NOT = MatchesNot()


def not_(c: Compiler, node: Schema, schema: Schema) -> list[Rule]:
    if schema.boolean is False:
        return []
    sub = c.sub(schema)

    def check(v: Any, out: Out) -> Res:
        return failure(_MATCHES_NOT) if sub(v, None) is None else None

    return [Rule(_O_NOT, None, check)]


def if_(c: Compiler, node: Schema, value: Any) -> list[Rule]:
    """``if``, ``then`` and ``else``."""
    condition = _get(node, "if")
    then_schema, else_schema = _get(node, "then"), _get(node, "else")
    then = c.sub_or_none(then_schema) if isinstance(then_schema, Schema) else None
    otherwise = c.sub_or_none(else_schema) if isinstance(else_schema, Schema) else None
    if not isinstance(condition, Schema) or (then is None and otherwise is None):
        return []
    test = c.sub(condition)

    def check(v: Any, out: Out) -> Res:
        if test(v, None) is None:
            return None if then is None else then(v, out)
        return None if otherwise is None else otherwise(v, out)

    return [Rule(_O_IF, None, check)]


# unevaluated* -----------------------------------------------------------------------------------------------


#: Every keyword the contract understands, with its compiler; ``None`` for those that compile to nothing
#: (annotations, identifiers, definitions, and ``type``, which the node assembler reads itself).
KEYWORDS: dict[str, KeywordCompiler | None] = {
    "$schema": None,
    "$id": None,
    "$anchor": None,
    "$dynamicAnchor": None,
    "$vocabulary": None,
    "$comment": None,
    "$defs": None,
    "definitions": None,
    "$ref": ref,
    "$dynamicRef": dynamicRef,
    "type": None,  # read by the node assembler: it decides the class dispatch
    "enum": enum,
    "const": const,
    "minimum": minimum,
    "exclusiveMinimum": exclusiveMinimum,
    "maximum": maximum,
    "exclusiveMaximum": exclusiveMaximum,
    "multipleOf": multipleOf,
    "minLength": minLength,
    "maxLength": maxLength,
    "pattern": pattern,
    "format": format,
    "minItems": minItems,
    "maxItems": maxItems,
    "prefixItems": items,
    "items": items,
    "contains": contains,
    "minContains": contains,
    "maxContains": contains,
    "uniqueItems": uniqueItems,
    "minProperties": minProperties,
    "maxProperties": maxProperties,
    "properties": properties,
    "required": properties,
    "patternProperties": properties,
    "additionalProperties": properties,
    "propertyNames": propertyNames,
    "dependentRequired": dependentRequired,
    "dependentSchemas": dependentSchemas,
    "allOf": allOf,
    "anyOf": anyOf,
    "oneOf": oneOf,
    "not": not_,
    "if": if_,
    "then": if_,
    "else": if_,
    "unevaluatedItems": unevaluatedItems,
    "unevaluatedProperties": unevaluatedProperties,
    "title": None,
    "description": None,
    "default": None,
    "examples": None,
    "deprecated": None,
    "readOnly": None,
    "writeOnly": None,
    "contentMediaType": None,
    "contentEncoding": None,
    "contentSchema": None,
}
