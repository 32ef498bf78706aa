"""The state file: where webreach keeps what outlives a process, and one lazily opened SQLite connection to it.

One file (state.sqlite3 in the user data directory: $XDG_DATA_HOME/webreach or ~/.local/share/webreach on Linux,
the platform's equivalent elsewhere, see config.user_directory) holds every kind of
persistent state, each in its own versioned table (breaker_state_v2, rate_buckets_v1, session refs), so each
store opens its own connection to it and WAL lets them and other processes read while one writes.

SqliteFile carries the robustness rules every embedded store shares (the search cache too, on its own file in
the cache directory): the file and its directory are private to the user, opening happens on first use, and
trouble is logged as one warning per store (later failures at debug level) so the caller can carry on in memory
instead of failing a search.

A file deleted or replaced while a connection is open is noticed by `moved()` (one stat): the connection is
closed, so the next use opens whatever the path names now, instead of writing on into an unlinked file.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path

from webreach.config import user_directory
from webreach.sqlite_wal import enable_wal

logger = logging.getLogger(__name__)


def default_state_path(environ: Mapping[str, str] | None = None) -> Path:
    """state.sqlite3 in the user data directory ($XDG_DATA_HOME/webreach, else ~/.local/share/webreach on Linux)."""
    return user_directory("data", environ) / "state.sqlite3"


class SqliteFile:
    """One connection to a SQLite file in WAL mode, opened on first use with `schema` applied.

    `what` names the store in log lines ("breaker state"); `fallback` says what happens instead when the file
    is unusable ("suspensions are kept in memory").
    """

    def __init__(
        self, path: Path, schema: Sequence[str], *, what: str, fallback: str, busy_timeout: float = 0.5
    ) -> None:
        self.path = Path(path).expanduser()
        self.schema = tuple(schema)
        self.what = what
        self.fallback = fallback
        self.busy_timeout = busy_timeout
        self._conn: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None  # (device, inode) of the file the connection opened
        self._unusable = False
        self._warned = False

    @property
    def usable(self) -> bool:
        """False once the file could not be opened; it is not tried again."""
        return not self._unusable

    def connection(self, *, create: bool) -> sqlite3.Connection | None:
        """The open connection, opening it now if needed; None when the file is unusable.

        With create=False a file that does not exist yet is left alone (None, no warning): reading state
        must not leave files behind in the user's home.
        """
        if self._conn is not None or self._unusable:
            return self._conn
        if not create and not self.path.exists():
            return None
        try:
            self._conn = self._open()
        except (sqlite3.Error, OSError) as exc:
            self._unusable = True
            self.report("open", exc)
        return self._conn

    def moved(self) -> bool:
        """Whether the path no longer names the file the open connection uses (it was deleted or replaced).

        Then the connection is closed, so the next use opens what the path names now (or nothing, until a write
        creates it). Without an open connection there is nothing to move: False.
        """
        if self._conn is None:
            return False
        try:
            found = os.stat(self.path)
        except OSError:
            moved = True
        else:
            moved = (found.st_dev, found.st_ino) != self._identity
        if moved:
            self.close()
        return moved

    def report(self, action: str, exc: Exception) -> None:
        """Log a failed `action` ("read from", "write to"): a warning the first time, debug after that."""
        if self._warned:
            logger.debug("%s: could not %s %s: %s", self.what, action, self.path, exc)
            return
        self._warned = True
        logger.warning("%s: could not %s %s (%s); %s", self.what, action, self.path, exc, self.fallback)

    def close(self) -> None:
        """Close the connection; the file is reopened if used again."""
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except sqlite3.Error as exc:  # e.g. closed from another thread than the one that opened it
                self.report("close", exc)

    def _open(self) -> sqlite3.Connection:
        # the stores hold search queries and session refs (what the user searched for): keep them to the user
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path.touch(mode=0o600, exist_ok=True)
        # a Gateway may be built on one thread and serve from another (a server's event loop); a SQLite library
        # built serialized (threadsafety 3, the usual build) lets one connection be used from any thread
        serialized = sqlite3.threadsafety == 3
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, check_same_thread=not serialized)
        try:
            enable_wal(conn, within=self.busy_timeout)  # another process may be creating the same file
            conn.execute("PRAGMA synchronous=NORMAL")
            for statement in self.schema:
                conn.execute(statement)
            conn.commit()
            found = os.stat(self.path)
        except (sqlite3.Error, OSError):
            conn.close()
            raise
        self._identity = (found.st_dev, found.st_ino)
        return conn


class SqliteStore:
    """Base of the stores kept in a SqliteFile: where the file is, whether it could be opened, and closing it."""

    def __init__(self, file: SqliteFile) -> None:
        self._file = file

    @property
    def path(self) -> Path:
        """The SQLite file."""
        return self._file.path

    @property
    def busy_timeout(self) -> float:
        """Seconds a statement waits for another process's write lock."""
        return self._file.busy_timeout

    @property
    def usable(self) -> bool:
        """False once the file could not be opened (the store then does without it)."""
        return self._file.usable

    def close(self) -> None:
        """Close the connection; the file is reopened if the store is used again."""
        self._file.close()
