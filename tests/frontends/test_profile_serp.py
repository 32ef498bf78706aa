"""The "serp-chat" drop-in profile (seed-contracts.md A) replayed as the chat app calls it: `webreach serve` with
`[tools] profile = "serp-chat"` on loopback, the official MCP client over HTTP, every answer checked field by field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from webreach.testing import FakeWeb

from .serving import ServerProcess, http_server

pytestmark = pytest.mark.network
TIME_LIMIT = 60
HIT_FIELDS = {"rank", "title", "url", "display_url", "snippet", "engine", "source"}


@pytest.fixture(scope="module")
def serp(web: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with http_server(web, tmp_path_factory.mktemp("serp"), WEBREACH_TOOLS__PROFILE="serp-chat") as process:
        yield process


async def calls(server: ServerProcess, *wanted: tuple[str, dict[str, Any]]) -> list[Any]:
    with anyio.fail_after(TIME_LIMIT):
        async with Client(f"{server.url}/mcp", read_timeout_seconds=TIME_LIMIT) as mcp:
            return [await mcp.call_tool(name, arguments) for name, arguments in wanted]


def answer(result: Any) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads(result.content[0].text)
    return parsed


def check_search(body: dict[str, Any], *, engine: str, limit: int) -> None:
    assert set(body) == {"results", "meta"}
    results, meta = body["results"], body["meta"]
    assert 1 <= len(results) <= limit
    assert [hit["rank"] for hit in results] == list(range(1, len(results) + 1))
    for hit in results:
        assert set(hit) <= HIT_FIELDS and {"rank", "title", "url", "snippet", "engine"} <= set(hit)
        assert hit["url"].startswith("http") and hit["title"] and isinstance(hit["snippet"], str)
    assert meta["engine"] == engine and meta["count"] == len(results)
    assert isinstance(meta["latency_ms"], int) and meta["latency_ms"] >= 0
    assert isinstance(meta["cached"], bool)


async def test_the_profile_replaces_the_tool_surface_with_the_contracts_tools(serp: ServerProcess) -> None:
    with anyio.fail_after(TIME_LIMIT):
        async with Client(f"{serp.url}/mcp", read_timeout_seconds=TIME_LIMIT) as mcp:
            listed = {tool.name: tool.input_schema for tool in (await mcp.list_tools()).tools}
            native = await mcp.call_tool("web_search", {"query": "python asyncio"})
    assert set(listed) == {"serp_search", "serp_search_multi", "browse_url"}
    search = listed["serp_search"]
    assert set(search["properties"]) == {"query", "engine", "limit", "page", "site"}
    assert search["required"] == ["query"]
    assert search["properties"]["limit"]["default"] == 8 and search["properties"]["page"]["default"] == 1
    limit = search["properties"]["limit"]
    assert (limit["maximum"], limit["minimum"], limit["type"]) == (10, 1, ["integer", "null"])
    assert search["properties"]["engine"]["enum"] == ["auto", "baidu", "bing", "duckduckgo", "searxng", None]
    assert search["properties"]["engine"]["default"] == "auto"
    assert set(listed["browse_url"]["properties"]) == {"url"}
    assert native.is_error and answer(native)["code"] == "invalid_input"  # the native tools are not served


async def test_serp_search_as_the_app_calls_it(serp: ServerProcess) -> None:
    plain, named, again, sited, too_many = await calls(
        serp,
        ("serp_search", {"query": "python asyncio"}),
        ("serp_search", {"query": "python asyncio", "engine": "bing", "limit": 3}),
        ("serp_search", {"query": "python asyncio", "engine": "bing", "limit": 3}),
        ("serp_search", {"query": "asyncio", "engine": "bing", "limit": 5, "page": 1, "site": "docs.python.org"}),
        ("serp_search", {"query": "python asyncio", "limit": 11}),
    )
    assert not plain.is_error
    check_search(answer(plain), engine=answer(plain)["meta"]["engine"], limit=8)
    assert answer(plain)["meta"]["engine"] in ("searxng", "baidu", "bing", "duckduckgo")
    check_search(answer(named), engine="bing", limit=3)
    assert answer(named)["results"][0]["engine"] == "bing"
    assert answer(named)["meta"]["cached"] is False and answer(again)["meta"]["cached"] is True
    assert answer(again)["results"] == answer(named)["results"]
    check_search(answer(sited), engine="bing", limit=5)
    error = answer(too_many)
    assert too_many.is_error and error["code"] == "invalid_input" and "limit" in error["message"]


async def test_serp_search_multi_merges_by_url_and_browse_url_reads_a_result(serp: ServerProcess) -> None:
    (merged,) = await calls(
        serp, ("serp_search_multi", {"query": "python asyncio", "engines": ["bing", "duckduckgo"], "limit": 6})
    )
    body = answer(merged)
    urls = [hit["url"] for hit in body["results"]]
    assert len(urls) == len(set(urls)) and 1 <= len(urls) <= 6
    assert {hit["engine"] for hit in body["results"]} <= {"bing", "duckduckgo"}
    assert body["meta"]["count"] == len(urls)
    read, internal = await calls(
        serp, ("browse_url", {"url": urls[0]}), ("browse_url", {"url": "http://169.254.169.254/latest/meta-data/"})
    )
    assert not read.is_error and "asyncio" in read.content[0].text.lower()
    assert not read.content[0].text.lstrip().startswith("{")  # the main text, not a JSON document
    assert internal.is_error and answer(internal)["code"] == "url_not_allowed"  # the guard of every read


def test_a_captcha_moves_auto_on_and_fails_a_named_engine(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("searxng", fault="captcha")
    web.set_scenario("bing", fault="captcha")
    try:
        with http_server(web, tmp_path, WEBREACH_TOOLS__PROFILE="serp-chat") as server:
            auto, named = anyio.run(
                calls,
                server,
                ("serp_search", {"query": "python asyncio"}),
                ("serp_search", {"query": "python asyncio", "engine": "bing"}),
            )
    finally:
        web.reset()
    body = answer(auto)
    assert not auto.is_error and body["meta"]["engine"] not in ("searxng", "bing")
    assert body["meta"]["blocked_reason"].startswith(("captcha", "blocked"))
    assert named.is_error and answer(named)["code"] in ("captcha", "blocked")
