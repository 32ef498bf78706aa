"""Running servers that follow the shared breaker state, and the breaker generation each has taken in.

A long-running door (`webreach serve`, `webreach mcp`) registers its process here while it serves and writes the
breaker generation (state/breaker_store.py) it last applied whenever that changes, so a short-lived process
that changed a breaker (`webreach engines --reset X`) can tell whether a running server has picked the change
up: it compares its own generation with each follower's. Rows of processes that died without unregistering are
ignored (the process id is no longer alive) and pruned by the next registration.

The table is breaker_followers_v1 in the state file; one row per server process, written only when it starts,
stops or takes in a new generation (never per search). Like every state store it never fails its caller:
trouble with the file means no follower is seen.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from webreach.config import StateSettings
from webreach.state.sqlite_file import SqliteFile, SqliteStore, default_state_path

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS breaker_followers_v1 (pid INTEGER PRIMARY KEY, door TEXT NOT NULL,"
    " generation INTEGER NOT NULL, since REAL NOT NULL)",
)


@dataclass(frozen=True)
class Follower:
    """One running server: its process id, its door ("serve", "mcp") and the breaker generation it applied."""

    pid: int
    door: str
    generation: int


@dataclass(frozen=True)
class Pickup:
    """Whether one running server (process `pid`, door `door`) has taken in a breaker change."""

    pid: int
    door: str
    picked_up: bool


class BreakerFollowers(SqliteStore):
    """The followers table of the state file."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            SqliteFile(path, _SCHEMA, what="server registry", fallback="other processes cannot see this server")
        )

    def register(self, pid: int, door: str, generation: int, now: float) -> None:
        """Note process `pid` as a running server that has applied `generation`; forget dead processes' rows."""
        dead = [(follower.pid,) for follower in self._rows() if not _alive(follower.pid)]
        self._write("INSERT OR REPLACE INTO breaker_followers_v1 VALUES (?, ?, ?, ?)", [(pid, door, generation, now)])
        self._write("DELETE FROM breaker_followers_v1 WHERE pid = ?", dead)

    def acknowledge(self, pid: int, door: str, generation: int, now: float) -> None:
        """Process `pid` has applied `generation`. Never creates the file: a deleted state file stays deleted
        until something is recorded in it, and the server's row returns with its next acknowledgement."""
        sql = "INSERT OR REPLACE INTO breaker_followers_v1 VALUES (?, ?, ?, ?)"
        self._write(sql, [(pid, door, generation, now)], create=False)

    def unregister(self, pid: int) -> None:
        """Process `pid` stops serving."""
        self._write("DELETE FROM breaker_followers_v1 WHERE pid = ?", [(pid,)], create=False)

    def running(self, *, besides: int) -> list[Follower]:
        """The registered servers whose process is alive, other than process `besides` (the caller)."""
        return [f for f in self._rows() if f.pid != besides and _alive(f.pid)]

    def _rows(self) -> list[Follower]:
        conn = self._file.connection(create=False)
        if conn is None:
            return []
        try:
            rows = conn.execute("SELECT pid, door, generation FROM breaker_followers_v1 ORDER BY pid").fetchall()
        except sqlite3.Error as exc:
            self._file.report("read from", exc)
            return []
        return [Follower(int(pid), str(door), int(generation)) for pid, door, generation in rows]

    def _write(self, sql: str, rows: Sequence[tuple[object, ...]], *, create: bool = True) -> None:
        if not rows:
            return
        self._file.moved()  # a deleted file is recreated (register) or left alone (the rest), never written blind
        conn = self._file.connection(create=create)
        if conn is None:
            return
        try:
            with conn:
                conn.executemany(sql, rows)
        except sqlite3.Error as exc:
            self._file.report("write to", exc)


def _alive(pid: int) -> bool:
    """Whether a process with this id exists (signal 0 checks without signalling; EPERM: it exists, not ours)."""
    if os.name == "nt":  # os.kill(pid, 0) would end the process on Windows; trust the row there
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def open_breaker_followers(settings: StateSettings) -> BreakerFollowers | None:
    """The registry in the state file; None for the memory backend (no other process can share that state)."""
    if settings.backend == "memory":
        return None
    return BreakerFollowers(settings.path or default_state_path())
