"""Brave (search.brave.com, keyless) against its real captures and its request dialect."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from webreach.errors import BlockedError, ParseError, WebreachError
from webreach.models import SearchRequest
from webreach.testing import FakeClock

from .capture import assert_good_hits, make_engine, parse_capture

ANSWERED = FakeClock(datetime(2026, 11, 30, 12, 0, tzinfo=UTC).timestamp())  # when the engine answered


def test_real_results_page_parses_to_its_organic_results(shared_data: Path) -> None:
    hits = parse_capture("brave", shared_data / "serp/brave/wsmcp__brave.html")
    assert_good_hits(hits)
    assert len(hits) == 20
    assert hits[0].url == "https://www.w3schools.com/js/"
    assert hits[0].title == "JavaScript Tutorial"
    assert hits[0].source == "W3Schools"
    assert hits[0].display_url == "w3schools.com › js"
    assert hits[0].snippet.startswith("JavaScript is easy to learn.")
    assert hits[1].url == "https://javascript.info/"
    assert hits[1].title == "The Modern JavaScript Tutorial"


def test_leading_date_moves_from_snippet_to_date(shared_data: Path) -> None:
    hits = parse_capture("brave", shared_data / "serp/brave/wsmcp__brave.html")
    dated = next(hit for hit in hits if hit.url == "https://www.javascripttutorial.net/")
    assert dated.date == "2024-12-13"
    assert dated.snippet.startswith("Welcome to the JavaScriptTutorial.net website!")
    assert sum(1 for hit in hits if hit.date) == 4  # the four results Brave shows a date for


def test_real_fragment_with_one_result_parses(shared_data: Path) -> None:
    hits = parse_capture("brave", shared_data / "serp/brave/starify__brave_react-github_FRAGMENT.html", clock=ANSWERED)
    assert_good_hits(hits)
    assert len(hits) == 1
    assert hits[0].url == "https://github.com/react/react"
    assert hits[0].title == "GitHub - react/react: The library for web and native user interfaces. · GitHub"
    assert hits[0].date == "2026-10-30"  # "1 month ago" on 2026-11-30: the same day a calendar month before
    assert hits[0].snippet.startswith("The library for web and native user interfaces.")


def _respond(status: int, body: str = "", **headers: str) -> httpx.Response:
    request = make_engine("brave").build_request(SearchRequest(query="x"))
    return httpx.Response(status, headers=headers, content=body.encode(), request=request)


def test_results_without_a_host_are_ads_and_skipped() -> None:
    page = (
        '<div class="snippet" data-type="web"><a href="/a/redirect?click=ad"><div class="title">Ad</div></a></div>'
        '<div class="snippet" data-type="web"><a href="https://example.org/"><div class="title">Example</div></a></div>'
    )
    hits = make_engine("brave").handle(_respond(200, page))
    assert [(hit.rank, hit.url) for hit in hits] == [(1, "https://example.org/")]


@pytest.mark.parametrize("location", ["/captcha?redirect=%2Fsearch", "https://search.brave.com/verify?q=x"])
def test_redirect_to_verification_is_a_captcha(location: str) -> None:
    with pytest.raises(BlockedError) as caught:
        make_engine("brave").handle(_respond(302, location=location))
    assert caught.value.code == "captcha"


def test_verification_page_is_a_captcha() -> None:
    page = "<html><head><title>Verify you are human</title></head><body><div class='captcha-card'></div></body></html>"
    with pytest.raises(BlockedError) as caught:
        make_engine("brave").handle(_respond(200, page))
    assert caught.value.code == "captcha"


@pytest.mark.parametrize(("status", "code"), [(429, "rate_limited"), (403, "blocked")])
def test_refusals_map_to_their_codes(status: int, code: str) -> None:
    with pytest.raises(WebreachError) as caught:
        make_engine("brave").handle(_respond(status, "<html>no</html>"))
    assert caught.value.code == code


def test_page_without_results_or_notice_is_a_parse_error() -> None:
    with pytest.raises(ParseError):
        make_engine("brave").handle(_respond(200, "<html><body><div id='results'></div></body></html>"))


def test_request_maps_every_parameter_to_the_web_form() -> None:
    engine = make_engine("brave")
    request = SearchRequest(
        query="rust async", page=3, site="docs.rs", freshness="month", language="de", region="at", safesearch="off"
    )
    sent = engine.build_request(request)
    assert str(sent.url).startswith("https://search.brave.com/search?")
    assert sent.url.params["q"] == "rust async site:docs.rs"
    assert sent.url.params["source"] == "web"
    assert sent.url.params["offset"] == "2"
    assert sent.url.params["tf"] == "pm"
    cookies = dict(part.split("=", 1) for part in sent.headers["cookie"].split("; "))
    assert cookies == {"safesearch": "off", "useLocation": "0", "summarizer": "0", "country": "at", "ui_lang": "de-at"}
    assert engine.unsupported(request) == ()


def test_first_page_has_no_offset_and_bare_english_gets_a_country() -> None:
    sent = make_engine("brave").build_request(SearchRequest(query="x", language="en"))
    assert "offset" not in sent.url.params
    assert "tf" not in sent.url.params
    assert "ui_lang=en-us" in sent.headers["cookie"]
    assert "safesearch=moderate" in sent.headers["cookie"]
