"""Retry: only retryable errors, a bounded number of times, full-jitter backoff, inside the time budget."""

from __future__ import annotations

import random

import pytest

from webreach.errors import (
    AuthFailedError,
    BlockedError,
    EngineError,
    EngineTimeoutError,
    ParseError,
    RateLimitedError,
    SuspendedError,
    UnavailableError,
)
from webreach.models import SearchRequest
from webreach.policies.retry import Retry
from webreach.testing.clock import FakeClock

from .fakes import MaxRandom, ScriptedSearch, make_hits


def make_retry(
    inner: ScriptedSearch, clock: FakeClock, *, retries: int = 1, budget: float = 15.0, rng: random.Random | None = None
) -> Retry:
    return Retry(inner, engine="mojeek", retries=retries, budget=budget, clock=clock, rng=rng or random.Random(7))


@pytest.mark.parametrize(
    "error",
    [
        ParseError("markup changed"),
        BlockedError("captcha", kind="captcha"),
        AuthFailedError("401"),
        SuspendedError("breaker open", retry_after=60),
        RateLimitedError("429 without Retry-After"),
        RateLimitedError("429", retry_after=30),
    ],
)
async def test_errors_that_a_quick_retry_cannot_fix_are_raised_at_once(
    clock: FakeClock, search_request: SearchRequest, error: EngineError
) -> None:
    inner = ScriptedSearch(error, make_hits())
    with pytest.raises(type(error)):
        await make_retry(inner, clock, retries=3)(search_request)
    assert inner.calls == 1 and clock.slept == []


@pytest.mark.parametrize("error", [UnavailableError("HTTP 503"), EngineTimeoutError("slow")])
async def test_a_transient_error_is_retried(
    clock: FakeClock, search_request: SearchRequest, error: EngineError
) -> None:
    inner = ScriptedSearch(error, make_hits())
    result = await make_retry(inner, clock)(search_request)
    assert result.hits == make_hits()
    assert inner.calls == 2
    assert len(clock.slept) == 1 and 0 <= clock.slept[0] <= 0.2


async def test_a_short_rate_limit_is_retried_after_its_retry_after(
    clock: FakeClock, search_request: SearchRequest
) -> None:
    inner = ScriptedSearch(RateLimitedError("slow down", retry_after=1.5), make_hits())
    await make_retry(inner, clock)(search_request)
    assert inner.calls == 2 and clock.slept == [1.5]


async def test_retries_are_bounded(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch(UnavailableError("down"))
    with pytest.raises(UnavailableError):
        await make_retry(inner, clock, retries=3, budget=100)(search_request)
    assert inner.calls == 4 and len(clock.slept) == 3


async def test_zero_retries_means_one_attempt(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch(UnavailableError("down"))
    with pytest.raises(UnavailableError):
        await make_retry(inner, clock, retries=0)(search_request)
    assert inner.calls == 1


@pytest.mark.parametrize("seed", range(40))
async def test_backoff_is_full_jitter_within_the_exponential_ceiling(seed: int, search_request: SearchRequest) -> None:
    clock = FakeClock()
    inner = ScriptedSearch(UnavailableError("down"))
    with pytest.raises(UnavailableError):
        await make_retry(inner, clock, retries=5, budget=100, rng=random.Random(seed))(search_request)
    ceilings = [0.2, 0.4, 0.8, 1.6, 2.0]
    assert all(0 <= slept <= ceiling for slept, ceiling in zip(clock.slept, ceilings, strict=True))


async def test_jitter_comes_from_the_injected_random_source(search_request: SearchRequest) -> None:
    async def sleeps(seed: int) -> list[float]:
        clock = FakeClock()
        with pytest.raises(UnavailableError):
            await make_retry(ScriptedSearch(UnavailableError("down")), clock, retries=3, rng=random.Random(seed))(
                search_request
            )
        return clock.slept

    assert await sleeps(1) == await sleeps(1)
    assert len({tuple(await sleeps(seed)) for seed in range(5)}) == 5


async def test_no_sleep_may_end_past_the_budget(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch(UnavailableError("down"))
    with pytest.raises(UnavailableError):
        await make_retry(inner, clock, retries=5, budget=1.0, rng=MaxRandom())(search_request)
    assert clock.slept == [0.2, 0.4]  # the next, 0.8 s, would end at 1.4 s
    assert inner.calls == 3


async def test_slow_attempts_use_up_the_budget(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch(EngineTimeoutError("slow"), clock=clock, takes=0.5)
    with pytest.raises(EngineTimeoutError):
        await make_retry(inner, clock, retries=5, budget=1.0, rng=MaxRandom())(search_request)
    assert clock.slept == [0.2]  # 0.5 + 0.2 + 0.5 = 1.2 s spent; another 0.4 s wait would pass the budget
    assert inner.calls == 2
