"""
The durable runner where its parts meet (issue 23), run in a real subprocess by
``tests/test_durable_execution.py``: a sync tool that outlives its timeout, a tool that calls ``sys.exit``, an
async tool that blocks its loop and an ``allow_tool_call`` that denies by ``Verdict``. Each is one durable run
on SQLite; the app prints what it saw as one JSON line.

``python tests/durable_execution_app.py DIRECTORY``
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import attrs
from dbos import DBOS

from llm_wire import config, user
from llm_wire.agent import ToolContract, ToolDescriptor, make_tool, reflect
from llm_wire.agent.events import Verdict
from llm_wire.agent.scripted import ScriptedClient, call, reply
from llm_wire.agent.store import RunRecord, SqliteRunStore, Suspended
from llm_wire.durable import DurableRunner, sqlite_config
from llm_wire.message import Provider, ToolCall

CONFIG = config(Provider.OPENAI_CHAT)


@attrs.frozen
class Stubborn:
    """Sleeps past its timeout and ignores its context."""

    def invoke(self) -> str:
        time.sleep(3)
        return "late"


@attrs.frozen
class Exits:
    """Parses its arguments the argparse way."""

    def invoke(self) -> str:
        raise SystemExit(2)


@attrs.frozen
class BlocksItsLoop:
    """Blocks its event loop past its timeout."""

    async def invoke(self) -> str:
        time.sleep(0.8)
        return "late"


@attrs.frozen
class Guarded:
    """A tool the host never allows."""

    def invoke(self) -> str:
        return "ran"


def seen_by_model(record: RunRecord) -> dict[str, object]:
    """The stored run: its status, and each admitted call's error code (or ``ok``)."""
    codes = {}
    for call_id, admitted in sorted(record.admitted.items()):
        failure = admitted.outcome.failure
        codes[call_id] = "ok" if failure is None else failure.code
    return {"status": record.status.value, "codes": codes}


def main(directory: Path) -> dict[str, object]:
    DBOS(config=sqlite_config("seams", str(directory / "dbos.sqlite")))
    store = SqliteRunStore(directory / "runs.sqlite")
    short = ToolContract(timeout=0.3)

    def deny(tool_call: ToolCall, descriptor: ToolDescriptor) -> Verdict:
        return Verdict.DENY

    runners = {
        "straggler": DurableRunner(
            "straggler",
            ScriptedClient([reply("", call("stubborn", "{}", id="c1")), reply("done")]),
            CONFIG,
            reflect(make_tool(Stubborn, contract=short)),
            store=store,
        ),
        "exits": DurableRunner(
            "exits",
            ScriptedClient([reply("", call("exits", "{}", id="c1")), reply("done")]),
            CONFIG,
            reflect(make_tool(Exits)),
            store=store,
        ),
        "late": DurableRunner(
            "late",
            ScriptedClient([reply("", call("blocks_its_loop", "{}", id="c1")), reply("done")]),
            CONFIG,
            reflect(make_tool(BlocksItsLoop, contract=short)),
            store=store,
        ),
        "denied": DurableRunner(
            "denied",
            ScriptedClient([reply("", call("guarded", "{}", id="c1")), reply("done")]),
            CONFIG,
            reflect(make_tool(Guarded)),
            store=store,
            allow_tool_call=deny,
        ),
    }
    DBOS.launch()
    seen: dict[str, object] = {}
    for name, runner in runners.items():
        started = time.monotonic()
        ended = runner.run(f"run-{name}", "any-model", [user("go")])
        assert not isinstance(ended, Suspended)
        seen[name] = {**seen_by_model(ended), "fast": time.monotonic() - started < 2.0}
    store.close()
    return seen


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))), flush=True)
