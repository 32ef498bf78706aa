"""The HTTP server: MCP over streamable HTTP at /mcp and a REST API beside it, on one Starlette app.

Starlette and uvicorn are imported only by this door: this module and the frontends/_*.py parts it mounts. Routes:

    POST /mcp                        MCP streamable HTTP (frontends/mcp.py); also at / for clients given the bare
                                     server URL (frontends/_root.py; a plain GET / goes to /docs)
    POST /mcp/<profile>              MCP serving a drop-in profile's tools (tools/drop_in.py), or the paths
                                     [tools] mcp_paths maps to profiles (frontends/_mcp_paths.py)
    POST /v1/search, /v1/search_multi, /v1/fetch
                                     one per exposed tool: the JSON body is the tool's arguments, the answer its
                                     JSON output (Toolbox.call(..., output="json")); session from the
                                     X-Webreach-Session header, else the caller's or the default
                                     (tools/call_session.py)
    GET  /v1/tools?dialect=openai    the tool schemas (mcp, openai, openai-responses, anthropic)
    GET  /healthz                    {"status": "ok"}
    GET  /metrics                    Prometheus text format, behind the admin gate (frontends/_metrics.py)
    GET  /readyz                     the configured backends answer: 200, else 503 naming which (_readiness.py)
    GET  /v1/admin[/...]             admin endpoints behind the admin gate (frontends/_admin.py): engine
                                     states and breaker resets (frontends/_admin_engines.py)
    GET  /openapi.json, /docs        generated from the tools' schemas (frontends/_openapi.py)
    /console[/...]                   the operator console, HTML (frontends/_console.py, _console_pages.py)

Errors are the agent error body with the HTTP status of its code (frontends/_errors.py), plus Retry-After when
the error says when to come back; the server's own refusals (unknown path, bad Host) use the same shape, and so
do uvicorn's: a request its parser refuses (a control character in a header value, a broken request line) gets
400 invalid_input from the protocol subclass frontends/_listening.py gives uvicorn, not its plain text.

Bodies: [server] max_body_bytes, and for tool calls carrying images a cap fitting [images] max_input_bytes
(frontends/_body_limits.py): over it, 413 request_too_large naming the cap and POST /v1/images. The session header
is UTF-8 (invalid bytes are refused by the session check), so `--session 研究` and the header name one session.

DNS rebinding: every request must carry an allowed Host and Origin (frontends/_host_guard.py). MCP additionally
gets the SDK's own check.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from webreach.clock import SystemClock
from webreach.config import ServerSettings, Settings
from webreach.errors import WebreachError
from webreach.frontends import mcp
from webreach.frontends._admin import ADMIN_PREFIX, AdminGate, AdminRoutes
from webreach.frontends._admin_agents import add_agent_routes
from webreach.frontends._admin_config import add_config_routes
from webreach.frontends._admin_engines import mount_engine_admin
from webreach.frontends._agent_auth import IDEMPOTENCY_HEADER, AgentDoor, caller_of, refuse
from webreach.frontends._asgi import (
    CLIENT_GONE,
    SESSION_HEADER,
    header_text,
    read_body,
    refusal,
    send_error,
)
from webreach.frontends._body_limits import BodyLimits, McpBodyCap, carries_images
from webreach.frontends._console import ConsoleAccess
from webreach.frontends._console_pages import console_routes
from webreach.frontends._errors import EXIT_INVALID_INPUT, cannot_listen, http_status, retry_after_header
from webreach.frontends._heap import settle as settle_heap
from webreach.frontends._host_guard import HostGuard
from webreach.frontends._image_routes import public_image
from webreach.frontends._image_routes import upload as image_upload_route
from webreach.frontends._listening import listen, protocol_class
from webreach.frontends._mcp_paths import McpPaths, door_path, profile_doors, profile_paths
from webreach.frontends._metrics import Metrics
from webreach.frontends._open_tools import open_tools_warning
from webreach.frontends._openapi import docs_html, openapi_document, rest_path
from webreach.frontends._readiness import Readiness
from webreach.frontends._recent_refs import DEFAULT_WINDOW, RecentRefs
from webreach.frontends._rest_errors import error_response
from webreach.frontends._root import RootDoor
from webreach.frontends._serve_logs import LogOptions, announcement, log_config, secrets_of
from webreach.frontends._workers import Supervisor, check_workers
from webreach.gateway import Gateway
from webreach.tools import DIALECTS, Toolbox, account_policies
from webreach.tools.backend import ToolResult
from webreach.tools.drop_in import profile_tools

GatewayOpener = Callable[[], AbstractAsyncContextManager[Gateway]]
# a profile's Toolbox and path -> its MCP endpoint and the door in front of it (build_app)
ProfileDoor = Callable[[Toolbox, str], tuple[mcp.McpHttpEndpoint, ASGIApp]]


# --- the app -------------------------------------------------------------------------------------------------


@dataclass
class _Served:
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
                # the routes and the OpenAPI document: every served tool, with what is checked
                schemas = self.toolbox.schemas("mcp", exact=True, served=True)
                self.tools = {rest_path(schema["name"]): schema["name"] for schema in schemas}
                if gateway.accounts.enabled:  # an agent's profile may name a drop-in surface with tools of its own
                    surfaces = self.toolbox.surfaces.values()
                    self.tools |= {
                        rest_path(name): name
                        for tools in surfaces
                        for name in tools
                        if rest_path(name) not in self.tools
                    }
                self.carrying = frozenset(name for name in self.tools.values() if carries_images(self.toolbox, name))
                unusable = [s.name for s in gateway.engines.statuses() if s.vertical == "web" and not s.usable]
                self.openapi = openapi_document(
                    schemas,
                    version=mcp.version(),
                    session_header=SESSION_HEADER,
                    admin=self.admin_endpoints,
                    unusable=unusable,
                    arguments={name: tool.arguments for name, tool in self.toolbox.tools.items()},
                )
                async with endpoint.running(), self.profile_endpoints(gateway, on_result, profile_door):
                    if on_ready is not None:
                        on_ready()
                    yield
            finally:
                self.gateway = self.toolbox = None

    def profile_endpoints(
        self, gateway: Gateway, on_result: Callable[[ToolResult], None] | None, profile_door: ProfileDoor
    ) -> AbstractAsyncContextManager[None]:
        """The profiles' MCP paths served while the returned context is entered (frontends/_mcp_paths.py)."""
        paths = profile_paths(gateway.settings.tools)
        self.profile_names = frozenset(tool.name for name in set(paths.values()) for tool in profile_tools(name))

        def door(path: str, profile: str) -> tuple[mcp.McpHttpEndpoint, ASGIApp]:
            return profile_door(served_tools(gateway, on_result, profile=profile), path)

        return profile_doors(paths, door, self.doors)


