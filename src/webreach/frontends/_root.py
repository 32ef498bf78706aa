"""The server's root, `/`: MCP for clients configured with the bare server URL, the docs for everyone else.

An MCP client given `http://host:9090` (a gateway's client, some desktop apps) posts its JSON-RPC to `/`; the same
MCP endpoint as `/mcp` answers it (POST, DELETE, and GET with `Accept: text/event-stream`, the server's stream).
A plain GET, a person's browser, is sent to /docs as before.
"""

from __future__ import annotations

from webreach.frontends._asgi import ASGIApp, Receive, Scope, Send


class RootDoor:
    """ASGI app for `/`: MCP's requests to `mcp`, any other GET to `docs`."""

    def __init__(self, mcp: ASGIApp, docs: ASGIApp) -> None:
        self.mcp, self.docs = mcp, docs

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD") and not _wants_stream(scope):
            return await self.docs(scope, receive, send)
        return await self.mcp(scope, receive, send)


def _wants_stream(scope: Scope) -> bool:
    accept = b",".join(value for name, value in scope.get("headers", ()) if name == b"accept")
    return b"text/event-stream" in accept.lower()
