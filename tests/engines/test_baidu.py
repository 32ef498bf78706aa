"""Baidu against its real captures (result pages, captcha pages, a recorded redirect) and its request dialect."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from webreach.errors import BlockedError, ParseError
from webreach.models import SearchRequest
from webreach.testing import FakeClock

from .capture import assert_good_hits, make_engine, parse_capture

BAIDU = "serp/baidu"
BLOCKED = "serp/_blocked"

# capture -> organic results PROVENANCE.md counts (#content_left div.result.c-container)
RESULT_PAGES = {
    "baiduspider__test_web_baike-img.html": 8,
    "baiduspider__test_web_baike-none.html": 9,
    "baiduspider__test_web_baike-video.html": 4,
    "baiduspider__test_web_calc.html": 9,
    "baiduspider__test_web_news.html": 9,
    "baiduspider__test_web_normal.html": 8,
    "baiduspider__test_web_pages-single.html": 2,
    "baiduspider__test_web_pages.html": 8,
    # despite its name a results page: Baidu relaxed the over-long query and answered (PROVENANCE: 9)
    "gscraper__no_results_literal_baidu.html": 9,
}


@pytest.mark.parametrize(("capture", "expected"), RESULT_PAGES.items())
def test_real_results_pages_parse_to_their_organic_results(shared_data: Path, capture: str, expected: int) -> None:
    hits = parse_capture("baidu", shared_data / BAIDU / capture)
    assert_good_hits(hits)
    assert abs(len(hits) - expected) <= 2, (len(hits), expected)
    assert all(hit.url.startswith("http://www.baidu.com/link?url=") for hit in hits), "links stay Baidu redirects"


def test_cards_are_skipped_and_fields_are_read(shared_data: Path) -> None:
    hits = parse_capture("baidu", shared_data / BAIDU / "baiduspider__test_web_normal.html")
    # the baike card that leads the page and the video card that closes it are not organic
    assert not any("百度百科" in hit.title or "视频大全" in hit.title for hit in hits)
    first = hits[0]
    assert first.title == "Welcome to Python.org"  # the 官方 badge inside the h3 is not part of the title
    assert first.url == "http://www.baidu.com/link?url=yC-vpJc3cGCINc7SrFvV0A5-mBa3lrOseRMxZzZxXmlh1TqtxC8jgrOPHgSJi7_O"
    assert first.display_url == "www.python.org/"
    assert first.snippet.startswith("The official home of the Python Programming Language")
    assert hits[2].title == "Python 基础教程 | 菜鸟教程"
    assert hits[2].date == "2020-01-01"


def test_news_results_keep_publisher_and_resolve_relative_dates(shared_data: Path) -> None:
    # issue 41: "56分钟前" is the day it names, counted from when the engine answered (00:30 UTC: the day before)
    answered = FakeClock(datetime(2026, 11, 29, 0, 30, tzinfo=UTC).timestamp())
    hits = parse_capture("baidu", shared_data / BAIDU / "baiduspider__test_web_news.html", clock=answered)
    cdc = next(hit for hit in hits if hit.title.startswith("美疾控中心"))
    assert cdc.source == "国际在线"
    assert cdc.date == "2026-11-28"
    assert cdc.snippet.startswith("据美国媒体当地时间8月18日报道")
    assert not any("{" in (hit.source or "") for hit in hits), "inline CSS must not leak into text"


def test_legacy_2015_markup_reads_display_url_and_date(shared_data: Path) -> None:
    hits = parse_capture("baidu", shared_data / BAIDU / "gscraper__no_results_literal_baidu.html")
    assert hits[0].title.startswith("德语文摘(犯罪,惊悚,悬疑,动作):Besser nie als spät")
    assert hits[0].display_url == "de.tingroom.com/yuedu/..."
    assert hits[0].date == "2012-02-24"


@pytest.mark.parametrize(
    "capture",
    [
        "bisohns-sep__30464b2__baidu-synopsis-CAPTCHA.body.html",
        "bisohns-sep__3e39d1a__baidu-synopsis-CAPTCHA.body.html",
    ],
)
def test_real_security_check_pages_are_captchas(shared_data: Path, capture: str) -> None:
    with pytest.raises(BlockedError) as caught:
        parse_capture("baidu", shared_data / BLOCKED / capture)
    assert caught.value.code == "captcha"


def test_recorded_redirect_to_wappass_is_a_captcha(shared_data: Path) -> None:
    cassette = (shared_data / BLOCKED / "bisohns-sep__3e39d1a__baidu-synopsis-CAPTCHA.yaml").read_text("utf-8")
    # the first interaction is Baidu's own 302; its Location names the captcha
    location = re.search(r"^\s+Location: (\S+)$", cassette, re.MULTILINE)
    assert location is not None and "wappass.baidu.com" in location[1]
    engine = make_engine("baidu")
    request = engine.build_request(SearchRequest(query="Preaching the choir"))
    response = httpx.Response(302, headers={"location": location[1]}, request=request)
    with pytest.raises(BlockedError) as caught:
        engine.handle(response)
    assert caught.value.code == "captcha"


def test_empty_page_loading_the_wappass_check_is_a_captcha() -> None:
    engine = make_engine("baidu")
    html = '<html><body><script src="https://wappass.baidu.com/static/machine/js/api/mkd.js"></script></body></html>'
    with pytest.raises(BlockedError) as caught:
        engine.handle(httpx.Response(200, html=html))
    assert caught.value.code == "captcha"


def test_other_redirects_are_plain_blocks() -> None:
    engine = make_engine("baidu")
    response = httpx.Response(302, headers={"location": "https://www.baidu.com/"})
    with pytest.raises(BlockedError) as caught:
        engine.handle(response)
    assert caught.value.code == "blocked"


def test_request_maps_page_limit_and_site() -> None:
    engine = make_engine("baidu")
    first = engine.build_request(SearchRequest(query="python asyncio"))
    assert first.url.host == "www.baidu.com" and first.url.path == "/s"
    assert first.url.params["wd"] == "python asyncio"
    assert first.url.params["pn"] == "0"
    assert first.url.params["rn"] == "10"
    assert first.url.params["ie"] == "utf-8"
    assert first.headers["referer"] == "https://www.baidu.com/"
    assert first.headers["accept-language"].startswith("zh-CN")
    third = engine.build_request(SearchRequest(query="异步", page=3, limit=20, site="python.org"))
    assert third.url.params["wd"] == "异步 site:python.org"
    assert third.url.params["rn"] == "20"
    assert third.url.params["pn"] == "40"


def test_locale_is_reported_unsupported() -> None:
    engine = make_engine("baidu")
    request = SearchRequest(query="q", freshness="week", language="zh", region="cn", safesearch="off", page=2)
    assert set(engine.unsupported(request)) == {"language", "region", "safesearch"}


def test_freshness_is_a_unix_time_window_ending_at_the_engine_clock() -> None:
    engine = make_engine("baidu", clock=FakeClock(1_700_000_000))
    week = engine.build_request(SearchRequest(query="q", freshness="week"))
    day = engine.build_request(SearchRequest(query="q", freshness="day"))
    assert week.url.params["gpc"] == "stf=1699395200,1700000000|stftype=1"
    assert day.url.params["gpc"] == "stf=1699913600,1700000000|stftype=1"
    assert "gpc" not in engine.build_request(SearchRequest(query="q")).url.params


def test_page_without_results_or_notice_is_a_parse_error() -> None:
    engine = make_engine("baidu")
    response = httpx.Response(200, html="<html><body><div id='content_left'></div></body></html>")
    with pytest.raises(ParseError):
        engine.handle(response)
