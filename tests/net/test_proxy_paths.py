"""Every path that leaves the machine goes through `[network] proxy`: engines, the direct reader, Jina, the browser,
robots.txt, image fetches and reverse-image uploads, each shown on its own against the fake web through a real
proxy on loopback (webreach.testing.proxy) that counts what it was asked. Guarded paths ask it for the pinned
address; a name resolving to a private address is refused before the proxy hears anything; per-path settings
override the network one; the proxy's password appears in no answer, error or log line.
"""

from __future__ import annotations

import hashlib
import io
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from PIL import Image
from tests.net.harness import SAFE

from secret_keys import PROXY_PASSWORD
from webreach import Gateway, Settings
from webreach.errors import (
    FetchUnavailableError,
    NotConfiguredError,
    RobotsDisallowedError,
    UnreachableError,
    UrlNotAllowedError,
    WebreachError,
)
from webreach.gateway import ReadOverrides
from webreach.models import ReadRequest, SearchRequest
from webreach.testing import FakeWeb
from webreach.testing.proxy import TestProxy

RESOLVE = ("site.test:127.0.0.1", "private.test:10.0.0.7", "public.test:93.184.216.34")


@dataclass
class World:
    web: FakeWeb
    proxy: TestProxy
    gateway: Gateway

    def url(self, path: str) -> str:
        return f"http://site.test:{self.web.port}{path}"

    @property
    def pinned(self) -> str:
        """What the proxy must be asked for a site.test page: the pinned address, never the name."""
        return f"127.0.0.1:{self.web.port}"


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (90, 60), (200, 40, 40)).save(out, format="PNG")
    return out.getvalue()


@asynccontextmanager
async def world(scheme: str = "http", **settings: Any) -> AsyncIterator[World]:
    async with FakeWeb(limits=SAFE) as web, TestProxy(credentials=("agent", PROXY_PASSWORD)) as proxy:
        read = {"allow_cidrs": ["127.0.0.1/32"], "timeout": 10.0, **settings.pop("read", {})}
        configured = Settings(
            state={"backend": "memory"}, cache={"backend": "none"}, network={"proxy": proxy.url(scheme)},
            read=read, **settings,
        )  # fmt: skip
        gateway = Gateway.from_settings(configured, read_overrides=ReadOverrides(resolve=RESOLVE))
        async with gateway:
            yield World(web, proxy, gateway)


@pytest.mark.parametrize("scheme", ["http", "socks5"])
async def test_an_engine_search_goes_through_the_proxy(scheme: str) -> None:
    async with FakeWeb(limits=SAFE) as probe:
        engines = {"mojeek": {"base_url": probe.engine_url("mojeek")}}
        async with world(scheme, engines=engines) as w:
            response = await w.gateway.search(SearchRequest.create(query="tide pools"), engine="mojeek")
    assert response.results
    kind = "forward" if scheme == "http" else "socks5"  # httpx's own proxy support: the engine's origin is config
    assert [(a.kind, a.target, a.authorized) for a in w.proxy.asked] == [(kind, f"127.0.0.1:{probe.port}", True)]
    assert probe.count("mojeek") == 1


async def test_an_engine_with_proxy_direct_skips_the_network_proxy_and_another_uses_its_own() -> None:
    async with FakeWeb(limits=SAFE) as probe, TestProxy() as own:
        engines = {
            "mojeek": {"base_url": probe.engine_url("mojeek"), "proxy": "direct"},
            "bing": {"base_url": probe.engine_url("bing"), "proxy": own.url()},
        }
        async with world(engines=engines) as w:
            await w.gateway.search(SearchRequest.create(query="tide pools"), engine="mojeek")
            await w.gateway.search(SearchRequest.create(query="tide pools"), engine="bing")
        assert w.proxy.asked == []
        assert own.targets("forward") == [f"127.0.0.1:{probe.port}"]
    assert probe.count("mojeek") == probe.count("bing") == 1


@pytest.mark.parametrize("scheme", ["http", "socks5"])
async def test_the_direct_reader_goes_through_the_proxy_to_the_pinned_address(scheme: str) -> None:
    async with world(scheme) as w:
        w.web.pages.add("/tide", b"<h1>Tide pools</h1><p>" + b"Anemones hold on. " * 40 + b"</p>", host="site.test")
        page = await w.gateway.read(ReadRequest.create(url=w.url("/tide"), reader="direct"))
    assert "Anemones hold on" in page.content
    assert w.proxy.targets() == [w.pinned]
    assert w.web.pages.requests[-1].headers["host"] == f"site.test:{w.web.port}"


