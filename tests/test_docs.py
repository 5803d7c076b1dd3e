"""
Every ```python example in ``docs/*.md`` runs: the blocks of one page in order, in one namespace.

A page added to ``docs/`` is picked up automatically. A failing example reports its page and line.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
#: The guide's pages, and the README, whose example is the first code a user runs.
PAGES = [*sorted(DOCS.glob("*.md")), DOCS.parent / "README.md"]

#: A fenced block opened by ```python at the start of a line, up to the closing fence.
_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """The ```python blocks of a Markdown page: (line of the first code line, code)."""
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


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
