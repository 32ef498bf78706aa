"""Breaker records in Redis: a trip on one replica suspends the engine on every replica sharing the Redis.

BreakerStore's protocol is synchronous (policies/breaker.py writes from inside a breaker's transitions and
PolicyState looks for changes every SYNC_INTERVAL), and nothing may wait on the network on the event loop, so
this store answers from its mirror in memory and talks to Redis behind it:
- a write (save, delete, clear) updates the mirror at once and is sent as one Lua call that changes the record
  and bumps the generation together (atomic: a replica never sees a record without its generation moving);
  writes go in order, each after the previous one;
- `changes()` hands over what the last look found and starts the next look: one Lua call reading the
  generation and every record together. PolicyState.sync calls it every SYNC_INTERVAL (0.5 s) and a serving
  door forces it on that beat, so a trip elsewhere reaches this replica within about two intervals;
- at start-up the records are read once, synchronously (like open_redis's PING), so a new replica honours
  suspensions from its first search.

Keys: <prefix>breakers (a hash, one field per engine: bounded by the number of engines, no TTL needed; a record
past open_until is harmless and a reset deletes it) and <prefix>breakers:generation (one counter).
Writes are last-writer-wins per engine, as in the SQLite store. Redis trouble is logged once and the mirror
keeps this replica's own suspensions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from webreach.state.breaker_store import BreakerRecord, MemoryBreakerStore
from webreach.state.redis_behind import Behind
from webreach.state.redis_connection import REDIS_ERRORS, RedisConnection, RedisLog

# KEYS: records hash, generation. ARGV: mode (save | delete | clear), engine, record JSON. Returns the generation.
_WRITE = """
if ARGV[1] == 'save' then redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
elseif ARGV[1] == 'delete' then redis.call('HDEL', KEYS[1], ARGV[2])
else redis.call('DEL', KEYS[1]) end
return redis.call('INCR', KEYS[2])
"""
# KEYS: records hash, generation. Returns {generation, {engine, json, engine, json, ...}}, read together.
_READ = """
return {tonumber(redis.call('GET', KEYS[2]) or '0'), redis.call('HGETALL', KEYS[1])}
"""


class RedisBreakerStore:
    """Breaker records shared through Redis, answered from a mirror in memory."""

    def __init__(self, connection: RedisConnection) -> None:
        self._redis = connection
        self._keys = [connection.key("breakers"), connection.key("breakers", "generation")]
        self._write_script = connection.client.register_script(_WRITE)
        self._read_script = connection.client.register_script(_READ)
        self._mirror = MemoryBreakerStore()
        self._generation = 0
        self._found: dict[str, BreakerRecord] | None = None  # what the last look found, for the next changes()
        self._behind = Behind()
        self._log = RedisLog("breaker state", "suspensions are remembered by this replica only until it answers")
        self._load_now()

    @property
    def generation(self) -> int:
        return self._generation

    def load_all(self) -> dict[str, BreakerRecord]:
        return self._mirror.load_all()

    def load(self, engine: str) -> BreakerRecord | None:
        return self._mirror.load(engine)

    def save(self, record: BreakerRecord) -> None:
        self._mirror.save(record)
        self._send("save", record.engine, _encode(record))

    def delete(self, engine: str) -> None:
        self._mirror.delete(engine)
        self._send("delete", engine)

    def clear(self) -> None:
        self._mirror.clear()
        self._send("clear")

    def changes(self) -> dict[str, BreakerRecord] | None:
        found, self._found = self._found, None
        self._behind.look(self._look_now)
        return found

    async def flush(self) -> None:
        """Wait for the writes and the look in flight (before the connection closes)."""
        await self._behind.flush()

    def close(self) -> None:
        return None  # the connection is the Gateway's (RedisConnection.aclose)

    def _send(self, mode: str, engine: str = "", payload: str = "") -> None:
        # in order: a reset never lands before the trip it resets
        if not self._behind.write(lambda: self._write(mode, engine, payload)):
            self._write_now(mode, engine, payload)  # a synchronous caller (no loop to write behind on)

    async def _write(self, mode: str, engine: str, payload: str) -> None:
        try:
            generation = int(await self._write_script(keys=self._keys, args=[mode, engine, payload]))
        except REDIS_ERRORS as exc:
            self._log.failed("write to", exc)
            return
        self._log.worked()
        self._took_own(generation)

    def _write_now(self, mode: str, engine: str, payload: str) -> None:
        try:
            with self._redis.sync_client() as client:
                generation = int(client.eval(_WRITE, 2, *self._keys, mode, engine, payload))
        except REDIS_ERRORS as exc:
            self._log.failed("write to", exc)
            return
        self._took_own(generation)

    def _took_own(self, generation: int) -> None:
        # our own write is no news to us, unless another replica wrote since we last looked
        if self._generation == generation - 1:
            self._generation = generation

    async def _look_now(self) -> None:
        try:
            generation, flat = await self._read_script(keys=self._keys, args=[])
        except REDIS_ERRORS as exc:
            self._log.failed("read from", exc)
            return
        self._log.worked()
        self._take_in(int(generation), flat)

    def _load_now(self) -> None:
        """The records as Redis holds them, read synchronously once at start-up."""
        try:
            with self._redis.sync_client() as client:
                generation, flat = client.eval(_READ, 2, *self._keys)
        except REDIS_ERRORS as exc:
            self._log.failed("read from", exc)
            return
        self._take_in(int(generation), flat)
        self._found = None  # the start-up state is what load_all gives, not a change

    def _take_in(self, generation: int, flat: Sequence[bytes]) -> None:
        if generation == self._generation:
            return
        records = _decoded(flat)
        self._generation = generation
        self._mirror = MemoryBreakerStore(records)
        self._found = records


def _encode(record: BreakerRecord) -> str:
    return json.dumps(
        [record.open_until, record.reason, record.openings, record.failures, record.fingerprint], ensure_ascii=False
    )


def _decoded(flat: Sequence[bytes]) -> dict[str, BreakerRecord]:
    """Records from HGETALL's flat answer; a field that is not a record (an incompatible version) is left out."""
    records: dict[str, BreakerRecord] = {}
    for name, payload in zip(flat[::2], flat[1::2], strict=True):
        engine = name.decode()
        try:
            values: Any = json.loads(payload)
            open_until, reason, openings, failures, fingerprint = values
            records[engine] = BreakerRecord(
                engine, float(open_until), reason, int(openings), int(failures), fingerprint
            )
        except (ValueError, TypeError):
            continue
    return records
