"""The MCP server in-process with the SDK's own Client: tools, results, error results, sessions, lifespan.

Both protocol eras are covered: "legacy" runs the initialize handshake over in-memory streams, "auto" the
2026-07-28 per-request path. Real processes over stdio and HTTP are in test_mcp_stdio.py and test_mcp_http.py.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from webreach.config import Settings
from webreach.frontends.mcp import (
    SESSION_META,
    build_server,
    declares_headers,
    http_endpoint,
    named_session,
    tools_over_gateway,
)
from webreach.gateway import Gateway
from webreach.testing import FakeWeb
from webreach.tools import Toolbox

pytestmark = pytest.mark.network
MODES = ["legacy", "auto"]


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


def settings(web: FakeWeb, **fields: Any) -> Settings:
    return Settings(fake_web=web.url, state={"backend": "memory"}, **fields)


def client(web: FakeWeb, mode: str, **fields: Any) -> Client:
    server = build_server(lambda: tools_over_gateway(settings(web, **fields)), default_session="test")
    return Client(server, mode=mode, raise_exceptions=True)


def body(result: Any) -> dict[str, Any]:
    assert len(result.content) == 1
    parsed: dict[str, Any] = json.loads(result.content[0].text)
    return parsed


@pytest.mark.parametrize("mode", MODES)
async def test_tools_are_the_generated_schemas(web: FakeWeb, mode: str) -> None:
    async with Gateway.from_settings(settings(web)) as gateway:
        expected = Toolbox.over(gateway).schemas("mcp")
    async with client(web, mode) as mcp:
        listed = await mcp.list_tools()
    assert [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in listed.tools] == expected
    assert all(tool.annotations and tool.annotations.read_only_hint for tool in listed.tools)
    # only what differs from MCP's defaults is sent: openWorldHint is true when absent
    assert all(tool.annotations and tool.annotations.open_world_hint in (None, True) for tool in listed.tools)


@pytest.mark.parametrize("mode", MODES)
async def test_search_answers_compact_text_with_refs(web: FakeWeb, mode: str) -> None:
    async with client(web, mode) as mcp:
        result = await mcp.call_tool("web_search", {"query": "python asyncio", "engine": "mojeek", "limit": "2"})
    assert not result.is_error
    text = result.content[0].text
    assert text.startswith("Results via mojeek")
    assert "[1] " in text
    assert "[2] " in text
    assert "[3] " not in text
    assert "https://" not in text  # refs replace URLs
    assert text.endswith("Read a result with web_fetch(ref=N).")


@pytest.mark.parametrize("mode", MODES)
async def test_a_failed_call_is_an_error_result_with_the_json_body(web: FakeWeb, mode: str) -> None:
    async with client(web, mode) as mcp:
        result = await mcp.call_tool("web_search", {"query": "python", "engine": "altavista"})
    assert result.is_error
    error = body(result)
    assert (error["status"], error["tool"], error["code"], error["retry_after"]) == (
        "error",
        "web_search",
        "invalid_input",
        None,
    )
    assert "mojeek" in error["message"]


async def test_engine_failures_carry_code_and_retry_after(web: FakeWeb) -> None:
    web.set_scenario("mojeek", fault="retry_after", retry_after=90)
    async with client(web, "legacy") as mcp:
        result = await mcp.call_tool("web_search", {"query": "python asyncio", "engine": "mojeek"})
    assert result.is_error
    assert body(result)["code"] == "rate_limited"
    assert body(result)["retry_after"] == 90


async def test_unknown_and_disabled_tools_are_error_results(web: FakeWeb) -> None:
    async with client(web, "legacy", tools={"enabled": ["web_search"]}) as mcp:
        assert [tool.name for tool in (await mcp.list_tools()).tools] == ["web_search"]
        unknown = await mcp.call_tool("web_browse", {})
        disabled = await mcp.call_tool("web_fetch", {"ref": 1})
    assert body(unknown)["code"] == "invalid_input"
    assert "web_search" in body(unknown)["message"]
    assert body(disabled)["code"] == "invalid_input"
    assert "not enabled" in body(disabled)["message"]


async def test_refs_resolve_within_the_connection_session(web: FakeWeb) -> None:
    async with client(web, "legacy") as mcp:
        before = await mcp.call_tool("web_fetch", {"ref": 7})
        await mcp.call_tool("web_search", {"query": "python asyncio", "engine": "mojeek", "limit": 3})
        after = await mcp.call_tool("web_fetch", {"ref": 7})
    assert "no search results yet" in body(before)["message"]
    assert "refs so far: 1-3" in body(after)["message"]


async def test_the_lifespan_opens_one_gateway_and_closes_it(web: FakeWeb) -> None:
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def opener() -> AsyncIterator[Toolbox]:
        events.append("open")
        async with Gateway.from_settings(settings(web)) as gateway:
            yield Toolbox.over(gateway)
        events.append("closed")

    async with Client(build_server(opener, default_session="x"), mode="legacy") as mcp:
        await mcp.list_tools()
        await mcp.call_tool("web_search", {"query": "python", "engine": "mojeek"})
        assert events == ["open"]
    assert events == ["open", "closed"]


def test_the_named_session_precedence() -> None:
    assert named_session(None, {}, None) is None  # none named: the pipeline uses the caller's or the default
    assert named_session(None, {}, "cli") == "cli"  # `webreach mcp --session cli`
    assert named_session(None, {"mcp-session-id": "abc"}, None) is None  # an MCP session is no ref namespace
    assert named_session(None, {"x-webreach-session": "research"}, "cli") == "research"
    assert named_session({SESSION_META: "meta"}, {"x-webreach-session": "research"}, "cli") == "meta"


async def test_a_meta_session_keeps_its_own_refs(web: FakeWeb) -> None:
    async with client(web, "legacy") as mcp:
        await mcp.call_tool("web_search", {"query": "python asyncio", "engine": "mojeek", "limit": 3})
        await mcp.call_tool("web_search", {"query": "rust", "engine": "mojeek", "limit": 2}, meta={SESSION_META: "r"})
        default = await mcp.call_tool("web_fetch", {"ref": 9})
        named = await mcp.call_tool("web_fetch", {"ref": 9}, meta={SESSION_META: "r"})
        bad = await mcp.call_tool("web_fetch", {"ref": 1}, meta={SESSION_META: 5})
        reserved = await mcp.call_tool("web_fetch", {"ref": 1}, meta={SESSION_META: "@someone/default"})
    assert "refs so far: 1-3" in body(default)["message"]
    assert "refs so far: 1-2" in body(named)["message"]
    assert bad.is_error and body(bad)["code"] == "invalid_input"
    assert reserved.is_error and body(reserved)["code"] == "invalid_input"


def test_only_a_schema_with_x_mcp_header_declares_headers() -> None:
    assert not declares_headers({"type": "object", "properties": {"q": {"type": "string"}}})
    nested = {"type": "object", "properties": {"o": {"anyOf": [{"type": "string", "x-mcp-header": "Region"}]}}}
    assert declares_headers(nested)


@pytest.mark.parametrize("mode", MODES)
async def test_no_header_schema_walk_yet_arguments_still_validated(web: FakeWeb, mode: str) -> None:
    server = build_server(lambda: tools_over_gateway(settings(web)), default_session="test")
    lookup = server.get_tool_input_schema
    assert lookup is not None
    async with Client(server, mode=mode, raise_exceptions=True) as mcp:
        # webreach declares no Mcp-Param-* headers, so the SDK is told there is nothing to check per call
        assert all(lookup(tool.name) is None for tool in (await mcp.list_tools()).tools)
        bad = await mcp.call_tool("web_search", {"query": "x", "limit": "many"})
        good = await mcp.call_tool("web_search", {"query": "python", "limit": "2"})
    assert bad.is_error and body(bad)["code"] == "invalid_input"
    assert not good.is_error


async def test_idle_sessions_are_reaped_so_the_cap_frees_up(web: FakeWeb) -> None:
    endpoint = http_endpoint(
        lambda: tools_over_gateway(settings(web)),
        allowed_hosts=["*"],
        allowed_origins=["*"],
        session_idle_timeout=0.3,
        max_sessions=1,
    )
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    transport = httpx.ASGITransport(app=endpoint.app)
    async with endpoint.running(), httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        first = await http.post("/mcp", json=init, headers=headers)
        refused = await http.post("/mcp", json=init, headers=headers)  # one session open: the cap
        statuses = []
        for _ in range(50):  # a per-call client never closes its session; idling frees the slot
            await anyio.sleep(0.1)
            again = await http.post("/mcp", json=init, headers=headers)
            statuses.append(again.status_code)
            if again.status_code == 200:
                break
    assert first.status_code == 200 and first.headers["mcp-session-id"]
    assert refused.status_code == 503
    assert statuses[-1] == 200
