"""A ledger transaction and what runs it, below both databases (accounts/database.py: SQLite and opening;
accounts/postgres.py): the Database protocol, Transaction (one SQL dialect: `?` placeholders, `%s` for psycopg),
LazyBegin (a PostgreSQL write transaction's BEGIN sent before its first statement), the typed error for a
database that cannot be used, and `migrate` (the schema versions in accounts/schema.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from typing import Any, Protocol

from webreach.accounts.schema import MIGRATIONS
from webreach.errors import AccountingUnavailableError

Row = tuple[Any, ...]


class Cursor(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...
    def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> Any: ...
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

    def one_alone(self, sql: str, *params: Any) -> Row | None:
        """`one(sql)` for a statement whose effect is whole by itself: on PostgreSQL, when the transaction is its
        caller's alone (`sole`) and nothing was sent yet, it commits by itself (no BEGIN, no COMMIT: one round
        trip), and a later statement begins the transaction afresh."""
        if self.sole and isinstance(self.cursor, LazyBegin):
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

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """One write statement for each of `rows` (its parameters), sent as one executemany."""
        self._execute_many(_dialect(sql) if self.postgres else sql, rows)

    def _execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.cursor.executemany(sql, rows)

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


def unavailable(exc: BaseException, where: str) -> AccountingUnavailableError:
    """The typed error for a ledger database that cannot be used; the driver's first line says why (never a
    password: psycopg's messages name the host and port only)."""
    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return AccountingUnavailableError(f"the credits ledger cannot be used now ({where}: {reason})")


class LazyBegin:
    """A PostgreSQL write transaction's cursor that sends BEGIN just before its first statement, so a first
    statement whole by itself may instead commit `alone` (autocommit: no BEGIN, no COMMIT, one round trip instead
    of three). Atomicity is the same: every statement after BEGIN, up to COMMIT, which `finish` sends when BEGIN
    was. (BEGIN sent with the first statement in psycopg's pipeline mode, and a reservation's lock with its read,
    were tried and taken out: on loopback each pipeline cost more client CPU and wall time than the round trip it
    saved, 221-286 against 183-213 us of CPU a BEGIN + 2 statements + COMMIT; docs/decisions.md "ledger7".)"""

    def __init__(self, conn: Any, cursor: Any) -> None:
        self._conn, self._cursor = conn, cursor
        self.begun = False
        self._alone = False

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        self._begin()
        return self._cursor.execute(sql, params)

    def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> Any:
        self._begin()
        return self._cursor.executemany(sql, params)

    def _begin(self) -> None:
        if not self.begun and not self._alone:
            self._cursor.execute("BEGIN")
            self.begun = True

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
