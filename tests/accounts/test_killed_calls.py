"""Metered calls with an idempotency key cut short around their charge (SQLite and PostgreSQL alike):
- the process dies right after the charge commits (SIGKILL, or a commit whose acknowledgement is lost): the agent's
  retry, in another process once the key's lease passed, gets the answer it paid for and is not charged again;
- the charge cannot be recorded (the ledger fails while the call settles): the answer is withheld, and the retry at
  once finds the quota slot the failed attempt held free again, not taken until the hold's lease passes.
The fleet fault run (tests/state) meets these windows by chance; here they are met every time."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import Executor

import pytest

from webreach.accounts.database import Database, Transaction, open_database
from webreach.accounts.service import Accounts
from webreach.config import Settings
from webreach.errors import AccountingUnavailableError
from webreach.gateway import Gateway
from webreach.testing import FakeWeb
from webreach.testing.clock import FakeClock
from webreach.tools import Toolbox, account_policies
from webreach.tools.backend import ToolResult
from webreach.tools.pipeline import PreparedCall, Proceed

pytestmark = pytest.mark.network
SEARCH = {"query": "python asyncio", "engine": "mojeek", "limit": 3}


class Died(BaseException):
    """The process is gone: nothing after this point runs."""


class DiesAfterTheCharge:
    """A ledger database whose process dies at the first transaction after a call's charge was committed."""

    def __init__(self, database: Database) -> None:
        self.inner = database
        self.lock_row = database.lock_row
        self.worker: Executor | None = database.worker
        self.died = False

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[Transaction]:
        with self.inner.transaction(write=False) as tx:
            charged = tx.one("SELECT count(*) FROM accounts_journal_v1 WHERE kind = 'commit'")
        if charged is not None and int(charged[0]):
            self.died = True
            raise Died
        with self.inner.transaction(write=write) as tx:
            yield tx

    def close(self) -> None:
        self.inner.close()


class FailsTheSettle:
    """A ledger database that fails `failures` transactions once a call has reserved (its settle, and the retry
    of it), then works again."""

    def __init__(self, database: Database, failures: int) -> None:
        self.inner = database
        self.lock_row = database.lock_row
        self.worker: Executor | None = database.worker
        self.failures = failures

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[Transaction]:
        with self.inner.transaction(write=False) as tx:
            reserved = tx.one("SELECT count(*) FROM accounts_journal_v1 WHERE kind = 'reserve'")
        if self.failures and reserved is not None and int(reserved[0]):
            self.failures -= 1
            raise AccountingUnavailableError("the ledger's database is restarting")
        with self.inner.transaction(write=write) as tx:
            yield tx

    def close(self) -> None:
        self.inner.close()


@pytest.fixture
async def gateway(web: FakeWeb, database_url: str) -> AsyncIterator[Gateway]:
    settings = Settings(
        fake_web=web.url,
        state={"backend": "memory"},
        read={"allow_cidrs": ["127.0.0.1/32"]},
        accounts={"enabled": True, "database": database_url},
    )
    async with Gateway.from_settings(settings) as opened:
        yield opened


async def test_a_call_killed_after_its_charge_is_replayed_to_the_retry_not_charged_again(
    gateway: Gateway, web: FakeWeb, database_url: str
) -> None:
    gateway.accounts.add("bot", credits=100)
    web.clear_requests()
    clock, settings = FakeClock(time.time()), gateway.settings.accounts
    dying = DiesAfterTheCharge(open_database(database_url))
    first = Accounts(settings, clock, database=dying)
    try:
        tools = Toolbox.over(gateway, policies=account_policies(first))
        with contextlib.suppress(Died):  # whatever it answered never left the process
            await tools.call("web_search", SEARCH, output="json", caller="bot", idempotency_key="k-1")
    finally:
        first.close()
    assert gateway.accounts.ledger.agent("bot").balance == 98  # the charge committed before the process died

    clock.advance(settings.lease_seconds + 1)  # the dead call's key is past its lease: the retry is not told to wait
    second = Accounts(settings, clock)
    try:
        tools = Toolbox.over(gateway, policies=account_policies(second))
        retried = await tools.call("web_search", SEARCH, output="json", caller="bot", idempotency_key="k-1")
    finally:
        second.close()
    data = retried.data
    assert data is not None and "code" not in data, retried.text
    assert data["cost"] == {**data["cost"], "charged": 0, "replayed": True, "original_charged": 2, "balance": 98}
    assert gateway.accounts.ledger.agent("bot").balance == 98 == gateway.accounts.ledger.journal_sum("bot")
    assert web.count("mojeek") == 1  # the search ran once


