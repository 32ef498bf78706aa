"""Benchmark: a cached search and a rate-limited engine call on each state backend (memory, SQLite, Redis).

Run: python -m bench.state_backends [--n 2000]. One Gateway per backend, in one run, against the fake web in its own
process and a throwaway redis-server (webreach.testing.redis) on loopback. Reported side by side:
- cached: p50/p95 of a search answered from the cache ([cache] backend memory | sqlite | redis; the bucket is not
  touched on a hit);
- paced: p50/p95 of a bucket reservation alone ([state] backend), the per-search cost of the rate limit.
Target (issue 37): the cached search's p50 with Redis at most +0.5 ms over SQLite.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from bench.gateway import FAST, STATE_DIR, fake_web_process, percentile
from webreach import Gateway, SearchRequest, Settings
from webreach.config import CacheSettings, StateSettings
from webreach.state.bucket_store import BucketStore, MemoryBucketStore, Pace, SqliteBucketStore
from webreach.state.redis_bucket_store import RedisBucketStore
from webreach.state.redis_connection import open_redis
from webreach.testing.redis import throwaway_redis

BACKENDS = ("memory", "sqlite", "redis")


def settings(backend: str, web: str, redis_url: str) -> Settings:
    home = STATE_DIR / backend
    state: dict[str, Any] = {"backend": "redis" if backend == "redis" else "sqlite", "path": home / "state.sqlite3"}
    if backend == "redis":
        state["url"] = redis_url
    cache = CacheSettings(backend=backend, path=home / "cache.sqlite3")  # type: ignore[arg-type]
    return Settings(fake_web=web, engines={"mojeek": FAST}, cache=cache, state=StateSettings(**state))


async def cached_ms(backend: str, web: str, redis_url: str, n: int) -> list[float]:
    async with Gateway.from_settings(settings(backend, web, redis_url)) as gateway:
        request = SearchRequest(query="python asyncio")
        await gateway.search(request, engine="mojeek")
        samples = []
        for _ in range(n):
            began = time.perf_counter()
            await gateway.search(request, engine="mojeek")
            samples.append((time.perf_counter() - began) * 1000)
    return samples[n // 10 :]


async def paced_ms(backend: str, redis_url: str, n: int) -> list[float]:
    connection = open_redis(StateSettings(backend="redis", url=redis_url)) if backend == "redis" else None  # type: ignore[arg-type]
    store: BucketStore = (
        MemoryBucketStore()
        if backend == "memory"
        else SqliteBucketStore(STATE_DIR / backend / "buckets.sqlite3")
        if connection is None
        else RedisBucketStore(connection)
    )
    pace, samples = Pace(1e9, 1e9), []
    for _ in range(n):
        began = time.perf_counter()
        await store.reserve("mojeek", pace, now=time.time(), max_wait=2.0)
        samples.append((time.perf_counter() - began) * 1000)
    store.close()
    if connection is not None:
        await connection.aclose()
    return samples[n // 10 :]


async def run(n: int, web: str, redis_url: str) -> list[tuple[str, float, float, float, float]]:
    rows = []
    for backend in BACKENDS:
        (STATE_DIR / backend).mkdir(parents=True, exist_ok=True)
        cached = await cached_ms(backend, web, redis_url, n)
        paced = await paced_ms(backend, redis_url, n)
        rows.append((backend, percentile(cached, 0.5), percentile(cached, 0.95), percentile(paced, 0.5),
                     percentile(paced, 0.95)))  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()
    with fake_web_process() as web, throwaway_redis() as redis_url:
        rows = asyncio.run(run(args.n, web, redis_url))
    print("| backend | cached search p50 ms | p95 ms | bucket reserve p50 ms | p95 ms |")
    print("|---|---|---|---|---|")
    for backend, c50, c95, p50, p95 in rows:
        print(f"| {backend} | {c50:.3f} | {c95:.3f} | {p50:.3f} | {p95:.3f} |")
    sqlite_p50 = next(row[1] for row in rows if row[0] == "sqlite")
    redis_p50 = next(row[1] for row in rows if row[0] == "redis")
    print(f"\nRedis - SQLite, cached search p50: {redis_p50 - sqlite_p50:+.3f} ms (target <= +0.5 ms)")


if __name__ == "__main__":
    main()
