"""The Redis connection of the Redis state backend: one client (one connection pool) shared by every Redis store.

open_redis() is called once when a Gateway opens its stores ([state] backend = "redis", or [cache] backend =
"redis"). It fails typed (StateBackendError) when the redis extra is missing or the server does not answer PING
within [state] timeout: a deployment that asked for shared state must not quietly run on per-process state.
That one PING is synchronous (start-up, before any call is served); everything after goes through redis.asyncio.

Every command is bounded by [state] timeout (socket timeouts), so a Redis outage costs a call at most that much:
the stores then miss or pace in memory and log one warning (RedisLog), and use Redis again when it answers.
Keys are `key_prefix` + a store's own name + its key (RedisConnection.key), so deployments can share a Redis.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from webreach.config import StateSettings
from webreach.errors import StateBackendError

if TYPE_CHECKING:
    import redis
    from redis.asyncio import Redis

logger = logging.getLogger(__name__)

REDIS_ERRORS: tuple[type[Exception], ...]
try:  # the extra may be missing; then open_redis says so and nothing else here is used
    from redis.exceptions import RedisError

    REDIS_ERRORS = (RedisError, OSError, TimeoutError)
except ImportError:  # pragma: no cover - exercised only without the extra
    REDIS_ERRORS = (OSError, TimeoutError)


_OPEN_ERRORS: tuple[type[Exception], ...] = (ValueError, *REDIS_ERRORS)  # ValueError: a malformed URL


class RedisConnection:
    """The asyncio client (its pool is the process's connections to Redis) and the key prefix."""

    def __init__(self, client: Redis, prefix: str, *, settings: StateSettings | None = None) -> None:
        self.client = client
        self.prefix = prefix
        self.settings = settings  # for the rare synchronous command (start-up loads, writes made outside a loop)

    def sync_client(self) -> redis.Redis:
        """A short-lived synchronous client on the same server, for start-up reads and writes outside a loop."""
        import redis

        if self.settings is None or self.settings.url is None:
            raise StateBackendError("this Redis connection was opened without its settings")
        timeout = self.settings.timeout
        url = self.settings.url.get_secret_value()
        return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)

    def key(self, store: str, key: str = "") -> str:
        """The full key of `key` in `store`'s namespace: <prefix><store>:<key>."""
        return f"{self.prefix}{store}:{key}"

    async def aclose(self) -> None:
        """Close every pooled connection."""
        await self.client.aclose()


class RedisLog:
    """One store's trouble with Redis: a warning the first time (and again after it recovered), debug after."""

    def __init__(self, what: str, fallback: str) -> None:
        self.what = what
        self.fallback = fallback
        self._failing = False

    def failed(self, action: str, exc: BaseException) -> None:
        if self._failing:
            logger.debug("%s: could not %s Redis: %s", self.what, action, exc)
            return
        self._failing = True
        logger.warning("%s: could not %s Redis (%s); %s", self.what, action, type(exc).__name__, self.fallback)

    def worked(self) -> None:
        if self._failing:
            self._failing = False
            logger.warning("%s: Redis answers again", self.what)


def open_redis(settings: StateSettings) -> RedisConnection:
    """A connection for the stores, checked with one PING; StateBackendError when Redis cannot be used."""
    if settings.url is None:
        raise StateBackendError('[state] url is not set; the Redis backend needs e.g. url = "redis://host:6379/0"')
    try:
        import redis
        import redis.asyncio
    except ImportError as missing:
        raise StateBackendError(
            f'[state] backend = "redis" needs the redis package ({missing.name} is not installed)',
            hint="Install the extra: pip install 'webreach[redis]'.",
        ) from None
    url = settings.url.get_secret_value()
    options: dict[str, Any] = {"socket_timeout": settings.timeout, "socket_connect_timeout": settings.timeout}
    try:
        with redis.Redis.from_url(url, **options) as probe:
            probe.ping()
        client = redis.asyncio.Redis.from_url(url, **options)
    except _OPEN_ERRORS as exc:
        # the URL may hold a password: name the error's kind and the host part only
        where = url.rsplit("@", 1)[-1]
        raise StateBackendError(f"Redis at {where} cannot be used ({type(exc).__name__})") from None
    return RedisConnection(client, settings.key_prefix, settings=settings)
