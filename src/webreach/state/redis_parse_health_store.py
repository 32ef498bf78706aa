"""Parse health in Redis: which parser read each engine's recent answers, added up over every replica.

ParseHealthStore's protocol is synchronous (the engine status views read it), so, like the breaker store, this
store answers from a mirror and talks to Redis behind the caller (state/redis_behind.py): record() updates the
mirror and appends to the engine's history in one Lua call (read, append, trim to RECENT, write: two replicas'
answers add up, none is lost); load_all() returns the mirror and starts a look that refreshes it from Redis, so
a view shows the fleet's history as of the previous look. The records are read once at start-up.

Key: <prefix>parse_health, a hash with one field per engine ("mode|at|letters"): bounded by the number of
engines; it expires 30 days after the last parsed answer anywhere. Redis trouble is logged once; the mirror keeps
this replica's history.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import cast

from webreach.state.parse_health_store import RECENT, MemoryParseHealthStore, ParseMode, ParseRecord, _decode
from webreach.state.redis_behind import Behind
from webreach.state.redis_connection import REDIS_ERRORS, RedisConnection, RedisLog

LIFE_MS = 30 * 24 * 3600 * 1000
# KEYS: the hash. ARGV: engine, mode, at, letter, RECENT, life ms.
_RECORD = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
local recent = ''
if old then recent = string.match(old, '[^|]*$') or '' end
recent = recent .. ARGV[4]
local keep = tonumber(ARGV[5])
if #recent > keep then recent = string.sub(recent, -keep) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. ARGV[3] .. '|' .. recent)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
"""


class RedisParseHealthStore:
    """Parse histories in Redis, answered from a mirror in memory."""

    def __init__(self, connection: RedisConnection) -> None:
        self._redis = connection
        self._key = connection.key("parse_health")
        self._script = connection.client.register_script(_RECORD)
        self._mirror = MemoryParseHealthStore()
        self._behind = Behind()
        self._log = RedisLog("parse-health state", "parse health is kept by this replica only until it answers")
        self._load_now()

    def record(self, engine: str, mode: ParseMode, at: float) -> None:
        self._mirror.record(engine, mode, at)
        letter = self._mirror.load_all()[engine].recent[-1]
        args: list[str | int] = [engine, mode, repr(float(at)), letter, RECENT, LIFE_MS]
        if not self._behind.write(lambda: self._write(args)):
            self._write_now(args)

    def load_all(self) -> dict[str, ParseRecord]:
        self._behind.look(self._look)
        return self._mirror.load_all()

    async def flush(self) -> None:
        """Wait for the writes and the look in flight."""
        await self._behind.flush()

    def close(self) -> None:
        return None  # the connection is the Gateway's (RedisConnection.aclose)

    async def _write(self, args: list[str | int]) -> None:
        try:
            await self._script(keys=[self._key], args=args)
        except REDIS_ERRORS as exc:
            self._log.failed("write to", exc)
            return
        self._log.worked()

    def _write_now(self, args: list[str | int]) -> None:
        try:
            with self._redis.sync_client() as client:
                client.eval(_RECORD, 1, self._key, *args)
        except REDIS_ERRORS as exc:
            self._log.failed("write to", exc)

    async def _look(self) -> None:
        try:
            # redis-py types one method for its sync and async clients alike: await what the async one returns
            flat = await cast("Awaitable[dict[bytes, bytes]]", self._redis.client.hgetall(self._key))
        except REDIS_ERRORS as exc:
            self._log.failed("read from", exc)
            return
        self._log.worked()
        self._take_in(flat)

    def _load_now(self) -> None:
        try:
            with self._redis.sync_client() as client:
                flat = cast("dict[bytes, bytes]", client.hgetall(self._key))
        except REDIS_ERRORS as exc:
            self._log.failed("read from", exc)
            return
        self._take_in(flat)

    def _take_in(self, flat: dict[bytes, bytes]) -> None:
        records: dict[str, ParseRecord] = {}
        for name, value in flat.items():
            engine = bytes(name).decode()
            mode, _, rest = bytes(value).decode().partition("|")
            at, _, recent = rest.partition("|")
            try:
                record = _decode((engine, mode, float(at), recent))
            except ValueError:
                continue
            if record is not None:
                records[engine] = record
        self._mirror = MemoryParseHealthStore(records)
