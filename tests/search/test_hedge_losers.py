"""Hedged auto over real sockets: the loser's task ends and its connection is closed soon after the answer,
without the caller waiting for either (the routing side is tests/routing/test_reaper.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from webreach import Gateway, SearchRequest, Settings
from webreach.testing import FakeWeb

pytestmark = pytest.mark.network

BOUND = 10.0  # seconds a loser may take to unwind before the test gives up (never reached when it works)


def established_to(port: int) -> int:
    """Client sockets on this machine in ESTABLISHED state towards loopback `port` (from /proc/net/tcp*)."""
    count = 0
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        if not table.exists():
            continue
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()
            remote_port = int(fields[2].rsplit(":", 1)[1], 16)
            count += remote_port == port and fields[3] == "01"
    return count


def search_tasks() -> list[asyncio.Task[object]]:
    return [task for task in asyncio.all_tasks() if task.get_name().startswith("webreach-search-")]


async def test_hedged_loser_ends_and_its_connection_closes_after_the_answer() -> None:
    async with FakeWeb() as web:
        web.set_scenario("duckduckgo", fault="hang")
        settings = Settings(fake_web=web.url, hedge_delay=0.05, request_deadline=30.0, engine_timeout=30.0)
        async with Gateway.from_settings(settings) as gateway:
            response = await gateway.search(SearchRequest(query="python asyncio"), engines=["duckduckgo", "mojeek"])
            assert response.meta.engines_used == ("mojeek",)
            assert [(a.engine, a.status) for a in response.meta.attempts] == [
                ("duckduckgo", "cancelled"),
                ("mojeek", "ok"),
            ]
            async with asyncio.timeout(BOUND):
                while search_tasks():
                    await asyncio.sleep(0.01)
            # the winner's connection may stay pooled for the next search; the hung one must be gone
            async with asyncio.timeout(BOUND):
                while established_to(web.port) > 1:
                    await asyncio.sleep(0.01)
            assert web.count("duckduckgo") == 1
        assert established_to(web.port) == 0  # closing the Gateway closes the pooled one too
