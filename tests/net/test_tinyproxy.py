"""webreach's tunnel against a proxy it did not write: Debian's tinyproxy (scripts/setup-tests installs it).

The same promises as tests/net/test_proxy.py: pages reached through a CONNECT to the pinned address (plain HTTP
and TLS, with Host and SNI on the name), private names refused before tinyproxy opens anything, wrong
credentials a typed error without them.
"""

from __future__ import annotations

import json
import os
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.net.harness import BUDGETS, DNS, SAFE
from tests.net.test_transport import _certificates, tls_server

from secret_keys import PROXY_PASSWORD
from webreach.errors import FetchUnavailableError, UrlNotAllowedError
from webreach.net import AddressPolicy, Guard, StaticResolver
from webreach.net.fetcher import Fetcher
from webreach.net.proxy import ProxyUrl
from webreach.testing import FakeWeb
from webreach.testing.tinyproxy import Tinyproxy, TinyproxyUnavailable, tinyproxy

pytestmark = pytest.mark.slow  # a tinyproxy process per test


@pytest.fixture
def proxy() -> Iterator[Tinyproxy]:
    try:
        with tinyproxy(PROXY_PASSWORD) as running:
            yield running
    except TinyproxyUnavailable as missing:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{missing} (scripts/setup-tests installs it)")


def _fetcher(proxy_url: str, **options: object) -> Fetcher:
    guard = Guard(AddressPolicy(["127.0.0.1/32"]), StaticResolver(DNS))
    return Fetcher(guard, budgets=BUDGETS, proxy=ProxyUrl.parse(proxy_url), **options)  # type: ignore[arg-type]


async def test_a_plain_http_page_through_tinyproxy(proxy: Tinyproxy) -> None:
    async with FakeWeb(limits=SAFE) as web, _fetcher(proxy.url) as fetcher:
        web.pages.add("/hello", b"<p>hello via tinyproxy</p>", host="site.test")
        fetched = await fetcher.fetch(f"http://site.test:{web.port}/hello")
        with pytest.raises(UrlNotAllowedError):
            await fetcher.fetch("http://private.test/")
    assert b"hello via tinyproxy" in fetched.body
    assert web.pages.requests[-1].headers["host"] == f"site.test:{web.port}"
    assert proxy.asked() == [f"127.0.0.1:{web.port}"]


async def test_a_tls_page_through_tinyproxy(proxy: Tinyproxy, tmp_path: Path) -> None:
    ca_pem, chain = _certificates(tmp_path)
    context = ssl.create_default_context(cadata=ca_pem.decode())
    async with tls_server(chain) as (port, names), _fetcher(proxy.url, ssl_context=context) as fetcher:
        fetched = await fetcher.fetch(f"https://site.test:{port}/")
    assert json.loads(fetched.body) == {"host": f"site.test:{port}"}
    assert names == ["site.test"] and proxy.asked() == [f"127.0.0.1:{port}"]


async def test_wrong_credentials_for_tinyproxy(proxy: Tinyproxy) -> None:
    wrong = proxy.url.replace(PROXY_PASSWORD, "not-the-password")
    async with FakeWeb(limits=SAFE) as web, _fetcher(wrong) as fetcher:
        # tinyproxy answers a refused CONNECT with 401 (not 407): any non-2xx to a CONNECT is the proxy's
        with pytest.raises(FetchUnavailableError, match=r"refused a tunnel .*\(HTTP 401") as caught:
            await fetcher.fetch(f"http://site.test:{web.port}/")
    assert "not-the-password" not in str(caught.value) and proxy.asked() == []
