"""The rows one metered call writes in the ledger: its hold (reserve), and the commit or release that settles it.

Every function runs inside the ledger's transaction (ledger.py says the rules). A hold is an open row; whoever
settles it first claims that row (a DELETE ... RETURNING, which locks it on PostgreSQL until the transaction ends), so
a call is settled once whether its own settle or lease recovery gets there first. On PostgreSQL a reservation's four
writes and a whole commit are one statement each (data-modifying CTEs: one round trip); SQLite, in-process, sends
them one by one.
"""

from __future__ import annotations

from typing import Any

from webreach.accounts.database import Transaction


def journal(tx: Transaction, name: str, call_id: str, kind: str, amount: int, now: float, **extra: str) -> None:
    tx.run(
        "INSERT INTO accounts_journal_v1 (agent, call_id, kind, amount, at, tool, note) VALUES (?, ?, ?, ?, ?, ?, ?)",
        name,
        call_id,
        kind,
        amount,
        now,
        extra.get("tool", ""),
        extra.get("note", ""),
    )


def claim(tx: Transaction, name: str, call_id: str) -> int | None:
    """Take an open reservation off the open list (its row locked until the transaction ends); what it held, or
    None when it is not open (settled or recovered meanwhile)."""
    row = tx.one("DELETE FROM accounts_open_v1 WHERE agent = ? AND call_id = ? RETURNING amount", name, call_id)
    return None if row is None else int(row[0])


def settle_claimed(tx: Transaction, name: str, call_id: str, kind: str, back: int, now: float) -> int:
    """Settle one reservation `_claim` took (the caller holds the agent's lock); the balance after."""
    at = None
    if kind == "release":  # a released call does not count against the quota: out of the counters it is in
        gone = tx.one("DELETE FROM accounts_calls_v1 WHERE agent = ? AND call_id = ? RETURNING at", name, call_id)
        at = None if gone is None else float(gone[0])
    row = tx.one(_SETTLE_BALANCE, back, at, at, name)
    assert row is not None  # the caller holds the agent's lock, so the agent exists
    journal(tx, name, call_id, kind, back, now)
    return int(row[0])


_COMMIT_JOURNAL = "INSERT INTO accounts_journal_v1 (agent, call_id, kind, amount, at) VALUES (?, ?, 'commit', 0, ?)"
# PostgreSQL: claim, journal and read the balance in one statement (one round trip)
_COMMIT_WHOLE = (
    "WITH gone AS (DELETE FROM accounts_open_v1 WHERE agent = ? AND call_id = ? AND amount <= ? RETURNING call_id),"
    " j AS (INSERT INTO accounts_journal_v1 (agent, call_id, kind, amount, at) SELECT ?, call_id, 'commit', 0, ?"
    " FROM gone) SELECT balance FROM accounts_agents_v1 WHERE name = ? AND EXISTS (SELECT 1 FROM gone)"
)


def commit_whole(tx: Transaction, name: str, call_id: str, charged: int, now: float) -> int | None:
    """Commit a reservation charged all it held: nothing goes back, so neither the balance nor the quota counters
    change and the agent's row is not locked; the balance, or None when it is not open (the caller then settles
    it the long way, under the lock). Exact all the same: the open row is claimed once (recovery claims it the
    same way), and the journal row it adds is 0."""
    if tx.postgres:
        row = tx.one(_COMMIT_WHOLE, name, call_id, charged, name, now, name)
        return None if row is None else int(row[0])
    if tx.one(_CLAIM_WHOLE, name, call_id, charged) is None:
        return None
    tx.run(_COMMIT_JOURNAL, name, call_id, now)
    row = tx.one("SELECT balance FROM accounts_agents_v1 WHERE name = ?", name)
    return None if row is None else int(row[0])


_CLAIM_WHOLE = "DELETE FROM accounts_open_v1 WHERE agent = ? AND call_id = ? AND amount <= ? RETURNING amount"


# a NULL `at` (a commit) or `*_from` (counters not started) compares as NULL: nothing is taken off
_SETTLE_BALANCE = (
    "UPDATE accounts_agents_v1 SET balance = balance + ?,"
    " hour_used = hour_used - (CASE WHEN ? > hour_from THEN 1 ELSE 0 END),"
    " day_used = day_used - (CASE WHEN ? > day_from THEN 1 ELSE 0 END)"
    " WHERE name = ? RETURNING balance"
)


def recover(tx: Transaction, name: str, now: float) -> list[int]:
    """Release the agent's reservations whose lease passed (the caller holds its lock); the credits of each."""
    expired = tx.rows("SELECT call_id FROM accounts_open_v1 WHERE agent = ? AND expires < ?", name, now)
    released = []
    for (call_id,) in expired:
        amount = claim(tx, name, call_id)
        if amount is not None:  # else committed meanwhile, without the agent's lock (_commit_whole)
            settle_claimed(tx, name, call_id, "release", amount, now)
            released.append(amount)
    return released


_RESERVE_BALANCE = (
    "UPDATE accounts_agents_v1 SET balance = balance - ?, hour_used = ?, hour_from = ?, day_used = ?, day_from = ?"
    " WHERE name = ?"
)
_RESERVE_JOURNAL = (
    "INSERT INTO accounts_journal_v1 (agent, call_id, kind, amount, at, tool, note)"
    " VALUES (?, ?, 'reserve', ?, ?, ?, '')"
)
_RESERVE_CALL = "INSERT INTO accounts_calls_v1 (agent, call_id, at) VALUES (?, ?, ?)"
_RESERVE_OPEN = "INSERT INTO accounts_open_v1 (agent, call_id, amount, expires) VALUES (?, ?, ?, ?)"
# PostgreSQL: the four writes in one statement (one round trip); each CTE writes its own table
_RESERVE_ALL = f"WITH b AS ({_RESERVE_BALANCE}), j AS ({_RESERVE_JOURNAL}), c AS ({_RESERVE_CALL}) {_RESERVE_OPEN}"


def reserve_rows(
    tx: Transaction, counters: tuple[Any, ...], call_id: str, tool: str, now: float, expires: float
) -> None:
    """A reservation's writes: the balance and counters (`counters`: price, the four counter columns, the
    agent), its journal row, its quota call and its open hold."""
    price, name = counters[0], counters[-1]
    journal, call, held = (name, call_id, -price, now, tool), (name, call_id, now), (name, call_id, price, expires)
    if tx.postgres:
        tx.run(_RESERVE_ALL, *counters, *journal, *call, *held)
        return
    tx.run(_RESERVE_BALANCE, *counters)
    tx.run(_RESERVE_JOURNAL, *journal)
    tx.run(_RESERVE_CALL, *call)
    tx.run(_RESERVE_OPEN, *held)
