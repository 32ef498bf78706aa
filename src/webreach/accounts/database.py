"""The ledger's databases: one SQL dialect layer over SQLite (embedded default) and PostgreSQL (several replicas).

Both run the same statements (written with `?` placeholders, rewritten to `%s` for psycopg) inside short
synchronous transactions that never wait on anything but the database: SQLite takes the write lock up front
(`BEGIN IMMEDIATE`, so two processes never both read a balance and then both write it), PostgreSQL locks the
agent's row (`SELECT ... FOR UPDATE`). A transaction never awaits, so a lock is held for a few round trips only and
a caller blocked on another process's lock waits microseconds, never on a coroutine of its own. The call policy
runs them on the database's worker thread (`worker`), so the event loop keeps serving meanwhile; on SQLite a
checkpointer thread makes the WAL's fsyncs. (psycopg's pipeline mode was measured and not
kept: 0.90 ms a reserve-and-settle against 0.75 ms without, since most statements' results are read.)

The schema is created and migrated on open: `accounts_schema` holds the version, and each step in MIGRATIONS runs
once, in order, under a lock (SQLite's write lock, a PostgreSQL advisory lock), so replicas starting together
migrate once.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

Row = tuple[Any, ...]

# one list per schema version; a new version appends a list (never edits an old one)
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS accounts_agents_v1 (
            name TEXT PRIMARY KEY,
            key_hash TEXT NOT NULL UNIQUE,
            disabled INTEGER NOT NULL DEFAULT 0,
            balance BIGINT NOT NULL CHECK (balance >= 0),
            per_hour INTEGER,
            per_day INTEGER,
            options TEXT NOT NULL DEFAULT '{}',
            created DOUBLE PRECISION NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS accounts_journal_v1 (
            id {serial},
            agent TEXT NOT NULL,
            call_id TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('grant', 'reserve', 'commit', 'release')),
            amount BIGINT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            tool TEXT NOT NULL DEFAULT '',
            note TEXT NOT NULL DEFAULT '')""",
        "CREATE UNIQUE INDEX IF NOT EXISTS accounts_journal_once ON accounts_journal_v1 (agent, call_id, kind)",
        # a reservation is settled once: committed or released, never both
        """CREATE UNIQUE INDEX IF NOT EXISTS accounts_journal_settled ON accounts_journal_v1 (agent, call_id)
            WHERE kind IN ('commit', 'release')""",
        "CREATE INDEX IF NOT EXISTS accounts_journal_window ON accounts_journal_v1 (agent, kind, at)",
        # reservations not yet settled, with the time after which recovery releases them
        """CREATE TABLE IF NOT EXISTS accounts_open_v1 (
            agent TEXT NOT NULL,
            call_id TEXT NOT NULL,
            amount BIGINT NOT NULL,
            expires DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (agent, call_id))""",
        # the calls a quota counts (reserved, not released), pruned past a day: counting them is one index range
        """CREATE TABLE IF NOT EXISTS accounts_calls_v1 (
            agent TEXT NOT NULL,
            call_id TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (agent, call_id))""",
        "CREATE INDEX IF NOT EXISTS accounts_calls_window ON accounts_calls_v1 (agent, at)",
        """CREATE TABLE IF NOT EXISTS accounts_idempotency_v1 (
            agent TEXT NOT NULL,
            key TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            state TEXT NOT NULL,
            result TEXT,
            expires DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (agent, key))""",
    ),
    # quota counters kept under the agent's lock, so a reservation reads its use instead of counting the window:
    # `*_used` counts the calls in (`*_from`, now]; NULL `*_from` (an agent from version 1): count once
    (
        "ALTER TABLE accounts_agents_v1 ADD COLUMN hour_used BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE accounts_agents_v1 ADD COLUMN hour_from DOUBLE PRECISION",
        "ALTER TABLE accounts_agents_v1 ADD COLUMN day_used BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE accounts_agents_v1 ADD COLUMN day_from DOUBLE PRECISION",
    ),
)


