"""Token-bucket stores: the BucketStore protocol and its memory and SQLite backends (Redis: redis_bucket_store.py).

A BucketLevel is one engine's bucket as data: how many tokens it held (negative while callers wait for
reserved slots) at wall-clock time `updated` (epoch seconds). Stores never read a clock: callers pass `now`.
The bucket arithmetic is `taken` and `given_back` below (the Redis store runs the same rule as a Lua script,
and the contract suite, tests/state/test_contract.py, holds the backends to the same answers): a bucket never
used starts full; it refills at rate_per_minute up to burst; a token available within max_wait is reserved
(the level may go below zero, which queues waiters one slot apart); otherwise nothing is taken and the level is
only restamped. The wall clock may step back: refill never goes negative and the level's time moves back with it.

The protocol is async: reserve/refund. The memory and SQLite stores answer in the loop (one short write
transaction; see state/cache_store.py for why not on a thread yet), the Redis store through redis.asyncio.

Across processes (the SQLite backend, table rate_buckets_v1 in the state file): update() reads and writes the
engine's row inside one BEGIN IMMEDIATE transaction, so two processes taking tokens at once serialise on
SQLite's write lock (waiting at most the busy timeout) and never both spend the same token. Eight CLI runs in
a few seconds therefore see one bucket, not eight full ones. The cost is one short write transaction per
search, on a WAL file with synchronous=NORMAL (no fsync per commit).

The SQLite backend never fails a search. When the file cannot be opened or the transaction fails (locked past
the busy timeout, disk full) it logs one warning and carries on with the last levels it saw, in memory: this
process still keeps its own pace.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from webreach.config import StateSettings
from webreach.state.sqlite_file import SqliteFile, SqliteStore, default_state_path

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS rate_buckets_v1 (engine TEXT PRIMARY KEY, tokens REAL NOT NULL, updated REAL NOT NULL)",
)

R = TypeVar("R")


@dataclass(frozen=True)
class BucketLevel:
    """One engine's bucket: `tokens` held at time `updated`."""

    tokens: float
    updated: float


@dataclass(frozen=True)
class Pace:
    """One engine's bucket: refilled at `rate_per_minute`, holding at most `burst` tokens."""

    rate_per_minute: float
    burst: float


# given the stored level (None: the engine has none yet), the level to store (None: leave it) and a result
Change = Callable[[BucketLevel | None], tuple[BucketLevel | None, R]]
Reservation = tuple[bool, float]  # (granted, seconds to wait for the slot)


def refilled(stored: BucketLevel | None, pace: Pace, now: float) -> float:
    """Tokens at `now`: a bucket never used starts full; a level saved under a larger burst is capped."""
    if stored is None:
        return pace.burst
    elapsed = max(0.0, now - stored.updated)
    return min(pace.burst, stored.tokens + elapsed * pace.rate_per_minute / 60)


def taken(pace: Pace, now: float, max_wait: float) -> Change[Reservation]:
    """The change that takes a token available within max_wait: (True, wait); else (False, wait), untaken."""

    def take(stored: BucketLevel | None) -> tuple[BucketLevel | None, Reservation]:
        tokens = refilled(stored, pace, now)
        wait = 0.0 if tokens >= 1 else (1 - tokens) * 60 / pace.rate_per_minute
        if wait > max_wait:
            # the same level, restamped: a stamp from the future (the clock stepped back) is corrected
            return BucketLevel(tokens, now), (False, wait)
        return BucketLevel(tokens - 1, now), (True, wait)

    return take


def given_back(pace: Pace) -> Change[None]:
    """The change that returns one reserved token (nothing when the level is gone: it was cleared meanwhile)."""

    def give_back(stored: BucketLevel | None) -> tuple[BucketLevel | None, None]:
        if stored is None:
            return None, None
        return BucketLevel(min(pace.burst, stored.tokens + 1), stored.updated), None

    return give_back


