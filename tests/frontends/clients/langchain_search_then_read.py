"""langchain-mcp-adapters' default get_tools(): every tool call opens its own MCP session (a new stdio process, or
a new streamable-HTTP session). Searches in one call, reads ref 1 in the next, prints both results as JSON.

    python langchain_search_then_read.py '<connection JSON>' '<search arguments JSON>'

Runs in the client venv (.ci-clients), not webreach's: langchain-mcp-adapters needs mcp<2.
"""

import asyncio
import json
import sys

from langchain_mcp_adapters.client import MultiServerMCPClient


async def main(connection: dict, search: dict) -> None:
    client = MultiServerMCPClient({"webreach": connection})
    tools = {tool.name: tool for tool in await client.get_tools()}
    found = await tools["web_search"].ainvoke(search)
    read = await tools["web_fetch"].ainvoke({"ref": 1})
    print(json.dumps({"tools": sorted(tools), "search": text(found), "fetch": text(read)}))


def text(result: object) -> str:
    """The text of a tool result (a string, or content blocks in newer adapters)."""
    if isinstance(result, str):
        return result
    if isinstance(result, tuple):  # (content, artifact)
        result = result[0]
    if isinstance(result, list):
        return "\n".join(block.get("text", "") if isinstance(block, dict) else str(block) for block in result)
    return str(result)


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1]), json.loads(sys.argv[2])))
