"""Who is calling, at the HTTP doors: `Authorization: Bearer <agent key>` once accounts are enabled.

With accounts off (the default, for a local loopback server) nobody is asked for a key and calls are anonymous.
Once enabled, every tool call and tool listing over REST or MCP needs a valid key of an enabled agent; without one
the answer is 401 `agent_auth_failed` in the agent error body (the key is never echoed); a ledger that cannot be
read is 503 `accounting_unavailable` with Retry-After. /healthz, /openapi.json
and /docs stay open; /v1/admin has its own gate (frontends/_admin.py).

MCP over HTTP: the SDK's app sits between this door and the tool call, so the agent's name travels to it as the
`x-webreach-agent` header, set here after removing any the client sent (a client cannot name itself).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

from webreach.errors import WebreachError, error_body
from webreach.frontends._asgi import body_bytes, error_headers
from webreach.frontends._errors import http_status
from webreach.gateway import Gateway

AGENT_HEADER = b"x-webreach-agent"
IDEMPOTENCY_HEADER = b"idempotency-key"


def bearer(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The Bearer credential of the first Authorization header, else None."""
    for name, value in headers:
        if name == b"authorization":
            scheme, _, credential = value.decode("latin-1").partition(" ")
            return credential.strip() if scheme.lower() == "bearer" else None
    return None


async def caller_of(gateway: Gateway, headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The calling agent (None with accounts off); AgentAuthError when accounts are on and the key is not valid,
    AccountingUnavailableError when the ledger cannot be read now."""
    accounts = gateway.accounts
    if not accounts.enabled:
        return None
    key = bearer(headers)
    # a key seen in the last seconds is answered here (accounts/agent_cache.py); else a ledger read, off the loop
    return accounts.known_caller(key) or await accounts.off_loop(accounts.authenticate, key)


async def refuse(error: WebreachError, scope: Scope, receive: Receive, send: Send) -> None:
    """The answer to a caller not let in: 401 with the challenge HTTP asks for, or (the ledger cannot be read)
    503 with Retry-After."""
    content = body_bytes(error_body(error))
    headers = error_headers(error, content)
    if http_status(error.code) == 401:
        headers.append((b"www-authenticate", b'Bearer realm="webreach"'))
    await send({"type": "http.response.start", "status": http_status(error.code), "headers": headers})
    await send({"type": "http.response.body", "body": content})


class AgentDoor:
    """ASGI wrapper for the MCP endpoint: authenticate, then pass the agent's name on as a trusted header."""

    def __init__(self, app: ASGIApp, gateway: Callable[[], Gateway]) -> None:
        self.app = app
        self.gateway = gateway

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = [(name, value) for name, value in scope["headers"] if name != AGENT_HEADER]
        try:
            caller = await caller_of(self.gateway(), headers)
        except WebreachError as error:  # no valid key, or the ledger cannot be read now
            return await refuse(error, scope, receive, send)
        if caller is not None:
            headers.append((AGENT_HEADER, caller.encode()))
        await self.app({**scope, "headers": headers}, receive, send)
