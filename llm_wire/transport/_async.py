"""
The async client: ``AsyncClient`` drives the sans-I/O ``HttpCall`` over an ``httpx.AsyncClient``.

Every network step runs under a cancel scope of its bound, so a stalled read ends at its deadline; a
cancelled task or a closed stream closes the connection at once (shielded, so nothing reads on after).
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Mapping
from types import TracebackType

import anyio
import httpx

from llm_wire._request import Prepared
from llm_wire.outcome import Outcome
from llm_wire.providers.response import Progress
from llm_wire.transport._base import BaseClient
from llm_wire.transport._core import Attempts, HttpCall, RetryPlan, check_prepared
from llm_wire.transport._settings import RetryPolicy, Timeouts

__all__ = ["AsyncClient"]

_DEFAULT_TIMEOUTS = Timeouts()


class AsyncClient:
    """
    The async twin of ``Client``: the same settings (``http`` is an ``httpx.AsyncClient``), ``await
    complete(prepared)``, ``async for`` over ``stream(prepared)``. Close it with ``aclose`` (or ``async
    with``).
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeouts: Timeouts = _DEFAULT_TIMEOUTS,
        retry: RetryPolicy | None = None,
        http: httpx.AsyncClient | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._base = BaseClient(
            api_key=api_key,
            base_url=base_url,
            headers=headers,
            timeouts=timeouts,
            retry=retry,
            environ=environ,
        )
        if http is not None and not isinstance(http, httpx.AsyncClient):
            msg = f"http must be an httpx.AsyncClient or None, not {type(http).__name__}"
            raise TypeError(msg)
        self._http = http if http is not None else httpx.AsyncClient(timeout=None)

    async def complete(self, prepared: Prepared, *, retry: RetryPolicy | None = None) -> Outcome:
        """The outcome of sending ``prepared`` (a stream is read to its end); ``TypeError`` if not one."""
        return (await self.send(prepared, retry=retry)).outcome

    async def send(self, prepared: Prepared, *, retry: RetryPolicy | None = None) -> Attempts:
        """``complete`` with every attempt reported (one without a ``RetryPolicy``)."""
        runs = self._run(prepared, retry)
        try:
            async for item in runs:
                if isinstance(item, Attempts):
                    return item
        finally:
            await runs.aclose()
        raise AssertionError("a send ends with its attempts")  # pragma: no cover

    def stream(
        self, prepared: Prepared, *, retry: RetryPolicy | None = None
    ) -> AsyncGenerator[Progress | Outcome, None]:
        """
        The progress of ``prepared``'s response as it arrives, then its outcome, last. Closing the iterator
        (``aclose``) or cancelling the task closes the connection. ``TypeError`` at once if ``prepared`` is
        no ``Prepared``.
        """
        check_prepared(prepared)
        return self._stream(prepared, self._base.policy(retry))

    async def _stream(
        self, prepared: Prepared, retry: RetryPolicy | None
    ) -> AsyncGenerator[Progress | Outcome, None]:
        runs = self._run(prepared, retry)
        try:
            async for item in runs:
                yield item.outcome if isinstance(item, Attempts) else item
        finally:
            await runs.aclose()

    async def _run(
        self, prepared: Prepared, retry: RetryPolicy | None
    ) -> AsyncGenerator[Progress | Attempts, None]:
        plan = RetryPlan(self._base.policy(retry), time.monotonic())
        while True:
            call, missing = self._base.call(prepared, time.monotonic(), plan.deadline)
            if missing:
                call.no_key()
            else:
                steps = self._exchange(call)
                try:
                    async for progress in steps:
                        yield progress
                finally:
                    await steps.aclose()
            assert call.outcome is not None
            delay = plan.record(call.outcome, time.monotonic())
            if delay is None:
                yield plan.result()
                return
            await anyio.sleep(delay)

    async def _exchange(self, call: HttpCall) -> AsyncGenerator[Progress, None]:
        """Drive ``call`` over the network; it holds the outcome at the end."""
        timeout = call.timeout(time.monotonic()).as_dict()
        try:
            request = self._http.build_request(
                "POST", call.url, headers=call.headers, content=call.content, extensions={"timeout": timeout}
            )
        except (httpx.InvalidURL, httpx.HTTPError, UnicodeError, ValueError):
            call.unsendable()
            return
        response: httpx.Response | None = None
        try:
            wait = call.headers_wait(time.monotonic())
            with anyio.move_on_after(wait.seconds) as scope:
                try:
                    response = await self._http.send(request, stream=True)
                except (httpx.HTTPError, OSError) as error:
                    call.failed(error)
                    return
            if scope.cancelled_caught or response is None:
                call.timed_out(wait)
                return
            call.response(response.status_code, list(response.headers.multi_items()))
            # httpcore reads the body's read timeout when the body starts: the idle bound from here on.
            request.extensions["timeout"] = call.body_timeout()
            last = time.monotonic()
            chunks = response.aiter_raw()
            while call.outcome is None:
                wait = call.wait(time.monotonic(), last)
                data: bytes | None = None
                with anyio.move_on_after(wait.seconds) as scope:
                    try:
                        data = await anext(chunks, None)
                    except (httpx.HTTPError, OSError) as error:
                        call.failed(error)
                        return
                if scope.cancelled_caught:
                    call.timed_out(wait)
                    return
                if data is None:
                    call.end()
                    return
                last = time.monotonic()
                for progress in call.raw(data):
                    yield progress
        finally:
            if response is not None:
                with anyio.CancelScope(shield=True):
                    await response.aclose()

    async def aclose(self) -> None:
        """Close the connections."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()
