"""One agent through every door: `webreach search/fetch --agent` (a real CLI process), REST (the app) and MCP (a
real `webreach mcp --agent` process) on one ledger and one state file. Every door calls tools through the pipeline,
so the profile check, the session rule and the metering are the same at each (issue 36: the CLI used to serve a
tool the agent's profile leaves out, charging for it, and kept its refs in another session than MCP and REST)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from starlette.testclient import TestClient

from frontends.serving import STDIO_ARGS, server_env
from webreach.config import ServerSettings, Settings
from webreach.frontends.http import build_app
from webreach.testing import FakeWeb

from .servers import operator

pytestmark = [pytest.mark.network, pytest.mark.slow]  # real CLI and `webreach mcp` processes
LIMIT = 60
QUERY = "python asyncio"


def environment(web: FakeWeb, home: Path) -> dict[str, str]:
    """The CLI's and the stdio server's environment: accounts on, the ledger and the refs in SQLite files."""
    return server_env(
        web,
        home,
        WEBREACH_ACCOUNTS__ENABLED="true",
        WEBREACH_ACCOUNTS__DATABASE=str(home / "ledger.sqlite3"),
        WEBREACH_STATE__BACKEND="sqlite",
        WEBREACH_STATE__PATH=str(home / "state.sqlite3"),
    )


def cli(web: FakeWeb, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "webreach", *args, "--agent", "crawler"]
    return subprocess.run(command, env=environment(web, home), capture_output=True, text=True, timeout=LIMIT)


def rest(home: Path, web: FakeWeb) -> TestClient:
    settings = Settings(
        fake_web=web.url,
        state={"backend": "sqlite", "path": str(home / "state.sqlite3")},
        accounts={"enabled": True, "database": str(home / "ledger.sqlite3")},
    )
    return TestClient(build_app(settings, server=ServerSettings(port=9090)), base_url="http://127.0.0.1:9090")


def mcp_stdio(web: FakeWeb, home: Path) -> Client:
    parameters = StdioServerParameters(
        command=sys.executable, args=[*STDIO_ARGS, "--agent", "crawler"], env=environment(web, home)
    )
    return Client(parameters, read_timeout_seconds=LIMIT)


def add_agent(home: Path, **options: Any) -> str:
    with operator(str(home / "ledger.sqlite3")) as accounts:
        _, key = accounts.add("crawler", credits=100, per_hour=100)
        if options:
            accounts.set_options("crawler", options)
    return key


def balance(home: Path) -> int:
    with operator(str(home / "ledger.sqlite3")) as accounts:
        return accounts.ledger.agent("crawler").balance


async def test_a_tool_the_profile_leaves_out_is_refused_at_every_door_and_not_charged(
    web: FakeWeb, tmp_path: Path
) -> None:
    key = add_agent(tmp_path, profile={"tools": ["web_search"]})
    url = f"{web.url}/"
    by_cli = cli(web, tmp_path, "fetch", url, "--json")
    with rest(tmp_path, web) as client:
        by_rest = client.post("/v1/fetch", json={"url": url}, headers={"Authorization": f"Bearer {key}"})
    with anyio.fail_after(LIMIT):
        async with mcp_stdio(web, tmp_path) as mcp:
            by_mcp = await mcp.call_tool("web_fetch", {"url": url})
    # a refusal by the operator's policy, not bad input: 403 over REST, exit 3 on the CLI (issue 41)
    assert by_cli.returncode == 3 and by_rest.status_code == 403 and by_mcp.is_error
    bodies = [json.loads(by_cli.stdout), by_rest.json(), json.loads(by_mcp.content[0].text)]
    for body in bodies:
        assert body["code"] == "tool_not_allowed" and "not enabled for agent 'crawler'" in body["message"]
        assert body["allowed_tools"] == ["web_search"]
    assert balance(tmp_path) == 100  # nothing charged at any door


async def test_refs_of_a_cli_search_are_the_agents_at_every_door(web: FakeWeb, tmp_path: Path) -> None:
    key = add_agent(tmp_path)
    searched = cli(web, tmp_path, "search", QUERY, "-e", "mojeek", "--format", "compact")
    assert searched.returncode == 0, searched.stderr
    assert "[cost: 2 credits; balance 98;" in searched.stderr
    with rest(tmp_path, web) as client:
        by_rest = client.post("/v1/fetch", json={"ref": 1}, headers={"Authorization": f"Bearer {key}"})
    with anyio.fail_after(LIMIT):
        async with mcp_stdio(web, tmp_path) as mcp:
            by_mcp = await mcp.call_tool("web_fetch", {"ref": 1})
    by_cli = cli(web, tmp_path, "fetch", "--ref", "1", "--json")
    assert by_rest.status_code == 200, by_rest.text
    assert not by_mcp.is_error, by_mcp.content[0].text
    assert by_cli.returncode == 0, by_cli.stderr
    # the same page at every door: the URL ref 1 of the agent's session (@crawler/default) stands for
    read_url = by_rest.json()["url"]
    assert json.loads(by_cli.stdout)["url"] == read_url and read_url in by_mcp.content[0].text
    assert balance(tmp_path) == 100 - 2 - 3 * 1  # one search (2) and three reads (1 each), whichever door


def test_the_same_calls_get_the_same_outcomes_by_cli_and_rest(web: FakeWeb, tmp_path: Path) -> None:
    key = add_agent(tmp_path)
    by_cli = cli(web, tmp_path, "search", QUERY, "-e", "mojeek", "-n", "3", "--json")
    with rest(tmp_path, web) as client:
        headers = {"Authorization": f"Bearer {key}"}
        by_rest = client.post("/v1/search", json={"query": QUERY, "engine": "mojeek", "limit": 3}, headers=headers)
        unknown_rest = client.post("/v1/fetch", json={"ref": 999}, headers=headers)
    unknown_cli = cli(web, tmp_path, "fetch", "--ref", "999", "--json")
    cli_results, rest_results = json.loads(by_cli.stdout)["results"], by_rest.json()["results"]
    assert [hit["url"] for hit in cli_results] == [hit["url"] for hit in rest_results] and len(cli_results) == 3
    assert [hit["ref"] for hit in cli_results] == [hit["ref"] for hit in rest_results]  # one session, one ref each
    assert unknown_cli.returncode == 2 and unknown_rest.status_code == 404
    assert json.loads(unknown_cli.stdout)["code"] == unknown_rest.json()["code"] == "unknown_ref"
    assert balance(tmp_path) == 100 - 2 - 2  # the same search, the same price; unknown refs are not charged
