"""Warm-up tokens (DuckDuckGo's vqd, 360's cookie, Startpage's sc) kept between searches, bounded and expiring.

Tokens are kept per (engine, warm-up key) for the engine's warm_up_ttl, on the injected clock so tests control
expiry. The store is bounded: some keys carry the query (DuckDuckGo's vqd belongs to one query), so a
long-running server meets an unbounded number of them. At most MAX_ENTRIES are kept; expired entries are
dropped whenever a new one is stored, and when the store is full the least recently used one goes.
1,024 covers every keyless engine's session tokens plus about a thousand recent page-2 queries, at a few
hundred bytes each.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from cachetools import TLRUCache

from webreach.clock import Clock

MAX_ENTRIES = 1024


@dataclass(frozen=True)
class _Kept:
    tokens: Mapping[str, str]
    ttl: float


def _expires_at(key: tuple[str, str], kept: _Kept, now: float) -> float:
    return now + kept.ttl


class WarmUpTokens:
    """Warm-up tokens per (engine, warm-up key), each expiring after the ttl it was stored with."""

    def __init__(self, clock: Clock, *, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: TLRUCache[tuple[str, str], _Kept] = TLRUCache(
            maxsize=max_entries, ttu=_expires_at, timer=clock.now
        )

    def get(self, engine: str, key: str) -> Mapping[str, str] | None:
        """The tokens stored for (engine, key), or None when there are none or they expired."""
        kept = self._entries.get((engine, key))
        return kept.tokens if kept is not None else None

    def put(self, engine: str, key: str, tokens: Mapping[str, str], ttl: float) -> None:
        """Keep `tokens` for `ttl` seconds (a ttl of 0 or less keeps nothing)."""
        if ttl > 0:
            self._entries[(engine, key)] = _Kept(dict(tokens), ttl)

    def __len__(self) -> int:
        """How many entries are held, expired ones not yet dropped included."""
        return len(self._entries)
