"""Search, then read ref 1 in a later call, with real MCP clients nobody here wrote (issue 10).

- langchain-mcp-adapters' default `get_tools()`, which opens a new MCP session for every tool call: over stdio
  (a new `webreach mcp` process per call) and over streamable HTTP (a new MCP session per call);
- openai-agents with `convert_schemas_to_strict=True`: the calls a strict model makes (every property present,
  unwanted ones null) succeed for web_search without a site, web_fetch by ref and by url, web_search_multi;
- the MCP Inspector CLI, one process per call (`--cli ... --method tools/call`), over stdio and HTTP.

The Python clients need mcp<2 (webreach runs on mcp 2), so they live in their own venv (.ci-clients, made by
scripts/setup-tests) and run as scripts from tests/frontends/clients/; the Inspector lives in .ci-node (npm).
Everything runs against the fake web on loopback: the search engine is a SearXNG whose answer is a page on the
fake web listing fake-web article URLs, and the reader may read loopback (`read.allow_cidrs`), so "it reads the
page" means the article's text came back. State is the SQLite file in each test's own home, so the refs outlive
each process, as they do for a user. Every subprocess has a timeout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from webreach.testing import FakeWeb

from .serving import STDIO_ARGS, ServerProcess, http_server, server_env

pytestmark = [pytest.mark.network, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
CLIENT_PYTHON = ROOT / ".ci-clients" / "bin" / "python"
INSPECTOR = ROOT / ".ci-node" / "node_modules" / ".bin" / "mcp-inspector"
SCRIPTS = Path(__file__).parent / "clients"
CLIENT_TIMEOUT = 120
TITLE = "Refs that last"
ARTICLE_TEXT = "Paragraph 1 of the fake web article"
SEARCH = {"query": "refs across sessions", "engine": "searxng"}

needs_clients = pytest.mark.skipif(
    not CLIENT_PYTHON.exists(), reason="the real Python MCP clients are not installed: run scripts/setup-tests"
)
needs_inspector = pytest.mark.skipif(
    not INSPECTOR.exists(),
    reason="the MCP Inspector is not installed (npm is needed): run scripts/setup-tests"
    if shutil.which("npm")
    else "npm is not available, so the MCP Inspector cannot be installed",
)


@pytest.fixture(scope="module")
def searx(web: FakeWeb) -> Iterator[FakeWeb]:
    """The fake web with a SearXNG answer at /searx/search listing two readable fake-web articles."""
    results = [
        {"url": f"{web.url}/_pages/article?title=Refs+that+last", "title": TITLE, "content": "Read me next."},
        {"url": f"{web.url}/_pages/article?title=Second", "title": "Second", "content": "Another page."},
    ]
    web.pages.add("/searx/search", json.dumps({"results": results}), headers={"content-type": "application/json"})
    yield web
    web.pages.remove("/searx/search")


def client_env(web: FakeWeb, home: Path) -> dict[str, str]:
    """A server environment: the fake web, SearXNG on it, loopback readable, refs in this home's state file."""
    return server_env(
        web,
        home,
        WEBREACH_STATE__BACKEND="sqlite",
        WEBREACH_ENGINES__SEARXNG__BASE_URL=f"{web.url}/searx",
        WEBREACH_READ__ALLOW_CIDRS='["127.0.0.1/32"]',
    )


def run(command: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    """Run a client to completion (bounded); its stdout, or a failure showing both streams."""
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=CLIENT_TIMEOUT)
    assert done.returncode == 0, f"{command[:3]} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


def run_script(script: str, *arguments: Any) -> dict[str, Any]:
    texts = [argument if isinstance(argument, str) else json.dumps(argument) for argument in arguments]
    parsed: dict[str, Any] = json.loads(run([str(CLIENT_PYTHON), str(SCRIPTS / script), *texts]))
    return parsed


def assert_read(text: str, title: str = TITLE) -> None:
    assert f"Title: {title}" in text
    assert ARTICLE_TEXT in text


