"""
Differential test of ``llm_wire.contract`` against ``jsonschema``: generated schemas in Draft 2020-12 and
draft-07, generated values biased toward each schema (its constants, bounds and property names, mutated), with
ints, ``Decimal``s and Python floats. A refusal at load is allowed only for a documented reason (a reference
loop, a limit); otherwise ``validate`` says ``Ok`` exactly when the oracle's ``is_valid`` is true.

The oracle reads numbers exactly: every float becomes ``Decimal(repr(f))``, as ``contract`` reads it, and
``integer`` means an integral number whatever its spelling. Counts: 1,000 schemas a test in CI, the ``fuzz``
profile's count under ``make fuzz``; ``-s`` prints the tally (schemas, verdicts, refusals) at the end.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import _utils, validators
from jsonschema.exceptions import ValidationError as OracleError
from strategies import short_numbers

from llm_wire import contract, value
from llm_wire.contract import ReferenceLoop
from llm_wire.error import LimitExceeded
from llm_wire.result import Err, Ok

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
DRAFT_07 = "http://json-schema.org/draft-07/schema#"

_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
#: Schemas a test: the ``fuzz`` profile's count under ``make fuzz``, 1,000 in CI (two tests), 100 locally.
EXAMPLES = {"fuzz": settings.get_profile("fuzz").max_examples, "ci": 1000}.get(_PROFILE, 100)

#: Schemas, verdicts and refusals of this run, printed at the end of the class.
TALLY: Counter[str] = Counter()

# Schemas ------------------------------------------------------------------------------------------------

_NAMES = ["a", "b", "c", "1"]
_KEYS = st.sampled_from(_NAMES)
_TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]
_NUMBERS = short_numbers()
_STRINGS = ["", "a", "b", "ab", "aa", "b1", "1", "é", "a\n", "😀"]
_PATTERNS = ["^a", "b", "[0-9]", "^$", "^a|1$", "^[a-c]*$", "^(?:ab)+$", "\\d$", "^.{2}$", "^\\w+$"]
_LITERAL: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | _NUMBERS | st.sampled_from(_STRINGS),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=5,
)
_COUNT = st.integers(0, 3)
_UNIQUE_KEYS = st.lists(_KEYS, max_size=3, unique=True)

#: Assertions shared by both dialects, one group each: (keyword -> value) fragments.
_ASSERTIONS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "type": st.fixed_dictionaries(
        {
            "type": st.sampled_from(_TYPES)
            | st.lists(st.sampled_from(_TYPES), min_size=1, max_size=3, unique=True)
        }
    ),
    "enum": st.fixed_dictionaries({"enum": st.lists(_LITERAL, min_size=1, max_size=4)}),
    "const": st.fixed_dictionaries({"const": _LITERAL}),
    "bounds": st.fixed_dictionaries(
        {},
        optional={
            "minimum": _NUMBERS,
            "maximum": _NUMBERS,
            "exclusiveMinimum": _NUMBERS,
            "exclusiveMaximum": _NUMBERS,
        },
    ),
    "multipleOf": st.fixed_dictionaries(
        {"multipleOf": st.sampled_from([1, 2, 3, Decimal("0.5"), Decimal("0.25"), 0.1, 1.5, Decimal("1E-2")])}
    ),
    "lengths": st.fixed_dictionaries({}, optional={"minLength": _COUNT, "maxLength": _COUNT}),
    "pattern": st.fixed_dictionaries({"pattern": st.sampled_from(_PATTERNS)}),
    "items counts": st.fixed_dictionaries(
        {}, optional={"minItems": _COUNT, "maxItems": _COUNT, "uniqueItems": st.booleans()}
    ),
    "property counts": st.fixed_dictionaries({}, optional={"minProperties": _COUNT, "maxProperties": _COUNT}),
    "required": st.fixed_dictionaries({"required": _UNIQUE_KEYS}),
}


def _applicators(inner: st.SearchStrategy[Any], dialect: str) -> dict[str, st.SearchStrategy[dict[str, Any]]]:
    """The applicator groups of ``dialect``, with subschemas drawn from ``inner``."""
    some = st.lists(inner, min_size=1, max_size=3)
    defs = "$defs" if dialect == DRAFT_2020_12 else "definitions"
    groups: dict[str, st.SearchStrategy[dict[str, Any]]] = {
        "properties": st.fixed_dictionaries(
            {"properties": st.dictionaries(_KEYS, inner, max_size=3)},
            optional={"required": _UNIQUE_KEYS, "additionalProperties": inner},
        ),
        "patternProperties": st.fixed_dictionaries(
            {
                "patternProperties": st.dictionaries(
                    st.sampled_from(["^a", "b", "^[0-9]+$"]), inner, max_size=2
                )
            },
            optional={"additionalProperties": inner},
        ),
        "additionalProperties": st.fixed_dictionaries({"additionalProperties": inner}),
        "propertyNames": st.fixed_dictionaries({"propertyNames": inner}),
        "items": st.fixed_dictionaries({"items": inner}),
        "allOf": st.fixed_dictionaries({"allOf": some}),
        "anyOf": st.fixed_dictionaries({"anyOf": some}),
        "oneOf": st.fixed_dictionaries({"oneOf": some}),
        "not": st.fixed_dictionaries({"not": inner}),
        "if": st.fixed_dictionaries({"if": inner}, optional={"then": inner, "else": inner}),
        "$ref": st.fixed_dictionaries({"$ref": st.sampled_from(["#", f"#/{defs}/a", f"#/{defs}/b"])}),
    }
    if dialect == DRAFT_2020_12:
        groups |= {
            "prefixItems": st.fixed_dictionaries(
                {"prefixItems": some}, optional={"items": inner, "unevaluatedItems": inner}
            ),
            "contains": st.fixed_dictionaries(
                {"contains": inner}, optional={"minContains": _COUNT, "maxContains": _COUNT}
            ),
            "dependentRequired": st.fixed_dictionaries(
                {"dependentRequired": st.dictionaries(_KEYS, _UNIQUE_KEYS, max_size=2)}
            ),
            "dependentSchemas": st.fixed_dictionaries(
                {"dependentSchemas": st.dictionaries(_KEYS, inner, max_size=2)}
            ),
            "unevaluatedProperties": st.fixed_dictionaries({"unevaluatedProperties": inner}),
            "unevaluatedItems": st.fixed_dictionaries({"unevaluatedItems": inner}),
        }
    else:
        groups |= {
            "array items": st.fixed_dictionaries({"items": some}, optional={"additionalItems": inner}),
            "additionalItems": st.fixed_dictionaries({"additionalItems": inner}),
            "contains": st.fixed_dictionaries({"contains": inner}),
            "dependencies": st.fixed_dictionaries(
                {"dependencies": st.dictionaries(_KEYS, _UNIQUE_KEYS | inner, max_size=2)}
            ),
        }
    return groups


def _merged(groups: dict[str, st.SearchStrategy[dict[str, Any]]], most: int) -> st.SearchStrategy[Any]:
    """Up to ``most`` groups drawn from ``groups`` and merged into one schema object."""
    chosen = st.lists(st.sampled_from(sorted(groups)), max_size=most, unique=True)
    return chosen.flatmap(lambda names: st.tuples(*(groups[n] for n in names))).map(
        lambda parts: {k: v for part in parts for k, v in part.items()}
    )


_LEAF = st.booleans() | _merged(_ASSERTIONS, 2)


def _schemas(dialect: str) -> st.SearchStrategy[Any]:
    """Documents of ``dialect``: nested schemas, two definitions that may refer to each other and the root."""
    nodes = st.recursive(
        _LEAF, lambda inner: _merged(_applicators(inner, dialect) | _ASSERTIONS, 3), max_leaves=8
    )
    defs = "$defs" if dialect == DRAFT_2020_12 else "definitions"
    marker = (
        st.just({"$schema": dialect}) if dialect == DRAFT_07 else st.sampled_from([{}, {"$schema": dialect}])
    )
    a = frozenset({f"#/{defs}/a"})
    return st.tuples(nodes, nodes, nodes, marker).map(
        lambda parts: (
            {
                **parts[3],
                **_guarded(parts[0], a, False),
                defs: {"a": _guarded(parts[1], frozenset(), False), "b": _guarded(parts[2], a, False)},
            }
            if isinstance(parts[0], dict)
            else parts[0]
        )
    )


#: Keywords whose subschemas apply to parts of the value, and those that apply to the value itself.
_DESCENDING = frozenset(
    {"properties", "patternProperties", "additionalProperties", "propertyNames", "items", "prefixItems"}
    | {"additionalItems", "contains", "unevaluatedItems", "unevaluatedProperties"}
)
_IN_PLACE = frozenset(
    {"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"}
)
_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "dependencies"})


def _guarded(node: Any, safe: frozenset[str], descended: bool) -> Any:
    """
    ``node`` without the ``$ref``s (other than to ``safe``) that no keyword above descends from: references
    then never loop without descending into the value, a refusal that would otherwise be common.
    """
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, item in node.items():
        down = descended or key in _DESCENDING
        if key == "$ref" and not descended and item not in safe:
            continue
        if key in _MAPS:
            out[key] = {name: _guarded(sub, safe, down) for name, sub in item.items()}
        elif key in _DESCENDING | _IN_PLACE and isinstance(item, list):
            out[key] = [_guarded(sub, safe, down) for sub in item]
        elif key in _DESCENDING | _IN_PLACE:
            out[key] = _guarded(item, safe, down)
        else:
            out[key] = item
    return out


# Values biased toward a schema ------------------------------------------------------------------------------


class _Pool:
    """What a schema mentions: numbers near its constants and bounds, strings, property names, literals."""

    def __init__(self, schema: Any) -> None:
        numbers: set[Decimal] = {Decimal(0), Decimal(1), Decimal("0.5"), Decimal(2**53 + 1), Decimal("1E+30")}
        self.strings: list[str] = list(_STRINGS)
        self.literals: list[Any] = []
        self._walk(schema, numbers)
        near = {n + d for n in numbers for d in (0, 1, -1, Decimal("0.5"))}
        near |= {n * k for n in numbers for k in (-1, 2, 3, Decimal("0.5"))}
        self.numbers: list[Any] = sorted(near)
        self.names = sorted(set(_NAMES) | {s for s in self.strings if len(s) < 4})

    def _walk(self, node: Any, numbers: set[Decimal]) -> None:
        if isinstance(node, bool) or node is None:
            return
        if isinstance(node, int | float | Decimal):
            numbers.add(Decimal(_exact(node)))
        elif isinstance(node, str):
            self.strings.append(node)
        elif isinstance(node, list):
            for item in node:
                self._walk(item, numbers)
        elif isinstance(node, dict):
            for key, item in node.items():
                if key in ("const", "enum"):
                    self.literals.extend(item if key == "enum" else [item])
                elif key in ("minLength", "maxLength"):
                    self.strings.extend(["a" * item, "é" * (item + 1)])
                if key not in ("$ref", "$schema", "pattern"):
                    self.strings.append(key)
                self._walk(item, numbers)


def _spelled(draw: st.DrawFn, number: Decimal) -> Any:
    """``number`` as a Decimal, an int when integral, or a Python float (maybe another number, past 2**53)."""
    choices: list[Any] = [number, float(number)]
    if number == number.to_integral_value():
        choices += [int(number), Decimal(f"{int(number)}.0")]
    return draw(st.sampled_from(choices))


_STEPS = [Decimal(0), Decimal(0), Decimal(1), Decimal(-1), Decimal("0.5")]


def _mutated(draw: st.DrawFn, literal: Any, pool: _Pool) -> Any:
    """``literal`` changed once: a number respelled or moved, an item or member dropped, added or replaced."""
    if isinstance(literal, bool):
        return draw(st.sampled_from([not literal, int(literal), Decimal(int(literal))]))
    if isinstance(literal, int | float | Decimal):
        return _spelled(draw, Decimal(_exact(literal)) + draw(st.sampled_from(_STEPS)))
    if isinstance(literal, list) and literal:
        at = draw(st.integers(0, len(literal) - 1))
        edit = draw(st.sampled_from(["drop", "replace", "add"]))
        if edit == "drop":
            return literal[:at] + literal[at + 1 :]
        new = _mutated(draw, literal[at], pool) if edit == "replace" else _instance(draw, pool, 2)
        return [*literal[:at], new, *literal[at + (edit == "replace") :]]
    if isinstance(literal, dict) and literal:
        key = draw(st.sampled_from(sorted(literal)))
        edit = draw(st.sampled_from(["drop", "replace", "add"]))
        if edit == "drop":
            return {k: v for k, v in literal.items() if k != key}
        if edit == "replace":
            return {**literal, key: _mutated(draw, literal[key], pool)}
        return {**literal, draw(st.sampled_from(pool.names)): _instance(draw, pool, 2)}
    return _instance(draw, pool, 2)


def _respelled(draw: st.DrawFn, item: Any) -> Any:
    """``item`` with its numbers spelled anew and maybe a bool for a 0 or a 1 (and back): equal or not."""
    if isinstance(item, bool) or item in (0, 1):
        return draw(st.sampled_from([item, bool(item), int(item), Decimal(int(item))]))
    if isinstance(item, int | float | Decimal):
        return _spelled(draw, Decimal(_exact(item)))
    if isinstance(item, list):
        return [_respelled(draw, sub) for sub in item]
    if isinstance(item, dict):
        return {key: _respelled(draw, sub) for key, sub in item.items()}
    return item


def _instance(draw: st.DrawFn, pool: _Pool, depth: int) -> Any:
    """A value made of the pool's numbers, strings, names and literals (mutated or not), nested a little."""
    kinds = ["number", "string", "scalar", "literal", "mutated"]
    kinds += ["array", "object", "array", "object", "repeated"] if depth < 3 else []
    kind = draw(st.sampled_from(kinds))
    if kind == "number":
        return _spelled(draw, draw(st.sampled_from(pool.numbers)))
    if kind == "string":
        return draw(st.sampled_from(pool.strings))
    if kind == "array":
        return [_instance(draw, pool, depth + 1) for _ in range(draw(st.integers(0, 4)))]
    if kind == "repeated":  # for uniqueItems: one value, respelled, among others
        item = _instance(draw, pool, depth + 1)
        others = [_instance(draw, pool, depth + 1) for _ in range(draw(st.integers(0, 2)))]
        return draw(st.permutations([item, _respelled(draw, item), *others]))
    if kind == "object":
        keys = draw(st.lists(st.sampled_from(pool.names), max_size=4, unique=True))
        return {key: _instance(draw, pool, depth + 1) for key in keys}
    if kind == "scalar" or not pool.literals:
        return draw(st.sampled_from([None, True, False, 0, 1, 1.0, Decimal("1.0"), [], {}]))
    literal = draw(st.sampled_from(pool.literals))
    return literal if kind == "literal" else _mutated(draw, literal, pool)


