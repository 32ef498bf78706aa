"""Metered calls with an idempotency key cut short around their charge (SQLite and PostgreSQL alike):
- the process dies right after the charge commits (SIGKILL, or a commit whose acknowledgement is lost): the agent's
  retry, in another process once the key's lease passed, gets the answer it paid for and is not charged again;
- the charge cannot be recorded (the ledger fails while the call settles): the answer is withheld, and the retry at
  once finds the quota slot the failed attempt held free again, not taken until the hold's lease passes.
The fleet fault run (tests/state) meets these windows by chance; here they are met every time."""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor

import pytest

from webreach.accounts.database import Database, Transaction, open_database
from webreach.accounts.service import Accounts
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


class Faulting:
    """A ledger database that raises `fault()` at the start of each transaction once the journal holds a row of
    kind `after` (`times`: that many transactions, then it works again; None: every one, a process that is gone)."""

    def __init__(
        self, database: Database, *, after: str, fault: Callable[[], BaseException], times: int | None = None
    ) -> None:
        self.inner, self.after, self.fault, self.times = database, after, fault, times
        self.lock_row = database.lock_row
        self.worker: Executor | None = database.worker

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True, patient: bool = True) -> Iterator[Transaction]:
        with self.inner.transaction(write=False) as tx:
            found = tx.one("SELECT count(*) FROM accounts_journal_v1 WHERE kind = ?", self.after)
        if found is not None and int(found[0]) and self.times != 0:
            self.times = None if self.times is None else self.times - 1
            raise self.fault()
        with self.inner.transaction(write=write, patient=patient) as tx:
            yield tx

    def close(self) -> None:
        self.inner.close()


async def test_a_call_killed_after_its_charge_is_replayed_to_the_retry_not_charged_again(
    gateway: Gateway, web: FakeWeb, database_url: str
) -> None:
    gateway.accounts.add("bot", credits=100)
    web.clear_requests()
    clock, settings = FakeClock(time.time()), gateway.settings.accounts
    dying = Faulting(
        open_database(database_url), after="commit", fault=Died
    )  # at its first transaction after the charge
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
    restarting = functools.partial(AccountingUnavailableError, "the ledger's database is restarting")
    failing_settles = Faulting(open_database(database_url), after="reserve", fault=restarting, times=2)  # and its retry
    accounts = Accounts(settings, clock, database=failing_settles)
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