class BucketStore(Protocol):
    """Where token-bucket levels live. No method raises for backend trouble."""

    async def reserve(self, engine: str, pace: Pace, *, now: float, max_wait: float) -> Reservation:
        """Take the engine's next token if it comes within max_wait, atomically across every sharer of the store."""
        ...

    async def refund(self, engine: str, pace: Pace) -> None:
        """Give back a token reserved but never used."""
        ...

    def close(self) -> None:
        """Release files or connections."""
        ...


class MemoryBucketStore:
    """Levels for this process only: a new process starts with full buckets."""

    def __init__(self, levels: Mapping[str, BucketLevel] | None = None) -> None:
        self._levels: dict[str, BucketLevel] = dict(levels or {})

    async def reserve(self, engine: str, pace: Pace, *, now: float, max_wait: float) -> Reservation:
        return self.update(engine, taken(pace, now, max_wait))

    async def refund(self, engine: str, pace: Pace) -> None:
        self.update(engine, given_back(pace))

    def update(self, engine: str, change: Change[R]) -> R:
        """Apply `change` to the engine's level and return its result."""
        level, result = change(self._levels.get(engine))
        if level is not None:
            self._levels[engine] = level
        return result

    def load(self, engine: str) -> BucketLevel | None:
        """The engine's level, None when it has none."""
        return self._levels.get(engine)

    def put(self, engine: str, level: BucketLevel | None) -> None:
        """Remember `level` (None forgets the engine's)."""
        if level is None:
            self._levels.pop(engine, None)
        else:
            self._levels[engine] = level

    def close(self) -> None:
        return None


class SqliteBucketStore(SqliteStore):
    """Levels in the state file, shared by every process of the user; mirrored in memory for when it fails."""

    def __init__(self, path: Path, *, busy_timeout: float = 0.5) -> None:
        super().__init__(
            SqliteFile(
                path,
                _SCHEMA,
                what="rate-limit state",
                fallback="rate limits are kept by this process only",
                busy_timeout=busy_timeout,
            )
        )
        self._mirror = MemoryBucketStore()

    async def reserve(self, engine: str, pace: Pace, *, now: float, max_wait: float) -> Reservation:
        return self.update(engine, taken(pace, now, max_wait))

    async def refund(self, engine: str, pace: Pace) -> None:
        self.update(engine, given_back(pace))

    def update(self, engine: str, change: Change[R]) -> R:
        """Apply `change` to the engine's level in one write transaction."""
        conn = self._file.connection(create=True)
        if conn is None:
            return self._mirror.update(engine, change)
        try:
            with conn:  # commits when the block ends, rolls back when it raises
                conn.execute("BEGIN IMMEDIATE")
                row = conn.execute("SELECT tokens, updated FROM rate_buckets_v1 WHERE engine = ?", (engine,)).fetchone()
                stored = _decode(row) if row is not None else None
                # what the file says wins over what this process remembers, should the write below fail
                self._mirror.put(engine, stored)
                level, result = change(stored)
                if level is not None:
                    conn.execute(
                        "INSERT OR REPLACE INTO rate_buckets_v1 (engine, tokens, updated) VALUES (?, ?, ?)",
                        (engine, level.tokens, level.updated),
                    )
        except sqlite3.Error as exc:
            self._file.report("update", exc)
            return self._mirror.update(engine, change)
        if level is not None:
            self._mirror.put(engine, level)
        return result


def _decode(row: Any) -> BucketLevel | None:
    """A level from a row, or None when the row is not one (then the bucket starts full again)."""
    tokens, updated = row
    if not (isinstance(tokens, int | float) and isinstance(updated, int | float)):
        return None
    return BucketLevel(float(tokens), float(updated))


def open_bucket_store(settings: StateSettings, *, environ: Mapping[str, str] | None = None) -> BucketStore:
    """The store `settings.backend` names (Redis: state/backends.py); the SQLite file is created when first used."""
    if settings.backend == "memory":
        return MemoryBucketStore()
    return SqliteBucketStore(settings.path or default_state_path(environ))
