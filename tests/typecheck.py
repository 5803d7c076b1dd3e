"""
``mypy --strict`` on a user's script, in process: the typing tests' one way to ask what mypy says.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from mypy import api as mypy_api

ROOT = Path(__file__).resolve().parents[1]

#: ``mypy --strict`` under the project's configuration and cache, its messages one line each.
STRICT = [
    "--config-file",
    str(ROOT / "pyproject.toml"),
    "--cache-dir",
    str(ROOT / ".mypy_cache"),
    "--strict",
    "--no-error-summary",
    "--hide-error-context",
    "--show-error-codes",
]


def mypy_strict(tmp_path: Path, source: str) -> list[str]:
    """The error and note lines of ``mypy --strict`` on ``source``, as ``line: message``."""
    path = tmp_path / "user_code.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    out, err, _ = mypy_api.run([*STRICT, str(path)])
    assert not err, err
    return [re.sub(r"^.*user_code\.py:(\d+): ", r"\1: ", line) for line in out.splitlines()]
