"""Router.auto: fallback in order, hedging of slow engines, the deadline, and what meta records."""

from __future__ import annotations

import asyncio
import math

import pytest

from webreach.clock import SystemClock
from webreach.errors import AllEnginesFailedError, BlockedError, NotConfiguredError, RateLimitedError
from webreach.models import SearchRequest, SearchResponse
from webreach.routing import Candidate, Router
from webreach.testing.clock import FakeClock

from .fakes import OpenBreaker, candidate

REQUEST = SearchRequest(query="python asyncio", limit=2)


def router(hedge_delay: float = 1.0, deadline: float = 30.0) -> Router:
    return Router(clock=FakeClock(), hedge_delay=hedge_delay, deadline=deadline)


def statuses(response: SearchResponse) -> list[tuple[str, str, str | None]]:
    return [(a.engine, a.status, a.code) for a in response.meta.attempts]


async def test_first_engine_answers_and_the_rest_are_never_asked() -> None:
    bing, _ = candidate("bing", ["https://a.example/1", "https://a.example/2", "https://a.example/3"])
    mojeek, mojeek_search = candidate("mojeek", ["https://b.example/"])

    response = await router().auto([bing, mojeek], REQUEST)

    assert [h.url for h in response.results] == ["https://a.example/1", "https://a.example/2"]  # limit 2
    assert response.meta.mode == "auto"
    assert response.meta.engines_used == ("bing",)
    assert statuses(response) == [("bing", "ok", None)]
    assert response.meta.attempts[0].count == 3
    assert mojeek_search.calls == 0


async def test_captcha_falls_through_to_the_next_engine_and_meta_shows_both() -> None:
    baidu, _ = candidate("baidu", error=BlockedError("verification page", kind="captcha", retry_after=3600))
    bing, _ = candidate("bing", ["https://a.example/"], unsupported=("freshness",))

    response = await router().auto([baidu, bing], REQUEST)

    assert response.meta.engines_used == ("bing",)
    assert statuses(response) == [("baidu", "error", "captcha"), ("bing", "ok", None)]
    failed, answered = response.meta.attempts
    assert failed.retry_after == 3600
    assert failed.message is not None and failed.message.startswith("baidu: verification page")
    assert answered.unsupported == ("freshness",)
    assert not answered.hedged  # started after baidu failed, not while it was running


async def test_suspended_engine_is_recorded_skipped_without_a_request() -> None:
    _, engine = candidate("google", ["https://g.example/"])
    google = Candidate(name="google", index="google", search=OpenBreaker(engine, retry_after=600))
    keyless, _ = candidate("brave_api", error=NotConfiguredError("brave_api needs an API key"))
    mojeek, _ = candidate("mojeek", ["https://m.example/"])

    response = await router().auto([google, keyless, mojeek], REQUEST)

    assert statuses(response) == [
        ("google", "skipped", "suspended"),
        ("brave_api", "skipped", "not_configured"),
        ("mojeek", "ok", None),
    ]
    assert response.meta.attempts[0].retry_after == 600
    assert engine.calls == 0


async def test_no_results_moves_on_to_another_index() -> None:
    mojeek, _ = candidate("mojeek", [])
    bing, _ = candidate("bing", ["https://a.example/"])

    response = await router().auto([mojeek, bing], REQUEST)

    assert statuses(response) == [("mojeek", "empty", None), ("bing", "ok", None)]
    assert response.meta.engines_used == ("bing",)


async def test_every_engine_empty_is_an_empty_success() -> None:
    mojeek, _ = candidate("mojeek", [])
    keyless, _ = candidate("tavily", error=NotConfiguredError("tavily needs an API key"))
    bing, _ = candidate("bing", [])

    response = await router().auto([mojeek, keyless, bing], REQUEST)

    assert response.results == ()
    assert statuses(response) == [
        ("mojeek", "empty", None),
        ("tavily", "skipped", "not_configured"),
        ("bing", "empty", None),
    ]
    assert response.meta.engines_used == ("mojeek", "bing")


