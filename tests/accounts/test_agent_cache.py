"""Agents remembered for `[accounts] key_cache_seconds` (accounts/agent_cache.py, issue 38 Deliver 4): a key seen
lately is answered without a ledger read, a change made here is honoured at once, and one made by another replica
(another Accounts on the same database) within the cache time."""

from __future__ import annotations

from pathlib import Path

import pytest

from webreach.accounts.service import Accounts
from webreach.config import AccountsSettings
from webreach.errors import AgentAuthError
from webreach.testing.clock import FakeClock


def replica(database: Path, clock: FakeClock, *, cache: float = 2.0) -> Accounts:
    return Accounts(AccountsSettings(enabled=True, database=str(database), key_cache_seconds=cache), clock)


def test_a_key_rotated_on_another_replica_is_refused_once_the_cache_time_passes(tmp_path: Path) -> None:
    clock = FakeClock(1_000_000.0)
    here, there = replica(tmp_path / "ledger.sqlite3", clock), replica(tmp_path / "ledger.sqlite3", clock)
    try:
        _, key = here.add("crawler", credits=10)
        assert here.known_caller(key) is None  # never seen: the ledger is read
        assert here.authenticate(key) == "crawler"
        assert here.known_caller(key) == "crawler"  # seen: no read
        there.rotate_key("crawler")
        clock.advance(1.0)
        assert here.authenticate(key) == "crawler"  # within key_cache_seconds: still remembered
        clock.advance(1.5)
        assert here.known_caller(key) is None
        with pytest.raises(AgentAuthError):
            here.authenticate(key)
    finally:
        here.close()
        there.close()


def test_changes_made_here_are_honoured_at_once(tmp_path: Path) -> None:
    clock = FakeClock(1_000_000.0)
    accounts = replica(tmp_path / "ledger.sqlite3", clock)
    try:
        _, key = accounts.add("crawler", credits=10)
        assert accounts.authenticate(key) == "crawler"
        accounts.set_options("crawler", {"profile": {"tools": ["web_search"]}})
        assert accounts.profile("crawler") == {"tools": ["web_search"]}
        assert accounts.known_profile("crawler") == {"tools": ["web_search"]}
        accounts.set_disabled("crawler")
        assert accounts.known_caller(key) is None
        with pytest.raises(AgentAuthError, match="disabled"):
            accounts.authenticate(key)
        accounts.set_disabled("crawler", False)
        new_key = accounts.rotate_key("crawler")
        with pytest.raises(AgentAuthError):
            accounts.authenticate(key)
        assert accounts.authenticate(new_key) == "crawler"
    finally:
        accounts.close()


def test_a_zero_cache_time_reads_the_ledger_every_time(tmp_path: Path) -> None:
    clock = FakeClock(1_000_000.0)
    here = replica(tmp_path / "ledger.sqlite3", clock, cache=0)
    there = replica(tmp_path / "ledger.sqlite3", clock)
    try:
        _, key = here.add("crawler", credits=10)
        assert here.authenticate(key) == "crawler"
        assert here.known_caller(key) is None and here.known_profile("crawler") is None
        there.set_disabled("crawler")
        with pytest.raises(AgentAuthError, match="disabled"):
            here.authenticate(key)
    finally:
        here.close()
        there.close()
