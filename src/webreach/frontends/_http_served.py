"""What the HTTP server's lifespan opens for its routes: the one gateway, the tools REST and MCP share, their docs."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from starlette.types import ASGIApp

from webreach.frontends import mcp
from webreach.frontends._asgi import SESSION_HEADER
from webreach.frontends._body_limits import carries_images
from webreach.frontends._mcp_paths import profile_doors, profile_paths
from webreach.frontends._metrics import Metrics
from webreach.frontends._openapi import openapi_document, rest_path
from webreach.frontends._recent_refs import DEFAULT_WINDOW, RecentRefs
from webreach.gateway import Gateway
from webreach.tools import Toolbox, account_policies
from webreach.tools.backend import ToolResult
from webreach.tools.drop_in import profile_tools

GatewayOpener = Callable[[], AbstractAsyncContextManager[Gateway]]
# a profile's Toolbox and path -> its MCP endpoint and the door in front of it (build_app)
ProfileDoor = Callable[[Toolbox, str], tuple[mcp.McpHttpEndpoint, ASGIApp]]


@dataclass
class Served:
    """What the lifespan opened, for the routes: the gateway and its tools, REST path -> tool, the OpenAPI document."""

    gateway: Gateway | None = None
    toolbox: Toolbox | None = None
    tools: dict[str, str] = field(default_factory=dict)
    carrying: frozenset[str] = frozenset()  # the tools among them whose arguments carry images (_body_limits.py)
    openapi: dict[str, Any] = field(default_factory=dict)
    admin_endpoints: dict[str, str] = field(default_factory=dict)  # "METHOD /v1/admin/..." -> summary
    metrics: Metrics | None = None  # GET /metrics: fed by the engines' attempts and the tools' results
    doors: dict[str, ASGIApp] = field(default_factory=dict)  # a profile's MCP path -> its door (_mcp_paths.py)
    profile_names: frozenset[str] = frozenset()  # the tools of the profiles at those paths (metric labels)

    def ready(self) -> Gateway:
        if self.gateway is None:
            raise RuntimeError("the server is not started")
        return self.gateway

    def tool_names(self) -> Collection[str]:
        """Every tool served here, on /mcp and the profiles' paths: the tool labels of the metrics."""
        return self.ready_tools().tools.keys() | self.profile_names

    def ready_tools(self) -> Toolbox:
        if self.toolbox is None:
            raise RuntimeError("the server is not started")
        return self.toolbox

    @contextlib.asynccontextmanager
    async def serving(
        self,
        open_gateway: GatewayOpener,
        endpoint: mcp.McpHttpEndpoint,
        on_ready: Callable[[], None] | None,
        profile_door: ProfileDoor,
    ) -> AsyncIterator[None]:
        """The app's lifespan: open the one gateway, derive routes and docs from its tools, run MCP beside it."""
        # the server follows breaker changes other processes make (engines --reset, a deleted state file)
        async with open_gateway() as gateway, gateway.follow_shared_state("serve"):
            self.gateway = gateway
            on_result = None
            if self.metrics is not None:
                gateway.engines.add_attempt_listener(self.metrics.attempt)
                on_result = self.metrics.tool_result
            self.toolbox = served_tools(gateway, on_result)
            try:
                self.describe(gateway, self.toolbox)
                async with endpoint.running(), self.profile_endpoints(gateway, on_result, profile_door):
                    if on_ready is not None:
                        on_ready()
                    yield
            finally:
                self.gateway = self.toolbox = None

    def describe(self, gateway: Gateway, toolbox: Toolbox) -> None:
        """The routes and the OpenAPI document: every served tool, with what is checked."""
        schemas = toolbox.schemas("mcp", exact=True, served=True)
        self.tools = {rest_path(schema["name"]): schema["name"] for schema in schemas}
        if gateway.accounts.enabled:  # an agent's profile may name a drop-in surface with tools of its own
            surfaces = toolbox.surfaces.values()
            self.tools |= {
                rest_path(name): name for tools in surfaces for name in tools if rest_path(name) not in self.tools
            }
        self.carrying = frozenset(name for name in self.tools.values() if carries_images(toolbox, name))
        unusable = [s.name for s in gateway.engines.statuses() if s.vertical == "web" and not s.usable]
        self.openapi = openapi_document(
            schemas,
            version=mcp.version(),
            session_header=SESSION_HEADER,
            admin=self.admin_endpoints,
            unusable=unusable,
            arguments={name: tool.arguments for name, tool in toolbox.tools.items()},
        )

    def profile_endpoints(
        self, gateway: Gateway, on_result: Callable[[ToolResult], None] | None, profile_door: ProfileDoor
    ) -> AbstractAsyncContextManager[None]:
        """The profiles' MCP paths served while the returned context is entered (frontends/_mcp_paths.py)."""
        paths = profile_paths(gateway.settings.tools)
        self.profile_names = frozenset(tool.name for name in set(paths.values()) for tool in profile_tools(name))

        def door(path: str, profile: str) -> tuple[mcp.McpHttpEndpoint, ASGIApp]:
            return profile_door(served_tools(gateway, on_result, profile=profile), path)

        return profile_doors(paths, door, self.doors)


def served_tools(
    gateway: Gateway, on_result: Callable[[ToolResult], None] | None = None, *, profile: str | None = None
) -> Toolbox:
    """The tools REST and MCP share on this server: refs re-shown within a minute skip the store (_recent_refs);
    with `profile`, that drop-in profile's whole surface (a profile's own MCP path: _mcp_paths.py)."""
    ttl = gateway.settings.tools.session_ttl_seconds
    sessions = RecentRefs(gateway.sessions, gateway.clock, window=min(DEFAULT_WINDOW, ttl / 1000))
    accounts = gateway.accounts
    agent_profile, known = (accounts.profile, accounts.known_profile) if accounts.enabled else (None, None)
    policies = account_policies(accounts)
    config = gateway.settings.tools
    return Toolbox(
        gateway,
        sessions,
        enabled=config.enabled if profile is None else None,
        policies=policies,
        profile=agent_profile,
        known_profile=known,
        alias_set=config.alias_set if profile is None else None,
        tool_profile=config.profile if profile is None else profile,
        offload=accounts.off_loop,  # the profile is a ledger read: never on the event loop
        on_result=on_result,
        tracing=gateway.tracing,
    )
