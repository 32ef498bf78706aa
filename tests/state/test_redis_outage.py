"""A Redis outage never fails a search: the cache misses, the buckets pace in this process, one warning is logged,
and the stores use Redis again once it is back, without a restart."""

from __future__ import annotations

import logging

import pytest

from webreach.config import StateSettings
from webreach.models import Hit
from webreach.state.bucket_store import Pace
from webreach.state.cache_store import CacheEntry
from webreach.state.redis_bucket_store import RedisBucketStore
from webreach.state.redis_cache_store import RedisCacheStore
from webreach.state.redis_connection import open_redis
from webreach.testing.redis import RedisUnavailable, restartable_redis

pytestmark = pytest.mark.redis
T0 = 1_700_000_000.0
ENTRY = CacheEntry((Hit(rank=1, title="t", url="https://example.org/", engine="mojeek"),), T0, T0 + 60, T0 + 600)


async def test_stores_carry_on_through_an_outage_and_recover(caplog: pytest.LogCaptureFixture) -> None:
    try:
        started = restartable_redis()
        server = started.__enter__()
    except RedisUnavailable as missing:
        pytest.skip(str(missing))
    try:
        connection = open_redis(StateSettings(backend="redis", url=server.url, timeout=0.5))  # type: ignore[arg-type]
        cache, buckets, pace = RedisCacheStore(connection), RedisBucketStore(connection), Pace(60, 1)
        await cache.set("k", ENTRY)
        assert await cache.get("k", now=T0) == ENTRY
        server.stop()
        with caplog.at_level(logging.WARNING, logger="webreach.state.redis_connection"):
            assert await cache.get("k", now=T0) is None
            await cache.set("k", ENTRY)  # dropped, not raised
            assert await buckets.reserve("baidu", pace, now=T0, max_wait=0) == (True, 0.0)
            assert (await buckets.reserve("baidu", pace, now=T0, max_wait=0))[0] is False, "paced in memory"
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 2 and all("could not" in w for w in warnings), warnings
        server.start()  # an empty Redis on the same port: the client reconnects by itself
        await cache.set("k", ENTRY)
        assert await cache.get("k", now=T0) == ENTRY
        assert await buckets.reserve("baidu", pace, now=T0, max_wait=0) == (True, 0.0)
        await connection.aclose()
    finally:
        started.__exit__(None, None, None)
