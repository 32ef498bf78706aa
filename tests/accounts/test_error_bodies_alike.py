"""One failure, one body at every door (issue 36): `webreach ... --json` (a real CLI process), REST (the app) and MCP
(a real `webreach mcp --agent` process) print the same agent error body for the same failed tool call, `tool`
included and no `engine: null` (errors.error_body renders it; each door only adds its envelope: exit code, HTTP
status, MCP isError). REST answers outside any tool (auth, unknown route, body too large, admin) have no `tool`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from starlette.testclient import TestClient

from webreach.testing import FakeWeb

from .test_doors_alike import LIMIT, QUERY, add_agent, cli, mcp_stdio, rest

pytestmark = pytest.mark.network

# (CLI arguments, REST path, tool, its arguments, exit code, HTTP status): failures a caller causes, each found
# before anything is charged or asked upstream
FAILURES: list[tuple[list[str], str, str, dict[str, Any], int, int]] = [
    (["fetch", "--ref", "999"], "/v1/fetch", "web_fetch", {"ref": 999}, 2, 404),  # a ref that does not exist
    (["search", QUERY, "-e", "nosuch"], "/v1/search", "web_search", {"query": QUERY, "engine": "nosuch"}, 2, 400),
    (
        ["fetch", "ftp://example.com/"],
        "/v1/fetch",
        "web_fetch",
        {"url": "ftp://example.com/"},
        3,
        403,
    ),  # the guard refuses
]


def timeless(body: dict[str, Any]) -> dict[str, Any]:
    """The body without the hour window's end its cost names (each door's call is a moment later)."""
    cost = body.get("cost")
    return {**body, "cost": {**cost, "resets_at": "..."}} if isinstance(cost, dict) else body


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
async def test_a_failed_tool_call_has_one_body_at_every_door(web: FakeWeb, tmp_path: Path) -> None:
    key = add_agent(tmp_path, profile={"tools": ["web_search", "web_fetch"]})
    by_cli = [cli(web, tmp_path, *args, "--json") for args, *_ in FAILURES]
    with rest(tmp_path, web) as client:
        headers = {"Authorization": f"Bearer {key}"}
        by_rest = [client.post(path, json=arguments, headers=headers) for _, path, _, arguments, _, _ in FAILURES]
    with anyio.fail_after(LIMIT):
        async with mcp_stdio(web, tmp_path) as mcp:
            by_mcp = [await mcp.call_tool(tool, arguments) for _, _, tool, arguments, _, _ in FAILURES]
    for (_, _, tool, _, exit_code, status), ran, answered, called in zip(
        FAILURES, by_cli, by_rest, by_mcp, strict=True
    ):
        assert ran.returncode == exit_code and answered.status_code == status and called.is_error, ran.stderr
        body = timeless(json.loads(ran.stdout))
        assert body == timeless(answered.json()) == timeless(json.loads(called.content[0].text))
        assert body["tool"] == tool and "engine" not in body  # absent fields are left out, not null


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_a_tool_the_profile_leaves_out_has_one_body_at_every_door(web: FakeWeb, tmp_path: Path) -> None:
    key = add_agent(tmp_path, profile={"tools": ["web_search"]})
    url = f"{web.url}/"
    by_cli = cli(web, tmp_path, "fetch", url, "--json")
    with rest(tmp_path, web) as client:
        by_rest = client.post("/v1/fetch", json={"url": url}, headers={"Authorization": f"Bearer {key}"})
    assert json.loads(by_cli.stdout) == by_rest.json()
    assert by_rest.json()["tool"] == "web_fetch" and "engine" not in by_rest.json()


def rest_refusals(client: TestClient, key: str) -> dict[str, Any]:
    """Answers of the REST door outside any tool: each a status and the agent error body."""
    agent = {"Authorization": f"Bearer {key}"}
    answers = {
        "no key": client.post("/v1/search", json={"query": QUERY}),
        "wrong key": client.post("/v1/search", json={"query": QUERY}, headers={"Authorization": "Bearer wrong"}),
        "unknown route": client.post("/v1/nothing", json={}, headers=agent),
        "wrong method": client.get("/v1/search", headers=agent),
        "unknown dialect": client.get("/v1/tools?dialect=klingon", headers=agent),
        "no image": client.get("/i/" + "x" * 32),
        "admin off the machine": client.get("/v1/admin/engines", headers={"Authorization": "Bearer wrong"}),
    }
    return {name: (answer.status_code, answer.json()) for name, answer in answers.items()}


def test_rest_errors_outside_a_tool_have_no_tool_key(web: FakeWeb, tmp_path: Path) -> None:
    key = add_agent(tmp_path)
    with rest(tmp_path, web) as client:
        refusals = rest_refusals(client, key)
        too_large = client.post(
            "/v1/search", content=b"{" + b" " * 2_000_000 + b"}", headers={"Authorization": f"Bearer {key}"}
        )
    for name, (status, body) in refusals.items():
        assert status >= 400 and body["status"] == "error", name
        assert "tool" not in body and set(body) >= {"code", "message", "retry_after"}, (name, body)
    # a body over the cap of a tool's route is that tool's refusal: it names the tool, as before
    assert too_large.status_code == 413 and too_large.json()["tool"] == "web_search"
