"""A real ledger database whose write transactions record what they sent (statement-count tests)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from webreach.accounts.database import Database, Transaction


class Counting(Transaction):
    """A real transaction that keeps what it sent: each statement, and each executemany as ("many", rows)."""

    def __init__(self, tx: Transaction, sent: list[Any]) -> None:
        super().__init__(tx.cursor, tx.postgres)
        self.sent = sent

    def _execute(self, sql: str, params: Any) -> Any:
        self.sent.append(sql)
        return super()._execute(sql, params)

    def _execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.sent.append(("many", len(rows)))
        super()._execute_many(sql, rows)


class Recorded:
    """A real database whose write transactions record their statements in `sent`."""

    def __init__(self, database: Database) -> None:
        self.database, self.lock_row, self.worker = database, database.lock_row, database.worker
        self.sent: list[Any] = []

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True, patient: bool = True) -> Iterator[Transaction]:
        with self.database.transaction(write=write, patient=patient) as tx:
            yield Counting(tx, self.sent)

    def close(self) -> None:
        self.database.close()
