"""[network] proxy set from the console (the database layer, as the console's form and the admin API store it) takes
the very next search and read through the new proxy, on a gateway already running (its reader built under the old
route); the SSRF guard still refuses private addresses before the proxy hears of them; removing it goes direct
again; the proxy's password shows in no view, answer or log line. Real proxy and fake web on loopback."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from tests.net.harness import SAFE

from secret_keys import PROXY_PASSWORD
from webreach.config import AccountsSettings, Settings
from webreach.configdb.layers import Layers
from webreach.errors import InvalidInputError, UrlNotAllowedError
from webreach.gateway import Gateway, ReadOverrides
from webreach.models import ReadRequest, SearchRequest
from webreach.testing import FakeWeb
from webreach.testing.proxy import TestProxy

pytestmark = pytest.mark.network
RESOLVE = ("site.test:127.0.0.1", "private.test:10.0.0.7", "public.test:93.184.216.34")
NETWORK = ("network", "proxy")


def settings_at(tmp_path: Path, **more: object) -> Settings:
    return Settings(
        accounts=AccountsSettings(database=str(tmp_path / "accounts.sqlite3")),
        secret_key_file=tmp_path / "secret.key",
        state={"backend": "memory"},  # type: ignore[arg-type]
        cache={"backend": "none"},  # type: ignore[arg-type]
        read={"allow_cidrs": ["127.0.0.1/32"], "timeout": 10.0, "cache_ttl": 0, **more.pop("read", {})},  # type: ignore[dict-item]
        **more,  # type: ignore[arg-type]
    )


@asynccontextmanager
async def running(tmp_path: Path, web: FakeWeb, **more: object) -> AsyncIterator[Gateway]:
    engines = {"mojeek": {"base_url": web.engine_url("mojeek")}}
    settings = settings_at(tmp_path, engines=engines, **more)
    async with Gateway.from_settings(settings, read_overrides=ReadOverrides(resolve=RESOLVE)) as gateway:
        yield gateway


async def test_a_console_proxy_carries_the_next_search_and_read_then_direct_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with FakeWeb(limits=SAFE) as web, TestProxy(credentials=("agent", PROXY_PASSWORD)) as proxy:
        web.pages.add("/tide", b"<h1>Tide pools</h1><p>" + b"Anemones hold on. " * 40 + b"</p>", host="site.test")
        page = ReadRequest.create(url=f"http://site.test:{web.port}/tide", reader="direct")
        query = SearchRequest.create(query="tide pools")
        async with running(tmp_path, web) as gateway:
            await gateway.read(page)  # the reader is built, and pools a connection, on the direct route
            await gateway.search(query, engine="mojeek")
            assert proxy.asked == []

            gateway.config.change({NETWORK: proxy.url()}, actor="console")
            assert "Anemones hold on" in (await gateway.read(page)).content
            await gateway.search(query, engine="mojeek")
            pinned = f"127.0.0.1:{web.port}"
            asked = [(a.kind, a.target, a.authorized) for a in proxy.asked]
            assert asked == [("connect", pinned, True), ("forward", pinned, True)]
            with pytest.raises(UrlNotAllowedError):  # the SSRF rule holds through the proxy: it hears nothing
                await gateway.read(ReadRequest.create(url="http://private.test/", reader="direct"))
            assert len(proxy.asked) == 2

            view = gateway.config.stored.network_view()[0]
            assert view.winner == "console" and view.layers[0].shown == f"http://***@127.0.0.1:{proxy.port}"

            gateway.config.change({NETWORK: None}, actor="console")
            await gateway.read(page)
            await gateway.search(query, engine="mojeek")
            assert len(proxy.asked) == 2  # direct again
    assert PROXY_PASSWORD not in caplog.text


async def test_direct_from_the_console_overrides_the_files_proxy_and_jina_follows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeWeb(limits=SAFE) as web, TestProxy() as proxy:
        toml = tmp_path / "webreach.toml"
        toml.write_text(f'[network]\nproxy = "{proxy.url()}"\n')
        monkeypatch.setenv("WEBREACH_CONFIG", str(toml))
        read = {"jina_base_url": f"{web.url}/_pages/jina"}
        async with running(tmp_path, web, read=read) as gateway:
            jina = ReadRequest.create(url="http://public.test/article", reader="jina")
            await gateway.read(jina)
            assert proxy.targets() == [f"127.0.0.1:{web.port}"]
            gateway.config.change({NETWORK: "direct"})  # over the file's proxy: none
            assert [layer.source for layer in gateway.config.stored.network_view()[0].layers] == [
                "console", "webreach.toml", "default"
            ]  # fmt: skip
            page = await gateway.read(jina)
            assert page.reader == "jina" and "public.test/article" in page.content
            assert len(proxy.asked) == 1
        # another server on the same database builds its settings with the console's value
        async with running(tmp_path, web) as other:
            assert other.settings.network.proxy is not None
            assert other.settings.network.proxy.get_secret_value() == "direct"


@pytest.mark.parametrize(
    "bad", ["ftp://proxy.example:21", "http://", "proxy.example:3128", f"http://agent:{PROXY_PASSWORD}@h:x", ""]
)
async def test_a_malformed_proxy_is_refused_without_echoing_it(tmp_path: Path, bad: str) -> None:
    async with FakeWeb(limits=SAFE) as web, running(tmp_path, web) as gateway:
        with pytest.raises(InvalidInputError) as refused:
            gateway.config.change({NETWORK: bad})
        assert PROXY_PASSWORD not in str(refused.value) and refused.value.code == "invalid_input"
        assert gateway.settings.network.proxy is None


def test_the_environments_proxy_wins_over_the_consoles_and_both_show_redacted() -> None:
    pinned = f"http://agent:{PROXY_PASSWORD}@env.example:3128"
    base = Settings(state={"backend": "memory"}, network={"proxy": pinned})  # type: ignore[arg-type]
    stored = {NETWORK: f"socks5://agent:{PROXY_PASSWORD}@console.example:1080"}
    layers = Layers(base, {"network": {"proxy": pinned}}, {}, stored)
    effective = layers.effective().network.proxy
    assert effective is not None and effective.get_secret_value() == pinned
    view = layers.view(*NETWORK)
    assert view.winner == "environment" and view.console_overridden and view.variable == "WEBREACH_NETWORK__PROXY"
    assert [layer.shown for layer in view.layers] == [
        "http://***@env.example:3128", "socks5://***@console.example:1080", "not set"
    ]  # fmt: skip
