"""The "desktop-agent" drop-in profile (seed-contracts.md C) replayed as the desktop agent calls it: `webreach serve`
with `[tools] profile = "desktop-agent"` on loopback, the official MCP client over HTTP, the providers answered by
the fake web's recorded responses, every answer checked line by line."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import anyio
import httpx
import pytest
from mcp import Client

from secret_keys import TEST_KEY
from webreach.testing import FakeWeb

from .serving import ServerProcess, http_server

pytestmark = pytest.mark.network
TIME_LIMIT = 60
PROFILE = {"WEBREACH_TOOLS__PROFILE": "desktop-agent"}
# the contract's cache: 15 minutes, at most 100 entries (set in the database, as the settings page would)
CACHE = {"ttl_seconds": 900, "max_entries": 100}
PROVIDERS = {
    "WEBREACH_ENGINES__BRAVE_API__API_KEY": TEST_KEY,
    "WEBREACH_ENGINES__TAVILY__API_KEY": TEST_KEY,
    "WEBREACH_ENGINES__TAVILY__DISPLAY_NAME": "Tavily AI",
    "WEBREACH_ENGINES__TAVILY__TIMEOUT": "2",
    "WEBREACH_ENGINES__SERPAPI__API_KEY": TEST_KEY,
}
RESULT_LINE = re.compile(r"^(\d+)\. (.+)$")


@pytest.fixture(scope="module")
def desktop(web: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home = tmp_path_factory.mktemp("desktop")
    with http_server(web, home, **PROFILE, **PROVIDERS) as process:
        configure(process, {"tavily": {"default": True}})  # the settings page's "set as default", in the database
        configure(process, {}, cache=CACHE)
        yield process


def configure(server: ServerProcess, engines: dict[str, Any], **more: Any) -> dict[str, Any]:
    """POST the engines' (and `more`) settings to the admin API; its answer (never holding a key)."""
    body = {"engines": engines, **more}
    answer = httpx.post(f"{server.url}/v1/admin/config", json=body, trust_env=False, timeout=30)
    assert answer.status_code == 200, answer.text
    assert TEST_KEY not in answer.text
    body: dict[str, Any] = answer.json()
    return body


async def calls(server: ServerProcess, *wanted: tuple[str, dict[str, Any]]) -> list[Any]:
    with anyio.fail_after(TIME_LIMIT):
        async with Client(f"{server.url}/mcp", read_timeout_seconds=TIME_LIMIT) as mcp:
            return [await mcp.call_tool(name, arguments) for name, arguments in wanted]


async def listed(server: ServerProcess) -> dict[str, Any]:
    with anyio.fail_after(TIME_LIMIT):
        async with Client(f"{server.url}/mcp", read_timeout_seconds=TIME_LIMIT) as mcp:
            return {tool.name: tool.input_schema for tool in (await mcp.list_tools()).tools}


def text(result: Any) -> str:
    value: str = result.content[0].text
    return value


def results(answer: str) -> list[tuple[int, str, str]]:
    """(number, title, url) of every result in an answer."""
    lines = answer.splitlines()
    found = []
    for index, line in enumerate(lines):
        match = RESULT_LINE.match(line)
        if match:
            assert lines[index + 1].startswith("   URL: http"), answer
            found.append((int(match.group(1)), match.group(2), lines[index + 1][len("   URL: ") :]))
    return found


def error(result: Any) -> dict[str, Any]:
    assert result.is_error
    body: dict[str, Any] = json.loads(text(result))
    return body


def reset_breaker(server: ServerProcess, engine: str) -> None:
    answer = httpx.post(f"{server.url}/v1/admin/engines/{engine}/reset", trust_env=False, timeout=30)
    assert answer.status_code == 200, answer.text


async def test_the_profile_offers_the_contracts_web_search(desktop: ServerProcess) -> None:
    tools = await listed(desktop)
    assert set(tools) == {"web_search"}
    schema = tools["web_search"]
    assert set(schema["properties"]) == {"query", "count", "freshness"} and schema["required"] == ["query"]
    count = schema["properties"]["count"]
    # the lean form models read (tools/schemas.py): an optional field is [type, "null"]
    assert count["default"] == 5 and (count["minimum"], count["maximum"], count["type"]) == (1, 10, ["integer", "null"])
    assert schema["properties"]["freshness"]["enum"] == ["day", "week", "month", "year", None]


