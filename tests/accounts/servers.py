"""Helpers for the accounts server tests: server processes sharing one ledger, an operator's Accounts on it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from frontends.serving import ServerProcess, http_server
from webreach.accounts.service import Accounts
from webreach.clock import SystemClock
from webreach.config import AccountsSettings
from webreach.testing import FakeWeb


@contextlib.contextmanager
def operator(database: str) -> Iterator[Accounts]:
    """The operator's view of the ledger (what `webreach agents` uses)."""
    accounts = Accounts(AccountsSettings(enabled=True, database=database), SystemClock())
    try:
        yield accounts
    finally:
        accounts.close()


@contextlib.contextmanager
def servers(web: FakeWeb, home: Path, database: str, count: int, **env: str) -> Iterator[list[ServerProcess]]:
    """`count` server processes with accounts on, all on `database`."""
    settings = {
        "WEBREACH_ACCOUNTS__ENABLED": "true",
        "WEBREACH_ACCOUNTS__DATABASE": database,
        "WEBREACH_READ__ALLOW_CIDRS": '["127.0.0.1/32"]',  # the fake web's article page
        **env,
    }
    with contextlib.ExitStack() as stack:
        started = [
            stack.enter_context(http_server(web, _mkdir(home / f"server-{n}"), **settings)) for n in range(count)
        ]
        yield started


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