def image_routes(served: _Served) -> list[Route]:
    """POST /v1/images (a multipart upload) and GET /i/<id> (public_url links): frontends/_image_routes.py."""

    async def upload(request: Request) -> Response:
        return await image_upload_route(served.ready(), served.ready_tools(), request)

    async def public(request: Request) -> Response:
        return await public_image(served.ready(), str(request.path_params["link_id"]))

    return [Route("/v1/images", upload, methods=["POST"]), Route("/i/{link_id}", public, methods=["GET"])]


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
    served = _Served(metrics=metrics)
    hosts, origins = server.hosts(), server.origins()
    # MCP borrows the gateway the app's lifespan opened: one gateway, one set of caches, breakers and refs
    endpoint = mcp.http_endpoint(
        lambda: contextlib.nullcontext(served.ready_tools()),
        allowed_hosts=hosts,
        allowed_origins=origins,
        profile=source.tools.profile if isinstance(source, Settings) else None,
    )
    rest = _Rest(served)
    admin = AdminRoutes(AdminGate.from_settings(server))
    mount_engine_admin(admin, served.ready)
    add_agent_routes(admin, served.ready)
    add_config_routes(admin, served.ready)
    admin.add_outside("/metrics", metrics.answer)  # behind the admin gate: _metrics.py, docs/scaling.md
    served.admin_endpoints = {f"GET {ADMIN_PREFIX}": "The admin endpoints, with a summary of each.", **admin.described}
    max_body_bytes = server.max_body_bytes
    limits = lambda: BodyLimits.of(max_body_bytes, served.ready().settings.images.max_input_bytes)  # noqa: E731
    tool_calls = _ToolCalls(served, limits)
    mcp_door = AgentDoor(McpBodyCap(endpoint.app, limits, served.ready_tools), served.ready)
    to_docs = Route("/", _to_docs).app

    def profile_door(toolbox: Toolbox, path: str) -> tuple[mcp.McpHttpEndpoint, ASGIApp]:
        """A profile's MCP endpoint and its door: agent keys and body caps as /mcp's; at / a browser gets /docs."""
        opened = mcp.http_endpoint(
            lambda: contextlib.nullcontext(toolbox),
            allowed_hosts=hosts,
            allowed_origins=origins,
            profile=toolbox.tool_profile,
        )
        door: ASGIApp = AgentDoor(McpBodyCap(opened.app, limits, lambda: toolbox), served.ready)
        return opened, RootDoor(door, to_docs) if door_path(path) == "/" else door

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
        Route("/", RootDoor(mcp_door, to_docs)),
    ]
    if bare_route:
        routes.append(Route("/bench/bare", _bare, methods=["GET"]))
    routes += admin.all_routes()
    # the operator console (frontends/_console*.py): the admin gate's token or loopback rule, with sessions
    access = ConsoleAccess(admin.gate, SystemClock(), served.ready, secure_cookies=server.secure_cookies)
    routes += console_routes(access, served.ready)
    # last, any method: every other route matches first; an unknown /v1/ path is 404 whatever the method, a
    # known endpoint's wrong method 405 with its Allow (_ToolCalls)
    tool_calls.next_to(routes)
    routes.append(Route("/v1/{name}", tool_calls))
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(HostGuard, hosts=hosts, origins=origins),
            # a profile's own MCP path, and /mcp itself past the router (_mcp_paths.py)
            Middleware(McpPaths, doors=lambda: served.doors, main=mcp_door),
            Middleware(_ToolCallShortcut, served=served, tool_calls=tool_calls),
        ],
        exception_handlers={HTTPException: _http_exception, Exception: _internal_error},
        lifespan=lambda _: served.serving(open_gateway, endpoint, on_ready, profile_door),
    )


