"""Token buckets in Redis: every replica sharing one Redis draws from one bucket per engine (the fleet's pace).

One hash per engine, <prefix>bucket:<engine> = {tokens, updated}. A reservation is one EVALSHA of the script
below: read, refill, take (or only restamp), write and set the TTL happen atomically inside Redis, in one round
trip, so two replicas never both spend a token and their waiters queue one slot apart. The script is
state/bucket_store.py's `taken`/`given_back` rule written in Lua (the contract suite holds both to the same
answers); numbers cross as strings formatted %.17g, so nothing is rounded on the way.

Bound: the key expires when the bucket would be full again ((burst - tokens) * 60 / rate seconds, plus one),
which is the same as having no key (a bucket never used starts full).

A Redis error or timeout never fails a search: the store logs one warning and paces in this process's memory
(MemoryBucketStore) until Redis answers again.
"""

from __future__ import annotations

from webreach.state.bucket_store import MemoryBucketStore, Pace, Reservation
from webreach.state.redis_connection import REDIS_ERRORS, RedisConnection, RedisLog

# KEYS[1]: the bucket. ARGV: mode ("take" | "refund"), now, rate_per_minute, burst, max_wait.
# Returns {granted (1|0), wait as a string}.
_SCRIPT = """
local mode, now, rate, burst = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
local tokens, updated = tonumber(stored[1]), tonumber(stored[2])
local function keep(level, stamp)
  redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', level), 'updated', string.format('%.17g', stamp))
  redis.call('PEXPIRE', KEYS[1], math.ceil((burst - level) * 60000 / rate) + 1000)
end
if mode == 'refund' then
  if tokens == nil or updated == nil then return {0, '0'} end
  keep(math.min(burst, tokens + 1), updated)
  return {1, '0'}
end
local level = burst
if tokens ~= nil and updated ~= nil then
  level = math.min(burst, tokens + math.max(0, now - updated) * rate / 60)
end
local wait = 0
if level < 1 then wait = (1 - level) * 60 / rate end
if wait > tonumber(ARGV[5]) then
  keep(level, now)
  return {0, string.format('%.17g', wait)}
end
keep(level - 1, now)
return {1, string.format('%.17g', wait)}
"""


class RedisBucketStore:
    """Bucket levels in Redis, shared by every process using the same Redis and key prefix."""

    def __init__(self, connection: RedisConnection) -> None:
        self._redis = connection
        self._script = connection.client.register_script(_SCRIPT)
        self._fallback = MemoryBucketStore()
        self._log = RedisLog("rate-limit state", "rate limits are kept by this process only until it answers")

    async def reserve(self, engine: str, pace: Pace, *, now: float, max_wait: float) -> Reservation:
        try:
            granted, wait = await self._run(engine, "take", pace, now, max_wait)
        except REDIS_ERRORS as exc:
            self._log.failed("update", exc)
            return await self._fallback.reserve(engine, pace, now=now, max_wait=max_wait)
        self._log.worked()
        return bool(int(granted)), float(wait)

    async def refund(self, engine: str, pace: Pace) -> None:
        try:
            await self._run(engine, "refund", pace, 0.0, 0.0)
        except REDIS_ERRORS as exc:
            self._log.failed("update", exc)
            await self._fallback.refund(engine, pace)
            return
        self._log.worked()

    async def _run(self, engine: str, mode: str, pace: Pace, now: float, max_wait: float) -> list[bytes]:
        numbers = (now, pace.rate_per_minute, pace.burst, max_wait)
        args = [mode, *(repr(float(n)) for n in numbers)]
        answer: list[bytes] = await self._script(keys=[self._redis.key("bucket", engine)], args=args)
        return answer

    def close(self) -> None:
        return None  # the connection is the Gateway's (RedisConnection.aclose)
