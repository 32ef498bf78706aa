"""apply_policies: the order cache -> breaker -> rate limit -> retry -> deadline -> parse health, and what it buys."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from webreach.config import CacheSettings
from webreach.errors import BlockedError, SuspendedError, ThrottledError, UnavailableError, UnreachableError
from webreach.models import SearchRequest
from webreach.policies import EngineResult, PolicyState, Search, apply_policies
from webreach.policies.breaker import CircuitBreaker
from webreach.policies.cache import Cache
from webreach.policies.deadline import Deadline
from webreach.policies.parse_health import ParseHealthRecorder
from webreach.policies.rate_limit import RateLimit
from webreach.policies.retry import Retry
from webreach.state.cache_store import NullCacheStore, open_cache_store
from webreach.testing.clock import FakeClock

from .fakes import MinRandom, ScriptedSearch, make_hits

Q1 = SearchRequest(query="rust async")
Q2 = SearchRequest(query="tokio select")


def stack(inner: ScriptedSearch, state: PolicyState, **overrides: Any) -> Search:
    options: dict[str, Any] = {"rate_per_minute": 600.0, "timeout": 15.0, "retries": 1, "cache_ttl": 3600.0}
    options.update(overrides)
    return apply_policies(inner, engine="mojeek", state=state, **options)


def test_layers_wrap_in_the_documented_order(clock: FakeClock) -> None:
    inner = ScriptedSearch()
    layer: Any = stack(inner, PolicyState(clock=clock))
    order = []
    while layer is not inner:
        order.append(type(layer))
        layer = layer.inner
    assert order == [Cache, CircuitBreaker, RateLimit, Retry, Deadline, ParseHealthRecorder]


def test_calls_that_parse_no_page_leave_parse_health_out(clock: FakeClock) -> None:
    inner = ScriptedSearch()
    layer: Any = stack(inner, PolicyState(clock=clock), record_parses=False)
    order = []
    while layer is not inner:
        order.append(type(layer))
        layer = layer.inner
    assert order == [Cache, CircuitBreaker, RateLimit, Retry, Deadline]


async def test_parse_health_records_engine_answers_and_not_cached_ones(clock: FakeClock) -> None:
    state = PolicyState(clock=clock)

    async def engine(request: SearchRequest) -> EngineResult:
        return EngineResult(hits=make_hits(), parsed_by="generic")

    options: dict[str, Any] = {"rate_per_minute": 600.0, "timeout": 15.0, "retries": 1, "cache_ttl": 3600.0}
    search = apply_policies(engine, engine="mojeek", state=state, **options)
    await search(Q1)
    await search(Q1)  # the cache answers: nothing parsed, nothing recorded
    record = state.parse_health.load_all()["mojeek"]
    assert record.last_mode == "generic" and len(record.recent) == 1


async def test_the_stack_keeps_the_search_signature(clock: FakeClock) -> None:
    search = stack(ScriptedSearch(make_hits()), PolicyState(clock=clock))
    assert list(inspect.signature(search.__call__).parameters) == ["request"]
    result = await search(Q1)
    assert isinstance(result, EngineResult) and result.hits == make_hits()


async def test_cached_answers_are_served_while_the_breaker_is_open(clock: FakeClock) -> None:
    state = PolicyState(clock=clock)
    inner = ScriptedSearch(make_hits(), BlockedError("captcha", kind="captcha", engine="mojeek"))
    search = stack(inner, state)
    await search(Q1)
    with pytest.raises(BlockedError):
        await search(Q2)
    assert state.breaker_view("mojeek").state == "open"

    cached = await search(Q1)
    assert cached.cached and cached.hits == make_hits()
    with pytest.raises(SuspendedError):
        await search(Q2)
    assert inner.calls == 2


async def test_local_rate_limit_refusals_never_trip_the_breaker(clock: FakeClock) -> None:
    state = PolicyState(clock=clock)
    inner = ScriptedSearch(make_hits())
    search = stack(inner, state, rate_per_minute=6.0)
    await search(Q1)
    for page in range(2, 7):
        with pytest.raises(ThrottledError):
            await search(Q1.model_copy(update={"page": page}))
    assert state.breaker_view("mojeek").state == "closed"
    assert inner.calls == 1


async def test_a_blip_healed_by_a_retry_does_not_count_against_the_engine(clock: FakeClock) -> None:
    state = PolicyState(clock=clock, cache=NullCacheStore(), rng=MinRandom())
    blip = UnavailableError("HTTP 502", engine="mojeek")
    inner = ScriptedSearch(blip, make_hits(), blip, make_hits(), blip, make_hits())
    search = stack(inner, state, retries=1)
    for _ in range(3):
        assert (await search(Q1)).hits == make_hits()
    assert state.breaker_view("mojeek").state == "closed"


async def test_the_breaker_counts_failed_searches_not_attempts(clock: FakeClock) -> None:
    state = PolicyState(clock=clock, cache=NullCacheStore(), rng=MinRandom())
    inner = ScriptedSearch(UnavailableError("HTTP 503", engine="mojeek"))
    search = stack(inner, state, retries=2)
    for searches in range(1, 4):
        assert state.breaker_view("mojeek").state == "closed"
        with pytest.raises(UnavailableError):
            await search(Q1)
        assert inner.calls == 3 * searches
    assert state.breaker_view("mojeek").state == "open"


async def test_each_attempt_has_its_own_deadline_inside_retry(clock: FakeClock) -> None:
    state = PolicyState(clock=clock, rng=MinRandom())
    inner = ScriptedSearch(make_hits(), hang_first=True)
    result = await stack(inner, state, timeout=0.05)(Q1)
    assert result.hits == make_hits()
    assert inner.calls == 2 and inner.cancelled == 1


async def test_a_stale_answer_is_available_after_the_engine_fails(clock: FakeClock) -> None:
    state = PolicyState(clock=clock)
    inner = ScriptedSearch(make_hits(), UnavailableError("down", engine="mojeek"))
    search = stack(inner, state, retries=0, cache_ttl=60.0)
    await search(Q1)
    clock.advance(61)
    with pytest.raises(UnavailableError):
        await search(Q1)
    stale = await state.lookup_stale("mojeek", Q1)
    assert stale is not None and stale.stale and stale.cached and stale.hits == make_hits()


async def test_cache_backend_none_never_answers_from_cache(clock: FakeClock) -> None:
    state = PolicyState(clock=clock, cache=open_cache_store(CacheSettings(backend="none")))
    inner = ScriptedSearch(make_hits())
    search = stack(inner, state)
    assert not (await search(Q1)).cached
    assert not (await search(Q1)).cached
    assert inner.calls == 2
    state.close()


async def test_two_states_share_nothing(clock: FakeClock) -> None:
    first, second = PolicyState(clock=clock), PolicyState(clock=clock)
    with pytest.raises(BlockedError):
        await stack(ScriptedSearch(BlockedError("wall", engine="mojeek")), first)(Q1)
    inner = ScriptedSearch(make_hits())
    assert not (await stack(inner, second)(Q1)).cached
    assert first.breaker_view("mojeek").state == "open"
    assert second.breaker_view("mojeek").state == "closed"


@pytest.mark.parametrize("cause", ["dns", "no_route", "refused"])
async def test_this_machines_network_failing_never_trips_the_breaker_nor_spends_a_slot(
    clock: FakeClock, cause: Any
) -> None:
    state = PolicyState(clock=clock, cache=NullCacheStore(), rng=MinRandom())
    offline = UnreachableError("no network", cause=cause, engine="mojeek")
    # one token a minute: a spent slot would throttle the search after the network came back
    inner = ScriptedSearch(offline, offline, offline, offline, offline, make_hits())
    search = stack(inner, state, rate_per_minute=1.0, retries=2)
    for _ in range(5):
        with pytest.raises(UnreachableError):
            await search(Q1)
    assert inner.calls == 5, "no retries within a search: the network does not come back in milliseconds"
    assert state.breaker_view("mojeek").state == "closed"
    assert (await search(Q1)).hits == make_hits(), "the slot was never spent"
