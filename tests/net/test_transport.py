"""The pinned transport over real loopback sockets: only approved addresses are dialled, and nothing else.

TLS runs against a local server with a throwaway CA (made with `cryptography` when installed), so SNI, the
Host header and certificate verification are checked against the original name while the socket is pinned.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from ipaddress import ip_address
from pathlib import Path
from typing import Any

import httpcore
import httpx
import pytest

from webreach.errors import FetchUnavailableError, UrlNotAllowedError
from webreach.net import AddressPolicy, ApprovedTarget, Guard, StaticResolver
from webreach.net.fetcher import Fetcher
from webreach.net.proxy import ProxyUrl
from webreach.net.transport import GuardedTransport, PinnedBackend
from webreach.testing import FakeWeb
from webreach.testing.connects import ConnectRecorder
from webreach.testing.proxy import TestProxy

from .harness import BUDGETS, DNS, SAFE, CountingResolver, harness

pytestmark = pytest.mark.network


async def test_a_name_is_dialled_at_its_approved_address_with_the_original_host_header() -> None:
    async with harness() as h:
        fetched = await h.fetcher.fetch(h.url("echo"))
        echo = json.loads(fetched.body)
    assert echo["headers"]["host"] == f"site.test:{h.web.port}"
    assert h.recorder.dials == [("127.0.0.1", h.web.port)]
    assert h.recorder.hosts() == ["site.test"]


async def test_dns_is_asked_once_per_hop_and_a_rebound_answer_is_never_dialled() -> None:
    # DNS rebinding: the first answer is the allowed one, every later answer points inside the network
    resolver = CountingResolver(answers=[("127.0.0.1",), ("10.0.0.9",), ("10.0.0.9",)])
    async with harness(resolver=resolver) as h:
        with pytest.raises(UrlNotAllowedError) as refused:
            await h.fetcher.fetch(h.url("redirect?to=/_pages/article", host="rebind.test"))
    assert refused.value.rule == "private"
    assert resolver.calls == ["rebind.test", "rebind.test"]  # one question per hop, none at connect time
    assert h.recorder.dials == [("127.0.0.1", h.web.port)]


async def test_a_name_with_one_private_answer_is_refused_before_any_socket() -> None:
    async with harness() as h:
        with pytest.raises(UrlNotAllowedError) as refused:
            await h.fetcher.fetch(h.url("article", host="mixed.test"))
    assert refused.value.rule == "private"
    assert h.recorder.dials == []


async def test_connections_are_reused_per_host_and_never_across_hosts() -> None:
    async with harness() as h:
        await h.fetcher.fetch(h.url("article"))
        await h.fetcher.fetch(h.url("article"))
        await h.fetcher.fetch(h.url("article", host="other.test"))
        await h.fetcher.fetch(h.url("article"))
        pools = h.fetcher.transport.pool_count()
    # same address and port, but other.test gets its own connection: a pool only serves the host it is for
    assert h.recorder.hosts() == ["site.test", "other.test"]
    assert pools == 2


async def test_environment_proxies_are_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    async with harness() as h:
        fetched = await h.fetcher.fetch(h.url("article"))
    assert fetched.status == 200
    assert h.recorder.dials == [("127.0.0.1", h.web.port)]


async def test_the_transport_checks_requests_that_carry_no_approval() -> None:
    async with harness() as h:
        client = httpx.AsyncClient(transport=h.fetcher.transport, trust_env=False)
        async with client:
            ok = await client.get(h.url("article"))
            with pytest.raises(UrlNotAllowedError):
                await client.get("http://private.test/")
            with pytest.raises(UrlNotAllowedError):
                await client.get("http://169.254.169.254/latest/meta-data/")
    assert ok.status_code == 200
    assert h.recorder.dials == [("127.0.0.1", h.web.port)]


async def test_a_pinned_pool_refuses_to_dial_for_another_host() -> None:
    recorder = ConnectRecorder(allowed={"127.0.0.1"})
    target = ApprovedTarget(url=httpx.URL("http://site.test/"), host="site.test", port=80, addresses=())
    backend = PinnedBackend(target, recorder, recorder.observe)
    with pytest.raises(httpcore.ConnectError):
        await backend.connect_tcp("other.test", 80)
    with pytest.raises(httpcore.ConnectError):
        await backend.connect_unix_socket("/var/run/docker.sock")
    assert recorder.dials == []


async def test_the_recorder_catches_a_socket_the_guard_did_not_approve() -> None:
    recorder = ConnectRecorder(allowed={"127.0.0.1"})
    with pytest.raises(httpcore.ConnectError):
        await recorder.connect_tcp("10.0.0.1", 80)
    with pytest.raises(AssertionError, match="outside the guard"):
        recorder.assert_clean()


# --- TLS: pinned socket, original name for SNI and verification ------------------------------------------------


def _certificates(folder: Path, also_ip: str | None = None) -> tuple[bytes, Path]:
    """A throwaway CA and a site.test certificate it signed (valid for `also_ip` too when given: a proxy on
    loopback); returns the CA PEM and a cert+key PEM file."""
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.now(UTC)
    ca_key, leaf_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "webreach test CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(hours=1))
        .not_valid_after(now + timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    leaf = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "site.test")]))
        .issuer_name(ca_name).public_key(leaf_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1)).not_valid_after(now + timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName(
            [x509.DNSName("site.test"), *([x509.IPAddress(ip_address(also_ip))] if also_ip else [])]
        ), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    key_pem = leaf_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    chain = folder / "site.pem"
    chain.write_bytes(leaf.public_bytes(serialization.Encoding.PEM) + key_pem)
    return ca.public_bytes(serialization.Encoding.PEM), chain


@asynccontextmanager
async def tls_server(chain: Path) -> AsyncIterator[tuple[int, list[str | None]]]:
    """A one-route HTTPS server on 127.0.0.1 that answers with the Host header it got; yields (port, SNI names)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(chain)
    names: list[str | None] = []
    context.sni_callback = lambda _sock, name, _ctx: names.append(name)  # type: ignore[assignment,func-returns-value]

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            lines = head.split("\r\n")
            host = next(line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("host:"))
            body = json.dumps({"host": host}).encode()
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n")
            writer.write(b"content-length: %d\r\n\r\n%s" % (len(body), body))
            await writer.drain()
        except (OSError, asyncio.IncompleteReadError, StopIteration):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=context)
    try:
        yield server.sockets[0].getsockname()[1], names
    finally:
        server.close()
        await server.wait_closed()


