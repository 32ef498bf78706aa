"""Cache policy: a repeated search is answered from the store; answers are kept past expiry for stale-if-error.

TTL (seconds) by the request's freshness. The configured TTL (CacheSettings.ttl_seconds) is the ceiling for
every request; results asked to be recent get shorter lives, because their answer changes faster:
    day   -> min(600, configured)      week -> min(3600, configured)
    month, year, none -> configured    no hits -> min(60, configured), never served stale
A configured TTL of 0 switches caching off. Errors are never cached.
An entry stays in the store for MAX_STALE after it expires, so the Gateway can call lookup_stale() and serve
it (stale=True) when every engine failed.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from types import MappingProxyType

from webreach.clock import Clock
from webreach.models import SearchRequest
from webreach.policies.contract import EngineResult, Search
from webreach.state.cache_store import CacheEntry, CacheStore, MemoryCacheStore

TtlFor = Callable[[SearchRequest], float]

MAX_STALE = 24 * 3600.0
EMPTY_TTL = 60.0
FRESHNESS_CAPS: Mapping[str | None, float] = MappingProxyType({"day": 600.0, "week": 3600.0})
# bump when the key's recipe changes, so old entries are never misread
KEY_VERSION = 2
KEYS_KEPT = 256  # per engine: request objects whose cache key Cache remembers


def freshness_ttl(configured: float) -> TtlFor:
    """A ttl_for: the configured TTL, capped at 10 min for freshness=day and 1 h for freshness=week."""

    def ttl_for(request: SearchRequest) -> float:
        cap = FRESHNESS_CAPS.get(request.freshness)
        return configured if cap is None else min(cap, configured)

    return ttl_for


def cache_key(engine: str, request: SearchRequest, ignores: Collection[str] = ()) -> str:
    """Stable key: engine plus the casefolded, whitespace-collapsed query plus every other request field the
    engine's answer depends on (`ignores`, its Engine.ignores, are left out: "limit" for an engine that takes no
    count, so requests differing only in limit share one entry; respond() trims the answer to each one's limit).

    The other fields go in as pydantic writes them (declaration order, so stable for one KEY_VERSION).
    """
    query = " ".join(request.query.casefold().split())
    others = request.model_dump_json(exclude={"query", *ignores})
    recipe = f"{KEY_VERSION}\n{engine}\n{query}\n{others}"
    return f"{engine}:{hashlib.sha256(recipe.encode()).hexdigest()}"


async def lookup_stale(
    store: CacheStore, engine: str, request: SearchRequest, *, now: float, ignores: Collection[str] = ()
) -> EngineResult | None:
    """The kept answer for this engine and request, expired or not (stale=True when expired), or None."""
    entry = await store.get(cache_key(engine, request, ignores), now=now)
    if entry is None or not entry.hits:
        return None
    return EngineResult(hits=entry.hits, cached=True, stale=not entry.is_fresh(now), answer=entry.answer)


class Cache:
    """Serve fresh entries without calling inner; store what inner returns."""

    def __init__(
        self,
        inner: Search,
        *,
        engine: str,
        store: CacheStore,
        clock: Clock,
        ttl_for: TtlFor,
        ignores: Collection[str] = (),
    ) -> None:
        self.inner = inner
        self.engine = engine
        self.ignores = frozenset(ignores)
        self.store = store
        self.clock = clock
        self.ttl_for = ttl_for
        # request id -> (the request, its key): the tool pipeline plans a repeated call once (tools/planned_calls.py),
        # so a cached search meets the same frozen SearchRequest object again; its key (a JSON dump and a SHA-256,
        # ~9% of a cached REST call's CPU in process) is worked out once. The request is held beside its key, so its
        # id cannot be reused while the entry lives.
        self._keys: OrderedDict[int, tuple[SearchRequest, str]] = OrderedDict()

    def key(self, request: SearchRequest) -> str:
        """cache_key() of `request` for this engine, remembered for the last KEYS_KEPT request objects."""
        known = self._keys.get(id(request))
        if known is not None and known[0] is request:
            self._keys.move_to_end(id(request))
            return known[1]
        key = cache_key(self.engine, request, self.ignores)
        self._keys[id(request)] = (request, key)
        if len(self._keys) > KEYS_KEPT:
            self._keys.popitem(last=False)
        return key

    async def __call__(self, request: SearchRequest) -> EngineResult:
        key = self.key(request)
        cached = await self._fresh(key)
        if cached is not None:
            return cached
        result = await self.inner(request)
        await self._remember(key, request, result)
        return result

    def at_once(self, request: SearchRequest) -> EngineResult | None:
        """The fresh entry for `request` when the store can tell without I/O (the in-process store), else None
        (a miss, or a store that must be asked: then __call__ asks it under routing's deadline).

        Routing answers a cached search with it before it starts a task, a hedge timer or the deadline's timeout
        (routing/router.py); only a miss enters the router's machinery."""
        store = self.store
        if not isinstance(store, MemoryCacheStore):
            return None
        now = self.clock.now()
        entry = store.peek(self.key(request), now=now)
        if entry is None or not entry.is_fresh(now):
            return None
        return EngineResult(hits=entry.hits, cached=True, answer=entry.answer, kept=entry.derived)

    async def _fresh(self, key: str) -> EngineResult | None:
        now = self.clock.now()
        entry = await self.store.get(key, now=now)
        if entry is not None and entry.is_fresh(now):
            return EngineResult(hits=entry.hits, cached=True, answer=entry.answer)
        return None

    async def _remember(self, key: str, request: SearchRequest, result: EngineResult) -> None:
        if result.stale:
            return
        ttl = self.ttl_for(request)
        if not result.hits:
            ttl = min(ttl, EMPTY_TTL)
        if ttl <= 0:
            return
        now = self.clock.now()
        # an empty answer is not worth serving when every engine fails: keep it only while fresh
        keep = ttl + MAX_STALE if result.hits else ttl
        await self.store.set(key, CacheEntry(result.hits, now, now + ttl, now + keep, result.answer))
