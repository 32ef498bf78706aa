"""EngineCaller over an httpx.MockTransport: warm-up tokens, the body cap, typed transport failures, no redirects."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import ClassVar

import httpx
import pytest

from secret_keys import TEST_KEY
from webreach.config import EngineSettings
from webreach.engines import Engine, Tokens
from webreach.errors import BlockedError, EngineTimeoutError, ParseError, RateLimitedError, UnavailableError
from webreach.models import Hit, SearchRequest
from webreach.search.engine_caller import EngineCaller
from webreach.search.warm_up import WarmUpTokens
from webreach.testing import FakeClock

Handler = Callable[[httpx.Request], httpx.Response]


class TokenEngine(Engine):
    """A minimal API engine whose searches need a token from GET /warm, sent back as X-Token."""

    name = "tokens"
    kind = "api"
    base_url = "https://engine.test"
    index = "tokens"
    warm_up_ttl: ClassVar[float] = 600.0

    def warm_up(self, request: SearchRequest) -> httpx.Request | None:
        return httpx.Request("GET", self.url("/warm"))

    def read_warm_up(self, response: httpx.Response) -> dict[str, str]:
        token = response.headers.get("x-token")
        return {"token": token} if token else {}

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        headers = {"X-Token": tokens["token"]} if tokens and "token" in tokens else {}
        return httpx.Request("GET", self.url("/search"), params={"q": request.query}, headers=headers)

    def parse(self, response: httpx.Response) -> list[Hit]:
        items = response.json()["results"]
        return [self.hit(rank, item["title"], item["url"]) for rank, item in enumerate(items, 1)]


def results(request: httpx.Request) -> httpx.Response:
    """A search answer that names the token it was sent with, so tests see what reached the engine."""
    body = {"results": [{"title": f"token={request.headers.get('x-token', '')}", "url": "https://a.example/"}]}
    return httpx.Response(200, json=body)


class Site:
    """The fake engine behind the transport: counts requests per path and answers through `handler`."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.paths: Counter[str] = Counter()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.paths[request.url.path] += 1
        return self.handler(request)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def client_for() -> AsyncIterator[Callable[[Site], httpx.AsyncClient]]:
    clients: list[httpx.AsyncClient] = []

    def make(site: Site) -> httpx.AsyncClient:
        # follow_redirects=True on purpose: the caller must not follow them whatever the client says
        clients.append(httpx.AsyncClient(transport=httpx.MockTransport(site), follow_redirects=True))
        return clients[-1]

    yield make
    for client in clients:
        await client.aclose()


def caller(client: httpx.AsyncClient, clock: FakeClock, max_body_bytes: int = 100_000) -> EngineCaller:
    return EngineCaller(TokenEngine(), client, tokens=WarmUpTokens(clock), max_body_bytes=max_body_bytes)


async def test_warm_up_is_sent_once_and_its_tokens_are_cached_until_they_expire(
    client_for: Callable[[Site], httpx.AsyncClient], clock: FakeClock
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"x-token": "abc"}) if request.url.path == "/warm" else results(request)

    site = Site(handler)
    search = caller(client_for(site), clock)
    first = await search(SearchRequest(query="one"))
    second = await search(SearchRequest(query="two"))
    assert [hit.title for hit in (*first.hits, *second.hits)] == ["token=abc", "token=abc"]
    assert site.paths == Counter({"/warm": 1, "/search": 2})
    clock.advance(TokenEngine.warm_up_ttl)
    await search(SearchRequest(query="three"))
    assert site.paths["/warm"] == 2


async def test_empty_warm_up_tokens_are_not_cached(
    client_for: Callable[[Site], httpx.AsyncClient], clock: FakeClock
) -> None:
    site = Site(lambda request: httpx.Response(200) if request.url.path == "/warm" else results(request))
    search = caller(client_for(site), clock)
    first = await search(SearchRequest(query="one"))
    await search(SearchRequest(query="two"))
    assert first.hits[0].title == "token="
    assert site.paths == Counter({"/warm": 2, "/search": 2}), "each search retries the warm-up"


async def test_a_body_over_the_cap_is_unavailable(
    client_for: Callable[[Site], httpx.AsyncClient], clock: FakeClock
) -> None:
    site = Site(lambda request: httpx.Response(200, content=b"x" * 2_000))
    with pytest.raises(UnavailableError, match="exceeded 1000 bytes") as caught:
        await caller(client_for(site), clock, max_body_bytes=1_000).send(httpx.Request("GET", "https://engine.test/"))
    assert caught.value.engine == "tokens"
    assert caught.value.retryable


