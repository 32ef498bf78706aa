"""The rows one metered call writes in the ledger: its hold (reserve), and the commit or release that settles it.

Every function runs inside the ledger's transaction (ledger.py says the rules). A hold is an open row; whoever
settles it first claims that row (a DELETE ... RETURNING, which locks it on PostgreSQL until the transaction ends), so
a call is settled once whether its own settle or lease recovery gets there first. A reservation writes three rows'
worth (the agent's balance and quota counters, its journal row, its open hold); a whole commit only deletes the
hold. On PostgreSQL a reservation's writes are one statement (data-modifying CTEs: one round trip); SQLite, in
process, sends them one by one. A whole commit is one statement on both.
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
    """Settle one reservation `_claim` took (the caller holds the agent's lock); the balance after. A release takes
    the call out of the quota counters it is in (a released call does not count: quotas.py)."""
    row = tx.one(_SETTLE_BALANCE, back, call_id, kind == "release", call_id, kind == "release", name)
    assert row is not None  # the caller holds the agent's lock, so the agent exists
    journal(tx, name, call_id, kind, back, now)
    return int(row[0])


# claim the hold and read the balance in one statement (one round trip on PostgreSQL), on both databases
_COMMIT_WHOLE = (
    "DELETE FROM accounts_open_v1 WHERE agent = ? AND call_id = ? AND amount <= ?"
    " RETURNING (SELECT balance FROM accounts_agents_v1 WHERE name = ?)"
)


def commit_whole(tx: Transaction, name: str, call_id: str, charged: int, *, alone: bool = False) -> int | None:
    """Commit a reservation charged all it held: nothing goes back, so neither the balance nor the quota counters
    change, the agent's row is not locked and no journal row is written (the reserve row already says what the
    call cost: its hold gone without a release or commit row is a whole commit); the balance, or None when it is
    not open (the caller then settles it the long way, under the lock). Exact all the same: the open row is
    claimed once (recovery claims it the same way). `alone`: nothing after it must commit with it, so it may
    commit by itself (Transaction.one_alone: on PostgreSQL one round trip, no BEGIN and COMMIT); when it finds no
    hold it changed nothing, and the long way runs in a transaction of its own."""
    row = (tx.one_alone if alone else tx.one)(_COMMIT_WHOLE, name, call_id, charged, name)
    return None if row is None else int(row[0])


# the reserve row's time when the call is released (else NULL, as for a commit); a NULL time or `*_from` (counters
# not started) compares as NULL: nothing is taken off
_RESERVED_AT = "(SELECT at FROM accounts_journal_v1 WHERE agent = name AND call_id = ? AND kind = 'reserve' AND ?)"
_SETTLE_BALANCE = (
    "UPDATE accounts_agents_v1 SET balance = balance + ?,"
    f" hour_used = hour_used - (CASE WHEN {_RESERVED_AT} > hour_from THEN 1 ELSE 0 END),"
    f" day_used = day_used - (CASE WHEN {_RESERVED_AT} > day_from THEN 1 ELSE 0 END)"
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
_RESERVE_OPEN = "INSERT INTO accounts_open_v1 (agent, call_id, amount, expires) VALUES (?, ?, ?, ?)"
# PostgreSQL: the three writes in one statement (one round trip); each CTE writes its own table
_RESERVE_ALL = f"WITH b AS ({_RESERVE_BALANCE}), j AS ({_RESERVE_JOURNAL}) {_RESERVE_OPEN}"
_RESERVE_COMMITTED = f"WITH b AS ({_RESERVE_BALANCE}) {_RESERVE_JOURNAL}"


def charge_agent(tx: Transaction, counters: tuple[Any, ...]) -> None:
    """Reservations' balance and counters at once (`counters` as reserve_rows's, the price their sum)."""
    tx.run(_RESERVE_BALANCE, *counters)


def journal_reserves(tx: Transaction, rows: list[tuple[Any, ...]]) -> None:
    """Reservations' journal rows (agent, call id, -price, time, tool), one executemany."""
    tx.many(_RESERVE_JOURNAL, rows)


def reserve_rows(
    tx: Transaction, counters: tuple[Any, ...], call_id: str, tool: str, now: float, expires: float | None
) -> None:
    """A reservation's writes: the balance and counters (`counters`: price, the four counter columns, the
    agent), its journal row (which the quotas count: quotas.py) and its open hold, unless `expires` is None: a call
    committed whole in this transaction (what a hold opened and claimed at once by commit_whole would leave; one
    round trip and two SQLite statements fewer)."""
    price, name = counters[0], counters[-1]
    journal, held = (name, call_id, -price, now, tool), (name, call_id, price, expires)
    if tx.postgres:
        if expires is None:
            tx.run(_RESERVE_COMMITTED, *counters, *journal)
        else:
            tx.run(_RESERVE_ALL, *counters, *journal, *held)
        return
    tx.run(_RESERVE_BALANCE, *counters)
    tx.run(_RESERVE_JOURNAL, *journal)
    if expires is not None:
        tx.run(_RESERVE_OPEN, *held)
