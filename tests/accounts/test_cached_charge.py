"""A metered call answered with nothing upstream to pay for (a search the in-process cache answers) is charged after
it answered, its reserve and settle in one ledger transaction (tools/accounting.py Metering._at_once): charged the
same, refused the same, replayed the same, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from webreach.accounts.database import Database, Transaction
from webreach.config import Settings
from webreach.errors import AccountingUnavailableError
from webreach.gateway import Gateway
from webreach.models import SearchRequest
from webreach.testing import FakeWeb
from webreach.tools import Toolbox, account_policies

from .test_ledger_statements import Recorded

pytestmark = pytest.mark.network
SEARCH = {"query": "cached charge", "engine": "mojeek", "limit": 3}


class Counted:
    """A real database that counts its write transactions, and fails the next `failing` of them as an unusable
    database does (AccountingUnavailableError, nothing written)."""

    def __init__(self, database: Database) -> None:
        self.database, self.lock_row, self.worker = database, database.lock_row, database.worker
        self.writes = self.failing = 0

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True, patient: bool = True) -> Iterator[Transaction]:
        self.writes += write
        if write and self.failing:
            self.failing -= 1
            raise AccountingUnavailableError("the ledger is restarting")
        with self.database.transaction(write=write, patient=patient) as tx:
            yield tx

    def close(self) -> None:
        self.database.close()


@pytest.fixture
async def gateway(web: FakeWeb, database_url: str) -> AsyncIterator[Gateway]:
    settings = Settings(
        fake_web=web.url, state={"backend": "memory"}, accounts={"enabled": True, "database": database_url}
    )
    async with Gateway.from_settings(settings) as opened:
        yield opened


async def search(gateway: Gateway, arguments: dict[str, Any], **context: Any) -> dict[str, Any]:
    tools = Toolbox.over(gateway, policies=account_policies(gateway.accounts))
    data = (await tools.call("web_search", arguments, output="json", caller="bot", **context)).data
    assert data is not None
    return data


async def test_a_cached_search_is_charged_in_one_ledger_transaction(gateway: Gateway, web: FakeWeb) -> None:
    gateway.accounts.add("bot", credits=100)
    ledger = gateway.accounts.ledger
    counted = Counted(ledger.database)
    ledger.database = counted  # type: ignore[assignment]  # before the first call builds the group commit on it
    web.clear_requests()
    answers = []
    for arguments in (SEARCH, SEARCH, {**SEARCH, "query": "another one"}):
        before = counted.writes
        answers.append(await search(gateway, arguments))
        answers[-1]["writes"] = counted.writes - before
    assert [answer["writes"] for answer in answers] == [2, 1, 2]  # asked: reserve, settle; cached: one
    assert [answer["cost"]["charged"] for answer in answers] == [2, 2, 2]
    assert [answer["cost"]["balance"] for answer in answers] == [98, 96, 94]
    assert [answer["cost"]["calls_left"] for answer in answers] == [9, 8, 7]
    assert answers[0]["results"] == answers[1]["results"] and web.count("mojeek") == 2
    assert ledger.agent("bot").balance == 94 == ledger.journal_sum("bot")
    assert [call["state"] for call in ledger.calls("bot")] == ["committed"] * 3


async def test_a_cached_search_charged_whole_opens_no_hold(gateway: Gateway) -> None:
    """Its reservation and whole commit in one transaction leave what writing no open hold leaves (ledger7): the
    open table is not written (before: a hold inserted, then claimed), and the call reads as committed."""
    gateway.accounts.add("bot", credits=100)
    ledger = gateway.accounts.ledger
    recorded = Recorded(ledger.database)
    ledger.database = recorded  # type: ignore[assignment]  # before the first call builds the group commit on it
    await search(gateway, SEARCH)  # asked: its hold opened, then committed
    assert [sql for sql in recorded.sent if "INSERT INTO accounts_open_v1" in sql]
    recorded.sent.clear()
    cost = (await search(gateway, SEARCH))["cost"]
    assert (cost["charged"], cost["balance"]) == (2, 96)
    opened = ("INSERT INTO accounts_open_v1", "DELETE FROM accounts_open_v1")
    assert recorded.sent and not [sql for sql in recorded.sent if any(write in sql for write in opened)]
    assert ledger.agent("bot").balance == 96 == ledger.journal_sum("bot")
    assert [call["state"] for call in ledger.calls("bot")] == ["committed"] * 2
    assert ledger.usage("bot", now=gateway.accounts.clock.now()).hour_used == 2


async def test_a_cached_search_whose_charge_fails_is_withheld_uncharged_and_its_retry_served(
    gateway: Gateway,
) -> None:
    gateway.accounts.add("bot", credits=100)
    ledger = gateway.accounts.ledger
    counted = Counted(ledger.database)
    ledger.database = counted  # type: ignore[assignment]
    await search(gateway, SEARCH)  # the cache warm: 98
    counted.failing = 1
    withheld = await search(gateway, SEARCH)
    assert withheld["code"] == "accounting_unavailable" and withheld["retry_after"] > 0
    assert "withheld" in withheld["message"] and ledger.agent("bot").balance == 98
    assert (await search(gateway, SEARCH))["cost"]["balance"] == 96  # charged once, at once
    assert ledger.agent("bot").balance == 96 == ledger.journal_sum("bot")


async def test_a_cached_search_refused_at_its_charge_costs_nothing(gateway: Gateway, web: FakeWeb) -> None:
    gateway.accounts.add("bot", credits=3)
    assert (await search(gateway, SEARCH))["cost"]["balance"] == 1
    refused = await search(gateway, SEARCH)  # cached, and one credit short: the answer is dropped
    assert refused["code"] == "insufficient_credits" and (refused["balance"], refused["price"]) == (1, 2)
    gateway.accounts.grant("bot", 10)
    gateway.accounts.set_limits("bot", per_hour=2)
    assert (await search(gateway, SEARCH))["cost"]["calls_left"] == 0
    over = await search(gateway, SEARCH)
    assert over["code"] == "agent_quota_exhausted"
    ledger = gateway.accounts.ledger
    assert ledger.agent("bot").balance == 9 == ledger.journal_sum("bot")
    assert web.count("mojeek") >= 1 and ledger.usage("bot", now=gateway.accounts.clock.now()).hour_used == 2


async def test_a_keyed_cached_search_is_stored_with_its_charge_and_replayed(gateway: Gateway) -> None:
    gateway.accounts.add("bot", credits=100)
    await search(gateway, SEARCH)  # the cache warm
    first = await search(gateway, SEARCH, idempotency_key="k-cached")
    again = await search(gateway, SEARCH, idempotency_key="k-cached")
    assert first["cost"]["charged"] == 2 and first["cost"]["balance"] == 96
    assert again["cost"] == {**again["cost"], "charged": 0, "replayed": True, "original_charged": 2, "balance": 96}
    assert gateway.accounts.ledger.agent("bot").balance == 96 == gateway.accounts.ledger.journal_sum("bot")


async def test_only_an_answer_the_cache_has_is_taken_at_once(gateway: Gateway) -> None:
    request = SearchRequest.create(query="at once or not", limit=3)
    assert not gateway.answers_at_once(request, engine="mojeek", engines=None)
    await gateway.search(request, engine="mojeek")
    assert gateway.answers_at_once(request, engine="mojeek", engines=None)
    assert gateway.answers_at_once(request, engine="auto", engines=["mojeek"])
    assert not gateway.answers_at_once(request, engine="multi", engines=["mojeek"])  # multi always asks
    assert not gateway.answers_at_once(request, engine="no-such-engine", engines=None)  # search() refuses it
    other = SearchRequest.create(query="another query", limit=3)
    assert not gateway.answers_at_once(other, engine="mojeek", engines=None)
