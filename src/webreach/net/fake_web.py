"""Fake-web mode's network for the reader: names are resolved by the fake web, every connection goes to it.

With WEBREACH_FAKE_WEB set nothing may leave the machine, not even a DNS query, yet an agent that searched the
fake web must be able to read what it found (https://docs.python.org/3/library/asyncio.html). So the Gateway
builds its reader with these two seams, over the one `OfflineScope` (net/offline.py) that says where the fake web
listens, instead of the system resolver and the real network backend:

- `FakeWebResolver` asks the fake web itself (GET /_fakeweb/resolve?host=H on its loopback address) whether it
  serves pages on H; if so the name resolves to the fake web's own address, else it fails as `offline` with a
  message that says so. Answers are kept for the resolver's lifetime.
- `FakeWebBackend` dials the fake web's address and port for any connection the pinned transport makes, and
  refuses every other address. TLS is played: the fake web speaks plain HTTP, so for https URLs the handshake is
  skipped (a stand-in site needs no certificate) while the request keeps its Host header, which is how the fake
  web tells the sites apart (testing/sites.py).

The guard still runs on every URL and hop: its policy allows exactly the fake web's address (`allowed_cidr`),
so other loopback addresses, private networks and cloud metadata stay refused, and since the backend connects
only to the fake web's port, a URL naming another port on that address reaches the fake web too, nothing else.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from ipaddress import ip_address
from typing import Any

import httpcore
import httpx

from webreach.errors import HostResolutionError
from webreach.net.address_policy import IPAddress, canonical
from webreach.net.offline import CONTROL_PREFIX, OfflineScope
from webreach.net.resolvers import OFFLINE_HINT

RESOLVE_PATH = f"{CONTROL_PREFIX}/resolve"
RESOLVE_TIMEOUT = 5.0


class FakeWebResolver:
    """Resolves a name to the fake web's address when the fake web serves pages for it; never asks DNS."""

    def __init__(self, fake_web: OfflineScope) -> None:
        self.fake_web = fake_web
        self._answers: dict[str, bool] = {}
        self._client: httpx.AsyncClient | None = None

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        served = self._answers.get(host)
        if served is None:
            served = self._answers[host] = await self._ask(host)
        if not served:
            raise HostResolutionError(
                f"Cannot reach {host} in offline mode (fake web): the fake web has no pages on it and public "
                "hosts are not resolved.",
                host=host,
                reason="offline",
                hint=OFFLINE_HINT,
            )
        return [self.fake_web.address]

    async def _ask(self, host: str) -> bool:
        if self._client is None:
            # the fake web's URL is the operator's configuration, like an engine's base URL: no guard, no proxy
            self._client = httpx.AsyncClient(trust_env=False, timeout=RESOLVE_TIMEOUT)
        try:
            response = await self._client.get(f"{self.fake_web.base_url}{RESOLVE_PATH}", params={"host": host})
        except httpx.HTTPError as exc:
            raise HostResolutionError(
                f"Cannot resolve {host} in offline mode: the fake web at {self.fake_web.base_url} did not answer "
                f"({type(exc).__name__}).",
                host=host,
                reason="offline",
                hint="Start it (`webreach fakeweb --port 8765 &`) or unset WEBREACH_FAKE_WEB.",
            ) from exc
        return response.status_code == 200

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


class _PlainStream(httpcore.AsyncNetworkStream):
    """A connection to the fake web whose TLS handshake is played: the fake web speaks plain HTTP."""

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        return self

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class FakeWebBackend(httpcore.AsyncNetworkBackend):
    """Dials the fake web for every approved connection and refuses any other address."""

    def __init__(self, fake_web: OfflineScope, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.fake_web = fake_web
        self._inner = inner if inner is not None else httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            address: IPAddress | None = canonical(ip_address(host))
        except ValueError:
            address = None  # the pinned transport dials addresses only; a name here is refused like any other
        if address not in self.fake_web.addresses:
            raise httpcore.ConnectError(f"fake-web mode connects only to the fake web at {self.fake_web.base_url}")
        stream = await self._inner.connect_tcp(
            str(address), self.fake_web.port, timeout=timeout, local_address=local_address,
            socket_options=socket_options,
        )  # fmt: skip
        return _PlainStream(stream)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("fake-web mode connects only to the fake web")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)
