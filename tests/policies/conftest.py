"""Fixtures for policy tests: a fake clock and a plain request."""

from __future__ import annotations

from pathlib import Path

import pytest

from webreach.models import SearchRequest
from webreach.testing.clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def search_request() -> SearchRequest:
    return SearchRequest(query="rust async")


@pytest.fixture
def state_file(tmp_path: Path) -> Path:
    """Where one test's processes share their state (SQLite, created on first use)."""
    return tmp_path / "state.sqlite3"
