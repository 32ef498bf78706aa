"""The ledger's one SQL dialect layer: the statements of one transaction, and the Database protocol they run on.

SQLite and PostgreSQL run the same statements, written with `?` placeholders and rewritten to `%s` for psycopg, inside
short synchronous transactions that never wait on anything but the database (accounts/database.py opens them).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from typing import Any, Protocol

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
