"""One agent's answered calls in one group-commit batch are charged together (accounts/charges.py): the agent read
once, its balance and counters written once, its journal rows in one executemany; and each call is decided in
queue order exactly as it would be alone (credits and quotas that cover the first k calls serve those k), on
SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from webreach.accounts.charges import Charge, charge_together
from webreach.accounts.database import Transaction, open_database
from webreach.accounts.group_commit import GroupCommit
from webreach.accounts.ledger import Agent, Ledger, Reservation
from webreach.errors import AgentQuotaError, InsufficientCreditsError, InvalidInputError

from .recording import Recorded

T0 = 1_800_000_000.0
LEASE = 120.0


@pytest.fixture
def ledger(database_url: str) -> Iterator[Ledger]:
    ledger = Ledger(Recorded(open_database(database_url)))
    yield ledger
    ledger.close()


def charge(ledger: Ledger, name: str, call_id: str, *, price: int = 1, at: float = T0, whole: bool = True) -> Charge:
    def price_of(agent: Agent) -> int:
        return price

    def alone(tx: Transaction) -> Reservation:
        return ledger.reserve_in(
            tx, name, call_id, price_of, tool="web_search", now=at, lease=LEASE, whole=lambda _: whole
        )

    return Charge(name, call_id, "web_search", at, price_of, lambda _: whole, lambda tx, held: held, alone)


def together(ledger: Ledger, charges: list[Charge]) -> list[tuple[bool, Any]] | None:
    with ledger.database.transaction() as tx:
        return charge_together(tx, charges)


def alone(ledger: Ledger, charges: list[Charge]) -> list[tuple[bool, Any]]:
    outcomes: list[tuple[bool, Any]] = []
    for each in charges:
        try:
            with ledger.database.transaction() as tx:
                outcomes.append((True, each.alone(tx)))
        except (InsufficientCreditsError, AgentQuotaError) as refusal:
            outcomes.append((False, refusal))
    return outcomes


def state(ledger: Ledger, name: str, now: float) -> tuple[Any, ...]:
    rows = [(row["call_id"][-1], row["kind"], row["amount"], row["at"]) for row in ledger.journal(name)]
    return ledger.agent(name).balance, ledger.usage(name, now=now), rows, ledger.journal_sum(name)


def described(outcomes: list[tuple[bool, Any]] | None) -> list[Any]:
    assert outcomes is not None
    return [
        (value.balance, value.usage, value.committed)
        if ok
        else (type(value).__name__, _named(value.message), value.details(), value.retry_after)
        for ok, value in outcomes
    ]


def _named(message: str) -> str:
    return message.replace("'bot'", "'solo'")


def test_five_calls_of_one_agent_read_and_write_it_once_and_leave_what_five_alone_leave(ledger: Ledger) -> None:
    for name in ("bot", "solo"):
        ledger.add_agent(name, f"hash-{name}", credits=1000, per_hour=1000, per_day=10_000, now=T0 - 10)
    ledger.database.sent.clear()  # type: ignore[attr-defined]
    grouped = together(ledger, [charge(ledger, "bot", f"c{i}", price=i + 1, at=T0 + i) for i in range(5)])
    sent = ledger.database.sent  # type: ignore[attr-defined]
    statements = [s for s in sent if isinstance(s, str) and not s.endswith("FOR UPDATE")]  # PostgreSQL's lock
    assert [s.split()[0] for s in statements] == ["SELECT", "UPDATE"]  # the agent read once, written once
    assert [s for s in sent if not isinstance(s, str)] == [("many", 5)]
    single = alone(ledger, [charge(ledger, "solo", f"c{i}", price=i + 1, at=T0 + i) for i in range(5)])
    assert described(grouped) == described(single)
    assert [b for b, *_ in described(grouped)] == [999, 997, 994, 990, 985]
    assert state(ledger, "bot", T0 + 5) == state(ledger, "solo", T0 + 5)
    assert [c["state"] for c in ledger.calls("bot")] == ["committed"] * 5


@pytest.mark.parametrize("limit", ["credits", "per_hour", "per_day"])
def test_credits_or_a_quota_that_cover_the_first_k_calls_serve_those_k_in_queue_order(
    ledger: Ledger, limit: str
) -> None:
    credits = 3 if limit == "credits" else 1000
    quotas = {"per_hour": 1000, "per_day": 10_000} | ({limit: 4} if limit != "credits" else {})
    for name in ("bot", "solo"):
        ledger.add_agent(name, f"hash-{name}", credits=credits, now=T0 - 10, **quotas)
        with ledger.database.transaction() as tx:  # a call before the batch: the quota's oldest
            ledger.reserve_in(tx, name, "c0", lambda _: 0, tool="web_search", now=T0 - 5, lease=LEASE)
    grouped = together(ledger, [charge(ledger, "bot", f"c{i}", at=T0 + i) for i in range(1, 6)])
    single = alone(ledger, [charge(ledger, "solo", f"c{i}", at=T0 + i) for i in range(1, 6)])
    assert described(grouped) == described(single)  # the same refusals, resets_at and retry_after included
    assert [ok for ok, _ in grouped or []] == [True, True, True, False, False]
    assert state(ledger, "bot", T0 + 6) == state(ledger, "solo", T0 + 6)


def test_a_call_not_charged_all_its_price_sends_the_batch_back_to_each_alone(ledger: Ledger) -> None:
    ledger.add_agent("bot", "hash-bot", credits=10, per_hour=1000, per_day=10_000, now=T0 - 10)
    assert together(ledger, [charge(ledger, "bot", "a"), charge(ledger, "bot", "b", whole=False)]) is None
    assert ledger.agent("bot").balance == 10 and len(ledger.journal("bot")) == 1  # the grant only: nothing written


async def test_a_batch_charges_each_agents_calls_together_and_a_refusal_elsewhere_keeps_them(ledger: Ledger) -> None:
    for name in ("a", "b"):
        ledger.add_agent(name, f"hash-{name}", credits=2, per_hour=1000, per_day=10_000, now=T0 - 10)
    group = GroupCommit(ledger.database)
    reserve_b: Callable[[Transaction], Any] = lambda tx: ledger.reserve_in(  # noqa: E731
        tx, "b", "asked", lambda _: 5, tool="web_search", now=T0, lease=LEASE
    )
    with group.held():
        futures = [group.submit(c.name, c.alone, charge=c) for c in (charge(ledger, "a", f"c{i}") for i in range(3))]
        futures.append(group.submit("b", reserve_b))  # refused (credits): the batch runs again with savepoints
        futures += [group.submit("zz", lambda tx: None, charge=charge(ledger, "zz", f"z{i}")) for i in range(2)]
    outcomes = await asyncio.gather(*futures, return_exceptions=True)
    group.close()
    assert [o.balance for o in outcomes[:2]] == [1, 0]
    assert isinstance(outcomes[2], InsufficientCreditsError) and isinstance(outcomes[3], InsufficientCreditsError)
    assert all(isinstance(o, InvalidInputError) for o in outcomes[4:])  # no agent "zz": each of its calls is told
    assert ledger.agent("a").balance == 0 and ledger.journal_sum("a") == 0 and ledger.agent("b").balance == 2
