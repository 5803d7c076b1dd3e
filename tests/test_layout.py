"""
The house rules, checked on the source: layers, one definition per name, public faces and their texts.

The layer table is DESIGN.md's; a module may import only from its own layer or a lower one. The facade
(``llm_wire/__init__.py``) loads its names lazily, so importing one part loads only that part and what it
stands on.
"""

from __future__ import annotations

import ast
import enum
import functools
import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path

import pytest

import llm_wire
from llm_wire._layout import (
    MAX_AGENT,
    MAX_LINES,
    MAX_TOTAL,
    Surface,
    check,
    import_cycles,
    imports,
    source_modules,
    surface,
)

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
        "llm_wire._described",
    ),
    ("llm_wire.value",),
    ("llm_wire.schema", "llm_wire._keywords", "llm_wire.reasons", "llm_wire._regex"),
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
    ("llm_wire.cli", "llm_wire.demo", "llm_wire.__main__", "llm_wire._layout", "llm_wire"),
)


def _layer_of(module: str) -> int:
    for n, names in enumerate(LAYERS):
        for name in names:
            if name != "llm_wire" and (module == name or module.startswith(name + ".")):
                return n
    if module == "llm_wire":
        return len(LAYERS) - 1
    raise AssertionError(f"{module} is in no layer of DESIGN.md's table; add it to LAYERS")


MODULES = source_modules()
MODULE_NAMES = {name for name, _ in MODULES}


def _imports(module: str, path: Path) -> set[str]:
    """Every ``llm_wire`` module this one imports, at any depth of its code."""
    return imports(module, path, MODULE_NAMES)


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

    @pytest.mark.parametrize("module", ["llm_wire.agent", "llm_wire.outcome"])
    def test_no_optional_extra_loads_with_the_core(self, module: str) -> None:
        """The runner and the outcomes load no optional extra: no httpx, mcp, dbos or tiktoken."""
        extras = [
            name for name in _loaded_by(f"import {module}") if re.match(r"(httpx|mcp|dbos|tiktoken)\b", name)
        ]
        assert extras == []

    def test_the_agent_face_loads_no_part(self) -> None:
        """
        ``import llm_wire.agent`` loads none of the heavy modules a run needs (issue 28): no event loop, no
        attrs, no parser, no contract, codec, request or provider module, no optional extra; each loads on
        first use of a name that needs it.
        """
        heavy = [
            name
            for name in _loaded_by("import llm_wire.agent")
            if re.match(
                r"(asyncio|ssl|subprocess|concurrent|logging|attrs?|jiter|jsonschema|referencing|re2|cattrs"
                r"|httpx|anyio|mcp|dbos|pydantic|sqlite3|tiktoken|decimal|inspect)\b"
                r"|llm_wire\.(value|schema|codec|contract|tool|admission|_request|providers|outcome|message)\b"
                r"|llm_wire\.agent\.(_runner|_steps|_execution|_typed|_descriptor|projection|store|events)\b",
                name,
            )
        ]
        assert heavy == []

    def test_declaring_tools_loads_no_event_loop(self) -> None:
        """Typed tools and descriptors declared without a run load no ``asyncio`` (a run loads it)."""
        statement = "from llm_wire.agent import ToolDescriptor, make_tool, reflect"
        assert [name for name in _loaded_by(statement) if re.match(r"(asyncio|ssl)\b", name)] == []

    def test_checking_a_saved_listing_loads_no_client(self, tmp_path: Path) -> None:
        """
        ``llm-wire check --tools FILE`` loads neither the MCP client's transport (``anyio``) nor the agent,
        nor the package metadata (read only for ``--version``).
        """
        listing = tmp_path / "tools.json"
        listing.write_text('{"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}', encoding="utf-8")
        run = f"from llm_wire.cli import main; main(['check', '--tools', {str(listing)!r}])"
        loaded = _loaded_by(run)
        assert "llm_wire.mcp._declare" in loaded
        heavy = [
            name
            for name in loaded
            if re.match(r"(anyio|asyncio|importlib\.metadata|llm_wire\.agent|llm_wire\.mcp\._client)\b", name)
        ]
        assert heavy == []

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

    def test_the_stack_loads_no_request_module(self) -> None:
        """
        The public stack (outcomes included) loads none of the requests (``_request``): ``resolve`` checks
        its ``Prepared`` against them when called, and a ``Prepared`` comes from ``prepare``, which loads
        them.
        """
        assert [name for name in _loaded_by(STACK) if name.startswith("llm_wire._request")] == []

    def test_checking_a_saved_listing_loads_no_hashlib(self, tmp_path: Path) -> None:
        """
        ``llm-wire check --tools FILE`` on short tool names loads no ``hashlib`` (OpenSSL): only a wire name
        over 64 bytes is shortened with a digest (``llm_wire.names``).
        """
        listing = tmp_path / "tools.json"
        listing.write_text('{"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}', encoding="utf-8")
        run = f"from llm_wire.cli import main; main(['check', '--tools', {str(listing)!r}])"
        assert "hashlib" not in _loaded_by(run)


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


