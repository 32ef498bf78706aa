"""The "credits-server" drop-in profile (seed-contracts.md E) replayed as the multi-agent server's agents call it:
one `webreach serve` on loopback with accounts on (a SQLite ledger), agents given the profile with
`webreach agents set NAME --profile credits-server`, called over REST and over MCP with the official client; every
answer checked field by field, the credits exact (a refused call costs nothing), the hourly cap, the SSRF refusal,
and an agent without the profile seeing webreach's own tools on the same server."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from webreach.testing import FakeWeb
from webreach.testing.environment import process_env

from .serving import http_server

pytestmark = pytest.mark.network
TIME_LIMIT = 60
INTERNAL = "http://169.254.169.254/latest/meta-data/"
ENGINE = "jina"  # keyless, first in auto_order as the contract has it
KEYLESS = json.dumps({"keyless": "true"})


class Crew:
    """The server, its environment and each agent's key."""

    def __init__(self, env: dict[str, str], home: Path) -> None:
        self.env, self.home = env, home
        self.keys: dict[str, str] = {}
        self.url = ""  # the server's, once it runs

    def agents(self, *args: str) -> dict[str, Any]:
        command = [sys.executable, "-m", "webreach", "agents", *args, "--json"]
        done = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=60, cwd=self.home)
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    def balance(self, name: str) -> int:
        return int(self.agents("show", name)["balance"])

    def rest(self, name: str, path: str, body: dict[str, Any]) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.keys[name]}"}
        with httpx.Client(trust_env=False, timeout=TIME_LIMIT) as client:
            return client.post(f"{self.url}/v1/{path}", json=body, headers=headers)

    async def mcp(self, name: str, *wanted: tuple[str, dict[str, Any]]) -> tuple[dict[str, Any], list[Any]]:
        """The tools agent `name` is shown and the answers to its calls, over MCP with its key."""
        headers = {"Authorization": f"Bearer {self.keys[name]}"}
        with anyio.fail_after(TIME_LIMIT):
            async with (
                httpx2.AsyncClient(headers=headers, timeout=TIME_LIMIT) as http,
                Client(streamable_http_client(f"{self.url}/mcp", http_client=http), mode="legacy") as mcp,
            ):
                listed = {tool.name: tool.input_schema for tool in (await mcp.list_tools()).tools}
                return listed, [await mcp.call_tool(tool, arguments) for tool, arguments in wanted]


@pytest.fixture(scope="module")
def crew(web: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crew]:
    home = tmp_path_factory.mktemp("credits")
    env = {
        "WEBREACH_ACCOUNTS__ENABLED": "true", "WEBREACH_ACCOUNTS__DATABASE": f"sqlite://{home / 'ledger.sqlite3'}",
        # the contract's provider order: Jina without a key, then the browser, then plain HTTP (DuckDuckGo to search)
        "WEBREACH_AUTO_ORDER": json.dumps([ENGINE, "duckduckgo"]), "WEBREACH_ENGINES__JINA__OPTIONS": KEYLESS,
        "WEBREACH_READ__READER_ORDER": json.dumps(["jina", "browser", "direct"]),
    }  # fmt: skip
    cli_env = process_env(home, WEBREACH_FAKE_WEB=web.url) | env
    crew = Crew(cli_env, home)
    for name, credits in (("rest", 100), ("mcp", 100), ("poor", 3), ("plain", 100)):
        # the contract's quota is the default of a new agent ([accounts] per_hour = 10), given here as an operator would
        crew.keys[name] = str(crew.agents("add", name, "--credits", str(credits), "--per-hour", "10")["key"])
        if name != "plain":
            crew.agents("set", name, "--profile", "credits-server")
    with http_server(web, home, **env) as server:
        crew.url = server.url
        yield crew


def check_results(text: str) -> list[dict[str, str]]:
    found = json.loads(text)
    assert isinstance(found, list) and 1 <= len(found) <= 5
    for hit in found:
        assert list(hit) == ["title", "url", "snippet"]
        assert hit["url"].startswith("http") and hit["title"] and isinstance(hit["snippet"], str)
    return found


