"""
Tracing where the runner meets DBOS: a durable run with a tracer gives the span tree a plain run gives, under
its durable run id (``tests/durable_tracing_app.py``, in a subprocess: DBOS is one per process).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

APP = Path(__file__).with_name("durable_tracing_app.py")


def test_a_durable_run_is_traced_like_a_plain_one(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(APP), str(tmp_path)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    ended, *spans = (json.loads(line) for line in done.stdout.splitlines())
    assert ended == {"status": "completed", "run_id": "run-traced"}
    assert spans == [
        ["chat m", "invoke_agent", None],
        ["execute_tool weather", "invoke_agent", None],
        ["chat m", "invoke_agent", None],
        ["invoke_agent", None, "run-traced"],
    ]
