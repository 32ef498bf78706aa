"""ConnectRecorder: proof that the reader never opens a socket the guard did not approve.

It sits at the lowest seam webreach has, as the network backend below the pinned transport, so it sees the
exact address every socket is opened to (not what webreach says it does). Dials to an address outside
`allowed` are recorded as violations and refused before any packet leaves. It also takes the transport's
connect observer (`observe`), and `assert_clean()` checks both that nothing was refused and that every socket
opened was one the pinning layer announced for an approved target (same address and port, in order).

    recorder = ConnectRecorder(allowed={"127.0.0.1"})
    fetcher = Fetcher(guard, network_backend=recorder, connect_observer=recorder.observe)
    ...
    recorder.assert_clean()
"""

from __future__ import annotations

from collections.abc import Iterable
from ipaddress import ip_address
from typing import Any

import httpcore

from webreach.net.transport import ConnectEvent


class ConnectRecorder(httpcore.AsyncNetworkBackend):
    """A network backend that records every dial and refuses any to an address not in `allowed`."""

    def __init__(self, allowed: Iterable[str], inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.allowed = frozenset(str(ip_address(a)) for a in allowed)
        self._inner = inner if inner is not None else httpcore.AnyIOBackend()
        self.dials: list[tuple[str, int]] = []
        self.events: list[ConnectEvent] = []
        self.violations: list[str] = []

    def observe(self, event: ConnectEvent) -> None:
        """The transport's connect observer: what the pinning layer is about to dial, and for which host."""
        self.events.append(event)

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.dials.append((host, port))
        try:
            address = str(ip_address(host))
        except ValueError:
            address = host  # a name reaching the socket layer is itself a violation: DNS would run again
        if address not in self.allowed:
            self.violations.append(f"dial to {host}:{port}")
            raise httpcore.ConnectError(f"ConnectRecorder refused a dial to {host}:{port} (not approved)")
        return await self._inner.connect_tcp(
            host, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        self.violations.append(f"unix socket {path}")
        raise httpcore.ConnectError("ConnectRecorder refused a unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)

    def hosts(self) -> list[str]:
        """The host names sockets were opened for, in order."""
        return [event.host for event in self.events]

    def assert_clean(self) -> None:
        """Fail when any dial was refused or was not announced by the pinning layer."""
        if self.violations:
            raise AssertionError(f"sockets outside the guard: {self.violations}")
        announced = [(event.address, event.port) for event in self.events]
        if announced != self.dials:
            raise AssertionError(f"dials {self.dials} do not match the pinned connects {announced}")
