"""GuardedTransport: an httpx transport that connects only to addresses the guard approved for the request's host.

The request URL keeps its host name, so the Host header, TLS SNI and certificate verification all use the
original name; only the socket is pinned. Each approved target (scheme, host, port, addresses) gets its own
httpcore connection pool whose network backend ignores the name it is given and dials the approved addresses
(in the order the guard returned them), so:
- DNS is never asked again after the guard's single resolution (no rebinding between check and connect);
- a keep-alive connection is only ever reused for the host and addresses it was opened for: a pool refuses to
  dial for any other host, and a new resolution with other addresses gets a new pool;
- no environment proxy is ever consulted and certificates are verified without reading SSL_CERT_FILE and
  friends (trust_env=False); the operator's proxy (`proxy`, [network] proxy) is a backend below the pinning
  (net/proxy.py): the proxy is asked for a tunnel to the approved address, never for a name.

The fetcher passes the `ApprovedTarget` of each hop in the request extension `webreach.approved_target`; a
request without one (or with one for another URL) is checked by the transport's own guard first, so the
transport is safe to hand to any httpx client (a name that does not resolve is then httpx.ConnectError, as
from httpx's own transport, with the HostResolutionError and the resolver's OSError as its causes).
`connect_observer` sees every dial (host, port, address), and `network_backend` is the seam below the pinning (tests
wrap the real backend to record every socket opened).
In offline (fake-web) mode the guard's `OfflineScope` is checked again at every dial (net/offline.py).
"""

from __future__ import annotations

import contextlib
import ssl
from collections import OrderedDict
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

from webreach.errors import HostResolutionError
from webreach.net.guard import ApprovedTarget, Guard, OfflineScope
from webreach.net.proxy import ProxyTunnelBackend, ProxyUrl

TARGET_EXTENSION = "webreach.approved_target"
MAX_POOLS = 64

# httpx names each of httpcore's exceptions alike. Most specific first: the first matching httpcore class
# decides the httpx class (a missing name fails at import, not on the first error).
_EXCEPTION_NAMES = (
    "ProxyError", "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout", "TimeoutException",
    "ConnectError", "ReadError", "WriteError", "NetworkError",
    "RemoteProtocolError", "LocalProtocolError", "ProtocolError", "UnsupportedProtocol",
)  # fmt: skip
_EXCEPTIONS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = tuple(
    (getattr(httpcore, name), getattr(httpx, name)) for name in _EXCEPTION_NAMES
)


@dataclass(frozen=True, slots=True)
class ConnectEvent:
    """One dial: the host name the request is for, the port, and the approved address actually dialled."""

    host: str
    port: int
    address: str


ConnectObserver = Callable[[ConnectEvent], None]
PoolKey = tuple[str, str, int, tuple[str, ...]]


@contextlib.contextmanager
def _mapped(request: httpx.Request) -> Iterator[None]:
    """httpcore's exceptions as httpx's (the cause chain is kept: the fetcher reads h11's status hint from it)."""
    try:
        yield
    except Exception as exc:
        for core_type, httpx_type in _EXCEPTIONS:
            if isinstance(exc, core_type):
                raise httpx_type(str(exc) or type(exc).__name__, request=request) from exc
        raise


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Dials only the approved addresses of one target, whatever host name httpcore asks for."""

    def __init__(
        self,
        target: ApprovedTarget,
        inner: httpcore.AsyncNetworkBackend,
        observer: ConnectObserver | None = None,
        offline: OfflineScope | None = None,
    ) -> None:
        self.target = target
        self._inner = inner
        self._observer = observer
        self._offline = offline

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        if host.lower().rstrip(".") != self.target.host or port != self.target.port:
            raise httpcore.ConnectError(
                f"refusing to dial {host}:{port} from a pool pinned to {self.target.host}:{self.target.port}"
            )
        failure: Exception | None = None
        for address in self.target.addresses:
            if self._offline is not None and not self._offline.permits(address, port):
                # offline mode: whoever approved this target, nothing but the fake web is dialled
                raise self._offline.refusal(str(self.target.url), address, port)
            if self._observer is not None:
                self._observer(ConnectEvent(self.target.host, port, str(address)))
            try:
                return await self._inner.connect_tcp(
                    str(address), port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout, httpcore.ProxyError) as exc:
                failure = exc  # the next approved address may answer
        assert failure is not None  # the guard never approves a target without addresses
        raise failure

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are never reachable through the guarded transport")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class _Pool:
    """One target's connection pool and how many responses from it are still open."""

    def __init__(self, pool: httpcore.AsyncConnectionPool) -> None:
        self.pool = pool
        self.active = 0


class _ResponseStream(httpx.AsyncByteStream):
    """httpcore's body stream with httpx exceptions; closing it releases the pool for eviction."""

    def __init__(self, stream: AsyncIterable[bytes], request: httpx.Request, release: Callable[[], None]) -> None:
        self._stream = stream
        self._request = request
        self._release: Callable[[], None] | None = release

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _mapped(self._request):
            async for part in self._stream:
                yield part

    async def aclose(self) -> None:
        try:
            close = getattr(self._stream, "aclose", None)
            if close is not None:
                with _mapped(self._request):
                    await close()
        finally:
            if self._release is not None:
                self._release()
                self._release = None


