"""Two Gateways (each its own Redis client and pool, as two replicas have) sharing one Redis: what one learns the
other knows. Real HTTP over loopback to the fake web, which counts the upstream requests."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from webreach import (
    BlockedError,
    EngineSettings,
    Gateway,
    SearchRequest,
    Settings,
    SuspendedError,
    ThrottledError,
    Toolbox,
)
from webreach.config import CacheSettings, StateSettings
from webreach.errors import UnknownImageTokenError
from webreach.search.service import EngineStatus
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


async def test_a_captcha_seen_by_one_replica_suspends_the_engine_on_the_other(
    web: FakeWeb, redis_url: str, tmp_path: Path
) -> None:
    web.set_scenario("duckduckgo", fault="captcha")
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(replica(web, redis_url, tmp_path / "a"))
        second = await stack.enter_async_context(replica(web, redis_url, tmp_path / "b"))
        with pytest.raises(BlockedError):
            await first.search(SearchRequest(query="python asyncio"), engine="duckduckgo")
        # the other replica takes breaker changes in on its sync beat; engine statuses force a look each time
        for _ in range(100):  # bounded: at most ~5 s
            if status_of(second, "duckduckgo").breaker == "open":
                break
            await asyncio.sleep(0.05)
        assert status_of(second, "duckduckgo").last_error == "captcha"
        with pytest.raises(SuspendedError):
            await second.search(SearchRequest(query="rust tokio"), engine="duckduckgo")
    assert web.count("duckduckgo") == 1, "no second CAPTCHA upstream"


def status_of(gateway: Gateway, engine: str) -> EngineStatus:
    return next(status for status in gateway.engines.statuses() if status.name == engine)


async def test_a_ref_given_by_one_replica_reads_on_the_other(web: FakeWeb, redis_url: str, tmp_path: Path) -> None:
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(replica(web, redis_url, tmp_path / "a"))
        second = await stack.enter_async_context(replica(web, redis_url, tmp_path / "b"))
        found = await Toolbox.over(first).call("web_search", {"query": "python asyncio", "engine": "mojeek"})
        assert not found.is_error and "[1]" in found.text
        first_url = await first.sessions.resolve("default", 1)
        read = await Toolbox.over(second).call("web_fetch", {"ref": 1})
        assert await second.sessions.resolve("default", 1) == first_url
        unknown = await Toolbox.over(second).call("web_fetch", {"ref": 999})
    assert unknown.is_error and "unknown_ref" in unknown.text
    assert not read.is_error and f"URL: {first_url}" in read.text, "the second replica read the first one's ref"


async def test_an_image_token_added_on_one_replica_crops_on_the_other(
    web: FakeWeb, redis_url: str, tmp_path: Path
) -> None:
    picture = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(picture, format="PNG")
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(replica(web, redis_url, tmp_path / "a"))
        second = await stack.enter_async_context(replica(web, redis_url, tmp_path / "b"))
        added = await first.images.upload("agent", picture.getvalue())
        crop = json.dumps({"crops": {added.token: [0, 0, 20, 15]}})
        cut = await Toolbox.over(second).call("crop_images", crop, session="agent", output="json")
        again = await Toolbox.over(first).call("crop_images", crop, session="agent", output="json")
        elsewhere = await Toolbox.over(second).call("crop_images", crop, session="another agent")
    assert added.token == "<obs_1>"
    assert not cut.is_error and json.loads(cut.text)["crops"][added.token]["token"] == "<obs_2>"
    assert not again.is_error and json.loads(again.text)["crops"][added.token]["token"] == "<obs_3>", "numbered once"
    assert isinstance(elsewhere.error, UnknownImageTokenError), "sessions stay apart across replicas"
