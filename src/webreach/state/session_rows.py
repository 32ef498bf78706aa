"""The SQL of remembering refs in the SQLite state file: one transaction that expires, looks up, allocates,
restarts TTLs and evicts (state/sessions.py holds the semantics). Standard library only, so the CLI's answer memo
(webreach/answer_memo.py) remembers a replayed answer's refs through the same statements as the store, without
loading the store's module (pydantic, the settings)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence


def remember_rows(
    conn: sqlite3.Connection,
    session: str,
    urls: Sequence[str],
    now: float,
    *,
    ttl: float,
    max_refs: int,
    forget_after: float,
) -> list[int]:
    """The refs of `urls` in `session` (known ones kept, new ones allocated), each shown at `now`; one transaction."""
    with conn:
        conn.execute("DELETE FROM session_refs_v1 WHERE seen_at <= ?", (now - ttl,))
        conn.execute("DELETE FROM session_counters_v1 WHERE touched_at <= ?", (now - forget_after,))
        known = _known_refs(conn, session, set(urls))
        fresh = list(dict.fromkeys(url for url in urls if url not in known))
        first = _allocate(conn, session, len(fresh), now)
        known.update({url: first + i for i, url in enumerate(fresh)})
        refs = [known[url] for url in urls]
        # re-showing a known URL restarts its TTL; ordering by ref keeps eviction oldest-first on ties
        conn.executemany(
            "INSERT INTO session_refs_v1 VALUES (?, ?, ?, ?)"
            " ON CONFLICT (session, ref) DO UPDATE SET seen_at = excluded.seen_at",
            [(session, ref, url, now) for url, ref in dict(zip(urls, refs, strict=True)).items()],
        )
        conn.execute(
            "DELETE FROM session_refs_v1 WHERE session = ? AND ref IN (SELECT ref FROM session_refs_v1"
            " WHERE session = ? ORDER BY seen_at DESC, ref DESC LIMIT -1 OFFSET ?)",
            (session, session, max_refs),
        )
    return refs


def _known_refs(conn: sqlite3.Connection, session: str, urls: Iterable[str]) -> dict[str, int]:
    """Live refs of `urls` in the session (expired rows are already gone), the lowest ref when there are two."""
    known: dict[str, int] = {}
    batch = list(urls)
    for start in range(0, len(batch), 500):  # stay far below SQLite's bound-parameter limit
        chunk = batch[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        for url, ref in conn.execute(
            f"SELECT url, MIN(ref) FROM session_refs_v1 WHERE session = ? AND url IN ({marks}) GROUP BY url",
            (session, *chunk),
        ):
            known[url] = int(ref)
    return known


def _allocate(conn: sqlite3.Connection, session: str, count: int, now: float) -> int:
    """Reserve `count` new refs for the session and return the first (also touches the session)."""
    row = conn.execute(
        "INSERT INTO session_counters_v1 VALUES (?, ?, ?) ON CONFLICT (session) DO UPDATE"
        " SET next_ref = next_ref + ?, touched_at = excluded.touched_at RETURNING next_ref",
        (session, 1 + count, now, count),
    ).fetchone()
    return int(row[0]) - count
