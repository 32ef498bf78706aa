"""Which backend each store opens on: the Redis stores where [state] (or [cache]) says "redis", else the embedded ones.

Kept apart from the stores' own modules so the Redis stores (which import the protocols) and the openers do not
import each other. One RedisConnection (one pool) serves every Redis store of a Gateway; its owner closes it.
Stores not moved to Redis (breaker followers: they wait for this machine's servers) keep to the machine's state
file with backend "redis": docs/scaling.md lists which is where.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from webreach.clock import Clock
from webreach.config import Settings
from webreach.state.breaker_store import BreakerStore, open_breaker_store
from webreach.state.bucket_store import BucketStore, open_bucket_store
from webreach.state.cache_store import CacheStore, open_cache_store
from webreach.state.parse_health_store import ParseHealthStore, open_parse_health_store
from webreach.state.sessions import SessionStore, open_session_store
from webreach.state.sqlite_file import default_state_path

if TYPE_CHECKING:  # the Redis modules import redis (50 ms): only a Redis backend loads them
    from webreach.state.image_store import ImageTokens
    from webreach.state.redis_connection import RedisConnection


def open_shared_redis(settings: Settings) -> RedisConnection | None:
    """The connection the Redis stores share, when any store is configured on Redis; StateBackendError when it
    cannot be used."""
    if "redis" in (settings.state.backend, settings.cache.backend):
        from webreach.state.redis_connection import open_redis

        return open_redis(settings.state)
    return None


def open_cache(
    settings: Settings, redis: RedisConnection | None, *, environ: Mapping[str, str] | None = None
) -> CacheStore:
    """The search cache [cache] backend names."""
    if settings.cache.backend == "redis" and redis is not None:
        from webreach.state.redis_cache_store import RedisCacheStore

        return RedisCacheStore(redis)
    return open_cache_store(settings.cache, environ=environ)


def open_buckets(
    settings: Settings, redis: RedisConnection | None, *, environ: Mapping[str, str] | None = None
) -> BucketStore:
    """The rate-limit buckets [state] backend names."""
    if settings.state.backend == "redis" and redis is not None:
        from webreach.state.redis_bucket_store import RedisBucketStore

        return RedisBucketStore(redis)
    return open_bucket_store(settings.state, environ=environ)


def open_breakers(
    settings: Settings, redis: RedisConnection | None, *, environ: Mapping[str, str] | None = None
) -> BreakerStore:
    """The breaker records [state] backend names."""
    if settings.state.backend == "redis" and redis is not None:
        from webreach.state.redis_breaker_store import RedisBreakerStore

        return RedisBreakerStore(redis)
    return open_breaker_store(settings.state, environ=environ)


def open_sessions(
    settings: Settings, redis: RedisConnection | None, *, clock: Clock, ttl: float, max_refs: int
) -> SessionStore:
    """The session-ref store [state] backend names (SQLite: the state file, created on the first search)."""
    state = settings.state
    if state.backend == "redis" and redis is not None:
        from webreach.state.redis_sessions import RedisSessionStore

        return RedisSessionStore(redis, clock=clock, ttl=ttl, max_refs=max_refs)
    if state.backend == "memory":
        return open_session_store("memory", clock=clock, ttl=ttl, max_refs=max_refs)
    return open_session_store("sqlite", state.path, clock=clock, ttl=ttl, max_refs=max_refs)


def open_images(settings: Settings, redis: RedisConnection | None, *, clock: Clock, ttl: float) -> ImageTokens:
    """The image-token store [state] backend names (SQLite: the state file; memory: a private database)."""
    state, images = settings.state, settings.images
    caps = {"max_bytes": images.store_max_bytes, "max_images": images.store_max_images}
    if state.backend == "redis" and redis is not None:
        from webreach.state.redis_image_store import RedisImageStore

        return RedisImageStore(redis, clock=clock, ttl=ttl, **caps)
    from webreach.state.image_store import ImageStore  # with the first image: a search never opens this store

    path = (state.path or default_state_path()) if state.backend != "memory" else None
    return ImageStore(path, clock=clock, ttl=ttl, **caps)


def open_parse_health(
    settings: Settings, redis: RedisConnection | None, *, environ: Mapping[str, str] | None = None
) -> ParseHealthStore:
    """The parse-health store [state] backend names."""
    if settings.state.backend == "redis" and redis is not None:
        from webreach.state.redis_parse_health_store import RedisParseHealthStore

        return RedisParseHealthStore(redis)
    return open_parse_health_store(settings.state, environ=environ)
