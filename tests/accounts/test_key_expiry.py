"""An agent key's optional expiry and an agent's deletion (issue 41, deliver 6: the console's key lifecycle): an expired
key is refused with a typed error that says when and what to do, remembered or not; a new key starts without an
expiry unless given one; a deleted agent's key stops and its name is free again with a fresh ledger; a delete waits
for the agent's running calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from webreach.accounts.service import Accounts
from webreach.config import AccountsSettings
from webreach.errors import AgentAuthError, InvalidInputError
from webreach.testing.clock import FakeClock

DAY = 86400.0


def opened(database: Path, clock: FakeClock) -> Accounts:
    return Accounts(AccountsSettings(enabled=True, database=str(database), key_cache_seconds=60.0), clock)


def test_an_expired_key_is_refused_even_when_remembered_and_a_new_key_has_no_expiry(tmp_path: Path) -> None:
    clock = FakeClock(1_000_000.0)
    accounts = opened(tmp_path / "ledger.sqlite3", clock)
    try:
        agent, key = accounts.add("crawler", credits=10, key_days=2)
        assert agent.key_expires == 1_000_000.0 + 2 * DAY
        assert agent.to_json()["key_expires"] == "1970-01-14T13:46:40Z"
        assert accounts.authenticate(key) == "crawler" and accounts.known_caller(key) == "crawler"
        clock.advance(2 * DAY)
        assert accounts.known_caller(key) is None  # remembered, but expired: never answered from memory
        with pytest.raises(AgentAuthError) as refused:
            accounts.authenticate(key)
        assert refused.value.code == "agent_auth_failed"
        assert refused.value.message == "the key of agent 'crawler' expired at 1970-01-14T13:46:40Z"
        assert refused.value.hint == "Ask an operator for a new key."
        fresh = accounts.rotate_key("crawler")
        assert accounts.agent("crawler").key_expires is None and accounts.authenticate(fresh) == "crawler"
        accounts.rotate_key("crawler", key_days=1)
        assert accounts.agent("crawler").key_expires == clock.now() + DAY
        for days in (0, 3651):
            with pytest.raises(InvalidInputError, match="key validity in days"):
                accounts.add(f"bot-{days}", key_days=days)
    finally:
        accounts.close()


def test_a_deleted_agent_is_gone_with_its_ledger_and_waits_for_its_running_calls(tmp_path: Path) -> None:
    clock = FakeClock(1_000_000.0)
    accounts = opened(tmp_path / "ledger.sqlite3", clock)
    try:
        _, key = accounts.add("crawler", credits=10)
        assert accounts.authenticate(key) == "crawler"
        held = accounts.reserve("crawler", "web_search", lambda agent: 3)
        with pytest.raises(InvalidInputError, match="1 call\\(s\\) running"):
            accounts.delete("crawler")
        accounts.settle(held, charged=3)
        assert accounts.delete("crawler") == 7
        assert accounts.known_caller(key) is None
        with pytest.raises(AgentAuthError):
            accounts.authenticate(key)
        with pytest.raises(InvalidInputError, match="no agent 'crawler'"):
            accounts.agent("crawler")
        again, _ = accounts.add("crawler", credits=5)  # the name is free, with a ledger of its own
        assert again.balance == 5 and accounts.ledger.journal_sum("crawler") == 5
        assert [entry["action"] for entry in accounts.audit(name="crawler")][:2] == ["add", "delete"]
    finally:
        accounts.close()
