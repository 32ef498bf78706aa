"""One definition, the same at every door (issue 36): each tool's `limit` default and maximum (models.TOOL_LIMITS)
in REST's OpenAPI document, MCP's tools/list, every schema dialect and the CLI; the "exactly one of url or ref"
refusal and an over-the-maximum limit word for word in REST, MCP and the CLI's --json.

In-process: Starlette's TestClient for REST, the MCP SDK's Client over memory streams, click's runner for the CLI.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client
from starlette.testclient import TestClient

from webreach.config import ServerSettings, Settings
from webreach.frontends._openapi import rest_path
from webreach.frontends.cli import cli
from webreach.frontends.http import build_app
from webreach.frontends.mcp import build_server, tools_over_gateway
from webreach.models import TOOL_LIMITS, ResultLimit
from webreach.testing import FakeWeb
from webreach.tools import DIALECTS, tool_schemas

pytestmark = pytest.mark.network
BASE = "http://127.0.0.1:9090"
ENGINES = ["mojeek"]
# every tool with a limit, the image tools included: the "images" profile lists them beside the web tools
LISTED = ["web_search", "web_search_multi", "web_fetch", "image_search", "crop_images", "reverse_image_search"]


def settings(web: FakeWeb) -> Settings:
    return Settings(fake_web=web.url, state={"backend": "memory"}, tools={"profile": "images"})


@pytest.fixture(scope="module")
def rest(web: FakeWeb) -> Iterator[TestClient]:
    app = build_app(settings(web), server=ServerSettings(port=9090), bare_route=True)
    with TestClient(app, base_url=BASE) as client:
        yield client


async def mcp_call(web: FakeWeb, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    server = build_server(lambda: tools_over_gateway(settings(web)), default_session="test")
    async with Client(server, mode="legacy", raise_exceptions=True) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error
    body: dict[str, Any] = json.loads(result.content[0].text)
    return body


def cli_json(web: FakeWeb, *args: str) -> dict[str, Any]:
    env = {"WEBREACH_STATE__BACKEND": "memory", "WEBREACH_FAKE_WEB": web.url}
    result = CliRunner().invoke(cli, [*args, "--json"], env=env)
    assert result.exit_code == 2, result.output
    body: dict[str, Any] = json.loads(result.stdout)
    return body


def integer_bounds(node: dict[str, Any]) -> tuple[Any, Any]:
    """(default, maximum) of a `limit` property: a number (nullable), or also its digits as text in the exact
    schemas (tools/number_text.py)."""
    if "anyOf" not in node:
        return node.get("default"), node["maximum"]
    (number,) = [branch for branch in node["anyOf"] if "integer" in branch.get("type", ())]
    return node.get("default"), number["maximum"]


def expected(limit: ResultLimit) -> tuple[int, int]:
    return limit.default, limit.maximum


def test_every_tool_with_a_limit_is_in_the_one_table() -> None:
    for dialect in DIALECTS:
        for schema in tool_schemas(dialect, engines=ENGINES, enabled=LISTED):
            text = json.dumps(schema)
            name = schema.get("name") or schema["function"]["name"]
            assert ('"limit"' in text) == (name in TOOL_LIMITS), (dialect, name)


def test_the_schemas_of_every_dialect_state_the_one_definition() -> None:
    for dialect in DIALECTS:
        plain = {_name(schema): _limit(schema) for schema in tool_schemas(dialect, engines=ENGINES, enabled=LISTED)}
        strict = {
            _name(schema): _limit(schema)
            for schema in tool_schemas(dialect, engines=ENGINES, strict=True, enabled=LISTED)
        }
        for tool, limit in TOOL_LIMITS.items():
            assert integer_bounds(plain[tool]) == expected(limit), (dialect, tool)
            # strict mode drops the keywords and says them in the description instead
            assert f"(1 to {limit.maximum}, default {limit.default})" in strict[tool]["description"], (dialect, tool)


def test_rest_and_mcp_publish_the_one_definition(rest: TestClient) -> None:
    document = rest.get("/openapi.json").json()
    listed = {tool["name"]: tool for tool in rest.get("/v1/tools?dialect=mcp").json()}
    for tool, limit in TOOL_LIMITS.items():
        body = document["paths"][rest_path(tool)]["post"]["requestBody"]["content"]["application/json"]["schema"]
        assert integer_bounds(_properties(body)["limit"]) == expected(limit), tool
        assert integer_bounds(listed[tool]["inputSchema"]["properties"]["limit"]) == expected(limit), tool


def test_the_cli_offers_web_search_s_maximum() -> None:
    result = CliRunner().invoke(cli, ["search", "--help"], env={"COLUMNS": "200"})
    assert f"Results wanted (1-{TOOL_LIMITS['web_search'].maximum})" in result.stdout


async def test_a_limit_over_the_maximum_reads_the_same_at_every_door(rest: TestClient, web: FakeWeb) -> None:
    over = TOOL_LIMITS["web_search"].maximum + 1
    arguments = {"query": "python asyncio", "limit": over}
    by_rest = rest.post(rest_path("web_search"), json=arguments).json()
    by_mcp = await mcp_call(web, "web_search", arguments)
    by_cli = await asyncio.to_thread(cli_json, web, "search", "python asyncio", "-n", str(over))  # runs its own loop
    assert by_rest["code"] == by_mcp["code"] == by_cli["code"] == "invalid_input"
    assert by_rest["message"] == by_mcp["message"] == by_cli["message"]
    assert f"less than or equal to {over - 1} (got {over})" in by_rest["message"]


@pytest.mark.parametrize(
    ("arguments", "cli_args", "said"),
    [
        ({}, (), "none was given"),
        ({"url": "https://example.org/", "ref": 1}, ("https://example.org/", "--ref", "1"), "url and ref were given"),
    ],
)
async def test_exactly_one_of_url_or_ref_reads_the_same_at_every_door(
    rest: TestClient, web: FakeWeb, arguments: dict[str, Any], cli_args: tuple[str, ...], said: str
) -> None:
    by_rest = rest.post(rest_path("web_fetch"), json=arguments).json()
    by_mcp = await mcp_call(web, "web_fetch", arguments)
    by_cli = await asyncio.to_thread(cli_json, web, "fetch", *cli_args)  # the CLI runs its own event loop
    assert by_rest["code"] == by_mcp["code"] == by_cli["code"] == "invalid_input"
    assert by_rest["message"] == by_mcp["message"] == by_cli["message"]
    assert by_rest["message"].startswith(f"give exactly one of url or ref ({said})")


def _name(schema: dict[str, Any]) -> str:
    name: str = schema.get("name") or schema["function"]["name"]
    return name


def _limit(schema: dict[str, Any]) -> dict[str, Any]:
    """The `limit` property of any dialect's tool definition (empty when the tool takes none)."""
    arguments = schema.get("inputSchema") or schema.get("input_schema") or schema.get("parameters")
    if arguments is None:
        arguments = schema["function"]["parameters"]
    limit: dict[str, Any] = arguments["properties"].get("limit", {})
    return limit


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    """The properties of a request body schema (a oneOf of alternatives where arguments exclude each other)."""
    if "properties" in schema:
        found: dict[str, Any] = schema["properties"]
        return found
    return _properties(schema["oneOf"][0])
