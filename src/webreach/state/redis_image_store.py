"""Session images in Redis: an image token added on one replica crops on every replica sharing the Redis.

The semantics are state/image_store.py's (tests/state/test_image_store.py runs on this backend too): tokens per
session, `<obs_i>` never reused, a token living `ttl` after it was last registered or used, at most `max_bytes`
and `max_images` per session (least recently used out first), content-addressed blobs. Times are the caller's.

Keys, the session named by a SHA-256 of its name: <prefix>img:<hash>:tok (hash token -> "digest size"),
:seen (sorted set of tokens by when last used) and :next (the next <obs_i>); <prefix>img:blob:<digest> (hash:
mime, width, height, data); <prefix>img:link:<id> (hash: mime, data) for public URLs. put() is one Lua call
(expire, allocate, store, evict, TTLs), so two replicas never hand out the same <obs_i>; get() is one more.

Memory bound: every key has a TTL (a session's keys `ttl` after its last use, a blob `ttl` after the last token
naming it was used, a link its own lifetime); a session holds at most `max_bytes` of images. A blob records the
sessions naming it (a `ref:<session hash>` field each); the eviction that drops a session's last token for it
removes that session's field, and the blob is deleted once no session is left, so bytes another session still
names are never lost. A session whose tokens expired by TTL keeps its field: such a blob waits for its own TTL.
Give Redis a `maxmemory` with `volatile-lru`: an evicted blob makes its token unknown (typed
UnknownImageTokenError), nothing worse.

Redis trouble raises ImageStoreError (a SessionStoreError), as the SQLite store does.
"""

from __future__ import annotations

import hashlib
import math
import secrets

from webreach.clock import Clock, SystemClock
from webreach.errors import ImageStoreError, ImageTooLargeError, UnknownImageTokenError
from webreach.state.image_store import DEFAULT_MAX_BYTES, DEFAULT_MAX_IMAGES, StoredImage, check_token
from webreach.state.redis_connection import REDIS_ERRORS, RedisConnection

# KEYS: tok, seen, next, blob. ARGV: token ('' allocates), digest, size, now, now - ttl, life ms, max bytes,
# max images, mime, width, height, data, blob key prefix, this session's ref field. Returns the token.
_PUT = """
local tok, seen, nxt, blob = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
for _, old in ipairs(redis.call('ZRANGEBYSCORE', seen, '-inf', '(' .. ARGV[5])) do
  redis.call('HDEL', tok, old)
  redis.call('ZREM', seen, old)
end
local token = ARGV[1]
if token == '' then token = '<obs_' .. (redis.call('GET', nxt) or '1') .. '>' end
local obs = string.match(token, '^<obs_(%d+)>$')
if obs then
  local after = tonumber(obs) + 1
  if after > tonumber(redis.call('GET', nxt) or '1') then redis.call('SET', nxt, after) end
end
redis.call('HSET', blob, 'mime', ARGV[9], 'width', ARGV[10], 'height', ARGV[11], 'data', ARGV[12], ARGV[14], 1)
redis.call('PEXPIRE', blob, ARGV[6])
redis.call('HSET', tok, token, ARGV[2] .. ' ' .. ARGV[3])
redis.call('ZADD', seen, ARGV[4], token)
local total, kept = 0, 0
for _, member in ipairs(redis.call('ZREVRANGE', seen, 0, -1)) do
  local entry = redis.call('HGET', tok, member)
  local digest, size = string.match(entry or ' 0', '^(%S*) (%d+)$')
  total, kept = total + tonumber(size), kept + 1
  if total > tonumber(ARGV[7]) or kept > tonumber(ARGV[8]) then
    redis.call('HDEL', tok, member)
    redis.call('ZREM', seen, member)
    local still = false
    for _, value in ipairs(redis.call('HVALS', tok)) do
      if string.sub(value, 1, #digest) == digest then still = true end
    end
    if not still and digest ~= ARGV[2] then
      local gone = ARGV[13] .. digest
      redis.call('HDEL', gone, ARGV[14])
      if redis.call('HLEN', gone) <= 4 then redis.call('DEL', gone) end  -- mime, width, height, data: no ref left
    end
  end
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[6]) end
return token
"""
# KEYS: tok, seen, next. ARGV: token, now, now - ttl, life ms, blob key prefix. Returns {mime, w, h, data} or {}.
_GET = """
local entry = redis.call('HGET', KEYS[1], ARGV[1])
local at = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not entry or not at or tonumber(at) < tonumber(ARGV[3]) then return {} end
local digest = string.match(entry, '^(%S+) ')
local blob = ARGV[5] .. digest
local found = redis.call('HMGET', blob, 'mime', 'width', 'height', 'data')
if not found[4] then return {} end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[4]) end
redis.call('PEXPIRE', blob, ARGV[4])
return found
"""


