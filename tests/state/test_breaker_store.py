"""Breaker stores: memory, a real SQLite file shared between instances and processes, and failure tolerance."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import subprocess
import sys
import threading
from contextlib import closing
from pathlib import Path

import pytest

from webreach.config import Settings, StateSettings
from webreach.state.breaker_followers import BreakerFollowers, Follower
from webreach.state.breaker_store import (
    BreakerRecord,
    BreakerStore,
    MemoryBreakerStore,
    SqliteBreakerStore,
    open_breaker_store,
)
from webreach.state.sqlite_file import default_state_path

T0 = 1_700_000_000.0
CAPTCHA = BreakerRecord("duckduckgo", open_until=T0 + 3600, reason="captcha", openings=1, failures=0)
FLAKY = BreakerRecord("mojeek", failures=2)
BAD_KEY = BreakerRecord("tavily", open_until=T0 + 86400, reason="auth_failed", openings=1, fingerprint="0123abcd4567")


def exercise(store: BreakerStore) -> None:
    """What every backend must do: save, load one, load all, replace, delete one, clear."""
    assert store.load_all() == {}
    assert store.load("duckduckgo") is None
    store.save(CAPTCHA)
    store.save(FLAKY)
    store.save(BAD_KEY)
    assert store.load("duckduckgo") == CAPTCHA
    assert store.load("tavily") == BAD_KEY
    assert store.load_all() == {"duckduckgo": CAPTCHA, "mojeek": FLAKY, "tavily": BAD_KEY}
    closed = BreakerRecord("duckduckgo")
    store.save(closed)
    assert store.load("duckduckgo") == closed
    store.delete("tavily")
    store.delete("never-stored")
    assert store.load("tavily") is None
    assert store.load_all() == {"duckduckgo": closed, "mojeek": FLAKY}
    store.clear()
    assert store.load_all() == {}
    assert store.load("mojeek") is None


def test_memory_store_keeps_records_for_this_process() -> None:
    exercise(MemoryBreakerStore())


def test_sqlite_store_does_what_the_memory_store_does(tmp_path: Path) -> None:
    store = SqliteBreakerStore(tmp_path / "state.sqlite3")
    exercise(store)
    store.close()


def test_a_second_store_on_the_same_file_sees_the_first_ones_suspension(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    first = SqliteBreakerStore(path)
    second = SqliteBreakerStore(path)
    second.save(FLAKY)  # both have the file open before the suspension is written
    first.save(CAPTCHA)
    assert second.load("duckduckgo") == CAPTCHA
    assert second.load_all() == {"duckduckgo": CAPTCHA, "mojeek": FLAKY}
    first.close()
    second.close()
    with closing(SqliteBreakerStore(path)) as reopened:
        assert reopened.load_all() == {"duckduckgo": CAPTCHA, "mojeek": FLAKY}
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_reading_never_creates_the_file_and_the_first_save_does_privately(tmp_path: Path) -> None:
    path = tmp_path / "data" / "webreach" / "state.sqlite3"
    store = SqliteBreakerStore(path)
    assert store.load_all() == {}
    assert store.load("duckduckgo") is None
    store.clear()
    store.delete("duckduckgo")
    assert not path.parent.exists()
    store.save(CAPTCHA)
    assert path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    store.close()


@pytest.mark.slow
def test_a_record_another_process_writes_is_read_here(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    writer = (
        "import sys\n"
        "from pathlib import Path\n"
        "from webreach.state.breaker_store import BreakerRecord, SqliteBreakerStore\n"
        "store = SqliteBreakerStore(Path(sys.argv[1]))\n"
        "store.save(BreakerRecord('bing', open_until=2e9, reason='blocked', openings=2))\n"
        "store.close()\n"
    )
    reader = SqliteBreakerStore(path)
    reader.save(FLAKY)  # the reader has the file open before the child writes
    subprocess.run([sys.executable, "-c", writer, str(path)], check=True, timeout=60)
    assert reader.load("bing") == BreakerRecord("bing", open_until=2e9, reason="blocked", openings=2)
    reader.close()


@pytest.mark.skipif(sqlite3.threadsafety != 3, reason="this SQLite library is not built serialized")
def test_a_store_opened_on_one_thread_works_on_another(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    with closing(SqliteBreakerStore(path)) as writer:
        writer.save(FLAKY)
    store = SqliteBreakerStore(path)
    assert store.load_all() == {"mojeek": FLAKY}  # opens the file on this thread, as a Gateway's constructor does
    seen: list[BreakerRecord | None] = []
    worker = threading.Thread(target=lambda: (store.save(CAPTCHA), seen.append(store.load("duckduckgo"))))
    worker.start()
    worker.join(timeout=30)
    assert seen == [CAPTCHA]
    with closing(SqliteBreakerStore(path)) as reopened:
        assert reopened.load("duckduckgo") == CAPTCHA  # written to the file, not just remembered
    store.close()


def test_rows_that_are_not_records_are_ignored(tmp_path: Path) -> None:
    store = SqliteBreakerStore(tmp_path / "state.sqlite3")
    store.save(CAPTCHA)
    store.save(FLAKY)
    with closing(sqlite3.connect(store.path)) as conn, conn:
        conn.execute("UPDATE breaker_state_v2 SET openings = 'many' WHERE engine = 'mojeek'")
    store.save(BAD_KEY)
    with closing(sqlite3.connect(store.path)) as conn, conn:
        conn.execute("UPDATE breaker_state_v2 SET fingerprint = x'00ff' WHERE engine = 'tavily'")
    assert store.load("mojeek") is None
    assert store.load("tavily") is None
    assert store.load_all() == {"duckduckgo": CAPTCHA}
    store.close()


def test_an_unusable_file_warns_once_and_the_store_remembers_in_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    store = SqliteBreakerStore(blocker / "state.sqlite3")
    with caplog.at_level(logging.DEBUG, logger="webreach.state.sqlite_file"):
        store.save(CAPTCHA)
        store.save(FLAKY)
        assert store.load("duckduckgo") == CAPTCHA
        assert store.load_all() == {"duckduckgo": CAPTCHA, "mojeek": FLAKY}
        store.clear()
        assert store.load_all() == {}
    assert not store.usable
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "remembered by this process only" in warnings[0].getMessage()


def test_a_file_that_is_not_a_database_is_tolerated(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "state.sqlite3"
    path.write_bytes(b"this is not a SQLite database, just bytes " * 100)
    store = SqliteBreakerStore(path)
    with caplog.at_level(logging.WARNING, logger="webreach.state.sqlite_file"):
        assert store.load_all() == {}
        store.save(CAPTCHA)
        assert store.load("duckduckgo") == CAPTCHA
    assert not store.usable
    assert len(caplog.records) == 1
    store.close()


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="platformdirs names macOS's and Windows's place")
def test_default_path_is_under_the_user_data_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_DATA_HOME")  # conftest points it at a temporary directory; the fallback reads the process
    assert default_state_path({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "webreach" / "state.sqlite3"
    home_default = Path.home() / ".local" / "share" / "webreach" / "state.sqlite3"
    assert default_state_path({"XDG_DATA_HOME": "relative/dir"}) == home_default
    assert default_state_path({}) == home_default


def test_open_breaker_store_follows_the_settings(tmp_path: Path) -> None:
    assert isinstance(open_breaker_store(StateSettings(backend="memory")), MemoryBreakerStore)
    named = open_breaker_store(StateSettings(path=tmp_path / "x.sqlite3"))
    assert isinstance(named, SqliteBreakerStore) and named.path == tmp_path / "x.sqlite3"
    default = open_breaker_store(StateSettings(), environ={"XDG_DATA_HOME": str(tmp_path)})
    assert isinstance(default, SqliteBreakerStore)
    assert default.path == tmp_path / "webreach" / "state.sqlite3"
    assert not default.path.exists()


def test_state_settings_default_to_sqlite_and_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBREACH_CONFIG", "/nonexistent/webreach.toml")
    assert Settings().state == StateSettings(backend="sqlite", path=None)
    monkeypatch.setenv("WEBREACH_STATE__BACKEND", "memory")
    assert Settings().state.backend == "memory"


def test_records_of_the_fingerprintless_version_1_table_are_not_read(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(
            "CREATE TABLE breaker_state_v1 (engine TEXT PRIMARY KEY, open_until REAL NOT NULL, reason TEXT,"
            " openings INTEGER NOT NULL, failures INTEGER NOT NULL)"
        )
        conn.execute("INSERT INTO breaker_state_v1 VALUES ('tavily', 2e9, 'auth_failed', 1, 0)")
    store = SqliteBreakerStore(path)
    assert store.load_all() == {}
    store.save(CAPTCHA)
    assert store.load_all() == {"duckduckgo": CAPTCHA}
    store.close()


def test_changes_report_other_writers_only(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    server, cli = SqliteBreakerStore(path), SqliteBreakerStore(path)
    assert server.changes() is None  # no file yet: nothing was ever recorded
    server.save(CAPTCHA)
    assert server.changes() is None  # its own write is no news
    assert cli.changes() == {"duckduckgo": CAPTCHA}
    assert cli.changes() is None
    cli.delete("duckduckgo")
    assert server.changes() == {}
    assert server.generation == cli.generation == 2
    server.close()
    cli.close()


def test_a_deleted_file_reads_as_no_records_and_a_new_one_is_read_afresh(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    server = SqliteBreakerStore(path)
    server.save(CAPTCHA)
    for leftover in tmp_path.glob("state.sqlite3*"):
        leftover.unlink()
    assert server.changes() == {}
    assert server.changes() is None
    assert not path.exists()
    with closing(SqliteBreakerStore(path)) as other:
        other.save(FLAKY)
    assert server.changes() == {"mojeek": FLAKY}
    server.close()


def test_the_followers_registry_names_live_servers_and_what_they_applied(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    with closing(BreakerFollowers(path)) as server, closing(BreakerFollowers(path)) as cli:
        assert cli.running(besides=1) == []
        finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
        dead = int(finished.stdout)
        server.register(dead, "serve", 0, T0)  # a server that died without unregistering
        server.register(os.getpid(), "serve", 3, T0)
        assert cli.running(besides=-1) == [Follower(os.getpid(), "serve", 3)]
        server.acknowledge(os.getpid(), "serve", 5, T0)
        assert cli.running(besides=-1) == [Follower(os.getpid(), "serve", 5)]
        assert cli.running(besides=os.getpid()) == []
        server.unregister(os.getpid())
        assert cli.running(besides=-1) == []
