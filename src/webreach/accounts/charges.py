"""Calls already answered (a cached search), charged all their price at once: one agent's in a group commit's
batch charged together.

A call answered with nothing upstream to pay for is reserved and committed whole in one piece of work
(tools/accounting.py, Metering's at-once path). When several of one agent's such calls share a batch
(group_commit.py), the agent's row is read and locked once, each call is decided in queue order against the
balance and quota use the calls before it left (the same refusals, in the same order, as one reservation:
admission.admit), and what the served ones wrote is written once: the balance and quota counters by their sum, their
journal rows with one executemany. So credits that cover the first k calls serve those k, and a quota likewise.
Nothing is written before every call is decided (but a lease recovery), so a refusal undoes nothing; a quota
refusal reads the calls counted, so the rows decided before it are written first.

Measured (docs/decisions.md "meter8"; 8 callers, batches of 5.6 calls on average under wrk): CPU per cached
call in process, 8 concurrent callers, medians of 12 runs against main: SQLite 413 -> 356 us, PostgreSQL 806 ->
409 us. Statements: 3 a call alone (PostgreSQL 3 round trips); k calls of one agent together, 3 in all
(PostgreSQL 4: its lock, the read, the write, the executemany).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from webreach.accounts import holds
from webreach.accounts.admission import admit, read_agent
from webreach.accounts.agent_row import Agent, Reservation
from webreach.accounts.database import Transaction
from webreach.errors import WebreachError


@dataclass(frozen=True)
class Charge:
    """One answered call to charge: `then(tx, reservation)` finishes it in the same transaction (a keyed call's
    stored answer) and gives what its work returns; `alone(tx)` is the same call charged by itself (a reservation
    and a settle), for a batch that cannot charge it together (its charge is not all its price)."""

    name: str
    call_id: str
    tool: str
    now: float
    price_of: Callable[[Agent], int]
    whole: Callable[[int], bool]  # charged all its price: committed with its reservation
    then: Callable[[Transaction, Reservation], Any]
    alone: Callable[[Transaction], Any]


def charge_together(tx: Transaction, charges: Sequence[Charge]) -> list[tuple[bool, Any]] | None:
    """Charge one agent's `charges`, in order, in `tx` (see the module docstring): each call's outcome, (True,
    what `then` gave) or (False, its refusal); None when one of them is not charged all its price (nothing but a
    recovery written: the caller runs each `alone`)."""
    name = charges[0].name
    agent, found = read_agent(tx, name, max(charge.now for charge in charges))
    balance, usage = agent.balance, found.usage
    decided: list[tuple[Charge, Reservation | WebreachError]] = []
    rows: list[tuple[Any, ...]] = []
    served = 0
    for charge in charges:
        if rows and usage.full():  # its refusal reads the calls counted: the ones before it are written first
            holds.journal_reserves(tx, rows)
            rows = []
        try:
            price = admit(tx, agent, usage, balance, charge.price_of, charge.now)
        except WebreachError as refusal:
            decided.append((charge, refusal))
            continue
        if not charge.whole(price):
            return None
        balance, usage, served = balance - price, usage.with_call(charge.now), served + 1
        rows.append((name, charge.call_id, -price, charge.now, charge.tool))
        decided.append((charge, Reservation(name, charge.call_id, price, balance, usage, committed=True)))
    if served:
        counters = (agent.balance - balance, usage.hour_used, found.counters[0], usage.day_used, found.counters[1])
        holds.charge_agent(tx, (*counters, name))
    if rows:
        holds.journal_reserves(tx, rows)
    return [
        (True, charge.then(tx, held)) if isinstance(held, Reservation) else (False, held) for charge, held in decided
    ]
