"""Refs a session store wrote lately, so showing the same results again needs no transaction (state/sessions.py).

Holds, per session, URL -> (ref, when written) for the most recently used MAX_REMEMBERED_SESSIONS sessions, and
the re-showings answered from here that the next transaction must still write.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

MAX_REMEMBERED_SESSIONS = 256


class RecentRefs:
    """What this process wrote lately (session -> URL -> (ref, when written)) and the re-showings not yet written.

    Bounded to the most recently used MAX_REMEMBERED_SESSIONS sessions; forgetting one only costs a transaction.
    """

    def __init__(self, max_refs: int, max_sessions: int = MAX_REMEMBERED_SESSIONS) -> None:
        self._max_refs = max_refs
        self._max_sessions = max_sessions
        self._sessions: OrderedDict[str, dict[str, tuple[int, float]]] = OrderedDict()
        self._shown: dict[tuple[str, int], float] = {}  # (session, ref) -> when last shown, not yet in the file

    def refs(self, session: str, urls: Sequence[str], *, since: float, now: float) -> list[int] | None:
        """The refs of `urls` when every one was written after `since` (noting them shown at `now`), else None."""
        written = self._sessions.get(session)
        if written is None:
            return None
        refs = []
        for url in urls:
            entry = written.get(url)
            if entry is None or entry[1] <= since:
                return None
            refs.append(entry[0])
        self._sessions.move_to_end(session)
        for ref in refs:
            self._shown[session, ref] = now
        return refs

    def shown_at(self, session: str, ref: int) -> float:
        """When `ref` was last shown without being written (0.0 when it was not)."""
        return self._shown.get((session, ref), 0.0)

    def forget_shown(self) -> None:
        self._shown.clear()

    def unwritten(self) -> list[tuple[float, str, int]]:
        """The re-showings to write, as (seen_at, session, ref) rows."""
        return [(seen_at, session, ref) for (session, ref), seen_at in self._shown.items()]

    def note(self, session: str, urls: Sequence[str], refs: Sequence[int], now: float, *, evicted: bool) -> None:
        """Record a write (which also wrote every re-showing); after an eviction the session's older refs may
        be gone from the file, so they are forgotten here too."""
        self.forget_shown()
        written = self._sessions.pop(session, {})
        if evicted or len(written) + len(urls) > self._max_refs:
            written = {}
        if len(urls) <= self._max_refs:  # a larger batch kept only some of its URLs
            written.update((url, (ref, now)) for url, ref in zip(urls, refs, strict=True))
        self._sessions[session] = written
        while len(self._sessions) > self._max_sessions:
            self._sessions.popitem(last=False)