@st.composite
def _cases(draw: st.DrawFn, dialect: str) -> tuple[Any, list[Any], bool]:
    """A schema of ``dialect``, values biased toward it, and whether ``contract`` reads both as JSON text."""
    schema = draw(_schemas(dialect))
    pool = _Pool(schema)
    values = [_instance(draw, pool, 0) for _ in range(draw(st.integers(1, 6)))]
    return schema, values, draw(st.booleans())


# The oracle -------------------------------------------------------------------------------------------------


def _exact(node: Any) -> Any:
    """``node`` with every float read as ``contract`` reads it: ``Decimal(repr(f))``."""
    if isinstance(node, float):
        return Decimal(repr(node))
    if isinstance(node, list):
        return [_exact(item) for item in node]
    if isinstance(node, dict):
        return {key: _exact(item) for key, item in node.items()}
    return node


def _text(node: Any) -> str:
    """JSON text for a value with ``Decimal``s and floats, each number spelled as it is."""
    if isinstance(node, Decimal | float) and not isinstance(node, bool):
        return str(node) if isinstance(node, Decimal) else repr(node)
    if isinstance(node, list):
        return "[" + ",".join(map(_text, node)) + "]"
    if isinstance(node, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_text(v)}" for k, v in node.items()) + "}"
    return json.dumps(node)