async def test_the_jina_reader_goes_through_the_proxy() -> None:
    async with FakeWeb(limits=SAFE) as jina:
        read = {"jina_base_url": f"{jina.url}/_pages/jina"}
        async with world(read=read) as w:
            page = await w.gateway.read(ReadRequest.create(url="http://public.test/article", reader="jina"))
            # Jina is never handed a URL the guard refuses: the proxy hears nothing of it either
            with pytest.raises(UrlNotAllowedError):
                await w.gateway.read(ReadRequest.create(url="http://private.test/", reader="jina"))
    assert page.reader == "jina" and "public.test/article" in page.content
    assert [(a.kind, a.target) for a in w.proxy.asked] == [("forward", f"127.0.0.1:{jina.port}")]


async def test_robots_txt_is_fetched_through_the_proxy() -> None:
    async with world(read={"robots": True}) as w:
        w.web.pages.add("/robots.txt", b"User-agent: *\nDisallow: /private", host="site.test")
        with pytest.raises(RobotsDisallowedError):
            await w.gateway.read(ReadRequest.create(url=w.url("/private/page"), reader="direct"))
    assert w.proxy.targets() == [w.pinned]
    assert [r.path for r in w.web.pages.requests] == ["/robots.txt"]


async def test_an_image_fetch_goes_through_the_proxy() -> None:
    async with world() as w:
        w.web.pages.add("/cat.png", png(), headers={"content-type": "image/png"}, host="site.test")
        stored, url = await w.gateway.images.resolve("session", w.url("/cat.png"))
    assert (stored.width, stored.height, url) == (90, 60, w.url("/cat.png"))
    assert w.proxy.targets() == [w.pinned]


async def test_a_reverse_image_upload_goes_through_the_proxy() -> None:
    async with FakeWeb(limits=SAFE) as backend:
        tineye = {"base_url": backend.engine_url("reverse_tineye"), "rate_per_minute": 600}
        images = {"reverse_backends": ["tineye"], "reverse_settings": {"tineye": tineye}}
        async with world(images=images) as w:
            token = (await w.gateway.images.upload("s", png())).token
            found = await w.gateway.images.reverse_search("s", token, limit=5)
    assert found.backend == "tineye" and found.results
    assert [(a.kind, a.target) for a in w.proxy.asked] == [("forward", f"127.0.0.1:{backend.port}")]


@pytest.mark.browser
async def test_the_browser_reader_goes_through_the_proxy() -> None:
    from webreach.read.readers.browser import find_chromium

    if find_chromium() is None:
        pytest.skip("Chromium is not installed (/usr/bin/chromium); .ci/run installs it")
    async with world(read={"browser_timeout": 20.0}) as w:
        page = await w.gateway.read(ReadRequest.create(url=w.url("/_js/article"), reader="browser"))
    assert page.reader == "browser" and page.title == "How tide pools survive the summer"
    assert w.proxy.targets() and set(w.proxy.targets()) == {w.pinned}