async def test_web_search_answers_from_the_default_provider(desktop: ServerProcess, web: FakeWeb) -> None:
    web.clear_requests()
    plain, counted, too_many, bad_freshness = await calls(
        desktop,
        ("web_search", {"query": "python asyncio"}),
        ("web_search", {"query": "python asyncio tasks", "count": 2, "freshness": "week"}),
        ("web_search", {"query": "python asyncio", "count": 11}),
        ("web_search", {"query": "python asyncio", "freshness": "hour"}),
    )
    assert not plain.is_error
    answer = text(plain)
    assert answer.startswith("[search results - from Tavily AI]\n")  # marked external, the display name
    found = results(answer)
    assert [number for number, _, _ in found] == list(range(1, len(found) + 1)) and 1 <= len(found) <= 5
    assert found[0][1].startswith("asyncio") and found[0][2] == "https://docs.python.org/3/library/asyncio.html"
    assert TEST_KEY not in answer
    assert len(results(text(counted))) <= 2
    sent = [json.loads(request.body) for request in web.requests("tavily")]
    assert sent[0]["max_results"] == 5 and "time_range" not in sent[0]
    assert sent[1]["max_results"] == 2 and sent[1]["time_range"] == "week"  # Tavily's own parameters
    assert not web.requests("brave_api") and not web.requests("serpapi")  # only the default provider is asked
    assert error(too_many)["code"] == "invalid_input" and "count" in error(too_many)["message"]
    assert error(bad_freshness)["code"] == "invalid_input"


async def test_the_cache_keys_on_provider_lowercased_query_and_count(desktop: ServerProcess, web: FakeWeb) -> None:
    web.clear_requests()
    first, shouted, other_count = await calls(
        desktop,
        ("web_search", {"query": "Rust Async Runtime", "count": 3}),
        ("web_search", {"query": "rust async RUNTIME", "count": 3}),
        ("web_search", {"query": "rust async runtime", "count": 4}),
    )
    assert text(first) == text(shouted)  # answered from the cache: the query's case is not part of the key
    assert len(web.requests("tavily")) == 2  # the first call and the other count, nothing for the shouted one
    assert not other_count.is_error


@pytest.mark.parametrize(
    ("scenario", "code", "sentence"),
    [
        ({"case": "auth_failed"}, "auth_failed", "Invalid API key for Tavily AI: check the settings."),
        ({"status": 403}, "auth_failed", "Invalid API key for Tavily AI: check the settings."),
        ({"fault": "retry_after", "retry_after": "7"}, "rate_limited", "Searches are too frequent, retry later."),
        ({"case": "unavailable"}, "unavailable", "Search service unavailable: Tavily AI."),
        ({"latency": 6.0}, "timeout", "Tavily AI did not answer in time: check the network."),
    ],
)
async def test_failures_answer_the_contracts_sentences(
    desktop: ServerProcess, web: FakeWeb, scenario: dict[str, Any], code: str, sentence: str
) -> None:
    web.set_scenario("tavily", **scenario)
    try:
        (failed,) = await calls(desktop, ("web_search", {"query": f"failing search {code} {len(scenario)}"}))
    finally:
        web.reset("tavily")
        reset_breaker(desktop, "tavily")
    body = error(failed)
    assert body["code"] == code and body["message"] == sentence, body
    assert TEST_KEY not in text(failed)
    if code == "rate_limited":
        assert body["retry_after"] == 7