def _is_integer(_: object, instance: object) -> bool:
    if isinstance(instance, Decimal):
        return instance == instance.to_integral_value()
    return isinstance(instance, int) and not isinstance(instance, bool)


def _is_number(_: object, instance: object) -> bool:
    return isinstance(instance, Decimal) or (isinstance(instance, int) and not isinstance(instance, bool))


def _pattern(validator: Any, pattern: str, instance: object, schema: object) -> Iterator[OracleError]:
    # ECMA-262: a final $ does not match before a trailing newline; \d and \w are ASCII.
    ecma = pattern[:-1] + "\\Z" if pattern.endswith("$") else pattern
    if isinstance(instance, str) and re.search(ecma, instance, re.ASCII) is None:
        yield OracleError("pattern")


def _oracle(base: Any) -> Any:
    """``base`` with exact numbers and ECMA-262 patterns."""
    return validators.extend(  # type: ignore[no-untyped-call]
        base,
        validators={"pattern": _pattern},
        type_checker=base.TYPE_CHECKER.redefine_many({"integer": _is_integer, "number": _is_number}),
    )


_ORACLES = {
    DRAFT_2020_12: _oracle(jsonschema.Draft202012Validator),
    DRAFT_07: _oracle(jsonschema.Draft7Validator),
}


