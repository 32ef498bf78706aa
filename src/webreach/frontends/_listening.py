"""How the HTTP server listens: a socket bound before the app is built (so port 0 is a real port in the
allow-list), and uvicorn's HTTP protocol answering a request it cannot parse in the agent error shape."""

from __future__ import annotations

import asyncio
import importlib.util
import socket

from webreach.frontends._asgi import malformed_request_response


def protocol_class(parser: str) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol for `parser` (auto: httptools when installed, which the server extra does: it parses
    several times faster than h11), answering a request it cannot parse in the agent error shape."""
    if parser == "h11" or (parser == "auto" and importlib.util.find_spec("httptools") is None):
        from uvicorn.protocols.http.h11_impl import H11Protocol

        class ShapedH11(H11Protocol):
            def send_400_response(self, msg: str) -> None:
                self.transport.write(malformed_request_response())
                self.transport.close()

        return ShapedH11
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class ShapedHttpTools(HttpToolsProtocol):
        def send_400_response(self, msg: str) -> None:
            self.transport.write(malformed_request_response())
            self.transport.close()

    return ShapedHttpTools


def listen(host: str, port: int) -> socket.socket:
    """A bound, listening socket, so port 0 resolves to a real port before the app (and its allow-list) is built."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock
