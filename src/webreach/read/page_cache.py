"""The page cache: extracted documents kept for a while, so paging through one with `start` fetches it once.

A cachetools TTLCache holds them: every entry lives `ttl` seconds from when it was stored, and past `max_entries`
the least recently used goes. Its timer is the injected Clock's now(), so tests move time with a FakeClock
instead of sleeping. A ttl of 0 switches caching off (the cache stays empty).
"""

from __future__ import annotations

from collections.abc import Sequence

from cachetools import TTLCache

from webreach.clock import Clock
from webreach.read.readers import ReadResult


class PageCache:
    """Extracted documents for `ttl` seconds, least recently used evicted past `max_entries`."""

    def __init__(self, clock: Clock, *, ttl: float, max_entries: int) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._entries: TTLCache[str, ReadResult] = TTLCache(maxsize=max_entries, ttl=ttl, timer=clock.now)

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> ReadResult | None:
        """The document stored under `key` while it is fresh (a hit becomes the most recently used)."""
        return self._entries.get(key)

    def put(self, keys: Sequence[str], result: ReadResult) -> None:
        """Store one document under each of `keys` (the URL asked for and the final one)."""
        if self.ttl <= 0:
            return
        for key in keys:
            self._entries[key] = result