def _oracle_bug(schema: Any, instance: Any, dialect: str) -> str | None:
    """
    Why ``jsonschema`` cannot be the oracle for this schema and value (a bug or limit of its own, found by
    this test), or ``None``; like the exclusions of ``jsonschema``'s harness for the JSON Schema Test Suite.
    """
    nodes = list(_nodes(schema))
    arrays = list(_arrays(instance))
    boolean_items = any("additionalItems" in n and isinstance(n.get("items"), bool) for n in nodes)
    if dialect == DRAFT_07 and arrays and boolean_items:
        # draft-07 9.3.1.2: additionalItems is ignored unless items is an array; jsonschema's
        # _legacy_keywords.additionalItems calls len() on a boolean items and raises TypeError.
        return "draft-07 additionalItems beside a boolean items"
    if any(n.get("uniqueItems") is True for n in nodes) and any(
        _utils.uniq(a) != _pairwise_unique(a) for a in arrays
    ):
        # jsonschema's uniq sorts the items and compares neighbours, but Python's sort sees True == 1: in
        # [[1], [true], [1]] the two [1] are not neighbours, and it calls the array unique.
        return "uniqueItems: jsonschema's sorted-neighbour check misses duplicates around true/1"
    divisors = [_exact(n["multipleOf"]) for n in nodes if "multipleOf" in n]
    if any(abs(Decimal(x) / d).adjusted() >= 28 for d in divisors for x in _numbers(_exact(instance))):
        # jsonschema computes multipleOf as Decimal %, in the default 28-digit context: a quotient of 28
        # digits or more raises decimal.InvalidOperation (DivisionImpossible).
        return "multipleOf: a quotient past the 28 digits of jsonschema's Decimal context"
    return None


