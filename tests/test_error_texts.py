"""
The text of every error and reason record, pinned: ``str()`` and ``describe()`` of sample instances of each
class with a ``describe()`` stay byte for byte what ``tests/fixtures/texts/error_texts.json`` holds.

The samples are made here from each record's fields: one with the first sample of every field, then one more
for each other sample of each field (``None`` for an optional field, every member of an enum, each type of a
union...). The file was written by the code before the records moved onto ``llm_wire._described``
(``python tests/test_error_texts.py OUT``); never rewrite it with the code it checks.
"""

from __future__ import annotations

import ast
import enum
import importlib
import inspect
import json
import sys
import types
import typing
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import attrs
import pytest

import llm_wire
from llm_wire.message import Provider

ROOT = Path(llm_wire.__file__).parent
PINNED = Path(__file__).parent / "fixtures" / "texts" / "error_texts.json"

#: A sample for a field of these types, in order: the first is the one every other sample takes.
_PLAIN: dict[object, tuple[object, ...]] = {
    str: ("name",),
    int: (3,),
    float: (2.5,),
    bool: (True, False),
    Decimal: (Decimal("0.5"),),
    timedelta: (timedelta(seconds=2),),
    datetime: (datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),),
    type(None): (None,),
}


def _modules() -> list[str]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        if not name.startswith("llm_wire.demo") and name != "llm_wire.__main__":
            found.append(name)
    return found


def _home_modules() -> dict[str, str]:
    """Each class name of the package and the module whose source defines it (class names are unique)."""
    homes = {}
    for name in _modules():
        path = ROOT.parent / (name.replace(".", "/") + ".py")
        if not path.exists():
            path = ROOT.parent / name.replace(".", "/") / "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                homes[node.name] = name
    return homes


HOMES = _home_modules()


def described_classes() -> list[type]:
    """Every class of the package with a ``describe()`` that takes no argument: errors, reasons, enums."""
    found: dict[str, type] = {}
    for name in _modules():
        for obj in vars(importlib.import_module(name)).values():
            if not inspect.isclass(obj) or not obj.__module__.startswith("llm_wire"):
                continue
            describe = getattr(obj, "describe", None)
            if not callable(describe) or obj.__qualname__ not in HOMES:
                continue
            if len(inspect.signature(describe).parameters) == 1 and not inspect.isabstract(obj):
                found[obj.__qualname__] = obj
    # The bare base of every record describes nothing.
    found.pop("Described", None)
    return [found[name] for name in sorted(found)]


def _hints(cls: type) -> dict[str, Any]:
    namespace = {"Decimal": Decimal, **vars(importlib.import_module(HOMES[cls.__qualname__]))}
    target = cls if attrs.has(cls) else cls.__init__  # type: ignore[misc]
    return typing.get_type_hints(target, globalns=namespace, localns=namespace)


def _fields(cls: type) -> list[str]:
    if attrs.has(cls):
        return [field.name for field in attrs.fields(cls) if field.init]
    return list(inspect.signature(cls).parameters)


def _options(hint: Any, depth: int) -> list[tuple[str, object]]:
    """Sample values for a field of type ``hint``, each with the text it shows in a sample's key."""
    origin = typing.get_origin(hint)
    if hint in _PLAIN:
        return [(repr(value), value) for value in _PLAIN[hint]]
    if origin in (typing.Union, types.UnionType):
        return [option for member in typing.get_args(hint) for option in _options(member, depth)]
    if origin is typing.Literal:
        return [(repr(value), value) for value in typing.get_args(hint)]
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            if args[0] == str | int:  # a path
                return [("('a', 0)", ("a", 0)), ("()", ())]
            items = _options(args[0], depth)
            return [(f"({key},)", (value,)) for key, value in items[:1]] + [("()", ())]
        found = [_options(arg, depth)[:1] for arg in args]
        if not all(found):
            return []
        parts = [part[0] for part in found]
        return [("(" + ", ".join(key for key, _ in parts) + ")", tuple(value for _, value in parts))]
    if origin is frozenset:
        return [("frozenset()", frozenset()), ("frozenset({1})", frozenset({1}))]
    if hint is Provider:
        return [(repr(member), member) for member in Provider]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return [(repr(member), member) for member in hint]
    if isinstance(hint, type) and (attrs.has(hint) or hint.__qualname__ in HOMES):
        if depth > 3:
            return []
        made = list(_samples(hint, depth + 1))
        return made[:1]
    if isinstance(hint, typing.ForwardRef) or hint in (object, typing.Any) or origin in (list, dict):
        return [("{'a': 1}", {"a": 1})]
    raise AssertionError(f"no sample for a field of type {hint!r}")


def _samples(cls: type, depth: int = 0) -> Iterator[tuple[str, object]]:
    """Instances of ``cls``, each with a key naming how it was made."""
    if issubclass(cls, enum.Enum):
        for member in cls:
            yield repr(member), member
        return
    hints = _hints(cls)
    names = _fields(cls)
    options = {name: _options(hints[name], depth) for name in names}
    if not all(options.values()):
        return  # nested too deeply to sample here
    base = {name: found[0] for name, found in options.items()}
    variants = [base]
    if depth == 0:
        for name, found in options.items():
            variants.extend({**base, name: other} for other in found[1:])
    seen = set()
    for chosen in variants:
        key = f"{cls.__qualname__}(" + ", ".join(f"{name}={chosen[name][0]}" for name in names) + ")"
        if key in seen:
            continue
        seen.add(key)
        yield key, cls(**{name: value for name, (_, value) in chosen.items()})


def _text(sample: object) -> str | None:
    """``str(sample)``, or ``None`` for a sample its record cannot describe (``WrongType(expected=())``)."""
    try:
        return str(sample)
    except (IndexError, KeyError, ValueError):
        return None


def texts() -> dict[str, str]:
    """``str()`` of every sample that has one, by key."""
    found = {key: _text(sample) for cls in described_classes() for key, sample in _samples(cls)}
    return {key: text for key, text in found.items() if text is not None}


CLASSES = described_classes()


@pytest.fixture(scope="module")
def pinned() -> dict[str, str]:
    loaded: dict[str, str] = json.loads(PINNED.read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__qualname__)
def test_texts_stay_as_pinned(cls: type, pinned: dict[str, str]) -> None:
    """Each sample's ``str()`` and ``describe()`` are the pinned text."""
    made = list(_samples(cls))
    assert made, f"{cls.__qualname__} has no sample"
    for key, sample in made:
        if key not in pinned:
            assert _text(sample) is None, f"{key} is not pinned: a new record? pin its texts"
            continue
        assert str(sample) == pinned[key], key
        assert sample.describe() == pinned[key], key  # type: ignore[attr-defined]


def test_every_pinned_text_still_has_its_record(pinned: dict[str, str]) -> None:
    """No pinned sample was left behind by a record that went away or changed its fields."""
    made = {key for cls in CLASSES for key, _ in _samples(cls)}
    assert sorted(set(pinned) - made) == []


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.write_text(json.dumps(texts(), indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
