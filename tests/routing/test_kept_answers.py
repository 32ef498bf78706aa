"""A cached answer's response is kept whole with its cache entry (routing/kept.py): each call that entry answers
gets a copy carrying its own attempt (reported, cached) and elapsed time, and everything else the first built."""

from __future__ import annotations

from webreach.models import EngineAttempt, Hit, SearchMeta, SearchRequest, SearchResponse
from webreach.policies.cache import Cache, freshness_ttl
from webreach.routing import Candidate, Router
from webreach.routing.kept import COPIES_PER_ENTRY, KEPT_PER_ENTRY, copied
from webreach.state.cache_store import MemoryCacheStore
from webreach.testing.clock import FakeClock

from .fakes import FakeSearch
from .test_cached_at_once import Heard

URLS = ("https://a.example/1", "https://a.example/2", "https://a.example/3")


class Slow(Heard):
    """A listener during which `ms` milliseconds pass (so the search's elapsed time differs per call)."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__()
        self.clock = clock
        self.ms = 0.0

    def __call__(self, attempt: EngineAttempt) -> None:
        super().__call__(attempt)
        self.clock.advance(self.ms / 1000)


def engine(clock: FakeClock, heard: Heard, store: MemoryCacheStore) -> tuple[Candidate, FakeSearch, Cache]:
    inner = FakeSearch("mojeek", URLS)
    # an engine that takes no count: requests differing in limit share one entry, each answer cut to its limit
    cache = Cache(inner, engine="mojeek", store=store, clock=clock, ttl_for=freshness_ttl(600), ignores=("limit",))
    candidate = Candidate(name="mojeek", index="mojeek", search=cache, on_attempt=heard, at_once=cache.at_once)
    return candidate, inner, cache


async def test_each_cached_call_gets_the_kept_response_with_its_own_attempt_and_elapsed_time() -> None:
    clock, store = FakeClock(), MemoryCacheStore()
    heard = Slow(clock)
    candidate, inner, _ = engine(clock, heard, store)
    router = Router(clock=clock, hedge_delay=1.0, deadline=30.0)
    request = SearchRequest(query="python asyncio", limit=5)
    await router.single(candidate, request)  # the engine's answer fills the entry
    answers: list[SearchResponse] = []
    for ms in (2.0, 7.5, 3.25):
        heard.ms = ms
        answers.append(await router.single(candidate, request))

    assert inner.calls == 1
    assert [answer.meta.elapsed_ms for answer in answers] == [2.0, 7.5, 3.25]  # each call's own time
    for answer, told in zip(answers, heard.attempts[1:], strict=True):
        assert answer.meta.attempts == (told,)  # the attempt told to the listener is the one in meta
        assert (told.engine, told.status, told.cached, told.hedged, told.count) == ("mojeek", "ok", True, False, 3)
        assert answer.meta.engines_used == ("mojeek",) and answer.meta.mode == "engine"
    # kept whole: the results are the first cached answer's, not rebuilt; the copies are distinct objects
    assert answers[1].results is answers[0].results and answers[2].results is answers[0].results
    assert len({id(answer) for answer in answers}) == 3 and len({id(a.meta) for a in answers}) == 3
    expected = SearchResponse(
        query="python asyncio",
        results=answers[0].results,
        meta=SearchMeta(mode="engine", engines_used=("mojeek",), attempts=(heard.attempts[-1],), elapsed_ms=3.25),
    )
    assert answers[2] == expected and answers[2].model_dump_json() == expected.model_dump_json()


async def test_what_shapes_a_response_keeps_its_own_copy() -> None:
    clock, store = FakeClock(), MemoryCacheStore()
    heard = Heard()
    candidate, inner, _ = engine(clock, heard, store)
    router = Router(clock=clock, hedge_delay=1.0, deadline=30.0)
    await router.single(candidate, SearchRequest(query="python asyncio", limit=5))

    # the same cache entry: the key casefolds the query and leaves the limit out
    spelled = await router.single(candidate, SearchRequest(query="Python Asyncio", limit=5))
    fewer = await router.single(candidate, SearchRequest(query="python asyncio", limit=2))
    auto = await router.auto([candidate], SearchRequest(query="python asyncio", limit=5))
    again = await router.single(candidate, SearchRequest(query="python asyncio", limit=5))

    assert spelled.query == "Python Asyncio" and len(spelled.results) == 3
    assert fewer.query == "python asyncio" and [hit.url for hit in fewer.results] == list(URLS[:2])
    assert auto.meta.mode == "auto" and again.meta.mode == "engine"
    assert [a.meta.attempts[0].cached for a in (spelled, fewer, auto, again)] == [True] * 4
    assert inner.calls == 1  # all from the one entry, each answer its own request's
    assert again.results is not fewer.results and again.results == spelled.results


async def test_an_entry_keeps_a_bounded_number_of_shapes_and_a_new_entry_starts_afresh() -> None:
    clock, store = FakeClock(), MemoryCacheStore()
    candidate, inner, cache = engine(clock, Heard(), store)
    router = Router(clock=clock, hedge_delay=1.0, deadline=30.0)
    request = SearchRequest(query="python asyncio", limit=10)
    await router.single(candidate, request)
    for limit in range(1, KEPT_PER_ENTRY * 2):
        response = await router.single(candidate, SearchRequest(query="python asyncio", limit=limit))
        assert len(response.results) == min(limit, 3)
    entry = store.peek(cache.key(request), now=clock.now())
    assert entry is not None and 0 < len(entry.derived) <= KEPT_PER_ENTRY

    clock.advance(601)  # the entry expires; the engine answers again and its new entry keeps its own response
    fresh = await router.single(candidate, request)
    cached = await router.single(candidate, request)
    assert inner.calls == 2 and not fresh.meta.attempts[0].cached and cached.meta.attempts[0].cached
    assert cached.results == fresh.results and cached.results is not response.results


def test_copied_is_model_copy_field_for_field() -> None:
    attempt = EngineAttempt(engine="mojeek", status="ok", latency_ms=0.5, count=1, cached=True, unsupported=("x",))
    hit = Hit(rank=1, title="t", url="https://a.example/", engine="mojeek")
    meta = SearchMeta(mode="auto", engines_used=("mojeek",), attempts=(attempt,), elapsed_ms=1.0)
    response = SearchResponse(query="q", results=(hit,), meta=meta, answer="an answer")
    response.derived["memo"] = 1
    for model, changes in (
        (attempt, {"latency_ms": 0.75}),
        (meta, {"attempts": (attempt, attempt), "elapsed_ms": 2.0}),
        (response, {"meta": meta.model_copy(update={"elapsed_ms": 9.0})}),
    ):
        mine, theirs = copied(model, **changes), model.model_copy(update=changes)
        assert mine == theirs and mine is not model and type(mine) is type(model)
        assert mine.model_dump_json() == theirs.model_dump_json()
        assert mine.model_fields_set == theirs.model_fields_set
        assert mine.__pydantic_extra__ == theirs.__pydantic_extra__
        assert mine.__pydantic_private__ == theirs.__pydantic_private__
    assert copied(response).derived is response.derived  # shared, as model_copy shares it
    assert response.model_copy().derived is response.derived


async def test_calls_whose_numbers_come_out_alike_get_the_same_frozen_copies_and_each_entry_keeps_a_few() -> None:
    clock, store = FakeClock(), MemoryCacheStore()
    heard = Slow(clock)
    candidate, _, cache = engine(clock, heard, store)
    router = Router(clock=clock, hedge_delay=1.0, deadline=30.0)
    request = SearchRequest(query="python asyncio", limit=5)
    await router.single(candidate, request)
    heard.ms = 2.0
    first, second = await router.single(candidate, request), await router.single(candidate, request)
    assert first is second and heard.attempts[-1] is heard.attempts[-2]  # frozen values: shared, not copied again
    heard.ms = 3.0
    third = await router.single(candidate, request)
    assert third is not first and third.meta.elapsed_ms == 3.0 and first.meta.elapsed_ms == 2.0
    for n in range(COPIES_PER_ENTRY + 5):  # more numbers than an entry keeps: the oldest go, answers stay right
        heard.ms = 10.0 + n
        assert (await router.single(candidate, request)).meta.elapsed_ms == 10.0 + n
    heard.ms = 2.0
    again = await router.single(candidate, request)
    assert again is not first and again == first  # its copy had gone: made anew, equal
    entry = store.peek(cache.key(request), now=clock.now())
    assert entry is not None and len(entry.derived["copies"]) <= COPIES_PER_ENTRY
