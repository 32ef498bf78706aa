"""One contract for every backend of the search cache, rate-limit buckets, breaker records and parse health: memory,
SQLite and Redis (a real redis-server the fixture starts on loopback). Times come from the test (`now`), never from
a clock the store reads.

"Shared" tests open two stores on one backing (two SQLite connections to one file, two Redis clients with their own
pools) and check that what one writes the other sees: the memory backend is per store, so it sits those out.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from webreach.config import StateSettings
from webreach.models import Hit
from webreach.policies.rate_limit import TokenBucket
from webreach.state.breaker_store import BreakerRecord, BreakerStore, MemoryBreakerStore, SqliteBreakerStore
from webreach.state.bucket_store import BucketStore, MemoryBucketStore, Pace, SqliteBucketStore
from webreach.state.cache_store import CacheEntry, CacheStore, MemoryCacheStore, SqliteCacheStore
from webreach.state.parse_health_store import (
    RECENT,
    MemoryParseHealthStore,
    ParseHealthStore,
    ParseRecord,
    SqliteParseHealthStore,
)
from webreach.state.redis_breaker_store import RedisBreakerStore
from webreach.state.redis_bucket_store import RedisBucketStore
from webreach.state.redis_cache_store import RedisCacheStore
from webreach.state.redis_connection import RedisConnection, open_redis
from webreach.state.redis_parse_health_store import RedisParseHealthStore

T0 = 1_700_000_000.25
HITS = (
    Hit(rank=1, title="异步 Rust", url="https://example.cn/a", snippet="“quoted” …", engine="baidu", date="2024-05-01"),
    Hit(rank=2, title="Two", url="https://example.org/b", engine="bing", engines=("bing", "duckduckgo"), score=0.5),
)
BACKENDS = ["memory", "sqlite", "redis"]


def entry(stored_at: float = T0, ttl: float = 60.0, keep: float = 600.0) -> CacheEntry:
    return CacheEntry(hits=HITS, stored_at=stored_at, fresh_until=stored_at + ttl, keep_until=stored_at + keep)


class Backing:
    """Opens stores of one kind on one shared backing (a file, a Redis) and closes them all at the end."""

    def __init__(self, kind: str, tmp_path: Path, redis_url: str | None) -> None:
        self.kind, self._tmp, self._url = kind, tmp_path, redis_url
        self._connections: list[RedisConnection] = []
        self._closers: list[Callable[[], None]] = []
        self._behind: list[RedisBreakerStore | RedisParseHealthStore] = []
        self.shared = kind != "memory"

    def connection(self) -> RedisConnection:
        # the contract is what the stores answer, not how fast: 30 commands at once missed the 0.5 s default once
        # on a loaded machine, and a missed bucket command paces locally (another answer, by design)
        settings = StateSettings(backend="redis", url=self._url, key_prefix="contract:", timeout=5)  # type: ignore[arg-type]
        connection = open_redis(settings)
        self._connections.append(connection)
        return connection

    def cache(self) -> CacheStore:
        store: CacheStore
        if self.kind == "memory":
            store = MemoryCacheStore()
        elif self.kind == "sqlite":
            store = SqliteCacheStore(self._tmp / "cache.sqlite3")
        else:
            store = RedisCacheStore(self.connection())
        self._closers.append(store.close)
        return store

    def buckets(self) -> BucketStore:
        store: BucketStore
        if self.kind == "memory":
            store = MemoryBucketStore()
        elif self.kind == "sqlite":
            store = SqliteBucketStore(self._tmp / "state.sqlite3")
        else:
            store = RedisBucketStore(self.connection())
        self._closers.append(store.close)
        return store

    def breakers(self) -> BreakerStore:
        store: BreakerStore
        if self.kind == "memory":
            store = MemoryBreakerStore()
        elif self.kind == "sqlite":
            store = SqliteBreakerStore(self._tmp / "state.sqlite3")
        else:
            store = RedisBreakerStore(self.connection())
            self._behind.append(store)
        self._closers.append(store.close)
        return store

    def parse_health(self) -> ParseHealthStore:
        store: ParseHealthStore
        if self.kind == "memory":
            store = MemoryParseHealthStore()
        elif self.kind == "sqlite":
            store = SqliteParseHealthStore(self._tmp / "state.sqlite3")
        else:
            store = RedisParseHealthStore(self.connection())
            self._behind.append(store)
        self._closers.append(store.close)
        return store

    async def settle(self) -> None:
        """Wait for the Redis stores' writes behind."""
        for store in self._behind:
            await store.flush()

    async def aclose(self) -> None:
        await self.settle()
        for close in self._closers:
            close()
        for connection in self._connections:
            await connection.aclose()


