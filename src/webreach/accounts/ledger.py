"""The credits ledger: agents with balances, an append-only journal, quotas, and the reserve/settle rule.

Every change of a balance is one transaction that locks the agent first (database.py), so balances are exact under any
interleaving of calls, processes and replicas:

- grant N:     balance += N;      journal (grant, +N)
- reserve P:   balance -= P;      journal (reserve, -P); an open reservation with an expiry (the lease)
- commit C:    balance += P - C;  journal (commit, +(P - C)); C <= P is what the call cost
- release:     balance += P;      journal (release, +P)

A commit of all the call held (the common case) changes neither the balance nor the quota counters, so it takes no
lock on the agent and writes no journal row: it claims the open hold (holds.py), and the reserve row already says
what the call cost (a call's hold gone with no commit or release row is committed whole). A reservation reads the
agent's row under its lock, then everything else it needs in one statement (quotas.probe), and refuses before it
writes anything but a recovery.

So the balance always equals the sum of the agent's journal amounts, is never negative (the check is made under the
lock, and a CHECK constraint backs it), and a reservation is settled at most once (a unique index on the commit and
release rows). Recovery: a reservation whose lease passed (its process died mid-call) is released by the next
reservation of that agent, inside the same transaction and before its quota counters are read (so the counters
the reservation writes back include the recovery's release); a late settle of it finds it gone and changes nothing, so a
crash can cost the operator a call but never the agent a credit, and nothing is ever settled twice.

Quotas count the agent's reserve rows in a sliding window (last hour, last day) that were not released (quotas.py):
a call that failed for a reason not the agent's neither costs credits nor uses quota.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from webreach.accounts import holds
from webreach.accounts.admission import admit, read_agent
from webreach.accounts.agent_row import AGENT_COLUMNS
from webreach.accounts.agent_row import Agent as Agent  # its home is agent_row.py; imported from here
from webreach.accounts.agent_row import Reservation as Reservation
from webreach.accounts.archive import archive_journal
from webreach.accounts.audit import Change, write
from webreach.accounts.database import Database, Transaction
from webreach.accounts.quotas import (
    DAY,
    Usage,
    iso,
    usage_now,
)
from webreach.errors import InvalidInputError


class Ledger:
    """Agents, balances, journal and quotas on one Database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def close(self) -> None:
        self.database.close()

    # --- agents ------------------------------------------------------------------------------------------

    def add_agent(
        self,
        name: str,
        key_hash: str,
        *,
        credits: int,
        per_hour: int | None,
        per_day: int | None,
        now: float,
        key_expires: float | None = None,
        audit: Change | None = None,
    ) -> Agent:
        """A new agent; `audit`, its entry, is written in the same transaction."""
        with self.database.transaction() as tx:
            if tx.one("SELECT 1 FROM accounts_agents_v1 WHERE name = ?", name) is not None:
                raise InvalidInputError(f"agent {name!r} exists", hint="Pick another name, or rotate its key.")
            tx.run(
                "INSERT INTO accounts_agents_v1 (name, key_hash, balance, per_hour, per_day, created, key_expires)"
                " VALUES (?, ?, 0, ?, ?, ?, ?)",
                name,
                key_hash,
                per_hour,
                per_day,
                now,
                key_expires,
            )
            if credits:
                _grant(tx, name, credits, now, note="initial credits")
            if audit is not None:
                write(tx, audit, name)
            return _agent(tx, name, lock="")

    def agent(self, name: str) -> Agent:
        with self.database.transaction(write=False) as tx:
            return _agent(tx, name, lock="")

    def agents(self) -> list[Agent]:
        with self.database.transaction(write=False) as tx:
            rows = tx.rows(f"SELECT {AGENT_COLUMNS} FROM accounts_agents_v1 ORDER BY name")
        return [Agent.from_row(row) for row in rows]

    def agent_for_key(self, key_hash: str) -> Agent | None:
        with self.database.transaction(write=False) as tx:
            row = tx.one(f"SELECT {AGENT_COLUMNS} FROM accounts_agents_v1 WHERE key_hash = ?", key_hash)
        return None if row is None else Agent.from_row(row)

    def update_agent(self, name: str, *, audit: Change | None = None, **columns: Any) -> Agent:
        """Set key_hash, key_expires, disabled, per_hour, per_day or options (a dict) of an existing agent."""
        return self.change_agent(name, lambda _: columns, audit=audit)

    def change_agent(
        self, name: str, change: Callable[[Agent], Mapping[str, Any]], *, audit: Change | None = None
    ) -> Agent:
        """Set the columns `change` computes from the agent as it is, in one transaction with its row locked, so
        two concurrent changes (a price for one tool, a price for another) both land; an error `change` raises
        writes nothing. `audit`, the change's entry, is written in the same transaction."""
        allowed = {"key_hash", "key_expires", "disabled", "per_hour", "per_day", "options"}
        with self.database.transaction() as tx:
            columns = change(_agent(tx, name, lock=self.database.lock_row))
            assert set(columns) <= allowed, set(columns) - allowed
            if audit is not None:
                write(tx, audit, name)
            if not columns:
                return _agent(tx, name, lock="")
            values = {k: json.dumps(v) if k == "options" else v for k, v in columns.items()}
            for column, value in values.items():  # names come from `allowed`, never from input
                tx.run(f"UPDATE accounts_agents_v1 SET {column} = ? WHERE name = ?", value, name)
            return _agent(tx, name, lock="")

    def delete_agent(self, name: str, *, now: float, audit: Change | None = None) -> int:
        """Remove agent `name` with its idempotency records, its journal moved to the archive
        (accounts/archive.py: the money history stays); the balance it had (gone with it). Refused while one of its
        calls holds a reservation (InvalidInputError): disable it first, so none starts, and delete once the
        running ones have settled. `audit` is written in the same transaction (the audit log keeps the agent's
        history)."""
        with self.database.transaction() as tx:
            agent = _agent(tx, name, lock=self.database.lock_row)
            running = tx.one("SELECT count(*) FROM accounts_open_v1 WHERE agent = ?", name)
            if running is not None and int(running[0]):
                raise InvalidInputError(
                    f"agent {name!r} has {int(running[0])} call(s) running, so it cannot be deleted now",
                    hint="Disable it first, then delete it once its calls have finished (a minute at most).",
                )
            archive_journal(tx, name, now=now)  # in this transaction: archived and deleted together, or neither
            for table in ("accounts_journal_v1", "accounts_idempotency_v1"):
                tx.run(f"DELETE FROM {table} WHERE agent = ?", name)  # table names are the ones above
            tx.run("DELETE FROM accounts_agents_v1 WHERE name = ?", name)
            if audit is not None:
                write(tx, audit, name)
            return agent.balance

    def grant(
        self, name: str, credits: int, *, now: float, note: str = "", most: int = 2**63 - 1, audit: Change | None = None
    ) -> Agent:
        """Add credits (a negative grant takes unspent credits back, never below zero; never above `most`);
        `audit`, the grant's entry, is written in the same transaction."""
        with self.database.transaction() as tx:
            agent = _agent(tx, name, lock=self.database.lock_row)
            if agent.balance + credits < 0:
                raise InvalidInputError(
                    f"agent {name!r} has {agent.balance} credits; cannot take back {-credits}",
                    hint=f"Take back at most {agent.balance}.",
                )
            if agent.balance + credits > most:
                raise InvalidInputError(
                    f"agent {name!r} has {agent.balance} credits; a balance holds at most {most}",
                    hint=f"Grant at most {most - agent.balance}.",
                )
            _grant(tx, name, credits, now, note=note)
            if audit is not None:
                write(tx, audit, name)
            return _agent(tx, name, lock="")

    # --- calls -------------------------------------------------------------------------------------------

    def reserve(
        self, name: str, call_id: str, price_of: Callable[[Agent], int], *, tool: str, now: float, lease: float
    ) -> Reservation:
        """Hold the call's price (`price_of(agent)`, which may refuse the call) for one call, or raise the typed
        refusal (disabled, quota, credits)."""
        with self.database.transaction() as tx:
            return self.reserve_in(tx, name, call_id, price_of, tool=tool, now=now, lease=lease)

    def reserve_in(
        self,
        tx: Transaction,
        name: str,
        call_id: str,
        price_of: Callable[[Agent], int],
        *,
        tool: str,
        now: float,
        lease: float,
        whole: Callable[[int], bool] | None = None,
    ) -> Reservation:
        """reserve() inside the caller's transaction `tx` (a group commit's: accounts/group_commit.py). `whole(price)`
        true: the call is committed whole here (a call already answered, charged all it holds): no open hold is
        written, which is what a reservation and a whole commit in one transaction leave (Reservation.committed)."""
        agent, found = read_agent(tx, name, now)
        balance, usage = agent.balance, found.usage
        price = admit(tx, agent, usage, balance, price_of, now)
        # nothing is written before the refusals above but a recovery (a group commit's batch still runs each
        # call in a savepoint once one refuses: group_commit.py)
        counters = (price, usage.hour_used + 1, found.counters[0], usage.day_used + 1, found.counters[1], name)
        committed = whole is not None and whole(price)
        holds.reserve_rows(tx, counters, call_id, tool, now, None if committed else now + lease)
        return Reservation(name, call_id, price, balance - price, usage.with_call(now), committed=committed)

    def settle(self, name: str, call_id: str, *, charged: int | None, now: float) -> int | None:
        """Commit `charged` credits of the reservation (the rest goes back), or release it all (charged None).

        Returns the balance after, or None when the reservation was already released (recovered after its lease).
        Idempotent: a commit found already made (a retry after its COMMIT went unacknowledged) returns the balance.
        """
        with self.database.transaction() as tx:
            tx.sole = True
            return self.settle_in(tx, name, call_id, charged=charged, now=now, alone=True)

    def settle_in(
        self, tx: Transaction, name: str, call_id: str, *, charged: int | None, now: float, alone: bool = False
    ) -> int | None:
        """settle() inside the caller's transaction `tx` (a group commit's: accounts/group_commit.py); `alone`:
        nothing after it in `tx` must commit with it, so a whole commit may commit by itself (Transaction.one_alone)."""
        if charged is not None:  # the whole hold charged (the common case): the balance does not change
            balance = holds.commit_whole(tx, name, call_id, charged, alone=alone)
            if balance is not None:
                return balance
        agent = _agent(tx, name, lock=self.database.lock_row)
        held = holds.claim(tx, name, call_id)
        if held is None:  # settled before: committed when reserved and not released (recovery only releases)
            kinds = {row[0] for row in tx.rows(_SETTLED, name, call_id)}
            return agent.balance if charged is not None and kinds == {"reserve"} else None
        back = held if charged is None else held - min(charged, held)
        return holds.settle_claimed(tx, name, call_id, "release" if charged is None else "commit", back, now)

    def recover(self, name: str, *, now: float) -> int:
        """Release the agent's reservations whose lease passed; the credits given back."""
        with self.database.transaction() as tx:
            _agent(tx, name, lock=self.database.lock_row)
            return sum(holds.recover(tx, name, now))

    def usage(self, name: str, *, now: float) -> Usage:
        with self.database.transaction(write=False) as tx:
            return usage_now(tx, _agent(tx, name, lock=""), now)

    def journal(self, name: str, *, limit: int = 100) -> list[dict[str, Any]]:
        """The agent's newest journal rows first, each with `balance`: the balance right after it (the sum of every
        row up to it, in the order the agent's lock wrote them: the balance is that sum at every commit)."""
        with self.database.transaction(write=False) as tx:
            _agent(tx, name, lock="")
            rows = tx.rows(
                "SELECT id, call_id, kind, amount, at, tool, note, sum(amount) OVER (ORDER BY id)"
                " FROM accounts_journal_v1 WHERE agent = ? ORDER BY id DESC LIMIT ?",
                name,
                limit,
            )
        keys = ("id", "call_id", "kind", "amount", "at", "tool", "note")
        # PostgreSQL sums BIGINTs into NUMERIC: the balance as the whole number it is
        return [{**dict(zip(keys, row[:-1], strict=True)), "balance": int(row[-1])} for row in rows]

    def calls(self, name: str, *, limit: int = 10) -> list[dict[str, Any]]:
        """The agent's newest calls: tool, when, credits held and charged, and how each ended (committed,
        released, or open while it runs)."""
        with self.database.transaction(write=False) as tx:
            _agent(tx, name, lock="")
            rows = tx.rows(_CALLS, name, limit)
        calls = []
        for call_id, tool, at, held, kind, back in rows:
            charged = int(held) - int(back) if kind == "commit" else 0
            state = {"commit": "committed", "release": "released"}.get(kind, "open")
            calls.append({"call_id": call_id, "tool": tool, "at": iso(float(at)), "held": int(held)}
                         | {"charged": charged, "state": state})  # fmt: skip
        return calls

    def spend_by_day(self, name: str, *, now: float, days: int = 14) -> list[tuple[str, int]]:
        """Credits the agent spent on each of the last `days` UTC days (today last), grants left out: held by
        reservations, less what settles gave back. One indexed range, summed by the database."""
        first = int(now // DAY) - days + 1
        with self.database.transaction(write=False) as tx:
            _agent(tx, name, lock="")
            rows = tx.rows(_SPEND_BY_DAY, name, first * DAY)
        spent = {int(day): -int(amount) for day, amount in rows}
        return [(iso(day * DAY)[:10], spent.get(day, 0)) for day in range(first, first + days)]

    def journal_sum(self, name: str) -> int:
        with self.database.transaction(write=False) as tx:
            row = tx.one("SELECT coalesce(sum(amount), 0) FROM accounts_journal_v1 WHERE agent = ?", name)
        return int(row[0]) if row is not None else 0


# a call with no commit or release row is open while its hold is, else committed whole (holds.commit_whole)
_CALLS = (
    "SELECT r.call_id, r.tool, r.at, -r.amount,"
    " coalesce(s.kind, CASE WHEN o.call_id IS NULL THEN 'commit' ELSE 'open' END), coalesce(s.amount, 0)"
    " FROM accounts_journal_v1 r LEFT JOIN accounts_journal_v1 s"
    " ON s.agent = r.agent AND s.call_id = r.call_id AND s.kind IN ('commit', 'release')"
    " LEFT JOIN accounts_open_v1 o ON o.agent = r.agent AND o.call_id = r.call_id"
    " WHERE r.agent = ? AND r.kind = 'reserve' ORDER BY r.id DESC LIMIT ?"
)


# the agent's spend per UTC day: CAST to an integer, then integer division, reads the same on SQLite and PostgreSQL
# (PostgreSQL rounds the cast where SQLite truncates: a row within half a second of midnight may count a day early)
_SPEND_BY_DAY = (
    "SELECT CAST(at AS BIGINT) / 86400, sum(amount) FROM accounts_journal_v1"
    " WHERE agent = ? AND kind IN ('reserve', 'commit', 'release') AND at >= ? GROUP BY CAST(at AS BIGINT) / 86400"
)

# whether a call not open was reserved and released (only settle commits; recovery only releases)
_SETTLED = "SELECT kind FROM accounts_journal_v1 WHERE agent = ? AND call_id = ? AND kind IN ('reserve', 'release')"


def _agent(tx: Transaction, name: str, *, lock: str) -> Agent:
    row = tx.one(f"SELECT {AGENT_COLUMNS} FROM accounts_agents_v1 WHERE name = ?{lock}", name)
    if row is None:
        raise InvalidInputError(f"no agent {name!r}", hint="List agents with `webreach agents list`.")
    return Agent.from_row(row)


def _grant(tx: Transaction, name: str, credits: int, now: float, *, note: str) -> None:
    row = tx.one("SELECT count(*) FROM accounts_journal_v1 WHERE agent = ? AND kind = 'grant'", name)
    number = int(row[0]) + 1 if row is not None else 1
    tx.run("UPDATE accounts_agents_v1 SET balance = balance + ? WHERE name = ?", credits, name)
    holds.journal(tx, name, f"grant-{number}", "grant", credits, now, note=note)
