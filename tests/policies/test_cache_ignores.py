"""The cache key leaves out what an engine ignores: `limit` for the engines that take no count (Engine.ignores)."""

from __future__ import annotations

from webreach import engines
from webreach.models import SearchRequest
from webreach.policies import PolicyState, Search, apply_policies
from webreach.routing import respond
from webreach.testing.clock import FakeClock

from .fakes import ScriptedSearch, make_hits

SHORT = SearchRequest(query="rust async", limit=3)
LONG = SearchRequest(query="rust async", limit=10)


def _stack(engine: str, inner: ScriptedSearch, state: PolicyState) -> Search:
    return apply_policies(
        inner, engine=engine, state=state, rate_per_minute=600.0, timeout=15.0, retries=0, cache_ttl=3600.0,
        ignores=engines.engine_class(engine).ignores,
    )  # fmt: skip


def test_the_engines_that_take_no_count_declare_it() -> None:
    ignoring = {name for name, cls in engines.engine_classes().items() if "limit" in cls.ignores}
    assert {"mojeek", "duckduckgo", "brave", "startpage", "searxng", "sogou", "so360"} <= ignoring
    assert not ignoring & {"bing", "google", "serper", "brave_api", "tavily", "serpapi"}


async def test_requests_differing_only_in_limit_share_one_entry_for_an_engine_that_ignores_it(
    clock: FakeClock,
) -> None:
    inner = ScriptedSearch(make_hits(8))
    search = _stack("mojeek", inner, PolicyState(clock=clock))
    first = await search(LONG)
    second = await search(SHORT)
    assert inner.calls == 1 and second.cached and second.hits == first.hits
    # the shared entry holds the engine's whole answer; the response is trimmed to each request's own limit
    shown = respond(SHORT, "mojeek", second.hits, engines_used=["mojeek"], attempts=())
    assert len(shown.results) == 3
    assert len(respond(LONG, "mojeek", first.hits, engines_used=["mojeek"], attempts=()).results) == 8


async def test_requests_differing_in_limit_still_split_for_an_engine_that_honours_it(clock: FakeClock) -> None:
    inner = ScriptedSearch(make_hits(10, engine="bing"), make_hits(3, engine="bing"))
    search = _stack("bing", inner, PolicyState(clock=clock))
    await search(LONG)
    short = await search(SHORT)
    assert inner.calls == 2 and not short.cached and len(short.hits) == 3


async def test_stale_if_error_finds_the_shared_entry(clock: FakeClock) -> None:
    state = PolicyState(clock=clock)
    search = _stack("mojeek", ScriptedSearch(make_hits(5)), state)
    await search(LONG)
    clock.advance(7200.0)
    stale = await state.lookup_stale("mojeek", SHORT, engines.engine_class("mojeek").ignores)
    assert stale is not None and stale.stale and len(stale.hits) == 5