class _Rest:
    """The REST endpoints over the served gateway."""

    def __init__(self, served: _Served) -> None:
        self.served = served

    async def tools(self, request: Request) -> Response:
        """GET /v1/tools?dialect=...: the tool schemas in an agent framework's dialect."""
        asked = request.query_params.get("dialect", "openai")
        dialect = next((known for known in DIALECTS if known == asked), None)
        if dialect is None:
            hint = f"Use one of {', '.join(DIALECTS)}."
            return error_response(refusal("invalid_input", f"unknown dialect {asked!r}", hint=hint))
        try:
            caller = await caller_of(self.served.ready(), request.headers.raw)
        except WebreachError as error:  # no valid key, or the ledger cannot be read now
            return error_response(error)
        tools = self.served.ready_tools()
        return JSONResponse(await tools.caller_schemas(dialect, caller))

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def openapi(self, request: Request) -> Response:
        return JSONResponse(self.served.openapi)

    async def docs(self, request: Request) -> Response:
        base_url = str(request.base_url).rstrip("/")
        return HTMLResponse(docs_html(self.served.openapi, base_url=base_url))


class _ToolCallShortcut:
    """ASGI middleware sending POST /v1/<tool> straight to the tool-call app, past Starlette's exception
    middleware and router; every other request goes on to them.

    Measured (bench/serve.py's REST cached search with the SQLite state file, the ASGI app called in process under
    callgrind): 555k instructions a call through the router, 519k with the shortcut (-6.5%): the router's path
    matching and the exception middleware's wrapping. Nothing is lost by the shortcut:
    the tool-call app raises no HTTPException, and an unexpected exception still reaches the outermost
    ServerErrorMiddleware and its handler.
    """

    def __init__(self, app: ASGIApp, *, served: _Served, tool_calls: _ToolCalls) -> None:
        self.app = app
        self.served = served
        self.tool_calls = tool_calls

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] in self.served.tools:
            return await self.tool_calls(scope, receive, send)
        await self.app(scope, receive, send)


