"""
Every recorded exchange of ``../shared/corpora/provider-responses`` replayed over real HTTP through the fake
provider (done-when item 1): each, body or stream as recorded, sync and async, gives the same outcome as
decoding the recorded bytes in-process. Counts are printed per API. The folder absent, the test is skipped.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest
from attrs import evolve

from llm_wire import config, prepare, request, user
from llm_wire._request import Prepared
from llm_wire.message import Provider
from llm_wire.outcome import Failure, Outcome, resolve, resolve_stream
from llm_wire.result import Err, unwrap
from llm_wire.tool import ToolCallChecks
from llm_wire.transport import AsyncClient, Client
from llm_wire.transport.fake import FakeProvider, Reply, recorded
from llm_wire.value import Limits, Value, parse

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "provider-responses"
APIS = {
    "openai-responses": Provider.OPENAI_RESPONSES,
    "openai-chat": Provider.OPENAI_CHAT,
    "anthropic": Provider.ANTHROPIC,
    "gemini": Provider.GOOGLE,
}
_READ = Limits(max_bytes=64 * 1024 * 1024, max_values=10_000_000, max_depth=256)


def _records(api: str) -> list[tuple[str, Value]]:
    index = CORPUS / "index.json"
    if not index.is_file():
        pytest.skip(f"provider-responses corpus not found at {CORPUS}")
    entries = unwrap(parse(index.read_bytes(), _READ))
    assert isinstance(entries, list)
    found = []
    for entry in entries:
        assert isinstance(entry, dict)
        if entry["provider"] == api:
            name = entry["file"]
            assert isinstance(name, str)
            found.append((name, unwrap(parse((CORPUS / name).read_bytes(), _READ))))
    return found


def _prepared(provider: Provider, stream: bool) -> Prepared:
    chosen = config(provider).with_stream(stream).with_tool_call_checks(ToolCallChecks.REPORT)
    return unwrap(prepare(chosen, request("recorded-model", [user("replay")])))


def in_process(reply: Reply, prepared: Prepared) -> Outcome:
    """The outcome of the recorded bytes decoded without any HTTP."""
    if reply.status != 200:
        error = prepared.wire.decode_error(reply.status, reply.body, None)
        failed = resolve(Err(error), prepared)
        assert isinstance(failed, Failure)
        return evolve(failed, provider=prepared.provider)
    if not reply.stream:
        return resolve(prepared.decode_body(reply.body), prepared)
    decoder = prepared.decoder()
    decoder.feed_bytes(reply.body)
    return resolve_stream(decoder, prepared)


def over_http(replies: list[tuple[Reply, Prepared]]) -> tuple[list[Outcome], list[Outcome]]:
    """Each reply served by the fake provider, fetched by the sync client, then by the async one."""
    with FakeProvider([reply for reply, _ in replies] * 2) as fake:
        with Client(base_url=fake.url) as client:
            sync = [client.complete(prepared) for _, prepared in replies]

        async def run() -> list[Outcome]:
            async with AsyncClient(base_url=fake.url) as client:
                return [await client.complete(prepared) for _, prepared in replies]

        return sync, asyncio.run(run())


class TestReplay:
    """A recorded exchange over HTTP gives the outcome of its bytes decoded in-process."""

    @pytest.mark.parametrize("api", sorted(APIS))
    def test_recorded_exchanges(self, api: str, capsys: pytest.CaptureFixture[str]) -> None:
        """Same outcome, sync and async, for every recording of the API."""
        provider = APIS[api]
        counts: Counter[str] = Counter()
        cases = []
        for name, record in _records(api):
            reply = recorded(record)
            prepared = _prepared(provider, reply.stream)
            cases.append((name, reply, prepared, in_process(reply, prepared)))
            kind = "errors" if reply.status != 200 else "streams" if reply.stream else "bodies"
            counts[kind] += 1
        sync, async_ = over_http([(reply, prepared) for _, reply, prepared, _ in cases])
        failures = []
        for (name, _, _, expected), one, other in zip(cases, sync, async_, strict=True):
            counts[type(expected).__name__] += 1
            if one != expected:
                failures.append(f"{name}: sync {one} != {expected}")
            if other != expected:
                failures.append(f"{name}: async {other} != {expected}")
        shown = ", ".join(f"{counts[k]} {k}" for k in ("bodies", "streams", "errors"))
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()) if k[0].isupper())
        with capsys.disabled():
            print(f"\nreplayed over HTTP, {api}: {len(cases)} exchanges ({shown}), sync and async; {kinds}")
        assert cases
        assert not failures, "\n".join(failures[:20])

    def test_recorded_bytes_are_served_unchanged(self) -> None:
        """The fake provider sends a recording's raw SSE text byte for byte."""
        with_sse = [(n, r) for n, r in _records("anthropic") if isinstance(r, dict) and "response_sse" in r]
        _, record = with_sse[0]
        assert isinstance(record, dict)
        reply = recorded(record)
        raw = record["response_sse"]
        assert isinstance(raw, str)
        assert reply.body == raw.encode()
