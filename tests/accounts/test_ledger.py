"""The ledger on SQLite and PostgreSQL alike: grants, reserve/commit/release, balances that equal the journal's
sum, quotas in a sliding window, recovery of reservations left by a dead process, idempotency keys."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from webreach.accounts.database import open_database
from webreach.accounts.idempotency import Idempotency, Replay, Stale, note_hold
from webreach.accounts.ledger import Ledger
from webreach.accounts.quotas import HOUR
from webreach.accounts.service import Accounts
from webreach.config import AccountsSettings
from webreach.errors import (
    AgentAuthError,
    AgentQuotaError,
    IdempotencyMismatchError,
    InProgressError,
    InsufficientCreditsError,
    InvalidInputError,
)
from webreach.testing import FakeClock

T0 = 1_800_000_000.0
LEASE = 120.0


@pytest.fixture
def ledger(database_url: str) -> Iterator[Ledger]:
    opened = Ledger(open_database(database_url))
    yield opened
    opened.close()


def add(ledger: Ledger, credits: int = 100, per_hour: int | None = None, name: str = "bot") -> None:
    ledger.add_agent(name, f"hash-{name}", credits=credits, per_hour=per_hour, per_day=None, now=T0)


def price(credits: int):  # type: ignore[no-untyped-def]
    return lambda agent: credits


def test_reserve_commit_release_move_the_balance_and_the_journal_sums_to_it(ledger: Ledger) -> None:
    add(ledger)
    searched = ledger.reserve("bot", "c1", price(2), tool="web_search", now=T0, lease=LEASE)
    assert searched.balance == 98
    assert ledger.settle("bot", "c1", charged=2, now=T0) == 98
    ledger.reserve("bot", "c2", price(1), tool="web_fetch", now=T0, lease=LEASE)
    assert ledger.settle("bot", "c2", charged=1, now=T0) == 97
    ledger.reserve("bot", "c3", price(2), tool="web_search", now=T0, lease=LEASE)
    assert ledger.settle("bot", "c3", charged=None, now=T0) == 97  # released: all of it back
    assert ledger.agent("bot").balance == 97 == ledger.journal_sum("bot")
    kinds = [row["kind"] for row in reversed(ledger.journal("bot"))]
    assert kinds == ["grant", "reserve", "reserve", "reserve", "release"]  # a whole commit writes no row
    states = [(call["call_id"], call["charged"], call["state"]) for call in ledger.calls("bot")]
    assert states == [("c3", 0, "released"), ("c2", 1, "committed"), ("c1", 2, "committed")]


def test_a_reservation_is_settled_once(ledger: Ledger) -> None:
    add(ledger)
    ledger.reserve("bot", "c1", price(2), tool="web_search", now=T0, lease=LEASE)
    assert ledger.settle("bot", "c1", charged=2, now=T0) == 98
    assert ledger.settle("bot", "c1", charged=None, now=T0) is None  # the second settle changes nothing
    assert ledger.agent("bot").balance == 98 == ledger.journal_sum("bot")


def test_a_call_above_the_balance_is_refused_with_balance_and_price(ledger: Ledger) -> None:
    add(ledger, credits=1)
    with pytest.raises(InsufficientCreditsError) as refused:
        ledger.reserve("bot", "c1", price(2), tool="web_search", now=T0, lease=LEASE)
    assert refused.value.fields == {"balance": 1, "price": 2}
    assert ledger.agent("bot").balance == 1 == ledger.journal_sum("bot")


def test_zero_credits_refuse_any_priced_call(ledger: Ledger) -> None:
    add(ledger, credits=0)
    with pytest.raises(InsufficientCreditsError):
        ledger.reserve("bot", "c1", price(1), tool="web_fetch", now=T0, lease=LEASE)


def test_the_eleventh_call_in_an_hour_is_refused_until_the_first_leaves_the_window(ledger: Ledger) -> None:
    add(ledger, per_hour=10)
    for n in range(10):
        ledger.reserve("bot", f"c{n}", price(1), tool="web_fetch", now=T0 + n * 60, lease=LEASE)
        ledger.settle("bot", f"c{n}", charged=1, now=T0 + n * 60)
    with pytest.raises(AgentQuotaError) as refused:
        ledger.reserve("bot", "c10", price(1), tool="web_fetch", now=T0 + 1800, lease=LEASE)
    assert refused.value.retry_after == pytest.approx(HOUR - 1800)
    assert refused.value.fields["resets_at"] == "2027-01-15T09:00:00Z"  # T0 (08:00) + 1 h
    assert ledger.agent("bot").balance == 90
    ledger.reserve("bot", "c10", price(1), tool="web_fetch", now=T0 + HOUR + 1, lease=LEASE)


def test_released_calls_do_not_use_quota(ledger: Ledger) -> None:
    add(ledger, per_hour=2)
    for n in range(5):
        ledger.reserve("bot", f"c{n}", price(1), tool="web_search", now=T0, lease=LEASE)
        ledger.settle("bot", f"c{n}", charged=None, now=T0)
    assert ledger.usage("bot", now=T0).hour_used == 0


def test_a_dead_process_reservation_is_released_once_its_lease_passed_and_a_late_settle_changes_nothing(
    ledger: Ledger,
) -> None:
    add(ledger, credits=10)
    ledger.reserve("bot", "lost", price(4), tool="web_search", now=T0, lease=LEASE)
    assert ledger.recover("bot", now=T0 + LEASE - 1) == 0  # still within its lease: maybe still running
    held = ledger.reserve("bot", "next", price(2), tool="web_search", now=T0 + LEASE + 1, lease=LEASE)
    assert held.balance == 8  # the lost 4 came back inside the same transaction, then 2 were held
    assert ledger.settle("bot", "lost", charged=4, now=T0 + LEASE + 2) is None
    assert ledger.settle("bot", "next", charged=2, now=T0 + LEASE + 2) == 8
    assert ledger.journal_sum("bot") == 8


def test_grants_and_take_backs_never_make_a_balance_negative(ledger: Ledger) -> None:
    add(ledger, credits=5)
    assert ledger.grant("bot", 10, now=T0).balance == 15
    with pytest.raises(InvalidInputError):
        ledger.grant("bot", -16, now=T0)
    assert ledger.grant("bot", -15, now=T0).balance == 0 == ledger.journal_sum("bot")


def test_disabled_and_unknown_agents_are_refused(ledger: Ledger) -> None:
    add(ledger)
    ledger.update_agent("bot", disabled=1)
    with pytest.raises(AgentAuthError):
        ledger.reserve("bot", "c1", price(1), tool="web_fetch", now=T0, lease=LEASE)
    with pytest.raises(InvalidInputError):
        ledger.reserve("nobody", "c1", price(1), tool="web_fetch", now=T0, lease=LEASE)


def test_the_schema_is_created_once_and_reopening_migrates_nothing(database_url: str) -> None:
    for _ in range(2):
        reopened = Ledger(open_database(database_url))
        with reopened.database.transaction() as tx:
            assert tx.rows("SELECT version FROM accounts_schema ORDER BY version") == [(v,) for v in range(1, 8)]
        reopened.close()


def test_idempotency_replays_refuses_other_arguments_and_in_flight_duplicates(ledger: Ledger) -> None:
    keys = Idempotency(ledger.database)
    assert keys.begin("bot", "k1", "fp-a", now=T0, lease=LEASE) is None
    with pytest.raises(InProgressError) as running:
        keys.begin("bot", "k1", "fp-a", now=T0 + 1, lease=LEASE)
    assert running.value.retry_after == 1.0
    with pytest.raises(IdempotencyMismatchError):
        keys.begin("bot", "k1", "fp-b", now=T0 + 1, lease=LEASE)
    keys.finish("bot", "k1", "fp-a", '{"status": "ok"}', is_json=True, now=T0 + 2)
    assert keys.begin("bot", "k1", "fp-a", now=T0 + 3, lease=LEASE) == Replay('{"status": "ok"}', True)
    assert keys.begin("other", "k1", "fp-b", now=T0 + 3, lease=LEASE) is None  # keys are per agent
    assert keys.begin("bot", "k1", "fp-b", now=T0 + 2 + 86_401, lease=LEASE) is None  # 24 h later: a new call


def test_a_dead_attempts_hold_is_handed_to_the_next_attempt_of_its_key(ledger: Ledger) -> None:
    keys = Idempotency(ledger.database)
    assert keys.begin("bot", "k1", "fp", now=T0, lease=LEASE) is None
    with ledger.database.transaction() as tx:
        note_hold(tx, "bot", "k1", "call-1")
    with pytest.raises(InProgressError):  # still within its lease: it may be running
        keys.begin("bot", "k1", "fp", now=T0 + 1, lease=LEASE)
    assert keys.begin("bot", "k1", "fp", now=T0 + LEASE + 1, lease=LEASE) == Stale("call-1")  # its process died
    assert keys.forget("bot", "k1") is None  # the new attempt noted no hold yet
    assert keys.begin("bot", "k1", "fp", now=T0 + LEASE + 2, lease=LEASE) is None
    with ledger.database.transaction() as tx:
        note_hold(tx, "bot", "k1", "call-2")
    assert keys.forget("bot", "k1") == "call-2"  # its charge failed: the caller releases the hold


def test_a_failed_call_forgets_its_key_so_the_retry_runs(ledger: Ledger) -> None:
    keys = Idempotency(ledger.database)
    assert keys.begin("bot", "k1", "fp", now=T0, lease=LEASE) is None
    keys.forget("bot", "k1")
    assert keys.begin("bot", "k1", "fp", now=T0, lease=LEASE) is None


def test_the_quota_counters_agree_with_a_count_of_the_window_through_releases_expiry_and_a_clock_step_back(
    ledger: Ledger,
) -> None:
    """The reservation reads its quota use from counters kept under the agent's lock; a full count of the window
    (Ledger.usage) must say the same after every step, whatever left the window or was released."""
    ledger.add_agent("bot", "hash-bot", credits=10_000, per_hour=1_000, per_day=5_000, now=T0)
    now, seen = T0, []
    for step in range(120):
        now += 97.0 if step % 7 else 1_300.0  # some steps jump past part of the hour
        if step == 90:
            now -= 4_000.0  # the clock went back: the counters start again from a count
        held = ledger.reserve("bot", f"c{step}", price(1), tool="web_search", now=now, lease=LEASE)
        counted = ledger.usage("bot", now=now)
        assert (held.usage.hour_used, held.usage.day_used) == (counted.hour_used, counted.day_used)
        assert held.usage.hour_resets_at == counted.hour_resets_at
        ledger.settle("bot", f"c{step}", charged=None if step % 3 == 0 else 1, now=now)
        seen.append(ledger.usage("bot", now=now).hour_used)
    assert max(seen) > 10  # the window held many calls at once, not just the newest


def test_recent_calls_say_what_each_cost_and_how_it_ended(ledger: Ledger) -> None:
    add(ledger)
    for call_id, charged in (("c1", 2), ("c2", None), ("c3", 1)):
        ledger.reserve("bot", call_id, price(2), tool="web_search", now=T0, lease=LEASE)
        if call_id != "c3":
            ledger.settle("bot", call_id, charged=charged, now=T0)
    ledger.reserve("bot", "c4", price(1), tool="web_fetch", now=T0, lease=LEASE)
    ledger.settle("bot", "c4", charged=1, now=T0)
    calls = [
        (call["call_id"], call["tool"], call["held"], call["charged"], call["state"]) for call in ledger.calls("bot")
    ]
    assert calls == [
        ("c4", "web_fetch", 1, 1, "committed"),
        ("c3", "web_search", 2, 0, "open"),
        ("c2", "web_search", 2, 0, "released"),
        ("c1", "web_search", 2, 2, "committed"),
    ]


def test_spend_by_day_sums_what_each_utc_day_charged(ledger: Ledger) -> None:
    add(ledger, credits=100)
    day = 86_400.0  # T0 is 08:00 UTC: no call below is near midnight
    ledger.reserve("bot", "c1", price(2), tool="web_search", now=T0 - day, lease=LEASE)
    ledger.settle("bot", "c1", charged=2, now=T0 - day)
    ledger.reserve("bot", "c2", price(5), tool="web_fetch", now=T0, lease=LEASE)
    ledger.settle("bot", "c2", charged=3, now=T0)  # 2 of the 5 held go back
    ledger.reserve("bot", "c3", price(2), tool="web_search", now=T0, lease=LEASE)
    ledger.settle("bot", "c3", charged=None, now=T0)  # released: nothing spent
    ledger.grant("bot", 50, now=T0)  # a grant is not spend
    spend = ledger.spend_by_day("bot", now=T0, days=3)
    assert spend == [("2027-01-13", 0), ("2027-01-14", 2), ("2027-01-15", 3)]
    assert ledger.agent("bot").balance == 145 == ledger.journal_sum("bot")


def test_admin_changes_are_audited_in_their_own_transaction(database_url: str) -> None:
    clock = FakeClock(T0)
    accounts = Accounts(AccountsSettings(enabled=True, database=database_url), clock)
    try:
        _, key = accounts.add("audited", credits=5, actor="cli")
        accounts.grant("audited", 10, note="top up", actor="console")
        new_key = accounts.rotate_key("audited", actor="admin-api")
        accounts.update_agent("audited", limits={"per_hour": 7}, prices={"web_search": 3}, actor="admin-api")
        accounts.set_disabled("audited")
        with pytest.raises(InvalidInputError):  # refused: written nowhere, the audit log included
            accounts.grant("audited", -1000, actor="cli")
        log = accounts.audit()
        mine = accounts.audit(name="audited", limit=2)
    finally:
        accounts.close()
    assert [(e["actor"], e["action"]) for e in reversed(log)] == [
        ("cli", "add"), ("console", "grant"), ("admin-api", "rotate-key"), ("admin-api", "update"),
        ("operator", "disable"),
    ]  # fmt: skip
    assert log[-1]["detail"] == {"credits": 5, "per_hour": 10, "per_day": None} and log[-1]["target"] == "audited"
    assert log[3]["detail"] == {"credits": 10, "note": "top up"} and log[3]["at"] == "2027-01-15T08:00:00Z"
    assert log[1]["detail"] == {"limits": {"per_hour": 7}, "prices": {"web_search": 3}}
    assert key not in repr(log) and new_key not in repr(log) and log[2]["detail"] == {}
    assert [e["action"] for e in mine] == ["disable", "update"]