async def test_all_failing_raises_with_every_engine_error_and_code_pairs() -> None:
    baidu, _ = candidate("baidu", error=BlockedError("wappass", kind="captcha"))
    keyless, _ = candidate("bocha", error=NotConfiguredError("bocha needs an API key"))
    sogou, _ = candidate("sogou", error=RateLimitedError("slow down", retry_after=30))

    with pytest.raises(AllEnginesFailedError) as caught:
        await router().auto([baidu, keyless, sogou], REQUEST)

    failure = caught.value
    assert [(e.engine, e.code) for e in failure.errors] == [
        ("baidu", "captcha"),
        ("bocha", "not_configured"),
        ("sogou", "rate_limited"),
    ]
    assert "baidu: captcha, bocha: not_configured, sogou: rate_limited" in failure.message
    assert failure.retry_after == 30


async def test_every_engine_unconfigured_is_not_configured_not_all_failed() -> None:
    tavily, tavily_search = candidate("tavily", error=NotConfiguredError("tavily needs an API key"))
    exa, _ = candidate("exa", error=NotConfiguredError("exa needs an API key"))

    with pytest.raises(NotConfiguredError) as caught:
        await router().auto([tavily, exa], REQUEST)

    assert caught.value.code == "not_configured"
    assert "tavily, exa" in caught.value.message
    assert "keyless engine" in str(caught.value)
    assert tavily_search.calls == 1  # asked (its policy stack said no key); nothing went upstream


async def test_unconfigured_beside_a_suspended_engine_is_still_all_failed() -> None:
    # a suspended engine is resting after real upstream failures: that is not a configuration problem
    _, engine = candidate("google", ["https://g.example/"])
    google = Candidate(name="google", index="google", search=OpenBreaker(engine, retry_after=600))
    tavily, _ = candidate("tavily", error=NotConfiguredError("tavily needs an API key"))

    with pytest.raises(AllEnginesFailedError) as caught:
        await router().auto([google, tavily], REQUEST)

    assert caught.value.retry_after == 600


async def test_no_results_beside_a_failure_is_still_a_failure() -> None:
    mojeek, _ = candidate("mojeek", [])
    bing, _ = candidate("bing", error=BlockedError("challenge", kind="blocked"))

    with pytest.raises(AllEnginesFailedError) as caught:
        await router().auto([mojeek, bing], REQUEST)

    assert [e.code for e in caught.value.errors] == ["blocked"]
    assert "mojeek: no results, bing: blocked" in caught.value.message


async def test_hedging_starts_the_next_engine_when_the_first_hangs() -> None:
    slow, slow_search = candidate("duckduckgo", hang=True)
    fast, _ = candidate("mojeek", ["https://m.example/"])

    routing = router(hedge_delay=1.0)
    response = await routing.auto([slow, fast], REQUEST)

    assert response.meta.engines_used == ("mojeek",)
    assert statuses(response) == [("duckduckgo", "cancelled", None), ("mojeek", "ok", None)]
    assert [a.hedged for a in response.meta.attempts] == [False, True]
    await routing.aclose()  # the loser unwinds after the answer, in the router's keeping
    assert slow_search.cancelled


async def test_a_hedged_engine_failing_keeps_the_slow_one_and_hedges_again() -> None:
    slow, slow_search = candidate("duckduckgo", hang=True)
    blocked, _ = candidate("bing", error=BlockedError("challenge", kind="captcha"))
    third, _ = candidate("mojeek", ["https://m.example/"])

    routing = router(hedge_delay=1.0)
    response = await routing.auto([slow, blocked, third], REQUEST)

    assert statuses(response) == [
        ("duckduckgo", "cancelled", None),
        ("bing", "error", "captcha"),
        ("mojeek", "ok", None),
    ]
    assert [a.hedged for a in response.meta.attempts] == [False, True, True]
    await routing.aclose()
    assert slow_search.cancelled


async def test_a_hung_engine_that_loses_to_a_later_one_is_not_waited_for() -> None:
    slow, slow_search = candidate("duckduckgo", hang=True)
    empty, _ = candidate("bing", [])
    third, _ = candidate("mojeek", ["https://m.example/"])

    response = await router(hedge_delay=1.0).auto([slow, empty, third], REQUEST)

    assert statuses(response) == [
        ("duckduckgo", "cancelled", None),
        ("bing", "empty", None),
        ("mojeek", "ok", None),
    ]
    assert slow_search.calls == 1


async def test_deadline_cuts_off_hung_engines_and_reports_timeouts() -> None:
    first, first_search = candidate("duckduckgo", hang=True)
    second, second_search = candidate("bing", hang=True)

    routing = router(hedge_delay=1.0, deadline=5.0)
    with pytest.raises(AllEnginesFailedError) as caught:
        await routing.auto([first, second], REQUEST)

    assert [(e.engine, e.code) for e in caught.value.errors] == [("duckduckgo", "timeout"), ("bing", "timeout")]
    await routing.aclose()
    assert first_search.cancelled and second_search.cancelled


