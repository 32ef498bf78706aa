"""The admin gate of the HTTP server: who may call /v1/admin/... and the routes mounted there.

Rule: with `[server] admin_token` set, every admin request must carry `Authorization: Bearer <token>`, whatever
address it comes from (a local agent process must not reach the admin surface just by being local); without a
token, only loopback clients are served. Either way a refusal is 401 `admin_required` in the agent error body,
and the token is compared in constant time and never echoed.

Behind a reverse proxy on the same machine every client looks like loopback: set a token there (docs/decisions.md).

Admin features add their routes through `AdminRoutes.add`; each handler is wrapped by the gate, so no admin route
can be mounted without it.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from webreach.config import ServerSettings
from webreach.errors import AdminRequiredError
from webreach.frontends._asgi import error_body
from webreach.frontends._errors import http_status

AdminHandler = Callable[[Request], Awaitable[Response]]
ADMIN_PREFIX = "/v1/admin"


@dataclass(frozen=True)
class AdminGate:
    """Decides whether one request may use the admin surface (see the module docstring for the rule)."""

    token: str | None

    @classmethod
    def from_settings(cls, server: ServerSettings) -> AdminGate:
        secret = server.admin_token
        return cls(secret.get_secret_value() if secret is not None else None)

    def token_matches(self, presented: str) -> bool:
        """Whether `presented` is the admin token, compared in constant time (False when none is configured)."""
        return self.token is not None and hmac.compare_digest(presented.strip().encode(), self.token.encode())

    def check(self, request: Request) -> None:
        """Raise AdminRequiredError unless the request may use admin endpoints."""
        if self.token is not None:
            scheme, _, presented = request.headers.get("authorization", "").partition(" ")
            # compare_digest takes bytes of any length: a wrong length is as slow as a wrong token
            if scheme.lower() != "bearer" or not self.token_matches(presented):
                raise AdminRequiredError(
                    "this admin endpoint needs the admin token",
                    hint="Send 'Authorization: Bearer <token>' with the server's [server] admin_token.",
                )
        elif not is_loopback(request):
            raise AdminRequiredError(
                "admin endpoints answer loopback clients only while no admin token is configured",
                hint="Call from the server's machine, or set [server] admin_token and send it as a Bearer token.",
            )


def is_loopback(request: Request) -> bool:
    """Whether the request's peer is a loopback address (an IPv4-mapped one included)."""
    client = request.client
    if client is None:
        return False
    try:
        address = ipaddress.ip_address(client.host.partition("%")[0])
    except ValueError:  # a Unix socket peer or a test transport's name: not provably local
        return False
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return (mapped or address).is_loopback


@dataclass
class AdminRoutes:
    """The admin endpoints, each behind the gate; `index` lists them at GET /v1/admin."""

    gate: AdminGate
    described: dict[str, str] = field(default_factory=dict)
    routes: list[Route] = field(default_factory=list)

    def add(self, path: str, handler: AdminHandler, *, methods: list[str], summary: str) -> None:
        """Mount `handler` at /v1/admin<path> behind the gate."""
        full = ADMIN_PREFIX + path
        for method in methods:
            self.described[f"{method} {full}"] = summary
        self.routes.append(Route(full, self._gated(handler), methods=methods))

    def all_routes(self) -> list[Route]:
        """The index first, then every added route."""
        return [Route(ADMIN_PREFIX, self._gated(self.index), methods=["GET"]), *self.routes]

    async def index(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", "endpoints": self.described})

    def _gated(self, handler: AdminHandler) -> AdminHandler:
        async def gated(request: Request) -> Response:
            try:
                self.gate.check(request)
            except AdminRequiredError as refusal:
                body = error_body(refusal.code, refusal.message, hint=refusal.hint)
                return JSONResponse(body, status_code=http_status(refusal.code))
            return await handler(request)

        return gated
