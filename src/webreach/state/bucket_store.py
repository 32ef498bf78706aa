"""Token-bucket stores: the BucketStore protocol and its memory and SQLite backends.

A BucketLevel is one engine's bucket as data: how many tokens it held (negative while callers wait for
reserved slots) at wall-clock time `updated` (epoch seconds). Stores never read a clock and never do bucket
arithmetic; policies/rate_limit.py does, through update(): the store hands the stored level to a pure
function and stores what it returns, atomically.

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


# given the stored level (None: the engine has none yet), the level to store (None: leave it) and a result
Change = Callable[[BucketLevel | None], tuple[BucketLevel | None, R]]


class BucketStore(Protocol):
    """Where token-bucket levels live. No method raises for backend trouble."""

    def update(self, engine: str, change: Change[R]) -> R:
        """Apply `change` to the engine's level atomically and return its result."""
        ...

    def close(self) -> None:
        """Release files or connections."""
        ...


class MemoryBucketStore:
    """Levels for this process only: a new process starts with full buckets."""

    def __init__(self, levels: Mapping[str, BucketLevel] | None = None) -> None:
        self._levels: dict[str, BucketLevel] = dict(levels or {})

    def update(self, engine: str, change: Change[R]) -> R:
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

    def update(self, engine: str, change: Change[R]) -> R:
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
    """The store `settings.backend` names; the SQLite file is created at the first token taken."""
    if settings.backend == "memory":
        return MemoryBucketStore()
    return SqliteBucketStore(settings.path or default_state_path(environ))
