"""Fake-web mode is offline for real: only the fake web's own endpoint is ever dialled, IP literals included.

Real sockets: a second loopback listener stands in for "anywhere else" (the operator even allows loopback), and
counts the connections it accepts; it must see none. The fake web itself must still answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from mcp import Client

from webreach import Gateway, NotConfiguredError, ReadRequest, SearchRequest, Settings, UrlNotAllowedError
from webreach.config import ReadSettings
from webreach.errors import HttpStatusError
from webreach.frontends.mcp import build_server, tools_over_gateway
from webreach.net.address_policy import AddressPolicy
from webreach.net.guard import Guard
from webreach.net.offline import OfflineScope, OfflineTransport
from webreach.net.resolvers import OfflineResolver, StaticResolver
from webreach.net.transport import TARGET_EXTENSION, ConnectEvent, GuardedTransport
from webreach.read.service import Reading
from webreach.testing import FakeWeb

pytestmark = pytest.mark.network


class Listener:
    """A loopback TCP server that counts the connections it accepts and answers each with a tiny HTTP page."""

    def __init__(self) -> None:
        self.accepted = 0
        self._server: asyncio.Server | None = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nhi")
        await writer.drain()
        writer.close()

    async def __aenter__(self) -> Listener:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


@pytest.fixture
async def elsewhere() -> AsyncIterator[Listener]:
    async with Listener() as listener:
        yield listener


def offline_settings(web: FakeWeb, **fields: Any) -> Settings:
    # the operator allows every loopback address: offline mode must still refuse all but the fake web's port
    read = ReadSettings(allow_cidrs=["127.0.0.0/8"], **fields.pop("read", {}))
    return Settings(fake_web=web.url, state={"backend": "memory"}, read=read, retries=0, **fields)


async def test_the_fake_webs_own_pages_are_readable(web: FakeWeb) -> None:
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        page = await gateway.read(ReadRequest.create(url=f"{web.url}/_pages/article?title=Offline"))
    assert "Offline" in (page.title or "")


async def test_another_port_of_the_fake_webs_address_reaches_the_fake_web_only(
    web: FakeWeb, elsewhere: Listener
) -> None:
    # the reader's backend sends every connection to the fake web's port (net/fake_web.py): the URL's port is no
    # way off it
    async with Gateway.from_settings(offline_settings(web)) as gateway:
        with pytest.raises(HttpStatusError) as caught:
            await gateway.read(ReadRequest.create(url=f"{elsewhere.url}/page"))
    assert caught.value.status == 404  # the fake web has no such page
    assert elsewhere.accepted == 0


@pytest.mark.parametrize("where", ["public_ip", "numeric_public_ip", "ipv6_literal"])
async def test_reads_off_the_fake_web_are_refused_by_rule(web: FakeWeb, elsewhere: Listener, where: str) -> None:
    url = {
        "public_ip": "http://8.8.8.8/",
        "numeric_public_ip": "http://134744072/",
        "ipv6_literal": "http://[2001:4860:4860::8888]/",
    }[where]
    async with Gateway.from_settings(offline_settings(web)) as gateway:
        with pytest.raises(UrlNotAllowedError) as caught:
            await gateway.read(ReadRequest.create(url=url))
    assert caught.value.rule == "offline"
    assert "WEBREACH_FAKE_WEB" in caught.value.hint
    assert elsewhere.accepted == 0


async def test_no_dial_is_even_attempted_for_a_public_literal(web: FakeWeb) -> None:
    dials: list[ConnectEvent] = []
    scope = OfflineScope.of(web.url)
    settings = ReadSettings(allow_cidrs=["0.0.0.0/0"])
    async with Reading(settings, resolver=OfflineResolver(), offline=scope, connect_observer=dials.append) as reading:
        with pytest.raises(UrlNotAllowedError):
            await reading.read(ReadRequest.create(url="http://1.1.1.1/"))
        await reading.read(ReadRequest.create(url=f"{web.url}/_pages/article"))
    assert [(event.address, event.port) for event in dials] == [("127.0.0.1", scope.port)]


async def test_names_are_refused_even_when_a_resolver_answers_them(web: FakeWeb, elsewhere: Listener) -> None:
    port = int(elsewhere.url.rpartition(":")[2])
    guard = Guard(AddressPolicy(["127.0.0.0/8"]), StaticResolver({"other.test": "127.0.0.1"}), OfflineScope.of(web.url))
    with pytest.raises(UrlNotAllowedError) as caught:
        await guard.check(f"http://other.test:{port}/")
    assert caught.value.rule == "offline"


async def test_the_pinned_transport_refuses_a_forged_target_at_the_dial(web: FakeWeb, elsewhere: Listener) -> None:
    # a target approved by a guard without the scope, handed to a transport whose guard has it
    permissive = Guard(AddressPolicy(["127.0.0.0/8"]), OfflineResolver())
    forged = await permissive.check(f"{elsewhere.url}/page")
    transport = GuardedTransport(Guard(AddressPolicy(), OfflineResolver(), OfflineScope.of(web.url)))
    async with httpx.AsyncClient(transport=transport) as client:
        request = client.build_request("GET", f"{elsewhere.url}/page", extensions={TARGET_EXTENSION: forged})
        with pytest.raises(UrlNotAllowedError) as caught:
            await client.send(request)
    assert caught.value.rule == "offline"
    assert elsewhere.accepted == 0


async def test_an_engine_pointed_off_the_fake_web_is_not_configured(web: FakeWeb, elsewhere: Listener) -> None:
    settings = offline_settings(web, engines={"mojeek": {"base_url": elsewhere.url}})
    async with Gateway.from_settings(settings) as gateway:
        answered = await gateway.search(SearchRequest(query="python"), engine="bing")
        with pytest.raises(NotConfiguredError) as caught:
            await gateway.search(SearchRequest(query="python"), engine="mojeek")
    assert answered.results  # engines left on the fake web still answer from it
    assert "rule offline" in caught.value.message
    assert elsewhere.accepted == 0


async def test_a_jina_base_url_off_the_fake_web_is_never_dialled(web: FakeWeb, elsewhere: Listener) -> None:
    async with Gateway.from_settings(offline_settings(web, read={"jina_base_url": elsewhere.url})) as gateway:
        with pytest.raises(NotConfiguredError):
            # a page of the fake web (a stand-in site), so only the reader's own base URL is off it
            await gateway.read(ReadRequest.create(url="https://docs.python.org/3/", reader="jina"))
    assert elsewhere.accepted == 0


async def test_the_offline_transport_serves_engines_from_the_fake_web(web: FakeWeb) -> None:
    async with httpx.AsyncClient(transport=OfflineTransport(OfflineScope.of(web.url))) as client:
        response = await client.get(web.engine_url("mojeek") + "/search?q=python")
    assert response.status_code == 200


CONTROL_URLS = [
    "{web}/_fakeweb/requests",  # the request log: every agent's queries
    "{web}/_fakeweb/requests?engine=mojeek",
    "{web}/_fakeweb",
    "{web}/_fakeweb/scenario",
    "{web}/%5Ffakeweb/requests",  # the fake web decodes the path once
    "{web}/%5f%66akeweb/requests",
    "{web}//x/_fakeweb/requests",  # read as a network path by the fake web's request line parser
    "{other_port}/_fakeweb/requests",  # another port of its address is routed to it
    "https://docs.python.org/_fakeweb/requests",  # a stand-in site is the fake web too
    "{web}/_pages/redirect?to=/_fakeweb/requests",  # and no hop may lead there
]


@pytest.mark.parametrize("template", CONTROL_URLS)
async def test_agents_cannot_read_the_fake_webs_control_api_or_request_log(web: FakeWeb, template: str) -> None:
    other_port = f"http://127.0.0.1:{web.port + 1 if web.port < 65535 else web.port - 1}"
    url = template.format(web=web.url, other_port=other_port)
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        found = await gateway.search(SearchRequest(query="private question of another agent"), engine="mojeek")
        assert found.results  # the log now holds that query
        with pytest.raises(UrlNotAllowedError) as caught:
            await gateway.read(ReadRequest.create(url=url))
        # the stand-in pages of results and the fake web's public pages stay readable
        page = await gateway.read(ReadRequest.create(url=found.results[0].url))
        assert page.status == 200
        assert "fake web article" in (await gateway.read(ReadRequest.create(url=f"{web.url}/_pages/article"))).content
    assert caught.value.rule == "fake_web_control"
    assert "rule fake_web_control" in caught.value.message and "control API" in caught.value.message
    assert "private question" not in caught.value.message


async def test_web_fetch_of_the_request_log_is_a_typed_refusal_over_mcp(web: FakeWeb) -> None:
    settings = Settings(fake_web=web.url, state={"backend": "memory"})
    server = build_server(lambda: tools_over_gateway(settings), default_session="test")
    async with Client(server, raise_exceptions=True) as mcp:
        await mcp.call_tool("web_search", {"query": "another agent's secret plan", "engine": "mojeek"})
        result = await mcp.call_tool("web_fetch", {"url": f"{web.url}/_fakeweb/requests"})
    text = result.content[0].text
    assert result.is_error
    assert "url_not_allowed" in text and "fake_web_control" in text
    assert "secret plan" not in text
