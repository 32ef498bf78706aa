"""McpPaths: which door a request reaches (frontends/_mcp_paths.py); the doors themselves are tested over a real
server in test_mcp_http.py and tests/tools/test_drop_in.py."""

from __future__ import annotations

from typing import Any

from webreach.frontends._mcp_paths import McpPaths


class Door:
    """An ASGI app recording the paths it was called for."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.paths.append(scope.get("path", scope["type"]))


async def nothing() -> dict[str, Any]:
    return {"type": "http.disconnect"}


async def ignore(message: Any) -> None:
    return None


async def visit(paths: McpPaths, *requests: tuple[str, str]) -> None:
    for kind, path in requests:
        await paths({"type": kind, "path": path, "method": "POST", "headers": []}, nothing, ignore)


async def test_mcp_itself_goes_to_the_main_door_without_the_routes() -> None:
    routes, main = Door(), Door()
    await visit(McpPaths(routes, doors=dict, main=main), ("http", "/mcp"), ("http", "/v1/search"), ("http", "/"))
    assert main.paths == ["/mcp"]
    assert routes.paths == ["/v1/search", "/"]


async def test_only_the_exact_path_and_http_reach_the_main_door() -> None:
    # /mcp/ stays the router's (which redirects it), a websocket or lifespan event is never a door's
    routes, main = Door(), Door()
    await visit(McpPaths(routes, doors=dict, main=main), ("http", "/mcp/"), ("http", "/mcpx"), ("websocket", "/mcp"))
    assert main.paths == []
    assert routes.paths == ["/mcp/", "/mcpx", "/mcp"]


async def test_a_profile_mapped_to_mcp_wins_over_the_main_door() -> None:
    routes, main, profile, other = Door(), Door(), Door(), Door()
    doors = {"/mcp": profile, "/mcp/rollout-gateway": other}
    await visit(McpPaths(routes, doors=lambda: doors, main=main), ("http", "/mcp"), ("http", "/mcp/rollout-gateway/"))
    assert (profile.paths, other.paths, main.paths, routes.paths) == (["/mcp"], ["/mcp/rollout-gateway/"], [], [])


async def test_without_a_main_door_mcp_goes_on_to_the_routes() -> None:
    routes = Door()
    await visit(McpPaths(routes, doors=dict), ("http", "/mcp"))
    assert routes.paths == ["/mcp"]
