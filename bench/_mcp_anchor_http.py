"""The anchor for bench/serve.py: the minimal MCP server of bench/_mcp_anchor_stdio.py (one tool, a fixed 2 KB
string) served over streamable HTTP as the SDK serves it (`Server.streamable_http_app`: Starlette, JSON answers,
its localhost DNS-rebinding check) by uvicorn with the settings `webreach serve` uses, so its CPU per tools/call
is the SDK's own floor over HTTP.

Run: python -m bench._mcp_anchor_http [--http auto|httptools|h11] [--loop asyncio|uvloop]
Prints "anchor: serving http://127.0.0.1:PORT" to stderr once it serves (a free loopback port).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import uvicorn
from mcp.server import Server

from bench._mcp_anchor_stdio import _call_tool, _list_tools
from webreach.frontends._listening import listen, protocol_class


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--http", choices=("auto", "httptools", "h11"), default="auto")
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio")
    args = parser.parse_args()
    server: Server[Any] = Server("anchor", on_list_tools=_list_tools, on_call_tool=_call_tool)
    app = server.streamable_http_app(json_response=True)
    sock = listen("127.0.0.1", 0)
    config = uvicorn.Config(
        app,
        loop=args.loop,
        http=protocol_class(args.http),
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
        server_header=False,
    )
    print(f"anchor: serving http://127.0.0.1:{sock.getsockname()[1]}", file=sys.stderr, flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
