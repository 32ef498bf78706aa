"""Cross-cutting policies. Each wraps a Search and returns a Search with the same signature.

The Search contract every layer keeps is policies/contract.py. The stack order lives in one place, apply_policies():
cache -> breaker -> rate limit -> retry -> deadline -> parse health (which parser read each answer).
Everything the policies remember lives in a PolicyState owned by the Gateway, never in module globals;
what must outlive the process (breaker suspensions, token-bucket levels) goes through the stores it is given.

Other processes' breaker changes (a CLI's `engines --reset`, a suspension a CLI run recorded, the state file
deleted) are taken in by PolicyState.sync: before any breaker admits a call, at most every SYNC_INTERVAL
(0.5 s) of the clock, it asks the store whether the shared generation moved (state/breaker_store.py: one stat
and a one-row read, 8.8 us measured) and restores every breaker from the records when it did. In between a
call pays one clock read and a comparison (0.37 us; the per-call record read this replaced cost 13.5 us).
A server also runs `follow()`, which syncs on that interval while idle and records in the state file which
generation it has applied (state/breaker_followers.py), so `webreach engines --reset` can say when the
running server has picked the reset up.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from functools import partial

from webreach.clock import Clock, SystemClock
from webreach.models import SearchRequest
from webreach.policies.breaker import BreakerState, BreakerView, CircuitBreaker
from webreach.policies.cache import Cache, freshness_ttl, lookup_stale
from webreach.policies.contract import EngineResult, Search
from webreach.policies.deadline import Deadline
from webreach.policies.parse_health import ParseHealth, ParseHealthRecorder
from webreach.policies.rate_limit import RateLimit, TokenBucket
from webreach.policies.retry import Retry
from webreach.state.breaker_followers import BreakerFollowers, Pickup
from webreach.state.breaker_store import BreakerRecord, BreakerStore, MemoryBreakerStore
from webreach.state.bucket_store import BucketStore, MemoryBucketStore
from webreach.state.cache_store import CacheStore, MemoryCacheStore
from webreach.state.parse_health_store import MemoryParseHealthStore, ParseHealthStore

__all__ = [
    "BreakerView",
    "Cache",
    "EngineResult",
    "ParseHealth",
    "Pickup",
    "PolicyState",
    "Search",
    "apply_policies",
    "without_cache",
]

# how stale this process's view of other processes' breaker changes may get (seconds of the clock)
SYNC_INTERVAL = 0.5
# how long a process that changed a breaker waits for running servers to take the change in
PICKUP_WAIT = 3.0


class PolicyState:
    """The clock, stores, breakers, token buckets and random source of one Gateway.

    Two Gateways never share a breaker or a bucket by accident; tests pass a FakeClock and a seeded Random.
    The Gateway passes open_cache_store(settings.cache), open_breaker_store(settings.state) and
    open_bucket_store(settings.state) and open_parse_health_store(settings.state); the defaults are in-memory
    stores. Breakers start from the records in
    the breaker store (so a suspension an earlier process recorded holds here) and write their changes back
    to it; buckets take their tokens from the bucket store, so processes sharing it share each engine's pace.
    `fingerprints` maps an engine to its configuration fingerprint (see policies/breaker.py): a stored
    suspension for credentials recorded under another one is dropped.
    """

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        cache: CacheStore | None = None,
        breaker_store: BreakerStore | None = None,
        bucket_store: BucketStore | None = None,
        fingerprints: Mapping[str, str] | None = None,
        rng: random.Random | None = None,
        followers: BreakerFollowers | None = None,
        parse_health: ParseHealthStore | None = None,
    ) -> None:
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.cache: CacheStore = cache if cache is not None else MemoryCacheStore()
        self.breaker_store: BreakerStore = breaker_store if breaker_store is not None else MemoryBreakerStore()
        self.bucket_store: BucketStore = bucket_store if bucket_store is not None else MemoryBucketStore()
        self.parse_health: ParseHealthStore = parse_health if parse_health is not None else MemoryParseHealthStore()
        self.random = rng if rng is not None else random.Random()
        self._fingerprints = dict(fingerprints or {})
        self.followers = followers
        self._breakers: dict[str, BreakerState] = {}
        for record in self.breaker_store.load_all().values():
            self.breaker_for(record.engine).restore(record)
        self._synced_at = self.clock.now()
        self._buckets: dict[str, TokenBucket] = {}

    def breaker_for(self, engine: str) -> BreakerState:
        """The engine's breaker: as stored, else created closed on first use."""
        breaker = self._breakers.get(engine)
        if breaker is None:
            breaker = self._breakers[engine] = BreakerState(
                engine, store=self.breaker_store, fingerprint=self._fingerprints.get(engine), sync=self.sync
            )
        return breaker

    def sync(self, *, force: bool = False) -> None:
        """Take in other processes' breaker changes, at most every SYNC_INTERVAL unless `force`d.

        An engine without a record after a change was reset (or the state file deleted): its breaker closes.
        """
        now = self.clock.now()
        if not force and 0.0 <= now - self._synced_at < SYNC_INTERVAL:
            return
        self._synced_at = now
        records = self.breaker_store.changes()
        if records is None:
            return
        for engine in sorted(self._breakers.keys() | records.keys()):
            self.breaker_for(engine).restore(records.get(engine) or BreakerRecord(engine))

    @contextlib.asynccontextmanager
    async def follow(self, door: str) -> AsyncIterator[None]:
        """While a long-running door serves: sync every SYNC_INTERVAL and tell other processes what was applied."""
        if self.followers is None:
            yield
            return
        pid = os.getpid()
        self.followers.register(pid, door, self.breaker_store.generation, self.clock.now())
        task = asyncio.create_task(self._follow(self.followers, pid, door))
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            self.followers.unregister(pid)

    async def _follow(self, followers: BreakerFollowers, pid: int, door: str) -> None:
        applied = self.breaker_store.generation
        while True:
            await self.clock.sleep(SYNC_INTERVAL)
            self.sync(force=True)
            if self.breaker_store.generation != applied:
                applied = self.breaker_store.generation
                followers.acknowledge(pid, door, applied, self.clock.now())

    async def pickups(self, wait: float = PICKUP_WAIT) -> list[Pickup]:
        """After a breaker change here: which running servers have taken it in, waiting up to `wait` seconds."""
        if self.followers is None:
            return []
        target = self.breaker_store.generation
        deadline = self.clock.now() + wait
        while True:
            running = self.followers.running(besides=os.getpid())
            pending = [f for f in running if f.generation < target]
            if not pending or self.clock.now() >= deadline:
                return [Pickup(f.pid, f.door, f.generation >= target) for f in running]
            await self.clock.sleep(SYNC_INTERVAL / 5)

    def set_fingerprints(self, fingerprints: Mapping[str, str]) -> None:
        """New configuration fingerprints (the console changed an engine's key or address): a breaker resting for
        the old credentials (auth_failed, quota_exhausted) closes, here and in the store."""
        self._fingerprints = dict(fingerprints)
        for engine, breaker in self._breakers.items():
            fingerprint = self._fingerprints.get(engine)
            if fingerprint is not None and fingerprint != breaker.fingerprint:
                before = breaker.snapshot()
                breaker.fingerprint = fingerprint
                breaker.restore(before)  # a suspension bound to the old configuration is dropped by restore

    def reset_breaker(self, engine: str) -> None:
        """Close the engine's breaker here and delete its stored record (an operator's "try it again now")."""
        self.breaker_for(engine).reset()

    def bucket_for(self, engine: str, rate_per_minute: float) -> TokenBucket:
        """The engine's token bucket; one per engine, made again when its rate changes (its level is in the store)."""
        bucket = self._buckets.get(engine)
        if bucket is None or bucket.rate_per_minute != rate_per_minute:
            bucket = self._buckets[engine] = TokenBucket(rate_per_minute, engine=engine, store=self.bucket_store)
        return bucket

    def breaker_view(self, engine: str) -> BreakerView:
        """Read-only breaker state of one engine (closed when it has never been called)."""
        breaker = self._breakers.get(engine)
        return breaker.view(self.clock.now()) if breaker is not None else BreakerView(engine, "closed")

    def breaker_views(self) -> tuple[BreakerView, ...]:
        """Read-only breaker state of every engine called so far or found in the store, by name."""
        now = self.clock.now()
        return tuple(self._breakers[name].view(now) for name in sorted(self._breakers))

    async def lookup_stale(
        self, engine: str, request: SearchRequest, ignores: Collection[str] = ()
    ) -> EngineResult | None:
        """A cached answer kept past expiry (stale=True), for when every engine failed; None when there is none."""
        return await lookup_stale(self.cache, engine, request, now=self.clock.now(), ignores=ignores)

    def close(self) -> None:
        """Close the stores."""
        self.cache.close()
        self.breaker_store.close()
        self.bucket_store.close()
        self.parse_health.close()
        if self.followers is not None:
            self.followers.close()


