"""Two Gateways (each its own Redis client and pool, as two replicas have) sharing one Redis: what one learns the
other knows. Real HTTP over loopback to the fake web, which counts the upstream requests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

from webreach import EngineSettings, Gateway, SearchRequest, Settings, ThrottledError
from webreach.config import CacheSettings, StateSettings
from webreach.testing import FakeWeb

pytestmark = [pytest.mark.network, pytest.mark.redis]


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


def replica(web: FakeWeb, redis_url: str, home: Path, **overrides: Any) -> Gateway:
    """A Gateway on the shared Redis, with its own state file (what is not in Redis stays per replica)."""
    fields: dict[str, Any] = {
        "fake_web": web.url,
        "request_deadline": 10.0,
        "cache": CacheSettings(backend="redis"),
        "state": StateSettings(backend="redis", url=redis_url, path=home / "state.sqlite3"),  # type: ignore[arg-type]
    }
    fields.update(overrides)
    return Gateway.from_settings(Settings(**fields))


async def test_a_search_cached_by_one_replica_is_a_hit_on_the_other(
    web: FakeWeb, redis_url: str, tmp_path: Path
) -> None:
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(replica(web, redis_url, tmp_path / "a"))
        second = await stack.enter_async_context(replica(web, redis_url, tmp_path / "b"))
        asked = await first.search(SearchRequest(query="python asyncio"), engine="mojeek")
        again = await second.search(SearchRequest(query="Python  asyncio"), engine="mojeek")
    assert asked.meta.attempts[0].cached is False
    assert again.meta.attempts[0].cached is True
    assert [hit.url for hit in again.results] == [hit.url for hit in asked.results]
    assert web.count("mojeek") == 1, "one upstream request for the fleet"


async def test_an_engines_pace_holds_across_replicas(web: FakeWeb, redis_url: str, tmp_path: Path) -> None:
    engines = {"mojeek": EngineSettings(rate_per_minute=6)}  # a burst of one token, the next in 10 s
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(replica(web, redis_url, tmp_path / "a", engines=engines))
        second = await stack.enter_async_context(replica(web, redis_url, tmp_path / "b", engines=engines))
        await first.search(SearchRequest(query="python asyncio"), engine="mojeek")
        with pytest.raises(ThrottledError) as refused:
            await second.search(SearchRequest(query="rust tokio"), engine="mojeek")
    assert refused.value.retry_after is not None and refused.value.retry_after > 2
    assert web.count("mojeek") == 1, "the second replica did not spend a token of its own"
