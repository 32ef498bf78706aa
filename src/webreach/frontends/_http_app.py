"""The HTTP server's Starlette app: MCP, REST, admin, docs and console assembled over one gateway (build_app)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp

from webreach.clock import SystemClock
from webreach.config import ServerSettings, Settings
from webreach.frontends import mcp
from webreach.frontends._admin import ADMIN_PREFIX, AdminGate, AdminRoutes
from webreach.frontends._admin_agents import add_agent_routes
from webreach.frontends._admin_config import add_config_routes
from webreach.frontends._admin_engines import mount_engine_admin
from webreach.frontends._agent_auth import AgentDoor
from webreach.frontends._body_limits import BodyLimits, McpBodyCap
from webreach.frontends._console import ConsoleAccess
from webreach.frontends._console_pages import console_routes
from webreach.frontends._host_guard import HostGuard
from webreach.frontends._http_rest import Rest, bare, http_exception, image_routes, internal_error, to_docs
from webreach.frontends._http_served import GatewayOpener, ProfileDoor, Served
from webreach.frontends._http_tool_calls import ToolCalls, ToolCallShortcut
from webreach.frontends._mcp_paths import McpPaths, door_path
from webreach.frontends._metrics import Metrics
from webreach.frontends._readiness import Readiness
from webreach.frontends._root import RootDoor
from webreach.gateway import Gateway
from webreach.tools import Toolbox

Limits = Callable[[], BodyLimits]


def build_app(
    source: Settings | GatewayOpener,
    *,
    server: ServerSettings | None = None,
    bare_route: bool = False,
    on_ready: Callable[[], None] | None = None,
) -> Starlette:
    """The Starlette app: MCP, REST, docs. `source` is Settings or a function opening the one Gateway.

    bare_route adds GET /bench/bare, a JSON endpoint that does nothing (bench/serve.py's baseline); on_ready is
    called once the gateway is open and the app about to serve.
    """
    server = server or ServerSettings()
    open_gateway: GatewayOpener = (lambda: Gateway.from_settings(source)) if isinstance(source, Settings) else source
    metrics = Metrics(lambda: served.tool_names(), lambda: served.ready().engines.statuses())
    served = Served(metrics=metrics)
    hosts, origins = server.hosts(), server.origins()
    # MCP borrows the gateway the app's lifespan opened: one gateway, one set of caches, breakers and refs
    endpoint = mcp.http_endpoint(
        lambda: contextlib.nullcontext(served.ready_tools()),
        allowed_hosts=hosts,
        allowed_origins=origins,
        profile=source.tools.profile if isinstance(source, Settings) else None,
    )
    admin = _admin(served, server, metrics)
    limits = _limits(served, server.max_body_bytes)
    tool_calls = ToolCalls(served, limits)
    mcp_door = AgentDoor(McpBodyCap(endpoint.app, limits, served.ready_tools), served.ready)
    front = Route("/", to_docs).app
    profile_door = _profile_door(served, limits, front, hosts, origins)
    routes = _routes(served, mcp_door, front, bare_route=bare_route) + admin.all_routes()
    # the operator console (frontends/_console*.py): the admin gate's token or loopback rule, with sessions
    access = ConsoleAccess(admin.gate, SystemClock(), served.ready, secure_cookies=server.secure_cookies)
    routes += console_routes(access, served.ready)
    # last, any method: every other route matches first; an unknown /v1/ path is 404 whatever the method, a
    # known endpoint's wrong method 405 with its Allow (ToolCalls)
    tool_calls.next_to(routes)
    routes.append(Route("/v1/{name}", tool_calls))
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(HostGuard, hosts=hosts, origins=origins),
            # a profile's own MCP path, and /mcp itself past the router (_mcp_paths.py)
            Middleware(McpPaths, doors=lambda: served.doors, main=mcp_door),
            Middleware(ToolCallShortcut, served=served, tool_calls=tool_calls),
        ],
        exception_handlers={HTTPException: http_exception, Exception: internal_error},
        lifespan=lambda _: served.serving(open_gateway, endpoint, on_ready, profile_door),
    )


def _admin(served: Served, server: ServerSettings, metrics: Metrics) -> AdminRoutes:
    """The admin endpoints behind the admin gate (a short admin token is refused here), GET /metrics among them."""
    admin = AdminRoutes(AdminGate.from_settings(server))
    mount_engine_admin(admin, served.ready)
    add_agent_routes(admin, served.ready)
    add_config_routes(admin, served.ready)
    admin.add_outside("/metrics", metrics.answer)  # behind the admin gate: _metrics.py, docs/scaling.md
    served.admin_endpoints = {f"GET {ADMIN_PREFIX}": "The admin endpoints, with a summary of each.", **admin.described}
    return admin


def _limits(served: Served, max_body_bytes: int) -> Limits:
    """The body caps in effect for each call, made again only when the image cap changes (the console changes it
    live): one comparison per call instead of a BodyLimits built per call."""
    made: dict[int, BodyLimits] = {}

    def limits() -> BodyLimits:
        image_bytes = served.ready().settings.images.max_input_bytes
        known = made.get(image_bytes)
        if known is None:
            made.clear()  # the previous cap's: one kept
            known = made[image_bytes] = BodyLimits.of(max_body_bytes, image_bytes)
        return known

    return limits


def _profile_door(
    served: Served, limits: Limits, front: ASGIApp, hosts: Sequence[str], origins: Sequence[str]
) -> ProfileDoor:
    """What builds a profile's MCP endpoint and its door (_mcp_paths.py), once the lifespan knows its tools."""

    def profile_door(toolbox: Toolbox, path: str) -> tuple[mcp.McpHttpEndpoint, ASGIApp]:
        """A profile's MCP endpoint and its door: agent keys and body caps as /mcp's; at / a browser gets /docs."""
        opened = mcp.http_endpoint(
            lambda: contextlib.nullcontext(toolbox),
            allowed_hosts=hosts,
            allowed_origins=origins,
            profile=toolbox.tool_profile,
        )
        door: ASGIApp = AgentDoor(McpBodyCap(opened.app, limits, lambda: toolbox), served.ready)
        return opened, RootDoor(door, front) if door_path(path) == "/" else door

    return profile_door


def _routes(served: Served, mcp_door: ASGIApp, front: ASGIApp, *, bare_route: bool) -> list[BaseRoute]:
    """MCP at /mcp and /, the REST routes beside it, and GET /bench/bare when asked for."""
    rest = Rest(served)
    routes: list[BaseRoute] = [
        # /v1/tools before /v1/{name}: the first route whose path matches answers a wrong method, and its Allow
        # header must be /v1/tools' own. Tool calls reach /v1/{name} only when the shortcut passes them on.
        Route("/v1/tools", rest.tools, methods=["GET"]),
        *image_routes(served),
        Route("/mcp", mcp_door),
        Route("/healthz", rest.healthz, methods=["GET"]),
        Route("/readyz", Readiness(served.ready).answer, methods=["GET"]),
        Route("/openapi.json", rest.openapi, methods=["GET"]),
        Route("/docs", rest.docs, methods=["GET"]),
        # MCP clients given the bare server URL post to / (frontends/_root.py); a browser's GET goes to /docs
        Route("/", RootDoor(mcp_door, front)),
    ]
    if bare_route:
        routes.append(Route("/bench/bare", bare, methods=["GET"]))
    return routes
