"""Telling this machine's network failures apart from an engine's: no DNS answer, no route, a refused connection.

httpx reports all of them as ConnectError; the operating system's reason is further down the cause chain
(httpcore and anyio wrap it): socket.gaierror for a name that did not resolve, ENETUNREACH / EHOSTUNREACH /
ENETDOWN for no route, ECONNREFUSED for a refused connection; httpx's ProxyError (or a 407 answer) for the
operator's outbound proxy ([network] proxy) refusing or failing the tunnel. Only connect failures are classified:
a reset or a cut-off body came from a server that was reached, and stays UnavailableError, which is the engine's doing.
"""

from __future__ import annotations

import errno
import socket

import httpx

from webreach.errors import UnreachableCause

NO_ROUTE = frozenset({errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN})
MAX_CHAIN = 16  # causes are short chains; the bound only guards against a cycle


def unreachable_cause(exc: httpx.HTTPError) -> UnreachableCause | None:
    """dns, no_route, refused or proxy when `exc` is a connect failure on this side of the network, else None."""
    if isinstance(exc, httpx.ProxyError):  # the operator's proxy ([network] proxy) refused or failed the tunnel
        return "proxy"
    if not isinstance(exc, httpx.ConnectError):
        return None
    seen: BaseException | None = exc
    for _ in range(MAX_CHAIN):
        if seen is None:
            break
        if isinstance(seen, socket.gaierror):
            return "dns"
        if isinstance(seen, ConnectionRefusedError) or getattr(seen, "errno", None) == errno.ECONNREFUSED:
            return "refused"
        if isinstance(seen, OSError) and seen.errno in NO_ROUTE:
            return "no_route"
        seen = seen.__cause__ or seen.__context__
    return None


def describe(cause: UnreachableCause, host: str) -> str:
    """The message for an unreachable engine host."""
    if cause == "dns":
        return f"could not resolve {host} (no DNS answer from this machine)"
    if cause == "no_route":
        return f"no network route to {host} from this machine"
    if cause == "proxy":
        return f"the outbound proxy did not connect us to {host}"
    return f"{host} refused the connection"
