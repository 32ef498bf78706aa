"""Shared test fixtures (the real captures in ../shared/data, a clean environment) and the secret-leak scan.

Markers (listed in pyproject.toml) are applied here by what a test uses (FIXTURE_MARKERS, a "postgresql"
parameter such as `database_url`'s, hypothesis), and every fuzz, browser, postgres or redis test is slow too, so
the inner loop `pytest -m "not slow"` leaves them all out; modules slow by nature carry their own `pytestmark`.

The scan reads every output and log line the suite produces (each test's captured stdout, stderr and log
records at DEBUG, and its failure report) for the API keys the suite configures (tests/secret_keys.py), and
fails the run when one appears. Tests that run subprocesses echo what those printed, so it is scanned too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from secret_keys import find_secrets
from webreach.testing.redis import RedisServer, RedisUnavailable, restartable_redis

# PYTHONDONTWRITEBYTECODE (set in these machines' shells) makes pytest rewrite every test module's asserts and
# Python compile every module again on each run: 9 s of the fast loop's 17 s collection (measured 2026-11-28).
# The suite keeps its bytecode caches (__pycache__, git-ignored) whatever the shell says.
sys.dont_write_bytecode = False

LEAKS = pytest.StashKey[list[str]]()

# a fixture -> the marker every test using it gets
FIXTURE_MARKERS = {
    "postgres_cluster": "postgres",
    "postgres_url": "postgres",
    "redis_server": "redis",
    "redis_url": "redis",
    "chromium": "browser",  # tests/read/test_browser_reader.py
    "browser": "browser",  # tests/frontends/test_console_browser.py
    "server": "slow",  # tests/frontends: a `webreach serve` process per module
}
# markers that make a test slow as well
SLOW_KINDS = ("fuzz", "browser", "postgres", "redis")

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A throwaway redis-server for the session (webreach.testing.redis); skips without one, except in CI."""
    try:
        started = restartable_redis()
        server = started.__enter__()
    except RedisUnavailable as missing:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{missing} (scripts/setup-tests installs it)")
    try:
        yield server
    finally:
        started.__exit__(None, None, None)


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session's Redis, emptied for this test (FLUSHALL)."""
    import redis

    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    return redis_server.url


@pytest.fixture
def shared_data() -> Path:
    """The real captured pages and API responses; skips where ../shared/data is absent (CI always has it)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real captures not found at {SHARED_DATA} (CI clones with ../shared beside the repo)")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No WEBREACH_* setting or proxy from the developer's shell leaks into a test."""
    for name in list(os.environ):
        if name.startswith("WEBREACH_") or name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
    yield


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the developer's real state or cache files."""
    base = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_DATA_HOME", str(base / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(base / "cache"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for marker in _markers_by_use(item):
            item.add_marker(marker)
        if any(item.get_closest_marker(kind) for kind in SLOW_KINDS) and not item.get_closest_marker("slow"):
            item.add_marker("slow")


def _markers_by_use(item: pytest.Item) -> set[str]:
    fixtures = set(getattr(item, "fixturenames", ()))
    found = {marker for fixture, marker in FIXTURE_MARKERS.items() if fixture in fixtures}
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "postgresql" in callspec.params.values():  # database_url, backend: the choice
        found.add("postgres")
    if callspec is not None and "redis" in callspec.params.values():  # a backend parameter naming Redis
        found.add("redis")
    if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
        found.add("fuzz")
    return found


def pytest_configure(config: pytest.Config) -> None:
    config.stash[LEAKS] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report: pytest.TestReport = yield
    texts = [content for _, content in report.sections]
    if report.failed:
        texts.append(report.longreprtext)
    for text in texts:
        for secret in find_secrets(text):
            item.config.stash[LEAKS].append(f"{report.nodeid} ({report.when}): a key ending ...{secret[-6:]}")
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    leaks = session.config.stash[LEAKS]
    if leaks:
        print("\nAPI keys leaked into test output or logs:\n  " + "\n  ".join(leaks))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