@needs_clients
def test_langchain_get_tools_over_stdio(searx: FakeWeb, tmp_path: Path) -> None:
    stdio = {"transport": "stdio", "command": sys.executable, "args": STDIO_ARGS, "env": client_env(searx, tmp_path)}
    result = run_script("langchain_search_then_read.py", stdio, SEARCH)
    assert f"[1] {TITLE}" in result["search"]
    assert_read(result["fetch"])


@needs_clients
def test_langchain_get_tools_over_streamable_http(searx: FakeWeb, tmp_path: Path) -> None:
    with http_server(searx, tmp_path, **client_env(searx, tmp_path)) as server:
        result = run_script(
            "langchain_search_then_read.py", {"transport": "streamable_http", "url": mcp_url(server)}, SEARCH
        )
    assert f"[1] {TITLE}" in result["search"]
    assert_read(result["fetch"])


@needs_clients
def test_openai_agents_strict_calls_succeed(searx: FakeWeb, tmp_path: Path) -> None:
    # the images profile: the web tools and the image tools, every one of them strict after conversion (issue 41:
    # crop_images' token map and reverse_image_search's free-form messages used to fall back to non-strict)
    env = client_env(searx, tmp_path) | {"WEBREACH_TOOLS__PROFILE": "images"}
    params = {"command": sys.executable, "args": STDIO_ARGS, "env": env}
    by_url = f"{searx.url}/_pages/article?title=By+url"
    result = run_script("openai_agents_strict.py", params, SEARCH, by_url)
    names = ["web_search", "web_search_multi", "web_fetch", "image_search", "crop_images", "reverse_image_search"]
    assert result["strict"] == dict.fromkeys(names, True)
    search, by_ref, read_url, multi = result["calls"]
    assert search["arguments"]["site"] is None and search["arguments"]["freshness"] is None
    assert f"[1] {TITLE}" in search["output"]
    assert by_ref["arguments"]["url"] is None
    assert_read(by_ref["output"])
    assert read_url["arguments"]["ref"] is None
    assert_read(read_url["output"], "By url")
    assert multi["arguments"]["engines"] is None
    for call in result["calls"]:
        assert call["schema_errors"] == [], call  # a strict model may send exactly these arguments
        assert "invalid_input" not in call["output"], call


@needs_inspector
def test_inspector_cli_one_shot_calls_over_stdio(searx: FakeWeb, tmp_path: Path) -> None:
    env = client_env(searx, tmp_path)
    server = [sys.executable, *STDIO_ARGS]
    searched = inspector_call([*server], "web_search", SEARCH, env=env, cwd=tmp_path)
    fetched = inspector_call([*server], "web_fetch", {"ref": 1}, env=env, cwd=tmp_path)
    assert f"[1] {TITLE}" in searched
    assert_read(fetched)


@needs_inspector
def test_inspector_cli_one_shot_calls_over_http(searx: FakeWeb, tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)}
    with http_server(searx, tmp_path, **client_env(searx, tmp_path)) as server:
        searched = inspector_call([mcp_url(server)], "web_search", SEARCH, env=env, cwd=tmp_path)
        fetched = inspector_call([mcp_url(server)], "web_fetch", {"ref": 1}, env=env, cwd=tmp_path)
    assert f"[1] {TITLE}" in searched
    assert_read(fetched)


def inspector_call(target: list[str], tool: str, arguments: dict[str, Any], *, env: dict[str, str], cwd: Path) -> str:
    """One `mcp-inspector --cli` process calling one tool; the text of its result."""
    pairs = [f"{name}={value}" for name, value in arguments.items()]
    command = [str(INSPECTOR), "--cli", *target, "--method", "tools/call", "--tool-name", tool, "--tool-arg", *pairs]
    answer = json.loads(run(command, env=env, cwd=cwd))
    assert answer["isError"] is False, answer
    text: str = answer["content"][0]["text"]
    return text


def mcp_url(server: ServerProcess) -> str:
    return f"{server.url}/mcp"
