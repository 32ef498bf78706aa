"""Zero-based per-answer indexes kept in the session store (tools/answer_index.py), over the memory store and a
real SQLite file: the latest answer wins, sessions are apart, no search is a typed error, refs expire with the
store's TTL; and the numeric-index profile's fallback to URLs when the store fails."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from webreach import Gateway, Settings
from webreach.errors import InvalidInputError, SessionStoreError, UnknownRefError
from webreach.models import Hit
from webreach.state.sessions import MemorySessionStore, SessionStore, SqliteSessionStore
from webreach.testing import FakeWeb
from webreach.testing.clock import FakeClock
from webreach.tools import Toolbox
from webreach.tools.answer_index import MAX_WALK, answer_ref, answers_session, keep_answer
from webreach.tools.index_profile import indexed_text


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock) -> SessionStore:
    if request.param == "memory":
        return MemorySessionStore(clock=clock, ttl=3600)
    return SqliteSessionStore(tmp_path / "state.db", clock=clock, ttl=3600)


async def test_an_index_resolves_in_the_sessions_latest_answer(store: SessionStore) -> None:
    await keep_answer(store, "s", [5, 6, 7])
    assert [await answer_ref(store, "s", index) for index in range(3)] == [5, 6, 7]
    await keep_answer(store, "s", [9, 2])
    assert await answer_ref(store, "s", 0) == 9 and await answer_ref(store, "s", 1) == 2
    with pytest.raises(InvalidInputError, match="indexes 0-1"):
        await answer_ref(store, "s", 2)
    with pytest.raises(UnknownRefError, match="no search"):
        await answer_ref(store, "other", 0)
    for _ in range(MAX_WALK + 3):  # lookups leave markers; the latest answer is still found below them
        assert await answer_ref(store, "s", 0) == 9
    await keep_answer(store, "s", [4])
    assert await answer_ref(store, "s", 0) == 4


async def test_answers_expire_with_the_store(store: SessionStore, clock: FakeClock) -> None:
    await keep_answer(store, "s", [1])
    clock.advance(3601)
    with pytest.raises(UnknownRefError):
        await answer_ref(store, "s", 0)


def test_a_long_session_name_keeps_within_the_store_bound() -> None:
    assert len(answers_session("x" * 200)) <= 200 and answers_session("x" * 200) != answers_session("x" * 199 + "y")


class FailingStore:
    async def remember(self, session: str, urls: Sequence[str]) -> list[int]:
        raise SessionStoreError("the store is down")

    async def resolve(self, session: str, ref: int) -> str:
        raise SessionStoreError("the store is down")

    def close(self) -> None:
        pass


def test_the_fallback_answer_shows_urls() -> None:
    hits = [Hit(rank=1, title="A", url="https://a.example/", snippet="first", engine="bing", date="2024-01-01")]
    assert indexed_text("q", hits, 0, urls=True).splitlines() == [
        "A Google search for 'q' found 1 results:", "", "## Web Results", "",
        "0. A", "Date published: 2024-01-01", "Source: bing", "URL: https://a.example/", "first",
    ]  # fmt: skip
    assert "URL:" not in indexed_text("q", hits, 3, urls=False) and "3. A" in indexed_text("q", hits, 3, urls=False)


@pytest.mark.network
async def test_a_failing_store_answers_in_the_old_format_with_urls() -> None:
    async with FakeWeb() as web:
        settings = Settings(fake_web=web.url, state={"backend": "memory"}, tools={"profile": "numeric-index"})
        async with Gateway.from_settings(settings) as gateway:
            tools = Toolbox(gateway, FailingStore(), tool_profile="numeric-index")
            found = await tools.call("web_search", {"query": "python asyncio"})
            fetched = await tools.call("web_fetch", {"index": 0})
    assert not found.is_error and "URL: https://" in found.text and "web_fetch(index=N)" not in found.text
    assert found.text.startswith("A Google search for 'python asyncio' found ")
    assert fetched.is_error and fetched.error is not None and fetched.error.code == "session_store_unavailable"
