"""
A traced durable run, in its own process (DBOS is one per process): ``python durable_tracing_app.py DIR``
prints the run's status and run id, then each finished span as ``[name, parent's name, run id attribute]``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import attrs
from dbos import DBOS
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from llm_wire import config, user
from llm_wire.agent import Idempotency, ToolContract, make_tool, reflect
from llm_wire.agent.scripted import ScriptedClient, call, reply
from llm_wire.agent.store import RunRecord, SqliteRunStore
from llm_wire.durable import DurableRunner, sqlite_config
from llm_wire.message import Provider


@attrs.frozen
class Weather:
    """Get the weather."""

    city: str

    def invoke(self) -> str:
        return "sunny"


def main(directory: Path) -> None:
    exporter = InMemorySpanExporter()
    traces = TracerProvider()
    traces.add_span_processor(SimpleSpanProcessor(exporter))
    DBOS(config=sqlite_config("traced", str(directory / "dbos.sqlite")))
    model = ScriptedClient([reply("", call("weather", '{"city": "Oslo"}', id="c1")), reply("done")])
    tools = reflect(make_tool(Weather, contract=ToolContract(idempotency=Idempotency.IDEMPOTENT)))
    store = SqliteRunStore(directory / "runs.sqlite")
    runner = DurableRunner(
        "traced", model, config(Provider.OPENAI_CHAT), tools, store=store, tracer=traces.get_tracer("test")
    )
    DBOS.launch()
    try:
        ended = runner.run("run-traced", "m", [user("go")])
    finally:
        DBOS.destroy()
    assert isinstance(ended, RunRecord)
    spans = exporter.get_finished_spans()
    names = {span.context.span_id: span.name for span in spans}
    print(json.dumps({"status": ended.status.value, "run_id": ended.run_id}))
    for span in spans:
        parent = None if span.parent is None else names.get(span.parent.span_id)
        print(json.dumps([span.name, parent, (span.attributes or {}).get("llm_wire.run.id")]))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
