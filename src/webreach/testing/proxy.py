"""TestProxy: a small outbound proxy on loopback that records what it was asked to reach, for tests and benches.

One port speaks all three ways webreach can use a proxy: HTTP CONNECT (a tunnel to host:port), HTTP forwarding
(`GET http://host:port/path`, what httpx does for plain-HTTP engine calls through an HTTP proxy) and SOCKS5
(told apart by the first byte, 0x05). With `credentials` it demands them (407, or SOCKS5 user/password) and
records whether each request had them. It resolves names itself when asked for one, as a real proxy would, so a
test can tell "webreach asked for a name" from "webreach asked for the pinned address".

    async with TestProxy(credentials=("user", "pa55")) as proxy:
        ...  # point [network] proxy at proxy.url_with_credentials
    proxy.asked     # [Asked(kind="connect", target="127.0.0.1:8123", authorized=True), ...]

Every connection is bounded (head size, idle time) so no test can hang on it; it binds 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ipaddress
import ssl
import struct
from dataclasses import dataclass
from types import TracebackType
from urllib.parse import urlsplit

IDLE_SECONDS = 5.0
MAX_HEAD = 16 * 1024
_ATYP_IPV4, _ATYP_NAME, _ATYP_IPV6 = 1, 3, 4


@dataclass(frozen=True)
class Asked:
    """One thing the proxy was asked: a tunnel (connect, socks5) or a forwarded request, to `target` host:port."""

    kind: str
    target: str
    authorized: bool
    host_header: str | None = None


class TestProxy:
    """An HTTP CONNECT / forwarding / SOCKS5 proxy on 127.0.0.1 that logs every request in `asked`."""

    __test__ = False  # not a pytest test class

    def __init__(self, credentials: tuple[str, str] | None = None, tls: ssl.SSLContext | None = None) -> None:
        self.credentials = credentials
        self.tls = tls  # a server context: clients speak TLS to the proxy (an https:// proxy URL)
        self.asked: list[Asked] = []
        self._server: asyncio.Server | None = None
        self._port: int | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> TestProxy:
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0, ssl=self.tls)
        self._port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._server is not None:
            await self._server.wait_closed()

    @property
    def port(self) -> int:
        assert self._port is not None, "start the proxy first (async with)"
        return self._port

    def url(self, scheme: str | None = None, *, with_credentials: bool = True) -> str:
        """The proxy's URL (scheme http, https with `tls`, or socks5), with its user:password@ when it has them."""
        scheme = scheme or ("https" if self.tls else "http")
        user = f"{self.credentials[0]}:{self.credentials[1]}@" if self.credentials and with_credentials else ""
        return f"{scheme}://{user}127.0.0.1:{self.port}"

    def targets(self, kind: str | None = None) -> list[str]:
        """The host:port of everything asked (of one kind), in order."""
        return [a.target for a in self.asked if kind is None or a.kind == kind]

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            async with asyncio.timeout(IDLE_SECONDS * 4):
                first = await asyncio.wait_for(reader.readexactly(1), IDLE_SECONDS)
                if first == b"\x05":
                    await self._socks5(reader, writer)
                else:
                    await self._http(first, reader, writer)
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:  # the proxy is stopping: this connection ends here, quietly
            pass
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    def _authorized(self, header: str | None) -> bool:
        if self.credentials is None:
            return True
        expected = base64.b64encode(f"{self.credentials[0]}:{self.credentials[1]}".encode()).decode()
        return header is not None and header.strip() == f"Basic {expected}"

    async def _http(self, first: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = first + await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), IDLE_SECONDS)
        if len(head) > MAX_HEAD:
            raise ValueError("head too large")
        request_line, *lines = head.decode("latin-1").split("\r\n")
        method, target, _version = request_line.split(" ", 2)
        headers = {n.strip().lower(): v.strip() for n, _, v in (line.partition(":") for line in lines if line)}
        authorized = self._authorized(headers.get("proxy-authorization"))
        if method == "CONNECT":
            self.asked.append(Asked("connect", target, authorized))
            if not authorized:
                return await _reply(writer, b"407 Proxy Authentication Required", b"Proxy-Authenticate: Basic\r\n")
            host, port = _split(target)
            upstream = await _open(host, port)
            if upstream is None:
                return await _reply(writer, b"502 Bad Gateway")
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
            return await _pipe(reader, writer, *upstream)
        await self._forward(method, target, lines, headers, authorized, reader, writer)

    async def _forward(
        self,
        method: str,
        target: str,
        lines: list[str],
        headers: dict[str, str],
        authorized: bool,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        parts = urlsplit(target)
        where = f"{parts.hostname}:{parts.port or 80}"
        self.asked.append(Asked("forward", where, authorized, headers.get("host")))
        if not authorized:
            return await _reply(writer, b"407 Proxy Authentication Required", b"Proxy-Authenticate: Basic\r\n")
        upstream = await _open(parts.hostname or "", parts.port or 80)
        if upstream is None:
            return await _reply(writer, b"502 Bad Gateway")
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        kept = [
            line
            for line in lines
            if line
            and line.partition(":")[0].strip().lower() not in ("proxy-authorization", "proxy-connection", "connection")
        ]
        upstream_writer = upstream[1]
        upstream_writer.write(
            ("\r\n".join([f"{method} {path} HTTP/1.1", *kept, "Connection: close"]) + "\r\n\r\n").encode("latin-1")
        )
        await upstream_writer.drain()
        await _pipe(reader, writer, *upstream)

    async def _socks5(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        count = (await reader.readexactly(1))[0]
        methods = await reader.readexactly(count)
        wanted = 2 if self.credentials else 0
        if wanted not in methods:
            writer.write(b"\x05\xff")
            return
        writer.write(bytes([5, wanted]))
        authorized = True
        if wanted == 2:
            _version, size = await reader.readexactly(2)
            user = (await reader.readexactly(size)).decode()
            size = (await reader.readexactly(1))[0]
            password = (await reader.readexactly(size)).decode()
            assert self.credentials is not None
            authorized = (user, password) == self.credentials
            writer.write(b"\x01\x00" if authorized else b"\x01\x01")
            if not authorized:
                self.asked.append(Asked("socks5", "", False))
                return
        _version, command, _reserved, kind = await reader.readexactly(4)
        if kind == _ATYP_IPV4:
            host = str(ipaddress.IPv4Address(await reader.readexactly(4)))
        elif kind == _ATYP_IPV6:
            host = str(ipaddress.IPv6Address(await reader.readexactly(16)))
        else:
            host = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
        (port,) = struct.unpack("!H", await reader.readexactly(2))
        shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.asked.append(Asked("socks5", shown, authorized))
        upstream = await _open(host, port) if command == 1 else None
        if upstream is None:
            writer.write(b"\x05\x05\x00\x01" + bytes(6))  # connection refused
            return
        writer.write(b"\x05\x00\x00\x01" + bytes(6))
        await writer.drain()
        await _pipe(reader, writer, *upstream)


def _split(target: str) -> tuple[str, int]:
    host, _, port = target.rpartition(":")
    return host.strip("[]"), int(port)


async def _open(host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    try:
        return await asyncio.wait_for(asyncio.open_connection(host, port), IDLE_SECONDS)
    except (OSError, TimeoutError):
        return None


async def _reply(writer: asyncio.StreamWriter, status: bytes, extra: bytes = b"") -> None:
    writer.write(b"HTTP/1.1 " + status + b"\r\n" + extra + b"Content-Length: 0\r\nConnection: close\r\n\r\n")
    await writer.drain()


async def _pipe(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    upstream_reader: asyncio.StreamReader,
    upstream_writer: asyncio.StreamWriter,
) -> None:
    """Copy both ways until either side closes or is idle for IDLE_SECONDS."""

    async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, TimeoutError):
            while data := await asyncio.wait_for(source.read(65536), IDLE_SECONDS):
                sink.write(data)
                await sink.drain()
        with contextlib.suppress(OSError):
            sink.close()

    try:
        await asyncio.gather(copy(reader, upstream_writer), copy(upstream_reader, writer))
    finally:
        upstream_writer.close()
