"""Shared test fixtures (the real captures in ../shared/data, a clean environment) and the secret-leak scan.

The scan reads every output and log line the suite produces (each test's captured stdout, stderr and log
records at DEBUG, and its failure report) for the API keys the suite configures (tests/secret_keys.py), and
fails the run when one appears. Tests that run subprocesses echo what those printed, so it is scanned too.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from secret_keys import find_secrets

LEAKS = pytest.StashKey[list[str]]()

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


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
