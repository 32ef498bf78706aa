"""Yahoo against its real captures and its request dialect."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, quote

import httpx
import pytest

from webreach.engines.yahoo import decode_redirect
from webreach.errors import BlockedError, ParseError
from webreach.models import SearchRequest
from webreach.testing import FakeClock

from .capture import assert_good_hits, make_engine, parse_capture

ANSWERED = FakeClock(datetime(2026, 11, 30, 12, 0, tzinfo=UTC).timestamp())  # when the engine answered


def cookie(request: httpx.Request) -> dict[str, str]:
    name, _, value = request.headers["cookie"].partition("=")
    assert name == "sB"
    return {k: v[0] for k, v in parse_qs(value).items()}


def test_real_current_results_page_parses_to_its_organic_results(shared_data: Path) -> None:
    hits = parse_capture("yahoo", shared_data / "serp/yahoo/wsmcp__yahoo.html", clock=ANSWERED)
    assert_good_hits(hits)
    assert len(hits) == 7
    assert hits[0].url == "https://www.w3schools.com/Js/"
    assert hits[0].title == "JavaScript Tutorial - W3Schools"
    assert hits[0].source == "W3School"
    assert hits[0].display_url == "https://www.w3schools.com › Js"
    assert hits[2].url == "https://www.geeksforgeeks.org/javascript/javascript-tutorial/"
    assert hits[2].date == "2026-03-13"
    assert hits[2].snippet.startswith("JavaScript provides a versatile set")  # the date prefix is split off
    assert hits[4].date == "2026-11-28"  # "2 days ago", counted from when the engine answered (issue 41)


def test_real_2015_page_decodes_its_ru_redirects(shared_data: Path) -> None:
    # PROVENANCE: saved as a "no results" page, but Yahoo shows results for the relaxed query
    hits = parse_capture("yahoo", shared_data / "serp/yahoo/gscraper__no_results_literal_yahoo.html")
    assert_good_hits(hits)
    assert len(hits) == 10
    assert hits[0].url == "http://www.gutefrage.net/frage/wann-hoert-meinungsfreiheit-bzw-redefreiheit-auf"
    assert hits[0].title == "Wann hört Meinungsfreiheit bzw. Redefreiheit auf? (Grundgesetz, Islam ..."
    assert hits[0].display_url == "www.gutefrage.net/frage/wann-hoert-meinungsfreiheit-bzw..."
    assert not any("yahoo.com" in hit.url for hit in hits)


def test_ru_redirect_decoding() -> None:
    target = "https://example.org/a b?x=1&y=2"
    href = f"https://r.search.yahoo.com/_ylt=Awr;_ylu=Y29s/RV=2/RE=17850/RO=10/RU={quote(target, safe='')}/RK=2/RS=kq-"
    assert decode_redirect(href, "https://search.yahoo.com/search") == target
    assert decode_redirect("https://example.com/x", "https://search.yahoo.com/search") == "https://example.com/x"


def test_parameters_map_to_yahoo() -> None:
    engine = make_engine("yahoo")
    first = engine.build_request(SearchRequest(query="rust async", limit=7))
    assert first.url.params["p"] == "rust async"
    assert first.url.params["pz"] == "7"
    assert "b" not in first.url.params
    assert cookie(first)["vm"] == "i" and cookie(first)["vl"] == "lang_any"
    third = engine.build_request(
        SearchRequest(
            query="rust async", limit=7, page=3, site="docs.rs", freshness="day", safesearch="strict", language="zh"
        )
    )
    assert third.url.params["b"] == "15"
    assert third.url.params["p"] == "rust async site:docs.rs"
    assert third.url.params["btf"] == "d"
    assert cookie(third)["vm"] == "r"
    assert cookie(third)["vl"] == "lang_zh_chs"
    assert cookie(engine.build_request(SearchRequest(query="q", language="de", safesearch="off"))) == {
        "v": "1",
        "vm": "p",
        "fl": "1",
        "vl": "lang_de",
        "pn": "10",
    }


def test_year_freshness_and_region_are_reported_unsupported() -> None:
    engine = make_engine("yahoo")
    request = SearchRequest(query="q", freshness="year", region="de")
    assert "btf" not in engine.build_request(request).url.params
    assert set(engine.unsupported(request)) == {"freshness", "region"}


def test_error_999_and_the_consent_wall_are_blocks() -> None:
    engine = make_engine("yahoo")
    request = engine.build_request(SearchRequest(query="q"))
    ban = httpx.Response(999, text="Sorry, Unable to process request at this time -- error 999.", request=request)
    consent = httpx.Response(302, headers={"location": "https://guce.yahoo.com/consent?gcrumb=x"}, request=request)
    wall = httpx.Response(
        200,
        text='<form method="post" action="https://consent.yahoo.com/v2/collectConsent?sessionId=3">',
        request=request,
    )
    for response in (ban, consent, wall):
        with pytest.raises(BlockedError) as caught:
            engine.handle(response)
        assert caught.value.code == "blocked"


def test_a_page_without_results_or_notice_is_a_parse_error() -> None:
    engine = make_engine("yahoo")
    request = engine.build_request(SearchRequest(query="q"))
    with pytest.raises(ParseError):
        engine.handle(httpx.Response(200, text="<html><body><div id='web'></div></body></html>", request=request))