class TestPublicFaces:
    """Every public module says what it exports, and exports what it says."""

    @pytest.mark.parametrize("name", PUBLIC)
    def test_all_matches_the_module(self, name: str) -> None:
        """
        ``__all__`` names exist and hold no duplicates. (That no other public-looking name is bound is
        ``tests/test_deprecated.py``'s check, with the old names kept for one release.)
        """
        module = importlib.import_module(name)
        assert hasattr(module, "__all__"), f"{name} has no __all__"
        exported = list(module.__all__)
        assert len(exported) == len(set(exported))
        missing = [n for n in exported if not hasattr(module, n)]
        assert missing == []

    def test_each_object_is_listed_by_one_module(self) -> None:
        """No two public modules list one object, but the root facade, which re-exports a day's names."""
        assert surface(PUBLIC).relisted_outside_the_facade() == []

    def test_the_facade_block_is_its_table(self) -> None:
        """
        The imports mypy reads on the facade name exactly ``_FACE`` and ``_OLD`` (the old names, for one
        release), each re-exported (``X as X``); ``__all__`` is ``_FACE``.
        """
        tree = ast.parse((ROOT / "__init__.py").read_text(encoding="utf-8"))
        (block,) = [
            node
            for node in tree.body
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        ]
        imported: dict[str, list[str]] = {}
        for node in block.body:
            assert isinstance(node, ast.ImportFrom)
            assert node.module is not None
            for alias in node.names:
                assert alias.asname == alias.name, alias.name
                imported.setdefault(node.module, []).append(alias.name)
        face: dict[str, tuple[str, ...]] = vars(llm_wire)["_FACE"]
        both: dict[str, list[str]] = {}
        for table in (face, vars(llm_wire)["_OLD"]):
            for home, names in table.items():
                both.setdefault(home, []).extend(names)
        assert {home: sorted(names) for home, names in imported.items()} == {
            home: sorted(names) for home, names in both.items()
        }
        assert sorted(llm_wire.__all__) == sorted(name for names in face.values() for name in names)

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


# ---------------------------------------------------------------------------------------------------------
# Speed by doing less, not by reaching into objects: no ``__class__`` swap, no slot descriptor's setter, no
# private attribute of another part's class. A part is a top-level module or a subpackage (``codec``,
# ``contract``...): its private modules share their internals as friends, as attrs' own modules do.

#: The one module allowed the tricks below, each tested against its slow twin.
_TRICKS = "llm_wire._fast"


def _part(module: str) -> str:
    """The part a module belongs to: its subpackage of the package, else the module itself."""
    return ".".join(module.split(".")[:2])


def _imported_names(tree: ast.AST) -> set[str]:
    """Names an ``import`` binds anywhere in the module (modules, and names taken from them)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def _private_names(tree: ast.AST) -> set[str]:
    """The private names a module gives its own objects: class members and slots, attributes it stores."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
                elif isinstance(item, ast.Assign):
                    for target in item.targets:
                        if isinstance(target, ast.Name):
                            names.add(target.id)
                            if target.id == "__slots__" and isinstance(item.value, ast.Tuple | ast.List):
                                names.update(
                                    e.value
                                    for e in item.value.elts
                                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                                )
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
    return {name for name in names if name.startswith("_")}