async def test_a_call_whose_charge_failed_gives_its_quota_slot_back_to_the_retry_at_once(
    gateway: Gateway, database_url: str
) -> None:
    gateway.accounts.add("bot", credits=100, per_hour=1)
    clock, settings = FakeClock(time.time()), gateway.settings.accounts
    accounts = Accounts(settings, clock, database=FailsTheSettle(open_database(database_url), failures=2))
    try:
        tools = Toolbox.over(gateway, policies=account_policies(accounts))
        failed = await tools.call("web_search", SEARCH, output="json", caller="bot", idempotency_key="k-1")
        assert failed.data is not None and failed.data["code"] == "accounting_unavailable", failed.text
        # the ledger is back, no time has passed: the failed attempt's hold must not take the one slot of the hour
        retried = await tools.call("web_search", SEARCH, output="json", caller="bot", idempotency_key="k-1")
    finally:
        accounts.close()
    data = retried.data
    assert data is not None and "code" not in data, retried.text
    assert data["cost"] == {**data["cost"], "charged": 2, "balance": 98, "calls_left": 0}
    assert gateway.accounts.ledger.agent("bot").balance == 98 == gateway.accounts.ledger.journal_sum("bot")
    assert gateway.accounts.ledger.usage("bot", now=clock.now()).hour_used == 1


class PastItsLease:
    """A call policy inside the metering: the call runs past its lease, and lease recovery releases its hold
    before it settles (a call stuck behind a ledger that was down)."""

    def __init__(self, accounts: Accounts, clock: FakeClock) -> None:
        self.accounts, self.clock = accounts, clock

    async def __call__(self, call: PreparedCall, proceed: Proceed) -> ToolResult:
        self.clock.advance(self.accounts.settings.lease_seconds + 1)
        assert self.accounts.ledger.recover("bot", now=self.clock.now()) == 2  # its hold, given back
        return await proceed()


@pytest.mark.parametrize("key", [None, "k-1"])
async def test_a_call_whose_hold_was_recovered_while_it_ran_is_charged_not_served_free(
    gateway: Gateway, database_url: str, key: str | None
) -> None:
    gateway.accounts.add("bot", credits=100, per_hour=1)
    clock, settings = FakeClock(time.time()), gateway.settings.accounts
    accounts = Accounts(settings, clock, database=open_database(database_url))
    try:
        tools = Toolbox.over(gateway, policies=[*account_policies(accounts), PastItsLease(accounts, clock)])
        served = await tools.call("web_search", SEARCH, output="json", caller="bot", idempotency_key=key)
        replayed = key and await tools.call("web_search", SEARCH, output="json", caller="bot", idempotency_key=key)
    finally:
        accounts.close()
    data = served.data
    assert data is not None and "code" not in data, served.text
    assert data["cost"] == {**data["cost"], "charged": 2, "balance": 98, "calls_left": 0}
    assert gateway.accounts.ledger.agent("bot").balance == 98 == gateway.accounts.ledger.journal_sum("bot")
    assert gateway.accounts.ledger.usage("bot", now=clock.now()).hour_used == 1  # one call counted, not two
    if replayed:  # the answer stored for the key is the charged one
        assert replayed.data is not None and replayed.data["cost"]["original_charged"] == 2, replayed.text
