"""Session refs: the numbers compact search output shows instead of URLs, and what web_fetch(ref=N) resolves.

Semantics every backend keeps (tests/state/test_sessions.py holds them to it):
- Refs are unique and increasing within a session and never reused, even after their URL expired or was evicted:
  a model holding an old ref gets "unknown_ref", never a different page. Each session keeps its own counter;
  sessions never see each other's refs.
- The same URL shown again in a session keeps its ref (one number per page across calls, so the model can tell
  it has seen a result before) and its 24 h TTL starts again: a ref lives for `ttl` seconds after it was last
  shown in results. Resolving does not extend it (reads stay reads).
- At most `max_refs` live refs per session (1,000 by default); remembering more evicts the least recently shown.
  A single call with more URLs than that keeps only `max_refs` of them (searches return far fewer).
- A session's counter is forgotten after `forget_after` seconds without a search (30 days by default); only then
  could a new session of the same name count from 1 again.

What the store takes: session names of 1 to MAX_SESSION_CHARS characters with no control character (C0, DEL, C1)
and no lone surrogate (SESSION_PATTERN, which the OpenAPI document publishes for the session header), and URLs
that `storable` accepts. A lone surrogate (invalid UTF-8 from a command line, a broken API answer) cannot be
encoded for SQLite, and a NUL or control character has no business in a name or a URL, so both are refused with
InvalidInputError before any backend sees them. A ref to resolve must be a whole number from 1 to MAX_REF
(`check_ref`): anything else is InvalidInputError naming that range, before a backend sees it (SQLite cannot even
bind an integer past 2**63). The tools number only storable URLs: a result whose URL holds a
lone surrogate gets no ref and is shown with its URL, and the search goes on.

Backend trouble raises SessionStoreError (never a raw sqlite3 error) so the tools layer can fall back to showing
URLs. The protocol is async so the Redis backend (state/redis_sessions.py) fits behind it; the embedded backends
answer in the loop, as the cache store's do (sub-millisecond local work). The SQLite backend shares the state
file (state/sqlite_file.py) through its own versioned tables.
"""

from __future__ import annotations

import re
import sqlite3
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from webreach.clock import Clock, SystemClock
from webreach.errors import InvalidInputError, SessionStoreError, UnknownRefError
from webreach.schema_patterns import schema_pattern_matches
from webreach.state.session_rows import remember_rows
from webreach.state.sqlite_file import SqliteFile, SqliteStore, default_state_path

DEFAULT_TTL = 24 * 3600.0
DEFAULT_MAX_REFS = 1000
DEFAULT_FORGET_AFTER = 30 * 24 * 3600.0
MAX_SESSION_CHARS = 200
# refs are counted per session from 1; a larger number is no ref (and would not fit an SQLite integer)
MAX_REF = 2**31 - 1
# a JSON-Schema (ECMA-262) and Python pattern alike: no control character but tab (HTTP allows a tab inside a
# header value, and the command line counts it as spacing), no DEL or C1 character, no lone surrogate
# characters a session name may not hold: control characters (tab aside) and lone surrogates
SESSION_EXCLUDED = r"\u0000-\u0008\u000a-\u001f\u007f-\u009f\ud800-\udfff"
SESSION_PATTERN = rf"^[^{SESSION_EXCLUDED}]{{1,{MAX_SESSION_CHARS}}}$"
_UNSTORABLE = re.compile(r"[\u0000\ud800-\udfff]")

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS session_counters_v1 ("
    " session TEXT PRIMARY KEY, next_ref INTEGER NOT NULL, touched_at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS session_refs_v1 ("
    " session TEXT NOT NULL, ref INTEGER NOT NULL, url TEXT NOT NULL, seen_at REAL NOT NULL,"
    " PRIMARY KEY (session, ref))",
    "CREATE INDEX IF NOT EXISTS session_refs_v1_url ON session_refs_v1 (session, url)",
    "CREATE INDEX IF NOT EXISTS session_refs_v1_seen ON session_refs_v1 (seen_at)",
)


class SessionStore(Protocol):
    """Where each session's ref -> URL table lives."""

    async def remember(self, session: str, urls: Sequence[str]) -> list[int]:
        """One ref per URL, in order (an URL already live in the session keeps its ref)."""
        ...

    async def resolve(self, session: str, ref: int) -> str:
        """The URL of a live ref; UnknownRefError when the session never gave it or it expired, InvalidInputError
        when `ref` is outside 1 to MAX_REF (check_ref)."""
        ...

    def close(self) -> None:
        """Release files or connections."""
        ...


