"""Bing against its real captures and its request dialect."""

from __future__ import annotations

import base64
from pathlib import Path

import httpx
import pytest

from webreach import engines
from webreach.config import EngineSettings
from webreach.engines.bing import decode_click_url
from webreach.errors import BlockedError
from webreach.models import SearchRequest
from webreach.testing import FakeClock

from .capture import assert_good_hits, make_engine, parse_capture

# file, organic results (PROVENANCE), first hit's URL, first hit's title
RESULT_PAGES = [
    (
        "celina__bing.html",
        10,
        "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep",
        "Caffeine and Sleep Problems",
    ),
    # PROVENANCE: saved as a "no results" page, but Bing shows results for the relaxed query
    (
        "gscraper__no_results_literal_bing.html",
        10,
        "http://www.gutefrage.net/frage/wann-hoert-meinungsfreiheit-bzw-redefreiheit-auf",
        "Wann hört Meinungsfreiheit bzw. …",
    ),
    ("serpparser__bing-nojs_bing-nojs.html", 10, "https://www.bing.com/", "Bing"),
    ("serpparser__bing-nojs_bing50-nojs.html", 32, "https://www.bing.com/", "Bing"),
    (
        "serpparser__bing-nojs_coffee-nojs.html",
        4,
        "http://www.wordreference.com/es/translation.asp?tranword=coffee",
        "coffee - English-Spanish Dictionary - …",
    ),
    (
        "serpparser__bing-nojs_domain-nojs.html",
        4,
        "https://www.domain.com/",
        "Website Domains Names & Hosting | Domain.com",
    ),
    (
        "serpparser__bing-nojs_hotels-nojs.html",
        4,
        "https://www.tripadvisor.com/Hotels-g60763-New_York_City_New_York-Hotels.html",
        "THE 10 BEST Hotels in New York City for 2021 (from $83 ...",
    ),
    (
        "serpparser__bing-nojs_matrix-nojs.html",
        5,
        "https://es.wikipedia.org/wiki/The_Matrix",
        "The Matrix - Wikipedia, la enciclopedia libre",
    ),
    ("wsmcp__http-bing.html", 10, "https://www.w3schools.com/Js/", "JavaScript Tutorial - W3Schools"),
]


def a1(url: str) -> str:
    return "a1" + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


@pytest.mark.parametrize(("file", "expected", "first_url", "first_title"), RESULT_PAGES)
def test_real_results_pages_parse_to_their_organic_results(
    shared_data: Path, file: str, expected: int, first_url: str, first_title: str
) -> None:
    hits = parse_capture("bing", shared_data / "serp/bing" / file)
    assert_good_hits(hits)
    assert len(hits) == expected
    assert hits[0].url == first_url
    assert hits[0].title == first_title
    assert not any("/ck/a?" in hit.url for hit in hits), "click trackers are decoded"


def test_click_trackers_decode_and_the_date_line_becomes_a_date(shared_data: Path) -> None:
    hits = parse_capture("bing", shared_data / "serp/bing/celina__bing.html")
    first = hits[0]
    assert first.date == "2025-07-16"
    assert first.snippet.startswith("Drinking caffeine too close to bedtime")
    assert first.display_url == "https://www.sleepfoundation.org › nutrition › caffeine"
    assert first.source == "sleepfoundation.org"
    assert hits[4].date is None  # no date line on this result
    assert hits[9].url == "https://sleep.me/post/caffeine-and-sleep"


def test_genuine_no_results_page_yields_nothing(shared_data: Path) -> None:
    assert parse_capture("bing", shared_data / "serp/bing/serpparser__bing-nojs_no-results-nojs.html") == []


def test_one_last_step_challenge_is_a_captcha(shared_data: Path) -> None:
    with pytest.raises(BlockedError) as caught:
        parse_capture("bing", shared_data / "serp/_blocked/wsmcp__bing_CHALLENGE_one_last_step.html")
    assert caught.value.code == "captcha"