@pytest.fixture(params=BACKENDS)
async def backing(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backing]:
    url = str(request.getfixturevalue("redis_url")) if request.param == "redis" else None
    opened = Backing(request.param, tmp_path, url)
    yield opened
    await opened.aclose()


# --- the search cache ---


async def test_cache_gives_back_what_was_set_until_keep_until(backing: Backing) -> None:
    store = backing.cache()
    assert await store.get("k", now=T0) is None
    await store.set("k", entry())
    assert await store.get("k", now=T0 + 1) == entry()
    stale = await store.get("k", now=T0 + 60)  # past fresh_until: still kept for stale-if-error
    assert stale == entry() and not stale.is_fresh(T0 + 60)
    assert await store.get("k", now=T0 + 600) is None  # the caller's clock decides, not the backend's
    assert await store.get("other", now=T0) is None


async def test_cache_set_replaces_the_entry(backing: Backing) -> None:
    store = backing.cache()
    await store.set("k", entry())
    newer = entry(stored_at=T0 + 5, ttl=10, keep=20)
    await store.set("k", newer)
    assert await store.get("k", now=T0 + 6) == newer
    assert await store.get("k", now=T0 + 25) is None


async def test_cache_written_by_one_client_is_read_by_another(backing: Backing) -> None:
    if not backing.shared:
        pytest.skip("the memory cache is per store")
    writer, reader = backing.cache(), backing.cache()
    assert await reader.get("k", now=T0) is None
    await writer.set("k", entry())
    assert await reader.get("k", now=T0 + 1) == entry()


@pytest.mark.redis
async def test_redis_cache_keys_expire_with_the_entry(redis_url: str) -> None:
    connection = open_redis(StateSettings(backend="redis", url=redis_url, key_prefix="p1:"))  # type: ignore[arg-type]
    try:
        await RedisCacheStore(connection).set("mojeek:abc", entry(ttl=60, keep=600))
        keys = [key async for key in connection.client.scan_iter("*")]
        assert keys == [b"p1:cache:mojeek:abc"], "every key carries the configured prefix"
        ttl_ms = await connection.client.pttl("p1:cache:mojeek:abc")
        assert 0 < ttl_ms <= 600_000, "the key lives no longer than the entry is kept"
    finally:
        await connection.aclose()


# --- the rate-limit buckets ---


async def test_buckets_pace_one_slot_apart_and_refuse_past_max_wait(backing: Backing) -> None:
    bucket = TokenBucket(60, burst=1, engine="baidu", store=backing.buckets())
    answers = [await bucket.reserve(T0, 2.0) for _ in range(4)]
    assert answers == [(True, 0.0), (True, 1.0), (True, 2.0), (False, 3.0)]
    assert await bucket.reserve(T0 + 3, 2.0) == (True, 0.0), "a refused reservation took nothing"


async def test_buckets_refill_at_the_rate_up_to_the_burst(backing: Backing) -> None:
    store, pace = backing.buckets(), Pace(60, 2)
    await store.reserve("baidu", pace, now=T0, max_wait=0)
    granted = [(await store.reserve("baidu", pace, now=T0 + 1000, max_wait=0))[0] for _ in range(3)]
    assert granted == [True, True, False]
    assert await store.reserve("bing", pace, now=T0 + 1000, max_wait=0) == (True, 0.0), "levels are per engine"


async def test_buckets_refund_gives_one_token_back(backing: Backing) -> None:
    store, pace = backing.buckets(), Pace(60, 1)
    await store.refund("baidu", pace)  # nothing taken yet: nothing to give back, the bucket stays full
    assert await store.reserve("baidu", pace, now=T0, max_wait=0) == (True, 0.0)
    assert (await store.reserve("baidu", pace, now=T0, max_wait=0))[0] is False
    await store.refund("baidu", pace)
    assert await store.reserve("baidu", pace, now=T0, max_wait=0) == (True, 0.0)


async def test_buckets_survive_the_clock_stepping_back(backing: Backing) -> None:
    store, pace = backing.buckets(), Pace(6, 1)  # a token every 10 s
    assert (await store.reserve("baidu", pace, now=T0 + 3600, max_wait=0))[0]
    # an hour earlier: no negative refill, and the level's stamp moves back, so the engine is not stalled an hour
    assert await store.reserve("baidu", pace, now=T0, max_wait=0) == (False, 10.0)
    assert await store.reserve("baidu", pace, now=T0 + 10, max_wait=0) == (True, 0.0)


