"""The HTTP door's recent-refs shortcut: a re-showing within the window skips the store, with the same refs."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from webreach.frontends._recent_refs import RecentRefs
from webreach.state.sessions import SqliteSessionStore
from webreach.testing import FakeClock

URLS = [f"https://example.org/{i}" for i in range(6)]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=0.0)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "state.sqlite3"


@pytest.fixture
def store(path: Path, clock: FakeClock) -> Iterator[SqliteSessionStore]:
    opened = SqliteSessionStore(path, clock=clock)
    yield opened
    opened.close()


def seen_at(path: Path, session: str = "s") -> dict[int, float]:
    """What another process reads from the file: ref -> last shown."""
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute("SELECT ref, seen_at FROM session_refs_v1 WHERE session = ?", (session,))
        return {int(ref): float(seen) for ref, seen in rows}


async def test_a_reshowing_within_the_window_skips_the_store(
    store: SqliteSessionStore, path: Path, clock: FakeClock
) -> None:
    recent = RecentRefs(store, clock, window=60.0)
    first = await recent.remember("s", URLS[:3])
    clock.advance(30.0)
    assert await recent.remember("s", URLS[:3]) == first
    assert await recent.remember("s", [URLS[2], URLS[0]]) == [first[2], first[0]]
    assert set(seen_at(path).values()) == {0.0}  # nothing written since the first call
    assert await recent.resolve("s", first[1]) == URLS[1]


async def test_the_same_tuple_again_gets_its_own_list_of_the_written_refs(
    store: SqliteSessionStore, path: Path, clock: FakeClock
) -> None:
    recent = RecentRefs(store, clock, window=60.0)
    urls = tuple(URLS[:3])  # what a cached answer hands over each time (tools/kept_json.py result_urls)
    first = await recent.remember("s", urls)
    again = await recent.remember("s", urls)
    assert again == first and again is not first
    again.append(99)  # the caller's list: the written refs are unchanged
    assert await recent.remember("s", urls) == first
    assert await recent.remember("s", list(urls)) == first  # an equal list is the same URLs
    assert set(seen_at(path).values()) == {0.0}


async def test_a_new_url_or_an_old_write_goes_to_the_store(
    store: SqliteSessionStore, path: Path, clock: FakeClock
) -> None:
    recent = RecentRefs(store, clock, window=60.0)
    first = await recent.remember("s", URLS[:3])
    clock.advance(1.0)
    assert (await recent.remember("s", URLS[:4]))[:3] == first
    assert seen_at(path)[first[0]] == 1.0
    clock.advance(60.0)
    await recent.remember("s", URLS[:4])
    assert seen_at(path)[first[0]] == 61.0  # past the window the TTL restarts in the file


async def test_only_the_latest_write_of_a_session_is_kept(
    store: SqliteSessionStore, path: Path, clock: FakeClock
) -> None:
    recent = RecentRefs(store, clock, window=60.0)
    await recent.remember("s", URLS[:2])
    clock.advance(1.0)
    await recent.remember("s", URLS[2:4])
    clock.advance(1.0)
    await recent.remember("s", URLS[:2])  # no longer the latest write: asked of the store again
    assert seen_at(path)[1] == 2.0
    assert await recent.remember("t", URLS[:2]) == [1, 2]  # sessions never share refs


async def test_sessions_kept_are_bounded(store: SqliteSessionStore, path: Path, clock: FakeClock) -> None:
    recent = RecentRefs(store, clock, window=60.0, max_sessions=2)
    for session in ("a", "b", "c"):
        await recent.remember(session, URLS[:1])
    clock.advance(1.0)
    await recent.remember("a", URLS[:1])  # pushed out by c: written again
    await recent.remember("c", URLS[:1])  # still kept: not written
    assert (seen_at(path, "a")[1], seen_at(path, "c")[1]) == (1.0, 0.0)
