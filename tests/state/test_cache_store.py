"""Cache stores: memory LRU, SQLite file shared between instances, the no-op store, and failure tolerance."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from webreach.config import CacheSettings
from webreach.models import Hit
from webreach.state.cache_store import (
    CacheEntry,
    MemoryCacheStore,
    NullCacheStore,
    SqliteCacheStore,
    default_cache_path,
    open_cache_store,
)

T0 = 1_700_000_000.0
HITS = (
    Hit(rank=1, title="异步 Rust", url="https://example.cn/a", snippet="“quoted” …", engine="baidu", date="2024-05-01"),
    Hit(rank=2, title="Two", url="https://example.org/b", engine="bing", engines=("bing", "duckduckgo"), score=0.5),
)


def entry(stored_at: float = T0, ttl: float = 60.0, keep: float = 600.0, hits: tuple[Hit, ...] = HITS) -> CacheEntry:
    return CacheEntry(hits=hits, stored_at=stored_at, fresh_until=stored_at + ttl, keep_until=stored_at + keep)


async def test_memory_store_keeps_entries_until_keep_until() -> None:
    store = MemoryCacheStore()
    await store.set("k", entry())
    assert await store.get("k", now=T0 + 60) == entry()  # expired but still kept for stale use
    assert not entry().is_fresh(T0 + 60)
    assert await store.get("k", now=T0 + 600) is None
    assert len(store) == 0


async def test_memory_store_evicts_the_least_recently_used() -> None:
    store = MemoryCacheStore(max_entries=2)
    await store.set("a", entry())
    await store.set("b", entry())
    await store.get("a", now=T0)
    await store.set("c", entry())
    assert await store.get("b", now=T0) is None
    assert await store.get("a", now=T0) is not None
    assert await store.get("c", now=T0) is not None


async def test_null_store_never_remembers() -> None:
    store = NullCacheStore()
    await store.set("k", entry())
    assert await store.get("k", now=T0) is None


async def test_sqlite_entries_survive_into_another_store_on_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    writer = SqliteCacheStore(path)
    await writer.set("k", entry())
    reader = SqliteCacheStore(path)
    assert await reader.get("k", now=T0 + 1) == entry()
    assert await reader.get("missing", now=T0) is None
    writer.close()
    reader.close()
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_sqlite_file_is_created_on_first_use_only(tmp_path: Path) -> None:
    path = tmp_path / "deeper" / "cache.sqlite3"
    store = SqliteCacheStore(path)
    assert not path.exists()
    assert await store.get("k", now=T0) is None
    assert path.exists()
    store.close()


async def test_sqlite_drops_entries_past_keep_until(tmp_path: Path) -> None:
    store = SqliteCacheStore(tmp_path / "c.sqlite3")
    await store.set("old", entry(stored_at=T0, keep=10))
    assert await store.get("old", now=T0 + 10) is None
    await store.set("new", entry(stored_at=T0 + 20))
    with closing(sqlite3.connect(store.path)) as conn, conn:
        assert [r[0] for r in conn.execute("SELECT key FROM search_cache_v1")] == ["new"]
    store.close()


async def test_sqlite_stays_within_max_entries_keeping_the_newest(tmp_path: Path) -> None:
    store = SqliteCacheStore(tmp_path / "c.sqlite3", max_entries=3)
    for i in range(5):
        await store.set(f"k{i}", entry(stored_at=T0 + i))
    now = T0 + 5
    assert [await store.get(f"k{i}", now=now) is not None for i in range(5)] == [False, False, True, True, True]
    store.close()


async def test_sqlite_unreadable_row_is_a_miss(tmp_path: Path) -> None:
    store = SqliteCacheStore(tmp_path / "c.sqlite3")
    await store.set("k", entry())
    with closing(sqlite3.connect(store.path)) as conn, conn:
        conn.execute("UPDATE search_cache_v1 SET hits = '{not json'")
    assert await store.get("k", now=T0) is None
    store.close()


async def test_sqlite_store_in_an_unusable_place_misses_and_warns_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    store = SqliteCacheStore(blocker / "cache.sqlite3")
    with caplog.at_level(logging.WARNING, logger="webreach.state.sqlite_file"):
        for _ in range(3):
            await store.set("k", entry())
            assert await store.get("k", now=T0) is None
    assert not store.usable
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "searching without the cache" in warnings[0].getMessage()


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="platformdirs names macOS's and Windows's place")
def test_default_path_honours_an_absolute_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CACHE_HOME")  # conftest points it at a temporary directory; the fallback reads the process
    assert default_cache_path({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "webreach" / "cache.sqlite3"
    home_default = Path.home() / ".cache" / "webreach" / "cache.sqlite3"
    assert default_cache_path({"XDG_CACHE_HOME": "relative/dir"}) == home_default
    assert default_cache_path({}) == home_default


def test_open_cache_store_follows_the_backend_setting(tmp_path: Path) -> None:
    memory = open_cache_store(CacheSettings(backend="memory", max_entries=7))
    assert isinstance(memory, MemoryCacheStore) and memory.max_entries == 7
    assert isinstance(open_cache_store(CacheSettings(backend="none")), NullCacheStore)
    named = open_cache_store(CacheSettings(backend="sqlite", path=tmp_path / "x.sqlite3"))
    assert isinstance(named, SqliteCacheStore) and named.path == tmp_path / "x.sqlite3"
    default = open_cache_store(CacheSettings(backend="sqlite"), environ={"XDG_CACHE_HOME": str(tmp_path)})
    assert isinstance(default, SqliteCacheStore)
    assert default.path == tmp_path / "webreach" / "cache.sqlite3"
    assert not default.path.exists()


@pytest.mark.slow
async def test_sqlite_entries_written_by_another_process_are_read_here(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    writer = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from webreach.models import Hit\n"
        "from webreach.state.cache_store import CacheEntry, SqliteCacheStore\n"
        "store = SqliteCacheStore(Path(sys.argv[1]))\n"
        "hit = Hit(rank=1, title='from a child', url='https://example.org/', engine='mojeek')\n"
        "entry = CacheEntry((hit,), stored_at=100.0, fresh_until=200.0, keep_until=300.0)\n"
        "asyncio.run(store.set('k', entry))\n"
        "store.close()\n"
    )
    reader = SqliteCacheStore(path)
    assert await reader.get("k", now=150.0) is None  # the reader has the file open before the child writes
    subprocess.run([sys.executable, "-c", writer, str(path)], check=True, timeout=60)
    found = await reader.get("k", now=150.0)
    assert found is not None and found.hits[0].title == "from a child"
    reader.close()
