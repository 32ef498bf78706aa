"""The browser reader against JavaScript pages on the fake web, in real Chromium, on loopback only.

Every request of the page goes through the real guarded Fetcher: fake DNS makes news.test 127.0.0.1, the only
allowed network is 127.0.0.1/32, and a ConnectRecorder under the pinned transport fails the test on any socket
the guard did not approve. The private targets that can exist on this machine are trap listeners on 127.0.0.2
(loopback, but outside the allowed /32) that count every connection or datagram they get, so the tests show that
nothing refused was contacted, neither by the fetcher nor by Chromium itself.
"""

from __future__ import annotations

import asyncio
import socket
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from urllib.parse import urlencode

import pytest

from webreach.errors import BrowserUnavailableError, NeedsBrowserError, UrlNotAllowedError
from webreach.models import ReadRequest
from webreach.net import AddressPolicy, Guard, StaticResolver
from webreach.net.fetcher import Fetcher
from webreach.read.readers import ReaderChain
from webreach.read.readers.browser import BrowserReader, chromium_flags, find_chromium
from webreach.read.readers.browser_routing import InterceptLimits
from webreach.read.readers.direct import DirectReader, RenderedReader
from webreach.testing import FakeWeb
from webreach.testing.connects import ConnectRecorder
from webreach.testing.js_pages import ARTICLE_PARAGRAPHS, ARTICLE_TITLE, CLOSING_PARAGRAPH, COMMENTS_NOTE, JS_ROUTE

pytestmark = pytest.mark.browser

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (/usr/bin/chromium); scripts/setup-tests installs it"
)
TRAP_HOST = "127.0.0.2"  # loopback, so a listener can exist, but outside the allowed 127.0.0.1/32


@dataclass
class Trap:
    """Listeners on TRAP_HOST (TCP and UDP) that count whatever reaches them."""

    tcp_port: int
    udp: socket.socket
    tcp_connections: int = 0

    @property
    def base(self) -> str:
        return f"http://{TRAP_HOST}:{self.tcp_port}"

    @property
    def udp_port(self) -> int:
        port: int = self.udp.getsockname()[1]
        return port

    def datagrams(self) -> int:
        count = 0
        while True:
            try:
                self.udp.recv(4096)
            except BlockingIOError:
                return count
            count += 1


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


@pytest.fixture
def recorder() -> ConnectRecorder:
    return ConnectRecorder(allowed={"127.0.0.1"})


@pytest.fixture
async def fetcher(recorder: ConnectRecorder) -> AsyncIterator[Fetcher]:
    guard = Guard(AddressPolicy(allow_cidrs=["127.0.0.1/32"]), StaticResolver({"news.test": "127.0.0.1"}))
    async with Fetcher(guard, network_backend=recorder, connect_observer=recorder.observe) as client:
        yield client


@pytest.fixture
async def trap() -> AsyncIterator[Trap]:
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind((TRAP_HOST, 0))
    udp.setblocking(False)
    holder: list[Trap] = []

    def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        holder[0].tcp_connections += 1
        writer.close()

    server = await asyncio.start_server(on_connection, TRAP_HOST, 0)
    holder.append(Trap(server.sockets[0].getsockname()[1], udp))
    try:
        yield holder[0]
    finally:
        server.close()
        await server.wait_closed()
        udp.close()


@pytest.fixture
def chromium() -> Iterator[str]:
    assert CHROMIUM is not None
    yield CHROMIUM


def article_url(web: FakeWeb, probes: list[str], images: list[str]) -> str:
    query = urlencode([("probe", p) for p in probes] + [("img", i) for i in images])
    return f"http://news.test:{web.port}/_js/article?{query}"


@needs_chromium
async def test_renders_the_script_built_article_and_the_guard_refuses_every_private_request(
    web: FakeWeb, fetcher: Fetcher, recorder: ConnectRecorder, trap: Trap, chromium: str
) -> None:
    redirect_to_trap = "/_js/redirect?" + urlencode({"hops": 2, "to": f"{trap.base}/after-redirects"})
    probes = ["http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", redirect_to_trap]
    url = article_url(web, probes, [f"{trap.base}/x.png"])
    limits = InterceptLimits(skip_resource_types=frozenset())  # images too go to the guard here
    async with BrowserReader(fetcher, executable_path=chromium, limits=limits, timeout=15) as reader:
        page = await reader.read(url)

    html = page.body.decode("utf-8")
    assert page.rendered and page.status == 200 and page.final_url == url
    assert page.content_type == "text/html; charset=utf-8"
    for text in (ARTICLE_TITLE, *ARTICLE_PARAGRAPHS, COMMENTS_NOTE, CLOSING_PARAGRAPH):
        assert text in html  # the closing paragraph is written only after every probe finished
    expected = {
        ("http://10.0.0.1/", "private"),
        ("http://169.254.169.254/latest/meta-data/", "cloud_metadata"),
        (f"{trap.base}/x.png", "loopback"),
        (f"{trap.base}/after-redirects", "loopback"),
    }
    assert {(b.url, b.rule) for b in page.refused} == expected
    hop = next(b for b in page.refused if b.url.endswith("/after-redirects"))
    assert hop.via is not None and hop.via.endswith(redirect_to_trap)
    # nothing refused was contacted: the fetcher dialled only the fake web, Chromium nothing at all
    recorder.assert_clean()
    assert set(recorder.dials) == {("127.0.0.1", web.port)}
    assert trap.tcp_connections == 0
    seen = Counter(r.path for r in web.requests(JS_ROUTE))
    assert seen == Counter({"/_js/article": 1, "/_js/comments.json": 1, "/_js/redirect": 3})
    assert page.requests == sum(seen.values()) + len(expected)  # fetch calls, the refused ones included