def test_rest_calls_answer_the_contracts_shapes_and_charge_exactly(crew: Crew, web: FakeWeb) -> None:
    searched = crew.rest("rest", "search", {"query": "python asyncio"})
    assert searched.status_code == 200 and searched.headers["content-type"] == "application/json"
    found = check_results(searched.text)
    read = crew.rest("rest", "fetch", {"url": found[0]["url"]})
    assert read.status_code == 200 and read.headers["content-type"].startswith("text/plain")
    assert 0 < len(read.text) <= 2000 and not read.text.lstrip().startswith("{")
    assert "Read by the fake Jina" in read.text  # the contract's first reader: Jina
    searched_at = [request for request in web.requests() if request.engine == "jina"]
    assert searched_at and all("authorization" not in request.headers for request in searched_at)  # keyless
    internal = crew.rest("rest", "fetch", {"url": INTERNAL})
    assert internal.status_code == 403 and internal.json()["code"] == "url_not_allowed"
    assert internal.json()["cost"]["charged"] == 0
    extra = crew.rest("rest", "search", {"query": "python asyncio", "limit": 10})  # the contract: query alone
    assert extra.status_code == 400 and extra.json()["code"] == "invalid_input"
    web.set_scenario(ENGINE, status=500)
    web.set_scenario("duckduckgo", status=500)
    try:
        failed = crew.rest("rest", "search", {"query": "a search every engine fails"})
    finally:
        web.reset()
    assert failed.status_code == 200 and failed.json() == []  # a search error is an empty list
    assert crew.balance("rest") == 100 - 2 - 1  # one search, one read; the refusals and the failed search are free


def test_the_hourly_cap_refuses_the_eleventh_web_call(crew: Crew) -> None:
    shown = crew.agents("show", "rest")
    used = shown["quota"]["hour_used"]
    before = shown["balance"]
    answers = [crew.rest("rest", "search", {"query": f"rust tokio {n}"}) for n in range(10 - used)]
    assert [answer.status_code for answer in answers] == [200] * (10 - used)
    refused = crew.rest("rest", "search", {"query": "one call too many"})
    assert refused.status_code == 429 and refused.json()["code"] == "agent_quota_exhausted"
    assert refused.headers.get("retry-after")
    charged = sum(2 for answer in answers if answer.json())  # a search that found nothing is still a search
    assert crew.balance("rest") == before - charged


async def test_mcp_calls_answer_the_contracts_shapes(crew: Crew) -> None:
    listed, (searched, internal) = await crew.mcp(
        "mcp", ("web_search", {"query": "python asyncio"}), ("web_fetch", {"url": INTERNAL})
    )
    assert set(listed) == {"web_search", "web_fetch"}
    assert set(listed["web_search"]["properties"]) == {"query"} and listed["web_search"]["required"] == ["query"]
    assert set(listed["web_fetch"]["properties"]) == {"url"} and listed["web_fetch"]["required"] == ["url"]
    assert not searched.is_error
    found = check_results(searched.content[0].text)
    _, (read,) = await crew.mcp("mcp", ("web_fetch", {"url": found[-1]["url"]}))
    assert not read.is_error and 0 < len(read.content[0].text) <= 2000
    assert "[cost:" not in read.content[0].text  # the contract's text, nothing added
    assert internal.is_error and json.loads(internal.content[0].text)["code"] == "url_not_allowed"
    assert crew.balance("mcp") == 100 - 2 - 1


async def test_a_call_without_enough_credits_is_refused_and_costs_nothing(crew: Crew) -> None:
    _, (first, second, read) = await crew.mcp(
        "poor",
        ("web_search", {"query": "python asyncio"}),
        ("web_search", {"query": "rust tokio"}),
        ("web_fetch", {"url": "https://docs.python.org/3/library/asyncio.html"}),
    )
    assert not first.is_error
    assert second.is_error and json.loads(second.content[0].text)["code"] == "insufficient_credits"
    assert not read.is_error  # the credit the refused search did not take still pays for a read
    assert crew.balance("poor") == 0


async def test_an_agent_without_the_profile_sees_webreachs_tools_on_the_same_server(crew: Crew) -> None:
    listed, (searched,) = await crew.mcp("plain", ("web_search", {"query": "python asyncio", "limit": 2}))
    assert {"web_search", "web_fetch", "web_search_multi"} <= set(listed)
    assert "limit" in listed["web_search"]["properties"]
    assert not searched.is_error and "[1]" in searched.content[0].text  # compact text with refs, not the contract's
