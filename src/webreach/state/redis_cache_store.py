"""The search cache in Redis: every replica sharing one Redis shares one cache (state/cache_store.py's protocol).

One key per entry, <prefix>cache:<engine>:<sha256>, holding a hash {hits, stored_at, fresh_until, keep_until}
written in one HSET + PEXPIRE transaction (MULTI, one round trip). Expiry is the caller's: a read at `now` past
keep_until misses, whatever Redis still holds (tests inject a clock). Redis's own TTL is the bound: the key
expires keep_until - stored_at after it was written (the entry's whole life, fresh plus stale), so nothing
outlives its use; the number of entries is bounded by those TTLs and by the server's maxmemory policy
(docs/scaling.md), not by [cache] max_entries, which bounds the embedded stores.

Like every cache store it never fails a search: a Redis error or timeout ([state] timeout) is a miss (or a write
dropped), logged once as a warning until Redis answers again.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable
from typing import cast

from webreach.state.cache_store import CacheEntry, decode_payload, encode_hits
from webreach.state.redis_connection import REDIS_ERRORS, RedisConnection, RedisLog

_FIELDS = ("hits", "stored_at", "fresh_until", "keep_until")


class RedisCacheStore:
    """Cache entries in Redis, shared by every process using the same Redis and key prefix."""

    def __init__(self, connection: RedisConnection) -> None:
        self._redis = connection
        self._log = RedisLog("search cache", "searching without the shared cache until it answers")

    async def get(self, key: str, *, now: float) -> CacheEntry | None:
        try:
            # redis-py types one method for its sync and async clients alike: await what the async one returns
            values: list[bytes | None] = await cast(
                "Awaitable[list[bytes | None]]", self._redis.client.hmget(self._redis.key("cache", key), list(_FIELDS))
            )
        except REDIS_ERRORS as exc:
            self._log.failed("read from", exc)
            return None
        self._log.worked()
        return _decoded(values, now)

    async def set(self, key: str, entry: CacheEntry) -> None:
        life_ms = max(1, math.ceil((entry.keep_until - entry.stored_at) * 1000))
        mapping = {
            "hits": encode_hits(entry.hits, entry.answer),
            "stored_at": repr(entry.stored_at),
            "fresh_until": repr(entry.fresh_until),
            "keep_until": repr(entry.keep_until),
        }
        full_key = self._redis.key("cache", key)
        try:
            async with self._redis.client.pipeline(transaction=True) as pipe:
                pipe.hset(full_key, mapping=mapping)
                pipe.pexpire(full_key, life_ms)
                await pipe.execute()
        except REDIS_ERRORS as exc:
            self._log.failed("write to", exc)
            return
        self._log.worked()

    def resize(self, max_entries: int) -> None:
        return None  # Redis bounds its memory itself (maxmemory), not by a count

    def close(self) -> None:
        return None  # the connection is the Gateway's (RedisConnection.aclose)


def _decoded(values: list[bytes | None], now: float) -> CacheEntry | None:
    """The entry from HMGET's answer, None when absent, past keep_until at `now`, or unreadable."""
    if any(value is None for value in values):
        return None
    payload, *times = values
    try:
        stored_at, fresh_until, keep_until = (float(value) for value in times if value is not None)
    except ValueError:
        return None
    if now >= keep_until or payload is None:
        return None
    decoded = decode_payload(payload)
    if decoded is None:
        return None
    hits, answer = decoded
    return CacheEntry(hits=hits, stored_at=stored_at, fresh_until=fresh_until, keep_until=keep_until, answer=answer)