def check_session(session: str) -> str:
    """A usable session name (1 to MAX_SESSION_CHARS characters matching SESSION_PATTERN), else InvalidInputError."""
    if not session or len(session) > MAX_SESSION_CHARS:
        raise InvalidInputError(
            f"session name must be 1 to {MAX_SESSION_CHARS} characters", hint="Use a short name such as 'research'."
        )
    if not schema_pattern_matches(SESSION_PATTERN, session):
        raise InvalidInputError(
            "session name holds a control character or invalid UTF-8",
            hint="Use a short printable name such as 'research'.",
        )
    return session


def check_ref(ref: int) -> int:
    """A ref in the range refs are given in (1 to MAX_REF), else InvalidInputError saying that range."""
    if isinstance(ref, bool) or not isinstance(ref, int) or not 1 <= ref <= MAX_REF:
        shown = repr(ref) if not isinstance(ref, int) or len(str(ref)) <= 30 else f"{str(ref)[:20]}..."
        raise InvalidInputError(
            f"ref must be a whole number from 1 to {MAX_REF}, not {shown}",
            hint="Use a ref shown next to a search result of this session (e.g. 3), or pass the url instead.",
        )
    return ref


def storable(url: str) -> bool:
    """Whether the store can keep `url`: no NUL and no lone surrogate (which no backend can encode)."""
    return _UNSTORABLE.search(url) is None


def _check_urls(urls: Sequence[str]) -> None:
    if not all(map(storable, urls)):
        raise InvalidInputError("a URL with a NUL or a lone surrogate cannot be given a ref")


def unknown_ref(ref: int, next_ref: int, ttl: float) -> UnknownRefError:
    """The error for a ref that resolves to nothing, saying whether it expired or was never given."""
    if ref < next_ref:
        message = f"ref {ref} has expired or was evicted (refs last {ttl / 3600:g} h after they were last shown)"
    elif next_ref > 1:
        message = f"ref {ref} was never given in this session (refs so far: 1-{next_ref - 1})"
    else:
        message = f"ref {ref} was never given: this session has no search results yet"
    return UnknownRefError(message, hint="Search again to get fresh refs, or pass the url instead.")


@dataclass
class _MemorySession:
    next_ref: int = 1
    touched_at: float = 0.0
    # ref -> (url, seen_at), least recently shown first
    refs: OrderedDict[int, tuple[str, float]] = field(default_factory=OrderedDict)
    by_url: dict[str, int] = field(default_factory=dict)

    def drop_until(self, cutoff: float) -> None:
        while self.refs:
            ref, (url, seen_at) = next(iter(self.refs.items()))
            if seen_at > cutoff:
                return
            self.drop(ref, url)

    def drop(self, ref: int, url: str) -> None:
        del self.refs[ref]
        if self.by_url.get(url) == ref:
            del self.by_url[url]


class MemorySessionStore:
    """Refs for this process only (tests, and the `memory` state backend)."""

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        ttl: float = DEFAULT_TTL,
        max_refs: int = DEFAULT_MAX_REFS,
        forget_after: float = DEFAULT_FORGET_AFTER,
    ) -> None:
        _check_bounds(ttl, max_refs, forget_after)
        self._clock = clock or SystemClock()
        self.ttl = ttl
        self.max_refs = max_refs
        self.forget_after = max(forget_after, ttl)
        self._sessions: dict[str, _MemorySession] = {}
        self._next_sweep = 0.0

    async def remember(self, session: str, urls: Sequence[str]) -> list[int]:
        _check_urls(urls)
        now = self._clock.now()
        self._sweep(now)
        state = self._sessions.setdefault(check_session(session), _MemorySession())
        state.touched_at = now
        state.drop_until(now - self.ttl)
        refs = []
        for url in urls:
            ref = state.by_url.get(url)
            if ref is None:
                ref, state.next_ref = state.next_ref, state.next_ref + 1
                state.by_url[url] = ref
            state.refs[ref] = (url, now)
            state.refs.move_to_end(ref)
            refs.append(ref)
        while len(state.refs) > self.max_refs:
            ref, (url, _) = next(iter(state.refs.items()))
            state.drop(ref, url)
        return refs

    async def resolve(self, session: str, ref: int) -> str:
        check_ref(ref)
        state = self._sessions.get(check_session(session))
        if state is None:
            raise unknown_ref(ref, 1, self.ttl)
        entry = state.refs.get(ref)
        if entry is None or entry[1] <= self._clock.now() - self.ttl:
            raise unknown_ref(ref, state.next_ref, self.ttl)
        return entry[0]

    def close(self) -> None:
        return None

    def _sweep(self, now: float) -> None:
        """Drop expired refs of every session, and idle sessions' counters, at most once per TTL/24."""
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.ttl / 24
        for name, state in list(self._sessions.items()):
            if state.touched_at <= now - self.forget_after:
                del self._sessions[name]
            else:
                state.drop_until(now - self.ttl)


