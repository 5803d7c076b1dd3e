"""
What the transport tests share: a declared tool, prepared requests for each API, and one driver that runs a
call through the sync or the async client against a fake provider.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Literal

from llm_wire import Config, config, prepare, request, user
from llm_wire._request import Prepared
from llm_wire.message import Provider
from llm_wire.outcome import Outcome
from llm_wire.providers.response import Progress
from llm_wire.result import unwrap
from llm_wire.tool import Tool, from_json_schema
from llm_wire.transport import AsyncClient, Attempts, Client, RetryPolicy, Timeouts
from llm_wire.transport.fake import FakeCall, FakeProvider

WEATHER: Tool = unwrap(
    from_json_schema(
        "get_weather",
        "The weather in a city.",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    )
)
CALL = FakeCall("call_1", "get_weather", '{"city": "Paris"}')

Kind = Literal["sync", "async"]
KINDS: list[Kind] = ["sync", "async"]
#: A timeout fires within its bound plus this much (a generous margin on a shared machine).
SLACK = 2.5


def prepared(provider: Provider, stream: bool = False, base: Config | None = None) -> Prepared:
    """A request for ``provider`` declaring ``WEATHER``, streamed or not."""
    chosen = (base or config(provider)).with_stream(stream)
    return unwrap(prepare(chosen, request("fake-model", [user("Weather in Paris?")]).with_tools([WEATHER])))


def send(
    kind: Kind,
    fake: FakeProvider,
    prepared_: Prepared,
    *,
    timeouts: Timeouts | None = None,
    retry: RetryPolicy | None = None,
) -> tuple[Attempts, float]:
    """One ``send`` through the ``kind`` client to ``fake``: its attempts and the seconds it took."""
    timeouts = timeouts or Timeouts()
    start = time.monotonic()
    if kind == "sync":
        with Client(base_url=fake.url, timeouts=timeouts) as client:
            got = client.send(prepared_, retry=retry)
    else:

        async def run() -> Attempts:
            async with AsyncClient(base_url=fake.url, timeouts=timeouts) as client:
                return await client.send(prepared_, retry=retry)

        got = asyncio.run(run())
    return got, time.monotonic() - start


def stream(
    kind: Kind, fake: FakeProvider, prepared_: Prepared, stop: Callable[[list[Progress | Outcome]], bool]
) -> list[Progress | Outcome]:
    """The items of ``stream`` until ``stop(items)`` holds, then the stream is closed."""
    items: list[Progress | Outcome] = []
    if kind == "sync":
        with Client(base_url=fake.url) as client:
            iterator = client.stream(prepared_)
            for item in iterator:
                items.append(item)
                if stop(items):
                    break
            iterator.close()
        return items

    async def run() -> None:
        async with AsyncClient(base_url=fake.url) as client:
            iterator = client.stream(prepared_)
            async for item in iterator:
                items.append(item)
                if stop(items):
                    break
            await iterator.aclose()

    asyncio.run(run())
    return items
