"""Outbound proxies for guarded connections: each pinned address is reached through the operator's proxy.

`ProxyTunnelBackend` is a network backend that sits below the pinned transport (net/transport.py): where the
transport would dial an address the guard approved, it dials the proxy instead and asks it for a tunnel to that
address, `CONNECT 93.184.216.34:443` (HTTP and HTTPS proxies, by httpcore's own HTTP/1.1 connection) or a SOCKS5
CONNECT to the IP (socksio). The proxy is never given a host name, so it never resolves one: a name that resolves
to 10.0.0.7 is refused by the guard before the proxy hears of it, and DNS rebinding between the guard's answer and
the proxy's does not exist. Inside the tunnel the transport speaks as it does without a proxy: TLS with the
original name as SNI and for certificate checks, the original Host header. Plain-HTTP targets go through a tunnel
too (not the proxy's absolute-form forwarding, where RFC 9112 has the proxy replace the Host header with the
request-target's, here the pinned IP), so the proxy must allow CONNECT to port 80 and other ports read.

`ProxyUrl.parse` reads the setting; `shown` masks the credentials, which never reach a message or a log line
(they travel only in Proxy-Authorization or the SOCKS5 sub-negotiation). Every failure of the proxy is
httpcore.ProxyError (the fetcher's FetchUnavailableError) naming the masked proxy, the address and the reason.
"""

from __future__ import annotations

import base64
import ssl
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from ipaddress import ip_address
from typing import Any
from urllib.parse import unquote, urlsplit

import httpcore
from socksio import ProtocolError as SocksProtocolError
from socksio import socks5

from webreach.errors import InvalidInputError

DEFAULT_PORTS = {"http": 80, "https": 443, "socks5": 1080, "socks5h": 1080}
SOCKS_REPLY_BYTES = 512


