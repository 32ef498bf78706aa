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

Kept in a plain dict in write order (a write moves its session last; the first is the oldest write), so a
re-showing is one dict lookup in C and, for the same URLs the write had (a cached answer hands over the tuple it
keeps: tools/kept_json.py `result_urls`), one identity check; cachetools' LRUCache moved the session on every read
through three Python calls, and reads need not count: only writes can push a session out. With the per-call
dataclasses unfrozen (tools/pipeline.py), bench/serve.py's REST server CPU per cached search went from 1.74x the
bare endpoint's on main to 1.57x (medians of four pairs, alternated, on a disturbed machine: docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from webreach.clock import Clock
from webreach.tools import SessionStore

DEFAULT_WINDOW = 60.0
DEFAULT_SESSIONS = 1024


_Write = tuple[float, tuple[str, ...], list[int], dict[str, int]]


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
        self._max_sessions = max_sessions
        # session -> (when, the URLs written, their refs, URL -> ref), in write order: the oldest write first
        self._latest: dict[str, _Write] = {}

    async def remember(self, session: str, urls: Sequence[str]) -> list[int]:
        now = self._clock.now()
        latest = self._latest.get(session)
        if latest is not None and now - latest[0] < self._window:
            if urls is latest[1] or urls == latest[1]:  # the same URLs again (a cached answer's): its refs
                return list(latest[2])
            written = latest[3]
            if all(url in written for url in urls):
                return [written[url] for url in urls]
        refs = await self.store.remember(session, urls)
        latest = self._latest.pop(session, None)  # moved last: the latest write
        if latest is None and len(self._latest) >= self._max_sessions:
            del self._latest[next(iter(self._latest))]  # the session written longest ago
        kept = urls if isinstance(urls, tuple) else tuple(urls)
        self._latest[session] = (now, kept, list(refs), dict(zip(urls, refs, strict=True)))
        return refs

    async def resolve(self, session: str, ref: int) -> str:
        return await self.store.resolve(session, ref)

    def close(self) -> None:
        self._latest.clear()
