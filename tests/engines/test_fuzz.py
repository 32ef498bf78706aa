"""Property: whatever an engine answers (body, headers, status), its reading is hits or a typed webreach error,
never another exception (which used to fail the whole search with HTTP 500, multi mode included).

Inputs come from webreach.testing.mutations: every engine's recordings and its real captures in ../shared/data
(when present), mutated (byte flips, truncation, encoding swaps, BOMs, NUL and control characters, deep
nesting and tree-builder floods, huge attributes, repeated elements, malformed IPv6 links, JSON values of the
wrong type, lone surrogates, non-ASCII headers, odd Retry-After values and statuses), and generated documents.
Each answer goes through Gateway.engines.parse_saved with its raw headers, the path a live answer takes after the
engine caller. Hypothesis draws the Random that drives a mutation, so failures shrink and replay.
40 examples per engine by default; WEBREACH_FUZZ=long runs 2,000 (bench/fuzz.py reports timings).
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webreach import Gateway, engines
from webreach.config import Settings
from webreach.engines import Tokens
from webreach.errors import ParseError, WebreachError
from webreach.models import Hit, SearchRequest
from webreach.search.parsing import INLINE_BYTES, EngineParsing
from webreach.testing.mutations import MUTATIONS, Case, generated, mutate, seed_cases
from webreach.testing.recordings import engine_recordings

pytestmark = pytest.mark.fuzz

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
EXAMPLES = 2000 if os.environ.get("WEBREACH_FUZZ") == "long" else 40
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES < 1000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)  # fmt: skip
SEEDS = {name: seed_cases(name, data_dir=SHARED_DATA) for name in engines.names()}


@pytest.fixture(scope="module")
def gateway() -> Iterator[Gateway]:
    gateway = Gateway.from_settings(Settings(state={"backend": "memory"}, cache={"backend": "none"}))
    yield gateway
    asyncio.run(gateway.aclose())


def read(gateway: Gateway, engine: str, case: Case) -> list[Hit] | WebreachError:
    try:
        return list(gateway.engines.parse_saved(engine, case.body, status=case.status, headers=case.headers).results)
    except WebreachError as error:
        return error


def check(outcome: list[Hit] | WebreachError) -> None:
    """Hits carry URLs the session store can keep and text that encodes as UTF-8; errors carry a code."""
    if isinstance(outcome, WebreachError):
        assert outcome.code and str(outcome)
        return
    for hit in outcome:
        assert hit.url.startswith(("http://", "https://"))
        for text in (hit.url, hit.title, hit.snippet, hit.date or "", hit.source or "", hit.display_url or ""):
            text.encode("utf-8")  # a lone surrogate raises here


@pytest.mark.parametrize("engine", engines.names())
@FUZZ
@given(data=st.data())
def test_mutated_answers_end_in_hits_or_a_typed_error(gateway: Gateway, engine: str, data: st.DataObject) -> None:
    seeds = SEEDS[engine]
    seed = data.draw(st.sampled_from(seeds), label="seed")
    rng = data.draw(st.randoms(use_true_random=False), label="rng")
    case = mutate(seed, rng, count=data.draw(st.integers(1, 3), label="mutations"))
    check(read(gateway, engine, case))


@pytest.mark.parametrize("engine", engines.names())
@settings(FUZZ, max_examples=max(EXAMPLES // 2, 1))
@given(rng=st.randoms(use_true_random=False))
def test_generated_answers_end_in_hits_or_a_typed_error(gateway: Gateway, engine: str, rng: random.Random) -> None:
    check(read(gateway, engine, generated(rng)))


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_every_mutation_on_every_engine_seed(gateway: Gateway, name: str) -> None:
    """Each mutation alone on every engine's first and last seed (a recording, a capture when there is one): no
    mutation is left to chance."""
    rng = random.Random(name)
    for engine, seeds in SEEDS.items():
        for seed in {seeds[0], seeds[-1]}:
            check(read(gateway, engine, MUTATIONS[name](seed, rng)))


@pytest.mark.parametrize(
    ("name", "value"),
    [(b"x-served-by", "café".encode()), (b"x-served-by", b"caf\xe9"), (b"retry-after", "²".encode()),
     (b"retry-after", "١٢".encode()), (b"x-\xe9", b"\x80")],
)  # fmt: skip
def test_non_ascii_header_bytes_reach_the_engine(gateway: Gateway, name: bytes, value: bytes) -> None:
    """A 429 with an odd header is still a rate limit; '²' and '١٢' are no Retry-After."""
    headers = ((b"content-type", b"application/json"), (name, value))
    outcome = read(gateway, "serper", Case(429, headers, b'{"message": "slow down"}'))
    assert isinstance(outcome, WebreachError) and outcome.code == "rate_limited"
    assert outcome.retry_after is None


def test_deep_json_is_a_parse_error_for_every_json_engine(gateway: Gateway) -> None:
    body = b'{"results": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    for engine in ("bocha", "brave_api", "exa", "google_cse", "jina", "metaso", "searxng", "serpapi", "serper"):
        outcome = read(gateway, engine, Case(200, ((b"content-type", b"application/json"),), body))
        assert isinstance(outcome, ParseError), engine


def test_a_lone_surrogate_url_drops_that_hit_only(gateway: Gateway) -> None:
    bad, good = (
        b'{"url": "https://a.example/\\ud800", "title": "bad"}',
        b'{"url": "https://b.example/", "title": "ok \\udfff"}',
    )
    body = b'{"results": [' + bad + b", " + good + b"]}"
    outcome = read(gateway, "tavily", Case(200, ((b"content-type", b"application/json"),), body))
    assert isinstance(outcome, list)
    assert [hit.url for hit in outcome] == ["https://b.example/"]
    assert outcome[0].title == "ok \ufffd"


class Stalling(engines.Engine):
    """An engine whose parse holds its thread until released: a parse that runs past any budget."""

    name = "stalling"
    kind = "scraped"
    base_url = "https://stalling.test"

    def __init__(self, release: threading.Event) -> None:
        super().__init__()
        self.release = release

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        return httpx.Request("GET", self.url("/"))

    def parse(self, response: httpx.Response) -> list[Hit]:
        self.release.wait(10)
        return []


async def test_a_parse_over_its_budget_is_that_engines_parse_error() -> None:
    """A large answer is parsed in a worker thread; past the budget the engine fails with a typed error while
    the event loop stays free (the awaiting task is what ends)."""
    release = threading.Event()
    engine = Stalling(release)
    parsing = EngineParsing(seconds=0.05)
    response = httpx.Response(200, content=b"<p>x</p>" * 10_000, request=httpx.Request("GET", engine.url("/")))
    try:
        with pytest.raises(ParseError) as raised:
            await parsing.handle(engine, response)
        assert raised.value.engine == "stalling"
    finally:
        release.set()
        parsing.close()


async def test_small_answers_parse_inline_and_large_ones_off_the_loop() -> None:
    """Both paths give the engine's own answer: hits from a real recording, whatever its size."""
    engine = engines.create("bing")
    body = SEEDS["bing"][0].body
    parsing = EngineParsing()
    try:
        for content in (body[:INLINE_BYTES], body + b" " * (INLINE_BYTES + 1)):
            response = httpx.Response(200, content=content, request=httpx.Request("GET", engine.url("/search")))
            try:
                hits: list[Hit] | WebreachError = await parsing.handle(engine, response)
            except WebreachError as error:
                hits = error
            check(hits)
    finally:
        parsing.close()


async def test_multi_search_keeps_the_good_engines_when_one_answers_with_a_hostile_page() -> None:
    """Over the real engine caller and router: a 500 KB page of nested divs with a non-ASCII header costs bing
    its attempt (parse_error), and mojeek's hits still come back."""
    mojeek = engine_recordings("mojeek")["results"]

    def answer(request: httpx.Request) -> httpx.Response:
        if "bing" in request.url.host:
            return httpx.Response(200, headers=[(b"x-served-by", "café".encode())], content=b"<div>" * 100_000)
        return mojeek.to_response()

    settings = Settings(state={"backend": "memory"}, cache={"backend": "none"})
    async with Gateway.from_settings(settings, transport=httpx.MockTransport(answer)) as gateway:
        response = await gateway.search(SearchRequest(query="python"), engine="multi", engines=["bing", "mojeek"])
    attempts = {attempt.engine: attempt for attempt in response.meta.attempts}
    assert attempts["bing"].code == "parse_error"
    assert response.results and {hit.engine for hit in response.results} == {"mojeek"}
