"""360 Search: no real captures exist, so these test the documented shape, the warm-up cookie and the dialect."""

from __future__ import annotations

import httpx
import pytest

from webreach.errors import BlockedError, ParseError
from webreach.models import SearchRequest
from webreach.testing.recordings import engine_recordings

from .capture import make_engine


def test_results_use_data_mdurl_and_skip_ads() -> None:
    engine = make_engine("so360")
    request = engine.build_request(SearchRequest(query="python asyncio"))
    hits = engine.handle(engine_recordings("so360")["results"].to_response(request))
    assert [hit.url for hit in hits] == [
        "https://docs.python.org/zh-cn/3/library/asyncio.html",
        "https://www.liaoxuefeng.com/wiki/1016959663602400/1017970488768640",
        "https://www.runoob.com/python3/python-asyncio.html",
        "https://www.cnblogs.com/example/p/asyncio-loop.html",
    ]
    assert hits[0].title == "asyncio --- 异步 I/O — Python 3 文档"
    assert hits[1].date == "2023-11-02"
    assert hits[0].display_url == "docs.python.org/zh-cn/3/library/asyncio.html"


def test_href_is_used_when_data_mdurl_is_missing() -> None:
    engine = make_engine("so360")
    request = engine.build_request(SearchRequest(query="q"))
    html = '<ul><li class="res-list"><h3 class="res-title"><a href="/link?m=abc">T</a></h3></li></ul>'
    hits = engine.handle(httpx.Response(200, html=html, request=request))
    assert hits[0].url == "https://www.so.com/link?m=abc"


def test_empty_body_is_a_block() -> None:
    engine = make_engine("so360")
    with pytest.raises(BlockedError) as caught:
        engine.handle(httpx.Response(200, content=b"  \n"))
    assert caught.value.code == "blocked"


def test_warm_up_fetches_the_search_and_keeps_the_first_cookie_pair() -> None:
    engine = make_engine("so360")
    request = SearchRequest(query="python asyncio", page=2)
    warm = engine.warm_up(request)
    assert warm is not None
    assert warm.url == engine.build_request(request).url
    assert "cookie" not in warm.headers
    response = httpx.Response(
        302,
        headers=[
            ("set-cookie", "QiHooGUID=ABC.123; path=/; domain=.so.com"),
            ("set-cookie", "so_huid=zzz; path=/"),
        ],
    )
    tokens = engine.read_warm_up(response)
    assert tokens == {"cookie": "QiHooGUID=ABC.123"}
    assert engine.build_request(request, tokens).headers["cookie"] == "QiHooGUID=ABC.123"
    assert engine.warm_up_key(request) == engine.warm_up_key(SearchRequest(query="other"))


def test_warm_up_without_cookie_yields_no_token() -> None:
    engine = make_engine("so360")
    assert engine.read_warm_up(httpx.Response(200, html="<html></html>")) == {}
    assert "cookie" not in engine.build_request(SearchRequest(query="q"), {}).headers


def test_request_maps_page_site_and_freshness() -> None:
    engine = make_engine("so360")
    first = engine.build_request(SearchRequest(query="python asyncio"))
    assert first.url.host == "www.so.com" and first.url.path == "/s"
    assert first.url.params["q"] == "python asyncio"
    assert first.url.params["pn"] == "1"
    assert "adv_t" not in first.url.params
    later = engine.build_request(SearchRequest(query="异步", page=3, site="python.org", freshness="month"))
    assert later.url.params["q"] == "异步 site:python.org"
    assert later.url.params["pn"] == "3"
    assert later.url.params["adv_t"] == "m"


def test_unsupported_parameters_are_reported() -> None:
    engine = make_engine("so360")
    request = SearchRequest(query="q", language="zh", region="cn", safesearch="off", page=2)
    assert set(engine.unsupported(request)) == {"language", "region", "safesearch"}


def test_captcha_redirect() -> None:
    engine = make_engine("so360")
    response = httpx.Response(302, headers={"location": "https://www.so.com/captcha?from=x"})
    with pytest.raises(BlockedError) as caught:
        engine.handle(response)
    assert caught.value.code == "captcha"


def test_page_without_results_or_notice_is_a_parse_error() -> None:
    engine = make_engine("so360")
    with pytest.raises(ParseError):
        engine.handle(httpx.Response(200, html="<html><body><ul class='result'></ul></body></html>"))
