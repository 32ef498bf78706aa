"""The ledger's databases: one SQL dialect layer over SQLite (embedded default) and PostgreSQL (several replicas).

Both run the same statements (written with `?` placeholders, rewritten to `%s` for psycopg) inside short
synchronous transactions that never wait on anything but the database: SQLite takes the write lock up front
(`BEGIN IMMEDIATE`, so two processes never both read a balance and then both write it), PostgreSQL locks the
agent's row (`SELECT ... FOR UPDATE`). A transaction never awaits, so a lock is held for a few round trips only and
a caller blocked on another process's lock waits microseconds, never on a coroutine of its own. The call policy
runs them on the database's worker thread (`worker`), so the event loop keeps serving meanwhile, several calls'
reserves and settles in one transaction (accounts/group_commit.py, each in a `Transaction.savepoint`); on SQLite a
checkpointer thread makes the WAL's fsyncs. On PostgreSQL a write transaction's BEGIN goes with its first
statement, a reservation's lock with its read, and a whole commit alone in its batch commits by itself
(_BeginWithFirst: psycopg's pipeline mode for those pairs only; every statement in it measured slower, since
most statements' results are read before the next is sent).

A database that cannot be used (PostgreSQL down or restarting, a SQLite file on a full disk or a read-only file
system, a lock held past the busy timeout) is AccountingUnavailableError, never a driver's exception: PostgreSQL
connections come from a pool that checks each one before lending it (a connection a restart broke is dropped and
replaced) and reconnects in the background, and a transaction waits at most `timeout` seconds for one.

The schema is created and migrated on open (`migrate`, the versions in accounts/schema.py).
"""

from __future__ import annotations

import contextlib
import os
import select
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from webreach.accounts.schema import MIGRATIONS
from webreach.errors import AccountingUnavailableError, InvalidInputError
from webreach.sqlite_wal import enable_wal

Row = tuple[Any, ...]


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

    # patient=False: an idempotency key's, which fails fast while a PostgreSQL pool reconnects
    def transaction(
        self, *, write: bool = True, patient: bool = True
    ) -> contextlib.AbstractContextManager[Transaction]: ...
    def close(self) -> None: ...


class Transaction:
    """Statements inside one transaction: `rows` and `one` read, `run` writes and returns the rows changed."""

    def __init__(self, cursor: Cursor, postgres: bool) -> None:
        self.cursor = cursor
        self.postgres = postgres
        # the transaction is its caller's alone (a group commit's batch of one): a statement that may stand alone
        # (`one_alone`) may then commit by itself when it comes first
        self.sole = False

    def _execute(self, sql: str, params: Sequence[Any]) -> Any:
        return self.cursor.execute(_dialect(sql) if self.postgres else sql, params)

    def one_after(self, first: str, first_params: Sequence[Any], sql: str, *params: Any) -> Row | None:
        """`first` (its result not read), then `one(sql)`: on PostgreSQL sent together (one round trip)."""
        together = self.cursor.together() if isinstance(self.cursor, _BeginWithFirst) else contextlib.nullcontext()
        with together:
            self._execute(first, first_params)
            return self.one(sql, *params)

    def one_alone(self, sql: str, *params: Any) -> Row | None:
        """`one(sql)` for a statement whose effect is whole by itself: on PostgreSQL, when the transaction is its
        caller's alone (`sole`) and nothing was sent yet, it commits by itself (no BEGIN, no COMMIT: one round
        trip), and a later statement begins the transaction afresh."""
        if self.sole and isinstance(self.cursor, _BeginWithFirst):
            with self.cursor.alone():
                return self.one(sql, *params)
        return self.one(sql, *params)

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

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        """Statements undone alone when they raise, the transaction going on (one call of a group commit)."""
        self._execute("SAVEPOINT webreach_call", ())
        try:
            yield
        except BaseException:
            self._execute("ROLLBACK TO SAVEPOINT webreach_call", ())
            self._execute("RELEASE SAVEPOINT webreach_call", ())
            raise
        self._execute("RELEASE SAVEPOINT webreach_call", ())


