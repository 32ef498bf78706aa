"""Token-bucket stores: memory, a real SQLite file shared between instances and processes, failure tolerance."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from webreach.config import StateSettings
from webreach.state.bucket_store import (
    BucketLevel,
    BucketStore,
    MemoryBucketStore,
    SqliteBucketStore,
    open_bucket_store,
)

T0 = 1_700_000_000.0


Found = tuple[str, BucketLevel | None]


def set_to(level: BucketLevel, result: str = "set") -> Callable[[BucketLevel | None], tuple[BucketLevel, Found]]:
    """A change that stores `level` whatever was there, and reports what it found."""

    def change(stored: BucketLevel | None) -> tuple[BucketLevel, Found]:
        return level, (result, stored)

    return change


def peek(stored: BucketLevel | None) -> tuple[BucketLevel | None, BucketLevel | None]:
    """A change that stores nothing and returns the stored level."""
    return None, stored


def exercise(store: BucketStore) -> None:
    """What every backend must do: hand the stored level to the change, store its answer, return its result."""
    assert store.update("baidu", peek) is None
    assert store.update("baidu", set_to(BucketLevel(0.5, T0))) == ("set", None)
    assert store.update("baidu", peek) == BucketLevel(0.5, T0)
    assert store.update("bing", peek) is None, "levels are per engine"
    assert store.update("baidu", set_to(BucketLevel(-1.0, T0 + 1))) == ("set", BucketLevel(0.5, T0))
    assert store.update("baidu", peek) == BucketLevel(-1.0, T0 + 1)


def test_memory_store_keeps_levels_for_this_process() -> None:
    exercise(MemoryBucketStore())


def test_sqlite_store_does_what_the_memory_store_does(tmp_path: Path) -> None:
    store = SqliteBucketStore(tmp_path / "state.sqlite3")
    exercise(store)
    store.close()


def test_two_stores_on_one_file_share_each_engines_level(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    first, second = SqliteBucketStore(path), SqliteBucketStore(path)
    assert second.update("baidu", peek) is None  # both have the file open before the level is written
    first.update("baidu", set_to(BucketLevel(0.25, T0)))
    assert second.update("baidu", peek) == BucketLevel(0.25, T0)
    first.close()
    second.close()
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT engine, tokens, updated FROM rate_buckets_v1").fetchall() == [("baidu", 0.25, T0)]


# each child takes `count` tokens one update at a time; lost updates would show as a total short of the sum
COUNTER = """
import sys
from pathlib import Path
from webreach.state.bucket_store import BucketLevel, SqliteBucketStore

def add_one(stored):
    tokens = stored.tokens if stored is not None else 0.0
    return BucketLevel(tokens + 1, 0.0), None

store = SqliteBucketStore(Path(sys.argv[1]), busy_timeout=20.0)
for _ in range(int(sys.argv[2])):
    store.update("baidu", add_one)
store.close()
"""


@pytest.mark.slow
def test_concurrent_processes_never_lose_an_update(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    children = [
        subprocess.Popen([sys.executable, "-c", COUNTER, str(path), "150"], stderr=subprocess.PIPE) for _ in range(3)
    ]
    for child in children:
        _, stderr = child.communicate(timeout=60)
        assert child.returncode == 0, stderr.decode()
        assert b"could not" not in stderr  # no child fell back to memory
    assert SqliteBucketStore(path).update("baidu", peek) == BucketLevel(450.0, 0.0)


def test_rows_that_are_not_levels_read_as_none(tmp_path: Path) -> None:
    store = SqliteBucketStore(tmp_path / "state.sqlite3")
    store.update("baidu", set_to(BucketLevel(1.0, T0)))
    with closing(sqlite3.connect(store.path)) as conn, conn:
        conn.execute("UPDATE rate_buckets_v1 SET tokens = 'plenty' WHERE engine = 'baidu'")
    assert store.update("baidu", peek) is None
    store.close()


def test_an_unusable_file_warns_once_and_the_store_keeps_levels_in_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    store = SqliteBucketStore(blocker / "state.sqlite3")
    with caplog.at_level(logging.DEBUG, logger="webreach.state.sqlite_file"):
        store.update("baidu", set_to(BucketLevel(0.5, T0)))
        assert store.update("baidu", peek) == BucketLevel(0.5, T0)
    assert not store.usable
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "rate limits are kept by this process only" in warnings[0].getMessage()


def test_a_locked_file_falls_back_to_the_last_level_seen(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "state.sqlite3"
    store = SqliteBucketStore(path, busy_timeout=0.05)
    store.update("baidu", set_to(BucketLevel(2.0, T0)))
    with closing(sqlite3.connect(path)) as other:
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock past our busy timeout
        with caplog.at_level(logging.WARNING, logger="webreach.state.sqlite_file"):
            found = store.update("baidu", set_to(BucketLevel(1.0, T0 + 1)))
        other.rollback()
    assert found == ("set", BucketLevel(2.0, T0))
    assert len(caplog.records) == 1
    assert store.update("baidu", peek) == BucketLevel(2.0, T0), "the file, usable again, wins over memory"
    store.close()


def test_open_bucket_store_follows_the_settings(tmp_path: Path) -> None:
    assert isinstance(open_bucket_store(StateSettings(backend="memory")), MemoryBucketStore)
    named = open_bucket_store(StateSettings(path=tmp_path / "x.sqlite3"))
    assert isinstance(named, SqliteBucketStore) and named.path == tmp_path / "x.sqlite3"
    default = open_bucket_store(StateSettings(), environ={"XDG_DATA_HOME": str(tmp_path)})
    assert isinstance(default, SqliteBucketStore)
    assert default.path == tmp_path / "webreach" / "state.sqlite3"
