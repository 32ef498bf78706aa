"""Engines read the time only through the clock the Gateway hands them (never the system clock)."""

from __future__ import annotations

import httpx

from webreach import Gateway, SearchRequest, Settings
from webreach.testing import FakeClock
from webreach.testing.recordings import engine_recordings


async def test_the_gateway_hands_its_clock_to_its_engines() -> None:
    recording = engine_recordings("mojeek")["results"]
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return recording.to_response(request)

    clock = FakeClock(1_700_000_000)  # 2023-11-14 22:13 UTC
    async with Gateway.from_settings(Settings(), transport=httpx.MockTransport(answer), clock=clock) as gateway:
        response = await gateway.search(SearchRequest(query="python asyncio", freshness="week"), engine="mojeek")
    assert response.results
    assert [request.url.params["since"] for request in sent] == ["20231107"]
