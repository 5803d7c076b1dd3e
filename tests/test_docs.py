"""
Every ```python example in ``docs/*.md`` and the README runs and passes ``mypy --strict``: the blocks of one
page in order, in one namespace (one module).

A page added to ``docs/`` is picked up automatically. A failing example reports its page and line.
"""

from __future__ import annotations

import re
import sys
import tempfile
import types
from pathlib import Path

import pytest
from mypy import api as mypy_api
from typecheck import STRICT

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: The guide's pages, and the README, whose example is the first code a user runs.
PAGES = [*sorted(DOCS.glob("*.md")), DOCS.parent / "README.md"]

#: A fenced block opened by ```python at the start of a line, up to the closing fence.
_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """The ```python blocks of a Markdown page: (line of the first code line, code)."""
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def page_module(text: str) -> str:
    """The page's blocks as one module whose line numbers are the page's (other lines left blank)."""
    lines: list[str] = []
    for line, code in python_blocks(text):
        lines.extend([""] * (line - 1 - len(lines)))
        lines.extend(code.splitlines())
    return "\n".join(lines) + "\n"


def module_name(page: Path) -> str:
    """The module a page's examples type-check as: ``docs_tools``, ``docs_README``."""
    return f"docs_{page.stem}"


#: ``docs_tools.py:12: error: ...``: one mypy error line.
_MYPY_LINE = re.compile(r"^(?:.*/)?(?P<module>docs_\w+)\.py:(?P<line>\d+):(?:\d+:)? (?P<message>.*)$")


class TestExamples:
    """Every guide page's code runs and type-checks."""

    def test_blocks_are_found(self) -> None:
        """The extractor sees python blocks, their lines, and nothing from other fences."""
        page = "# T\n\n```python\nx = 1\n```\n\n```json\n{}\n```\n\ntext\n```python\ny = x\n```\n"
        assert python_blocks(page) == [(4, "x = 1\n"), (13, "y = x\n")]

    def test_there_are_docs(self) -> None:
        assert sorted(DOCS.glob("*.md")), f"no Markdown pages in {DOCS}"

    @pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
    def test_examples_run(self, page: Path) -> None:
        blocks = python_blocks(page.read_text(encoding="utf-8"))
        # A real module, so that dataclasses and type hints in the examples resolve as in a user's file.
        module = types.ModuleType(f"docs_{page.stem}")
        sys.modules[module.__name__] = module
        try:
            for line, code in blocks:
                # Pad with blank lines so that a traceback names the line in the Markdown page; the examples
                # must not inherit this file's ``from __future__ import annotations``.
                source = "\n" * (line - 1) + code
                exec(compile(source, str(page), "exec", dont_inherit=True), module.__dict__)
        finally:
            del sys.modules[module.__name__]

    def test_page_module_keeps_the_page_lines(self) -> None:
        """The module written for a page has each code line on the line it has in the page."""
        page = "# T\n\n```python\nx = 1\n```\n\ntext\n```python\ny = x\n```\n"
        assert page_module(page).splitlines() == ["", "", "", "x = 1", "", "", "", "", "y = x"]

    def test_examples_type_check(self) -> None:
        """Every page's examples pass ``mypy --strict`` with the repository's configuration (one run)."""
        pages = {module_name(page): page for page in PAGES}
        with tempfile.TemporaryDirectory() as tmp:
            files = []
            for name, page in pages.items():
                path = Path(tmp) / f"{name}.py"
                path.write_text(page_module(page.read_text(encoding="utf-8")), encoding="utf-8")
                files.append(str(path))
            out, err, status = mypy_api.run([*STRICT, *files])
        problems = []
        for text in out.splitlines():
            found = _MYPY_LINE.match(text)
            if found is None:
                problems.append(text)
            else:
                page = pages[found["module"]].relative_to(ROOT)
                problems.append(f"{page}:{found['line']}: {found['message']}")
        assert not err, err
        assert status == 0, "\n".join(problems)
