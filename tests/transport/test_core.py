"""
The sans-I/O core on its own: the retry plan (which failures are safe, the backoff, the deadline) and the
request an ``HttpCall`` builds. No network, no clock: ``now`` is passed in.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from attrs import evolve
from hypothesis import given
from hypothesis import strategies as st
from transport_cases import prepared

from llm_wire.error import ProtocolError
from llm_wire.message import Provider
from llm_wire.outcome import Answer, Failure, Sent, TransportError, TransportProblem
from llm_wire.providers.response import ErrorKind, ProviderError, RetryAdvice
from llm_wire.transport import NO_LIMIT, RetryPolicy, Timeouts
from llm_wire.transport._core import FAILURES, HttpCall, RetryPlan, endpoint_headers

LOST = Failure(TransportError(TransportProblem.CONNECTION_LOST), Sent.MAYBE_SENT)
REFUSED = Failure(TransportError(TransportProblem.CONNECT_FAILED), Sent.NOT_SENT)


def provider_failure(retry: RetryAdvice, sent: Sent = Sent.MAYBE_SENT) -> Failure:
    return Failure(ProviderError(ErrorKind.OVERLOADED, 503, None, retry), sent)


class TestRetryable:
    """Only safe failures are retried."""

    @pytest.mark.parametrize(
        ("outcome", "safe"),
        [
            (REFUSED, True),
            (LOST, False),
            (provider_failure(RetryAdvice(True)), True),
            (provider_failure(RetryAdvice(False), Sent.NOT_SENT), False),
            (Failure(TransportError(TransportProblem.NO_API_KEY), Sent.NOT_SENT), False),
            (Failure(ProtocolError("x"), Sent.COMPLETED), False),
            (
                Failure(TransportError(TransportProblem.CONNECT_FAILED), Sent.NOT_SENT, partial_output=True),
                False,
            ),
            (Answer("hi", None, None, None), False),  # type: ignore[arg-type]
        ],
    )
    def test_safe_failures(self, outcome: Failure, safe: bool) -> None:
        """Unsent, or marked retryable by the provider; never a key problem nor after progress."""
        assert (isinstance(outcome, Failure) and outcome.retryable) is safe


class TestRetryPlan:
    """The plan's delays follow the policy and the provider's advice, and stop at the deadline."""

    def test_without_a_policy_nothing_is_retried(self) -> None:
        plan = RetryPlan(None, 0.0)
        assert plan.record(REFUSED, 0.0) is None
        assert len(plan.result().attempts) == 1

    def test_backoff_without_jitter(self) -> None:
        """Delays double up to ``max_delay``; the attempts run out."""
        plan = RetryPlan(
            RetryPolicy(attempts=5, initial=1.0, max_delay=3.0, jitter=0, deadline=NO_LIMIT), 0.0
        )
        assert [plan.record(REFUSED, 0.0) for _ in range(5)] == [1.0, 2.0, 3.0, 3.0, None]
        assert [a.waited for a in plan.result().attempts] == [0.0, 1.0, 2.0, 3.0, 3.0]

    def test_a_long_schedule_never_overflows(self) -> None:
        """Past the float range, ``multiplier ** n`` is the longest wait, not an ``OverflowError``."""
        plan = RetryPlan(
            RetryPolicy(
                attempts=2_000, initial=1.0, multiplier=10.0, max_delay=5.0, jitter=0, deadline=NO_LIMIT
            ),
            0.0,
        )
        delays = [plan.record(REFUSED, 0.0) for _ in range(2_000)]
        assert delays[:2] == [1.0, 5.0]
        assert set(delays[1:-1]) == {5.0}
        assert delays[-1] is None

    def test_retry_after_wins_over_a_shorter_backoff(self) -> None:
        """A provider's delay, or its date, is waited for in full."""
        policy = RetryPolicy(initial=0.1, jitter=0, deadline=NO_LIMIT)
        plan = RetryPlan(policy, 0.0)
        assert plan.record(provider_failure(RetryAdvice(True, timedelta(seconds=4))), 0.0) == 4.0
        wall = datetime(2026, 1, 1, tzinfo=UTC)
        at = provider_failure(RetryAdvice(True, None, wall + timedelta(seconds=9)))
        assert plan.record(at, 0.0, wall=wall) == 9.0

    def test_an_advice_past_max_delay_or_the_deadline_ends_the_retries(self) -> None:
        """
        A provider asking for a wait past the deadline gets no early retry; within it, the wait is in full
        even past ``max_delay``, which bounds the advice only when there is no deadline.
        """
        policy = RetryPolicy(initial=0.1, max_delay=10.0, jitter=0, deadline=60.0)
        eleven = provider_failure(RetryAdvice(True, timedelta(seconds=11)))
        assert RetryPlan(policy, 0.0).record(eleven, 0.0) == 11.0
        assert RetryPlan(evolve(policy, deadline=NO_LIMIT), 0.0).record(eleven, 0.0) is None
        for advice in (
            RetryAdvice(True, timedelta(seconds=61)),
            RetryAdvice(True, timedelta(days=36_500)),
            RetryAdvice(True, None, datetime(9999, 12, 31, tzinfo=UTC)),
        ):
            assert RetryPlan(policy, 0.0).record(provider_failure(advice), 0.0) is None
        assert (
            RetryPlan(policy, 0.0).record(provider_failure(RetryAdvice(True, timedelta(seconds=9))), 55.0)
            is None
        )

    def test_a_date_without_a_zone_is_utc(self) -> None:
        """A naive ``RetryAdvice.at`` (built by hand) is read as UTC, not refused with a ``TypeError``."""
        wall = datetime(2026, 1, 1, tzinfo=UTC)
        naive = provider_failure(RetryAdvice(True, None, datetime(2026, 1, 1, 0, 0, 4)))
        plan = RetryPlan(RetryPolicy(initial=0.1, jitter=0, deadline=NO_LIMIT), 0.0)
        assert plan.record(naive, 0.0, wall=wall) == 4.0

    def test_deadline(self) -> None:
        """No retry whose wait would reach the deadline."""
        plan = RetryPlan(RetryPolicy(initial=1.0, jitter=0, deadline=5.0), 100.0)
        assert plan.deadline == 105.0
        assert plan.record(REFUSED, 103.0) == 1.0
        assert plan.record(REFUSED, 104.5) is None

    @given(
        attempts=st.integers(1, 6),
        jitter=st.floats(0, 1),
        seed=st.integers(0, 2**32),
        advised=st.lists(st.none() | st.floats(0, 50), min_size=1, max_size=8),
    )
    def test_delays_are_bounded(
        self, attempts: int, jitter: float, seed: int, advised: list[float | None]
    ) -> None:
        """
        Each delay lies between the jittered backoff and ``max(backoff, advice)``; an advice past
        ``max_delay`` ends the retries; attempts are bounded.
        """
        policy = RetryPolicy(
            attempts=attempts, initial=0.5, max_delay=8.0, jitter=jitter, deadline=NO_LIMIT, seed=seed
        )
        plan = RetryPlan(policy, 0.0)
        for number, seconds in enumerate(advised, start=1):
            delay_advice = None if seconds is None else timedelta(seconds=seconds)
            delay = plan.record(provider_failure(RetryAdvice(True, delay_advice)), 0.0)
            if number >= attempts or (seconds or 0.0) > 8.0:
                assert delay is None
                break
            assert delay is not None
            base = min(8.0, 0.5 * 2.0 ** (number - 1))
            assert base * (1 - jitter) - 1e-9 <= delay <= max(base, seconds or 0.0) + 1e-6
        assert len(plan.result().attempts) <= attempts


