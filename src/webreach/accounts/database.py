"""The ledger's databases: one SQL dialect layer over SQLite (embedded default) and PostgreSQL (several replicas).

Both run the same statements (written with `?` placeholders, rewritten to `%s` for psycopg) inside short
synchronous transactions that never wait on anything but the database: SQLite takes the write lock up front
(`BEGIN IMMEDIATE`, so two processes never both read a balance and then both write it), PostgreSQL locks the
agent's row (`SELECT ... FOR UPDATE`). A transaction never awaits, so a lock is held for a few round trips only and
a caller blocked on another process's lock waits microseconds, never on a coroutine of its own. The call policy
runs them on the database's worker thread (`worker`), so the event loop keeps serving meanwhile, several calls'
reserves and settles in one transaction (accounts/group_commit.py, each in a `Transaction.savepoint`); on SQLite a
checkpointer thread makes the WAL's fsyncs. On PostgreSQL a whole commit alone in its batch commits by itself (no
BEGIN and COMMIT: transaction.LazyBegin).

A database that cannot be used (PostgreSQL down or restarting, a SQLite file on a full disk or a read-only file
system, a lock held past the busy timeout) is AccountingUnavailableError, never a driver's exception: PostgreSQL
connections (accounts/postgres.py) come from a pool that checks each one before lending it (a connection a restart
broke is dropped and replaced) and reconnects in the background, and a transaction waits at most `timeout` seconds
for one.

The schema is created and migrated on open (`migrate`, the versions in accounts/schema.py).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path

from webreach.accounts.transaction import Cursor as Cursor
from webreach.accounts.transaction import Database as Database
from webreach.accounts.transaction import LazyBegin as LazyBegin
from webreach.accounts.transaction import Row as Row
from webreach.accounts.transaction import Transaction as Transaction
from webreach.accounts.transaction import migrate as migrate
from webreach.accounts.transaction import unavailable
from webreach.errors import InvalidInputError
from webreach.ledger_url import sqlite_path
from webreach.sqlite_wal import enable_wal


class SqliteDatabase:
    """The ledger in one SQLite file (WAL; exact across the processes of one machine)."""

    lock_row = ""  # BEGIN IMMEDIATE already holds the database's write lock

    def __init__(self, path: Path, *, busy_timeout: float = 30.0) -> None:
        """`path`: the file as ledger_url.sqlite_path reads a URL (open_database), used as given."""
        self._busy_timeout = busy_timeout
        self._lock = threading.Lock()
        try:
            _open_private(path)
            # check_same_thread off: the bench and tests may call from worker threads; the lock serialises them
            self._conn = sqlite3.connect(path, timeout=0.05, isolation_level=None, check_same_thread=False)
            enable_wal(self._conn, within=busy_timeout)  # another worker may be creating the same ledger
            # NORMAL in WAL survives a killed process (only power loss can lose the commits since the last
            # checkpoint)
            self._conn.execute("PRAGMA synchronous=NORMAL")
            # NORMAL's only fsyncs are at checkpoints, which SQLite runs inside a COMMIT once the WAL holds 1,000
            # pages (every ~60 calls), on the event loop: the checkpointer thread makes them instead, and the
            # COMMIT's own stays only as the bound on the WAL (a checkpoint cannot finish while calls keep writing)
            self._conn.execute(f"PRAGMA wal_autocheckpoint={WAL_BOUND_PAGES}")
        except (OSError, sqlite3.Error) as exc:
            raise unavailable(exc, str(path)) from None
        migrate(self, postgres=False)
        self._checkpointer = Checkpointer(path)
        self.worker: Executor | None = ThreadPoolExecutor(1, thread_name_prefix="webreach-ledger")

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True, patient: bool = True) -> Iterator[Transaction]:
        """A write transaction takes the write lock first; a read (write=False) sees one snapshot, locking nothing.
        (`patient` is PostgreSQL's: a SQLite file does not reconnect.)"""
        with self._lock:
            cursor = self._conn.cursor()
            try:
                if write:
                    self._begin_immediate(cursor)
                else:
                    cursor.execute("BEGIN")
                yield Transaction(cursor, postgres=False)
                cursor.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):  # SQLite may have rolled back already (a full disk)
                    cursor.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error) and _storage_failure(exc):
                    raise unavailable(exc, "the SQLite ledger") from None
                raise

    def _begin_immediate(self, cursor: sqlite3.Cursor) -> None:
        """Take the write lock, polling every ~half millisecond: SQLite's own busy handler sleeps up to 100 ms
        between tries, which under contention between processes costs far more than the locks are held."""
        deadline = time.monotonic() + self._busy_timeout
        pause = 0.0002
        while True:
            try:
                cursor.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(pause)
                pause = min(pause * 2, 0.002)

    def close(self) -> None:
        self._checkpointer.stop()
        if self.worker is not None:
            self.worker.shutdown()
        self._conn.close()


WAL_BOUND_PAGES = 16_000  # ~64 MB

# SQLite's primary result codes that say the storage cannot be used now, not that a statement is wrong (a bug):
# PERM, BUSY, LOCKED, READONLY, IOERR, CORRUPT, FULL, CANTOPEN, PROTOCOL, NOTADB
_STORAGE_CODES = frozenset({3, 5, 6, 8, 10, 11, 13, 14, 15, 26})


def _storage_failure(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in _STORAGE_CODES


def _open_private(path: Path) -> None:
    """Create the ledger file readable by its owner only, when webreach creates it; an existing path keeps its
    mode (it may be shared on purpose), and one that is not a regular file is refused."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # SQLite takes an empty file
    except FileExistsError:
        if not path.is_file():
            raise InvalidInputError(
                f"[accounts] database {str(path)!r} is not a regular file",
                hint="Name a SQLite file (created when missing) or a postgresql:// URL.",
            ) from None


class Checkpointer:
    """Copies a SQLite WAL into its database from a thread of its own (its own connection) every `interval`
    seconds: PASSIVE, so it never waits for or blocks a transaction, and its fsyncs happen off the event loop
    (sqlite3 releases the GIL while SQLite works). Once it has copied every page, the next write starts the WAL
    again from its beginning."""

    def __init__(self, path: Path, *, interval: float = 0.25) -> None:
        self._stopped = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(path, interval), name="webreach-ledger-checkpoint", daemon=True
        )
        self._thread.start()

    def _run(self, path: Path, interval: float) -> None:
        try:
            conn = sqlite3.connect(path, timeout=0.05, isolation_level=None)
        except sqlite3.Error:  # the file system went away: the transactions say so, typed
            return
        try:
            while not self._stopped.wait(interval):
                with contextlib.suppress(sqlite3.Error):  # busy (another process checkpoints now), or a full disk
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        finally:
            conn.close()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join()


def database_exists(url: str) -> bool:
    """Whether the database a URL names is there to read (a SQLite file not yet created is not; a PostgreSQL URL is
    taken as there: connecting is how to find out)."""
    path = sqlite_path(url)
    return path is None or path.exists()


def open_database(url: str, *, timeout: float = 5.0) -> Database:
    """The database a URL names: postgresql://... (or postgres://), sqlite:///path, or a plain file path.
    `timeout`: the longest a transaction waits for a PostgreSQL connection or SQLite's write lock."""
    path = sqlite_path(url)
    if path is None:
        from webreach.accounts.postgres import PostgresDatabase  # its driver is the postgres extra's

        return PostgresDatabase(url, timeout=timeout)
    return SqliteDatabase(path, busy_timeout=timeout)
