"""The money history of deleted agents: an agent's journal rows are moved here, in the delete's own transaction, so
deleting an agent never deletes what it was granted and charged (schema 6, accounts/schema.py MIGRATIONS).

The rows keep their journal id, call id, kind, amount, time, tool and note, and gain `deleted`, the time of the
delete; a name used again later starts a fresh journal, and its earlier lives stay told apart by `deleted`. No
hot-path statement reads this table: only a delete writes it and operators read it.
"""

from __future__ import annotations

from typing import Any

from webreach.accounts.database import Database, Transaction

_COLUMNS = "id, agent, call_id, kind, amount, at, tool, note"
_ARCHIVE = (
    f"INSERT INTO accounts_journal_archive_v1 ({_COLUMNS}, deleted)"
    f" SELECT {_COLUMNS}, ? FROM accounts_journal_v1 WHERE agent = ?"
)


def archive_journal(tx: Transaction, name: str, *, now: float) -> int:
    """Copy agent `name`'s journal rows into the archive inside `tx` (the caller deletes them in the same
    transaction); how many rows were archived."""
    return tx.changed(_ARCHIVE, now, name)


def archived_journal(database: Database, name: str, *, limit: int = 1000) -> list[dict[str, Any]]:
    """The archived journal rows of every deleted agent called `name`, newest delete first, each life's rows in
    the order they were written."""
    with database.transaction(write=False) as tx:
        rows = tx.rows(
            f"SELECT {_COLUMNS}, deleted FROM accounts_journal_archive_v1 WHERE agent = ?"
            " ORDER BY deleted DESC, id LIMIT ?",
            name,
            limit,
        )
    keys = ("id", "agent", "call_id", "kind", "amount", "at", "tool", "note", "deleted")
    return [dict(zip(keys, row, strict=True)) for row in rows]
