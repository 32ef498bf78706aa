"""The anchor for `webreach mcp` start-up (bench/startup.py): a minimal stdio MCP server on the same mcp SDK, one
tool returning a fixed 2 KB string, so its time to answer `initialize` is the SDK's own floor."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

TEXT = "x" * 2048


async def _list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool(name="fixed", input_schema={"type": "object"})])


async def _call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=TEXT)])


async def main() -> None:
    server: Server[Any] = Server("anchor", on_list_tools=_list_tools, on_call_tool=_call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
