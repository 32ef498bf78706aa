"""A fresh entry of the in-process cache answers single and auto in the caller's task, before any routing
machinery (deadline timeout, flight task, hedge timer); its attempt is reported once, as cached; a miss, an empty
entry (auto) or a store that must be asked goes the usual way."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from webreach.models import EngineAttempt, SearchRequest
from webreach.policies.cache import Cache, freshness_ttl
from webreach.routing import Candidate, LazyCandidates, Router
from webreach.state.cache_store import CacheStore, MemoryCacheStore, SqliteCacheStore
from webreach.testing.clock import FakeClock

from .fakes import FakeSearch

REQUEST = SearchRequest(query="python asyncio", limit=5)


class CountingClock(FakeClock):
    """A FakeClock that counts the deadline blocks entered."""

    def __init__(self) -> None:
        super().__init__()
        self.timeouts = 0

    @asynccontextmanager
    async def timeout(self, seconds: float) -> AsyncIterator[None]:
        self.timeouts += 1
        async with super().timeout(seconds):
            yield


class Heard:
    """An attempt listener remembering each attempt and the task it was told in."""

    def __init__(self) -> None:
        self.attempts: list[EngineAttempt] = []
        self.tasks: list[asyncio.Task[object] | None] = []

    def __call__(self, attempt: EngineAttempt) -> None:
        self.attempts.append(attempt)
        self.tasks.append(asyncio.current_task())


def cached(
    name: str, urls: tuple[str, ...], clock: FakeClock, heard: Heard, store: CacheStore | None = None
) -> tuple[Candidate, FakeSearch]:
    """An engine behind the real cache policy, as Searching builds its candidates."""
    inner = FakeSearch(name, urls)
    cache = Cache(inner, engine=name, store=store or MemoryCacheStore(), clock=clock, ttl_for=freshness_ttl(600))
    return Candidate(name=name, index=name, search=cache, on_attempt=heard, at_once=cache.at_once), inner


async def test_auto_answers_a_cached_first_engine_in_the_callers_task_and_reports_it_once() -> None:
    clock, heard = CountingClock(), Heard()
    bing, bing_engine = cached("bing", ("https://a.example/1", "https://a.example/2"), clock, heard)
    mojeek, mojeek_engine = cached("mojeek", ("https://b.example/",), clock, heard)
    router = Router(clock=clock, hedge_delay=1.0, deadline=30.0)
    await router.auto([bing, mojeek], REQUEST)  # fills bing's cache entry
    heard.attempts.clear(), heard.tasks.clear()

    response = await router.auto([bing, mojeek], REQUEST)

    assert [hit.url for hit in response.results] == ["https://a.example/1", "https://a.example/2"]
    assert response.meta.mode == "auto" and response.meta.engines_used == ("bing",)
    assert [(a.engine, a.status, a.cached, a.hedged) for a in response.meta.attempts] == [("bing", "ok", True, False)]
    assert heard.attempts == list(response.meta.attempts)  # reported once, as cached
    assert heard.tasks == [asyncio.current_task()]  # no flight task: answered where the caller awaits
    assert (bing_engine.calls, mojeek_engine.calls) == (1, 0)


async def test_single_answers_a_cached_engine_without_entering_the_deadline() -> None:
    clock, heard = CountingClock(), Heard()
    mojeek, engine = cached("mojeek", ("https://b.example/",), clock, heard)
    router = Router(clock=clock, hedge_delay=1.0, deadline=30.0)
    first = await router.single(mojeek, REQUEST)
    assert clock.timeouts == 1 and first.meta.attempts[0].cached is False

    again = await router.single(mojeek, REQUEST)

    assert clock.timeouts == 1  # the cached answer needed no deadline
    assert [(a.engine, a.status, a.cached) for a in again.meta.attempts] == [("mojeek", "ok", True)]
    assert again.results == first.results and again.meta.mode == "engine"
    assert [a.cached for a in heard.attempts] == [False, True] and engine.calls == 1


async def test_auto_moves_past_a_cached_empty_answer_reporting_each_attempt_once() -> None:
    clock, heard = CountingClock(), Heard()
    empty, _ = cached("bing", (), clock, heard)
    mojeek, _ = cached("mojeek", ("https://b.example/",), clock, heard)
    router = Router(clock=clock, hedge_delay=1.0, deadline=30.0)
    await router.auto([empty, mojeek], REQUEST)
    heard.attempts.clear()

    response = await router.auto([empty, mojeek], REQUEST)

    expected = [("bing", "empty", True), ("mojeek", "ok", True)]
    assert [(a.engine, a.status, a.cached) for a in response.meta.attempts] == expected
    assert [(a.engine, a.status, a.cached) for a in heard.attempts] == expected  # nothing told twice


async def test_a_store_that_must_be_asked_is_asked_under_the_deadline(tmp_path: Path) -> None:
    clock, heard = CountingClock(), Heard()
    store = SqliteCacheStore(tmp_path / "cache.sqlite")
    try:
        mojeek, engine = cached("mojeek", ("https://b.example/",), clock, heard, store)
        router = Router(clock=clock, hedge_delay=1.0, deadline=30.0)
        await router.single(mojeek, REQUEST)
        again = await router.single(mojeek, REQUEST)
    finally:
        store.close()
    assert clock.timeouts == 2  # no answer at once: the store is read inside the deadline
    assert again.meta.attempts[0].cached is True and engine.calls == 1


async def test_auto_builds_only_the_candidates_it_looks_at() -> None:
    clock, heard = CountingClock(), Heard()
    engines = {name: cached(name, (f"https://{name}.example/",), clock, heard) for name in ("bing", "mojeek", "brave")}
    built: list[str] = []

    def build(name: str) -> Candidate:
        built.append(name)
        return engines[name][0]

    router = Router(clock=clock, hedge_delay=1.0, deadline=30.0)
    first = await router.auto(LazyCandidates(["bing", "mojeek", "brave"], build), REQUEST)
    assert built == ["bing", "mojeek", "brave"]  # a miss: every one looked at
    built.clear()

    again = await router.auto(LazyCandidates(["bing", "mojeek", "brave"], build), REQUEST)

    assert built == ["bing"] and again.results == first.results
    lazy = LazyCandidates(["bing", "mojeek"], build)
    assert [c.name for c in lazy] == ["bing", "mojeek"] and lazy[-1] is lazy[1] and len(lazy[:1]) == 1
