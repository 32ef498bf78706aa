"""Hostile content on the way out: a lone surrogate in a page reaches every door escaped, never as a crash.

A JSON page may spell a lone surrogate ("\\ud800"), which decodes to a str no UTF-8 encoder takes. The MCP SDK
encodes results as JSON in UTF-8, so the compact text escapes it; REST's JSON output escapes it as JSON does.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest
from mcp import Client

from webreach.config import ServerSettings, Settings
from webreach.frontends.http import build_app
from webreach.frontends.mcp import build_server, encodable, tools_over_gateway
from webreach.testing import FakeWeb

pytestmark = pytest.mark.network
LONE = '{"note": "before \\ud800 after"}'


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        server.pages.add("/lone.json", LONE, headers={"content-type": "application/json"})
        yield server


def settings(web: FakeWeb) -> Settings:
    return Settings(fake_web=web.url, state={"backend": "memory"})


def test_encodable_escapes_only_what_cannot_be_encoded() -> None:
    assert encodable("plain 研究") == "plain 研究"
    assert encodable("a\ud800b\udfffc") == "a\\ud800b\\udfffc"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_mcp_compact_output_escapes_a_lone_surrogate(web: FakeWeb, mode: str) -> None:
    server = build_server(lambda: tools_over_gateway(settings(web)), default_session="test")
    async with Client(server, mode=mode, raise_exceptions=True) as mcp:
        result = await mcp.call_tool("web_fetch", {"url": f"{web.url}/lone.json", "format": "text"})
    assert not result.is_error
    text = result.content[0].text
    assert "before \\ud800 after" in text
    text.encode("utf-8")  # what the SDK sent is valid UTF-8


async def test_rest_json_output_escapes_a_lone_surrogate(web: FakeWeb) -> None:
    app = build_app(settings(web))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url=f"http://127.0.0.1:{ServerSettings().port}") as client,
    ):
        response = await client.post("/v1/fetch", json={"url": f"{web.url}/lone.json", "format": "text"})
    assert response.status_code == 200, response.text
    assert b"before \\ud800 after" in response.content  # JSON's own escape, in valid UTF-8
    assert "before \ud800 after" in json.loads(response.content)["content"]
