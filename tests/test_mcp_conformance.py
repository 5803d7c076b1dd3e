"""
The MCP client conformance suite (``conformance/run.py``, as ``make conformance`` runs it) holds to
``conformance/baseline.md``. Skipped, saying why, without Node.js or the installed suite.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

RUN = Path(__file__).resolve().parent.parent / "conformance" / "run.py"


def test_the_suite_holds_to_its_baseline() -> None:
    """Each scenario's result and failing checks match the baseline; each suite scenario is accounted for."""
    command = [sys.executable, str(RUN)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if done.stdout.startswith("conformance: skipped"):
        pytest.skip(done.stdout.strip())
    if done.returncode == 2:
        pytest.skip("the MCP conformance suite is not installed: run `make install-conformance` (needs npm)")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| `tools_call` | 2026-07-28 | pass |" in done.stdout
