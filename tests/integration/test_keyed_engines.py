"""Every keyed engine end to end through the Gateway and the fake web: the key reaches the provider and nothing else.

Each engine that needs a key gets TEST_KEY and searches the loopback fake web in-process, with every log record
captured at DEBUG (httpx logs each request URL at INFO, and SerpApi's URL carries its key). The key must arrive
at the fake web (its request log keeps it only because these tests opt in with log_secrets=True), and must not
appear in the captured logs, the response JSON, or any error (message, dict or meta attempt) when the provider
answers 429 with Retry-After or 401. The conftest leak scan reads every captured log line as well.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from secret_keys import TEST_KEY
from webreach import AllEnginesFailedError, EngineSettings, Gateway, SearchRequest, Settings, WebreachError
from webreach import engines as registry
from webreach.config import StateSettings
from webreach.search.log_redaction import SecretLogFilter
from webreach.testing import FakeWeb

pytestmark = pytest.mark.network

KEYED = [name for name in registry.names() if registry.engine_class(name).needs_key]
OPTIONS: dict[str, dict[str, str]] = {"google_cse": {"cx": "0123456789abcdef0"}, "serpapi": {"engine": "google"}}
FAILURES = [pytest.param({"fault": "retry_after"}, id="retry_after"), pytest.param({"status": 401}, id="401")]


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb(log_secrets=True) as server:
        yield server


def keyed_settings(web: FakeWeb, name: str) -> Settings:
    engine = EngineSettings(api_key=TEST_KEY, options=OPTIONS.get(name, {}))  # type: ignore[arg-type]
    # one try and no hedging: a failure is reported at once, never waited out
    return Settings(
        fake_web=web.url, state=StateSettings(backend="memory"), engines={name: engine}, retries=0, hedge_delay=5.0
    )


def sent_to(web: FakeWeb, name: str) -> str:
    """Everything the fake web received for `name`: headers, query and body of each request."""
    return " ".join(f"{r.headers} {r.query} {r.body.decode(errors='replace')}" for r in web.requests(name))


def error_texts(error: WebreachError) -> list[str]:
    texts = [str(error), repr(error), error.message, str(error.to_dict()), error.hint or ""]
    if isinstance(error, AllEnginesFailedError):
        texts += [a.model_dump_json() for a in error.attempts]
        for inner in error.errors:
            texts += error_texts(inner)
    return texts


def test_every_keyed_engine_is_covered() -> None:
    assert {"serpapi", "google_cse", "brave_api", "tavily"} <= set(KEYED)


@pytest.mark.parametrize("name", KEYED)
async def test_a_keyed_search_sends_the_key_and_logs_none_of_it(
    web: FakeWeb, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with Gateway.from_settings(keyed_settings(web, name)) as gateway:
        response = await gateway.search(SearchRequest(query="python asyncio", limit=3), engine=name)
    assert response.results, f"{name} found nothing in its results recording"
    assert response.meta.attempts[0].status == "ok"
    assert TEST_KEY in sent_to(web, name), "the key must reach the provider"
    assert "HTTP Request: GET" in caplog.text or "HTTP Request: POST" in caplog.text, "httpx's request line is logged"
    assert TEST_KEY not in caplog.text
    assert TEST_KEY not in response.model_dump_json()


async def test_the_serpapi_request_line_is_logged_with_the_key_masked(
    web: FakeWeb, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with Gateway.from_settings(keyed_settings(web, "serpapi")) as gateway:
        await gateway.search(SearchRequest(query="python asyncio"), engine="serpapi")
    request_lines = [r.getMessage() for r in caplog.records if r.name == "httpx"]
    assert any("api_key=***" in line for line in request_lines), request_lines
    assert f"api_key={TEST_KEY}" in web.requests("serpapi")[0].query  # the provider still got it


@pytest.mark.parametrize("scenario", FAILURES)
@pytest.mark.parametrize("name", KEYED)
async def test_a_failing_keyed_search_reports_no_key(
    web: FakeWeb, name: str, scenario: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    web.set_scenario(name, **scenario)
    async with Gateway.from_settings(keyed_settings(web, name)) as gateway:
        with pytest.raises(WebreachError) as single:
            await gateway.search(SearchRequest(query="python asyncio"), engine=name)
        with pytest.raises(AllEnginesFailedError) as routed:
            await gateway.search(SearchRequest(query="python asyncio", limit=4), engine="auto", engines=[name])
    assert single.value.code in ("rate_limited", "quota_exhausted", "auth_failed"), single.value.to_dict()
    assert routed.value.attempts, "meta keeps the attempt"
    assert TEST_KEY in sent_to(web, name)
    for text in error_texts(single.value) + error_texts(routed.value):
        assert TEST_KEY not in text
    assert TEST_KEY not in caplog.text


async def test_the_gateway_puts_its_key_filter_on_the_http_loggers_while_it_lives(web: FakeWeb) -> None:
    def filters(logger: str) -> set[logging.Filter]:
        return {f for f in logging.getLogger(logger).filters if isinstance(f, SecretLogFilter)}

    before = filters("httpx")
    gateway = Gateway.from_settings(keyed_settings(web, "serpapi"))
    added = filters("httpx") - before
    assert len(added) == 1
    assert added <= filters("httpcore.http11"), "httpcore's own loggers get it too"
    await gateway.aclose()
    assert filters("httpx") == before
    assert not added & filters("httpcore.http11")