class _ToolCalls:
    """POST /v1/<tool> as a plain ASGI app: the body is the tool's arguments, the answer its JSON output or error.

    The REST API's hot path, so it reads the body and writes the answer itself instead of building Starlette's
    Request and Response objects around every call.
    """

    def __init__(self, served: _Served, limits: Callable[[], BodyLimits]) -> None:
        self.served = served
        self.limits = limits
        # the other /v1/ routes (GET /v1/tools, POST /v1/images) and their methods: a wrong method there is 405
        self.beside: dict[str, str] = {}

    def next_to(self, routes: Sequence[BaseRoute]) -> None:
        """Learn the other fixed /v1/ routes, whose wrong methods this catch-all route receives."""
        for route in routes:
            if isinstance(route, Route) and route.path.startswith("/v1/") and "{" not in route.path and route.methods:
                self.beside[route.path] = ", ".join(sorted(route.methods))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # the raw path matches exactly when request.url.path would (tool paths hold no characters it escapes)
        path, method = scope["path"], scope["method"]
        tool = self.served.tools.get(path)
        allow = "POST" if tool is not None else self.beside.get(path)
        if allow is None:  # 404 whatever the method: no endpoint has this path
            hint = f"Endpoints: {', '.join(sorted(self.served.tools))}; see /docs."
            return await send_error(send, refusal("not_found", f"no endpoint {path}", hint=hint))
        if tool is None or method != "POST":  # a tool is called with POST
            message = f"{method} {path}: this endpoint takes {allow}"
            response = error_response(refusal("method_not_allowed", message, hint="See /docs for the endpoints."))
            response.headers["Allow"] = allow  # HTTP requires a 405 to name the methods it takes
            return await response(scope, receive, send)
        declared, session, idempotency_key = b"0", None, None
        for name, value in scope["headers"]:
            if name == b"content-length":
                declared = value
            elif name == _SESSION_HEADER_KEY and session is None:  # the first one counts, as in Starlette
                session = value
            elif name == IDEMPOTENCY_HEADER and idempotency_key is None:
                idempotency_key = value.decode("latin-1")
        try:
            caller = await caller_of(self.served.ready(), scope["headers"])
        except WebreachError as error:  # no valid key, or the ledger cannot be read now
            return await refuse(error, scope, receive, send)
        limits = self.limits()
        images = tool in self.served.carrying
        cap = limits.images if images else limits.plain
        too_large = not declared.isdigit() or int(declared) > cap
        # refused before reading, so a client waiting on "Expect: 100-continue" is not asked to send it
        body = None if too_large else await read_body(receive, cap)
        if body is CLIENT_GONE:
            return None
        if body is None:
            message, hint = limits.refusal(images=images)
            return await send_error(send, refusal("request_too_large", message, hint=hint), tool=tool)
        result = await self.served.ready_tools().call(
            tool,
            body.decode("utf-8", errors="replace"),
            session=header_text(session) if session is not None else None,
            output="json",
            caller=caller,
            idempotency_key=idempotency_key,
        )
        content = result.text.encode()
        # a drop-in profile's text answer (browse_url, credits-server's web_fetch) is text, not JSON
        kind = b"application/json" if result.is_json else b"text/plain; charset=utf-8"
        headers = [(b"content-type", kind), (b"content-length", str(len(content)).encode())]
        status = 200
        if result.error is not None:
            status = http_status(result.error.code)
            retry_after = retry_after_header(result.error.retry_after)
            if retry_after is not None:
                headers.append((b"retry-after", retry_after.encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})


_SESSION_HEADER_KEY = SESSION_HEADER.lower().encode()


async def _to_docs(request: Request) -> Response:
    """GET /: the server's front door sends a person (or a client) to the API documentation."""
    return RedirectResponse("/docs", status_code=307)