async def test_the_default_provider_and_serpapis_engine_are_set_in_the_database(
    desktop: ServerProcess, web: FakeWeb
) -> None:
    changed = configure(
        desktop, {"serpapi": {"default": True, "options": {"engine": "baidu"}, "display_name": "Baidu"}}
    )
    try:
        engines = changed["engines"]
        assert engines["serpapi"]["default"]["layers"][0] == {"source": "console", "value": "true"}
        assert engines["tavily"]["default"]["layers"][0] == {"source": "console", "value": "false"}  # one default
        assert engines["serpapi"]["options"]["layers"][0] == {"source": "console", "value": "engine=baidu"}
        web.clear_requests()
        (answer,) = await calls(desktop, ("web_search", {"query": "python asyncio", "count": 4, "freshness": "day"}))
        assert text(answer).startswith("[search results - from Baidu]\n"), text(answer)
        assert results(text(answer)) and TEST_KEY not in text(answer)
        (sent,) = web.requests("serpapi")
        params = parse_qs(sent.query)
        assert params["engine"] == ["baidu"] and params["rn"] == ["4"] and params["gpc"][0].startswith("stf=")
        assert not web.requests("tavily")
        # the settings page's "test connection" for the provider: one real request past cache and breaker
        tested = httpx.post(f"{desktop.url}/v1/admin/engines/serpapi/test", trust_env=False, timeout=30)
        assert tested.status_code == 200 and tested.json()["status"] == "ok" and TEST_KEY not in tested.text
        assert len(web.requests("serpapi")) == 2
    finally:
        back = configure(desktop, {"tavily": {"default": True}, "serpapi": {"options": None, "display_name": None}})
    assert back["engines"]["serpapi"]["default"]["layers"][0] == {"source": "console", "value": "false"}


async def test_with_no_provider_the_tool_is_not_offered(web: FakeWeb, tmp_path: Path) -> None:
    with http_server(web, tmp_path, **PROFILE) as bare:
        assert await listed(bare) == {}
        (refused,) = await calls(bare, ("web_search", {"query": "python asyncio"}))
    assert error(refused)["code"] == "not_configured"


async def test_tavilys_ai_answer_is_surfaced_when_its_option_asks_for_it(desktop: ServerProcess, web: FakeWeb) -> None:
    configure(desktop, {"tavily": {"options": {"include_answer": "basic"}}})
    web.set_scenario("tavily", case="results-answer")
    try:
        web.clear_requests()
        first, again = await calls(
            desktop,
            ("web_search", {"query": "what is asyncio", "count": 3}),
            ("web_search", {"query": "What is asyncio", "count": 3}),
        )
    finally:
        web.reset("tavily")
        configure(desktop, {"tavily": {"options": None}})
    lines = text(first).splitlines()
    assert lines[0] == "[search results - from Tavily AI]" and lines[1] == ""
    assert lines[2].startswith("AI answer: asyncio is Python's standard library")
    assert [number for number, _, _ in results(text(first))] == [1, 2, 3]
    (sent,) = web.requests("tavily")  # the second call came from the cache, answer included
    assert json.loads(sent.body)["include_answer"] == "basic"
    assert text(again) == text(first)


async def test_the_cache_size_set_in_the_database_applies_at_once(desktop: ServerProcess, web: FakeWeb) -> None:
    shown = configure(desktop, {}, cache={"max_entries": 1})["cache"]["max_entries"]
    assert shown["winner"] == "console" and shown["layers"][0]["value"] == "1"
    try:
        web.clear_requests()
        await calls(
            desktop,
            ("web_search", {"query": "cache size one a"}),
            ("web_search", {"query": "cache size one b"}),  # evicts a: one entry at most
            ("web_search", {"query": "cache size one b"}),  # from the cache
            ("web_search", {"query": "cache size one a"}),  # asked again
        )
    finally:
        configure(desktop, {}, cache=CACHE)
    asked = [json.loads(request.body)["query"] for request in web.requests("tavily")]
    assert asked == ["cache size one a", "cache size one b", "cache size one a"]


async def test_a_plain_server_offers_the_profile_at_its_own_path_once_a_provider_is_set(
    web: FakeWeb, tmp_path: Path
) -> None:
    with http_server(web, tmp_path) as plain:

        async def at_path() -> set[str]:
            with anyio.fail_after(TIME_LIMIT):
                async with Client(f"{plain.url}/mcp/desktop-agent", read_timeout_seconds=TIME_LIMIT) as mcp:
                    return {tool.name for tool in (await mcp.list_tools()).tools}

        assert await at_path() == set()  # no provider configured: not offered
        configure(plain, {"bocha": {"api_key": TEST_KEY}})
        assert await at_path() == {"web_search"}
        with anyio.fail_after(TIME_LIMIT):
            async with Client(f"{plain.url}/mcp/desktop-agent", read_timeout_seconds=TIME_LIMIT) as mcp:
                answer = await mcp.call_tool("web_search", {"query": "python asyncio", "count": 2})
        assert text(answer).startswith("[search results - from Bocha]\n") and len(results(text(answer))) <= 2
        assert TEST_KEY not in plain.output()