def _reaches(path: Path, own: Collection[str]) -> list[str]:
    """Each place in one module that reaches into an object, as ``line: code``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = _imported_names(tree)
    found = []
    for node in ast.walk(tree):
        bad = False
        if isinstance(node, ast.Attribute):
            if node.attr == "__class__" and isinstance(node.ctx, ast.Store):
                bad = True  # an instance changing its class
            elif node.attr == "__set__" or node.attr == "slot_setters":
                bad = True  # a slot descriptor's setter, around the class's own ``__setattr__``
            elif node.attr.startswith("_") and not node.attr.endswith("__"):
                holder = node.value
                mine = isinstance(holder, ast.Name) and holder.id in ("self", "cls")
                module = isinstance(holder, ast.Name) and holder.id in modules
                bad = not mine and not module and node.attr not in own
        elif isinstance(node, ast.Name) and node.id == "slot_setters":
            bad = True
        elif isinstance(node, ast.Call) and any(
            isinstance(arg, ast.Constant) and arg.value == "__class__" for arg in node.args
        ):
            bad = True  # ``setattr(x, "__class__", ...)`` and the like
        if bad:
            found.append(f"{node.lineno}: {ast.unparse(node)}")  # type: ignore[attr-defined]
    return found


@functools.cache
def _parts_private_names() -> dict[str, frozenset[str]]:
    """For each part, the private names its modules give their own objects."""
    names: dict[str, set[str]] = {}
    for module, path in MODULES:
        names.setdefault(_part(module), set()).update(_private_names(ast.parse(path.read_text("utf-8"))))
    return {part: frozenset(found) for part, found in names.items()}


class TestNoReachingIn:
    """Speed comes from doing less work, never from reaching into objects (DESIGN, principle 7)."""

    @pytest.mark.parametrize(("module", "path"), MODULES, ids=[name for name, _ in MODULES])
    def test_no_module_reaches_into_objects(self, module: str, path: Path) -> None:
        """No ``__class__`` swap, slot setter or private attribute of another part's class (but ``_fast``)."""
        if module == _TRICKS:
            return
        assert _reaches(path, _parts_private_names()[_part(module)]) == []

    def test_the_check_sees_each_trick(self, tmp_path: Path) -> None:
        """Each trick, written in a module of its own part, is found; its honest twin is not."""
        own = {"_check", "_seen"}
        tricks = {
            "admission.py": "found = tool.contract._check(arguments, None)\n",
            "swap.py": "made = new(base)\nmade.__class__ = cls\n",
            "setter.py": "(_set,) = slot_setters(Ok, 'value')\nOk.__dict__['value'].__set__(made, 1)\n",
            "setattr.py": "object.__setattr__(made, '__class__', cls)\n",
        }
        for name, source in tricks.items():
            (tmp_path / name).write_text(source, encoding="utf-8")
            assert _reaches(tmp_path / name, set()), name
        honest = "import sys\nself._seen = 1\nframe = sys._getframe(0)\nfound = contract._check(v, None)\n"
        (tmp_path / "honest.py").write_text(honest, encoding="utf-8")
        assert _reaches(tmp_path / "honest.py", own) == []


class TestHouseShape:
    """No import circle at any depth, and no module a reader cannot hold in mind."""

    def test_no_import_circle(self) -> None:
        """No module reaches itself through imports, counting function-local and ``TYPE_CHECKING`` ones."""
        graph = {module: _imports(module, path) - {module} for module, path in MODULES}
        assert import_cycles(graph) == []

    def test_the_circle_check_sees_a_local_import(self, tmp_path: Path) -> None:
        """A circle closed by an import inside a function (``tool`` and ``_tool_errors`` had one) is found."""
        tool = tmp_path / "tool.py"
        tool.write_text("from llm_wire._tool_errors import EmptyName\n", encoding="utf-8")
        errors = tmp_path / "errors.py"
        errors.write_text("def bound():\n    from llm_wire.tool import MAX_NAME_BYTES\n", encoding="utf-8")
        graph = {"llm_wire.tool": _imports("llm_wire.tool", tool)}
        graph["llm_wire._tool_errors"] = _imports("llm_wire._tool_errors", errors)
        graph["llm_wire.value"] = set()
        assert import_cycles(graph) == [["llm_wire._tool_errors", "llm_wire.tool"]]

    @pytest.mark.parametrize(("module", "path"), MODULES, ids=[name for name, _ in MODULES])
    def test_no_module_over_the_limit(self, module: str, path: Path) -> None:
        """At most ``MAX_LINES`` lines per module."""
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= MAX_LINES, f"{path.relative_to(REPO).as_posix()} has {lines} lines"