async def test_deadline_before_the_hedge_delay_leaves_later_engines_untried() -> None:
    first, _ = candidate("duckduckgo", hang=True)
    second, second_search = candidate("bing", ["https://a.example/"])

    with pytest.raises(AllEnginesFailedError) as caught:
        await router(hedge_delay=10.0, deadline=2.0).auto([first, second], REQUEST)

    assert [e.code for e in caught.value.errors] == ["timeout"]
    assert "1 more not tried" in caught.value.message
    assert second_search.calls == 0


async def test_hedging_off_waits_for_the_slow_engine_until_the_deadline() -> None:
    first, _ = candidate("duckduckgo", hang=True)
    second, second_search = candidate("bing", ["https://a.example/"])

    with pytest.raises(AllEnginesFailedError):
        await router(hedge_delay=math.inf, deadline=3.0).auto([first, second], REQUEST)

    assert second_search.calls == 0


async def test_a_bug_in_one_engine_propagates_and_cancels_the_others() -> None:
    slow, slow_search = candidate("duckduckgo", hang=True)
    broken, _ = candidate("bing", error=KeyError("oops"))

    routing = router(hedge_delay=1.0)
    with pytest.raises(KeyError):
        await routing.auto([slow, broken], REQUEST)

    await routing.aclose()
    assert slow_search.cancelled


async def test_cancelling_the_search_cancels_running_engines() -> None:
    first, first_search = candidate("duckduckgo", hang=True)
    routing = router(hedge_delay=math.inf)
    task = asyncio.create_task(routing.auto([first], REQUEST))
    while first_search.calls == 0:
        await asyncio.sleep(0)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    await routing.aclose()
    assert first_search.cancelled


async def test_stale_winner_marks_meta_stale() -> None:
    bing, _ = candidate("bing", ["https://a.example/"], stale=True)

    response = await router().auto([bing], REQUEST)

    assert response.meta.stale
    assert response.meta.attempts[0].stale


async def test_engines_listed_twice_are_asked_once() -> None:
    bing, bing_search = candidate("bing", error=BlockedError("challenge"))

    with pytest.raises(AllEnginesFailedError) as caught:
        await router().auto([bing, bing], REQUEST)

    assert bing_search.calls == 1
    assert len(caught.value.errors) == 1


async def test_no_candidates_is_not_configured() -> None:
    with pytest.raises(NotConfiguredError):
        await router().auto([], REQUEST)


async def test_hedging_works_with_the_real_clock() -> None:
    # real time, but nothing asserted about it: a hung engine is hedged after 10 ms and the second one wins
    slow, slow_search = candidate("duckduckgo", hang=True)
    fast, _ = candidate("mojeek", ["https://m.example/"])

    routing = Router(clock=SystemClock(), hedge_delay=0.01, deadline=10.0)
    response = await routing.auto([slow, fast], REQUEST)

    assert response.meta.engines_used == ("mojeek",)
    assert statuses(response) == [("duckduckgo", "cancelled", None), ("mojeek", "ok", None)]
    await routing.aclose()
    assert slow_search.cancelled


async def test_the_hedge_delay_counts_from_the_first_start_not_from_its_first_steps() -> None:
    """Before: the hedge timer began when its task first ran, after the first engine's synchronous first steps
    (an HTTP client built on first use), so every hedge came that much late (4 ms in bench/gateway.py)."""
    clock = FakeClock()
    hung, _ = candidate("duckduckgo", hang=True)

    async def slow_to_start(request: SearchRequest):  # type: ignore[no-untyped-def]
        clock.advance(0.004)  # synchronous work before the first await
        return await hung.search(request)

    fast, _ = candidate("mojeek", ["https://m.example/"])
    began = clock.now()
    started: list[float] = []

    async def timed(request: SearchRequest):  # type: ignore[no-untyped-def]
        started.append(clock.now() - began)
        return await fast.search(request)

    first = Candidate(name="duckduckgo", index="duckduckgo", search=slow_to_start)
    second = Candidate(name="mojeek", index="mojeek", search=timed)
    response = await Router(clock=clock, hedge_delay=1.0, deadline=30.0).auto([first, second], REQUEST)
    assert response.meta.engines_used == ("mojeek",)
    assert started == [1.0]
