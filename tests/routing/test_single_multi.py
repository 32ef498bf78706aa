"""Router.single (one named engine, never substituted) and Router.multi (fan out, merge, partial results)."""

from __future__ import annotations

import pytest

from webreach.errors import AllEnginesFailedError, BlockedError, EngineTimeoutError, NotConfiguredError, ParseError
from webreach.models import SearchRequest
from webreach.routing import Router, failed_attempt
from webreach.testing.clock import FakeClock

from .fakes import candidate

REQUEST = SearchRequest(query="python asyncio", limit=3)


def router(deadline: float = 30.0) -> Router:
    return Router(clock=FakeClock(), hedge_delay=1.0, deadline=deadline)


# --- single ------------------------------------------------------------------------------------------


async def test_single_returns_that_engine_truncated_to_the_limit() -> None:
    urls = [f"https://a.example/{i}" for i in range(5)]
    bing, _ = candidate("bing", urls, unsupported=("site",))

    response = await router().single(bing, REQUEST)

    assert [h.url for h in response.results] == urls[:3]
    assert response.meta.mode == "engine"
    assert response.meta.engines_used == ("bing",)
    (attempt,) = response.meta.attempts
    assert (attempt.engine, attempt.status, attempt.count, attempt.unsupported) == ("bing", "ok", 5, ("site",))


async def test_single_empty_is_a_success() -> None:
    mojeek, _ = candidate("mojeek", [])

    response = await router().single(mojeek, REQUEST)

    assert response.results == ()
    assert response.meta.attempts[0].status == "empty"


async def test_single_reraises_the_engines_own_error() -> None:
    error = BlockedError("wappass", kind="captcha", retry_after=3600)
    baidu, _ = candidate("baidu", error=error)

    with pytest.raises(BlockedError) as caught:
        await router().single(baidu, REQUEST)

    assert caught.value is error
    assert caught.value.code == "captcha"
    assert caught.value.engine == "baidu"  # filled in by routing
    attempt = failed_attempt(baidu, caught.value, 0.0, hedged=False)
    assert (attempt.status, attempt.code, attempt.retry_after) == ("error", "captcha", 3600)


async def test_single_not_configured_propagates() -> None:
    tavily, _ = candidate("tavily", error=NotConfiguredError("tavily needs an API key"))

    with pytest.raises(NotConfiguredError):
        await router().single(tavily, REQUEST)


async def test_single_hung_engine_times_out_at_the_deadline() -> None:
    bing, bing_search = candidate("bing", hang=True)

    with pytest.raises(EngineTimeoutError) as caught:
        await router(deadline=5.0).single(bing, REQUEST)

    assert caught.value.engine == "bing"
    assert bing_search.cancelled


# --- multi -------------------------------------------------------------------------------------------


async def test_multi_merges_dedupes_and_lists_every_engine() -> None:
    bing, _ = candidate("bing", ["https://www.python.org/", "https://docs.python.org/3/library/asyncio.html"])
    mojeek, _ = candidate("mojeek", ["http://python.org/#top", "https://realpython.com/async-io-python/"])

    response = await router().multi([bing, mojeek], REQUEST)

    assert response.meta.mode == "multi"
    assert response.meta.engines_used == ("bing", "mojeek")
    first = response.results[0]
    assert first.url == "https://www.python.org/"
    assert first.engines == ("bing", "mojeek")
    assert [h.rank for h in response.results] == [1, 2, 3]  # 4 distinct pages, limit 3
    assert all(h.score is not None for h in response.results)


async def test_multi_partial_results_beat_an_error() -> None:
    bing, _ = candidate("bing", error=BlockedError("challenge", kind="captcha"))
    mojeek, _ = candidate("mojeek", ["https://m.example/"])
    brave, _ = candidate("brave", error=ParseError("layout changed"))

    response = await router().multi([bing, mojeek, brave], REQUEST)

    assert [h.url for h in response.results] == ["https://m.example/"]
    assert response.meta.engines_used == ("mojeek",)
    assert [(a.engine, a.status, a.code) for a in response.meta.attempts] == [
        ("bing", "error", "captcha"),
        ("mojeek", "ok", None),
        ("brave", "error", "parse_error"),
    ]


async def test_multi_deadline_keeps_what_arrived() -> None:
    fast, _ = candidate("mojeek", ["https://m.example/"])
    slow, slow_search = candidate("google", hang=True)

    routing = router(deadline=5.0)
    response = await routing.multi([slow, fast], REQUEST)

    assert [h.url for h in response.results] == ["https://m.example/"]
    assert [(a.engine, a.status, a.code) for a in response.meta.attempts] == [
        ("google", "cancelled", "timeout"),
        ("mojeek", "ok", None),
    ]
    await routing.aclose()  # the cut-off call unwinds after the answer, in the router's keeping
    assert slow_search.cancelled


async def test_multi_all_failing_raises() -> None:
    bing, _ = candidate("bing", error=BlockedError("challenge", kind="captcha"))
    keyless, _ = candidate("exa", error=NotConfiguredError("exa needs an API key"))
    slow, _ = candidate("google", hang=True)

    with pytest.raises(AllEnginesFailedError) as caught:
        await router(deadline=5.0).multi([bing, keyless, slow], REQUEST)

    assert [(e.engine, e.code) for e in caught.value.errors] == [
        ("bing", "captcha"),
        ("exa", "not_configured"),
        ("google", "timeout"),
    ]


async def test_multi_with_every_engine_unconfigured_is_not_configured() -> None:
    exa, _ = candidate("exa", error=NotConfiguredError("exa needs an API key"))
    tavily, _ = candidate("tavily", error=NotConfiguredError("tavily needs an API key"))

    with pytest.raises(NotConfiguredError) as caught:
        await router().multi([exa, tavily], REQUEST)

    assert "exa, tavily" in caught.value.message


async def test_multi_all_empty_is_an_empty_success() -> None:
    bing, _ = candidate("bing", [])
    mojeek, _ = candidate("mojeek", [])

    response = await router().multi([bing, mojeek], REQUEST)

    assert response.results == ()
    assert response.meta.engines_used == ("bing", "mojeek")


async def test_multi_empty_beside_a_failure_raises() -> None:
    bing, _ = candidate("bing", [])
    mojeek, _ = candidate("mojeek", error=BlockedError("blocked"))

    with pytest.raises(AllEnginesFailedError):
        await router().multi([bing, mojeek], REQUEST)


async def test_multi_counts_a_shared_index_once() -> None:
    # duckduckgo and yahoo both answer from Bing's index: their agreement on X is one vote (1/61), while
    # two independent indexes agreeing on Y at rank 2 is two votes (2/62), so Y ranks first
    duckduckgo, _ = candidate("duckduckgo", ["https://x.example/", "https://z.example/"], index="bing")
    yahoo, _ = candidate("yahoo", ["https://x.example/"], index="bing")
    mojeek, _ = candidate("mojeek", ["https://w.example/", "https://y.example/"])
    brave, _ = candidate("brave", ["https://v.example/", "https://y.example/"])

    response = await router().multi([duckduckgo, yahoo, mojeek, brave], SearchRequest(query="q", limit=10))

    top = response.results[0]
    assert top.url == "https://y.example/"
    assert top.score == pytest.approx(2 / 62)
    x = next(h for h in response.results if h.url == "https://x.example/")
    assert x.engines == ("duckduckgo", "yahoo")
    assert x.score == pytest.approx(1 / 61)
