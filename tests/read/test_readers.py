"""Readers: direct (fetch, interstitials, extraction, wall detection on error pages), jina (never sent a private
URL; its errors typed) and the reader chain's fallback rules."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pytest

from net.harness import harness
from secret_keys import JINA_KEY
from webreach.errors import (
    ExtractionError,
    FetchTimeoutError,
    FetchUnavailableError,
    HttpStatusError,
    NeedsBrowserError,
    NotConfiguredError,
    PageBlockedError,
    RenderedEmptyError,
    UnsupportedContentError,
    UrlNotAllowedError,
    WebreachError,
)
from webreach.extract.extracted import Extracted
from webreach.models import ReadRequest
from webreach.net import AddressPolicy, Guard, StaticResolver
from webreach.read.readers import ReaderChain, ReadResult, as_fetch_error
from webreach.read.readers.direct import DirectReader, RenderedReader
from webreach.read.readers.jina import JinaReader
from webreach.testing.proxy import TestProxy

PUBLIC_DNS = {"public.test": "93.184.216.34", "private.test": "10.0.0.7", "sneaky.test": ("93.184.216.34", "127.0.0.1")}


def request(url: str = "http://site.test/", **fields: object) -> ReadRequest:
    return ReadRequest.create(url=url, **fields)


# --- direct ----------------------------------------------------------------------------------------------------

pytestmark = pytest.mark.network


async def test_direct_reads_an_article_as_markdown_with_metadata() -> None:
    async with harness() as h:
        result = await DirectReader(h.fetcher).read(h.url("article?title=Safe+reading"), request())
    assert result.reader == "direct"
    assert result.status == 200
    assert result.extracted.title == "Safe reading"
    assert "Paragraph 3 of the fake web article" in result.extracted.text
    assert "Footer links" not in result.extracted.text


async def test_direct_follows_redirects_and_interstitials() -> None:
    async with harness() as h:
        url = h.url("redirect?to=/_pages/meta-refresh%3Fto%3D/_pages/article")
        result = await DirectReader(h.fetcher).read(url, request())
    assert result.final_url == h.url("article")
    assert result.redirects == (h.url("meta-refresh?to=/_pages/article"), h.url("article"))


@pytest.mark.parametrize("status", [403, 503])
async def test_a_challenge_on_an_error_status_is_reported_as_blocked(status: int) -> None:
    async with harness() as h:
        with pytest.raises(PageBlockedError) as blocked:
            await DirectReader(h.fetcher).read(h.url(f"challenge?status={status}"), request())
    assert blocked.value.code in ("captcha", "blocked")
    assert blocked.value.url is not None


async def test_a_challenge_served_with_200_is_blocked_too() -> None:
    async with harness() as h:
        challenge = (await h.fetcher.fetch(h.url("challenge"), raise_for_status=False)).body
        h.web.pages.add("/_wall", challenge, headers={"content-type": "text/html"})
        with pytest.raises(PageBlockedError):
            await DirectReader(h.fetcher).read(h.url("/_wall"), request())


async def test_an_ordinary_error_page_is_an_http_error() -> None:
    async with harness() as h:
        with pytest.raises(HttpStatusError) as missing:
            await DirectReader(h.fetcher).read(h.url("status/404"), request())
    assert missing.value.status == 404


@pytest.mark.parametrize(
    ("page", "error"),
    [("binary", UnsupportedContentError), ("js-shell", NeedsBrowserError), ("/_empty", ExtractionError)],
)
async def test_extraction_failures_arrive_as_fetch_errors(page: str, error: type[WebreachError]) -> None:
    async with harness() as h:
        h.web.pages.add("/_empty", "<html><body></body></html>", headers={"content-type": "text/html"})
        with pytest.raises(error) as failed:
            await DirectReader(h.fetcher).read(h.url(page), request())
    assert getattr(failed.value, "url", None)


def test_as_fetch_error_only_fills_in_a_missing_url() -> None:
    unnamed, named = ExtractionError("empty"), PageBlockedError("wall", url="http://final.test/")
    assert as_fetch_error(unnamed, "http://site.test/") is unnamed and unnamed.url == "http://site.test/"
    assert as_fetch_error(named, "http://site.test/") is named and named.url == "http://final.test/"
    other = NotConfiguredError("off")
    assert as_fetch_error(other, "http://site.test/") is other


@dataclass
class StubPage:
    """A page as a renderer might leave it."""

    final_url: str
    status: int
    body: bytes
    content_type: str = "text/html"
    headers: Mapping[str, str] = field(default_factory=dict)
    redirects: tuple[str, ...] = ()


@dataclass
class StubRenderer:
    page: StubPage

    async def read(self, url: str, seconds: float | None = None) -> StubPage:
        return self.page

    async def aclose(self) -> None:
        return None


async def test_a_rendered_page_is_extracted_and_judged_like_a_fetched_one() -> None:
    article = ("<html><head><title>Rendered</title></head><body><article><p>" + "Rendered text. " * 40).encode()
    async with harness() as h:
        challenge = (await h.fetcher.fetch(h.url("challenge"), raise_for_status=False)).body
        url = "http://site.test/story"
        page = StubPage(url + "?final", 200, article, redirects=(url + "?final",))
        result = await RenderedReader(StubRenderer(page), h.fetcher).read(url, request(url))
        with pytest.raises(HttpStatusError) as missing:
            await RenderedReader(StubRenderer(StubPage(url, 404, article)), h.fetcher).read(url, request(url))
        with pytest.raises(PageBlockedError):
            await RenderedReader(StubRenderer(StubPage(url, 403, challenge)), h.fetcher).read(url, request(url))
    assert (result.reader, result.url, result.final_url, result.status) == ("browser", url, url + "?final", 200)
    assert result.redirects == (url + "?final",)
    assert "Rendered text." in result.extracted.text
    assert missing.value.status == 404 and missing.value.url == url


async def test_binary_labelled_html_is_refused_not_parsed() -> None:
    # F22: PNG bytes sent as text/html, and with no Content-Type at all
    async with harness() as h:
        png = b"\x89PNG\r\n\x1a\n" + bytes(200)
        h.web.pages.add("/_fake.html", png, headers={"content-type": "text/html"})
        h.web.pages.add("/_untyped", png, headers={"x-nothing": "1"})
        for path in ("/_fake.html", "/_untyped"):
            with pytest.raises(UnsupportedContentError):
                await DirectReader(h.fetcher).read(h.url(path), request())


async def test_an_unknown_charset_label_still_reads() -> None:
    # F23: the label is unknown to Python; decoding falls back instead of raising LookupError
    async with harness() as h:
        odd = ("<html><body><p>" + "Readable text despite the label. " * 30 + "</p></body></html>").encode()
        h.web.pages.add("/_odd", odd, headers={"content-type": "text/html; charset=x-unknown"})
        result = await DirectReader(h.fetcher).read(h.url("/_odd"), request())
    assert "Readable text despite the label." in result.extracted.text


async def test_markup_nested_thousands_deep_ends_cleanly() -> None:
    # F24: 3000 nested <div>s never crash the read (no RecursionError); libxml2 stops at depth 256, so today
    # the text under that depth is lost and the read ends in a typed extraction_failed
    async with harness() as h:
        text = "<p>" + "Deeply nested text. " * 30 + "</p>"
        deep = "<html><body>" + "<div>" * 3000 + text + "</div>" * 3000 + "</body></html>"
        h.web.pages.add("/_deep", deep, headers={"content-type": "text/html"})
        try:
            result = await DirectReader(h.fetcher).read(h.url("/_deep"), request())
        except ExtractionError as failed:
            assert failed.url is not None
        else:
            assert "Deeply nested text." in result.extracted.text


# --- jina ------------------------------------------------------------------------------------------------------


def jina(base_url: str, *, api_key: str | None = None) -> JinaReader:
    return JinaReader(Guard(AddressPolicy(), StaticResolver(PUBLIC_DNS)), base_url=base_url, api_key=api_key, timeout=2)


async def test_jina_reads_through_the_configured_base_url_with_the_key() -> None:
    async with harness() as h:
        reader = jina(f"{h.web.url}/_pages/jina", api_key=JINA_KEY)
        try:
            result = await reader.read("https://public.test/story?id=7", request(format="markdown"))
            text = await reader.read("https://public.test/story", request(format="text"))
        finally:
            await reader.aclose()
    sent = h.web.pages.requests
    assert result.reader == "jina"
    assert "https://public.test/story?id=7" in result.extracted.text
    assert result.extracted.title == "Read by the fake Jina"
    assert json.loads(sent[0].body) == {"url": "https://public.test/story?id=7"}
    assert sent[0].headers["authorization"] == f"Bearer {JINA_KEY}"
    assert sent[1].headers["x-return-format"] == "text"
    assert text.extracted.format == "text"


async def test_jina_rerouted_goes_through_the_new_proxy_and_closes_the_old_client() -> None:
    async with harness() as h, TestProxy() as proxy:
        reader = jina(f"{h.web.url}/_pages/jina")
        try:
            await reader.read("https://public.test/a", request())
            direct = reader._http()
            reader.reroute(proxy.url())
            await reader.read("https://public.test/b", request())
            assert proxy.targets() == [f"127.0.0.1:{h.web.port}"]
            assert direct.is_closed  # no read used it any more: closed by the next read, not left to the process
            reader.reroute(proxy.url())  # the same proxy again: the client stays
            assert not reader._http().is_closed
        finally:
            await reader.aclose()
    assert len(h.web.pages.requests) == 2


async def test_jina_is_keyless_without_a_key() -> None:
    async with harness() as h:
        reader = jina(f"{h.web.url}/_pages/jina")
        try:
            await reader.read("https://public.test/", request())
        finally:
            await reader.aclose()
    assert "authorization" not in h.web.pages.requests[0].headers


@pytest.mark.parametrize(
    "url", ["http://10.0.0.1/", "http://private.test/", "http://sneaky.test/", "http://169.254.169.254/", "file:///x"]
)
async def test_jina_is_never_sent_a_private_url(url: str) -> None:
    async with harness() as h:
        reader = jina(f"{h.web.url}/_pages/jina")
        try:
            with pytest.raises(UrlNotAllowedError):
                await reader.read(url, request("http://x.test/"))
        finally:
            await reader.aclose()
    assert h.web.pages.requests == []


@pytest.mark.parametrize(
    ("status", "error"),
    [(401, NotConfiguredError), (402, NotConfiguredError), (429, FetchUnavailableError),
     (451, PageBlockedError), (422, ExtractionError), (503, FetchUnavailableError)],
)  # fmt: skip
async def test_jina_errors_are_typed(status: int, error: type[WebreachError]) -> None:
    async with harness() as h:
        body = json.dumps({"code": status, "readableMessage": "nope"})
        h.web.pages.add(
            "/_jina/", body, status=status, headers={"content-type": "application/json", "retry-after": "7"}
        )
        reader = jina(f"{h.web.url}/_jina")
        try:
            with pytest.raises(error) as failed:
                await reader.read("https://public.test/", request())
        finally:
            await reader.aclose()
    if status == 429:
        assert failed.value.retry_after == 7.0


async def test_jina_that_cannot_be_reached_is_unavailable() -> None:
    reader = jina("http://127.0.0.1:9")  # nothing listens on the discard port
    try:
        with pytest.raises(FetchUnavailableError):
            await reader.read("https://public.test/", request())
    finally:
        await reader.aclose()


# --- the chain -------------------------------------------------------------------------------------------------


class Scripted:
    """A reader that fails with the given error, or answers."""

    def __init__(self, name: str, error: WebreachError | None = None) -> None:
        self.name = name
        self.error = error
        self.calls = 0

    async def read(self, url: str, request: ReadRequest, *, seconds: float | None = None) -> ReadResult:
        self.calls += 1
        if self.error is not None:
            raise self.error
        return ReadResult(url, url, 200, Extracted(f"read by {self.name}", "text/html"), self.name)


def chain(*readers: Scripted, order: Sequence[str] = ("direct", "browser", "jina")) -> ReaderChain:
    return ReaderChain({r.name: r for r in readers}, order)


@pytest.mark.parametrize(
    ("direct_error", "answered_by"),
    [
        (NeedsBrowserError("shell"), "browser"),
        (ExtractionError("empty"), "browser"),
        (PageBlockedError("wall", kind="captcha"), "jina"),
        (PageBlockedError("wall"), "jina"),
    ],
)
async def test_auto_moves_on_only_to_readers_that_can_help(direct_error: WebreachError, answered_by: str) -> None:
    readers = Scripted("direct", direct_error), Scripted("browser"), Scripted("jina")
    result = await chain(*readers).read("http://site.test/", request())
    assert result.reader == answered_by


@pytest.mark.parametrize(
    "error",
    [
        UrlNotAllowedError("no", rule="private"),
        FetchTimeoutError("slow"),
        HttpStatusError("gone", status=404),
        UnsupportedContentError("png", content_type="image/png"),
    ],
)
async def test_auto_does_not_retry_what_another_reader_would_not_change(error: WebreachError) -> None:
    direct, browser, reader_jina = Scripted("direct", error), Scripted("browser"), Scripted("jina")
    with pytest.raises(type(error)):
        await chain(direct, browser, reader_jina).read("http://site.test/", request())
    assert browser.calls == reader_jina.calls == 0


async def test_an_unavailable_browser_is_skipped_and_the_first_error_wins_when_all_fail() -> None:
    unavailable = NotConfiguredError("no chromium")
    readers = Scripted("direct", NeedsBrowserError("shell")), Scripted("browser", unavailable), Scripted("jina")
    assert (await chain(*readers).read("http://site.test/", request())).reader == "jina"
    failing = Scripted("direct", NeedsBrowserError("shell")), Scripted("browser", unavailable)
    with pytest.raises(NeedsBrowserError):
        await chain(*failing, Scripted("jina", FetchTimeoutError("slow"))).read("http://site.test/", request())


async def test_a_named_reader_is_used_alone_and_must_exist() -> None:
    direct, browser = Scripted("direct"), Scripted("browser")
    assert (await chain(direct, browser).read("http://site.test/", request(reader="browser"))).reader == "browser"
    assert direct.calls == 0
    with pytest.raises(NotConfiguredError):
        await chain(direct).read("http://site.test/", request(reader="jina"))


async def test_the_order_is_configurable() -> None:
    readers = Scripted("direct"), Scripted("jina")
    result = await chain(*readers, order=("jina", "direct")).read("http://site.test/", request())
    assert result.reader == "jina"


async def test_a_shell_the_browser_rendered_empty_is_reported_as_such_not_as_needs_browser() -> None:
    url = "http://site.test/app"
    shell = b"<html><head><title>App</title></head><body><div id='root'></div><script src='/app.js'></script></body>"
    async with harness() as h:
        rendered = RenderedReader(StubRenderer(StubPage(url, 200, shell)), h.fetcher)
        with pytest.raises(RenderedEmptyError) as caught:
            await rendered.read(url, request(url))
    assert caught.value.code == "rendered_empty" and "browser" not in caught.value.hint
    readers = Scripted("direct", NeedsBrowserError("shell")), Scripted("browser", caught.value)
    with pytest.raises(RenderedEmptyError):  # auto: the browser did what needs_browser asked; its finding wins
        await chain(*readers, Scripted("jina", FetchTimeoutError("slow"))).read(url, request())
