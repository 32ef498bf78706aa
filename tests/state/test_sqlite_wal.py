"""Opening a SQLite file another process is writing: switching it to WAL waits for the writer (SQLite itself answers
SQLITE_BUSY at once there, whatever the busy timeout), so workers starting together on a new state file or
ledger all open it, and a state store is not left unusable for the life of its process."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from webreach.accounts.database import SqliteDatabase
from webreach.sqlite_wal import enable_wal
from webreach.state.image_store import ImageStore, StoredImage

HELD = 0.3  # seconds the other writer keeps its lock


@contextlib.contextmanager
def another_writer(path: Path, *, release: bool = True) -> Iterator[None]:
    """A connection holding the file's write lock (a rollback-journal file, as a new one is), let go after HELD."""
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE IF NOT EXISTS other (x)")
    writer.execute("BEGIN IMMEDIATE")
    timer = threading.Timer(HELD, writer.execute, ("COMMIT",))
    if release:
        timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if release:
            timer.join()
        with contextlib.suppress(sqlite3.Error):
            writer.execute("COMMIT")
        writer.close()


def test_wal_waits_for_another_writer(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with another_writer(path):
        conn = sqlite3.connect(path, timeout=5.0)
        try:
            enable_wal(conn, within=5.0)
            assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        finally:
            conn.close()


def test_wal_gives_up_after_within(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with another_writer(path, release=False):
        conn = sqlite3.connect(path, timeout=0.0)
        try:
            with pytest.raises(sqlite3.OperationalError) as raised:
                enable_wal(conn, within=0.05)
        finally:
            conn.close()
    assert raised.value.sqlite_errorcode == sqlite3.SQLITE_BUSY


async def test_a_state_store_opened_while_another_process_writes_works(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    store = ImageStore(path)
    try:
        with another_writer(path):
            assert await store.put("s", StoredImage("", b"bytes", "image/png", 1, 1)) == "<obs_1>"
    finally:
        store.close()


def test_a_ledger_opened_while_another_worker_writes_opens(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    with another_writer(path):
        ledger = SqliteDatabase(path, busy_timeout=5.0)
    try:
        with ledger.transaction(write=False) as transaction:
            assert transaction.one("SELECT 1") == (1,)
    finally:
        ledger.close()
