"""Rate limit: a token bucket per engine; short waits happen on the clock, long ones are refused."""

from __future__ import annotations

import asyncio

import pytest

from webreach.errors import SuspendedError
from webreach.models import SearchRequest
from webreach.policies.rate_limit import RateLimit, TokenBucket
from webreach.testing.clock import FakeClock

from .fakes import ScriptedSearch


def test_burst_defaults_to_ten_seconds_of_tokens_and_at_least_one() -> None:
    assert TokenBucket(120).burst == 20
    assert TokenBucket(3).burst == 1


async def test_reservations_queue_one_slot_apart_and_refuse_past_max_wait() -> None:
    bucket = TokenBucket(60, burst=1)
    assert [await bucket.reserve(100.0, 2.0) for _ in range(4)] == [(True, 0.0), (True, 1.0), (True, 2.0), (False, 3.0)]


async def test_refill_never_exceeds_the_burst() -> None:
    bucket = TokenBucket(60, burst=2)
    await bucket.reserve(0.0, 0.0)
    assert [(await bucket.reserve(1_000.0, 0.0))[0] for _ in range(3)] == [True, True, False]


async def test_a_burst_goes_through_without_waiting(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch()
    limit = RateLimit(inner, engine="mojeek", bucket=TokenBucket(60), clock=clock)
    for _ in range(10):
        await limit(search_request)
    assert clock.slept == []
    await limit(search_request)
    assert clock.slept == [1.0]
    assert inner.calls == 11


async def test_a_short_wait_is_slept_on_the_clock(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch()
    limit = RateLimit(inner, engine="mojeek", bucket=TokenBucket(40, burst=1), clock=clock)
    await limit(search_request)
    await limit(search_request)
    assert clock.slept == [1.5]
    assert inner.calls == 2


async def test_a_long_wait_is_refused_so_auto_moves_on(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch()
    limit = RateLimit(inner, engine="mojeek", bucket=TokenBucket(6), clock=clock)
    await limit(search_request)
    with pytest.raises(SuspendedError) as info:
        await limit(search_request)
    assert info.value.retry_after == 10.0
    assert info.value.engine == "mojeek"
    assert info.value.code == "throttled"  # our own pacing, worded and coded apart from a breaker suspension
    assert inner.calls == 1 and clock.slept == []
    clock.advance(10)
    await limit(search_request)
    assert inner.calls == 2 and clock.slept == []


async def test_max_wait_is_configurable(clock: FakeClock, search_request: SearchRequest) -> None:
    limit = RateLimit(ScriptedSearch(), engine="mojeek", bucket=TokenBucket(6), clock=clock, max_wait=10)
    await limit(search_request)
    await limit(search_request)
    assert clock.slept == [10.0]


class StuckClock(FakeClock):
    """A clock whose sleep never ends, to cancel a caller while it waits for its token."""

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        await asyncio.Event().wait()


async def test_a_caller_cancelled_while_waiting_gives_its_token_back(search_request: SearchRequest) -> None:
    clock = StuckClock()
    bucket = TokenBucket(60, burst=1)
    inner = ScriptedSearch()
    limit = RateLimit(inner, engine="mojeek", bucket=bucket, clock=clock)
    await limit(search_request)
    waiter = asyncio.create_task(limit(search_request))
    while not clock.slept:
        await asyncio.sleep(0)
    assert clock.slept == [1.0]  # it holds the next slot and waits for it
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert inner.calls == 1
    assert await bucket.reserve(clock.now(), 2.0) == (True, 1.0)  # the same slot as the cancelled caller's
