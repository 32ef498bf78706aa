"""Cache policy: keys, hits, TTL by freshness, errors never cached, stale lookup, store failures tolerated."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from webreach.errors import UnavailableError
from webreach.models import SearchRequest
from webreach.policies.cache import (
    EMPTY_TTL,
    KEYS_KEPT,
    MAX_STALE,
    Cache,
    cache_key,
    freshness_ttl,
    lookup_stale,
)
from webreach.state.cache_store import MemoryCacheStore, SqliteCacheStore
from webreach.testing.clock import FakeClock

from .fakes import ScriptedSearch, make_hits

HITS = make_hits(3)


def make_cache(
    inner: ScriptedSearch, clock: FakeClock, store: MemoryCacheStore | None = None, ttl: float = 3600
) -> Cache:
    return Cache(
        inner,
        engine="mojeek",
        store=store if store is not None else MemoryCacheStore(),
        clock=clock,
        ttl_for=freshness_ttl(ttl),
    )


def test_key_ignores_case_and_spacing_of_the_query() -> None:
    key = cache_key("mojeek", SearchRequest(query="Rust   ASYNC"))
    assert key == cache_key("mojeek", SearchRequest(query=" rust async "))
    assert re.fullmatch(r"mojeek:[0-9a-f]{64}", key)


@pytest.mark.parametrize(
    "change",
    [
        {"limit": 5},
        {"page": 2},
        {"site": "docs.rs"},
        {"freshness": "week"},
        {"language": "en"},
        {"region": "us"},
        {"safesearch": "off"},
        {"query": "rust await"},
    ],
)
def test_key_changes_with_every_request_field(change: dict[str, object]) -> None:
    base = SearchRequest(query="rust async")
    assert cache_key("mojeek", base) != cache_key("mojeek", base.model_copy(update=change))


def test_key_changes_with_the_engine() -> None:
    request = SearchRequest(query="rust async")
    assert cache_key("mojeek", request) != cache_key("bing", request)


def test_the_policy_remembers_keys_of_the_request_objects_it_met(clock: FakeClock) -> None:
    cache = make_cache(ScriptedSearch(HITS), clock)
    requests = [SearchRequest(query=f"q{n}") for n in range(KEYS_KEPT + 1)]
    for request in requests:
        assert cache.key(request) == cache_key("mojeek", request)
    assert cache.key(requests[-1]) is cache.key(requests[-1])  # met again: the same key, not worked out anew
    assert cache.key(requests[0]) == cache_key("mojeek", requests[0])  # dropped (the oldest), then worked out
    equal = SearchRequest(query="q1")
    assert cache.key(equal) == cache.key(requests[1])  # another object, the same request: the same key


async def test_second_search_is_served_from_the_cache(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch(HITS)
    cache = make_cache(inner, clock)
    first = await cache(search_request)
    second = await cache(SearchRequest(query="RUST  async"))
    assert (first.cached, second.cached) == (False, True)
    assert second.hits == HITS
    assert inner.calls == 1


async def test_entry_expires_after_its_ttl(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch(HITS)
    cache = make_cache(inner, clock, ttl=3600)
    await cache(search_request)
    clock.advance(3599)
    assert (await cache(search_request)).cached
    clock.advance(1)
    assert not (await cache(search_request)).cached
    assert inner.calls == 2


@pytest.mark.parametrize(
    ("freshness", "configured", "expected"),
    [
        ("day", 3600, 600),
        ("week", 3600, 3600),
        ("week", 86400, 3600),
        ("month", 86400, 86400),
        ("year", 86400, 86400),
        (None, 86400, 86400),
        ("day", 300, 300),
    ],
)
def test_ttl_by_freshness_never_exceeds_the_configured_ttl(
    freshness: str | None, configured: float, expected: float
) -> None:
    request = SearchRequest.create(query="news", freshness=freshness)
    assert freshness_ttl(configured)(request) == expected


async def test_day_fresh_results_expire_after_ten_minutes(clock: FakeClock) -> None:
    inner = ScriptedSearch(HITS)
    cache = make_cache(inner, clock, ttl=86400)
    request = SearchRequest(query="news", freshness="day")
    await cache(request)
    clock.advance(599)
    assert (await cache(request)).cached
    clock.advance(1)
    assert not (await cache(request)).cached


async def test_errors_are_not_cached(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch(UnavailableError("HTTP 503", engine="mojeek"), HITS)
    cache = make_cache(inner, clock)
    with pytest.raises(UnavailableError):
        await cache(search_request)
    result = await cache(search_request)
    assert result.hits == HITS and not result.cached
    assert inner.calls == 2


async def test_empty_results_are_cached_briefly_and_never_served_stale(
    clock: FakeClock, search_request: SearchRequest
) -> None:
    store = MemoryCacheStore()
    inner = ScriptedSearch(())
    cache = make_cache(inner, clock, store)
    await cache(search_request)
    clock.advance(EMPTY_TTL - 1)
    assert (await cache(search_request)).cached
    clock.advance(1)
    assert not (await cache(search_request)).cached
    assert inner.calls == 2
    clock.advance(EMPTY_TTL)
    assert await lookup_stale(store, "mojeek", search_request, now=clock.now()) is None


async def test_zero_ttl_switches_caching_off(clock: FakeClock, search_request: SearchRequest) -> None:
    inner = ScriptedSearch(HITS)
    cache = make_cache(inner, clock, ttl=0)
    await cache(search_request)
    await cache(search_request)
    assert inner.calls == 2


async def test_expired_entries_stay_available_as_stale_for_a_day(
    clock: FakeClock, search_request: SearchRequest
) -> None:
    store = MemoryCacheStore()
    inner = ScriptedSearch(HITS, UnavailableError("down", engine="mojeek"))
    cache = make_cache(inner, clock, store, ttl=3600)
    await cache(search_request)
    fresh = await lookup_stale(store, "mojeek", search_request, now=clock.now())
    assert fresh is not None and (fresh.cached, fresh.stale) == (True, False)

    clock.advance(3600)
    with pytest.raises(UnavailableError):
        await cache(search_request)  # the policy itself never serves stale: the Gateway decides
    stale = await lookup_stale(store, "mojeek", search_request, now=clock.now())
    assert stale is not None and stale.hits == HITS and (stale.cached, stale.stale) == (True, True)
    assert await lookup_stale(store, "bing", search_request, now=clock.now()) is None

    clock.advance(MAX_STALE)
    assert await lookup_stale(store, "mojeek", search_request, now=clock.now()) is None


async def test_an_unusable_cache_file_never_fails_the_search(
    tmp_path: Path, clock: FakeClock, search_request: SearchRequest, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    inner = ScriptedSearch(HITS)
    cache = Cache(
        inner, engine="mojeek", store=SqliteCacheStore(blocker / "c.sqlite3"), clock=clock, ttl_for=freshness_ttl(60)
    )
    with caplog.at_level(logging.WARNING):
        results = [await cache(search_request) for _ in range(3)]
    assert all(r.hits == HITS and not r.cached for r in results)
    assert inner.calls == 3
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


async def test_sqlite_cache_serves_a_hit_written_by_another_process_instance(
    tmp_path: Path, clock: FakeClock, search_request: SearchRequest
) -> None:
    path = tmp_path / "shared.sqlite3"
    first_inner, second_inner = ScriptedSearch(HITS), ScriptedSearch(HITS)
    first = Cache(first_inner, engine="mojeek", store=SqliteCacheStore(path), clock=clock, ttl_for=freshness_ttl(60))
    second = Cache(second_inner, engine="mojeek", store=SqliteCacheStore(path), clock=clock, ttl_for=freshness_ttl(60))
    await first(search_request)
    result = await second(search_request)
    assert result.cached and result.hits == HITS
    assert second_inner.calls == 0
    first.store.close()
    second.store.close()
