"""Startpage against its real captures, the sc warm-up and its request dialect."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

import httpx
import pytest

from webreach.errors import BlockedError, ParseError
from webreach.models import SearchRequest

from .capture import assert_good_hits, make_engine, parse_capture

FIRST_TITLES = ["JavaScript Tutorial - W3Schools", "The Modern JavaScript Tutorial", "JavaScript Tutorial"]


def form(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(request.content.decode(), keep_blank_values=True).items()}


@pytest.mark.parametrize("file", ["wsmcp__http-startpage.html", "wsmcp__startpage.html"])
def test_real_results_pages_parse_to_their_organic_results(shared_data: Path, file: str) -> None:
    hits = parse_capture("startpage", shared_data / "serp/startpage" / file)
    assert_good_hits(hits)
    assert len(hits) == 10
    # inline <style> blocks sit inside the result links: none of their CSS may leak into titles
    assert [hit.title for hit in hits[:3]] == FIRST_TITLES
    assert hits[0].url == "https://www.w3schools.com/js/"
    assert hits[0].source == "W3Schools"
    assert hits[0].display_url == "https://www.w3schools.com/js/"
    assert hits[0].snippet.startswith("Well organized and easy to understand Web building tutorials")
    assert hits[3].url == "https://www.youtube.com/watch?v=Ihy0QziLDf0"
    assert hits[3].date == "2023-10-14"  # from the "14 Oct 2023 ... " snippet prefix
    assert not any("{" in hit.title or "startpage.com" in hit.url for hit in hits)


@pytest.mark.parametrize(
    ("file", "sc"), [("wsmcp__http-startpage.html", "wnEHetqY4mdm00"), ("wsmcp__startpage.html", "UPRAX3NlozEf00")]
)
def test_warm_up_reads_the_sc_token_of_the_search_form(shared_data: Path, file: str, sc: str) -> None:
    engine = make_engine("startpage")
    body = (shared_data / "serp/startpage" / file).read_bytes()
    assert engine.read_warm_up(httpx.Response(200, content=body)) == {"sc": sc}


def test_warm_up_is_the_home_page_and_its_token_is_sent() -> None:
    engine = make_engine("startpage")
    warm_up = engine.warm_up(SearchRequest(query="q"))
    assert warm_up is not None
    assert (warm_up.method, str(warm_up.url)) == ("GET", "https://www.startpage.com/")
    assert engine.warm_up_key(SearchRequest(query="a")) == engine.warm_up_key(SearchRequest(query="b"))
    request = engine.build_request(SearchRequest(query="q"), {"sc": "wnEHetqY4mdm00"})
    assert (request.method, str(request.url)) == ("POST", "https://www.startpage.com/sp/search")
    assert form(request)["sc"] == "wnEHetqY4mdm00"
    assert "sc" not in form(engine.build_request(SearchRequest(query="q")))


def test_a_home_page_without_a_token_is_an_error_not_an_empty_token() -> None:
    engine = make_engine("startpage")
    with pytest.raises(ParseError):
        engine.read_warm_up(httpx.Response(200, text="<html><body><form id='search'></form></body></html>"))


def test_parameters_map_to_startpage_form_fields() -> None:
    engine = make_engine("startpage")
    plain = form(engine.build_request(SearchRequest(query="rust async")))
    assert plain == {
        "query": "rust async",
        "cat": "web",
        "t": "device",
        "lui": "english",
        "language": "english",
        "abp": "1",
        "abd": "0",
        "abe": "0",
        "qadf": "moderate",
        "segment": "organic",
    }
    full = form(
        engine.build_request(
            SearchRequest(
                query="rust async",
                page=2,
                site="docs.rs",
                freshness="year",
                safesearch="strict",
                language="de",
                region="at",
            )
        )
    )
    assert full["query"] == "rust async site:docs.rs"
    assert (full["page"], full["with_date"], full["qadf"]) == ("2", "y", "heavy")
    assert (full["language"], full["lui"], full["qsr"]) == ("deutsch", "deutsch", "de_AT")
    assert form(engine.build_request(SearchRequest(query="q", region="us")))["qsr"] == "en_US"
    assert form(engine.build_request(SearchRequest(query="q", safesearch="off")))["qadf"] == "none"


@pytest.mark.parametrize(
    "location",
    ["https://www.startpage.com/sp/captcha", "https://www.startpage.com/sp/captcha-block?bc=PK", "/en/errors/captcha"],
)
def test_captcha_redirects_are_captchas(location: str) -> None:
    engine = make_engine("startpage")
    response = httpx.Response(
        302, headers={"location": location}, request=engine.build_request(SearchRequest(query="q"))
    )
    with pytest.raises(BlockedError) as caught:
        engine.handle(response)
    assert caught.value.code == "captcha"


def test_a_captcha_page_reached_after_redirects_is_a_captcha() -> None:
    engine = make_engine("startpage")
    request = httpx.Request("GET", "https://www.startpage.com/sp/captcha?query=q")
    with pytest.raises(BlockedError) as caught:
        engine.handle(httpx.Response(200, text="<html><body>Verify</body></html>", request=request))
    assert caught.value.code == "captcha"


def test_google_ads_and_links_back_into_startpage_are_skipped() -> None:
    engine = make_engine("startpage")
    page = (
        "<form id='search'></form>"
        "<div class='result'><a class='result-title' href='https://www.google.com/aclk?sa=l&ai=x'><h2>Ad</h2></a></div>"
        "<div class='result'><a class='result-title' href='/do/search?q=more'><h2>More</h2></a></div>"
        "<div class='result'><a class='result-title' href='https://example.org/'><h2>Organic</h2></a>"
        "<p class='description'>Text.</p></div>"
    )
    hits = engine.handle(httpx.Response(200, text=page, request=engine.build_request(SearchRequest(query="q"))))
    assert [(hit.title, hit.url, hit.rank) for hit in hits] == [("Organic", "https://example.org/", 1)]
