"""
A generated fast accept in front of a contract's compiled check, for the schemas tools declare most.

Tool schemas are mostly small trees of ``type``, ``properties``, ``required``, ``enum``, bounds and ``items``.
For such a tree this module writes one straight-line function, as fastjsonschema and attrs write theirs, that
answers "surely valid": it tests exact classes and every rule, and on the first doubt it hands the value to
the compiled check, which finds and explains the failure (and decides anything unusual: a subclass, a float,
a NaN). So the fast path only ever accepts what the compiled check accepts, and every failure still comes
from one implementation.

A schema with a keyword outside that set (``$ref``, ``oneOf``, ``patternProperties``, ``unevaluated*``...)
or with more than ``MAX_NODES`` nodes gets no fast path. The source holds no value from the schema, only
names bound in the namespace it runs in; it is written once per contract, after ``WARM_UP`` validations.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from llm_wire._fast import generated
from llm_wire._regex import compile_pattern
from llm_wire.contract._checks import Check, is_integral, json_key
from llm_wire.contract._compile import _CLASSES, _NONE_TYPE, _NUMBERS
from llm_wire.contract._formats import FORMATS
from llm_wire.contract._keywords import KEYWORDS
from llm_wire.result import Ok
from llm_wire.schema import Schema

__all__ = ["MAX_NODES", "WARM_UP", "quickened"]

#: Schema nodes a fast path is written for at most.
MAX_NODES = 128
#: Validations a contract runs on its compiled check alone before its fast path is written.
WARM_UP = 4

#: Every JSON class, the likeliest first: the order of a node's class tests (any order gives one verdict).
_ALL_CLASSES = (dict, str, int, Decimal, list, bool, _NONE_TYPE)
_STRING = frozenset({"minLength", "maxLength", "pattern", "format"})
_NUMBER = {"minimum": "<", "exclusiveMinimum": "<=", "maximum": ">", "exclusiveMaximum": ">="}
_OBJECT = frozenset({"properties", "required", "additionalProperties", "minProperties", "maxProperties"})
_ARRAY = frozenset({"items", "minItems", "maxItems"})
_ANY = frozenset({"type", "enum", "const", "allOf", "anyOf"})
_KNOWN = _STRING | frozenset(_NUMBER) | _OBJECT | _ARRAY | _ANY
#: Keywords that make a node a container check: its own function, so generated code never nests deeply.
_CONTAINER = _OBJECT | _ARRAY | {"allOf", "anyOf"}
_SCALARS = (str, int, Decimal, bool, _NONE_TYPE)


class _Unsupported(Exception):
    """The schema uses something the generator does not write: no fast path."""


def quickened(root: Schema, assert_formats: bool, full: Check) -> Check | None:
    """
    ``full`` with a generated fast accept in front (same results), or ``None`` when the schema has no fast
    path.
    """
    writer = _Writer(assert_formats)
    try:
        lines = writer.node(root, "v", "return _full(v, out)", top=True)
    except _Unsupported:
        return None
    writer.namespace["_full"] = full
    # Helpers and the check are written inside a factory, so they reach each other through closure cells:
    # a function held by its own globals would be a reference cycle, and a dropped contract would wait for
    # the collector.
    check = ["def check(v, out):", *_padded(lines, 1), "    return None"]
    source = "\n".join(["def make():", *_padded([*writer.helpers, *check], 1), "    return check", ""])
    make = generated(source, "make", writer.namespace)
    del writer.namespace["make"]
    return make()  # type: ignore[no-any-return]


def _padded(lines: list[str], levels: int) -> list[str]:
    pad = "    " * levels
    return [pad + line for line in lines]


class _Writer:
    """Writes the source of one fast path: its helper functions, and names bound for it to use."""

    def __init__(self, assert_formats: bool) -> None:
        self.assert_formats = assert_formats
        self.namespace: dict[str, Any] = {
            "Decimal": Decimal,
            "_json_key": json_key,
            "_is_integral": is_integral,
            "_ABSENT": _ABSENT,
            "_CONTAINERS": (list, dict),
        }
        self.helpers: list[str] = []
        self.names = 0
        self.nodes = 0

    def name(self, prefix: str, bound: object = None) -> str:
        """A fresh name, bound to ``bound`` in the namespace unless it is ``None``."""
        self.names += 1
        made = f"{prefix}{self.names}"
        if bound is not None:
            self.namespace[made] = bound
        return made

    def node(self, schema: Schema, var: str, fail: str, *, top: bool = False) -> list[str]:
        """Lines that run ``fail`` unless ``var`` satisfies ``schema`` (a container below the top: a call)."""
        if schema.boolean is not None:
            return [] if schema.boolean else [fail]
        if not top and _is_container(schema):
            return [f"if not {self.function(schema)}({var}):", f"    {fail}"]
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Unsupported
        for name, _ in schema.keywords:
            if name not in _KNOWN and KEYWORDS.get(name) is not None:  # ``None``: an annotation
                raise _Unsupported
        declared = schema.get("type")
        types: tuple[str, ...] = ()
        listed = schema.get("enum")
        if declared is None and isinstance(listed, list) and listed:
            # Only the classes of its members can be in an enum (an int matches an equal Decimal too).
            classes = tuple(c for c in _ALL_CLASSES if any(_same_kind(c, m) for m in listed))
        elif declared is None:
            classes = _ALL_CLASSES
        else:
            types = (declared,) if isinstance(declared, str) else tuple(declared)  # type: ignore[arg-type]
            classes = tuple(dict.fromkeys(c for t in types for c in _CLASSES[t]))
        integral_only = "integer" in types and "number" not in types
        by_class = {cls: self.class_rules(schema, cls, var, fail, integral_only) for cls in classes}
        cls_var = self.name("c")
        anywhere = self.any_rules(schema, var, cls_var, fail)
        if declared is None and not anywhere and not any(by_class.values()):
            return []  # no assertion: every value passes, as the compiled check says
        lines = [f"{cls_var} = {var}.__class__"]
        if len(classes) == 1:
            (only,) = classes
            lines += [f"if {cls_var} is not {self.bound_class(only)}:", f"    {fail}", *by_class[only]]
        else:
            keyword = "if"
            for cls in classes:
                lines.append(f"{keyword} {cls_var} is {self.bound_class(cls)}:")
                lines += _padded(by_class[cls] or ["pass"], 1)
                keyword = "elif"
            lines += ["else:", f"    {fail}"]
        return lines + anywhere

    def bound_class(self, cls: type) -> str:
        names = {dict: "dict", str: "str", int: "int", list: "list", bool: "bool", Decimal: "Decimal"}
        return names.get(cls) or self.name("_t", cls)

    def function(self, schema: Schema) -> str:
        """A helper ``name(x) -> bool`` for a subschema, written beside the main function."""
        name = self.name("_q")
        body = self.node(schema, "x", "return False", top=True)
        self.helpers += [f"def {name}(x):", *_padded(body, 1), "    return True"]
        return name

    def class_rules(self, schema: Schema, cls: type, var: str, fail: str, integral: bool) -> list[str]:
        """The lines that check ``var``, known to be of class ``cls``."""
        lines: list[str] = []
        if cls is Decimal:
            lines += [f"if not {var}.is_finite():", f"    {fail}"]  # NaN and infinities are no JSON numbers
            if integral:
                lines += [f"if not _is_integral({var}):", f"    {fail}"]
        if cls is int or cls is Decimal:
            for keyword, failing in _NUMBER.items():
                limit = schema.get(keyword)
                if limit is not None:
                    lines += [f"if {var} {failing} {self.name('_n', _number(limit))}:", f"    {fail}"]
        elif cls is str:
            lines += self.string_rules(schema, var, fail)
        elif cls is dict:
            lines += self.object_rules(schema, var, fail)
        elif cls is list:
            lines += self.array_rules(schema, var, fail)
        return lines

    def sizes(self, schema: Schema, low: str, high: str, var: str, fail: str) -> list[str]:
        """``len(var)`` within the counts of keywords ``low`` and ``high``."""
        lines: list[str] = []
        for keyword, failing in ((low, "<"), (high, ">")):
            count = schema.get(keyword)
            if count is not None:
                lines += [f"if len({var}) {failing} {self.name('_n', _number(count))}:", f"    {fail}"]
        return lines

    def string_rules(self, schema: Schema, var: str, fail: str) -> list[str]:
        lines = self.sizes(schema, "minLength", "maxLength", var, fail)
        source = schema.get("pattern")
        if source is not None:
            search = compile_pattern(str(source))
            if not isinstance(search, Ok):
                raise _Unsupported
            lines += [f"if not {self.name('_p', search.value)}({var}):", f"    {fail}"]
        form = schema.get("format")
        if form is not None and self.assert_formats:
            valid = FORMATS.get(str(form))
            if valid is None:
                raise _Unsupported
            lines += [f"if not {self.name('_f', valid)}({var}):", f"    {fail}"]
        return lines

    def object_rules(self, schema: Schema, var: str, fail: str) -> list[str]:
        lines = self.sizes(schema, "minProperties", "maxProperties", var, fail)
        required = tuple(dict.fromkeys(schema.get("required") or ()))  # type: ignore[arg-type]
        for name in required:
            lines += [f"if {self.name('_k', str(name))} not in {var}:", f"    {fail}"]
        declared: tuple[tuple[str, Schema], ...] = schema.get("properties") or ()  # type: ignore[assignment]
        for name, sub in declared:
            key = self.name("_k", name)
            member = self.name("x")
            inner = self.node(sub, member, fail)
            if not inner:
                continue
            if sub.boolean is False:
                lines += [f"if {key} in {var}:", f"    {fail}"]
            elif name in required:
                lines += [f"{member} = {var}[{key}]", *inner]
            else:
                lines += [f"{member} = {var}.get({key}, _ABSENT)", f"if {member} is not _ABSENT:"]
                lines += _padded(inner, 1)
        additional = schema.get("additionalProperties")
        if additional is not None:
            if not isinstance(additional, Schema):
                raise _Unsupported
            known = self.name("_names", frozenset(name for name, _ in declared))
            if additional.boolean is False:
                lines += [f"if not {var}.keys() <= {known}:", f"    {fail}"]
            else:
                member = self.name("x")
                inner = self.node(additional, member, fail)
                if inner:
                    lines += [f"for k, {member} in {var}.items():", f"    if k not in {known}:"]
                    lines += _padded(inner, 2)
        return lines

    def array_rules(self, schema: Schema, var: str, fail: str) -> list[str]:
        lines = self.sizes(schema, "minItems", "maxItems", var, fail)
        each = schema.get("items")
        if each is not None:
            if not isinstance(each, Schema):
                raise _Unsupported
            member = self.name("x")
            inner = self.node(each, member, fail)
            if each.boolean is False:
                lines += [f"if {var}:", f"    {fail}"]
            elif inner:
                lines += [f"for {member} in {var}:", *_padded(inner, 1)]
        return lines

    def any_rules(self, schema: Schema, var: str, cls_var: str, fail: str) -> list[str]:
        """The rules of every class: ``enum``, ``const``, ``allOf``, ``anyOf``."""
        lines: list[str] = []
        listed = schema.get("enum")
        if listed is not None:
            members: list[Any] = list(listed)  # type: ignore[arg-type]
            if not all(m.__class__ in _SCALARS for m in members):
                raise _Unsupported  # containers compare through deep keys: the compiled check decides
            if all(m.__class__ is str for m in members):
                found = self.name("_e", frozenset(members))
                lines += [f"if {cls_var} is not str or {var} not in {found}:", f"    {fail}"]
            else:
                keys = self.name("_e", frozenset(map(json_key, members)))
                lines += [f"if {cls_var} in _CONTAINERS or _json_key({var}) not in {keys}:", f"    {fail}"]
        if "const" in schema:
            wanted = schema.get("const")
            if wanted.__class__ not in _SCALARS:
                raise _Unsupported
            key = self.name("_c", _Key(json_key(wanted)))
            lines += [f"if {cls_var} in _CONTAINERS or _json_key({var}) != {key}.key:", f"    {fail}"]
        every: tuple[Schema, ...] = schema.get("allOf") or ()  # type: ignore[assignment]
        for sub in every:
            lines += self.node(sub, var, fail)
        alternatives: tuple[Schema, ...] = schema.get("anyOf") or ()  # type: ignore[assignment]
        if alternatives and not any(s.boolean is True for s in alternatives):
            tests = [f"{self.function(s)}({var})" for s in alternatives if s.boolean is None]
            lines += [f"if not ({' or '.join(tests)}):" if tests else "if True:", f"    {fail}"]
        return lines


class _Key:
    """A ``const``'s key, boxed: ``None`` is a key too, and the namespace binds only what is not ``None``."""

    __slots__ = ("key",)

    def __init__(self, key: object) -> None:
        self.key = key


_ABSENT: Any = object()


def _number(limit: object) -> int | Decimal:
    if isinstance(limit, int | Decimal) and not isinstance(limit, bool):
        return limit
    raise _Unsupported


def _same_kind(cls: type, member: object) -> bool:
    kind = member.__class__
    return kind is cls or (kind in _NUMBERS and cls in _NUMBERS)


def _is_container(schema: Schema) -> bool:
    return schema.boolean is None and any(name in _CONTAINER for name, _ in schema.keywords)