async def test_private_names_are_refused_before_the_proxy_is_asked(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with world() as w:
        for url in ("http://private.test/", "http://10.0.0.7/", "http://169.254.169.254/latest/meta-data/"):
            with pytest.raises(UrlNotAllowedError):
                await w.gateway.read(ReadRequest.create(url=url, reader="direct"))
            with pytest.raises(UrlNotAllowedError):
                await w.gateway.images.resolve("session", url)
    assert w.proxy.asked == []
    assert PROXY_PASSWORD not in caplog.text


async def test_offline_runs_never_use_the_proxy() -> None:
    async with FakeWeb(limits=SAFE) as web, TestProxy() as proxy:
        settings = Settings(state={"backend": "memory"}, fake_web=web.url, network={"proxy": proxy.url()})
        async with Gateway.from_settings(settings) as gateway:
            await gateway.search(SearchRequest.create(query="tide pools"), engine="mojeek")
            page = await gateway.read(ReadRequest.create(url=f"{web.url}/_pages/article", reader="direct"))
    assert page.content and proxy.asked == []


async def test_an_s3_upload_goes_through_the_proxy() -> None:
    pytest.importorskip("boto3")
    data = png()
    async with FakeWeb(limits=SAFE) as store:
        key = f"/images/webreach/images/{hashlib.sha256(data).hexdigest()}.png"
        store.pages.add(key, b"", headers={"etag": '"1"'})  # the bucket's answer to the PUT
        s3 = {"bucket": "images", "endpoint_url": store.url, "access_key_id": "id", "secret_access_key": "key"}
        async with world(images={"storage": "s3", "s3": s3}) as w:
            url = await w.gateway.images.url_for(await w.gateway.images.upload("s", data))
    assert url is not None and url.startswith(f"{store.url}{key}?")
    assert [(r.method, r.path) for r in store.pages.requests] == [("PUT", key)]
    assert [(a.kind, a.target, a.authorized) for a in w.proxy.asked] == [("forward", f"127.0.0.1:{store.port}", True)]


async def test_a_socks5_proxy_for_s3_is_refused_with_what_to_set_instead() -> None:
    pytest.importorskip("boto3")
    s3 = {"bucket": "images", "endpoint_url": "http://127.0.0.1:9", "access_key_id": "id", "secret_access_key": "k"}
    async with world("socks5", images={"storage": "s3", "s3": s3}) as w:
        with pytest.raises(NotConfiguredError, match="SOCKS5") as caught:
            await w.gateway.images.url_for(await w.gateway.images.upload("s", png()))
    assert "[images.s3] proxy" in (caught.value.hint or "")


async def test_a_proxy_refusing_the_credentials_fails_typed_and_never_shows_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    async with FakeWeb(limits=SAFE) as web, TestProxy(credentials=("agent", "another-password")) as proxy:
        settings = Settings(
            state={"backend": "memory"}, cache={"backend": "none"}, read={"allow_cidrs": ["127.0.0.1/32"]},
            network={"proxy": f"http://agent:{PROXY_PASSWORD}@127.0.0.1:{proxy.port}"},
            engines={"mojeek": {"base_url": web.engine_url("mojeek")}},
        )  # fmt: skip
        async with Gateway.from_settings(settings, read_overrides=ReadOverrides(resolve=RESOLVE)) as gateway:
            with pytest.raises(WebreachError) as read_error:
                await gateway.read(ReadRequest.create(url=f"http://site.test:{web.port}/", reader="direct"))
            with pytest.raises(WebreachError) as search_error:
                await gateway.search(SearchRequest.create(query="tide pools"), engine="mojeek")
    assert "proxy" in read_error.value.message and f"http://***@127.0.0.1:{proxy.port}" in read_error.value.message
    assert proxy.asked and not any(a.authorized for a in proxy.asked)  # the engine's one retry included
    assert isinstance(search_error.value, UnreachableError) and search_error.value.cause == "proxy"
    assert "proxy refused our credentials (HTTP 407" in search_error.value.message
    for shown in (repr(read_error.value), str(read_error.value), repr(search_error.value), caplog.text):
        assert PROXY_PASSWORD not in shown


async def test_an_https_engine_behind_a_refusing_proxy_is_unreachable_not_the_engines_fault() -> None:
    async with TestProxy(credentials=("agent", "another-password")) as proxy:
        settings = Settings(
            state={"backend": "memory"}, cache={"backend": "none"},
            network={"proxy": f"http://agent:{PROXY_PASSWORD}@127.0.0.1:{proxy.port}"},
            engines={"mojeek": {"base_url": "https://search.example/mojeek"}},
        )  # fmt: skip
        async with Gateway.from_settings(settings) as gateway:
            with pytest.raises(UnreachableError) as caught:  # the CONNECT is refused: httpx's ProxyError
                await gateway.search(SearchRequest.create(query="tide pools"), engine="mojeek")
    assert caught.value.cause == "proxy" and "407" in caught.value.message
    assert PROXY_PASSWORD not in repr(caught.value)
    assert proxy.targets("connect") == ["search.example:443"]  # an engine's origin is the operator's: by name


async def test_the_reader_can_skip_the_network_proxy_while_jina_uses_its_own() -> None:
    async with FakeWeb(limits=SAFE) as jina, TestProxy() as jina_proxy:
        read = {"proxy": "direct", "jina_proxy": jina_proxy.url(), "jina_base_url": f"{jina.url}/_pages/jina"}
        async with world(read=read) as w:
            w.web.pages.add("/tide", b"<h1>Tide pools</h1><p>" + b"Anemones hold on. " * 40 + b"</p>", host="site.test")
            direct = await w.gateway.read(ReadRequest.create(url=w.url("/tide"), reader="direct"))
            via_jina = await w.gateway.read(ReadRequest.create(url="http://public.test/article", reader="jina"))
        assert "Anemones hold on" in direct.content and via_jina.reader == "jina"
        assert w.proxy.asked == []  # neither used [network] proxy
        assert jina_proxy.targets("forward") == [f"127.0.0.1:{jina.port}"]


async def test_a_proxy_refusing_jina_calls_says_it_is_the_proxy() -> None:
    async with FakeWeb(limits=SAFE) as jina, TestProxy(credentials=("agent", "another-password")) as refusing:
        read = {"jina_proxy": f"http://agent:{PROXY_PASSWORD}@127.0.0.1:{refusing.port}"}
        read["jina_base_url"] = f"{jina.url}/_pages/jina"
        async with world(read=read) as w:
            with pytest.raises(FetchUnavailableError, match=r"outbound proxy refused our credentials \(HTTP 407\)"):
                await w.gateway.read(ReadRequest.create(url="http://public.test/article", reader="jina"))
    assert [a.authorized for a in refusing.asked] == [False]
