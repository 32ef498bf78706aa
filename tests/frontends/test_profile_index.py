"""The "numeric-index" drop-in profile (seed-contracts.md D) replayed as the token-saving stack calls it:
`webreach serve` with `[tools] profile = "numeric-index"` on loopback and the official MCP client over HTTP."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client

from webreach.testing import FakeWeb

from .serving import ServerProcess, http_server

pytestmark = pytest.mark.network
TIME_LIMIT = 60
NOTE = "**Note**: To fetch full content from any result, use: web_fetch(index=N)"


@pytest.fixture(scope="module")
def indexed(web: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home = tmp_path_factory.mktemp("indexed")
    with http_server(web, home, WEBREACH_TOOLS__PROFILE="numeric-index") as process:
        yield process


def text(result: Any) -> str:
    value: str = result.content[0].text
    return value


def titles(answer: str) -> dict[int, str]:
    return {int(number): title for number, title in re.findall(r"^(\d+)\. (.+)$", answer, re.MULTILINE)}


async def test_indexes_from_zero_resolve_to_the_latest_search(indexed: ServerProcess) -> None:
    with anyio.fail_after(TIME_LIMIT):
        async with Client(f"{indexed.url}/mcp", read_timeout_seconds=TIME_LIMIT) as mcp:
            listed = {tool.name: tool.input_schema for tool in (await mcp.list_tools()).tools}
            first = await mcp.call_tool("web_search", {"query": "python asyncio"})
            read_0 = await mcp.call_tool("web_fetch", {"index": 0})
            read_1 = await mcp.call_tool("web_fetch", {"index": 1})
            past_first = await mcp.call_tool("web_fetch", {"index": len(titles(text(first)))})
            second = await mcp.call_tool("web_search", {"query": ["rust tokio", "python asyncio"]})
            read_again = await mcp.call_tool("web_fetch", {"index": len(titles(text(first)))})
            beyond = await mcp.call_tool("web_fetch", {"index": 99})
            negative = await mcp.call_tool("web_fetch", {"index": -1})
            by_ref = await mcp.call_tool("web_fetch", {"ref": 1})
    assert set(listed) == {"web_search", "web_fetch"}
    assert set(listed["web_fetch"]["properties"]) == {"index"} and listed["web_fetch"]["required"] == ["index"]
    assert set(listed["web_search"]["properties"]) == {"query"}
    answer = text(first)
    lines = answer.splitlines()
    found = titles(answer)
    assert re.fullmatch(r"A Google search for 'python asyncio' found (\d+) results:", lines[0])
    assert int(lines[0].split(" found ")[1].split()[0]) == len(found) and 2 <= len(found) <= 10
    assert lines[1:4] == ["", "## Web Results", ""] and lines[4].startswith("0. ")
    assert sorted(found) == list(range(len(found)))
    assert "Source: " in answer and "http" not in answer  # URLs hidden
    assert lines[-1] == NOTE
    assert not read_0.is_error and found[0].split(" — ")[0] in text(read_0)
    assert not read_1.is_error and text(read_1) != text(read_0)
    two = titles(text(second))
    assert text(second).count("A Google search for") == 2 and sorted(two) == list(range(len(two)))  # one numbering
    assert past_first.is_error and "index" in json.loads(text(past_first))["message"]
    # the latest search numbers its second query's results after its first's: the index past the first search's
    # last now reads the second query's first result
    assert not read_again.is_error and two[len(found)].split(" — ")[0] in text(read_again)
    assert beyond.is_error and json.loads(text(beyond))["code"] == "invalid_input" and "index" in text(beyond)
    assert negative.is_error and json.loads(text(negative))["code"] == "invalid_input"
    assert by_ref.is_error and json.loads(text(by_ref))["code"] == "invalid_input"  # the contract has no ref
