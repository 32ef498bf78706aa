"""Shared test fixtures: the real captures in ../shared/data, a clean environment."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

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
