"""Group commit (accounts/group_commit.py): calls queued together share one transaction, each in its own savepoint;
a call's refusal undoes only its own writes, a failed transaction fails every call of its batch and writes
nothing, and money stays exact. On SQLite and PostgreSQL alike."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from webreach.accounts.database import Database, Transaction, open_database
from webreach.accounts.group_commit import GroupCommit
from webreach.accounts.ledger import Agent, Ledger, Reservation
from webreach.errors import AccountingUnavailableError, InsufficientCreditsError

T0 = 1_800_000_000.0
LEASE = 120.0


class Counted:
    """A real database that counts the write transactions begun on it, and can be made to fail the next ones."""

    def __init__(self, database: Database) -> None:
        self.database, self.lock_row, self.worker = database, database.lock_row, database.worker
        self.begun = 0
        self.failing = False

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True, patient: bool = True) -> Iterator[Transaction]:
        self.begun += write
        with self.database.transaction(write=write, patient=patient) as tx:
            yield tx
            if self.failing:  # as a COMMIT that fails (a full disk, PostgreSQL gone): everything rolls back
                raise AccountingUnavailableError("the ledger database failed (test)")

    def close(self) -> None:
        self.database.close()


@pytest.fixture
def counted(database_url: str) -> Iterator[tuple[Ledger, Counted, GroupCommit]]:
    database = Counted(open_database(database_url))
    ledger = Ledger(database)
    assert database.worker is not None
    group = GroupCommit(database)
    yield ledger, database, group
    group.close()
    ledger.close()


def reserve(ledger: Ledger, agent: str, call_id: str, price: int) -> Callable[[Transaction], Reservation]:
    def work(tx: Transaction) -> Reservation:
        return ledger.reserve_in(tx, agent, call_id, lambda _: price, tool="web_search", now=T0, lease=LEASE)

    return work


async def queued_together(
    database: Counted, group: GroupCommit, works: list[tuple[str, Callable[[Transaction], Any]]]
) -> list[Any]:
    """Submit every work while no batch is taken, so they form one batch; each outcome or the error it raised."""
    with group.held():
        futures = [group.submit(agent, work) for agent, work in works]
    return list(await asyncio.gather(*futures, return_exceptions=True))


async def test_calls_queued_together_share_one_transaction_and_a_refusal_undoes_only_its_own_writes(
    counted: tuple[Ledger, Counted, GroupCommit],
) -> None:
    ledger, database, group = counted
    for name, credits in (("bot", 10), ("poor", 1)):
        ledger.add_agent(name, f"hash-{name}", credits=credits, per_hour=None, per_day=None, now=T0)
    begun = database.begun
    outcomes = await queued_together(
        database,
        group,
        [
            ("bot", reserve(ledger, "bot", "c1", 3)),
            ("poor", reserve(ledger, "poor", "c2", 2)),  # refused: 1 credit left
            ("bot", reserve(ledger, "bot", "c3", 4)),
        ],
    )
    # the batch ran without savepoints until the refusal, was rolled back, and ran again with a savepoint per
    # call: one transaction committed the three calls
    assert database.begun == begun + 2
    first, refused, third = outcomes
    assert isinstance(first, Reservation) and first.balance == 7
    assert isinstance(refused, InsufficientCreditsError)
    assert isinstance(third, Reservation) and third.balance == 3
    assert ledger.agent("bot").balance == 3 == ledger.journal_sum("bot")
    assert ledger.agent("poor").balance == 1 == ledger.journal_sum("poor")  # nothing of the refused call stayed
    assert [row["kind"] for row in ledger.journal("poor")] == ["grant"]


async def test_a_failed_transaction_fails_every_call_of_its_batch_and_writes_nothing(
    counted: tuple[Ledger, Counted, GroupCommit],
) -> None:
    ledger, database, group = counted
    ledger.add_agent("bot", "hash-bot", credits=10, per_hour=None, per_day=None, now=T0)
    database.failing = True
    outcomes = await queued_together(database, group, [("bot", reserve(ledger, "bot", f"c{n}", 1)) for n in range(4)])
    assert all(isinstance(outcome, AccountingUnavailableError) for outcome in outcomes)
    database.failing = False
    assert ledger.agent("bot").balance == 10 == ledger.journal_sum("bot")
    # the group commit serves again once the database does
    (again,) = await queued_together(database, group, [("bot", reserve(ledger, "bot", "after", 1))])
    assert isinstance(again, Reservation) and again.balance == 9


async def test_many_concurrent_reserves_and_settles_keep_the_balance_exact(
    counted: tuple[Ledger, Counted, GroupCommit],
) -> None:
    """Four agents, 40 calls each, all in flight together: batches of mixed agents, some calls over the balance."""
    ledger, database, group = counted
    for n in range(4):
        ledger.add_agent(f"a{n}", f"hash-{n}", credits=50, per_hour=None, per_day=None, now=T0)

    async def call(agent: str, k: int) -> int:
        try:
            held = await group.submit(agent, reserve(ledger, agent, f"{agent}-{k}", 2))
        except InsufficientCreditsError:
            return 0
        charged = 2 if k % 3 else None  # every third call released
        await group.submit(agent, lambda tx: ledger.settle_in(tx, agent, held.call_id, charged=charged, now=T0))
        return charged or 0

    begun = database.begun
    spent = await asyncio.gather(*(call(f"a{n}", k) for n in range(4) for k in range(40)))
    assert database.begun - begun < len(spent) * 2  # batched: fewer transactions than reserves and settles
    for n in range(4):
        agent: Agent = ledger.agent(f"a{n}")
        assert agent.balance == 50 - sum(spent[n * 40 : (n + 1) * 40]) == ledger.journal_sum(f"a{n}")
        assert agent.balance >= 0