@needs_chromium
async def test_auto_reads_the_javascript_page_in_the_browser_after_direct_finds_an_empty_shell(
    web: FakeWeb, fetcher: Fetcher, recorder: ConnectRecorder, chromium: str
) -> None:
    url = f"http://news.test:{web.port}/_js/article"
    async with BrowserReader(fetcher, executable_path=chromium, timeout=15) as browser:
        chain = ReaderChain({"direct": DirectReader(fetcher), "browser": RenderedReader(browser, fetcher)})
        with pytest.raises(NeedsBrowserError):
            await chain.read(url, ReadRequest(url=url, reader="direct"))
        result = await chain.read(url, ReadRequest(url=url, reader="auto"))

    assert result.reader == "browser" and result.final_url == url
    assert f"# {ARTICLE_TITLE}" in result.extracted.text and ARTICLE_PARAGRAPHS[2] in result.extracted.text
    recorder.assert_clean()


@needs_chromium
async def test_top_level_navigation_to_a_private_address_fails_with_url_not_allowed(
    web: FakeWeb, fetcher: Fetcher, recorder: ConnectRecorder, trap: Trap, chromium: str
) -> None:
    base = f"http://news.test:{web.port}/_js"
    async with BrowserReader(fetcher, executable_path=chromium, timeout=15) as reader:
        with pytest.raises(UrlNotAllowedError) as direct:
            await reader.read("http://10.0.0.1/admin")
        with pytest.raises(UrlNotAllowedError) as redirected:
            await reader.read(f"{base}/redirect?" + urlencode({"hops": 1, "to": "http://169.254.169.254/"}))
        with pytest.raises(UrlNotAllowedError) as scripted:
            await reader.read(f"{base}/goto?" + urlencode({"to": f"{trap.base}/admin"}))
        page = await reader.read(f"{base}/redirect?" + urlencode({"hops": 1, "to": "/_js/article"}))

    recorder.assert_clean()
    assert (direct.value.rule, redirected.value.rule, scripted.value.rule) == ("private", "cloud_metadata", "loopback")
    assert trap.tcp_connections == 0
    # a redirected top-level navigation lands on the final URL itself, fetched once
    assert page.final_url == f"{base}/article" and len(page.redirects) == 2
    assert ARTICLE_PARAGRAPHS[0] in page.body.decode()
    assert Counter(r.path for r in web.requests(JS_ROUTE))["/_js/article"] == 1
    # by default images are not fetched at all, and the page's own private probes are still refused
    assert ("http://127.0.0.2:9/x.png", "skipped", "image") in {(b.url, b.reason, b.rule) for b in page.blocked}
    assert {"private", "cloud_metadata"} <= {b.rule for b in page.refused}


@needs_chromium
async def test_webrtc_and_websockets_cannot_reach_the_network(
    web: FakeWeb, fetcher: Fetcher, trap: Trap, chromium: str
) -> None:
    query = urlencode({"stun": f"{TRAP_HOST}:{trap.udp_port}", "ws": f"ws://{TRAP_HOST}:{trap.tcp_port}/socket"})
    async with BrowserReader(fetcher, executable_path=chromium, timeout=15) as reader:
        page = await reader.read(f"http://news.test:{web.port}/_js/webrtc?{query}")

    html = page.body.decode()
    assert "WebRTC gathering finished." in html and "WebSocket closed." in html
    assert trap.datagrams() == 0 and trap.tcp_connections == 0
    assert (f"ws://{TRAP_HOST}:{trap.tcp_port}/socket", "websocket") in {(b.url, b.rule) for b in page.refused}


@needs_chromium
async def test_chromium_with_the_readers_flags_reaches_nothing_even_without_interception(
    web: FakeWeb, trap: Trap, chromium: str
) -> None:
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import async_playwright

    sinkhole = socket.socket()
    sinkhole.bind(("127.0.0.1", 0))  # bound, never listening: the reader's own arrangement
    targets = [f"http://127.0.0.1:{web.port}/_js/article", f"http://localhost:{web.port}/_js/article", trap.base]
    failures = []
    try:
        async with async_playwright() as playwright:
            args = chromium_flags(sinkhole.getsockname()[1])
            browser = await playwright.chromium.launch(executable_path=chromium, args=args)
            page = await browser.new_page()  # no route: nothing here is intercepted
            for target in targets:
                with pytest.raises(PlaywrightError) as failed:
                    await page.goto(target, timeout=5000)
                failures.append(str(failed.value).split()[1])
            await browser.close()
    finally:
        sinkhole.close()
    assert len(failures) == len(targets) and all(reason.startswith("net::ERR_") for reason in failures)
    assert web.requests() == [] and trap.tcp_connections == 0


async def test_without_chromium_the_reader_says_so_with_a_typed_error(fetcher: Fetcher) -> None:
    reader = BrowserReader(fetcher, executable_path="/nonexistent/chromium")
    assert not reader.is_available()
    with pytest.raises(BrowserUnavailableError) as missing:
        await reader.read("http://news.test/")
    assert missing.value.code == "not_configured" and "Chromium" in str(missing.value)
    await reader.aclose()


async def test_non_http_urls_are_refused_before_any_browser_starts(fetcher: Fetcher) -> None:
    reader = BrowserReader(fetcher, executable_path="/nonexistent/chromium")
    for url in ("file:///etc/passwd", "chrome://settings", "javascript:alert(1)"):
        with pytest.raises(UrlNotAllowedError) as refused:
            await reader.read(url)
        assert refused.value.rule == "scheme"