async def test_a_body_within_the_cap_is_read_whole(
    client_for: Callable[[Site], httpx.AsyncClient], clock: FakeClock
) -> None:
    site = Site(lambda request: httpx.Response(200, content=b"x" * 1_000))
    response = await caller(client_for(site), clock, max_body_bytes=1_000).send(httpx.Request("GET", "https://e/"))
    assert response.content == b"x" * 1_000


@pytest.mark.parametrize(
    ("failure", "error"),
    [
        (httpx.ReadTimeout("slow"), EngineTimeoutError),
        (httpx.ConnectTimeout("slow"), EngineTimeoutError),
        (httpx.ConnectError("refused"), UnavailableError),
        (httpx.RemoteProtocolError("reset"), UnavailableError),
    ],
)
async def test_transport_failures_become_typed_errors(
    client_for: Callable[[Site], httpx.AsyncClient], clock: FakeClock, failure: httpx.HTTPError, error: type[Exception]
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise failure

    with pytest.raises(error) as caught:
        await caller(client_for(Site(handler)), clock)(SearchRequest(query="q"))
    assert getattr(caught.value, "engine", None) == "tokens"


async def test_redirects_are_not_followed_but_handed_to_the_engine(
    client_for: Callable[[Site], httpx.AsyncClient], clock: FakeClock
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/warm":
            return httpx.Response(200, headers={"x-token": "abc"})
        if request.url.path == "/search":
            return httpx.Response(302, headers={"location": "https://engine.test/captcha"})
        return httpx.Response(200, content=json.dumps({"results": []}).encode())

    site = Site(handler)
    with pytest.raises(BlockedError, match="redirected"):
        await caller(client_for(site), clock)(SearchRequest(query="q"))
    assert "/captcha" not in site.paths


class KeyedEngine(TokenEngine):
    """TokenEngine with a key in the query string, the way SerpApi takes it."""

    name = "keyed"
    needs_key = True

    def warm_up(self, request: SearchRequest) -> httpx.Request | None:
        return None

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        return httpx.Request("GET", self.url("/search"), params={"q": request.query, "api_key": self.api_key()})


async def test_transport_error_texts_never_carry_the_key(
    client_for: Callable[[Site], httpx.AsyncClient], clock: FakeClock
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"cannot reach {request.url}", request=request)  # httpx texts may quote the URL

    engine = KeyedEngine(EngineSettings(api_key=TEST_KEY))  # type: ignore[arg-type]
    search = EngineCaller(engine, client_for(Site(handler)), tokens=WarmUpTokens(clock), max_body_bytes=1_000)
    with pytest.raises(UnavailableError) as caught:
        await search(SearchRequest(query="q"))
    assert TEST_KEY not in str(caught.value)
    assert "api_key=***" in caught.value.message


async def test_non_ascii_header_bytes_are_kept_and_read_tolerantly(
    client_for: Callable[[Site], httpx.AsyncClient], clock: FakeClock
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/warm":
            return httpx.Response(200, headers=[(b"x-token", b"abc"), (b"x-served-by", "café".encode())])
        answer = results(request)
        return httpx.Response(200, headers=[(b"x-served-by", b"caf\xe9")], content=answer.content)

    hits = (await caller(client_for(Site(handler)), clock)(SearchRequest(query="one"))).hits
    assert [hit.title for hit in hits] == ["token=abc"]


async def test_a_retry_after_in_non_ascii_digits_is_no_number(
    client_for: Callable[[Site], httpx.AsyncClient], clock: FakeClock
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/warm":
            return httpx.Response(200, headers={"x-token": "abc"})
        return httpx.Response(429, headers=[(b"retry-after", "²".encode()), (b"x-served-by", "café".encode())])

    with pytest.raises(RateLimitedError) as caught:
        await caller(client_for(Site(handler)), clock)(SearchRequest(query="one"))
    assert caught.value.retry_after is None


async def test_an_exception_inside_the_parser_is_that_engines_parse_error(
    client_for: Callable[[Site], httpx.AsyncClient], clock: FakeClock
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/warm":
            return httpx.Response(200, headers={"x-token": "abc"})
        return httpx.Response(200, json={"results": 5})  # TokenEngine.parse iterates it: TypeError

    with pytest.raises(ParseError, match="could not read its answer") as caught:
        await caller(client_for(Site(handler)), clock)(SearchRequest(query="one"))
    assert caught.value.engine == "tokens"
