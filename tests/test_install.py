"""
llm_wire in a user's project: the built wheel installs into a fresh virtual environment, a user's script runs
there, and ``mypy --strict`` reads the installed package's types (the wheel ships ``py.typed``).

Offline: the wheel is built with the build backend ``make install`` put in ``.venv`` (no build isolation),
and the fresh environment finds the runtime dependencies in ``.venv``'s site-packages through a ``.pth``
line (which loads none of ``.venv``'s own ``.pth`` files, so not its editable llm_wire). About 20 seconds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: A user's script: an attrs tool and a pydantic tool through the typed API, one revealed type.
USER_SCRIPT = """
from typing import Annotated, reveal_type

import attrs
from pydantic import BaseModel, Field

import llm_wire as rq
from llm_wire import codec, tool
from llm_wire.result import unwrap


@attrs.frozen
class GetWeather:
    \"\"\"Current weather for a city.\"\"\"

    city: Annotated[str, codec.meta(min_length=1)]
    days: int = codec.field(default=1, minimum=1, maximum=14)


class Forecast(BaseModel):
    \"\"\"A forecast for a city.\"\"\"

    city: str = Field(min_length=1)
    days: int = Field(default=1, ge=1, le=14)


weather = tool.new("get_weather", "Current weather", codec.derive(GetWeather))
forecast = tool.new("forecast", "A forecast", codec.derive(Forecast))
req = rq.request("claude-sonnet-4-5", [rq.user("Weather in Paris?")]).with_tools([weather, forecast])
prepared = unwrap(rq.prepare(rq.Config.anthropic(), req))
decoded = unwrap(codec.derive(Forecast).decode({"city": "Paris"}))
reveal_type(decoded)
print(prepared.path, decoded.days, rq.__file__)
"""


def _run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("MYPYPATH", "PYTHONPATH")}
    return subprocess.run(
        [str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.wheel
def test_the_wheel_in_a_fresh_environment(tmp_path: Path) -> None:
    """Build the wheel, install it alone in a new venv, run a user's script and mypy --strict on it."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "pyproject.toml", project)
    shutil.copy(ROOT / "README.md", project)
    shutil.copytree(ROOT / "llm_wire", project / "llm_wire", ignore=shutil.ignore_patterns("__pycache__"))
    built = _run(
        sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
        "-w", tmp_path / "dist", project, cwd=tmp_path,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("llm_wire-*.whl")

    venv = tmp_path / "venv"
    made = _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = _run(
        sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", wheel,
        cwd=tmp_path,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    purelib = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path)
    site = Path(purelib.stdout.strip())
    assert (site / "llm_wire" / "py.typed").is_file()
    (site / "llm_wire_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")

    user = tmp_path / "user"
    user.mkdir()
    (user / "app.py").write_text(textwrap.dedent(USER_SCRIPT), encoding="utf-8")
    ran = _run(python, "app.py", cwd=user)
    assert ran.returncode == 0, ran.stderr
    path, days, module = ran.stdout.split()
    assert (path, days) == ("/v1/messages", "1")
    assert Path(module).is_relative_to(site)  # the wheel's llm_wire, not the checkout's

    checked = _run(
        sys.executable, "-m", "mypy", "--strict", "--python-executable", python,
        "--cache-dir", tmp_path / "mypy-cache", "--no-error-summary", "app.py", cwd=user,
    )  # fmt: skip
    assert checked.stdout.splitlines() == ['app.py:32: note: Revealed type is "app.Forecast"'], checked.stdout
    assert checked.returncode == 0