class TestHttpCall:
    """The request an ``HttpCall`` builds for a ``Prepared`` body."""

    def test_headers(self) -> None:
        """Content type, accept, the version headers and the key in the wire's header; extras override."""
        anthropic = prepared(Provider.ANTHROPIC, True)
        headers = dict(endpoint_headers(anthropic, "k", {"Accept": "x/y"}))
        assert headers["x-api-key"] == "k"
        assert headers["anthropic-version"] == "2023-06-01"
        assert headers["Accept"] == "x/y"
        assert "accept" not in headers

    def test_phase_timeouts_are_cut_to_the_total(self) -> None:
        """The connect and first-byte timeouts never outlast what the total leaves."""
        timeouts = Timeouts(total=3.0, connect=10.0, first_byte=2.0)
        call = HttpCall(prepared(Provider.GOOGLE), url="u", headers=[], timeouts=timeouts, now=0.0)
        got = call.timeout(1.5)
        assert (got.connect, got.read, got.write, got.pool) == (1.5, 1.5, 1.5, 1.5)
        assert call.wait(2.0, 1.9).problem is TransportProblem.TOTAL_TIMEOUT

    def test_idle_wait(self) -> None:
        """The next chunk may take the idle bound from the last one."""
        call = HttpCall(prepared(Provider.GOOGLE), url="u", headers=[], timeouts=Timeouts(idle=2.0), now=0.0)
        wait = call.wait(5.0, 4.0)
        assert (wait.seconds, wait.problem, wait.bound) == (1.0, TransportProblem.IDLE_TIMEOUT, 2.0)

    def test_the_retry_deadline_cuts_the_total(self) -> None:
        """An attempt under a retry deadline reports the shorter bound as its total."""
        call = HttpCall(
            prepared(Provider.GOOGLE), url="u", headers=[], timeouts=Timeouts(), now=0.0, deadline=4.0
        )
        wait = call.wait(1.0, 1.0)
        assert (wait.seconds, wait.problem, wait.bound) == (3.0, TransportProblem.TOTAL_TIMEOUT, 4.0)


