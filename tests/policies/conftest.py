"""Fixtures for policy tests: a fake clock and a plain request."""

from __future__ import annotations

import pytest

from webreach.models import SearchRequest
from webreach.testing.clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def search_request() -> SearchRequest:
    return SearchRequest(query="rust async")
