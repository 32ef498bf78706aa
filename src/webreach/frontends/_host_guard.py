"""The HTTP server's defence against DNS rebinding, as plain ASGI middleware.

A web page can make a browser send requests to a loopback server under the attacker's host name. Every request,
REST and MCP alike, must carry an allowed Host (421 otherwise) and, when it has an Origin, an allowed Origin
(403). The default allow-list is the loopback names with the server's port; "*" switches a list off for
deployments behind a proxy that checks names itself.
"""

from __future__ import annotations

from webreach.frontends._asgi import ASGIApp, Receive, Scope, Send, refusal, send_error

HOST_HINT = "Use http://127.0.0.1:<port>, or add the name to the server's allowed_hosts / allowed_origins."


def matches(value: str, allowed: list[str]) -> bool:
    """Whether a Host or Origin value is allowed: exact, 'name:*' for any port of name, or '*'."""
    if value in allowed or "*" in allowed:
        return True
    return any(
        entry.endswith(":*") and value.startswith(entry[:-1]) and value[len(entry) - 1 :].isdigit() for entry in allowed
    )


class HostGuard:
    """ASGI middleware refusing requests whose Host (421) or Origin (403) is not allowed."""

    def __init__(self, app: ASGIApp, *, hosts: list[str], origins: list[str]) -> None:
        self.app = app
        self.hosts = [host.lower() for host in hosts]
        self.origins = [origin.lower() for origin in origins]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host, origin = host_and_origin(scope)
            if not matches(host, self.hosts):
                return await send_error(
                    send, refusal("host_not_allowed", f"Host {host!r} is not served here", hint=HOST_HINT)
                )
            if origin is not None and not matches(origin.lower(), self.origins):
                return await send_error(
                    send, refusal("origin_not_allowed", f"Origin {origin!r} is not allowed", hint=HOST_HINT)
                )
        await self.app(scope, receive, send)


def host_and_origin(scope: Scope) -> tuple[str, str | None]:
    """The first Host (lower-cased, "" when missing) and Origin headers, as Starlette's Headers.get finds them;
    read from the raw list because every request passes here."""
    host: bytes | None = None
    origin: bytes | None = None
    for name, value in scope["headers"]:  # ASGI servers give names lower-cased
        if name == b"host":
            host = value if host is None else host
        elif name == b"origin":
            origin = value if origin is None else origin
    return ("" if host is None else host.decode("latin-1").lower()), (
        None if origin is None else origin.decode("latin-1")
    )
