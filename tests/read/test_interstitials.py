"""Interstitials: meta refresh, script redirects and Baidu's /link?url= resolved hop by hop through the guard."""

from __future__ import annotations

import httpx
import pytest

from net.harness import harness
from webreach.errors import TooManyRedirectsError, UrlNotAllowedError
from webreach.net.fetcher import Fetched
from webreach.read.interstitials import Interstitials, interstitial_target


def page(body: str, *, url: str = "http://site.test/start", content_type: str = "text/html") -> Fetched:
    return Fetched(url, url, 200, httpx.Headers(), body.encode(), content_type)


@pytest.mark.parametrize(
    ("body", "target"),
    [
        ('<meta http-equiv="refresh" content="0; url=/next">', "http://site.test/next"),
        (
            "<META HTTP-EQUIV=Refresh CONTENT=\"0;URL='http://other.test/a?b=1&amp;c=2'\">",
            "http://other.test/a?b=1&c=2",
        ),
        ('<meta content="3;https://other.test/" http-equiv="refresh">', "https://other.test/"),
        ('<script>location.href = "/next";</script>', "http://site.test/next"),
        ("<script>window.location.replace('http:\\/\\/other.test\\/x\\x3fa=1')</script>", "http://other.test/x?a=1"),
        ('<script>document.location = "//other.test/p"</script>', "http://other.test/p"),
        ('<script>top.location.assign("next#frag")</script>', "http://site.test/next"),
    ],
)
def test_redirect_pages_name_their_target(body: str, target: str) -> None:
    assert interstitial_target(page(f"<html><head>{body}</head><body></body></html>")) == target


@pytest.mark.parametrize(
    "body",
    [
        '<meta http-equiv="refresh" content="300">',  # a reload timer, no target
        '<meta http-equiv="refresh" content="600; url=/next">',  # too slow to be a door
        '<meta http-equiv="refresh" content="0; url=/start">',  # refreshes itself
        '<script>location.href = "javascript:void(0)"</script>',
        "<script>var here = window.location.pathname; location.href = here + '?x';</script>",  # not a literal
        '<a href="/next">a link is not a redirect</a>',
    ],
)
def test_pages_that_do_not_send_the_reader_on(body: str) -> None:
    assert interstitial_target(page(f"<html><head>{body}</head><body></body></html>")) is None


def test_a_real_page_with_a_redirect_script_is_content() -> None:
    text = "<p>" + "A paragraph of real content. " * 40 + "</p>"
    body = f'<html><head><script>location.href="/next"</script></head><body>{text}</body></html>'
    assert interstitial_target(page(body)) is None


def test_only_small_html_pages_are_looked_at() -> None:
    assert (
        interstitial_target(page('<meta http-equiv="refresh" content="0;url=/n">', content_type="text/plain")) is None
    )
    padding = "<!--" + "x" * 70_000 + "-->"
    assert interstitial_target(page(f'<meta http-equiv="refresh" content="0;url=/n">{padding}')) is None


@pytest.mark.network
@pytest.mark.parametrize(
    "door",
    [
        "meta-refresh?to=/_pages/article",
        "js-redirect?to=/_pages/article",
        "js-redirect?to=/_pages/article&style=replace",
        "js-redirect?to=/_pages/article&style=assign",
        "baidu-link?to=/_pages/article&style=js",
        "baidu-link?to=/_pages/article&style=meta",
        "baidu-link?to=/_pages/article",  # the 302 form: the fetcher follows it
    ],
)
async def test_interstitials_are_followed_to_the_page(door: str) -> None:
    async with harness() as h:
        doors = Interstitials(h.fetcher)
        first = await h.fetcher.fetch(h.url(door))
        landed = await doors.follow(first)
    assert landed.url == h.url(door)
    assert landed.final_url == h.url("article")
    assert landed.redirects[-1] == h.url("article")
    assert b"fake web article" in landed.body


@pytest.mark.network
async def test_each_interstitial_hop_goes_through_the_guard() -> None:
    async with harness() as h:
        doors = Interstitials(h.fetcher)
        for target in ("http://169.254.169.254/latest/meta-data/", "http://private.test/", "http://[::1]/"):
            first = await h.fetcher.fetch(h.url(f"meta-refresh?to={target}"))
            with pytest.raises(UrlNotAllowedError):
                await doors.follow(first)
    assert {address for address, _ in h.recorder.dials} == {"127.0.0.1"}


@pytest.mark.network
async def test_interstitial_loops_and_long_chains_end() -> None:
    async with harness() as h:
        for name, to in (("a", "b"), ("b", "a"), ("c1", "c2"), ("c2", "c3"), ("c3", "c4"), ("c4", "c5")):
            body = f"<html><head><meta http-equiv='refresh' content='0;url=/_door/{to}'></head></html>"
            h.web.pages.add(f"/_door/{name}", body, headers={"content-type": "text/html"})
        h.web.pages.add("/_door/c5", "<html><body><p>the end</p></body></html>", headers={"content-type": "text/html"})
        doors = Interstitials(h.fetcher, max_hops=3)
        with pytest.raises(TooManyRedirectsError):
            await doors.follow(await h.fetcher.fetch(h.url("/_door/a")))
        with pytest.raises(TooManyRedirectsError):
            await doors.follow(await h.fetcher.fetch(h.url("/_door/c1")))
        landed = await Interstitials(h.fetcher, max_hops=4).follow(await h.fetcher.fetch(h.url("/_door/c1")))
    assert landed.final_url == h.url("/_door/c5")


@pytest.mark.network
@pytest.mark.parametrize("style", ["302", "js", "meta"])
async def test_a_baidu_link_resolves_without_reading_the_target(style: str) -> None:
    async with harness() as h:
        target = f"http://other.test:{h.web.port}/_pages/article"
        link = h.url(f"/link?url=opaque&style={style}", host="www.baidu.com")
        if style == "302":
            h.web.pages.add("/link", b"", status=302, headers={"location": target})
        else:
            h.web.pages.add("/link", _baidu_page(target, style), headers={"content-type": "text/html"})
        resolved = await Interstitials(h.fetcher).resolve_link(link)
    assert resolved == target
    assert [r.host for r in h.web.pages.requests] == ["www.baidu.com"]  # the target itself was not fetched


@pytest.mark.network
async def test_a_baidu_link_to_an_internal_host_is_refused() -> None:
    async with harness() as h:
        h.web.pages.add("/link", b"", status=302, headers={"location": "http://10.1.2.3/admin"})
        with pytest.raises(UrlNotAllowedError):
            await Interstitials(h.fetcher).resolve_link(h.url("/link?url=x", host="www.baidu.com"))


@pytest.mark.network
async def test_a_plain_page_resolves_to_itself() -> None:
    async with harness() as h:
        assert await Interstitials(h.fetcher).resolve_link(h.url("article")) == h.url("article")


def _baidu_page(target: str, style: str) -> str:
    script = f'<script>window.location.replace("{target}")</script>' if style == "js" else ""
    meta = f'<noscript><META http-equiv="refresh" content="0;URL=\'{target}\'"></noscript>'
    return f'<html><head><meta content="always" name="referrer">{script}{meta}</head><body></body></html>'
