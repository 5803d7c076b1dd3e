"""
The house rules, checked on the source: layers, one definition per name, public faces and their texts.

The layer table is DESIGN.md's; a module may import only from its own layer or a lower one. The facade
(``llm_wire/__init__.py``) loads its names lazily, so importing one part loads only that part and what it
stands on.
"""

from __future__ import annotations

import ast
import enum
import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
import typing
from pathlib import Path
from types import ModuleType

import pytest

import llm_wire
from llm_wire._deprecated import ALIASES

ROOT = Path(llm_wire.__file__).parent
REPO = ROOT.parent

#: Bottom to top. A module belongs to the first entry that is its name or a package above it.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "llm_wire.result",
        "llm_wire.error",
        "llm_wire._fast",
        "llm_wire._public",
        "llm_wire._checks",
        "llm_wire._deprecated",
    ),
    ("llm_wire.value",),
    ("llm_wire.schema", "llm_wire.reasons", "llm_wire._described", "llm_wire._regex"),
    ("llm_wire.codec",),
    ("llm_wire.contract",),
    ("llm_wire.message",),
    ("llm_wire.sse",),
    (
        "llm_wire.tool",
        "llm_wire._tool_errors",
        "llm_wire.admission",
        "llm_wire._admission_issues",
    ),
    ("llm_wire.providers", "llm_wire.names"),
    ("llm_wire._request",),
    ("llm_wire.outcome",),
    ("llm_wire.transport",),
    ("llm_wire.agent",),
    ("llm_wire.mcp", "llm_wire.durable"),
    ("llm_wire.toolkits",),
    ("llm_wire.cli", "llm_wire.demo", "llm_wire.__main__", "llm_wire"),
)


def _layer_of(module: str) -> int:
    for n, names in enumerate(LAYERS):
        for name in names:
            if name != "llm_wire" and (module == name or module.startswith(name + ".")):
                return n
    if module == "llm_wire":
        return len(LAYERS) - 1
    raise AssertionError(f"{module} is in no layer of DESIGN.md's table; add it to LAYERS")


def _modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found.append((".".join(parts), path))
    return found


MODULES = _modules()
MODULE_NAMES = {name for name, _ in MODULES}


def _imports(module: str, path: Path) -> set[str]:
    """Every ``llm_wire`` module this one imports, at any depth of its code."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.add(sub if sub in MODULE_NAMES else base)
    return {t for t in targets if t == "llm_wire" or t.startswith("llm_wire.")}


def _loaded_by(statement: str) -> list[str]:
    """The modules a fresh interpreter holds after ``statement``."""
    code = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()


class TestLayers:
    """No module reaches up the layer table."""

    @pytest.mark.parametrize(("module", "path"), MODULES, ids=[name for name, _ in MODULES])
    def test_no_upward_import(self, module: str, path: Path) -> None:
        """Each import goes to the module's own layer or one below it."""
        own = _layer_of(module)
        upward = sorted(t for t in _imports(module, path) if _layer_of(t) > own and t != module)
        assert upward == [], f"{module} (layer {own}) imports higher layers: {upward}"

    @pytest.mark.parametrize("module", ["llm_wire.sse", "llm_wire.value", "llm_wire.error"])
    def test_a_low_part_loads_alone(self, module: str) -> None:
        """Importing a low part in a fresh interpreter loads no codec, contract or provider module."""
        heavy = [
            name
            for name in _loaded_by(f"import {module}")
            if re.match(r"llm_wire\.(codec|contract|providers|_request|outcome|admission|tool)\b", name)
        ]
        assert heavy == []


#: The whole public stack a typical first import reaches.
STACK = "import llm_wire, llm_wire.codec, llm_wire.contract, llm_wire.admission, llm_wire.outcome"


class TestImportCost:
    """An import loads what it needs, and the heavy modules only on the path that uses them."""

    def test_the_facade_loads_no_part(self) -> None:
        """``import llm_wire`` alone loads no codec, contract or provider module: the facade is lazy."""
        heavy = [
            name
            for name in _loaded_by("import llm_wire")
            if re.match(r"llm_wire\.(codec|contract|providers)\b", name)
        ]
        assert heavy == []

    def test_the_stack_loads_no_lazy_dependency(self) -> None:
        """The public stack loads no jsonschema (a test oracle), referencing, cattrs, re2 or email."""
        lazy = [
            name
            for name in _loaded_by(STACK)
            if re.match(r"(jsonschema|referencing|cattrs|re2|email)\b", name)
        ]
        assert lazy == []

    def test_a_lazy_dependency_loads_on_its_path(self) -> None:
        """
        A reference and a pattern load ``referencing`` and ``re2`` when used; persistence goes through the
        library's own codecs and loads no ``cattrs`` (a test and benchmark dependency only).
        """
        schema = "{'$defs': {'s': {'type': 'string', 'pattern': 'a+b'}}, '$ref': '#/$defs/s'}"
        use = f"from llm_wire import result; result.unwrap(llm_wire.contract.load({schema}))"
        loaded = set(_loaded_by(f"{STACK}; {use}; llm_wire.message.dumps([])"))
        assert {"referencing", "re2"} <= loaded
        assert "cattrs" not in loaded


