"""The toolkits' rooms: each runtime a subpackage whose face keeps its names, no module over 700 lines."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

import llm_wire
from llm_wire.toolkits import filesystem, process

ROOT = Path(llm_wire.__file__).parent
SIZED = sorted([*(ROOT / "toolkits").rglob("*.py"), *(ROOT / "agent").glob("_*.py")])


@pytest.mark.parametrize("path", SIZED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_over_700_lines(path: Path) -> None:
    """A module a reader can hold in mind: at most 700 lines."""
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 700


@pytest.mark.parametrize("face", [filesystem, process], ids=lambda m: m.__name__)
def test_each_runtime_is_a_room(face: ModuleType) -> None:
    """The face is a package; every class it exports prints the face as its home."""
    assert hasattr(face, "__path__")
    for name in vars(face)["__all__"]:
        exported = getattr(face, name)
        if isinstance(exported, type):
            assert exported.__module__ == face.__name__
