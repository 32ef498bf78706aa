"""Offline (fake-web) mode: the one endpoint any connection may reach.

With WEBREACH_FAKE_WEB set webreach presents itself as offline, so nothing may leave the machine: no name lookup
and no connection to an IP literal either. `OfflineScope` is the fake web's own endpoint (its addresses and its
port). It is enforced at two seams:
- the guard (net/guard.py) approves a URL only when every address it reaches, with its port, is the fake web's,
  and refuses anything else with UrlNotAllowedError rule `offline` before a socket is opened;
- the pinned transport (net/transport.py) checks every dial against the scope again, so a target approved
  anywhere else (a forged `webreach.approved_target`) still cannot connect off the machine.
Engine and Jina traffic, which normally use an ordinary client, go through `OfflineTransport` in this mode: the
same guard and pinned dialing, with a refused engine URL reported as the engine's configuration problem
(NotConfiguredError, which auto and multi skip) rather than as a failed search.

The fake web is the operator's configuration, like an engine base URL, so its own endpoint is approved although
the address policy denies loopback to agent URLs. Its control API (CONTROL_PREFIX: scenarios and the request log,
which holds every agent's queries) is the operator's alone: a URL whose request target the fake web would route
there is refused with rule `fake_web_control`, on any host and at every redirect hop, so agents read the stand-in
pages of results and the fake web's public pages only. A fake web given by host name (a container name) is resolved
once, when the scope is built: the only name lookup offline mode makes.
"""

from __future__ import annotations

import dataclasses
import socket
from dataclasses import dataclass
from ipaddress import ip_address
from urllib.parse import unquote, urlsplit

import httpx

from webreach.errors import NotConfiguredError, UnreachableError, UrlNotAllowedError, fake_web_down
from webreach.net.address_policy import AddressPolicy, IPAddress, canonical
from webreach.net.guard import LOCALHOST_ADDRESSES, Guard, ParsedUrl, mask_userinfo
from webreach.net.guard import parse_url as parse_checked_url
from webreach.net.resolvers import OFFLINE_HINT, OfflineResolver
from webreach.net.transport import GuardedTransport
from webreach.network_failure import unreachable_cause

RULE = "offline"
CONTROL_RULE = "fake_web_control"
CONTROL_PREFIX = "/_fakeweb"  # the fake web's control API (testing/control.py): never an agent's to read


def is_control_path(path: str) -> bool:
    """Whether a request path (percent-decoded) belongs to the fake web's control API."""
    return path == CONTROL_PREFIX or path.startswith(CONTROL_PREFIX + "/")


def reaches_control(url: httpx.URL) -> bool:
    """Whether the fake web would route this URL's request target to its control API.

    The same reading as the fake web's wire (testing/wire.py): the target split as a URL, its path decoded once,
    so `/%5Ffakeweb/requests` and `//x/_fakeweb/requests` are caught like `/_fakeweb/requests`.
    """
    return is_control_path(unquote(urlsplit(url.raw_path.decode("latin-1")).path))


