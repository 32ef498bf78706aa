"""MCP over stdio acting as an agent: a real `webreach mcp --agent NAME` process driven by the SDK's stdio client,
on a SQLite ledger the operator shares with it. The charge lands on that agent's balance, every answer ends with
its cost line, and an unknown agent is refused in-band."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from frontends.serving import STDIO_ARGS, server_env
from webreach.testing import FakeWeb

from .servers import operator

pytestmark = [pytest.mark.network, pytest.mark.slow]
SEARCH = {"query": "python asyncio", "engine": "mojeek", "limit": 2}
LIMIT = 60


def stdio(web: FakeWeb, home: Path, database: str, agent: str) -> Client:
    env = server_env(web, home, WEBREACH_ACCOUNTS__ENABLED="true", WEBREACH_ACCOUNTS__DATABASE=database)
    parameters = StdioServerParameters(command=sys.executable, args=[*STDIO_ARGS, "--agent", agent], env=env)
    return Client(parameters, read_timeout_seconds=LIMIT)


async def test_stdio_with_agent_charges_that_agent_and_says_what_each_call_cost(web: FakeWeb, tmp_path: Path) -> None:
    database = str(tmp_path / "ledger.sqlite3")
    with operator(database) as accounts:
        accounts.add("crawler", credits=10, per_hour=5)
        accounts.add("other", credits=10)
    with anyio.fail_after(LIMIT):
        async with stdio(web, tmp_path, database, "crawler") as mcp:
            searched = await mcp.call_tool("web_search", SEARCH)
            other = {**SEARCH, "query": "rust tokio"}
            again = await mcp.call_tool("web_search", other, meta={"idempotency_key": "k"})
            replayed = await mcp.call_tool("web_search", other, meta={"idempotency_key": "k"})
        async with stdio(web, tmp_path, database, "nobody") as stranger:
            refused = await stranger.call_tool("web_search", SEARCH)
    assert not searched.is_error
    lines = searched.content[0].text.splitlines()
    assert lines[0].startswith("Results via mojeek")
    assert lines[-1].startswith("[cost: 2 credits; balance 8; 4 calls left until ") and lines[-1].endswith("Z]")
    assert again.content[0].text.splitlines()[-1].startswith("[cost: 2 credits; balance 6; 3 calls left")
    # the retry replays, charged once: its cost line says 0 now and what the first call was charged
    replay_lines, again_lines = replayed.content[0].text.splitlines(), again.content[0].text.splitlines()
    assert replay_lines[:-1] == again_lines[:-1]
    assert replay_lines[-1].startswith("[cost: 0 credits (a replay of a call charged 2); balance 6; 3 calls left")
    assert refused.is_error and json.loads(refused.content[0].text)["code"] == "invalid_input"  # no agent 'nobody'
    with operator(database) as accounts:
        assert accounts.ledger.agent("crawler").balance == 6 == accounts.ledger.journal_sum("crawler")
        assert accounts.ledger.agent("other").balance == 10


async def test_stdio_serves_the_agents_surface_and_replays_its_bare_answer(web: FakeWeb, tmp_path: Path) -> None:
    """An agent given the credits-server profile gets its tools over stdio too; a retried call with the same
    idempotency key answers the stored contract answer again, charged once."""
    database = str(tmp_path / "ledger.sqlite3")
    with operator(database) as accounts:
        accounts.add("crew", credits=10)
        accounts.update_agent("crew", profile={"surface": "credits-server"})
    with anyio.fail_after(LIMIT):
        async with stdio(web, tmp_path, database, "crew") as mcp:
            listed = {tool.name: tool.input_schema for tool in (await mcp.list_tools()).tools}
            first = await mcp.call_tool("web_search", {"query": "python asyncio"}, meta={"idempotency_key": "k"})
            again = await mcp.call_tool("web_search", {"query": "python asyncio"}, meta={"idempotency_key": "k"})
    assert set(listed) == {"web_search", "web_fetch"} and set(listed["web_search"]["properties"]) == {"query"}
    found = json.loads(first.content[0].text)
    assert 1 <= len(found) <= 5 and all(list(hit) == ["title", "url", "snippet"] for hit in found)
    assert again.content[0].text == first.content[0].text
    with operator(database) as accounts:
        assert accounts.ledger.agent("crew").balance == 8 == accounts.ledger.journal_sum("crew")
