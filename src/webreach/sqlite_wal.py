"""Turning on a SQLite file's write-ahead log where several processes may open the file at once.

`PRAGMA journal_mode=WAL` needs the file to itself, and SQLite answers SQLITE_BUSY at once, without waiting in its
busy handler, while another connection writes or switches the same file (the workers of `serve --workers N`
starting together on a new state file or ledger). enable_wal() tries again until `within` seconds have passed,
then lets the error go to the caller, which reports it as it reports any other failure to open.
"""

from __future__ import annotations

import sqlite3
import time


def enable_wal(conn: sqlite3.Connection, *, within: float) -> None:
    """Put `conn`'s database in WAL mode, retrying SQLITE_BUSY for up to `within` seconds."""
    deadline = time.monotonic() + within
    pause = 0.001
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)