class SqliteSessionStore(SqliteStore):
    """Refs in the SQLite state file, shared by every process on the machine (so a CLI `--session` works).

    Each remember() that writes is one transaction; the counter is advanced with a single UPSERT so two
    processes never hand out the same ref. Two processes showing the same new URL at the same moment may give it
    two refs, both resolving to it, which is harmless.
    """

    def __init__(
        self,
        path: Path,
        *,
        clock: Clock | None = None,
        ttl: float = DEFAULT_TTL,
        max_refs: int = DEFAULT_MAX_REFS,
        forget_after: float = DEFAULT_FORGET_AFTER,
        busy_timeout: float = 2.0,
    ) -> None:
        _check_bounds(ttl, max_refs, forget_after)
        self._clock = clock or SystemClock()
        self.ttl = ttl
        self.max_refs = max_refs
        self.forget_after = max(forget_after, ttl)
        super().__init__(
            SqliteFile(
                path,
                _SCHEMA,
                what="session refs",
                fallback="search output shows URLs instead of refs",
                busy_timeout=busy_timeout,
            )
        )

    async def remember(self, session: str, urls: Sequence[str]) -> list[int]:
        check_session(session)
        _check_urls(urls)
        return self._write(session, urls, self._clock.now())

    def _write(self, session: str, urls: Sequence[str], now: float) -> list[int]:
        """One transaction: expire, look up, allocate, restart TTLs, evict (state/session_rows.py)."""
        conn = self._writable()
        try:
            return remember_rows(
                conn, session, urls, now, ttl=self.ttl, max_refs=self.max_refs, forget_after=self.forget_after
            )
        except sqlite3.Error as exc:
            raise self._failure("write to", exc) from None

    async def resolve(self, session: str, ref: int) -> str:
        check_ref(ref)
        check_session(session)
        conn = self._file.connection(create=False)
        if conn is None and not self._file.usable:
            raise SessionStoreError(f"the session store {self._file.path} cannot be opened")
        if conn is None:  # no file yet: nothing was ever remembered
            raise unknown_ref(ref, 1, self.ttl)
        try:
            row = conn.execute(
                "SELECT url, seen_at FROM session_refs_v1 WHERE session = ? AND ref = ?", (session, ref)
            ).fetchone()
            if row is not None and row[1] > self._clock.now() - self.ttl:
                return str(row[0])
            counter = conn.execute("SELECT next_ref FROM session_counters_v1 WHERE session = ?", (session,)).fetchone()
        except sqlite3.Error as exc:
            raise self._failure("read from", exc) from None
        raise unknown_ref(ref, int(counter[0]) if counter else 1, self.ttl)

    def _writable(self) -> sqlite3.Connection:
        conn = self._file.connection(create=True)
        if conn is None:
            raise SessionStoreError(f"the session store {self._file.path} cannot be opened")
        return conn

    def _failure(self, action: str, exc: sqlite3.Error) -> SessionStoreError:
        self._file.report(action, exc)
        return SessionStoreError(f"the session store could not {action} {self._file.path}: {exc}")


def _check_bounds(ttl: float, max_refs: int, forget_after: float) -> None:
    if ttl <= 0 or forget_after <= 0:
        raise ValueError("ttl and forget_after must be positive")
    if max_refs < 1:
        raise ValueError("max_refs must be at least 1")


def open_session_store(
    backend: Literal["memory", "sqlite"],
    path: Path | None = None,
    *,
    clock: Clock | None = None,
    ttl: float = DEFAULT_TTL,
    max_refs: int = DEFAULT_MAX_REFS,
) -> SessionStore:
    """The store `backend` names; SQLite uses `path`, else the state file (created on the first search)."""
    if backend == "memory":
        return MemorySessionStore(clock=clock, ttl=ttl, max_refs=max_refs)
    return SqliteSessionStore(path or default_state_path(), clock=clock, ttl=ttl, max_refs=max_refs)
