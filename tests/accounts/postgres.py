"""The PostgreSQL cluster of the ledger tests: WEBREACH_TEST_POSTGRES_URL when set, else a throwaway cluster
(webreach.testing.postgres). CI must run these tests: without PostgreSQL they fail there and skip elsewhere."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

from webreach.testing.postgres import PostgresUnavailable, fresh_database, throwaway_cluster

__all__ = ["cluster", "fresh_database"]

# read at import: the suite's autouse fixture clears WEBREACH_* from the environment of every test
GIVEN_URL = os.environ.get("WEBREACH_TEST_POSTGRES_URL")


@contextlib.contextmanager
def cluster() -> Iterator[str]:
    if GIVEN_URL:
        yield GIVEN_URL
        return
    try:
        started = throwaway_cluster()
        url = started.__enter__()
    except PostgresUnavailable as missing:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{missing} (scripts/setup-tests installs it; or set WEBREACH_TEST_POSTGRES_URL)")
    try:
        yield url
    finally:
        started.__exit__(None, None, None)