def _nodes(schema: Any) -> Iterator[dict[str, Any]]:
    """Every object in a document (a superset of its schema objects, which is all the exclusions need)."""
    if isinstance(schema, list):
        for item in schema:
            yield from _nodes(item)
    elif isinstance(schema, dict):
        yield schema
        for item in schema.values():
            yield from _nodes(item)


def _arrays(instance: Any) -> Iterator[list[Any]]:
    """Every array in a value."""
    if isinstance(instance, list):
        yield instance
    for item in (
        instance if isinstance(instance, list) else instance.values() if isinstance(instance, dict) else ()
    ):
        yield from _arrays(item)


def _numbers(instance: Any) -> Iterator[Any]:
    """Every number in a value (bools excluded)."""
    if isinstance(instance, int | Decimal) and not isinstance(instance, bool):
        yield instance
    for item in (
        instance if isinstance(instance, list) else instance.values() if isinstance(instance, dict) else ()
    ):
        yield from _numbers(item)


def _pairwise_unique(array: list[Any]) -> bool:
    """Whether no two items are equal by jsonschema's own ``equal``, pair by pair."""
    return not any(_utils.equal(a, b) for i, a in enumerate(array) for b in array[i + 1 :])


#: Refusals a generated document may meet: references looping without descending, and the load limits.
_ALLOWED_REFUSALS = (ReferenceLoop, LimitExceeded)


