"""Fixtures the front-door tests share: a fake web and an HTTP server process, one of each per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from webreach.testing import FakeWeb

from .serving import ServerProcess, http_server


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def server(web: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with http_server(web, tmp_path_factory.mktemp("server")) as process:
        yield process
