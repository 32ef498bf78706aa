"""The console's "Test connection" (Gateway.probe): a real search past the cache and the breaker, which it never
changes: a CAPTCHA is reported with its code and leaves a closed breaker closed, and an engine suspended by real
calls is still asked (and stays suspended until an operator resets it)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from webreach import Gateway, SearchRequest, Settings
from webreach.errors import WebreachError
from webreach.testing import FakeWeb

pytestmark = pytest.mark.network
ENGINE = "mojeek"


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


def settings(web: FakeWeb) -> Settings:
    """The fake web, with our own pacing out of the way (probes follow each other at once here)."""
    return Settings(fake_web=web.url, engines={ENGINE: {"rate_per_minute": 100_000}})


def breaker(gateway: Gateway) -> str:
    return next(status.breaker for status in gateway.engines.statuses() if status.name == ENGINE)


async def test_a_probe_reports_a_captcha_without_opening_the_breaker(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings(web)) as gateway:
        ok = await gateway.engines.probe(ENGINE)
        assert (ok.status, ok.code) == ("ok", None) and ok.hits > 0
        web.set_scenario(ENGINE, fault="captcha")
        for _ in range(3):
            walled = await gateway.engines.probe(ENGINE)
            assert walled.status == "blocked" and walled.code in ("captcha", "blocked") and walled.hint
        assert breaker(gateway) == "closed"
        assert web.count(ENGINE) == 4  # every probe reached the engine: none was answered from the cache


async def test_a_probe_asks_a_suspended_engine_and_leaves_it_suspended(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings(web)) as gateway:
        web.set_scenario(ENGINE, fault="captcha")
        with pytest.raises(WebreachError):
            await gateway.search(SearchRequest(query="trip it"), engine=ENGINE)
        assert breaker(gateway) == "open"
        web.reset(ENGINE)
        healthy = await gateway.engines.probe(ENGINE)
        assert healthy.status == "ok" and healthy.hits > 0
        assert breaker(gateway) == "open"  # the operator decides: the reset button closes it
