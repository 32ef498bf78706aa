"""The markers select what they say (tests/conftest.py): the fast loop `-m "not slow"` leaves out every PostgreSQL,
hypothesis, browser and server-process test, and `-m postgres` picks exactly the PostgreSQL halves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs pytest's collection in a subprocess

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = [
    "tests/accounts/test_ledger.py",  # database_url: sqlite and postgresql halves
    "tests/accounts/test_servers.py",  # a "backend" parameter, postgres_url, server processes
    "tests/test_retry_after.py",  # plain tests and one hypothesis property
    "tests/read/test_browser_reader.py",  # the chromium fixture
    "tests/frontends/test_http_server.py",  # the per-module `webreach serve` process (the server fixture)
]


def _selected(expression: str, paths: tuple[str, ...] = tuple(SAMPLE)) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", expression, *paths],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_the_fast_loop_leaves_out_postgres_fuzz_browser_and_server_processes() -> None:
    fast = _selected("not slow")
    assert any("[sqlite]" in test for test in fast)  # the SQLite halves stay in the inner loop
    assert any(test.startswith("tests/test_retry_after.py::test_delta_seconds") for test in fast)
    assert not [test for test in fast if "postgresql" in test]
    assert not [test for test in fast if "test_any_value_is_seconds_within_a_day_or_not_given" in test]  # hypothesis
    assert not [test for test in fast if "test_browser_reader" in test or "test_servers" in test]
    assert not [test for test in fast if "test_host_rebinding_is_refused" in test]  # the server fixture


def test_postgres_picks_exactly_the_postgresql_halves() -> None:
    postgres = _selected("postgres")
    assert postgres
    assert all("postgresql" in test or "postgres" in test.split("::")[1] for test in postgres), postgres
    assert not [test for test in postgres if "[sqlite]" in test]
    assert set(postgres) <= set(_selected("slow"))


def test_the_fast_loop_touches_every_package_and_every_test_folder() -> None:
    fast = _selected("not slow", ("tests",))
    folders = {test.split("/")[1] for test in fast if test.count("/") >= 2}
    packages = {path.name for path in (ROOT / "src" / "webreach").iterdir() if (path / "__init__.py").is_file()}
    test_folders = {path.parent.name for path in (ROOT / "tests").glob("*/test_*.py")}
    assert packages <= test_folders, sorted(packages - test_folders)  # each subpackage has its tests/<name>/
    assert not test_folders - folders, sorted(test_folders - folders)  # ... and at least one of them is fast