#: httpx's base classes (never raised themselves) and the errors raised only when asked for (no status
#: check, no redirects followed).
_NOT_RAISED = {
    httpx.HTTPError,
    httpx.RequestError,
    httpx.TransportError,
    httpx.TimeoutException,
    httpx.NetworkError,
    httpx.ProtocolError,
    httpx.HTTPStatusError,
    httpx.TooManyRedirects,
}


def _httpx_failures() -> list[type[Exception]]:
    """Every exception class httpx exports that a send or a read can raise (its stream misuse aside)."""
    return [
        found
        for found in vars(httpx).values()
        if isinstance(found, type)
        and issubclass(found, httpx.HTTPError | httpx.InvalidURL)
        and found not in _NOT_RAISED
    ]


class TestFailureMap:
    """Every httpx failure has a typed meaning, mapped in one table."""

    @pytest.mark.parametrize("kind", _httpx_failures(), ids=lambda k: k.__name__)
    def test_every_httpx_failure_is_mapped(self, kind: type[Exception]) -> None:
        """Each concrete httpx error is in ``FAILURES``, so none maps by accident (a new one fails here)."""
        assert any(issubclass(kind, mapped) for mapped, _ in FAILURES), kind.__name__

    @pytest.mark.parametrize(
        ("error", "problem", "sent"),
        [
            (httpx.ConnectTimeout("x"), TransportProblem.CONNECT_TIMEOUT, Sent.NOT_SENT),
            (httpx.PoolTimeout("x"), TransportProblem.CONNECT_TIMEOUT, Sent.NOT_SENT),
            (httpx.ReadTimeout("x"), TransportProblem.FIRST_BYTE_TIMEOUT, Sent.MAYBE_SENT),
            (httpx.ConnectError("x"), TransportProblem.CONNECT_FAILED, Sent.NOT_SENT),
            (httpx.ProxyError("x"), TransportProblem.CONNECT_FAILED, Sent.NOT_SENT),
            (httpx.LocalProtocolError("x"), TransportProblem.INVALID_ENDPOINT, Sent.NOT_SENT),
            (httpx.RemoteProtocolError("x"), TransportProblem.CONNECTION_LOST, Sent.MAYBE_SENT),
            (httpx.WriteError("x"), TransportProblem.CONNECTION_LOST, Sent.MAYBE_SENT),
            (ConnectionResetError(), TransportProblem.CONNECTION_LOST, Sent.MAYBE_SENT),
        ],
    )
    def test_meaning(self, error: Exception, problem: TransportProblem, sent: Sent) -> None:
        """What each failure is called and what it cost."""
        call = HttpCall(prepared(Provider.OPENAI_CHAT), url="u", headers=[], timeouts=Timeouts(), now=0.0)
        call.timeout(0.0)
        got = call.failed(error)
        assert isinstance(got, Failure)
        assert isinstance(got.error, TransportError)
        assert (got.error.problem, got.sent) == (problem, sent)

    def test_a_read_timeout_after_the_headers_is_idle(self) -> None:
        """Once the headers are in, httpx's read timeout is the idle bound, and is reported as one."""
        call = HttpCall(
            prepared(Provider.OPENAI_CHAT), url="u", headers=[], timeouts=Timeouts(idle=7.0), now=0.0
        )
        call.timeout(0.0)
        call.response(200, [])
        assert call.body_timeout()["read"] == 7.0
        got = call.failed(httpx.ReadTimeout("x"))
        assert isinstance(got, Failure)
        assert got.error == TransportError(TransportProblem.IDLE_TIMEOUT, 7.0)