@dataclass(frozen=True)
class ProxyUrl:
    """A proxy setting, read: scheme, host, port and the credentials (kept out of repr)."""

    scheme: str
    host: str
    port: int
    username: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)

    @classmethod
    def parse(cls, url: str) -> ProxyUrl:
        """InvalidInputError (never repeating the URL, which may carry a password) when it is no proxy URL."""
        try:
            parts = urlsplit(url.strip())
            host, port = parts.hostname, parts.port
        except ValueError:
            host = port = None
        if not host or parts.scheme not in DEFAULT_PORTS:
            raise InvalidInputError(
                "the proxy setting is not a proxy URL",
                hint="Use http://host:port, https://host:port or socks5://[user:password@]host:port.",
            )
        user = unquote(parts.username) if parts.username is not None else None
        password = unquote(parts.password) if parts.password is not None else None
        return cls(parts.scheme, host, port or DEFAULT_PORTS[parts.scheme], user, password)

    @property
    def socks(self) -> bool:
        return self.scheme.startswith("socks5")

    @property
    def shown(self) -> str:
        """The proxy as messages name it: credentials as ***."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{'***@' if self.username is not None else ''}{host}:{self.port}"

    def authorization(self) -> bytes | None:
        """The Proxy-Authorization value (Basic) for HTTP proxies, when the URL carries credentials."""
        if self.username is None:
            return None
        pair = f"{self.username}:{self.password or ''}".encode()
        return b"Basic " + base64.b64encode(pair)


def _authority(host: str, port: int) -> bytes:
    """host:port as a CONNECT request-target, IPv6 in brackets."""
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{port}".encode("ascii")


class ProxyTunnelBackend(httpcore.AsyncNetworkBackend):
    """Dials `proxy` and returns a tunnel to the address asked for (which the pinned layer above has approved)."""

    def __init__(
        self,
        proxy: ProxyUrl,
        inner: httpcore.AsyncNetworkBackend,
        proxy_ssl_context: Callable[[], ssl.SSLContext] | None = None,
    ) -> None:
        self.proxy = proxy
        self._inner = inner
        # an https:// proxy's TLS context, asked for on first use (the transport's: the same trust store)
        self._proxy_ssl = proxy_ssl_context or ssl.create_default_context

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        ip_address(host)  # the pinned layer hands over addresses only; a name here is a bug, never sent to the proxy
        if self.proxy.socks:
            return await self._socks5(host, port, timeout)
        return await self._connect(host, port, timeout)

    async def _connect(self, host: str, port: int, timeout: float | None) -> httpcore.AsyncNetworkStream:
        proxy, target = self.proxy, _authority(host, port)
        connection = httpcore.AsyncHTTPConnection(
            origin=httpcore.Origin(proxy.scheme.encode(), proxy.host.encode("idna"), proxy.port),
            ssl_context=self._proxy_ssl() if proxy.scheme == "https" else None,
            network_backend=self._inner,
        )
        headers = [(b"Host", target), (b"Accept", b"*/*")]
        credentials = proxy.authorization()
        if credentials is not None:
            headers.append((b"Proxy-Authorization", credentials))
        url = httpcore.URL(scheme=proxy.scheme.encode(), host=proxy.host.encode("idna"), port=proxy.port, target=target)
        limits = {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}
        try:
            response = await connection.handle_async_request(
                httpcore.Request(b"CONNECT", url, headers=headers, extensions={"timeout": limits})
            )
        except (httpcore.ConnectTimeout, httpcore.ReadTimeout, httpcore.WriteTimeout) as exc:
            await connection.aclose()
            raise httpcore.ConnectTimeout(
                f"the proxy {proxy.shown} did not answer in time ({type(exc).__name__})"
            ) from exc
        except (httpcore.NetworkError, httpcore.ProtocolError, OSError) as exc:
            await connection.aclose()
            raise httpcore.ProxyError(
                f"the proxy {proxy.shown} could not be used: {exc or type(exc).__name__}"
            ) from exc
        except BaseException:  # cancelled (the fetch's deadline): the socket to the proxy is closed, not leaked
            await connection.aclose()
            raise
        if not 200 <= response.status < 300:
            await connection.aclose()
            reason = response.extensions.get("reason_phrase", b"").decode("ascii", "replace")
            raise httpcore.ProxyError(self._refused(host, port, f"HTTP {response.status} {reason}".strip()))
        stream: httpcore.AsyncNetworkStream = response.extensions["network_stream"]
        return stream

    async def _socks5(self, host: str, port: int, timeout: float | None) -> httpcore.AsyncNetworkStream:
        proxy = self.proxy
        try:
            stream = await self._inner.connect_tcp(proxy.host, proxy.port, timeout=timeout)
        except httpcore.ConnectTimeout:
            raise httpcore.ConnectTimeout(f"the proxy {proxy.shown} did not answer in time") from None
        except (httpcore.ConnectError, OSError) as exc:
            raise httpcore.ProxyError(f"the proxy {proxy.shown} could not be reached: {exc}") from None
        try:
            await self._socks5_handshake(stream, host, port, timeout)
        except BaseException as exc:
            await stream.aclose()
            if isinstance(exc, httpcore.ReadTimeout | httpcore.WriteTimeout):
                raise httpcore.ConnectTimeout(f"the proxy {proxy.shown} did not answer in time") from None
            if isinstance(exc, httpcore.NetworkError | SocksProtocolError | OSError):
                raise httpcore.ProxyError(f"the proxy {proxy.shown} broke off the SOCKS5 handshake") from None
            raise
        return stream

    async def _socks5_handshake(
        self, stream: httpcore.AsyncNetworkStream, host: str, port: int, timeout: float | None
    ) -> None:
        proxy, connection = self.proxy, socks5.SOCKS5Connection()

        async def exchange(request: Any) -> Any:
            connection.send(request)
            await stream.write(connection.data_to_send(), timeout=timeout)
            return connection.receive_data(await stream.read(SOCKS_REPLY_BYTES, timeout=timeout))

        method = socks5.SOCKS5AuthMethod
        wanted = method.NO_AUTH_REQUIRED if proxy.username is None else method.USERNAME_PASSWORD
        chosen = await exchange(socks5.SOCKS5AuthMethodsRequest([wanted]))
        if not isinstance(chosen, socks5.SOCKS5AuthReply) or chosen.method != wanted:
            raise httpcore.ProxyError(self._refused(host, port, "it asks for another authentication method"))
        if proxy.username is not None:
            login = socks5.SOCKS5UsernamePasswordRequest(proxy.username.encode(), (proxy.password or "").encode())
            reply = await exchange(login)
            if not isinstance(reply, socks5.SOCKS5UsernamePasswordReply) or not reply.success:
                raise httpcore.ProxyError(self._refused(host, port, "the user name or password was refused"))
        request = socks5.SOCKS5CommandRequest.from_address(socks5.SOCKS5Command.CONNECT, (host, port))
        reply = await exchange(request)
        if not isinstance(reply, socks5.SOCKS5Reply) or reply.reply_code != socks5.SOCKS5ReplyCode.SUCCEEDED:
            code = getattr(reply, "reply_code", None)
            raise httpcore.ProxyError(self._refused(host, port, f"SOCKS5 {getattr(code, 'name', 'failure')}"))

    def _refused(self, host: str, port: int, why: str) -> str:
        return f"the proxy {self.proxy.shown} refused a tunnel to {_authority(host, port).decode()} ({why})"

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are never reachable through a proxy")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)