def test_redirect_to_the_turing_captcha_is_a_captcha_other_redirects_are_blocks() -> None:
    engine = make_engine("bing")
    request = engine.build_request(SearchRequest(query="q"))
    challenge = httpx.Response(
        302, headers={"location": "https://www.bing.com/turing/captcha/challenge"}, request=request
    )
    elsewhere = httpx.Response(302, headers={"location": "https://example.com/"}, request=request)
    with pytest.raises(BlockedError) as caught:
        engine.handle(challenge)
    assert caught.value.code == "captcha"
    with pytest.raises(BlockedError) as caught:
        engine.handle(elsewhere)
    assert caught.value.code == "blocked"


def test_page_count_site_freshness_and_safesearch_map_to_bing_parameters() -> None:
    engine = make_engine("bing")
    first = engine.build_request(SearchRequest(query="rust async", limit=20))
    assert first.url.params["count"] == "20"
    assert "first" not in first.url.params
    assert first.url.params["adlt"] == "moderate"
    third = engine.build_request(
        SearchRequest(query="rust async", limit=20, page=3, site="docs.rs", freshness="week", safesearch="off")
    )
    assert third.url.params["first"] == "41"
    assert third.url.params["q"] == "rust async site:docs.rs"
    assert third.url.params["filters"] == 'ex1:"ez2"'
    assert third.url.params["adlt"] == "off"
    day = engine.build_request(SearchRequest(query="q", freshness="day"))
    month = engine.build_request(SearchRequest(query="q", freshness="month"))
    assert (day.url.params["filters"], month.url.params["filters"]) == ('ex1:"ez1"', 'ex1:"ez3"')


def test_year_freshness_is_a_range_of_days_since_the_epoch_by_the_engine_clock() -> None:
    engine = make_engine("bing", clock=FakeClock(1_700_000_000))  # day 19675 since the epoch
    request = SearchRequest(query="q", freshness="year")
    assert engine.build_request(request).url.params["filters"] == 'ex1:"ez5_19310_19675"'
    assert engine.unsupported(request) == ()


def test_language_and_region_become_a_market() -> None:
    engine = make_engine("bing")
    both = engine.build_request(SearchRequest(query="q", language="en", region="gb"))
    assert (both.url.params["mkt"], both.url.params["setlang"], both.url.params["cc"]) == ("en-GB", "en", "GB")
    assert both.headers["accept-language"].startswith("en-GB")
    language = engine.build_request(SearchRequest(query="q", language="de"))
    assert language.url.params["setlang"] == "de" and "mkt" not in language.url.params
    region = engine.build_request(SearchRequest(query="q", region="fr"))
    assert region.url.params["cc"] == "FR" and "mkt" not in region.url.params


def test_china_goes_to_cn_bing_com_unless_a_base_url_is_configured() -> None:
    by_host = engines.create("bing", EngineSettings(options={"host": "cn.bing.com"}))
    by_market = engines.create("bing", EngineSettings(options={"market": "zh-CN"}))
    default = make_engine("bing")
    assert str(by_host.build_request(SearchRequest(query="q")).url).startswith("https://cn.bing.com/search?")
    market_request = by_market.build_request(SearchRequest(query="q"))
    assert market_request.url.host == "cn.bing.com"
    assert market_request.url.params["mkt"] == "zh-CN"
    assert default.build_request(SearchRequest(query="q", region="cn")).url.host == "cn.bing.com"
    assert default.build_request(SearchRequest(query="q")).url.host == "www.bing.com"
    mirror = engines.create(
        "bing", EngineSettings(base_url="http://127.0.0.1:8080/bing", options={"host": "cn.bing.com"})
    )
    for request in (SearchRequest(query="q"), SearchRequest(query="q", region="cn")):
        assert str(mirror.build_request(request).url).startswith("http://127.0.0.1:8080/bing/search?")


def test_click_tracker_decoding_on_any_bing_host() -> None:
    target = "https://example.org/a path?x=1&y=ü"
    for host in ("https://www.bing.com", "https://cn.bing.com"):
        assert decode_click_url(f"{host}/ck/a?!&&p=abc&u={a1(target)}&ntb=1", "https://www.bing.com") == target
    assert decode_click_url(f"/ck/a?!&&p=abc&u={a1(target)}", "https://cn.bing.com") == target
    assert decode_click_url("/ck/a?u=a1%%%", "https://www.bing.com") == "https://www.bing.com/ck/a?u=a1%%%"
    assert decode_click_url("https://example.com/x", "https://www.bing.com") == "https://example.com/x"
