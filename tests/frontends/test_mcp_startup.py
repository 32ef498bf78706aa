"""`webreach mcp` starts at the SDK's speed (issue 38): over stdio the server answers `initialize` before its
gateway and tools are open (they open in the background), a request that needs them waits for them, and a bad
configuration found while opening answers those requests with its typed error instead of a traceback.
In-process with the SDK's own Client; never timed."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from webreach.config import Settings
from webreach.frontends.mcp import build_server, tools_over_gateway
from webreach.testing import FakeWeb
from webreach.tools import Toolbox

pytestmark = pytest.mark.network


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


def settings(web: FakeWeb, **fields: Any) -> Settings:
    return Settings(fake_web=web.url, state={"backend": "memory"}, **fields)


async def test_initialize_is_answered_before_the_tools_open(web: FakeWeb) -> None:
    events: list[str] = []
    release = anyio.Event()

    @contextlib.asynccontextmanager
    async def opener() -> AsyncIterator[Toolbox]:
        events.append("opening")
        await release.wait()  # the gateway is still being built
        async with tools_over_gateway(settings(web)) as toolbox:
            events.append("open")
            yield toolbox
        events.append("closed")

    listed: list[str] = []

    async def list_tools(mcp: Client) -> None:
        listed.extend(tool.name for tool in (await mcp.list_tools()).tools)

    server = build_server(opener, default_session="x", background=True)
    with anyio.fail_after(60):
        async with Client(server, mode="legacy", raise_exceptions=True) as mcp:
            assert "open" not in events  # the handshake is done; the tools are not open yet
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(list_tools, mcp)  # waits for the tools
                await anyio.wait_all_tasks_blocked()
                assert listed == []
                release.set()
            assert "web_search" in listed
            result = await mcp.call_tool("web_search", {"query": "python asyncio", "engine": "mojeek", "limit": 2})
            assert not result.is_error
            assert events == ["opening", "open"]
    assert events == ["opening", "open", "closed"]  # the server's end closes the gateway it opened


async def test_a_bad_configuration_answers_each_request_with_its_typed_error(web: FakeWeb) -> None:
    bad = settings(web, engines={"duckduckgoo": {"enabled": False}})  # a typo: no such engine
    server = build_server(lambda: tools_over_gateway(bad), default_session="x", background=True)
    with anyio.fail_after(60):
        async with Client(server, mode="legacy", raise_exceptions=True) as mcp:  # initialize still answered
            for request in (mcp.list_tools(), mcp.call_tool("web_search", {"query": "python"})):
                with pytest.raises(MCPError) as failed:
                    await request
                assert "unknown engine under [engines]: duckduckgoo" in failed.value.message
                assert "Valid engines: " in failed.value.message
                assert failed.value.data["code"] == "invalid_input"


async def test_served_over_http_the_tools_are_open_before_the_first_request(web: FakeWeb) -> None:
    """Without `background` (the HTTP door, which lends the tools its app opened) the lifespan opens them first."""
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def opener() -> AsyncIterator[Toolbox]:
        async with tools_over_gateway(settings(web)) as toolbox:
            events.append("open")
            yield toolbox

    with anyio.fail_after(60):
        async with Client(build_server(opener, default_session="x"), mode="legacy", raise_exceptions=True) as mcp:
            assert events == ["open"]
            assert "web_search" in [tool.name for tool in (await mcp.list_tools()).tools]