class Cursor(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def fetchone(self) -> Any: ...
    @property
    def rowcount(self) -> int: ...


class Database(Protocol):
    """A connection the ledger runs its transactions on."""

    lock_row: str  # appended to the SELECT that reads an agent inside a transaction
    # the thread the call policy runs its transactions on (they take turns on one connection anyway), so the event
    # loop serves other calls while one waits on a round trip, a write or a lock; None: on the caller's thread.
    # Measured (bench/accounting.py): REST with SQLite went from 0.60x of accounting off to 0.96x, PostgreSQL from
    # 0.57x to 0.80x; the hop costs ~0.2 ms of the SQLite per-call p50
    worker: Executor | None

    def transaction(self, *, write: bool = True) -> contextlib.AbstractContextManager[Transaction]: ...
    def close(self) -> None: ...


class Transaction:
    """Statements inside one transaction: `rows` and `one` read, `run` writes and returns the rows changed."""

    def __init__(self, cursor: Cursor, postgres: bool) -> None:
        self.cursor = cursor
        self.postgres = postgres

    def _execute(self, sql: str, params: Sequence[Any]) -> Any:
        return self.cursor.execute(sql.replace("?", "%s") if self.postgres else sql, params)

    def rows(self, sql: str, *params: Any) -> list[Row]:
        self._execute(sql, params)
        return [tuple(row) for row in self.cursor.fetchall()]

    def one(self, sql: str, *params: Any) -> Row | None:
        self._execute(sql, params)
        row = self.cursor.fetchone()
        return None if row is None else tuple(row)

    def run(self, sql: str, *params: Any) -> None:
        """A statement whose result is not read."""
        self._execute(sql, params)

    def changed(self, sql: str, *params: Any) -> int:
        """A write statement; the number of rows it changed."""
        self._execute(sql, params)
        return int(self.cursor.rowcount)


class SqliteDatabase:
    """The ledger in one SQLite file (WAL; exact across the processes of one machine)."""

    lock_row = ""  # BEGIN IMMEDIATE already holds the database's write lock

    def __init__(self, path: Path, *, busy_timeout: float = 30.0) -> None:
        path = Path(path).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # check_same_thread off: the bench and tests may call from worker threads; the lock serialises them
        self._conn = sqlite3.connect(path, timeout=0.05, isolation_level=None, check_same_thread=False)
        self._busy_timeout = busy_timeout
        self._conn.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL survives a killed process (only power loss can lose the commits since the last checkpoint)
        self._conn.execute("PRAGMA synchronous=NORMAL")
        # NORMAL's only fsyncs are at checkpoints, which SQLite runs inside a COMMIT once the WAL holds 1,000 pages
        # (every ~60 calls), on the event loop: the checkpointer thread makes them instead, and the COMMIT's own
        # stays only as the bound on the WAL (a checkpoint cannot finish while calls keep writing)
        self._conn.execute(f"PRAGMA wal_autocheckpoint={WAL_BOUND_PAGES}")
        self._lock = threading.Lock()
        path.chmod(0o600)
        migrate(self, postgres=False)
        self._checkpointer = Checkpointer(path)
        self.worker: Executor | None = ThreadPoolExecutor(1, thread_name_prefix="webreach-ledger")

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[Transaction]:
        """A write transaction takes the write lock first; a read (write=False) sees one snapshot, locking nothing."""
        with self._lock:
            cursor = self._conn.cursor()
            if write:
                self._begin_immediate(cursor)
            else:
                cursor.execute("BEGIN")
            try:
                yield Transaction(cursor, postgres=False)
            except BaseException:
                cursor.execute("ROLLBACK")
                raise
            cursor.execute("COMMIT")

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
        conn = sqlite3.connect(path, timeout=0.05, isolation_level=None)
        try:
            while not self._stopped.wait(interval):
                with contextlib.suppress(sqlite3.OperationalError):  # busy: another process checkpoints now
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        finally:
            conn.close()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join()


class PostgresDatabase:
    """The ledger in PostgreSQL (psycopg 3), shared by every replica."""

    lock_row = " FOR UPDATE"

    def __init__(self, url: str) -> None:
        import psycopg  # the postgres extra; imported only when a postgresql:// URL is configured

        self._conn = psycopg.connect(url, autocommit=True)
        self._lock = threading.Lock()
        migrate(self, postgres=True)
        self.worker: Executor | None = ThreadPoolExecutor(1, thread_name_prefix="webreach-ledger")

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[Transaction]:
        """A write runs in BEGIN ... COMMIT; a read (write=False) is its statements in autocommit (one round trip
        each, no BEGIN/COMMIT: the ledger's reads are single statements or need no snapshot across them)."""
        with self._lock, self._conn.cursor() as cursor:
            if not write:
                yield Transaction(cursor, postgres=True)
                return
            with self._conn.transaction():
                yield Transaction(cursor, postgres=True)

    def close(self) -> None:
        if self.worker is not None:
            self.worker.shutdown()
        self._conn.close()


_MIGRATION_LOCK = 0x77656272  # "webr": the advisory lock replicas take while migrating


def migrate(database: Database, *, postgres: bool) -> None:
    """Create the schema or bring it up to the newest version (each step once, under a lock)."""
    serial = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY" if postgres else "INTEGER PRIMARY KEY"
    with database.transaction() as tx:
        if postgres:
            tx.one("SELECT pg_advisory_xact_lock(?)", _MIGRATION_LOCK)
        tx.run("CREATE TABLE IF NOT EXISTS accounts_schema (version INTEGER NOT NULL)")
        row = tx.one("SELECT max(version) FROM accounts_schema")
        current = int(row[0]) if row is not None and row[0] is not None else 0
        for version, steps in enumerate(MIGRATIONS[current:], start=current + 1):
            for step in steps:
                tx.run(step.replace("{serial}", serial))
            tx.run("INSERT INTO accounts_schema (version) VALUES (?)", version)


def database_exists(url: str) -> bool:
    """Whether the database a URL names is there to read (a SQLite file not yet created is not; a PostgreSQL URL is
    taken as there: connecting is how to find out)."""
    if url.startswith(("postgresql://", "postgres://")):
        return True
    return Path(url.removeprefix("sqlite://")).expanduser().exists()


def open_database(url: str) -> Database:
    """The database a URL names: postgresql://... (or postgres://), sqlite:///path, or a plain file path."""
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresDatabase(url)
    return SqliteDatabase(Path(url.removeprefix("sqlite://")))
