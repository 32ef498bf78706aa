"""openai-agents' own strict conversion of tool schemas, as its MCP client and its FunctionTool do it. Reads
{"mcp": {key: MCP tool definition}, "strict": {key: {"name", "description", "parameters"}}} as JSON on stdin
(a key names a tool within its surface: one name may be two tools in two surfaces); prints, per
MCP tool, whether MCPUtil.to_function_tool(..., convert_schemas_to_strict=True) kept it strict (it falls back to
non-strict, silently, when ensure_strict_json_schema raises) with the schema it made, and per strict definition
whether FunctionTool(strict_json_schema=True) took it and left it unchanged (it is strict already) or the error.

Runs in the client venv (.ci-clients): openai-agents needs mcp<2.
"""

import json
import sys

from agents import FunctionTool
from agents.mcp import MCPServerStdio
from agents.mcp.util import MCPUtil
from mcp.types import Tool


async def never_called(context: object, arguments: str) -> str:
    raise AssertionError("conversion only")


def main(given: dict) -> None:
    server = MCPServerStdio(params={"command": "true"})  # never started: to_function_tool reads its settings only
    converted = {}
    for key, definition in given["mcp"].items():
        tool = MCPUtil.to_function_tool(Tool.model_validate(definition), server, convert_schemas_to_strict=True)
        converted[key] = {"strict": tool.strict_json_schema, "schema": tool.params_json_schema}
    taken = {}
    for key, definition in given["strict"].items():
        try:
            tool = FunctionTool(
                name=definition["name"],
                description=definition["description"],
                params_json_schema=definition["parameters"],
                on_invoke_tool=never_called,
                strict_json_schema=True,
            )
        except Exception as error:  # reported to the test, which fails on it
            taken[key] = {"error": f"{type(error).__name__}: {error}"}
            continue
        taken[key] = {"unchanged": tool.params_json_schema == definition["parameters"]}
    print(json.dumps({"mcp": converted, "strict": taken}))


if __name__ == "__main__":
    main(json.load(sys.stdin))
