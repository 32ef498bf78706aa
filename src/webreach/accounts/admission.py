"""What a reservation reads and refuses, under the agent's lock: the agent's row with its quota counters and
quotas.PROBE in one statement, its expired holds recovered first, then the refusals in their one order (ledger.py's
reserve_in and charges.py's calls charged together both go through here)."""

from __future__ import annotations

from collections.abc import Callable

from webreach.accounts import holds
from webreach.accounts.agent_row import AGENT_COLUMNS, AGENT_WIDTH, Agent
from webreach.accounts.database import Row, Transaction
from webreach.accounts.quotas import COUNTERS, PROBE, Probe, Usage, check_quota, probe, probe_params
from webreach.errors import AgentAuthError, InsufficientCreditsError, InvalidInputError


def read_agent(tx: Transaction, name: str, now: float) -> tuple[Agent, Probe]:
    """What a reservation reads under the agent's lock: its row and quotas.probe, its expired holds recovered first
    (before the counters are used: they are read again after recovery)."""
    row = _read_locked(tx, name, now, lock=True)
    agent, found = Agent.from_row(row[:AGENT_WIDTH]), probe_row(row, now)
    if found.expired:
        holds.recover(tx, name, now)
        row = _read_locked(tx, name, now, lock=False)
        agent, found = Agent.from_row(row[:AGENT_WIDTH]), probe_row(row, now)
    return agent, found


def probe_row(row: Row, now: float) -> Probe:
    return probe(Agent.from_row(row[:AGENT_WIDTH]), row[AGENT_WIDTH:], now)


def admit(
    tx: Transaction, agent: Agent, usage: Usage, balance: int, price_of: Callable[[Agent], int], now: float
) -> int:
    """A reservation's refusals, in their order (a disabled agent, `price_of`'s own, such as a tool not allowed,
    the quotas, the credits), at `balance` and `usage`; the call's price when none refuses."""
    if agent.disabled:
        raise AgentAuthError(f"agent {agent.name!r} is disabled", hint="Ask an operator to enable it.")
    price = price_of(agent)
    check_quota(tx, agent, usage, now)
    if balance < price:
        raise InsufficientCreditsError(
            f"this call costs {price} credits and the balance is {balance}", balance=balance, price=price
        )
    return price


_READ = f"SELECT {AGENT_COLUMNS}, {COUNTERS}, {PROBE} FROM accounts_agents_v1 a WHERE a.name = ?"
_LOCK = "SELECT 1 FROM accounts_agents_v1 WHERE name = ? FOR UPDATE"


def _read_locked(tx: Transaction, name: str, now: float, *, lock: bool) -> Row:
    """What a reservation reads, in one statement: the agent's columns, its quota counters and quotas.PROBE.

    SQLite's write transaction already holds the lock. PostgreSQL locks the agent's row first (`lock`), then reads:
    the read is a statement of its own, so its snapshot is taken once it holds the lock and sees what the lock's
    last holder wrote (subqueries of the locking SELECT would not). (Both in one round trip, psycopg's pipeline
    mode, measured no better: accounts/transaction.py LazyBegin.)"""
    if lock and tx.postgres:
        tx.run(_LOCK, name)
    row = tx.one(_READ, *probe_params(now), name)
    if row is None:
        raise InvalidInputError(f"no agent {name!r}", hint="List agents with `webreach agents list`.")
    return row
