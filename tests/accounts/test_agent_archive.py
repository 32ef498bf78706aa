"""Deleting an agent keeps its money history (on SQLite and PostgreSQL alike): its journal rows move to the archive in
the delete's own transaction, a refused delete moves nothing, a name used again starts a fresh journal with its
earlier lives kept apart, and a database made before the archive existed (schema 5) gains it when opened."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from webreach.accounts.archive import archived_journal
from webreach.accounts.database import open_database
from webreach.accounts.ledger import Ledger
from webreach.accounts.schema import MIGRATIONS
from webreach.errors import InvalidInputError

T0 = 1_800_000_000.0
LEASE = 120.0


@pytest.fixture
def ledger(database_url: str) -> Iterator[Ledger]:
    opened = Ledger(open_database(database_url))
    yield opened
    opened.close()


def spend(ledger: Ledger, name: str, call: str, credits: int, *, at: float) -> None:
    ledger.reserve(name, call, lambda agent: credits, tool="web_search", now=at, lease=LEASE)
    ledger.settle(name, call, charged=credits, now=at)


def test_a_deleted_agents_journal_is_archived_and_its_name_starts_afresh(ledger: Ledger) -> None:
    ledger.add_agent("bot", "hash-bot", credits=10, per_hour=None, per_day=None, now=T0)
    spend(ledger, "bot", "c1", 3, at=T0 + 1)
    ledger.grant("bot", 5, now=T0 + 2, note="top-up")
    written = [(row["id"], row["kind"], row["amount"]) for row in reversed(ledger.journal("bot"))]
    assert ledger.delete_agent("bot", now=T0 + 3) == 12

    archived = archived_journal(ledger.database, "bot")
    assert [(row["id"], row["kind"], row["amount"]) for row in archived] == written
    assert sum(row["amount"] for row in archived) == 12  # what it was granted and charged: the balance it had
    assert {row["deleted"] for row in archived} == {T0 + 3}
    assert [row["note"] for row in archived if row["kind"] == "grant"][-1] == "top-up"
    assert [row["tool"] for row in archived if row["kind"] == "reserve"] == ["web_search"]

    ledger.add_agent("bot", "hash-bot-2", credits=4, per_hour=None, per_day=None, now=T0 + 4)
    assert ledger.journal_sum("bot") == 4  # a fresh journal: the archive is not the ledger
    ledger.delete_agent("bot", now=T0 + 5)
    lives = archived_journal(ledger.database, "bot")
    assert [row["deleted"] for row in lives] == [T0 + 5] + [T0 + 3] * len(written)  # newest delete first


def test_a_refused_delete_archives_nothing(ledger: Ledger) -> None:
    ledger.add_agent("bot", "hash-bot", credits=10, per_hour=None, per_day=None, now=T0)
    ledger.reserve("bot", "running", lambda agent: 2, tool="web_fetch", now=T0, lease=LEASE)
    with pytest.raises(InvalidInputError, match="running"):
        ledger.delete_agent("bot", now=T0 + 1)
    assert archived_journal(ledger.database, "bot") == []
    assert ledger.journal_sum("bot") == 8


def test_a_schema_5_database_gains_the_archive_when_opened(database_url: str) -> None:
    before = Ledger(open_database(database_url))
    before.add_agent("old", "hash-old", credits=7, per_hour=None, per_day=None, now=T0)
    with before.database.transaction() as tx:  # as a database written before schema 6 is
        tx.run("DROP TABLE accounts_journal_archive_v1")
        tx.run("DELETE FROM accounts_schema WHERE version >= 6")
    before.close()
    after = Ledger(open_database(database_url))
    try:
        with after.database.transaction(write=False) as tx:
            assert tx.one("SELECT max(version) FROM accounts_schema") == (len(MIGRATIONS),)
        assert after.delete_agent("old", now=T0 + 1) == 7
        assert [(row["kind"], row["amount"]) for row in archived_journal(after.database, "old")] == [("grant", 7)]
    finally:
        after.close()
