"""One reading of a ledger URL as a SQLite file (webreach/ledger_url.py): the ledger opens, the console's settings
look for and the CLI's answer memo stamps the same file, `~` included."""

from __future__ import annotations

from pathlib import Path

import pytest

from webreach import answer_memo
from webreach.accounts.database import database_exists, open_database
from webreach.config import Settings
from webreach.ledger_url import sqlite_path


def sqlite_settings() -> Settings:
    """Settings with the SQLite cache and state, the CLI's (built in the test: the environment is the test's)."""
    return Settings.model_validate({"cache": {"backend": "sqlite"}, "state": {"backend": "sqlite"}})


@pytest.mark.parametrize(
    ("url", "name"),
    [("~/ledgers/a.sqlite3", "a"), ("sqlite://~/ledgers/b.sqlite3", "b"), ("sqlite://{home}/c.sqlite3", "c")],
    ids=["tilde-path", "tilde-url", "absolute-url"],
)
def test_the_ledger_the_console_and_the_memo_read_one_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, name: str
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    url = url.format(home=home)
    assert not database_exists(url)
    database = open_database(url)
    try:
        (created,) = [path for path in home.rglob("*.sqlite3")]
        assert created.name == f"{name}.sqlite3" and sqlite_path(url) == created
        assert database_exists(url)
        found = answer_memo.sources(sqlite_settings(), url)
        assert found is not None and str(created) in found[0]  # the memo stamps the file the ledger opened
    finally:
        database.close()
    assert not (tmp_path / "~").exists() and not Path("~").exists()  # no directory literally named ~


def test_a_postgresql_url_names_no_file() -> None:
    for url in ("postgresql://db/x", "postgres://user@db:5432/x"):
        assert sqlite_path(url) is None and database_exists(url)
        assert answer_memo.sources(sqlite_settings(), url) is None  # no memo over a database elsewhere