def _surface(listed: dict[str, tuple[str, ...]]) -> Surface:
    """A surface whose listings of one name are one object."""
    homes: dict[tuple[object, ...], list[str]] = {}
    for module, names in listed.items():
        for name in names:
            homes.setdefault(("object", name), []).append(f"{module}.{name}")
    return Surface(listed, homes)


class TestLayoutChecks:
    """``python -m llm_wire._layout`` fails on each broken rule, and only then."""

    def test_a_facade_re_export_passes(self) -> None:
        """The root facade lists a name its home lists too."""
        assert check(_surface({"llm_wire": ("Ok",), "llm_wire.result": ("Ok",)}), [], []) == []

    def test_a_name_listed_by_two_modules_fails(self) -> None:
        """Two modules other than the facade list one object."""
        found = _surface({"llm_wire": ("Ok",), "llm_wire.result": ("Ok",), "llm_wire.value": ("Ok",)})
        assert check(found, [], []) == [
            "listed twice outside the facade: llm_wire.result.Ok, llm_wire.value.Ok"
        ]

    def test_too_many_names_fail(self) -> None:
        """Over ``MAX_AGENT`` on ``agent``, or over ``MAX_TOTAL`` in all."""
        agent = _surface({"llm_wire.agent": tuple(f"A{n}" for n in range(MAX_AGENT + 1))})
        assert check(agent, [], []) == [f"llm_wire.agent lists {MAX_AGENT + 1} names, over {MAX_AGENT}"]
        total = _surface({"llm_wire.codec": tuple(f"c{n}" for n in range(MAX_TOTAL + 1))})
        assert check(total, [], []) == [f"the public modules list {MAX_TOTAL + 1} names, over {MAX_TOTAL}"]

    def test_a_circle_and_a_long_module_fail(self) -> None:
        """Each circle and each long module is one failure."""
        failed = check(_surface({}), [["llm_wire.a", "llm_wire.b"]], [("llm_wire.c", MAX_LINES + 1)])
        assert failed == [
            "import circle: llm_wire.a -> llm_wire.b",
            f"llm_wire.c has {MAX_LINES + 1} lines, over {MAX_LINES}",
        ]

    def test_a_problem_reading_a_module_fails(self) -> None:
        """A name listed but not bound, a module that does not import."""
        found = Surface({}, {}, ("llm_wire.x: no __all__",))
        assert check(found, [], []) == ["llm_wire.x: no __all__"]


class TestArchitecturePage:
    """``docs/architecture.md``'s "where do I change X" table stays true."""

    @staticmethod
    def _rows() -> dict[str, list[str]]:
        text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
        table = text.split("## Where do I change X", 1)[1].split("\n## ", 1)[0]
        rows: dict[str, list[str]] = {}
        for line in table.splitlines():
            cells = line.split(" | ")
            if len(cells) == 2 and not line.startswith("| ---") and cells[0] != "| change":
                rows[cells[0].strip("| ")] = re.findall(r"`(llm_wire/[^`]+)`", cells[1])
        return rows

    def test_four_changes_each_name_at_most_three_files(self) -> None:
        """A provider, a contract keyword, the runner's retries and a toolkit: at most three files each."""
        rows = self._rows()
        assert sorted(rows) == [
            "a contract keyword",
            "a provider (a fifth API)",
            "a toolkit",
            "the runner's retries",
        ]
        for change, files in rows.items():
            assert 1 <= len(set(files)) <= 3, (change, files)

    def test_every_file_it_names_exists(self) -> None:
        """A named file exists; a ``<placeholder>`` names a file or folder in a folder that exists."""
        for files in self._rows().values():
            for name in files:
                path = REPO / name
                if "<" in name:
                    assert path.parent.is_dir(), name
                else:
                    assert path.exists(), name
