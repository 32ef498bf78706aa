"""openai-agents with convert_schemas_to_strict=True over stdio: the tools as a strict model sees them, and calls
shaped like a strict model's (every property present, the ones not wanted null), each checked against the
converted schema (a strict model can only send what it allows) and sent through the agent's own
FunctionTool.on_invoke_tool. Prints the converted schemas, the arguments sent, the schema's complaints about
them and the results as JSON.

    python openai_agents_strict.py '<MCPServerStdio params JSON>' '<search arguments JSON>' <url to read>

Runs in the client venv (.ci-clients): openai-agents needs mcp<2.
"""

import asyncio
import json
import sys

import jsonschema
from agents import Agent
from agents.mcp import MCPServerStdio
from agents.run_context import RunContextWrapper
from agents.tool_context import ToolContext


def strict_call(schema: dict, given: dict) -> dict:
    """Arguments as a strict model sends them: every property of the strict schema, null where not given."""
    assert schema.get("additionalProperties") is False and set(schema["required"]) == set(schema["properties"])
    return {name: given.get(name) for name in schema["properties"]}


async def main(params: dict, search: dict, url: str) -> None:
    async with MCPServerStdio(params=params, client_session_timeout_seconds=60) as server:
        agent = Agent(name="reader", mcp_servers=[server], mcp_config={"convert_schemas_to_strict": True})
        tools = {tool.name: tool for tool in await agent.get_mcp_tools(RunContextWrapper(None))}
        calls = [
            ("web_search", search),
            ("web_fetch", {"ref": 1, "max_chars": 400}),
            ("web_fetch", {"url": url, "max_chars": 400}),
            ("web_search_multi", {"query": search["query"]}),
        ]
        results = []
        for number, (name, given) in enumerate(calls):
            tool = tools[name]
            call = strict_call(tool.params_json_schema, given)
            invalid = [
                error.message for error in jsonschema.Draft202012Validator(tool.params_json_schema).iter_errors(call)
            ]
            arguments = json.dumps(call)
            context = ToolContext(None, tool_name=name, tool_call_id=f"call_{number}", tool_arguments=arguments)
            output = await tool.on_invoke_tool(context, arguments)
            results.append({"tool": name, "arguments": call, "schema_errors": invalid, "output": str(output)})
        strict = {name: tool.strict_json_schema for name, tool in tools.items()}
        schemas = {name: tool.params_json_schema for name, tool in tools.items()}
    print(json.dumps({"strict": strict, "schemas": schemas, "calls": results}))


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]))
