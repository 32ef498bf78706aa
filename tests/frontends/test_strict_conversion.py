"""Every tool any surface offers converts under openai-agents' strict mode, run by openai-agents itself (issue 41).

openai-agents with `convert_schemas_to_strict=True` converts each MCP tool's inputSchema with its own
ensure_strict_json_schema and, when that raises, quietly keeps the tool non-strict: crop_images (a token-keyed
map) and reverse_image_search (free-form messages) used to. Here MCPUtil.to_function_tool converts the MCP
definitions of every surface (the default, the visual-agent alias set, every profile, hidden tools included), and
FunctionTool(strict_json_schema=True) takes every strict shape webreach prints unchanged (it is strict already).
`webreach tools --strict` flags exactly those strict. The client venv (.ci-clients) has openai-agents (mcp<2).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from webreach import engines
from webreach.frontends.cli import cli
from webreach.tools import tool_schemas
from webreach.tools.drop_in import PROFILES, surface
from webreach.tools.strict_schema import strict_problems

ROOT = Path(__file__).resolve().parents[2]
CLIENT_PYTHON = ROOT / ".ci-clients" / "bin" / "python"
SCRIPT = Path(__file__).parent / "clients" / "strict_conversion.py"
SURFACES = [(None, None), ("visual-agent", None), *((None, profile) for profile in PROFILES)]


def definitions(dialect: Any, *, strict: bool) -> dict[str, dict[str, Any]]:
    """Every surface's tools in `dialect`, by surface and name."""
    found: dict[str, dict[str, Any]] = {}
    for alias_set, profile in SURFACES:
        tools = surface(None, alias_set, profile)
        for schema in tool_schemas(dialect, engines=engines.names(), strict=strict, tools=tools):
            found[f"{profile or alias_set or 'default'}:{schema['name']}"] = schema
    return found


@pytest.mark.slow
@pytest.mark.skipif(not CLIENT_PYTHON.exists(), reason="openai-agents is not installed: run scripts/setup-tests")
def test_openai_agents_converts_every_offered_tool_to_strict() -> None:
    mcp = definitions("mcp", strict=False)
    strict = {
        key: {"name": s["name"], "description": s["description"], "parameters": s["parameters"]}
        for key, s in definitions("openai-responses", strict=True).items()
    }
    given = json.dumps({"mcp": mcp, "strict": strict})
    done = subprocess.run(
        [str(CLIENT_PYTHON), str(SCRIPT)], input=given, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["mcp"]) == len(mcp) >= 20  # the native tools, the aliases and the profiles' tools
    assert {name: found["strict"] for name, found in result["mcp"].items()} == dict.fromkeys(result["mcp"], True)
    for name, converted in result["mcp"].items():  # what it made: closed objects, every property required
        problems = strict_problems(converted["schema"])
        assert [problem for problem in problems if "default is not allowed" not in problem] == [], name
        # (it keeps defaults, which OpenAI's strict mode ignores)
    assert result["strict"] == {key: {"unchanged": True} for key in strict}


def test_tools_strict_flags_every_schema_strict_and_each_is() -> None:
    for profile in (None, "images", "serp-chat", "numeric-index", "visual-agent"):
        env = {"WEBREACH_STATE__BACKEND": "memory"} | ({"WEBREACH_TOOLS__PROFILE": profile} if profile else {})
        result = CliRunner().invoke(cli, ["tools", "--format", "openai", "--strict"], env=env)
        assert result.exit_code == 0, result.output
        for schema in json.loads(result.stdout):
            function = schema["function"]
            assert function["strict"] is True and strict_problems(function["parameters"]) == [], function["name"]