def _dialect(sql: str) -> str:
    """A statement's `?` placeholders as psycopg's `%s`."""
    return sql.replace("?", "%s")


class SqliteDatabase:
    """The ledger in one SQLite file (WAL; exact across the processes of one machine)."""

    lock_row = ""  # BEGIN IMMEDIATE already holds the database's write lock

    def __init__(self, path: Path, *, busy_timeout: float = 30.0) -> None:
        path = Path(path).expanduser()
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
            raise _unavailable(exc, str(path)) from None
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
                    raise _unavailable(exc, "the SQLite ledger") from None
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


def _unavailable(exc: BaseException, where: str) -> AccountingUnavailableError:
    """The typed error for a ledger database that cannot be used; the driver's first line says why (never a
    password: psycopg's messages name the host and port only)."""
    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return AccountingUnavailableError(f"the credits ledger cannot be used now ({where}: {reason})")


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


class PostgresDatabase:
    """The ledger in PostgreSQL (psycopg 3), shared by every replica, over a pool of connections that each pass a
    check before they are lent (`_still_connected`): one that a server restart broke is dropped and replaced,
    instead of failing the call it was lent to. A transaction waits at most `timeout` seconds for a connection
    while the pool reconnects (its own bounded retries); past that it is AccountingUnavailableError."""

    lock_row = " FOR UPDATE"

    def __init__(self, url: str, *, timeout: float = 5.0) -> None:
        # the postgres extra; imported only when a postgresql:// URL is configured
        import psycopg
        from psycopg_pool import ConnectionPool, PoolTimeout

        self._timeout = timeout
        try:  # one connection first, for the reason when there is none (the pool would only say it timed out)
            psycopg.connect(url, connect_timeout=max(2, round(timeout))).close()
        except psycopg.OperationalError as exc:
            raise _unavailable(exc, "PostgreSQL") from None
        self._pool = ConnectionPool(
            url,
            kwargs={"autocommit": True, "connect_timeout": max(2, round(timeout))},
            min_size=1,
            max_size=4,
            open=False,
            check=_still_connected,
            timeout=timeout,
            # the pool's own retries back off (1 s, 2 s, 4 s, ...) until they give up: giving up after `timeout`
            # makes the next transaction start a fresh attempt at once, so a server back after a long outage is
            # used within about a second, not after the backoff grown meanwhile
            reconnect_timeout=timeout,
            name="webreach-ledger",
        )
        try:
            self._pool.open(wait=True, timeout=timeout)
            migrate(self, postgres=True)
        except PoolTimeout as exc:  # no connection within the timeout: down, unreachable or refusing us
            self._pool.close(timeout=0)
            raise _unavailable(exc, "PostgreSQL") from None
        except BaseException:
            self._pool.close(timeout=0)
            raise
        self.worker: Executor | None = ThreadPoolExecutor(1, thread_name_prefix="webreach-ledger")
        self._reconnecting = False  # the last transaction found no connection, or its connection broke

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True, patient: bool = True) -> Iterator[Transaction]:
        """A write runs in BEGIN ... COMMIT, its BEGIN sent with its first statement (_BeginWithFirst); a read
        (write=False) is its statements in autocommit (one round trip each, no BEGIN/COMMIT: the ledger's reads are
        single statements or need no snapshot across them). An impatient one (patient=False: idempotency keys)
        waits at most IMPATIENT_SECONDS for a connection while the pool reconnects (the last transaction found
        none, or its connection broke), so it fails fast instead of queueing on the worker for `timeout`."""
        import psycopg
        from psycopg_pool import PoolTimeout

        wait = self._timeout if patient or not self._reconnecting else min(self._timeout, IMPATIENT_SECONDS)
        try:
            with self._pool.connection(timeout=wait) as conn, conn.cursor() as cursor:
                if not write:
                    yield Transaction(cursor, postgres=True)
                else:
                    yield from _written(conn, cursor)
        except (PoolTimeout, psycopg.OperationalError) as exc:  # no connection in time, or it broke mid-way
            self._reconnecting = True
            raise _unavailable(exc, "PostgreSQL") from None
        self._reconnecting = False

    def close(self) -> None:
        if self.worker is not None:
            self.worker.shutdown()
        self._pool.close(timeout=self._timeout)


