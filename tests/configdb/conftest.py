"""The console settings' fixtures: each test on a SQLite file and on PostgreSQL (the ledger tests' cluster)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from accounts.postgres import cluster, fresh_database
from webreach.testing import FakeWeb


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[str]:
    with cluster() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "shared" / "accounts.sqlite3")
    return fresh_database(str(request.getfixturevalue("postgres_cluster")))


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server