@dataclass(frozen=True, slots=True)
class OfflineScope:
    """The fake web's endpoint: the only (address, port) pairs a connection may reach in offline mode."""

    url: str
    host: str
    port: int
    addresses: tuple[IPAddress, ...]
    # the reader's network backend sends every connection to the fake web's own port (net/fake_web.py), so there
    # any port of the fake web's address is the fake web; engine and Jina traffic has no such routing
    routed: bool = False

    @classmethod
    def of(cls, fake_web: str) -> OfflineScope:
        """The scope of the fake web at `fake_web` (its URL, as WEBREACH_FAKE_WEB gives it)."""
        try:
            parsed = parse_checked_url(fake_web)
        except UrlNotAllowedError as exc:
            raise NotConfiguredError(
                f"WEBREACH_FAKE_WEB={fake_web!r} is not a usable URL: {exc.message}",
                hint="Set it to the URL `webreach fakeweb` prints, e.g. http://127.0.0.1:8765.",
            ) from None
        return cls(fake_web, parsed.host, parsed.port, _addresses_of(parsed))

    @property
    def address(self) -> IPAddress:
        """The address names resolve to in offline mode: the fake web's first."""
        return self.addresses[0]

    @property
    def allowed_cidrs(self) -> list[str]:
        """The networks the read guard allows offline: the fake web's own addresses, one host each."""
        return [f"{address}/{address.max_prefixlen}" for address in self.addresses]

    @property
    def base_url(self) -> str:
        """The fake web's URL without a trailing slash, for building its paths."""
        return self.url.rstrip("/")

    def permits(self, address: IPAddress | str, port: int) -> bool:
        """True when (address, port) is the fake web's."""
        return (self.routed or port == self.port) and canonical(ip_address(address)) in self.addresses

    def approve(self, url: str, parsed: ParsedUrl, addresses: tuple[IPAddress, ...]) -> None:
        """Raise the `offline` refusal unless every address of this URL, with its port, is the fake web's;
        raise the `fake_web_control` refusal for a URL the fake web would answer from its control API."""
        if reaches_control(parsed.url):
            raise self.control_refusal(url)
        for address in addresses:
            if not self.permits(address, parsed.port):
                raise self.refusal(url, address, parsed.port)

    def refusal(self, url: str, address: IPAddress | str, port: int) -> UrlNotAllowedError:
        shown = mask_userinfo(url)
        return UrlNotAllowedError(
            f"Refused {shown!r} (rule {RULE}): offline mode (WEBREACH_FAKE_WEB) reaches only the fake web at "
            f"{self.host}:{self.port}, and this URL leads to {address} port {port}.",
            rule=RULE,
            url=shown,
            address=str(address),
            hint=OFFLINE_HINT,
        )

    def control_refusal(self, url: str) -> UrlNotAllowedError:
        shown = mask_userinfo(url)
        return UrlNotAllowedError(
            f"Refused {shown!r} (rule {CONTROL_RULE}): {CONTROL_PREFIX}/ is the fake web's control API (scenarios "
            "and the request log), which is the operator's, not an agent's.",
            rule=CONTROL_RULE,
            url=shown,
            hint="Read the pages search results link to, or the fake web's /_pages/ pages.",
        )


def _addresses_of(parsed: ParsedUrl) -> tuple[IPAddress, ...]:
    if parsed.literal is not None:
        return (canonical(parsed.literal),)
    if parsed.host == "localhost" or parsed.host.endswith(".localhost"):
        return LOCALHOST_ADDRESSES
    try:  # a container name: looked up once, here
        infos = socket.getaddrinfo(parsed.host, parsed.port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise NotConfiguredError(
            f"The fake web's host {parsed.host!r} does not resolve: {exc}.",
            hint="Check WEBREACH_FAKE_WEB, or give the fake web's IP address.",
        ) from None
    found = (ip_address(str(info[4][0]).partition("%")[0]) for info in infos)
    return tuple(dict.fromkeys(canonical(address) for address in found))


def offline_guard(scope: OfflineScope) -> Guard:
    """A guard that approves the fake web's endpoint only and resolves no other name."""
    return Guard(AddressPolicy(), OfflineResolver(), offline=scope)


class OfflineTransport(httpx.AsyncBaseTransport):
    """Engine or Jina traffic in offline mode: pinned to the fake web; any other URL is a configuration problem."""

    def __init__(self, scope: OfflineScope, *, max_connections: int = 100) -> None:
        scope = dataclasses.replace(scope, routed=False)  # no routing below this transport: the port must match
        self.scope = scope
        self._inner = GuardedTransport(offline_guard(scope), max_connections_per_target=max_connections)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await self._inner.handle_async_request(request)
        except httpx.ConnectError as exc:
            if unreachable_cause(exc) != "refused":
                raise
            message, hint = fake_web_down(self.scope.base_url, self.scope.port)
            raise UnreachableError(message, cause="refused", hint=hint, fake_web=self.scope.base_url) from None
        except UrlNotAllowedError as exc:
            # an engine whose base_url leaves the machine is misconfigured for offline mode: auto moves on
            raise NotConfiguredError(
                f"{exc.message} Unset this engine's base_url so it answers from the fake web.", hint=OFFLINE_HINT
            ) from None

    async def aclose(self) -> None:
        await self._inner.aclose()