# the longest an impatient transaction (an idempotency key's) waits for a connection while the pool reconnects:
# during a PostgreSQL restart each waited the whole `timeout` (1 s in the fleet fault run) on the one ledger
# worker, and the metered calls' reserves and settles queued behind them
IMPATIENT_SECONDS = 0.05


def _written(conn: Any, cursor: Any) -> Iterator[Transaction]:
    """A write transaction's body (PostgresDatabase.transaction): COMMIT when it returns, ROLLBACK when it raises."""
    pipelined = _BeginWithFirst(conn, cursor)
    try:
        yield Transaction(pipelined, postgres=True)
    except BaseException:
        pipelined.finish(ok=False)
        raise
    pipelined.finish(ok=True)


class _BeginWithFirst:
    """A PostgreSQL write transaction's cursor: BEGIN goes with the first statement, and statements sent `together`
    with each other, in one round trip (psycopg's pipeline mode); a first statement whole by itself may commit
    `alone` (autocommit). Atomicity is the same: every statement after BEGIN, up to COMMIT, which `finish` sends
    when BEGIN was. Measured (docs/decisions.md, "ledger7"): a cached search's charge went from 6 round trips to
    4, an asked call's whole commit from 3 to 1."""

    def __init__(self, conn: Any, cursor: Any) -> None:
        self._conn, self._cursor = conn, cursor
        self.begun = False
        self._alone = False

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        if self.begun or self._alone:
            return self._cursor.execute(sql, params)
        with self.together():
            return self._cursor.execute(sql, params)

    @contextlib.contextmanager
    def together(self) -> Iterator[None]:
        """The statements sent inside (and BEGIN first, unless sent) go in one round trip, when a result is read."""
        with self._conn.pipeline():
            if not self.begun:
                self._conn.execute("BEGIN")
                self.begun = True
            yield

    @contextlib.contextmanager
    def alone(self) -> Iterator[None]:
        """A statement sent inside, when nothing was sent yet, is its own implicit transaction (no BEGIN)."""
        self._alone = not self.begun
        try:
            yield
        finally:
            self._alone = False

    def fetchall(self) -> list[Any]:
        return list(self._cursor.fetchall())

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    @property
    def rowcount(self) -> int:
        return int(self._cursor.rowcount)

    def finish(self, ok: bool) -> None:
        """COMMIT (ok) or ROLLBACK what began; a broken connection is left to the pool, which drops it."""
        if not self.begun:
            return
        if ok:
            self._cursor.execute("COMMIT")
        elif not self._conn.closed:
            with contextlib.suppress(Exception):
                self._conn.execute("ROLLBACK")


def _still_connected(conn: Any) -> None:
    """The pool's check before lending a connection, without a round trip in the common case: an idle
    connection's socket has nothing to read unless the server sent something unasked, which is how a restart, a
    shutdown or a killed backend shows (its goodbye, or the end of the stream). Only then is the connection
    checked for real (an empty query; psycopg_pool's check_connection), which raises when it is broken. (A round
    trip on every lending would add three to each metered call, whose transactions are a few round trips each.)"""
    from psycopg_pool import ConnectionPool

    if conn.closed:
        ConnectionPool.check_connection(conn)  # raises
    waiting = select.poll()  # poll, not select: a busy server's descriptors pass FD_SETSIZE
    waiting.register(conn.fileno(), select.POLLIN)
    if waiting.poll(0):
        ConnectionPool.check_connection(conn)


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


def open_database(url: str, *, timeout: float = 5.0) -> Database:
    """The database a URL names: postgresql://... (or postgres://), sqlite:///path, or a plain file path.
    `timeout`: the longest a transaction waits for a PostgreSQL connection or SQLite's write lock."""
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresDatabase(url, timeout=timeout)
    return SqliteDatabase(Path(url.removeprefix("sqlite://")), busy_timeout=timeout)
