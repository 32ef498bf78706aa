"""The reader tests' world: a fake web on 127.0.0.1, fake DNS names for it, and a recorder on every socket.

The guard allows 127.0.0.1/32 only (as an operator's allow_cidrs would), so the fake web is reachable under
names like site.test while every other private, loopback and metadata address stays refused. The recorder is
the network backend below the pinned transport: any socket to anything but 127.0.0.1 fails the test.
Every budget and server-side stream is short, so no test can hang.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import httpcore

from webreach.net import AddressPolicy, Guard, IPAddress, Resolver, StaticResolver
from webreach.net.fetcher import Budgets, Fetcher
from webreach.testing import FakeWeb, Limits
from webreach.testing.connects import ConnectRecorder

DNS: Mapping[str, str | tuple[str, ...]] = {
    "site.test": "127.0.0.1",
    "other.test": "127.0.0.1",
    "www.baidu.com": "127.0.0.1",
    "private.test": "10.0.0.7",
    "metadata.test": "169.254.169.254",
    "loopback6.test": "::1",
    "mixed.test": ("127.0.0.1", "10.0.0.8"),
}
SAFE = Limits(stream_bytes=8 * 1024 * 1024, stream_seconds=3.0, hang_seconds=3.0, idle_seconds=3.0)
MIB = 1024 * 1024
BUDGETS = Budgets(total_seconds=1.5, connect_seconds=1, read_seconds=1, max_raw_bytes=MIB, max_decoded_bytes=2 * MIB)


@dataclass
class CountingResolver:
    """Fake DNS that counts questions; `answers` (when given) replaces the table answer call by call."""

    table: Mapping[str, str | tuple[str, ...]] = field(default_factory=lambda: DNS)
    answers: list[tuple[str, ...]] | None = None
    calls: list[str] = field(default_factory=list)

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        self.calls.append(host)
        if self.answers:
            return await StaticResolver({host: self.answers.pop(0)}).resolve(host, port)
        return await StaticResolver(self.table).resolve(host, port)


@dataclass
class Harness:
    web: FakeWeb
    fetcher: Fetcher
    recorder: ConnectRecorder
    resolver: Resolver
    guard: Guard

    def url(self, path: str, host: str = "site.test") -> str:
        """An absolute URL on the fake web under a fake name (`path` from /_pages/ unless it starts with /)."""
        path = path if path.startswith("/") else f"/_pages/{path}"
        return f"http://{host}:{self.web.port}{path}"


@asynccontextmanager
async def harness(
    budgets: Budgets = BUDGETS,
    resolver: Resolver | None = None,
    allow: Iterable[str] = ("127.0.0.1/32",),
    inner: httpcore.AsyncNetworkBackend | None = None,
) -> AsyncIterator[Harness]:
    """A started fake web and a fetcher reaching it only through the guard; checks the recorder at the end.

    `inner` replaces the real socket layer below the recorder (a blackhole, for instance).
    """
    async with FakeWeb(limits=SAFE) as web:
        recorder = ConnectRecorder(allowed={"127.0.0.1"}, inner=inner)
        dns = resolver if resolver is not None else CountingResolver()
        guard = Guard(AddressPolicy(allow), dns)
        fetcher = Fetcher(guard, budgets=budgets, network_backend=recorder, connect_observer=recorder.observe)
        async with fetcher:
            yield Harness(web, fetcher, recorder, dns, guard)
        recorder.assert_clean()