def _loaded(schema: Any, as_text: bool) -> contract.Contract | None:
    """The contract for ``schema`` (read from its JSON text or as a Python value); ``None`` when refused."""
    match contract.parse(_text(schema)) if as_text else contract.load(schema):
        case Ok(compiled):
            return compiled
        case Err(error):
            assert isinstance(error.reason, _ALLOWED_REFUSALS), error
            TALLY[f"refused ({type(error.reason).__name__})"] += 1
            return None


def _check(schema: Any, values: list[Any], as_text: bool, dialect: str) -> None:
    """Compare ``contract``'s verdict on every value with the oracle's."""
    exact = _exact(schema)
    oracle_class = _ORACLES[dialect]
    try:
        oracle_class.check_schema(exact)
    except jsonschema.SchemaError:
        assume(False)
    TALLY[f"schemas ({dialect})"] += 1
    compiled = _loaded(schema, as_text)
    if compiled is None:
        return
    oracle = oracle_class(exact)
    for given_value in values:
        bug = _oracle_bug(exact, _exact(given_value), dialect)
        if bug is not None:
            TALLY[f"excluded ({bug})"] += 1
            continue
        checked = value.parse(_text(given_value)) if as_text else Ok(given_value)
        assert isinstance(checked, Ok), checked
        try:
            expected = oracle.is_valid(_exact(given_value))
        except RecursionError:  # the oracle recursing where contract refused nothing: a loop it takes
            TALLY["oracle recursed"] += 1
            continue
        ours = contract.validate(compiled, checked.value)
        assert isinstance(ours, Ok) == expected, (given_value, ours)
        assert (contract.validate_all(compiled, checked.value) == ()) == expected
        TALLY["valid" if expected else "invalid"] += 1


_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


@pytest.fixture(scope="class")
def _tally() -> Iterator[None]:
    yield
    print("\ndifferential tally:", ", ".join(f"{k}: {v}" for k, v in sorted(TALLY.items())))


@pytest.mark.usefixtures("_tally")
class TestDifferential:
    """On generated schemas and values, ``contract``'s verdicts are ``jsonschema``'s."""

    @_SETTINGS
    @given(case=_cases(DRAFT_2020_12))
    def test_draft_2020_12(self, case: tuple[Any, list[Any], bool]) -> None:
        """Draft 2020-12 (``$schema`` absent or named): every keyword, nested, with references."""
        _check(*case, dialect=DRAFT_2020_12)

    @_SETTINGS
    @given(case=_cases(DRAFT_07))
    def test_draft_07(self, case: tuple[Any, list[Any], bool]) -> None:
        """Draft-07: array ``items`` with ``additionalItems``, ``dependencies``, ``definitions``."""
        _check(*case, dialect=DRAFT_07)
