"""The admin gate of the HTTP server: who may call /v1/admin/... and the routes mounted there.

Rule: with `[server] admin_token` set, every admin request must carry `Authorization: Bearer <token>`, whatever
address it comes from (a local agent process must not reach the admin surface just by being local); without a
token, only loopback clients are served. Either way a refusal is 401 `admin_required` in the agent error body,
and the token is compared in constant time and never echoed; an empty presented token never matches.

A configured token must be at least MIN_TOKEN_CHARS printable ASCII characters without spaces: an empty or short
one is refused when the server is built (`webreach serve` does not start), so the gate cannot be configured open.
Wrong or missing tokens are counted per client address and throttled (frontends/_admin_throttle.py: 429
`admin_throttled` with Retry-After), the console's login form included.

Behind a reverse proxy on the same machine, a client is told apart from loopback only when the proxy sends
X-Forwarded-For (and is listed in `[server] trusted_proxies`, uvicorn applies it): set a token there anyway.

Admin features add their routes through `AdminRoutes.add`; each handler is wrapped by the gate, so no admin route
can be mounted without it.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from pydantic import SecretStr
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from webreach.clock import Clock, SystemClock
from webreach.config import ServerSettings
from webreach.errors import AdminRequiredError, AdminThrottledError, InvalidInputError
from webreach.frontends._admin_throttle import FailureThrottle
from webreach.frontends._rest_errors import error_response

AdminHandler = Callable[[Request], Awaitable[Response]]
ADMIN_PREFIX = "/v1/admin"
MIN_TOKEN_CHARS = 32
GENERATE_TOKEN = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'


@dataclass(frozen=True)
class AdminGate:
    """Decides whether one request may use the admin surface (see the module docstring for the rule)."""

    token: str | None
    throttle: FailureThrottle = field(default_factory=lambda: FailureThrottle(SystemClock()))

    @classmethod
    def from_settings(cls, server: ServerSettings, clock: Clock | None = None) -> AdminGate:
        """The gate for `server`; InvalidInputError when its admin token is empty or too short."""
        return cls(checked_token(server.admin_token), FailureThrottle(clock or SystemClock()))

    def token_matches(self, presented: str) -> bool:
        """Whether `presented` is the admin token, compared in constant time (False when none is configured, and
        for an empty one whatever is configured)."""
        presented = presented.strip()
        if not self.token or not presented:
            return False
        # compare_digest takes bytes of any length: a wrong length is as slow as a wrong token
        return hmac.compare_digest(presented.encode(), self.token.encode())

    def verify(self, request: Request, presented: str) -> None:
        """Raise AdminThrottledError while the client is throttled, else AdminRequiredError unless `presented` is
        the token (the failure counted and logged, never the token)."""
        client = client_of(request)
        wait = self.throttle.retry_after(client)
        if wait is not None:
            raise AdminThrottledError(
                "too many wrong admin tokens from this address",
                hint="Wait Retry-After seconds, then send the right token.",
                retry_after=wait,
            )
        if not self.token_matches(presented):
            self.throttle.failed(client, request.url.path)
            raise AdminRequiredError(
                "this admin endpoint needs the admin token",
                hint="Send 'Authorization: Bearer <token>' with the server's [server] admin_token.",
            )

    def check(self, request: Request) -> None:
        """Raise AdminRequiredError (or AdminThrottledError) unless the request may use admin endpoints."""
        if self.token is not None:
            scheme, _, presented = request.headers.get("authorization", "").partition(" ")
            self.verify(request, presented if scheme.lower() == "bearer" else "")
        elif not is_loopback(request):
            raise AdminRequiredError(
                "admin endpoints answer loopback clients only while no admin token is configured",
                hint="Call from the server's machine, or set [server] admin_token and send it as a Bearer token.",
            )


def checked_token(secret: SecretStr | None) -> str | None:
    """The configured admin token, or InvalidInputError when it is empty, short or not a plain header value."""
    if secret is None:
        return None
    token = secret.get_secret_value()
    if len(token) >= MIN_TOKEN_CHARS and token.isascii() and token.isprintable() and " " not in token:
        return token
    short = f"has only {len(token)} character{'' if len(token) == 1 else 's'}"
    problem = "is empty" if not token else short if len(token) < MIN_TOKEN_CHARS else ""
    raise InvalidInputError(
        f"[server] admin_token {problem or 'holds spaces or characters other than printable ASCII'}: it must be at "
        f"least {MIN_TOKEN_CHARS} printable ASCII characters without spaces",
        hint=f"Generate one with {GENERATE_TOKEN} and set it as [server] admin_token or "
        "WEBREACH_SERVER__ADMIN_TOKEN; or remove the setting to serve the admin endpoints to loopback clients only.",
    )


def client_of(request: Request) -> str:
    """The client's address (behind a trusted proxy, the one it forwarded): the throttle's key and the log's."""
    return request.client.host if request.client is not None else "unknown"


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

    def add_outside(self, path: str, handler: AdminHandler) -> None:
        """Mount GET `path` outside /v1/admin behind the same gate (GET /metrics, where scrapers look)."""
        self.routes.append(Route(path, self._gated(handler), methods=["GET"]))

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
                return error_response(refusal)
            return await handler(request)

        return gated
