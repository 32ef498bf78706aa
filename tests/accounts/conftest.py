"""Ledger fixtures: a PostgreSQL cluster per test session (postgres.py) and a fresh database URL per test, for
SQLite (a file in the test's directory) and PostgreSQL alike; the fake web, and a Gateway metering over that ledger
(a module needing other settings defines its own `gateway`)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from webreach.config import Settings
from webreach.gateway import Gateway
from webreach.testing import FakeWeb
from webreach.testing.postgres import Cluster, PostgresUnavailable, restartable_cluster

from .postgres import cluster, fresh_database


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[str]:
    with cluster() as url:
        yield url


@pytest.fixture
def postgres_url(postgres_cluster: str) -> str:
    return fresh_database(postgres_cluster)


@pytest.fixture
def own_cluster() -> Iterator[Cluster]:
    """A cluster of the test's own, for a test that stops it mid-test (the session's is shared)."""
    try:
        with restartable_cluster(max_connections=50) as cluster:
            yield cluster
    except PostgresUnavailable as missing:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{missing} (scripts/setup-tests installs it)")


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each ledger test runs on both databases."""
    if request.param == "sqlite":
        return str(tmp_path / "accounts.sqlite3")
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


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
