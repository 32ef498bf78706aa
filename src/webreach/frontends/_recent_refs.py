"""Refs the HTTP server wrote moments ago, shown again without a store transaction: the server door's one shortcut.

Why here: a shared server answers the same cached search again and again (an agent loop, a busy REST client), and
every answer remembers its results' refs in the session store. Measured in-process (a cached mojeek search with
JSON output through Toolbox.call, 3,000 calls): 80 us a call with the memory store, 273 us with the SQLite state
file, so the SQLite transaction of each remember() was over two thirds of a cached call; with this in front the
SQLite figure is the memory one again. One-shot doors (CLI, stdio MCP) never repeat fast enough to need it.

Rule: remember() of URLs that one earlier write of the same session returned, less than `window` seconds ago,
answers with that write's refs. Only the session's latest write is kept (a write replaces it), so nothing this
process wrote later can have evicted those refs. What that costs, exactly: a re-shown ref's 24 h TTL restarts
up to `window` seconds late, and if another process evicts those refs meanwhile (1,000 new URLs in the same
session within the window) a ref shown here answers unknown_ref, never another page, because refs are never
reused. Bounded to the `max_sessions` sessions written most recently.
"""

from __future__ import annotations

from collections.abc import Sequence

from cachetools import LRUCache

from webreach.clock import Clock
from webreach.tools import SessionStore

DEFAULT_WINDOW = 60.0
DEFAULT_SESSIONS = 1024


class RecentRefs:
    """A SessionStore in front of `store` that answers re-showings of a session's latest write from memory."""

    def __init__(
        self,
        store: SessionStore,
        clock: Clock,
        *,
        window: float = DEFAULT_WINDOW,
        max_sessions: int = DEFAULT_SESSIONS,
    ) -> None:
        self.store = store
        self._clock = clock
        self._window = window
        self._latest: LRUCache[str, tuple[float, dict[str, int]]] = LRUCache(maxsize=max_sessions)

    async def remember(self, session: str, urls: Sequence[str]) -> list[int]:
        now = self._clock.now()
        latest = self._latest.get(session)
        if latest is not None and now - latest[0] < self._window:
            written = latest[1]
            if all(url in written for url in urls):
                return [written[url] for url in urls]
        refs = await self.store.remember(session, urls)
        self._latest[session] = (now, dict(zip(urls, refs, strict=True)))
        return refs

    async def resolve(self, session: str, ref: int) -> str:
        return await self.store.resolve(session, ref)

    def close(self) -> None:
        self._latest.clear()
