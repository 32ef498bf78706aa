"""Session refs in Redis: a ref given by one replica resolves on every replica sharing the Redis.

The semantics are state/sessions.py's (tests/state/test_sessions.py runs on this backend too): refs count up per
session and are never reused, a URL shown again keeps its ref and restarts its TTL, at most `max_refs` live refs
(the least recently shown go first, the lowest ref first among equals), a counter forgotten only after
`forget_after` without a search. Times are the caller's clock.

Four keys per session, named by a SHA-256 of the session name (any printable name, bounded key length):
<prefix>refs:<hash>:meta (hash: next, touched), :url (hash ref -> URL), :ref (hash URL -> ref) and :seen (sorted
set of refs by when last shown; refs are zero-padded to ten digits so equal times order by ref). remember() is
one Lua call (expire, look up, allocate, restamp, evict, TTLs), so two replicas never hand out the same ref.
Bound: at most max_refs refs per session, and every key expires `forget_after` after the session's last search.

Redis trouble raises SessionStoreError, as the SQLite store does, so the tools show URLs instead of refs.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from webreach.clock import Clock, SystemClock
from webreach.errors import SessionStoreError
from webreach.state.redis_connection import REDIS_ERRORS, RedisConnection
from webreach.state.sessions import (
    DEFAULT_FORGET_AFTER,
    DEFAULT_MAX_REFS,
    DEFAULT_TTL,
    _check_bounds,
    _check_urls,
    check_ref,
    check_session,
    unknown_ref,
)

# KEYS: meta, url, ref, seen. ARGV: now, now - ttl, max_refs, now - forget_after, life ms, urls...
_REMEMBER = """
local meta, byref, byurl, seen = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local touched = tonumber(redis.call('HGET', meta, 'touched'))
if touched ~= nil and touched <= tonumber(ARGV[4]) then redis.call('DEL', meta, byref, byurl, seen) end
local function drop(member)
  local url = redis.call('HGET', byref, member)
  redis.call('HDEL', byref, member)
  redis.call('ZREM', seen, member)
  if url and redis.call('HGET', byurl, url) == member then redis.call('HDEL', byurl, url) end
end
for _, member in ipairs(redis.call('ZRANGEBYSCORE', seen, '-inf', ARGV[2])) do drop(member) end
local out = {}
for i = 6, #ARGV do
  local member = redis.call('HGET', byurl, ARGV[i])
  if not member then
    member = string.format('%010d', redis.call('HINCRBY', meta, 'next', 1))
    redis.call('HSET', byurl, ARGV[i], member)
    redis.call('HSET', byref, member, ARGV[i])
  end
  redis.call('ZADD', seen, ARGV[1], member)
  out[#out + 1] = tonumber(member)
end
redis.call('HSET', meta, 'touched', ARGV[1])
local over = redis.call('ZCARD', seen) - tonumber(ARGV[3])
if over > 0 then
  for _, member in ipairs(redis.call('ZRANGE', seen, 0, over - 1)) do drop(member) end
end
for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ARGV[5]) end
return out
"""
# KEYS: meta, url, ref, seen. ARGV: padded ref. Returns {url or '', seen_at or '', touched or '', next or '0'}.
_RESOLVE = """
local url = redis.call('HGET', KEYS[2], ARGV[1]) or ''
local at = redis.call('ZSCORE', KEYS[4], ARGV[1]) or ''
local touched = redis.call('HGET', KEYS[1], 'touched') or ''
return {url, at, touched, redis.call('HGET', KEYS[1], 'next') or '0'}
"""


class RedisSessionStore:
    """Each session's ref table in Redis, shared by every process using the same Redis and key prefix."""

    def __init__(
        self,
        connection: RedisConnection,
        *,
        clock: Clock | None = None,
        ttl: float = DEFAULT_TTL,
        max_refs: int = DEFAULT_MAX_REFS,
        forget_after: float = DEFAULT_FORGET_AFTER,
    ) -> None:
        _check_bounds(ttl, max_refs, forget_after)
        self._redis = connection
        self._clock = clock or SystemClock()
        self.ttl = ttl
        self.max_refs = max_refs
        self.forget_after = max(forget_after, ttl)
        self._remember = connection.client.register_script(_REMEMBER)
        self._resolve = connection.client.register_script(_RESOLVE)

    async def remember(self, session: str, urls: Sequence[str]) -> list[int]:
        check_session(session)
        _check_urls(urls)
        now = self._clock.now()
        life_ms = math.ceil(self.forget_after * 1000)
        args: list[str | int] = [_exact(now), _exact(now - self.ttl), self.max_refs, _exact(now - self.forget_after)]
        args += [life_ms, *urls]
        try:
            refs = await self._remember(keys=self._keys(session), args=args)
        except REDIS_ERRORS as exc:
            raise SessionStoreError(f"the session store (Redis) could not be written: {type(exc).__name__}") from None
        return [int(ref) for ref in refs]

    async def resolve(self, session: str, ref: int) -> str:
        check_ref(ref)
        check_session(session)
        try:
            url, seen_at, touched, counter = await self._resolve(keys=self._keys(session), args=[f"{ref:010d}"])
        except REDIS_ERRORS as exc:
            raise SessionStoreError(f"the session store (Redis) could not be read: {type(exc).__name__}") from None
        now = self._clock.now()
        if touched and float(touched) <= now - self.forget_after:  # a forgotten session: counted from 1 again
            raise unknown_ref(ref, 1, self.ttl)
        if url and seen_at and float(seen_at) > now - self.ttl:
            return bytes(url).decode()
        raise unknown_ref(ref, int(counter) + 1, self.ttl)

    def close(self) -> None:
        return None  # the connection is the Gateway's (RedisConnection.aclose)

    def _keys(self, session: str) -> list[str]:
        name = hashlib.sha256(session.encode()).hexdigest()[:32]
        return [self._redis.key("refs", f"{name}:{part}") for part in ("meta", "url", "ref", "seen")]


def _exact(number: float) -> str:
    """A float as text Redis reads back to the same value."""
    return repr(float(number))