def _matches(target: object, url: httpx.URL) -> bool:
    return (
        isinstance(target, ApprovedTarget)
        and target.scheme == url.scheme
        and target.host == url.host.lower().rstrip(".")
        and target.port == (url.port or (443 if url.scheme == "https" else 80))
    )


class GuardedTransport(httpx.AsyncBaseTransport):
    """Sends each request over a connection pinned to the addresses the guard approved for its host."""

    def __init__(
        self,
        guard: Guard,
        *,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
        connect_observer: ConnectObserver | None = None,
        ssl_context: ssl.SSLContext | None = None,
        keepalive_expiry: float = 15.0,
        max_connections_per_target: int = 4,
        max_pools: int = MAX_POOLS,
        proxy: ProxyUrl | None = None,
    ) -> None:
        self.guard = guard
        self._direct = network_backend if network_backend is not None else httpcore.AnyIOBackend()
        self._backend = self._routed(proxy)
        self._observer = connect_observer
        self._ssl_context = ssl_context
        self._keepalive_expiry = keepalive_expiry
        self._max_connections = max_connections_per_target
        self._max_pools = max_pools
        self._pools: OrderedDict[PoolKey, _Pool] = OrderedDict()
        self._retired: list[_Pool] = []  # pools of an earlier route, closed once idle

    def _routed(self, proxy: ProxyUrl | None) -> httpcore.AsyncNetworkBackend:
        """The backend new connections take: below the pinning, so a proxy is asked for the approved address only."""
        return self._direct if proxy is None else ProxyTunnelBackend(proxy, self._direct, lambda: self.ssl_context)

    def reroute(self, proxy: ProxyUrl | None) -> None:
        """Send every request from now on through `proxy` (None: direct), the console's [network] proxy changing
        while the server runs: no pooled connection of the old route is used again; those still streaming a
        response finish, then close (on the next new pool, or with the transport)."""
        self._backend = self._routed(proxy)
        self._retired += self._pools.values()
        self._pools.clear()

    @property
    def ssl_context(self) -> ssl.SSLContext:
        """httpx's verifying TLS context, built on first use: loading the CA bundle costs ~22 ms CPU (measured
        2026-11-28 on this 2-core machine), and a gateway builds three or four transports, most of which (offline,
        or plain-http pools) never open TLS; the test suite's fast loop spent 29% of its samples here."""
        if self._ssl_context is None:
            self._ssl_context = httpx.create_ssl_context(trust_env=False)
        return self._ssl_context

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        target = request.extensions.get(TARGET_EXTENSION)
        if not _matches(target, request.url):
            try:
                target = await self.guard.check(request.url)
            except HostResolutionError as exc:
                # as any httpx transport reports a name that does not resolve; the resolver's reason stays the cause
                raise httpx.ConnectError(str(exc), request=request) from exc
        assert isinstance(target, ApprovedTarget)
        entry = await self._pool(target)
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=target.host.encode("ascii"),
                port=target.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,  # httpx hands httpcore its async stream as is
            extensions={k: v for k, v in request.extensions.items() if k != TARGET_EXTENSION},
        )
        entry.active += 1
        try:
            with _mapped(request):
                response = await entry.pool.handle_async_request(core_request)
        except BaseException:
            entry.active -= 1
            raise

        def release() -> None:
            entry.active -= 1

        assert isinstance(response.stream, AsyncIterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseStream(response.stream, request, release),
            extensions=response.extensions,
            request=request,
        )

    async def _pool(self, target: ApprovedTarget) -> _Pool:
        key: PoolKey = (target.scheme, target.host, target.port, tuple(str(a) for a in target.addresses))
        entry = self._pools.get(key)
        if entry is None:
            pool = httpcore.AsyncConnectionPool(
                ssl_context=self.ssl_context if target.scheme == "https" else None,
                max_connections=self._max_connections,
                keepalive_expiry=self._keepalive_expiry,
                http1=True,
                http2=False,
                network_backend=PinnedBackend(target, self._backend, self._observer, self.guard.offline),
            )
            entry = self._pools[key] = _Pool(pool)
            await self._evict(keep=key)
            await self._close_retired()
        self._pools.move_to_end(key)
        return entry

    async def _evict(self, keep: PoolKey) -> None:
        """Close the least recently used idle pools beyond max_pools (a pool with open responses stays)."""
        excess = len(self._pools) - self._max_pools
        idle = [key for key, entry in self._pools.items() if entry.active == 0 and key != keep]
        for key in idle[: max(0, excess)]:
            await self._pools.pop(key).pool.aclose()

    async def _close_retired(self) -> None:
        idle = [entry for entry in self._retired if entry.active == 0]
        self._retired = [entry for entry in self._retired if entry.active != 0]
        for entry in idle:
            await entry.pool.aclose()

    def pool_count(self) -> int:
        """How many pinned pools are open (one per approved target in use)."""
        return len(self._pools)

    async def aclose(self) -> None:
        pools = [*self._pools.values(), *self._retired]
        self._pools.clear()
        self._retired.clear()
        for entry in pools:
            await entry.pool.aclose()
