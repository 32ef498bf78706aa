"""MCP endpoints per drop-in profile: one server offers several tool surfaces, each at its own path.

    /mcp                    the server's own surface ([tools] profile, enabled, alias_set)
    /mcp/rollout-gateway    that profile's tools (tools/drop_in.py), one path per profile by default
    [tools] mcp_paths       path -> profile instead, e.g. {"/" = "rollout-gateway"} for a client given the bare
                            server URL (a browser's GET / still goes to /docs)

Each path is its own MCP endpoint (its own MCP sessions) over its own Toolbox on the one Gateway, so every profile
shares the caches, breakers, session refs, metering and agent keys of the server. The paths are read from the
settings when the server starts: `McpPaths` sits in front of the routes and passes a request for a profile's path
to that profile's door, a request for /mcp itself to the server's own door, any other request on to the routes.
/mcp is served from here rather than from a route because it is the hot path of every MCP call: the exception
middleware and the router between here and a route did nothing for it but cost (the SDK answers every refusal
itself; an unexpected error still reaches the outermost error middleware).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping

from webreach.config import ToolSettings
from webreach.frontends._asgi import ASGIApp, Receive, Scope, Send
from webreach.frontends.mcp import McpHttpEndpoint
from webreach.tools.drop_in import PROFILES


def profile_paths(config: ToolSettings) -> dict[str, str]:
    """Path -> profile: [tools] mcp_paths, else every profile at /mcp/<profile> unless [tools] enabled narrows the
    tools (an operator who narrowed them gets no wider surface by a default)."""
    if config.mcp_paths is not None:
        return dict(config.mcp_paths)
    if config.enabled is not None:
        return {}
    return {f"/mcp/{name}": name for name in PROFILES}


def door_path(path: str) -> str:
    """`path` as the doors are keyed: without a trailing slash (/ itself stays /)."""
    return path.rstrip("/") or "/"


@contextlib.asynccontextmanager
async def profile_doors(
    paths: Mapping[str, str], door: Callable[[str, str], tuple[McpHttpEndpoint, ASGIApp]], doors: dict[str, ASGIApp]
) -> AsyncIterator[None]:
    """Each path's MCP endpoint running, its door (`door(path, profile)`) in `doors` until the server stops."""
    async with contextlib.AsyncExitStack() as stack:
        for path, profile in paths.items():
            endpoint, app = door(path, profile)
            await stack.enter_async_context(endpoint.running())
            doors[door_path(path)] = app
        try:
            yield
        finally:
            doors.clear()


MAIN_PATH = "/mcp"  # the server's own MCP endpoint


class McpPaths:
    """ASGI middleware: a request for a profile's path goes to its door (`doors()`: path -> ASGI app, empty until
    the server has started), one for exactly /mcp to `main` (the server's own door) unless a profile claims it,
    any other to `app`."""

    def __init__(self, app: ASGIApp, doors: Callable[[], Mapping[str, ASGIApp]], main: ASGIApp | None = None) -> None:
        self.app = app
        self.doors = doors
        self.main = main

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope["path"]
        door = self.doors().get(door_path(path)) or (self.main if path == MAIN_PATH else None)
        await (door or self.app)(scope, receive, send)
