"""The anchor for `webreach serve`'s idle memory (bench/serve_memory.py): a minimal MCP server on the same mcp SDK
(one tool returning a fixed 2 KB string) behind the SDK's streamable HTTP manager, in a Starlette app on uvicorn
with webreach's uvicorn settings (httptools, asyncio loop, lifespan on). Prints `serving http://...` once up."""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from starlette.applications import Starlette
from starlette.routing import Route

TEXT = "x" * 2048


async def _list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool(name="fixed", input_schema={"type": "object"})])


async def _call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=TEXT)])


def main() -> None:
    server: Server[Any] = Server("anchor", on_list_tools=_list_tools, on_call_tool=_call_tool)
    manager = StreamableHTTPSessionManager(app=server, json_response=True)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            print(f"serving http://127.0.0.1:{sock.getsockname()[1]}", file=sys.stderr, flush=True)
            yield

    app = Starlette(routes=[Route("/mcp", StreamableHTTPASGIApp(manager))], lifespan=lifespan)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, loop="asyncio", http="httptools", log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
