"""Sogou against its real captures (WeChat vertical pages, the antispider page) and its request dialect."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from webreach.errors import BlockedError, ParseError
from webreach.models import SearchRequest
from webreach.testing.recordings import engine_recordings

from .capture import assert_good_hits, make_engine, parse_capture

SOGOU = "serp/sogou"


def test_real_wechat_article_page_parses_to_its_ten_results(shared_data: Path) -> None:
    hits = parse_capture("sogou", shared_data / SOGOU / "wechatsogou__search-gaokao-article.html")
    assert_good_hits(hits)
    assert len(hits) == 10
    first = hits[0]
    assert first.title == "高考有多重要,为什么要重视高考?丨微观点"
    assert first.url.startswith("http://mp.weixin.qq.com/s?src=3&timestamp=1500052504&ver=1&signature=VqOGyWi")
    assert first.source == "占豪"
    assert first.date == "2017-07-01"  # div.s-p t=1498908951, in China time
    assert first.snippet.startswith("针对这个问题,其实占豪已经谈过")


def test_real_wechat_account_page_parses_to_its_ten_results(shared_data: Path) -> None:
    hits = parse_capture("sogou", shared_data / SOGOU / "wechatsogou__search-gaokao-gzh.html")
    assert_good_hits(hits)
    assert len(hits) == 10
    assert hits[0].title == "山东高考指南"
    assert hits[0].url.startswith("http://mp.weixin.qq.com/profile?src=3&timestamp=1500827209")
    assert hits[0].snippet.startswith("这里是山东最权威最专业的高考交流平台")
    assert all("document.write" not in hit.snippet for hit in hits)


def test_real_antispider_page_is_a_captcha(shared_data: Path) -> None:
    with pytest.raises(BlockedError) as caught:
        parse_capture("sogou", shared_data / "serp/_blocked/wechatsogou__sogou_antispider_captcha.html")
    assert caught.value.code == "captcha"


def test_redirect_to_antispider_is_a_captcha_and_others_are_blocks() -> None:
    engine = make_engine("sogou")
    antispider = httpx.Response(302, headers={"location": "http://www.sogou.com/antispider/?from=%2Fweb"})
    with pytest.raises(BlockedError) as caught:
        engine.handle(antispider)
    assert caught.value.code == "captcha"
    elsewhere = httpx.Response(302, headers={"location": "https://www.sogou.com/"})
    with pytest.raises(BlockedError) as caught:
        engine.handle(elsewhere)
    assert caught.value.code == "blocked"


def test_link_redirects_decode_through_data_url_and_ads_are_skipped() -> None:
    engine = make_engine("sogou")
    request = engine.build_request(SearchRequest(query="python asyncio"))
    hits = engine.handle(engine_recordings("sogou")["results"].to_response(request))
    assert [hit.url for hit in hits] == [
        "https://docs.python.org/zh-cn/3/library/asyncio.html",
        "https://www.liaoxuefeng.com/wiki/1016959663602400/1017970488768640",
        "https://zhuanlan.zhihu.com/p/137057192",
        "https://www.runoob.com/python3/python-asyncio.html",
    ]
    assert hits[0].date == "2024-03-08"
    assert hits[0].display_url == "docs.python.org"
    assert hits[1].display_url == "www.liaoxuefeng.com"
    assert hits[1].date == "2023-11-02"


def test_link_without_data_url_stays_an_absolute_sogou_redirect() -> None:
    engine = make_engine("sogou")
    request = engine.build_request(SearchRequest(query="q"))
    html = '<div class="rb"><h3 class="pt"><a href="/link?url=abc123">Title</a></h3><div class="ft">s</div></div>'
    hits = engine.handle(httpx.Response(200, html=html, request=request))
    assert hits[0].url == "https://www.sogou.com/link?url=abc123"


def test_request_maps_page_site_and_freshness() -> None:
    engine = make_engine("sogou")
    first = engine.build_request(SearchRequest(query="python asyncio"))
    assert first.url.host == "www.sogou.com" and first.url.path == "/web"
    assert first.url.params["query"] == "python asyncio"
    assert first.url.params["page"] == "1"
    assert "s_from" not in first.url.params
    later = engine.build_request(SearchRequest(query="异步", page=2, site="python.org", freshness="week"))
    assert later.url.params["query"] == "异步 site:python.org"
    assert later.url.params["page"] == "2"
    assert later.url.params["s_from"] == "inttime_week"
    assert later.url.params["tsn"] == "1"


def test_unsupported_parameters_are_reported() -> None:
    engine = make_engine("sogou")
    request = SearchRequest(query="q", language="zh", region="cn", safesearch="strict", freshness="day")
    assert set(engine.unsupported(request)) == {"language", "region", "safesearch"}


def test_page_without_results_or_notice_is_a_parse_error() -> None:
    engine = make_engine("sogou")
    with pytest.raises(ParseError):
        engine.handle(httpx.Response(200, html="<html><body><div class='results'></div></body></html>"))
