"""The guarded fetcher through an outbound proxy: the proxy is only ever asked for the address the guard pinned.

A real proxy on loopback (webreach.testing.proxy) counts what it was asked to connect to; the fake web is the
target under fake DNS names. A name resolving to a private address is refused before the proxy hears anything.
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
from pathlib import Path

import pytest
from tests.net.harness import BUDGETS, DNS, SAFE
from tests.net.test_transport import _certificates, tls_server

from webreach.errors import FetchTimeoutError, FetchUnavailableError, InvalidInputError, UrlNotAllowedError
from webreach.net import AddressPolicy, Guard, StaticResolver
from webreach.net.fetcher import Budgets, Fetcher
from webreach.net.proxy import ProxyUrl
from webreach.testing import FakeWeb
from webreach.testing.connects import ConnectRecorder
from webreach.testing.proxy import TestProxy

SECRET = "s3cr3t-pa55"


def _guard() -> Guard:
    return Guard(AddressPolicy(["127.0.0.1/32"]), StaticResolver(DNS))


@pytest.mark.parametrize("scheme", ["http", "socks5"])
async def test_a_read_goes_through_the_proxy_to_the_pinned_address(scheme: str) -> None:
    async with FakeWeb(limits=SAFE) as web, TestProxy(credentials=("agent", SECRET)) as proxy:
        web.pages.add("/hello", b"<p>hello through the proxy</p>", host="site.test")
        recorder = ConnectRecorder(allowed={"127.0.0.1"})
        proxied = ProxyUrl.parse(proxy.url(scheme))
        fetcher = Fetcher(_guard(), budgets=BUDGETS, network_backend=recorder, proxy=proxied)
        async with fetcher:
            fetched = await fetcher.fetch(f"http://site.test:{web.port}/hello")
        assert b"hello through the proxy" in fetched.body
        kind = "connect" if scheme == "http" else "socks5"
        assert [(a.kind, a.target, a.authorized) for a in proxy.asked] == [(kind, f"127.0.0.1:{web.port}", True)]
        # the only socket webreach opened is the one to the proxy; the site saw its own name as Host
        assert recorder.dials == [("127.0.0.1", proxy.port)]
        assert web.pages.requests[-1].headers.get("host") == f"site.test:{web.port}"


@pytest.mark.parametrize("name", ["private.test", "metadata.test", "mixed.test", "loopback6.test"])
async def test_a_name_resolving_to_a_private_address_never_reaches_the_proxy(name: str) -> None:
    async with TestProxy() as proxy, Fetcher(_guard(), budgets=BUDGETS, proxy=ProxyUrl.parse(proxy.url())) as f:
        with pytest.raises(UrlNotAllowedError):
            await f.fetch(f"http://{name}/")
        with pytest.raises(UrlNotAllowedError):  # an IP literal the guard refuses, too
            await f.fetch("http://10.1.2.3/")
    assert proxy.asked == []


async def test_https_through_the_proxy_keeps_sni_host_and_certificate_on_the_name(tmp_path: Path) -> None:
    ca_pem, chain = _certificates(tmp_path)
    context = ssl.create_default_context(cadata=ca_pem.decode())
    async with TestProxy() as proxy, tls_server(chain) as (port, names):
        fetcher = Fetcher(_guard(), budgets=BUDGETS, ssl_context=context, proxy=ProxyUrl.parse(proxy.url()))
        async with fetcher:
            fetched = await fetcher.fetch(f"https://site.test:{port}/")
    assert json.loads(fetched.body) == {"host": f"site.test:{port}"}
    assert names == ["site.test"]
    assert proxy.targets() == [f"127.0.0.1:{port}"]


@pytest.mark.parametrize("scheme", ["http", "socks5"])
async def test_wrong_proxy_credentials_are_a_typed_error_that_never_shows_them(
    scheme: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with FakeWeb(limits=SAFE) as web, TestProxy(credentials=("agent", "right")) as proxy:
        wrong = ProxyUrl.parse(f"{scheme}://agent:{SECRET}@127.0.0.1:{proxy.port}")
        async with Fetcher(_guard(), budgets=BUDGETS, proxy=wrong) as fetcher:
            with pytest.raises(FetchUnavailableError) as caught:
                await fetcher.fetch(f"http://site.test:{web.port}/")
    message = caught.value.message
    assert "refused a tunnel to 127.0.0.1" in message and f"{scheme}://***@127.0.0.1:{proxy.port}" in message
    assert SECRET not in message and SECRET not in repr(caught.value) and SECRET not in caplog.text
    assert SECRET not in repr(wrong)


async def test_a_proxy_that_is_down_is_a_typed_error() -> None:
    async with TestProxy() as proxy:
        port = proxy.port
    async with Fetcher(_guard(), budgets=BUDGETS, proxy=ProxyUrl.parse(f"http://127.0.0.1:{port}")) as fetcher:
        with pytest.raises(FetchUnavailableError, match="through the proxy"):
            await fetcher.fetch("http://site.test:8080/")


def test_a_malformed_proxy_url_is_refused_without_repeating_it() -> None:
    with pytest.raises(InvalidInputError) as caught:
        ProxyUrl.parse(f"ftp://u:{SECRET}@host:21")
    assert SECRET not in str(caught.value)
    assert ProxyUrl.parse("socks5://127.0.0.1").port == 1080


async def test_an_https_proxy_carries_a_tls_page_inside_its_own_tls(tmp_path: Path) -> None:
    ca_pem, chain = _certificates(tmp_path, also_ip="127.0.0.1")  # one CA for the proxy and the site
    context = ssl.create_default_context(cadata=ca_pem.decode())
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(chain)
    async with TestProxy(credentials=("agent", SECRET), tls=server) as proxy, tls_server(chain) as (port, names):
        assert proxy.url().startswith("https://")
        fetcher = Fetcher(_guard(), budgets=BUDGETS, ssl_context=context, proxy=ProxyUrl.parse(proxy.url()))
        async with fetcher:
            fetched = await fetcher.fetch(f"https://site.test:{port}/")
    assert json.loads(fetched.body) == {"host": f"site.test:{port}"}
    assert names == ["site.test"]
    assert [(a.kind, a.target, a.authorized) for a in proxy.asked] == [("connect", f"127.0.0.1:{port}", True)]


async def test_a_redirect_to_a_private_name_is_refused_before_the_proxy_hears_of_it() -> None:
    async with FakeWeb(limits=SAFE) as web, TestProxy() as proxy:
        web.pages.add("/hop", b"", status=302, headers={"location": "http://private.test/admin"}, host="site.test")
        async with Fetcher(_guard(), budgets=BUDGETS, proxy=ProxyUrl.parse(proxy.url())) as fetcher:
            with pytest.raises(UrlNotAllowedError, match="redirected to a refused URL"):
                await fetcher.fetch(f"http://site.test:{web.port}/hop")
    assert proxy.targets() == [f"127.0.0.1:{web.port}"]  # the first hop only


async def test_a_proxy_that_never_answers_ends_at_the_deadline_and_its_socket_is_closed() -> None:
    closed = asyncio.Event()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await reader.read(1024):  # takes the CONNECT, never answers; b"" when webreach closes its side
            pass
        closed.set()
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    # the whole fetch's deadline comes before any per-read timeout: the CONNECT is cancelled, not timed out
    budgets = Budgets(total_seconds=0.5, connect_seconds=5, read_seconds=5)
    async with server, Fetcher(_guard(), budgets=budgets, proxy=ProxyUrl.parse(f"http://127.0.0.1:{port}")) as f:
        with pytest.raises(FetchTimeoutError):
            await f.fetch("http://site.test:8080/")
        await asyncio.wait_for(closed.wait(), 5)