class TestOneDefinition:
    """A class name is defined once in the package."""

    def test_class_names_are_unique(self) -> None:
        """No two ``class X`` statements in the library share a name (the demo's examples aside)."""
        seen: dict[str, list[str]] = {}
        for module, path in MODULES:
            if module.startswith("llm_wire.demo"):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    seen.setdefault(node.name, []).append(module)
        twice = {name: where for name, where in seen.items() if len(where) > 1}
        assert twice == {}


def _public_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(llm_wire.__path__, "llm_wire."):
        if any(part.startswith("_") for part in info.name.split(".")) or ".demo" in info.name:
            continue
        names.append(info.name)
    return ["llm_wire", *sorted(names)]


PUBLIC = _public_modules()


def _defined_names(module: ModuleType) -> set[str]:
    """
    Public names the module's own source binds at its top level, TypeVars and the old names kept for one
    release (``llm_wire._deprecated.ALIASES``) aside.
    """
    source = inspect.getsource(module)
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
    return {
        name
        for name in names
        if not name.startswith("_")
        and not isinstance(getattr(module, name, None), typing.TypeVar)
        and f"{module.__name__}.{name}" not in _OLD_NAMES
    }


_OLD_NAMES = {old for old, _ in ALIASES}


class TestPublicFaces:
    """Every public module says what it exports, and exports what it says."""

    @pytest.mark.parametrize("name", PUBLIC)
    def test_all_matches_the_module(self, name: str) -> None:
        """``__all__`` names exist, hold no duplicates, and include every public name defined here."""
        module = importlib.import_module(name)
        assert hasattr(module, "__all__"), f"{name} has no __all__"
        exported = list(module.__all__)
        assert len(exported) == len(set(exported))
        missing = [n for n in exported if not hasattr(module, n)]
        assert missing == []
        unlisted = sorted(_defined_names(module) - set(exported))
        assert unlisted == [], f"{name} defines public names not in __all__"

    @pytest.mark.parametrize("name", PUBLIC)
    def test_exported_types_print_a_public_path(self, name: str) -> None:
        """A class exported by a public module says it lives in a public module."""
        module = importlib.import_module(name)
        private = []
        for exported in module.__all__:
            obj = getattr(module, exported)
            home = obj.__module__ if inspect.isclass(obj) else ""
            if home.startswith("llm_wire") and any(part.startswith("_") for part in home.split(".")):
                private.append(f"{exported}: {home}")
        assert private == []


_PRIVATE_IMPORT = re.compile(r"^\s*(?:from|import)\s+(llm_wire(?:\.\w+)*)(?:\s+import\s+([^\n]+))?", re.M)


def _user_facing() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((ROOT / "demo").glob("*.py"))]


class TestNoPrivateNames:
    """What a user reads (README, docs, the demo) imports only public modules and names."""

    @pytest.mark.parametrize("path", _user_facing(), ids=lambda p: p.name)
    def test_no_private_import(self, path: Path) -> None:
        """No ``from llm_wire._x import``, and no ``_name`` imported from a public module."""
        bad = []
        for match in _PRIVATE_IMPORT.finditer(path.read_text(encoding="utf-8")):
            module, names = match.group(1), match.group(2) or ""
            if any(part.startswith("_") for part in module.split(".")):
                bad.append(module)
            bad.extend(n for n in re.findall(r"\b_\w+", names) if n != "__future__")
        assert bad == []


def _error_records() -> list[type]:
    records = []
    for module, _ in MODULES:
        if module.startswith("llm_wire.demo") or module == "llm_wire.__main__":
            continue
        loaded = importlib.import_module(module)
        for obj in (getattr(loaded, name) for name in dir(loaded)):
            if not inspect.isclass(obj) or obj.__module__ != module or "describe" not in vars(obj):
                continue
            describe = vars(obj)["describe"]
            if callable(describe) and len(inspect.signature(describe).parameters) == 1:
                records.append(obj)
    return records


class TestTexts:
    """An error record prints as its description, never as a raw repr."""

    @pytest.mark.parametrize("record", _error_records(), ids=lambda c: f"{c.__module__}.{c.__qualname__}")
    def test_str_is_describe(self, record: type) -> None:
        """``str(error) == error.describe()``: the class defines ``__str__`` (enum members are checked)."""
        if issubclass(record, enum.Enum):
            for member in record:
                assert str(member) == member.describe()  # type: ignore[attr-defined]
        else:
            assert record.__str__ not in (object.__str__, BaseException.__str__)
            assert "__str__" in vars(record) or any("__str__" in vars(base) for base in record.__mro__[1:-1])