async def test_two_clients_draw_from_one_bucket(backing: Backing) -> None:
    if not backing.shared:
        pytest.skip("the memory buckets are per store")
    first, second = backing.buckets(), backing.buckets()
    pace = Pace(60, 10)
    taken = await asyncio.gather(
        *(store.reserve("baidu", pace, now=T0, max_wait=0) for store in (first, second) for _ in range(15))
    )
    assert sum(granted for granted, _ in taken) == 10, "the burst is spent once, whichever client asks"
    assert await second.reserve("baidu", pace, now=T0, max_wait=5) == (True, 1.0)
    assert await first.reserve("baidu", pace, now=T0, max_wait=5) == (True, 2.0), "waiters queue one slot apart"


@pytest.mark.redis
async def test_redis_bucket_keys_expire_once_the_bucket_is_full_again(redis_url: str) -> None:
    connection = open_redis(StateSettings(backend="redis", url=redis_url, key_prefix="p2:"))  # type: ignore[arg-type]
    try:
        await RedisBucketStore(connection).reserve("baidu", Pace(6, 1), now=T0, max_wait=0)
        ttl_ms = await connection.client.pttl("p2:bucket:baidu")
        assert 0 < ttl_ms <= 11_000, "one token at 6/min refills in 10 s (plus one second)"
    finally:
        await connection.aclose()


# --- the breaker records ---


async def seen(store: BreakerStore) -> dict[str, BreakerRecord] | None:
    """What `changes()` reports once the store has looked (the Redis store looks behind the caller's back)."""
    found = store.changes()
    if found is None and isinstance(store, RedisBreakerStore):
        await store.flush()
        found = store.changes()
    return found


TRIP = BreakerRecord("duckduckgo", open_until=T0 + 600, reason="captcha", openings=1, fingerprint="f1")


async def test_breaker_records_are_kept_per_engine(backing: Backing) -> None:
    store = backing.breakers()
    assert store.load_all() == {}
    store.save(TRIP)
    store.save(BreakerRecord("bing", failures=2))
    assert store.load("duckduckgo") == TRIP and store.load("bing") == BreakerRecord("bing", failures=2)
    store.delete("bing")
    assert store.load_all() == {"duckduckgo": TRIP}
    store.clear()
    assert store.load_all() == {}


async def test_a_trip_written_by_one_client_is_seen_by_another(backing: Backing) -> None:
    if not backing.shared:
        pytest.skip("memory breakers are per store")
    first, second = backing.breakers(), backing.breakers()
    assert await seen(second) is None, "nothing changed yet"
    first.save(TRIP)
    await backing.settle()
    assert await seen(second) == {"duckduckgo": TRIP}
    assert await seen(second) is None, "a change is reported once"
    assert await seen(first) is None, "a store's own write is no news to it"
    first.delete("duckduckgo")  # a reset
    await backing.settle()
    assert await seen(second) == {}
    third = backing.breakers()
    third_start = third.load_all()
    assert third_start == {}, "a new client starts from what is stored"


async def test_a_new_client_starts_with_the_stored_trips(backing: Backing) -> None:
    if not backing.shared:
        pytest.skip("memory breakers are per store")
    first = backing.breakers()
    first.save(TRIP)
    await backing.settle()
    later = backing.breakers()
    assert later.load_all() == {"duckduckgo": TRIP}
    assert later.generation == first.generation > 0


# --- parse health ---


async def histories(store: ParseHealthStore) -> dict[str, ParseRecord]:
    """Every history as the store shows it once it has looked (the Redis store looks behind the caller's back)."""
    found = store.load_all()
    if isinstance(store, RedisParseHealthStore):
        await store.flush()
        found = store.load_all()
    return found


async def test_parse_health_keeps_the_last_answers_per_engine(backing: Backing) -> None:
    store = backing.parse_health()
    for i in range(RECENT + 5):
        store.record("bing", "engine" if i % 2 else "generic", T0 + i)
    store.record("baidu", "parse_error", T0)
    await backing.settle()
    found = await histories(store)
    assert set(found) == {"bing", "baidu"}
    assert found["bing"].last_mode == "generic" and found["bing"].last_at == T0 + RECENT + 4
    assert len(found["bing"].recent) == RECENT and found["bing"].recent.endswith("geg")
    assert found["baidu"].recent == "x"


async def test_parse_health_of_two_clients_adds_up(backing: Backing) -> None:
    if not backing.shared:
        pytest.skip("memory parse health is per store")
    first, second = backing.parse_health(), backing.parse_health()
    first.record("bing", "engine", T0)
    await backing.settle()
    second.record("bing", "generic", T0 + 1)
    await backing.settle()
    found = await histories(first)
    assert found["bing"].recent == "eg" and found["bing"].last_mode == "generic"
