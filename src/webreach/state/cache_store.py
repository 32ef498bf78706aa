"""Search-result cache stores: the CacheStore protocol and its memory, SQLite and no-op backends.

A store keeps each entry until `keep_until` (past its freshness, so the Gateway can serve stale results when
every engine fails) and stays within `max_entries`. It never reads a clock: callers pass `now`.

Backends never fail a search. The SQLite backend (its own file, opened through state/sqlite_file.py's SqliteFile)
logs one warning when its file cannot be created or used and then behaves like a cache that misses; later failures
are logged at debug level only.
The protocol is async so a networked backend fits behind it (the Redis store, state/redis_cache_store.py, goes
through redis.asyncio). The embedded stores answer in the loop: a primary-key read or a single-row write on a WAL
file is sub-millisecond, and a hop to a worker thread would expire every FakeClock deadline in the tests (its
timeout fires at the first real suspension); docs/decisions.md (2026-11-28) records this as left to do.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from cachetools import LRUCache

from webreach.config import CacheSettings, user_directory
from webreach.models import Hit
from webreach.state.sqlite_file import SqliteFile, SqliteStore

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS search_cache_v1 ("
    " key TEXT PRIMARY KEY, hits TEXT NOT NULL,"
    " stored_at REAL NOT NULL, fresh_until REAL NOT NULL, keep_until REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS search_cache_v1_keep ON search_cache_v1 (keep_until)",
    "CREATE INDEX IF NOT EXISTS search_cache_v1_stored ON search_cache_v1 (stored_at)",
)


@dataclass(frozen=True)
class CacheEntry:
    """Hits stored for one cache key, fresh until `fresh_until` and kept (as stale) until `keep_until`."""

    hits: tuple[Hit, ...]
    stored_at: float
    fresh_until: float
    keep_until: float
    answer: str | None = None
    # what callers derived from this answer, living and dying with the entry (routing keeps the response it built
    # from an in-process entry here: routing/kept.py); never stored, compared or shown
    derived: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def is_fresh(self, now: float) -> bool:
        """Whether the entry may be served as a normal cache hit."""
        return now < self.fresh_until


class CacheStore(Protocol):
    """Where cached search results live. get/set never raise for backend trouble; they miss instead."""

    async def get(self, key: str, *, now: float) -> CacheEntry | None:
        """The entry for `key` while now < keep_until (fresh or stale), else None."""
        ...

    async def set(self, key: str, entry: CacheEntry) -> None:
        """Store `entry`, replacing any previous one, evicting others to stay within the size bound."""
        ...

    def resize(self, max_entries: int) -> None:
        """Take a new size bound while running (the console's [cache] max_entries); no I/O."""
        ...

    def close(self) -> None:
        """Release files or connections."""
        ...


class MemoryCacheStore:
    """A bounded in-process LRU: the default, nothing survives the process.

    cachetools' LRUCache keeps the bound and the recency order. Expiry stays here rather than in a TTLCache:
    each entry carries its own keep_until and the caller passes `now`, so the store needs no clock of its own.
    """

    def __init__(self, max_entries: int = 2000) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._entries: LRUCache[str, CacheEntry] = LRUCache(maxsize=max_entries)

    def __len__(self) -> int:
        return len(self._entries)

    async def get(self, key: str, *, now: float) -> CacheEntry | None:
        return self.peek(key, now=now)

    def peek(self, key: str, *, now: float) -> CacheEntry | None:
        """get() without awaiting: this store needs no I/O (the search cache's answer-at-once path uses it)."""
        entry = self._entries.get(key)  # a hit becomes the most recently used
        if entry is None:
            return None
        if now >= entry.keep_until:
            del self._entries[key]
            return None
        return entry

    async def set(self, key: str, entry: CacheEntry) -> None:
        self._entries[key] = entry  # past max_entries, the least recently used goes

    def resize(self, max_entries: int) -> None:
        """A new bound (the console's [cache] max_entries): the newest entries that fit stay."""
        if max_entries == self.max_entries:
            return
        kept: LRUCache[str, CacheEntry] = LRUCache(maxsize=max_entries)
        for key in list(self._entries)[-max_entries:]:  # in the order they were stored: the newest stay
            kept[key] = self._entries[key]
        self._entries, self.max_entries = kept, max_entries

    def close(self) -> None:
        return None


class NullCacheStore:
    """Caching switched off (backend = "none")."""

    async def get(self, key: str, *, now: float) -> CacheEntry | None:
        return None

    async def set(self, key: str, entry: CacheEntry) -> None:
        return None

    def resize(self, max_entries: int) -> None:
        return None

    def close(self) -> None:
        return None


class SqliteCacheStore(SqliteStore):
    """A SQLite file shared by every process on the machine (WAL), opened on first use through SqliteFile;
    once it cannot be opened (`usable` is False) the store misses on every call.

    Bounded by evicting the oldest-stored entries (not least recently read: that would turn every read
    into a write) after dropping entries past keep_until.
    """

    def __init__(self, path: Path, *, max_entries: int = 2000, busy_timeout: float = 0.5) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        what, fallback = "search cache", "searching without the cache"
        super().__init__(SqliteFile(path, _SCHEMA, what=what, fallback=fallback, busy_timeout=busy_timeout))

    async def get(self, key: str, *, now: float) -> CacheEntry | None:
        return self._get(key, now)

    async def set(self, key: str, entry: CacheEntry) -> None:
        self._set(key, entry)

    def resize(self, max_entries: int) -> None:
        """The next write trims the file to the new bound (oldest first)."""
        self.max_entries = max_entries

    def _get(self, key: str, now: float) -> CacheEntry | None:
        conn = self._file.connection(create=True)
        if conn is None:
            return None
        try:
            row = conn.execute(
                "SELECT hits, stored_at, fresh_until, keep_until FROM search_cache_v1 WHERE key = ?", (key,)
            ).fetchone()
        except sqlite3.Error as exc:
            self._file.report("read from", exc)
            return None
        if row is None or now >= row[3]:
            return None
        decoded = decode_payload(row[0])
        if decoded is None:
            return None
        hits, answer = decoded
        return CacheEntry(hits=hits, stored_at=row[1], fresh_until=row[2], keep_until=row[3], answer=answer)

    def _set(self, key: str, entry: CacheEntry) -> None:
        conn = self._file.connection(create=True)
        if conn is None:
            return
        payload = encode_hits(entry.hits, entry.answer)
        try:
            with conn:
                conn.execute(
                    "INSERT OR REPLACE INTO search_cache_v1 VALUES (?, ?, ?, ?, ?)",
                    (key, payload, entry.stored_at, entry.fresh_until, entry.keep_until),
                )
                conn.execute("DELETE FROM search_cache_v1 WHERE keep_until <= ?", (entry.stored_at,))
                conn.execute(
                    "DELETE FROM search_cache_v1 WHERE key IN"
                    " (SELECT key FROM search_cache_v1 ORDER BY stored_at DESC LIMIT -1 OFFSET ?)",
                    (self.max_entries,),
                )
        except sqlite3.Error as exc:
            self._file.report("write to", exc)


def encode_hits(hits: tuple[Hit, ...], answer: str | None = None) -> str:
    """The JSON text a store keeps for `hits`: their list, or {"hits", "answer"} when an AI answer came with them."""
    items = [hit.model_dump(mode="json") for hit in hits]
    return json.dumps(items if answer is None else {"hits": items, "answer": answer}, ensure_ascii=False)


def decode_hits(payload: str | bytes) -> tuple[Hit, ...] | None:
    """Hits from a stored row, or None when the row is unreadable (e.g. written by an incompatible version)."""
    decoded = decode_payload(payload)
    return None if decoded is None else decoded[0]


def decode_payload(payload: str | bytes) -> tuple[tuple[Hit, ...], str | None] | None:
    """Hits and the AI answer from a stored row (encode_hits), or None when the row is unreadable."""
    try:
        data = json.loads(payload)
        answer = data.get("answer") if isinstance(data, dict) else None
        items = data["hits"] if isinstance(data, dict) else data
        return tuple(Hit.model_validate(item) for item in items), answer if isinstance(answer, str) else None
    except (ValueError, TypeError, KeyError):
        return None


def soonest_fresh_until(path: Path, now: float) -> float | None:
    """The soonest `fresh_until` among the entries of the SQLite cache `path` still fresh at `now` (None: none, or
    no readable file): never later than the expiry of any entry that answered fresh at `now` or after. The CLI's
    answer memo (webreach/answer_memo.py) expires then."""
    if not path.exists():
        return None
    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            row = conn.execute("SELECT MIN(fresh_until) FROM search_cache_v1 WHERE fresh_until > ?", (now,)).fetchone()
    except sqlite3.Error:
        return None
    return None if row is None or row[0] is None else float(row[0])


def default_cache_path(environ: Mapping[str, str] | None = None) -> Path:
    """cache.sqlite3 in the user cache directory ($XDG_CACHE_HOME/webreach, else ~/.cache/webreach on Linux)."""
    return user_directory("cache", environ) / "cache.sqlite3"


def open_cache_store(settings: CacheSettings, *, environ: Mapping[str, str] | None = None) -> CacheStore:
    """The store `settings.backend` names (Redis: state/backends.py); the SQLite file is created when first used."""
    if settings.backend == "memory":
        return MemoryCacheStore(settings.max_entries)
    if settings.backend == "sqlite":
        path = settings.path or default_cache_path(environ)
        return SqliteCacheStore(path, max_entries=settings.max_entries)
    return NullCacheStore()