def apply_policies(
    search: Search,
    *,
    engine: str,
    state: PolicyState,
    rate_per_minute: float,
    timeout: float,
    retries: int,
    cache_ttl: float,
    record_parses: bool = True,
    ignores: Collection[str] = (),
) -> Search:
    """Wrap one engine's search in the policy stack, outermost first:

    1. cache: a fresh hit answers without the engine, even while its breaker is open or its bucket is empty;
       only real answers are stored, never errors or our own refusals from the layers below. Its key leaves out
       the request fields the engine `ignores` (Engine.ignores).
    2. breaker: a resting engine fails fast, spending no token and no wait. It sees the outcome of a whole
       search after retries, so a blip a retry healed does not count against the engine.
    3. rate limit: one token per search, taken just before the engine is asked (and given back when this
       machine's network never reached it); its refusals are ThrottledError, which the breaker above ignores.
    4. retry: transient errors only, jittered, bounded by `retries` and by `timeout` as a budget.
    5. deadline: each attempt gets `timeout`; an expired attempt is a (retryable) EngineTimeoutError.
    6. parse health: which parser read each answer the engine actually gave (never a cached one), into
       state.parse_health; left out (`record_parses=False`) for calls that parse no search page.
    """
    layers: list[Callable[[Search], Search]] = [
        partial(CircuitBreaker, engine=engine, state=state.breaker_for(engine), clock=state.clock),
        partial(RateLimit, engine=engine, bucket=state.bucket_for(engine, rate_per_minute), clock=state.clock),
        partial(Retry, engine=engine, retries=retries, budget=timeout, clock=state.clock, rng=state.random),
        partial(Deadline, engine=engine, timeout=timeout),
    ]
    if record_parses:
        layers.append(partial(ParseHealthRecorder, engine=engine, store=state.parse_health, clock=state.clock))
    for layer in reversed(layers):
        search = layer(search)
    return Cache(
        search, engine=engine, store=state.cache, clock=state.clock, ttl_for=freshness_ttl(cache_ttl), ignores=ignores
    )


def without_cache(search: Search) -> Search:
    """The stack apply_policies built, below its cache layer: for the canary, where a cached answer proves nothing."""
    return search.inner if isinstance(search, Cache) else search


def probe_stack(search: Search) -> Search:
    """The stack apply_policies built, below its cache and its breaker: a console's "test connection" asks the
    engine for real (rate limit, retries and deadline as a tool call has them) but leaves the breaker untouched,
    neither failing fast on an open one nor counting its own outcome."""
    inner = without_cache(search)
    return inner.inner if isinstance(inner, CircuitBreaker) else inner
