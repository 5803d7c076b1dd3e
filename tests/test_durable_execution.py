"""
The durable runner keeps the runner's promises at its seams (issue 23): it runs its steps through the same
executor, so a straggler holds no step, a late result is dropped, ``SystemExit`` is a failed call and a
denial by ``Verdict`` denies (``tests/durable_execution_app.py``, run in a real subprocess).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

APP = Path(__file__).with_name("durable_execution_app.py")


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the application saw, run once in a real subprocess."""
    directory = tmp_path_factory.mktemp("seams")
    done = subprocess.run(
        [sys.executable, str(APP), str(directory)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    facts: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return facts


class TestSeams:
    def test_a_straggler_holds_no_durable_run(self, seen: dict[str, Any]) -> None:
        """A sync tool sleeping 3 s under a 0.3 s timeout: the run completes at once, the call timed out
        (``outcome_unknown``: it started and may have had its effect)."""
        assert seen["straggler"] == {"status": "completed", "codes": {"c1": "outcome_unknown"}, "fast": True}

    def test_a_late_result_is_dropped(self, seen: dict[str, Any]) -> None:
        """An async tool that blocks its loop past its timeout is admitted as timed out (unknown outcome)."""
        assert seen["late"] == {"status": "completed", "codes": {"c1": "outcome_unknown"}, "fast": True}

    def test_system_exit_is_a_failed_call(self, seen: dict[str, Any]) -> None:
        """A tool calling ``sys.exit`` fails its call (``tool_crashed``); the run goes on and completes."""
        assert seen["exits"] == {"status": "completed", "codes": {"c1": "tool_crashed"}, "fast": True}

    def test_allow_tool_call_denies_by_verdict(self, seen: dict[str, Any]) -> None:
        """``Verdict.DENY`` from ``allow_tool_call`` denies the call; the tool never runs."""
        assert seen["denied"] == {"status": "completed", "codes": {"c1": "denied"}, "fast": True}