class RedisImageStore:
    """Each session's images in Redis, shared by every process using the same Redis and key prefix."""

    def __init__(
        self,
        connection: RedisConnection,
        *,
        clock: Clock | None = None,
        ttl: float = 86_400.0,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_images: int = DEFAULT_MAX_IMAGES,
    ) -> None:
        self._redis = connection
        self._clock = clock or SystemClock()
        self.ttl, self.max_bytes, self.max_images = ttl, max_bytes, max_images
        self._put = connection.client.register_script(_PUT)
        self._get = connection.client.register_script(_GET)

    async def put(self, session: str, image: StoredImage) -> str:
        if len(image.data) > self.max_bytes:
            raise ImageTooLargeError(f"the image is {len(image.data):,} bytes, over the store's {self.max_bytes:,}")
        if image.token:
            check_token(image.token)
        now, digest = self._clock.now(), image.digest
        args: list[str | int | bytes] = [image.token, digest, len(image.data), repr(now), repr(now - self.ttl)]
        args += [self._life_ms, self.max_bytes, self.max_images, image.mime, image.width, image.height, image.data]
        args += [self._redis.key("img", "blob:"), f"ref:{_hashed(session)}"]
        keys = [*self._keys(session), self._redis.key("img", f"blob:{digest}")]
        try:
            token = await self._put(keys=keys, args=args)
        except REDIS_ERRORS as exc:
            raise ImageStoreError(f"the image store (Redis) could not be written: {type(exc).__name__}") from None
        return bytes(token).decode() if isinstance(token, bytes) else str(token)

    async def get(self, session: str, token: str) -> StoredImage:
        check_token(token)
        now = self._clock.now()
        args: list[str | int] = [token, repr(now), repr(now - self.ttl), self._life_ms]
        args.append(self._redis.key("img", "blob:"))
        try:
            found = await self._get(keys=self._keys(session), args=args)
        except REDIS_ERRORS as exc:
            raise ImageStoreError(f"the image store (Redis) could not be read: {type(exc).__name__}") from None
        if not found:
            raise UnknownImageTokenError(f"no image {token} in this session")
        mime, width, height, data = found
        return StoredImage(token, bytes(data), bytes(mime).decode(), int(width), int(height))

    async def tokens(self, session: str) -> list[str]:
        low = f"({self._clock.now() - self.ttl!r}"  # exclusive: a token seen exactly ttl ago has expired
        try:
            found = await self._redis.client.zrangebyscore(self._keys(session)[1], low, "+inf")
        except REDIS_ERRORS as exc:
            raise ImageStoreError(f"the image store (Redis) could not be read: {type(exc).__name__}") from None
        return [bytes(token).decode() for token in found]

    async def link(self, data: bytes, mime: str, ttl: float) -> str:
        link_id = secrets.token_urlsafe(24)
        key = self._redis.key("img", f"link:{link_id}")
        try:
            async with self._redis.client.pipeline(transaction=True) as pipe:
                pipe.hset(key, mapping={"mime": mime, "data": data})
                pipe.pexpire(key, math.ceil(ttl * 1000))
                await pipe.execute()
        except REDIS_ERRORS as exc:
            raise ImageStoreError(f"the image store (Redis) could not be written: {type(exc).__name__}") from None
        return link_id

    async def linked(self, link_id: str) -> tuple[bytes, str, float] | None:
        key = self._redis.key("img", f"link:{link_id}")
        try:
            async with self._redis.client.pipeline(transaction=False) as pipe:
                pipe.hmget(key, ["data", "mime"])
                pipe.pttl(key)
                (data, mime), left_ms = await pipe.execute()
        except REDIS_ERRORS as exc:
            raise ImageStoreError(f"the image store (Redis) could not be read: {type(exc).__name__}") from None
        if data is None or mime is None or left_ms is None or left_ms <= 0:
            return None
        return bytes(data), bytes(mime).decode(), left_ms / 1000

    def close(self) -> None:
        return None  # the connection is the Gateway's (RedisConnection.aclose)

    @property
    def _life_ms(self) -> int:
        return math.ceil(self.ttl * 1000)

    def _keys(self, session: str) -> list[str]:
        name = _hashed(session)
        return [self._redis.key("img", f"{name}:{part}") for part in ("tok", "seen", "next")]


def _hashed(session: str) -> str:
    """The session's name in keys and blob ref fields: never the session itself (it may be an agent's name)."""
    return hashlib.sha256(session.encode()).hexdigest()[:32]
