"""SQLite session refs answered from memory: no transaction for re-shown results, yet the same refs, TTLs and
eviction order as writing every time (state/recent_refs.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from webreach.errors import UnknownRefError
from webreach.state.recent_refs import RecentRefs
from webreach.state.sessions import DEFAULT_TTL, SqliteSessionStore
from webreach.testing import FakeClock

URLS = [f"https://example.org/{i}" for i in range(10)]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=0.0)  # so times in the file read as seconds since the test began


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "state.sqlite3"


@pytest.fixture
def store(path: Path, clock: FakeClock) -> Iterator[SqliteSessionStore]:
    opened = SqliteSessionStore(path, clock=clock, max_refs=4)
    yield opened
    opened.close()


def seen_at(path: Path, session: str = "s") -> dict[int, float]:
    """What another process reads from the file: ref -> last shown."""
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute("SELECT ref, seen_at FROM session_refs_v1 WHERE session = ?", (session,))
        return {int(ref): float(seen) for ref, seen in rows}


def test_the_window_defaults_to_a_minute_and_scales_down_with_short_ttls(path: Path) -> None:
    assert SqliteSessionStore(path).rewrite_after == 60.0
    assert SqliteSessionStore(path, ttl=10.0).rewrite_after == pytest.approx(0.01)
    assert SqliteSessionStore(path, rewrite_after=0.0).rewrite_after == 0.0
    assert DEFAULT_TTL / 1000 > 60.0


def test_showing_the_same_results_again_within_the_window_writes_nothing(
    store: SqliteSessionStore, path: Path, clock: FakeClock
) -> None:
    assert store.remember("s", URLS[:3]) == [1, 2, 3]
    before = path.stat().st_mtime_ns, (path.parent / "state.sqlite3-wal").stat().st_size
    clock.advance(30)
    assert store.remember("s", URLS[:3]) == [1, 2, 3]
    assert store.remember("s", [URLS[1]]) == [2]
    assert (path.stat().st_mtime_ns, (path.parent / "state.sqlite3-wal").stat().st_size) == before
    assert seen_at(path) == {1: 0.0, 2: 0.0, 3: 0.0}  # other processes see the first showing for now


def test_a_new_url_or_an_old_write_goes_to_the_file(store: SqliteSessionStore, path: Path, clock: FakeClock) -> None:
    store.remember("s", URLS[:2])
    clock.advance(10)
    assert store.remember("s", [URLS[0], URLS[2]]) == [1, 3]  # URLS[2] is new: one transaction
    assert seen_at(path) == {1: 10.0, 2: 0.0, 3: 10.0}
    clock.advance(61)
    assert store.remember("s", [URLS[1]]) == [2]  # written 71 s ago: rewritten
    assert seen_at(path)[2] == 71.0


def test_reshowings_are_written_by_the_next_transaction_and_keep_eviction_order(
    store: SqliteSessionStore, path: Path, clock: FakeClock
) -> None:
    store.remember("s", URLS[:4])  # the cap is 4
    clock.advance(1)
    store.remember("s", [URLS[0]])  # from memory: URLS[0] is now the most recently shown
    clock.advance(1)
    assert store.remember("s", [URLS[4]]) == [5]  # evicts the least recently shown, which is URLS[1]
    assert seen_at(path) == {1: 1.0, 3: 0.0, 4: 0.0, 5: 2.0}
    assert store.resolve("s", 1) == URLS[0]
    with pytest.raises(UnknownRefError, match="evicted"):
        store.resolve("s", 2)


def test_after_an_eviction_memory_never_hands_out_an_evicted_ref(store: SqliteSessionStore, clock: FakeClock) -> None:
    store.remember("s", URLS[:4])
    clock.advance(1)
    store.remember("s", URLS[4:6])  # evicts refs 1 and 2
    clock.advance(1)
    assert store.remember("s", [URLS[0], URLS[4]]) == [7, 5]


def test_a_reshowing_restarts_the_ttl_even_before_it_is_written(path: Path, clock: FakeClock) -> None:
    store = SqliteSessionStore(path, clock=clock, ttl=100_000.0)  # window: 60 s
    store.remember("s", URLS[:1])
    clock.advance(50)
    store.remember("s", URLS[:1])  # held in memory
    clock.advance(100_000 - 10)
    assert store.resolve("s", 1) == URLS[0]  # 99,990 s after the first showing, but 99,940 after the last
    store.close()


def test_close_writes_what_memory_still_holds(path: Path, clock: FakeClock) -> None:
    store = SqliteSessionStore(path, clock=clock)
    store.remember("s", URLS[:2])
    clock.advance(5)
    store.remember("s", URLS[:2])
    assert seen_at(path) == {1: 0.0, 2: 0.0}
    store.close()
    assert seen_at(path) == {1: 5.0, 2: 5.0}


def test_sessions_in_memory_are_bounded_and_isolated() -> None:
    recent = RecentRefs(max_refs=10, max_sessions=2)
    recent.note("a", URLS[:2], [1, 2], 0.0, evicted=False)
    recent.note("b", URLS[:1], [1], 0.0, evicted=False)
    assert recent.refs("a", URLS[:2], since=-1.0, now=1.0) == [1, 2]  # "a" is now the most recently used
    recent.note("c", URLS[:1], [1], 0.0, evicted=False)  # pushes out "b"
    assert recent.refs("b", URLS[:1], since=-1.0, now=1.0) is None
    assert recent.refs("c", URLS[:2], since=-1.0, now=1.0) is None  # "c" never showed URLS[1]
    assert recent.refs("a", URLS[:1], since=0.0, now=1.0) is None  # written at 0.0, not after it


def test_another_process_sees_the_same_refs(path: Path, clock: FakeClock) -> None:
    one = SqliteSessionStore(path, clock=clock)
    two = SqliteSessionStore(path, clock=clock)
    try:
        assert one.remember("s", URLS[:2]) == [1, 2]
        assert two.remember("s", URLS[1:3]) == [2, 3]
        assert one.remember("s", URLS[:2]) == [1, 2]  # from memory, and still what the file says
        assert two.resolve("s", 1) == URLS[0]
    finally:
        one.close()
        two.close()


def test_the_window_must_stay_below_the_ttl(path: Path) -> None:
    with pytest.raises(ValueError, match="rewrite_after"):
        SqliteSessionStore(path, ttl=60.0, rewrite_after=60.0)
    with pytest.raises(ValueError, match="rewrite_after"):
        SqliteSessionStore(path, rewrite_after=-1.0)
