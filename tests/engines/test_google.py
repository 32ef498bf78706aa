"""Google against its real captures (basic no-JS pages, desktop pages, the /sorry/ page) and its request dialect."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from webreach.errors import BlockedError, ParseError
from webreach.models import SearchRequest

from .capture import assert_good_hits, make_engine, parse_capture

# capture -> (organic-ish count in PROVENANCE.md, first URL, first title)
RESULT_PAGES = {
    "serpparser__google-nojs_coffee-nojs.html": (10, "https://en.wikipedia.org/wiki/Coffee", "Coffee - Wikipedia"),
    "serpparser__google-nojs_google-nojs.html": (10, "https://www.google.com/", "Google"),
    "serpparser__google-nojs_google100-nojs.html": (99, "https://www.google.com/", "Google"),
    "serpparser__google-nojs_hotels-nojs.html": (
        9,
        "https://www.hotels.com/de1506246/hotels-new-york-new-york/",
        "Best New York Hotels",
    ),
    "starify__google_react-github.html": (
        8,
        "https://github.com/facebook/react",
        "facebook/react: The library for web and native user interfaces.",
    ),
    "ws_2026-01-20_why-is-the-sky-blue_7049404a.html": (
        11,
        "https://spaceplace.nasa.gov/blue-sky/",
        "Why Is the Sky Blue?",
    ),
    "ws_2026-02-06_donald-trump_7d76d3a8.html": (8, "https://en.wikipedia.org/wiki/Donald_Trump", "Donald Trump"),
    "ws_2026-02-06_why-are-bananas-yellow_7333536d.html": (
        12,
        "https://www.reddit.com/r/answers/comments/1b6hkf3/why_are_bananas_yellow/",
        "Why are bananas yellow? : r/answers",
    ),
}


@pytest.mark.parametrize("filename", sorted(RESULT_PAGES))
def test_real_results_page_parses_to_its_organic_results(shared_data: Path, filename: str) -> None:
    expected, first_url, first_title = RESULT_PAGES[filename]
    hits = parse_capture("google", shared_data / "serp/google" / filename)
    assert_good_hits(hits)
    assert abs(len(hits) - expected) <= 2, len(hits)
    assert hits[0].url == first_url
    assert hits[0].title == first_title
    assert all("google.com/url?" not in hit.url and "#:~:" not in hit.url for hit in hits)
    assert len({hit.url for hit in hits}) == len(hits), "a URL is listed once"


def test_basic_page_links_are_decoded_and_local_pack_entries_skipped(shared_data: Path) -> None:
    hits = parse_capture("google", shared_data / "serp/google/serpparser__google-nojs_coffee-nojs.html")
    assert len(hits) == 10  # the page's three local-pack entries link to /search?...&ludocid=, not to the web
    assert [hit.url for hit in hits[:3]] == [
        "https://en.wikipedia.org/wiki/Coffee",
        "http://www.ncausa.org/about-coffee/what-is-coffee",
        "https://www.ncausa.org/About-Coffee/History-of-Coffee",
    ]
    assert hits[0].display_url == "en.wikipedia.org › wiki › Coffee"
    assert hits[0].snippet.startswith("Coffee is a beverage prepared from roasted coffee beans.")
    dated = next(hit for hit in hits if "tastingtable.com" in hit.url)
    assert dated.date == "2023-03-02"
    assert dated.snippet.startswith("From café chains to retail roasters")


def test_percent_encoded_targets_are_decoded(shared_data: Path) -> None:
    hits = parse_capture("google", shared_data / "serp/google/serpparser__google-nojs_google-nojs.html")
    assert "https://www.google.com/imghp?hl=EN" in [hit.url for hit in hits]  # /url?q=...imghp%3Fhl%3DEN


def test_desktop_page_reads_snippet_date_and_site(shared_data: Path) -> None:
    hits = parse_capture("google", shared_data / "serp/google/ws_2026-02-06_why-are-bananas-yellow_7333536d.html")
    peko = next(hit for hit in hits if "pekoproduce.com" in hit.url)
    assert peko.date == "2022-07-22"
    assert peko.snippet.startswith("TURNING YELLOW: As chlorophyll")
    assert peko.source == "pekoproduce.com"
    assert peko.display_url == "https://pekoproduce.com › blogs › produce-nutrition"


def test_people_also_ask_sources_follow_the_organic_results(shared_data: Path) -> None:
    hits = parse_capture("google", shared_data / "serp/google/ws_2026-02-06_why-are-bananas-yellow_7333536d.html")
    urls = [hit.url for hit in hits]
    # 9 organic results, then the answers' sources; reddit is both, so it keeps its organic place only
    assert len(hits) == 11
    assert urls[-2:] == ["https://en.wikipedia.org/wiki/Cavendish_banana", "https://fruitguys.com/blog/going-bananas/"]
    assert urls.count("https://www.reddit.com/r/answers/comments/1b6hkf3/why_are_bananas_yellow/") == 1
    assert hits[-1].snippet.startswith("As with many fruits, a banana's color indicates how ripe it is.")


def test_real_no_results_page_is_empty_not_an_error(shared_data: Path) -> None:
    assert parse_capture("google", shared_data / "serp/google/serpparser__google-nojs_no-results-nojs.html") == []


@pytest.mark.parametrize("status", [200, 429, 503])
def test_real_sorry_page_is_a_captcha_whatever_its_status(shared_data: Path, status: int) -> None:
    with pytest.raises(BlockedError) as caught:
        parse_capture("google", shared_data / "serp/_blocked/websearcher__google_sorry_index.html", status=status)
    assert caught.value.code == "captcha"


@pytest.mark.parametrize(
    ("location", "code"),
    [
        ("https://www.google.com/sorry/index?continue=https://www.google.com/search%3Fq%3Dx&q=abc", "captcha"),
        ("https://sorry.google.com/sorry/Captcha?continue=x", "captcha"),
        ("https://consent.google.com/ml?continue=https://www.google.com/search%3Fq%3Dx", "blocked"),
        ("https://www.google.de/search?q=x", "blocked"),
    ],
)
def test_redirects_instead_of_results(location: str, code: str) -> None:
    engine = make_engine("google")
    request = engine.build_request(SearchRequest(query="x"))
    with pytest.raises(BlockedError) as caught:
        engine.handle(httpx.Response(302, headers={"location": location}, request=request))
    assert caught.value.code == code


def test_page_without_results_or_notice_is_a_parse_error() -> None:
    engine = make_engine("google")
    request = engine.build_request(SearchRequest(query="x"))
    page = b"<html><head><title>x - Google Search</title></head><body><div id='main'></div></body></html>"
    with pytest.raises(ParseError):
        engine.handle(httpx.Response(200, content=page, request=request))


def test_request_asks_for_the_basic_page_with_every_parameter_mapped() -> None:
    engine = make_engine("google")
    request = SearchRequest(
        query="rust async", limit=20, page=3, site="docs.rs", freshness="week", language="de", region="at"
    )
    sent = engine.build_request(request)
    params = sent.url.params
    assert str(sent.url).startswith("https://www.google.com/search?")
    assert params["q"] == "rust async site:docs.rs"
    assert (params["num"], params["start"]) == ("20", "40")
    assert params["tbs"] == "qdr:w"
    assert (params["hl"], params["lr"]) == ("de", "lang_de")
    assert (params["gl"], params["cr"]) == ("at", "countryAT")
    assert params["gbv"] == "1"
    assert params["safe"] == "medium"
    assert sent.headers["cookie"] == "CONSENT=YES+"
    assert sent.headers["user-agent"].startswith("Lynx/")
    assert engine.unsupported(request) == ()


def test_first_page_sends_no_offset_and_safesearch_maps() -> None:
    engine = make_engine("google")
    first = engine.build_request(SearchRequest(query="x", safesearch="off"))
    strict = engine.build_request(SearchRequest(query="x", safesearch="strict", language="zh-cn"))
    assert "start" not in first.url.params
    assert "tbs" not in first.url.params
    assert first.url.params["safe"] == "off"
    assert strict.url.params["safe"] == "high"
    assert (strict.url.params["hl"], strict.url.params["lr"]) == ("zh-CN", "lang_zh-CN")
    regional = engine.build_request(SearchRequest(query="x", language="pt-br")).url.params
    assert (regional["hl"], regional["lr"]) == ("pt-BR", "lang_pt")  # lr has regional values for Chinese only
    taiwan = engine.build_request(SearchRequest(query="x", language="zh-tw")).url.params
    assert taiwan["lr"] == "lang_zh-TW"
    assert engine.build_request(SearchRequest(query="x", language="zh")).url.params["lr"] == "lang_zh-CN"
