"""MCP over streamable HTTP: a real `run_http` server process on loopback and the SDK's real client.

Covers both protocol eras ("legacy": the initialize handshake and an Mcp-Session-Id; "auto": 2026-07-28
self-contained requests) and which store session a call's refs live in (tools/call_session.py), checked through
REST on the same server.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from webreach.config import Settings
from webreach.gateway import Gateway
from webreach.tools import Toolbox

from .serving import ServerProcess
from .test_mcp_stdio import READ_PENDING, READ_PENDING_REASON, assert_ref_resolved

pytestmark = pytest.mark.network
TIME_LIMIT = 60


def mcp_client(server: ServerProcess, mode: str = "legacy") -> Client:
    return Client(f"{server.url}/mcp", mode=mode, read_timeout_seconds=TIME_LIMIT)


def body(result: Any) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads(result.content[0].text)
    return parsed


def rest_fetch(server: ServerProcess, ref: int, session: str | None = None) -> dict[str, Any]:
    headers = {"X-Webreach-Session": session} if session else {}
    response = httpx.post(f"{server.url}/v1/fetch", json={"ref": ref}, headers=headers, timeout=30, trust_env=False)
    parsed: dict[str, Any] = response.json()
    return parsed


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_tools_search_and_errors(server: ServerProcess, mode: str) -> None:
    async with Gateway.from_settings(Settings(state={"backend": "memory"})) as gateway:
        expected = Toolbox.over(gateway).schemas("mcp")
    with anyio.fail_after(TIME_LIMIT):
        async with mcp_client(server, mode) as mcp:
            listed = await mcp.list_tools()
            searched = await mcp.call_tool("web_search", {"query": "python asyncio", "engine": "mojeek"})
            failed = await mcp.call_tool("web_search", {"query": "python asyncio", "engine": "altavista"})
    assert [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in listed.tools] == expected
    assert searched.content[0].text.startswith("Results via mojeek")
    assert failed.is_error
    assert body(failed)["code"] == "invalid_input"


async def test_a_new_mcp_session_reads_the_refs_the_last_one_showed(server: ServerProcess) -> None:
    # clients that open an MCP session per call (langchain-mcp-adapters' get_tools) share the default session
    with anyio.fail_after(TIME_LIMIT):
        async with mcp_client(server) as first:
            await first.call_tool("web_search", {"query": "python asyncio", "engine": "mojeek", "limit": 3})
        async with mcp_client(server) as second:
            later = await second.call_tool("web_fetch", {"ref": 999})
    assert "refs so far: 1-" in body(later)["message"]
    assert "refs so far: 1-" in rest_fetch(server, 999)["message"]  # REST without a header: the same default


async def test_a_session_header_names_the_store_session(server: ServerProcess) -> None:
    with anyio.fail_after(TIME_LIMIT):
        async with (
            httpx2.AsyncClient(headers={"X-Webreach-Session": "research"}, timeout=TIME_LIMIT) as http,
            Client(streamable_http_client(f"{server.url}/mcp", http_client=http), mode="legacy") as mcp,
        ):
            await mcp.call_tool("web_search", {"query": "python asyncio", "engine": "mojeek", "limit": 3})
    # the same refs through REST, by the same session name
    assert "refs so far: 1-3" in rest_fetch(server, 9, "research")["message"]
    assert "no search results yet" in rest_fetch(server, 9, "elsewhere")["message"]


async def test_fetch_by_ref_after_search(server: ServerProcess) -> None:
    with anyio.fail_after(TIME_LIMIT):
        async with mcp_client(server) as mcp:
            await mcp.call_tool("web_search", {"query": "python asyncio", "engine": "mojeek", "limit": 2})
            fetched = None if READ_PENDING else await mcp.call_tool("web_fetch", {"ref": 1})
    if fetched is None:
        pytest.xfail(READ_PENDING_REASON)
    assert_ref_resolved(fetched, "docs.python.org")


async def test_a_client_given_the_bare_server_url_speaks_mcp_at_the_root(server: ServerProcess) -> None:
    """Issue 39: a gateway's MCP client configured with `http://host:9090` posts to `/`; before, it got 405 (GET /
    sends a browser to /docs, and still does)."""
    with anyio.fail_after(TIME_LIMIT):
        async with (
            httpx2.AsyncClient(timeout=TIME_LIMIT) as http,
            Client(streamable_http_client(server.url, http_client=http), mode="legacy") as mcp,
        ):
            tools = await mcp.list_tools()
            found = await mcp.call_tool("web_search", {"query": "python asyncio", "engine": "mojeek", "limit": 2})
    assert "web_search" in [tool.name for tool in tools.tools] and not found.is_error
    browser = httpx.get(server.url + "/", trust_env=False, follow_redirects=False)
    assert browser.status_code == 307 and browser.headers["location"] == "/docs"
