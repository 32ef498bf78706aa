"""Session refs: monotonic per session, never reused, 24 h TTL, eviction at the cap, isolation, SQLite persistence."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from webreach.config import StateSettings
from webreach.errors import InvalidInputError, SessionStoreError, UnknownRefError
from webreach.state.redis_connection import RedisConnection, open_redis
from webreach.state.redis_sessions import RedisSessionStore
from webreach.state.sessions import (
    DEFAULT_FORGET_AFTER,
    DEFAULT_MAX_REFS,
    DEFAULT_TTL,
    MemorySessionStore,
    SessionStore,
    SqliteSessionStore,
    open_session_store,
)
from webreach.testing import FakeClock

Factory = Callable[..., SessionStore]
URLS = [f"https://example.org/{i}" for i in range(10)]


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Factory]:
    """Builds stores of one backend (Redis: a real redis-server on loopback); every store made is closed after."""
    made: list[SessionStore] = []
    connections: list[RedisConnection] = []

    def make(clock: FakeClock, **options: Any) -> SessionStore:
        if request.param == "memory":
            store: SessionStore = MemorySessionStore(clock=clock, **options)
        elif request.param == "sqlite":
            store = SqliteSessionStore(tmp_path / "state.sqlite3", clock=clock, **options)
        else:
            url = request.getfixturevalue("redis_url")
            connections.append(open_redis(StateSettings(backend="redis", url=url)))
            store = RedisSessionStore(connections[-1], clock=clock, **options)
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()
    for connection in connections:
        await connection.aclose()


async def test_refs_count_up_from_one_and_resolve(make_store: Factory) -> None:
    store = make_store(FakeClock())
    assert await store.remember("s", URLS[:3]) == [1, 2, 3]
    assert await store.remember("s", URLS[3:5]) == [4, 5]
    assert [await store.resolve("s", ref) for ref in (1, 3, 5)] == [URLS[0], URLS[2], URLS[4]]


async def test_same_url_keeps_its_ref_within_a_call_and_across_calls(make_store: Factory) -> None:
    store = make_store(FakeClock())
    assert await store.remember("s", [URLS[0], URLS[1], URLS[0]]) == [1, 2, 1]
    assert await store.remember("s", [URLS[2], URLS[1]]) == [3, 2]


async def test_sessions_are_isolated(make_store: Factory) -> None:
    store = make_store(FakeClock())
    assert await store.remember("a", URLS[:2]) == [1, 2]
    assert await store.remember("b", [URLS[5]]) == [1]
    assert await store.resolve("a", 1) == URLS[0]
    assert await store.resolve("b", 1) == URLS[5]
    with pytest.raises(UnknownRefError):
        await store.resolve("b", 2)
    with pytest.raises(UnknownRefError, match="no search results yet"):
        await store.resolve("c", 1)


async def test_refs_expire_after_the_ttl_from_when_they_were_last_shown(make_store: Factory) -> None:
    clock = FakeClock()
    store = make_store(clock)
    await store.remember("s", URLS[:2])
    clock.advance(DEFAULT_TTL - 10)
    await store.remember("s", [URLS[1]])  # shown again: its TTL restarts
    clock.advance(20)
    with pytest.raises(UnknownRefError, match="expired") as caught:
        await store.resolve("s", 1)
    assert caught.value.code == "unknown_ref"
    assert "search again" in str(caught.value).lower()
    assert await store.resolve("s", 2) == URLS[1]


async def test_refs_are_never_reused_after_expiry(make_store: Factory) -> None:
    clock = FakeClock()
    store = make_store(clock)
    await store.remember("s", URLS[:3])
    clock.advance(DEFAULT_TTL + 1)
    assert await store.remember("s", [URLS[0], URLS[7]]) == [4, 5]  # an expired URL gets a new ref too
    with pytest.raises(UnknownRefError):
        await store.resolve("s", 1)


async def test_a_counter_is_forgotten_only_after_a_long_idle_time(make_store: Factory) -> None:
    clock = FakeClock()
    store = make_store(clock)
    await store.remember("s", URLS[:2])
    clock.advance(DEFAULT_TTL * 3)
    assert await store.remember("s", [URLS[3]]) == [3]
    clock.advance(DEFAULT_FORGET_AFTER + DEFAULT_TTL)
    assert await store.remember("other", [URLS[4]]) == [1]  # any search sweeps idle sessions
    assert await store.remember("s", [URLS[5]]) == [1]


async def test_the_oldest_refs_are_evicted_at_the_cap(make_store: Factory) -> None:
    clock = FakeClock()
    store = make_store(clock, max_refs=3)
    await store.remember("s", URLS[:3])
    clock.advance(1)
    await store.remember("s", [URLS[0]])  # shown again: now the newest
    clock.advance(1)
    assert await store.remember("s", URLS[3:5]) == [4, 5]
    with pytest.raises(UnknownRefError, match="evicted"):
        await store.resolve("s", 2)
    with pytest.raises(UnknownRefError):
        await store.resolve("s", 3)
    assert [await store.resolve("s", ref) for ref in (1, 4, 5)] == [URLS[0], URLS[3], URLS[4]]
    assert await store.remember("s", [URLS[1]]) == [6]  # an evicted URL never gets its old number back


async def test_unknown_ref_says_which_refs_exist(make_store: Factory) -> None:
    store = make_store(FakeClock())
    await store.remember("s", URLS[:4])
    with pytest.raises(UnknownRefError, match=r"never given .*1-4"):
        await store.resolve("s", 9)


async def test_session_names_are_checked(make_store: Factory) -> None:
    store = make_store(FakeClock())
    with pytest.raises(InvalidInputError):
        await store.remember("", URLS[:1])
    with pytest.raises(InvalidInputError):
        await store.resolve("x" * 201, 1)


@pytest.mark.parametrize("ref", [0, -1, 2**31, 2**63, 99999999999999999999, 10**400])
async def test_a_ref_out_of_range_is_invalid_input_naming_the_range(make_store: Factory, ref: int) -> None:
    # SQLite cannot bind 2**63 or more (OverflowError); no backend may see a ref outside the range refs are given in
    store = make_store(FakeClock())
    await store.remember("s", URLS[:2])
    with pytest.raises(InvalidInputError) as caught:
        await store.resolve("s", ref)
    assert "from 1 to 2147483647" in caught.value.message
    assert len(caught.value.message) < 200  # a 400-digit ref is not echoed whole
    assert await store.resolve("s", 2) == URLS[1]


async def test_default_cap_is_a_thousand() -> None:
    store = MemorySessionStore(clock=FakeClock())
    assert store.max_refs == DEFAULT_MAX_REFS == 1000
    refs = await store.remember("s", [f"https://example.org/{i}" for i in range(1001)])
    assert refs[-1] == 1001
    with pytest.raises(UnknownRefError):
        await store.resolve("s", 1)
    assert await store.resolve("s", 2) == "https://example.org/1"


async def test_sqlite_refs_survive_a_new_instance_on_the_same_file(tmp_path: Path) -> None:
    clock = FakeClock()
    path = tmp_path / "nested" / "state.sqlite3"
    first = SqliteSessionStore(path, clock=clock)
    assert await first.remember("s", URLS[:2]) == [1, 2]
    first.close()
    second = SqliteSessionStore(path, clock=clock)
    try:
        assert await second.resolve("s", 2) == URLS[1]
        assert await second.remember("s", [URLS[1], URLS[2]]) == [2, 3]
    finally:
        second.close()
    assert path.stat().st_mode & 0o777 == 0o600


async def test_two_open_instances_never_hand_out_the_same_ref(tmp_path: Path) -> None:
    clock = FakeClock()
    one = SqliteSessionStore(tmp_path / "s.sqlite3", clock=clock)
    two = SqliteSessionStore(tmp_path / "s.sqlite3", clock=clock)
    try:
        assert await one.remember("s", [URLS[0]]) == [1]
        assert await two.remember("s", [URLS[1]]) == [2]
        assert await one.remember("s", [URLS[2]]) == [3]
        assert await one.resolve("s", 2) == URLS[1]
    finally:
        one.close()
        two.close()


async def test_sqlite_tables_are_versioned(tmp_path: Path) -> None:
    store = SqliteSessionStore(tmp_path / "s.sqlite3", clock=FakeClock())
    await store.remember("s", URLS[:1])
    store.close()
    with closing(sqlite3.connect(tmp_path / "s.sqlite3")) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert {"session_refs_v1", "session_counters_v1"} <= tables
    assert mode == "wal"


async def test_resolving_before_any_search_creates_no_file(tmp_path: Path) -> None:
    store = SqliteSessionStore(tmp_path / "s.sqlite3", clock=FakeClock())
    with pytest.raises(UnknownRefError):
        await store.resolve("s", 1)
    assert not (tmp_path / "s.sqlite3").exists()


async def test_an_unusable_file_raises_session_store_error(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the directory should be")
    store = SqliteSessionStore(blocker / "state.sqlite3", clock=FakeClock())
    with pytest.raises(SessionStoreError) as caught:
        await store.remember("s", URLS[:1])
    assert caught.value.code == "session_store_unavailable"
    with pytest.raises(SessionStoreError):
        await store.resolve("s", 1)
    assert "session refs" in caplog.text


async def test_a_corrupt_file_raises_session_store_error(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    store = SqliteSessionStore(path, clock=FakeClock())
    with pytest.raises(SessionStoreError):
        await store.remember("s", URLS[:1])
    store.close()


def test_open_session_store_picks_the_backend(tmp_path: Path) -> None:
    assert isinstance(open_session_store("memory"), MemorySessionStore)
    store = open_session_store("sqlite", tmp_path / "x.sqlite3", clock=FakeClock())
    assert isinstance(store, SqliteSessionStore)
    assert store.path == tmp_path / "x.sqlite3"
    store.close()


def test_bounds_are_validated() -> None:
    with pytest.raises(ValueError):
        MemorySessionStore(max_refs=0)
    with pytest.raises(ValueError):
        MemorySessionStore(ttl=0)
