"""Reading for a question through every door, offline: REST, the CLI and a real MCP client (stdio) each search
the fake web, read the first result for a question and read a passage by its anchor; and each searches with
reading (web_search's question and read_top), then reads an anchor it gave from the cache.

The first result of the search (docs.python.org's asyncio page) is served as a long documentation page (the one
of tests/tools/test_question_read.py), registered on the fake web at that result's URL.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from starlette.testclient import TestClient

from webreach.config import ServerSettings, Settings
from webreach.frontends.cli import cli
from webreach.frontends.http import build_app
from webreach.testing import FakeWeb

from .serving import STDIO_ARGS, server_env

pytestmark = pytest.mark.network
TIME_LIMIT = 60
SEARCH = {"query": "python asyncio", "engine": "mojeek", "limit": 2}
QUESTION = "How do I stop waiting for a coroutine after a timeout?"
URL = "https://docs.python.org/3/library/asyncio.html"
ANCHOR = re.compile(r"^\[1§(\d+)\] asyncio — Asynchronous I/O > Timeouts$", re.M)


@pytest.fixture(scope="module")
def page(web: FakeWeb) -> Iterator[None]:
    from tools.test_question_read import page_html  # the same page as the tool-level test

    parts = urlsplit(URL)
    web.pages.add(parts.path, page_html(), host=parts.hostname, headers={"content-type": "text/html; charset=utf-8"})
    yield
    web.pages.remove(parts.path, host=parts.hostname)


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_rest(web: FakeWeb, page: None) -> None:
    app = build_app(Settings(fake_web=web.url, state={"backend": "memory"}), server=ServerSettings(port=9090))
    with TestClient(app, base_url="http://127.0.0.1:9090") as client:
        found = client.post("/v1/search", json=SEARCH).json()
        answer = client.post("/v1/fetch", json={"ref": 1, "question": QUESTION, "max_tokens": 200}).json()
        timeouts = next(p for p in answer["passages"] if p["headings"][-1] == "Timeouts")
        again = client.post("/v1/fetch", json={"ref": 1, "passage": timeouts["index"]}).json()
        missing = client.post("/v1/fetch", json={"ref": 1, "passage": 999})
    assert found["results"][0]["url"] == URL
    assert answer["tokens"] <= 200 and answer["question"] == QUESTION
    assert timeouts["anchor"] == f"[1§{timeouts['index']}]" and "with a timeout argument" in timeouts["text"]
    assert again["passages"] == [timeouts] and again["cached"] is True
    assert missing.status_code == 404 and missing.json()["code"] == "unknown_passage"


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_cli(web: FakeWeb, page: None, tmp_path: Path) -> None:
    env = {
        "WEBREACH_FAKE_WEB": web.url, "WEBREACH_STATE__PATH": str(tmp_path / "state.sqlite3"),
        "WEBREACH_CONFIG": os.devnull,
    }  # fmt: skip
    runner = CliRunner()
    searched = runner.invoke(cli, ["search", "python asyncio", "--engine", "mojeek", "--limit", "2"], env=env)
    assert searched.exit_code == 0, searched.output
    answer = runner.invoke(cli, ["fetch", "--ref", "1", "--question", QUESTION, "--max-tokens", "200"], env=env)
    assert answer.exit_code == 0, answer.output
    match = ANCHOR.search(answer.stdout)
    assert match is not None, answer.stdout
    assert "Left out:" in answer.stdout and "--passage" in answer.stdout  # the CLI's own syntax for reading on
    passage = runner.invoke(cli, ["fetch", "--ref", "1", "--passage", match.group(1), "--json"], env=env)
    assert passage.exit_code == 0, passage.output
    assert "with a timeout argument" in json.loads(passage.stdout)["passages"][0]["text"]


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
async def test_mcp_stdio(web: FakeWeb, page: None, tmp_path: Path) -> None:
    # the server process imports webreach from this checkout, as the test process does
    env = server_env(web, tmp_path, PYTHONPATH=os.environ.get("PYTHONPATH", ""))
    parameters = StdioServerParameters(command=sys.executable, args=STDIO_ARGS, env=env)
    with anyio.fail_after(TIME_LIMIT):
        async with Client(parameters, read_timeout_seconds=TIME_LIMIT) as mcp:
            await mcp.call_tool("web_search", SEARCH)
            answer = await mcp.call_tool("web_fetch", {"ref": 1, "question": QUESTION, "max_tokens": 200})
            match = ANCHOR.search(answer.content[0].text)
            assert match is not None, answer.content[0].text
            again = await mcp.call_tool("web_fetch", {"ref": 1, "passage": int(match.group(1))})
    assert not answer.is_error and "with a timeout argument" in answer.content[0].text
    assert not again.is_error and ANCHOR.search(again.content[0].text)


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_rest_search_with_reading(web: FakeWeb, page: None) -> None:
    app = build_app(Settings(fake_web=web.url, state={"backend": "memory"}), server=ServerSettings(port=9090))
    with TestClient(app, base_url="http://127.0.0.1:9090") as client:
        found = client.post("/v1/search", json={**SEARCH, "question": QUESTION, "read_top": 1}).json()
        (reading,) = found["readings"]
        timeouts = next(p for p in reading["passages"] if p["headings"][-1] == "Timeouts")
        requests = len(web.pages.requests)
        again = client.post("/v1/fetch", json={"ref": 1, "passage": timeouts["index"]}).json()
        assert len(web.pages.requests) == requests  # from the cache: no new request
    assert found["results"][0]["url"] == URL and found["question"] == QUESTION
    assert reading["ref"] == 1 and timeouts["anchor"] == f"[1§{timeouts['index']}]"
    assert again["passages"] == [timeouts] and again["cached"] is True


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_cli_search_with_reading(web: FakeWeb, page: None, tmp_path: Path) -> None:
    env = {
        "WEBREACH_FAKE_WEB": web.url, "WEBREACH_STATE__PATH": str(tmp_path / "state.sqlite3"),
        "WEBREACH_CONFIG": os.devnull,
    }  # fmt: skip
    runner = CliRunner()
    arguments = ["search", "python asyncio", "--engine", "mojeek", "--limit", "2", "--question", QUESTION]
    table = runner.invoke(cli, [*arguments, "--read-top", "1"], env=env)
    assert table.exit_code == 0, table.output
    match = ANCHOR.search(table.stdout)
    assert match is not None and "with a timeout argument" in table.stdout, table.stdout
    assert "--passage" in table.stdout  # the table's read-on line in the CLI's own syntax
    found = runner.invoke(cli, [*arguments, "--read-top", "2", "--json"], env=env)
    assert found.exit_code == 0, found.output
    assert [reading["ref"] for reading in json.loads(found.stdout)["readings"]] == [1, 2]
    refused = runner.invoke(cli, ["search", "python asyncio", "--read-top", "9", "--question", "q"], env=env)
    assert refused.exit_code != 0 and "read_top" in refused.output


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_cli_multi_engine_search_with_reading(web: FakeWeb, page: None, tmp_path: Path) -> None:
    env = {
        "WEBREACH_FAKE_WEB": web.url, "WEBREACH_STATE__PATH": str(tmp_path / "state.sqlite3"),
        "WEBREACH_CONFIG": os.devnull,
    }  # fmt: skip
    arguments = ["search", "python asyncio tutorial", "--engine", "multi", "--question", QUESTION, "--read-top", "1"]
    found = CliRunner().invoke(cli, [*arguments, "--json"], env=env)
    assert found.exit_code == 0, found.output
    body = json.loads(found.stdout)
    (reading,) = body["readings"]
    assert body["question"] == QUESTION and reading["ref"] == 1 and reading["url"] == URL
    assert any(p["headings"][-1] == "Timeouts" for p in reading["passages"])
    assert len(body["results"][0]["engines"]) > 1  # web_search_multi's merged answer


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
async def test_mcp_stdio_search_with_reading(web: FakeWeb, page: None, tmp_path: Path) -> None:
    env = server_env(web, tmp_path, PYTHONPATH=os.environ.get("PYTHONPATH", ""))
    parameters = StdioServerParameters(command=sys.executable, args=STDIO_ARGS, env=env)
    with anyio.fail_after(TIME_LIMIT):
        async with Client(parameters, read_timeout_seconds=TIME_LIMIT) as mcp:
            found = await mcp.call_tool("web_search", {**SEARCH, "question": QUESTION, "read_top": 1})
            match = ANCHOR.search(found.content[0].text)
            assert match is not None, found.content[0].text
            again = await mcp.call_tool("web_fetch", {"ref": 1, "passage": int(match.group(1))})
    assert not found.is_error and "with a timeout argument" in found.content[0].text
    assert not again.is_error and ANCHOR.search(again.content[0].text)
