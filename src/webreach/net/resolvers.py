"""Resolvers the URL guard (net/guard.py) asks for a host's addresses: the system's (bounded, telling an offline
machine from a missing name), fixed answers (curl's --resolve, the tests' fake DNS) and none at all (offline)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterable, Mapping
from ipaddress import IPv4Address, IPv6Address, ip_address
from types import MappingProxyType
from typing import Protocol

import httpx

from webreach.errors import HostResolutionError
from webreach.net.address_policy import IPAddress

DNS_TIMEOUT = 5.0
PROBE_HOST = "example.com"  # reserved by IANA (RFC 2606): it resolves wherever DNS works
PROBE_TIMEOUT = 1.0
OFFLINE_HINT = (
    "Read one of the fake web's own pages or a result of a search, or unset WEBREACH_FAKE_WEB to reach the real web."
)
# getaddrinfo's errors that say the name does not exist (the guard's reason not_found)
NOT_FOUND_ERRNOS = frozenset(
    code for code in (getattr(socket, "EAI_NONAME", None), getattr(socket, "EAI_NODATA", None)) if code is not None
)


class Resolver(Protocol):
    """Turns a host name into addresses.

    Raise OSError (socket.gaierror) or TimeoutError on failure, or HostResolutionError itself when the resolver
    has a reason of its own to give (OfflineResolver).
    """

    async def resolve(self, host: str, port: int) -> list[IPAddress]: ...


class SystemResolver:
    """The operating system's resolver (getaddrinfo in the loop's executor), bounded by a timeout."""

    def __init__(self, timeout: float = DNS_TIMEOUT) -> None:
        self.timeout = timeout

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(self.timeout):
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
        families = (socket.AF_INET, socket.AF_INET6)
        return [ip_address(str(info[4][0]).partition("%")[0]) for info in infos if info[0] in families]


class OfflineAwareResolver:
    """A resolver that tells a name that does not exist from a machine that resolves nothing: when `inner` fails
    on a name, it asks once for `probe` (a name that always exists, IANA's example.com); if that fails too, the
    machine looks offline and the error says so (reason machine_offline) instead of blaming the name."""

    def __init__(self, inner: Resolver, probe: str = PROBE_HOST, probe_timeout: float = PROBE_TIMEOUT) -> None:
        self.inner = inner
        self.probe = probe
        self.probe_timeout = probe_timeout

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        try:
            return await self.inner.resolve(host, port)
        except OSError as exc:
            if _host_key(host) == self.probe or not await self._offline():
                raise
            raise HostResolutionError(
                f"Could not resolve {host}, and this machine looks offline: no name resolves, not even {self.probe}.",
                host=host,
                reason="machine_offline",
            ) from exc

    async def _offline(self) -> bool:
        try:
            async with asyncio.timeout(self.probe_timeout):
                return not await self.inner.resolve(self.probe, 443)
        except (OSError, TimeoutError):
            return True


def system_resolver() -> Resolver:
    """The default resolver: the operating system's, telling an offline machine from a missing name."""
    return OfflineAwareResolver(SystemResolver())


def _host_key(host: str) -> str:
    try:
        return httpx.URL(f"http://{host}/").raw_host.decode("ascii").rstrip(".")
    except httpx.InvalidURL:
        return host.lower().rstrip(".")


def _addresses(found: str | IPAddress | Iterable[str | IPAddress]) -> tuple[IPAddress, ...]:
    if isinstance(found, str | IPv4Address | IPv6Address):
        found = [found]  # one address given bare rather than in a list
    return tuple(ip_address(address) for address in found)


class StaticResolver:
    """Fixed answers per host name (like curl's --resolve, and the tests' fake DNS); other names go to fallback."""

    def __init__(
        self,
        answers: Mapping[str, str | IPAddress | Iterable[str | IPAddress]],
        fallback: Resolver | None = None,
    ) -> None:
        self._answers = MappingProxyType({_host_key(host): _addresses(found) for host, found in answers.items()})
        self.fallback = fallback

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        found = self._answers.get(_host_key(host))
        if found is not None:
            return list(found)
        if self.fallback is not None:
            return await self.fallback.resolve(host, port)
        raise socket.gaierror(socket.EAI_NONAME, f"{host} is not in the static resolver's table")


class OfflineResolver:
    """Resolves nothing: offline runs (the fake web) send no DNS query at all, and every name fails as offline.

    Only IP literals and localhost, which need no resolver, can still be read, so the fake web's own pages work.
    """

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        raise HostResolutionError(
            f"Cannot reach {host} in offline mode (fake web): public hosts are not resolved; "
            "only the fake web's own pages can be read.",
            host=host,
            reason="offline",
            hint=OFFLINE_HINT,
        )
