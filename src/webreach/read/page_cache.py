"""The page cache: extracted documents kept for a while, so paging through one with `start` fetches it once.

Beside each document the cache keeps what was derived from it (its passages made ready for questions,
read/question_read.py) under the same key and ttl, so a second question or a passage read neither fetches nor
cuts the page again. A cachetools TTLCache holds them: every entry lives `ttl` seconds from when it was stored,
and past `max_entries` the least recently used goes. Its timer is the injected Clock's now(), so tests move time
with a FakeClock instead of sleeping. A ttl of 0 switches caching off (the cache stays empty).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cachetools import TTLCache

from webreach.clock import Clock
from webreach.read.readers import ReadResult


class PageCache:
    """Extracted documents for `ttl` seconds, least recently used evicted past `max_entries`."""

    def __init__(self, clock: Clock, *, ttl: float, max_entries: int) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._entries: TTLCache[str, ReadResult] = TTLCache(maxsize=max_entries, ttl=ttl, timer=clock.now)
        self._derived: TTLCache[str, tuple[ReadResult, Any]] = TTLCache(maxsize=max_entries, ttl=ttl, timer=clock.now)

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

    def derived(self, key: str, result: ReadResult) -> Any | None:
        """What was derived from `result` under `key` while fresh (None when nothing, or from another document)."""
        entry = self._derived.get(key)
        return entry[1] if entry is not None and entry[0] is result else None

    def keep_derived(self, key: str, result: ReadResult, value: Any) -> None:
        """Keep `value`, derived from `result`, under `key`."""
        if self.ttl > 0:
            self._derived[key] = (result, value)
