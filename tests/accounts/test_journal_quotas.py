"""Quotas counted from the journal (schema 6): a reservation writes no quota row of its own and a whole commit no
journal row, yet the quota windows stay exact over days of kept journal rows, and a ledger written by schema 5 (a
calls table, (commit, 0) rows) migrates with its balances, quotas and call states intact, on SQLite and
PostgreSQL alike."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from webreach.accounts.database import open_database
from webreach.accounts.ledger import Ledger
from webreach.accounts.schema import MIGRATIONS
from webreach.errors import AgentQuotaError

T0 = 1_800_000_000.0
LEASE = 120.0


def one_credit(agent: object) -> int:
    return 1


@pytest.fixture
def ledger(database_url: str) -> Iterator[Ledger]:
    opened = Ledger(open_database(database_url))
    yield opened
    opened.close()


def test_quota_windows_stay_exact_over_days_of_journal_rows(ledger: Ledger) -> None:
    """Every reservation's quota use (from the counters) equals a full count of the journal's window, through
    calls leaving the hour and the day, releases, refusals and a clock step back; the journal keeps every row."""
    ledger.add_agent("bot", "hash-bot", credits=10_000, per_hour=3, per_day=20, now=T0)
    now, refused, steps = T0, 0, (60.0, 120.0, 300.0, 9_000.0)
    for step in range(160):
        now += steps[step % 4] if step != 100 else -5_000.0  # past hours and days; once the clock goes back
        try:
            held = ledger.reserve("bot", f"c{step}", one_credit, tool="web_search", now=now, lease=LEASE)
        except AgentQuotaError:
            refused += 1
            counted = ledger.usage("bot", now=now)
            assert counted.hour_used >= 3 or counted.day_used >= 20
            continue
        counted = ledger.usage("bot", now=now)
        assert (held.usage.hour_used, held.usage.day_used) == (counted.hour_used, counted.day_used)
        assert held.usage.hour_resets_at == counted.hour_resets_at
        ledger.settle("bot", f"c{step}", charged=None if step % 5 == 0 else 1, now=now)
    assert now - T0 > 4 * 86_400 and refused > 20  # the windows moved past days and the quotas refused calls
    assert ledger.agent("bot").balance == ledger.journal_sum("bot")


def test_a_refused_reservation_after_a_release_counts_the_released_call_out(ledger: Ledger) -> None:
    ledger.add_agent("bot", "hash-bot", credits=100, per_hour=2, per_day=None, now=T0)
    ledger.reserve("bot", "a", one_credit, tool="web_search", now=T0, lease=LEASE)
    ledger.settle("bot", "a", charged=1, now=T0)
    ledger.reserve("bot", "b", one_credit, tool="web_search", now=T0 + 1, lease=LEASE)
    ledger.settle("bot", "b", charged=None, now=T0 + 1)  # released: its quota slot comes back
    ledger.reserve("bot", "c", one_credit, tool="web_search", now=T0 + 2, lease=LEASE)
    with pytest.raises(AgentQuotaError) as refused:
        ledger.reserve("bot", "d", one_credit, tool="web_search", now=T0 + 3, lease=LEASE)
    assert refused.value.retry_after == pytest.approx(3600.0 - 3)  # when "a" leaves the hour, not "b"


# --- a ledger written by schema 5 -------------------------------------------------------------------------------

# what schema 5's code wrote for: c1 committed whole, c2 released, c3 committed in part (2 held, 1 back), c4 open
_OLD_ROWS = (
    "INSERT INTO accounts_agents_v1 (name, key_hash, balance, per_hour, per_day, created, hour_used, hour_from,"
    f" day_used, day_from) VALUES ('bot', 'hash-bot', 7, 3, NULL, {T0}, 3, {T0 - 3600}, 3, {T0 - 86400})",
    *(
        "INSERT INTO accounts_journal_v1 (agent, call_id, kind, amount, at, tool) VALUES "
        f"('bot', '{call_id}', '{kind}', {amount}, {T0 + at}, 'web_search')"
        for call_id, kind, amount, at in (
            ("grant-1", "grant", 10, 0),
            ("c1", "reserve", -1, 1),
            ("c1", "commit", 0, 1),
            ("c2", "reserve", -1, 2),
            ("c2", "release", 1, 2),
            ("c3", "reserve", -2, 3),
            ("c3", "commit", 1, 3),
            ("c4", "reserve", -1, 4),
        )
    ),
    *(
        f"INSERT INTO accounts_calls_v1 (agent, call_id, at) VALUES ('bot', '{call_id}', {T0 + at})"
        for call_id, at in (("c1", 1), ("c3", 3), ("c4", 4))
    ),
    f"INSERT INTO accounts_open_v1 (agent, call_id, amount, expires) VALUES ('bot', 'c4', 1, {T0 + 4 + LEASE})",
)


@contextlib.contextmanager
def _connection(url: str) -> Iterator[Any]:
    if url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            yield conn
        return
    conn = sqlite3.connect(url, isolation_level=None)
    try:
        yield conn
    finally:
        conn.close()


def _write_schema_5(url: str) -> None:
    serial = (
        "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY" if url.startswith("postgresql") else "INTEGER PRIMARY KEY"
    )
    with _connection(url) as conn:
        conn.execute("CREATE TABLE accounts_schema (version INTEGER NOT NULL)")
        for version, steps in enumerate(MIGRATIONS[:5], start=1):
            for step in steps:
                conn.execute(step.replace("{serial}", serial))
            conn.execute(f"INSERT INTO accounts_schema (version) VALUES ({version})")
        for statement in _OLD_ROWS:
            conn.execute(statement)


def test_a_schema_5_ledger_migrates_with_balances_quotas_and_call_states_intact(database_url: str) -> None:
    _write_schema_5(database_url)
    ledger = Ledger(open_database(database_url))
    try:
        with ledger.database.transaction(write=False) as tx:
            assert tx.one("SELECT max(version) FROM accounts_schema") == (len(MIGRATIONS),)
            postgres = tx.postgres
        with _connection(database_url) as conn:
            gone = "SELECT to_regclass('accounts_calls_v1') IS NULL" if postgres else (
                "SELECT count(*) = 0 FROM sqlite_master WHERE name = 'accounts_calls_v1'"
            )  # fmt: skip
            assert bool(conn.execute(gone).fetchone()[0])
        assert ledger.agent("bot").balance == 7 == ledger.journal_sum("bot")
        usage = ledger.usage("bot", now=T0 + 10)
        assert usage.hour_used == 3 and usage.hour_resets_at == T0 + 1 + 3600  # c1, c3 and c4; c2 was released
        states = [(call["call_id"], call["charged"], call["state"]) for call in ledger.calls("bot")]
        assert states == [("c4", 0, "open"), ("c3", 1, "committed"), ("c2", 0, "released"), ("c1", 1, "committed")]
        with pytest.raises(AgentQuotaError):  # the counters were counted afresh from the journal: 3 of 3 used
            ledger.reserve("bot", "c5", one_credit, tool="web_search", now=T0 + 10, lease=LEASE)
        assert ledger.settle("bot", "c4", charged=1, now=T0 + 10) == 7  # the open call commits whole
        assert ledger.settle("bot", "c1", charged=1, now=T0 + 10) == 7  # an old (commit, 0): found committed
        held = ledger.reserve("bot", "c5", one_credit, tool="web_search", now=T0 + 3602, lease=LEASE)
        assert held.balance == 6 and held.usage.hour_used == 3  # c1 left the hour
    finally:
        ledger.close()
