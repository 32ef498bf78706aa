"""Details found by using the doors as a new user would: the engines table in 80 columns, `--reset` of a name that
is not an engine, one empty-query message in every door, and a piped stdio MCP request answered before exit.

Real processes where the detail is about a process (the terminal width, a pipe closing stdin).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from webreach.engines import names as engine_names
from webreach.providers import default_registry
from webreach.schema_patterns import EMPTY_QUERY
from webreach.testing import FakeWeb

from .serving import STDIO_ARGS, ServerProcess, server_env

pytestmark = [pytest.mark.network, pytest.mark.slow]


def webreach(
    web: FakeWeb, home: Path, *args: str, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "webreach", *args],
        input=stdin,
        env=server_env(web, home, **env),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=60,
    )
    print(done.stdout, done.stderr, file=sys.stderr)
    return done


def test_the_engines_table_shows_each_needed_variable_whole_in_80_columns(web: FakeWeb, tmp_path: Path) -> None:
    done = webreach(web, tmp_path, "engines", COLUMNS="80")
    assert done.returncode == 0
    statuses = json.loads(webreach(web, tmp_path, "engines", "--json").stdout)
    needs = [status for status in statuses if not status["usable"]]
    assert needs  # keyed engines without keys
    below = " ".join(done.stdout.split("Not usable yet:")[1].split())  # the reasons, wrapped under the table
    for status in needs:
        variable = next(word.strip("()") for word in status["reason"].split() if word.startswith("WEBREACH_"))
        assert any(variable in line for line in done.stdout.splitlines()), variable  # never cut by a wrap
        assert f"{status['name']}: {' '.join(status['reason'].split())}" in below
    assert max(len(line) for line in done.stdout.splitlines()) <= 80  # the table and the wrapped reasons


def test_resetting_a_name_that_is_no_engine_lists_engines_only(web: FakeWeb, tmp_path: Path) -> None:
    done = webreach(web, tmp_path, "engines", "--reset", "nosuch", "--json")
    assert done.returncode == 2
    error = json.loads(done.stdout)
    assert error["code"] == "invalid_input" and "'nosuch'" in error["message"]
    listed = error["message"].partition("Valid engines: ")[2].partition(";")[0].split(", ")
    # every name with a breaker: web engines, image engines (images_<name>), reverse-image backends
    assert listed == [*engine_names(), *engine_names("images"), *default_registry().reverse_backends()]
    assert "auto" not in listed and "multi" not in listed


def test_the_empty_query_message_is_the_same_in_every_door(web: FakeWeb, tmp_path: Path, server: ServerProcess) -> None:
    cli = json.loads(webreach(web, tmp_path, "search", "", "--json").stdout)["message"]
    rest = httpx.post(f"{server.url}/v1/search", json={"query": ""}, timeout=30, trust_env=False).json()["message"]
    mcp = json.loads(_stdio_call(web, tmp_path, {"name": "web_search", "arguments": {"query": ""}})["text"])
    assert cli == rest == mcp["message"]
    assert EMPTY_QUERY in cli


def test_a_piped_stdio_request_is_answered_before_the_server_exits(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("mojeek", latency=1.0)  # the answer comes well after stdin has closed
    try:
        answer = _stdio_call(web, tmp_path, {"name": "web_search", "arguments": {"query": "rust", "engine": "mojeek"}})
    finally:
        web.reset("mojeek")
    assert answer["text"].startswith("Results via mojeek")


def _stdio_call(web: FakeWeb, home: Path, params: dict[str, object]) -> dict[str, str]:
    """`printf '<initialize + tools/call>' | webreach mcp`: the call's first content block."""
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params},
    ]
    done = webreach(web, home, *STDIO_ARGS[2:], stdin="".join(json.dumps(line) + "\n" for line in lines))
    assert done.returncode == 0, done.stderr
    answers = {message["id"]: message for message in map(json.loads, done.stdout.splitlines())}
    assert "result" in answers[2], answers[2]
    content: dict[str, str] = answers[2]["result"]["content"][0]
    return content


def test_the_stdio_server_still_stops_at_end_of_input_with_nothing_pending(web: FakeWeb, tmp_path: Path) -> None:
    done = webreach(web, tmp_path, *STDIO_ARGS[2:], stdin="")
    assert (done.returncode, done.stdout) == (0, "")
