"""A real engine against the fake web over loopback: what users get when they point base_url at it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from webreach import engines
from webreach.config import EngineSettings
from webreach.errors import BlockedError, RateLimitedError, UnavailableError
from webreach.models import Hit, SearchRequest
from webreach.testing import FakeWeb, Limits

pytestmark = pytest.mark.network


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb(limits=Limits(stream_seconds=5, hang_seconds=5, idle_seconds=5)) as server:
        yield server


async def search(web: FakeWeb, name: str = "mojeek") -> list[Hit]:
    engine = engines.create(name, EngineSettings(base_url=web.engine_url(name)))
    async with httpx.AsyncClient(timeout=httpx.Timeout(2.0)) as client:
        response = await client.send(engine.build_request(SearchRequest(query="python asyncio")))
        return engine.handle(response)


async def test_engine_gets_hits_from_its_results_recording(web: FakeWeb) -> None:
    hits = await search(web)
    assert hits and all(hit.url.startswith("https://") for hit in hits)
    [logged] = web.requests("mojeek")
    assert logged.path == "/mojeek/search"
    assert "python" in logged.query


async def test_faults_become_typed_engine_errors(web: FakeWeb) -> None:
    web.set_scenario("mojeek", fault="captcha")
    with pytest.raises(BlockedError):
        await search(web)
    web.set_scenario("mojeek", fault="retry_after", retry_after=7)
    with pytest.raises(RateLimitedError) as limited:
        await search(web)
    assert limited.value.retry_after == 7.0
    web.set_scenario("mojeek", status=503)
    with pytest.raises(UnavailableError):
        await search(web)
