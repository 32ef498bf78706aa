"""Circuit breaker: suspension per error class, no engine call while open, one half-open probe, recovery."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from webreach.errors import (
    AuthFailedError,
    BlockedError,
    EngineError,
    EngineTimeoutError,
    InvalidInputError,
    NotConfiguredError,
    ParseError,
    QuotaExhaustedError,
    RateLimitedError,
    SuspendedError,
    UnavailableError,
    WebreachError,
)
from webreach.models import SearchRequest
from webreach.policies import PolicyState
from webreach.policies.breaker import PROBE_RETRY_AFTER, BreakerState, CircuitBreaker
from webreach.testing.clock import FakeClock

from .fakes import ScriptedSearch, make_hits

HOUR = 3600.0


def make_breaker(inner: ScriptedSearch, clock: FakeClock) -> CircuitBreaker:
    return CircuitBreaker(inner, engine="mojeek", state=BreakerState("mojeek"), clock=clock)


async def fail(breaker: CircuitBreaker, request: SearchRequest, expected: type[WebreachError]) -> WebreachError:
    with pytest.raises(expected) as info:
        await breaker(request)
    return info.value


@pytest.mark.parametrize(
    ("error", "reason", "seconds"),
    [
        (BlockedError("captcha page", kind="captcha", engine="mojeek"), "captcha", HOUR),
        (BlockedError("bot wall", kind="blocked", engine="mojeek"), "blocked", 600),
        (RateLimitedError("HTTP 429", engine="mojeek"), "rate_limited", 300),
        (RateLimitedError("HTTP 429", engine="mojeek", retry_after=42), "rate_limited", 42),
        (AuthFailedError("HTTP 401", engine="mojeek"), "auth_failed", 24 * HOUR),
        (QuotaExhaustedError("HTTP 402", engine="mojeek"), "quota_exhausted", 24 * HOUR),
    ],
)
async def test_each_error_class_suspends_for_its_time(
    clock: FakeClock, search_request: SearchRequest, error: EngineError, reason: str, seconds: float
) -> None:
    inner = ScriptedSearch(error, make_hits())
    breaker = make_breaker(inner, clock)
    await fail(breaker, search_request, type(error))

    suspended = await fail(breaker, search_request, SuspendedError)
    assert suspended.retry_after == seconds
    assert (suspended.engine, suspended.code) == ("mojeek", "suspended")
    view = breaker.state.view(clock.now())
    assert (view.state, view.reason, view.retry_after) == ("open", reason, seconds)

    clock.advance(seconds - 1)
    assert (await fail(breaker, search_request, SuspendedError)).retry_after == 1
    assert inner.calls == 1  # nothing reached the engine while open

    clock.advance(1)
    assert breaker.state.view(clock.now()).state == "half_open"
    assert (await breaker(search_request)).hits == make_hits()
    assert breaker.state.view(clock.now()).state == "closed"
    assert inner.calls == 2


@pytest.mark.parametrize("error_type", [UnavailableError, EngineTimeoutError, ParseError])
async def test_three_consecutive_failures_suspend_for_a_minute(
    clock: FakeClock, search_request: SearchRequest, error_type: type[EngineError]
) -> None:
    inner = ScriptedSearch(error_type("failed", engine="mojeek"))
    breaker = make_breaker(inner, clock)
    for _ in range(2):
        await fail(breaker, search_request, error_type)
        assert breaker.state.view(clock.now()).state == "closed"
    await fail(breaker, search_request, error_type)
    suspended = await fail(breaker, search_request, SuspendedError)
    assert suspended.retry_after == 60
    assert inner.calls == 3


async def test_a_success_resets_the_failure_count(clock: FakeClock, search_request: SearchRequest) -> None:
    down = UnavailableError("HTTP 502", engine="mojeek")
    inner = ScriptedSearch(down, down, make_hits(), down, down, make_hits())
    breaker = make_breaker(inner, clock)
    for _ in range(6):
        with contextlib.suppress(UnavailableError):
            await breaker(search_request)
    assert breaker.state.view(clock.now()).state == "closed"
    assert inner.calls == 6


async def test_failed_probes_double_the_rest_up_to_ten_minutes(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch(UnavailableError("HTTP 503", engine="mojeek"))
    breaker = make_breaker(inner, clock)
    for _ in range(3):
        await fail(breaker, search_request, UnavailableError)
    rests = []
    for _ in range(6):
        rest = (await fail(breaker, search_request, SuspendedError)).retry_after
        assert rest is not None
        rests.append(rest)
        clock.advance(rest)
        await fail(breaker, search_request, UnavailableError)  # the half-open probe fails
    assert rests == [60, 120, 240, 480, 600, 600]
    assert inner.calls == 3 + 6


async def test_a_failed_captcha_probe_rests_twice_as_long(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch(BlockedError("captcha", kind="captcha", engine="mojeek"))
    breaker = make_breaker(inner, clock)
    await fail(breaker, search_request, BlockedError)
    clock.advance(HOUR)
    await fail(breaker, search_request, BlockedError)
    assert (await fail(breaker, search_request, SuspendedError)).retry_after == 2 * HOUR


async def test_recovery_starts_the_count_afresh(clock: FakeClock, search_request: SearchRequest) -> None:
    down = UnavailableError("HTTP 503", engine="mojeek")
    inner = ScriptedSearch(down, down, down, down, make_hits(), down, down, down)
    breaker = make_breaker(inner, clock)
    for _ in range(3):
        await fail(breaker, search_request, UnavailableError)
    clock.advance(60)
    await fail(breaker, search_request, UnavailableError)
    clock.advance(120)
    await breaker(search_request)  # the probe succeeds and closes the breaker
    for _ in range(2):
        await fail(breaker, search_request, UnavailableError)
    assert breaker.state.view(clock.now()).state == "closed"
    await fail(breaker, search_request, UnavailableError)
    assert (await fail(breaker, search_request, SuspendedError)).retry_after == 60  # not 240: escalation was reset


@pytest.mark.parametrize(
    "error",
    [
        NotConfiguredError("needs an API key", engine="mojeek"),
        InvalidInputError("limit: too large"),
        SuspendedError("local rate limit", engine="mojeek", retry_after=5),
    ],
)
async def test_caller_and_local_errors_never_trip_the_breaker(
    clock: FakeClock, search_request: SearchRequest, error: WebreachError
) -> None:
    inner = ScriptedSearch(error)
    breaker = make_breaker(inner, clock)
    for _ in range(5):
        await fail(breaker, search_request, type(error))
    assert breaker.state.view(clock.now()).state == "closed"
    assert inner.calls == 5


async def test_half_open_lets_exactly_one_probe_through(clock: FakeClock, search_request: SearchRequest) -> None:
    gate = asyncio.Event()
    inner = ScriptedSearch(BlockedError("wall", engine="mojeek"), make_hits())
    breaker = make_breaker(inner, clock)
    await fail(breaker, search_request, BlockedError)
    clock.advance(600)
    inner.gate = gate

    async def release_after_the_others() -> None:
        for _ in range(10):
            await asyncio.sleep(0)  # yield, so every caller has been admitted or refused
        gate.set()

    *outcomes, _ = await asyncio.gather(
        *(breaker(search_request) for _ in range(5)), release_after_the_others(), return_exceptions=True
    )
    refused = [o for o in outcomes if isinstance(o, SuspendedError)]
    answered = [o for o in outcomes if not isinstance(o, BaseException)]
    assert len(answered) == 1 and len(refused) == 4
    assert all(e.retry_after == PROBE_RETRY_AFTER for e in refused)
    assert inner.calls == 2  # the original failure and the single probe
    assert breaker.state.view(clock.now()).state == "closed"


async def test_a_cancelled_probe_frees_the_slot(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch(BlockedError("wall", engine="mojeek"), make_hits())
    breaker = make_breaker(inner, clock)
    await fail(breaker, search_request, BlockedError)
    clock.advance(600)
    inner.gate = asyncio.Event()
    probe = asyncio.create_task(breaker(search_request))
    while inner.calls < 2:
        await asyncio.sleep(0)
    probe.cancel()
    with pytest.raises(asyncio.CancelledError):
        await probe
    assert breaker.state.view(clock.now()).state == "half_open"
    inner.gate.set()
    assert (await breaker(search_request)).hits == make_hits()
    assert breaker.state.view(clock.now()).state == "closed"


def test_a_late_failure_lengthens_an_open_breaker_but_never_shortens_it(clock: FakeClock) -> None:
    state = BreakerState("mojeek")
    now = clock.now()
    state.record_failure(BlockedError("captcha", kind="captcha"), now, probe=False)
    state.record_failure(BlockedError("wall", kind="blocked"), now, probe=False)
    assert state.view(now).retry_after == HOUR
    assert state.view(now).reason == "captcha"
    state.record_failure(AuthFailedError("401"), now, probe=False)
    assert (state.view(now).reason, state.view(now).retry_after) == ("auth_failed", 24 * HOUR)


def test_a_late_success_does_not_close_an_open_breaker(clock: FakeClock) -> None:
    state = BreakerState("mojeek")
    state.record_failure(BlockedError("captcha", kind="captcha"), clock.now(), probe=False)
    state.record_success(probe=False)
    assert state.view(clock.now()).state == "open"


def test_policy_state_reports_every_breaker(clock: FakeClock) -> None:
    state = PolicyState(clock=clock)
    assert state.breaker_view("bing").state == "closed"
    assert state.breaker_views() == ()
    state.breaker_for("mojeek").record_failure(RateLimitedError("429", retry_after=30), clock.now(), probe=False)
    state.breaker_for("brave")
    views = state.breaker_views()
    assert [(v.engine, v.state, v.reason, v.retry_after) for v in views] == [
        ("brave", "closed", None, None),
        ("mojeek", "open", "rate_limited", 30),
    ]
    assert PolicyState(clock=clock).breaker_view("mojeek").state == "closed"  # never shared between states


async def test_bad_request_never_trips_the_breaker() -> None:
    from webreach.errors import BadRequestError
    from webreach.policies.breaker import BreakerState

    state = BreakerState("brave_api")
    for _ in range(10):
        state.record_failure(BadRequestError("422 VALIDATION", engine="brave_api"), 0.0, probe=False)
    assert state.status(0.0) == "closed"