async def test_https_is_pinned_while_sni_host_and_certificate_use_the_name(tmp_path: Path) -> None:
    ca_pem, chain = _certificates(tmp_path)
    client_context = ssl.create_default_context(cadata=ca_pem.decode())
    recorder = ConnectRecorder(allowed={"127.0.0.1"})
    guard = Guard(AddressPolicy(["127.0.0.1/32"]), StaticResolver(DNS))
    fetcher = Fetcher(
        guard, budgets=BUDGETS, network_backend=recorder, connect_observer=recorder.observe, ssl_context=client_context
    )
    async with tls_server(chain) as (port, names), fetcher:
        fetched = await fetcher.fetch(f"https://site.test:{port}/")
        # other.test reaches the same socket, but the certificate is for site.test: verification fails, no retry
        with pytest.raises(FetchUnavailableError):
            await fetcher.fetch(f"https://other.test:{port}/")
    assert json.loads(fetched.body) == {"host": f"site.test:{port}"}
    assert names[0] == "site.test"
    assert recorder.dials == [("127.0.0.1", port), ("127.0.0.1", port)]
    recorder.assert_clean()


async def test_an_untrusted_certificate_is_refused(tmp_path: Path) -> None:
    _, chain = _certificates(tmp_path)
    guard = Guard(AddressPolicy(["127.0.0.1/32"]), StaticResolver(DNS))
    async with tls_server(chain) as (port, _), Fetcher(guard, budgets=BUDGETS) as fetcher:
        with pytest.raises(FetchUnavailableError):  # the system CAs do not know the throwaway CA
            await fetcher.fetch(f"https://site.test:{port}/")


def test_the_default_transport_verifies_certificates() -> None:
    transport = GuardedTransport(Guard())
    assert transport.ssl_context.verify_mode is ssl.CERT_REQUIRED
    assert transport.ssl_context.check_hostname


class FailingBackend(httpcore.AsyncNetworkBackend):
    """A socket layer whose every dial fails with one httpcore error (no socket is ever opened)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def connect_tcp(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        raise self.error


@pytest.mark.parametrize(
    "name", ["ConnectTimeout", "ConnectError", "ReadError", "PoolTimeout", "RemoteProtocolError", "ProtocolError"]
)
async def test_httpcore_errors_reach_the_client_as_their_httpx_namesakes(name: str) -> None:
    error = getattr(httpcore, name)("no socket")
    guard = Guard(AddressPolicy(["127.0.0.1/32"]), StaticResolver(DNS))
    transport = GuardedTransport(guard, network_backend=FailingBackend(error))
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx.TransportError) as raised:
            await client.get("http://site.test:8080/")
    assert type(raised.value) is getattr(httpx, name)
    assert raised.value.__cause__ is error  # the fetcher reads h11's hints from the cause chain


async def test_a_rerouted_transport_sends_the_next_request_through_the_new_proxy_and_back() -> None:
    """The console's [network] proxy changing under a running reader: the pooled direct connection is not used
    again, the next request asks the proxy for the approved address, and None goes direct again."""
    async with FakeWeb(limits=SAFE) as web, TestProxy() as proxy:
        guard = Guard(AddressPolicy(["127.0.0.1/32"]), CountingResolver())
        async with Fetcher(guard, budgets=BUDGETS) as fetcher:
            url = f"http://site.test:{web.port}/_pages/article"
            await fetcher.fetch(url)  # a kept-alive direct connection now sits in the pool
            fetcher.transport.reroute(ProxyUrl.parse(proxy.url()))
            await fetcher.fetch(url)
            assert proxy.targets() == [f"127.0.0.1:{web.port}"]
            assert fetcher.transport.pool_count() == 1  # the direct route's pool is gone
            with pytest.raises(UrlNotAllowedError):  # the guard stays in front of the new route
                await fetcher.fetch(f"http://mixed.test:{web.port}/")
            fetcher.transport.reroute(None)
            await fetcher.fetch(url)
            assert len(proxy.asked) == 1