async def _bare(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def _http_exception(request: Request, exc: Exception) -> Response:
    """Starlette's own 404/405 answers, in the agent error shape."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    code = {404: "not_found", 405: "method_not_allowed"}.get(status, "invalid_input")
    hint = "See /docs for the endpoints." if status in (404, 405) else ""
    message = f"{request.method} {request.url.path}: {exc.detail if isinstance(exc, HTTPException) else exc}"
    response = error_response(refusal(code, message, hint=hint))
    if isinstance(exc, HTTPException) and exc.headers:  # a 405 names the methods allowed (Allow), as HTTP requires
        response.headers.update(exc.headers)
    return response


async def _internal_error(request: Request, exc: Exception) -> Response:
    return error_response(
        refusal("error", "internal server error", hint="This is a bug; the server log has the details.")
    )


# --- running -------------------------------------------------------------------------------------------------


def run_http(
    settings: Settings,
    *,
    host: str = "127.0.0.1",
    port: int = 9090,
    server: ServerSettings | None = None,
    bare_route: bool = False,
    logs: LogOptions | None = None,
    masked: Sequence[str] = (),
    workers: int = 1,
) -> None:
    """`webreach serve`: serve MCP and REST until interrupted (blocking). Port 0 picks a free port. `workers`
    processes share the socket (frontends/_workers.py; the CLI sets up their metrics directory first).

    `logs` sets the level, the access log and text or JSON lines (frontends/_serve_logs.py; the secrets of
    `settings` masked, and `masked` too: the console's stored keys).

    Prints one line to stderr once serving, naming the actual address, e.g.
    "webreach: serving http://127.0.0.1:9090 (MCP /mcp, REST /v1/..., docs /docs)".
    A port in use or an unknown address raises InvalidInputError (frontends/_errors.cannot_listen).
    """
    try:
        sock = listen(host, port)
    except OSError as exc:  # the CLI prints it as `webreach fakeweb` does: code, message, hint, exit 2
        raise cannot_listen(host, port, exc) from None
    actual = sock.getsockname()[1]
    server = (server or settings.server).model_copy(update={"host": host, "port": actual})
    address = f"http://{f'[{host}]' if ':' in host else host}:{actual}"

    logs = logs or LogOptions()

    def announce() -> None:
        text = f"webreach: serving {address} (MCP {address}/mcp, REST {address}/v1/..., docs {address}/docs)"
        print(announcement(logs, text), file=sys.stderr, flush=True)

    for package in (server.event_loop, server.http_parser):
        if package in ("uvloop", "httptools") and importlib.util.find_spec(package) is None:
            print(
                f"webreach: the server setting {package} needs the {package} package (pip install {package})",
                file=sys.stderr,
            )
            raise SystemExit(EXIT_INVALID_INPUT)
    check_workers(workers, settings)
    warning = open_tools_warning(settings, host, address)
    if warning is not None:
        print(announcement(logs, warning, level="warning"), file=sys.stderr, flush=True)

    def serve_one(index: int) -> None:
        # a short admin token is refused here; the first worker announces the address once it serves
        app = build_app(settings, server=server, bare_route=bare_route, on_ready=ready_hook(index, announce))
        uvicorn.Server(_uvicorn_config(app, server, settings, logs, masked)).run(sockets=[sock])

    if workers == 1:
        serve_one(0)
    else:
        Supervisor(workers, serve_one).run()


def ready_hook(index: int, announce: Callable[[], None]) -> Callable[[], None]:
    """What worker `index` does once its app is ready: its start-up heap frozen (_heap.py), and the first worker
    announces the address."""

    def ready() -> None:
        settle_heap()
        if index == 0:
            announce()

    return ready


def _uvicorn_config(
    app: Starlette, server: ServerSettings, settings: Settings, logs: LogOptions, masked: Sequence[str]
) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        forwarded_allow_ips=server.trusted_proxies,  # whose X-Forwarded-For/-Proto count ([server] trusted_proxies)
        loop=server.event_loop,
        http=protocol_class(server.http_parser),
        log_level=logs.level,
        access_log=logs.access_log,
        log_config=log_config(logs, [*secrets_of(settings), *masked]),
        lifespan="on",
        timeout_graceful_shutdown=5,
        server_header=False,
    )
