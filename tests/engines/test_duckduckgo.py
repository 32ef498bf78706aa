"""DuckDuckGo (html endpoint) against its real captures, the vqd warm-up and its request dialect."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs

import httpx
import pytest

from webreach.errors import BlockedError, ParseError, UnavailableError
from webreach.models import SearchRequest

from .capture import assert_good_hits, make_engine, parse_capture

CELINA_VQD = "4-254660626027049202676687384605016276910"


def form(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(request.content.decode(), keep_blank_values=True).items()}


def test_real_html_endpoint_page_parses_to_its_organic_results(shared_data: Path) -> None:
    hits = parse_capture("duckduckgo", shared_data / "serp/duckduckgo/celina__ddg_html.html")
    assert_good_hits(hits)
    assert len(hits) == 9
    assert hits[0].url == "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep"  # uddg decoded
    assert hits[0].title == "Caffeine and Sleep Problems"
    assert hits[0].display_url == "www.sleepfoundation.org/nutrition/caffeine-and-sleep"
    assert hits[0].date == "2025-07-16"
    assert hits[0].snippet.startswith("Drinking caffeine too close to bedtime")
    assert hits[3].url == "https://pmc.ncbi.nlm.nih.gov/articles/PMC6292246/"
    assert not any("duckduckgo.com" in hit.url for hit in hits)


def test_real_2015_markup_parses_too(shared_data: Path) -> None:
    hits = parse_capture(
        "duckduckgo", shared_data / "serp/duckduckgo/gscraper__duckduckgo_http_mode_december_2015.html"
    )
    assert_good_hits(hits)
    assert len(hits) == 30
    assert hits[0].url == "http://whatreallyhappened.com/"
    assert hits[1].title == "What Happened - Wikipedia, the free encyclopedia"
    assert hits[1].snippet.startswith("What Happened: Inside the Bush White House")


def test_javascript_shell_is_a_parse_error_not_an_empty_success(shared_data: Path) -> None:
    # PROVENANCE calls it a no-results page, but it is the JS site: results would load from d.js and nothing in
    # the HTML says there are none, so claiming "no results" would be a guess.
    with pytest.raises(ParseError, match=r"d\.js"):
        parse_capture("duckduckgo", shared_data / "serp/duckduckgo/gscraper__no_results_literal_duckduckgo.html")


@pytest.mark.parametrize("status", [200, 202])
def test_real_anomaly_challenge_is_a_captcha(shared_data: Path, status: int) -> None:
    with pytest.raises(BlockedError) as caught:
        parse_capture(
            "duckduckgo", shared_data / "serp/_blocked/celina__ddg_lite_ANOMALY_challenge.html", status=status
        )
    assert caught.value.code == "captcha"


def test_http_202_is_a_captcha_even_when_the_body_looks_like_results(shared_data: Path) -> None:
    with pytest.raises(BlockedError) as caught:
        parse_capture("duckduckgo", shared_data / "serp/duckduckgo/celina__ddg_html.html", status=202)
    assert caught.value.code == "captcha"


def test_warm_up_reads_the_vqd_of_the_real_page(shared_data: Path) -> None:
    engine = make_engine("duckduckgo")
    body = (shared_data / "serp/duckduckgo/celina__ddg_html.html").read_bytes()
    assert engine.read_warm_up(httpx.Response(200, content=body)) == {"vqd": CELINA_VQD}


def test_warm_up_on_a_challenge_raises_instead_of_caching_nothing(shared_data: Path) -> None:
    engine = make_engine("duckduckgo")
    body = (shared_data / "serp/_blocked/celina__ddg_lite_ANOMALY_challenge.html").read_bytes()
    with pytest.raises(BlockedError):
        engine.read_warm_up(httpx.Response(200, content=body))


def test_vqd_is_found_in_each_cached_duckduckgo_com_page(shared_data: Path) -> None:
    cache = json.loads((shared_data / "api/_mixed/metagpt__search_rsp_cache.json").read_text(encoding="utf-8"))
    # the d.js requests that followed each page name the vqd that page handed out
    expected = {
        json.loads(key.split("d.js-", 1)[1])["params"]["q"]: json.loads(key.split("d.js-", 1)[1])["params"]["vqd"]
        for key in cache
        if key.startswith("curl-cffi-GET-https://links.duckduckgo.com/d.js-")
    }
    pages = {
        json.loads(key.split("duckduckgo.com-", 1)[1])["data"]["q"]: page
        for key, page in cache.items()
        if key.startswith("curl-cffi-POST-https://duckduckgo.com-")
    }
    assert len(pages) == 12
    engine = make_engine("duckduckgo")
    for query, page in pages.items():
        tokens = engine.read_warm_up(httpx.Response(200, text=page))
        assert tokens == {"vqd": expected[query]}, query
        assert re.fullmatch(r"\d-\d+", tokens["vqd"])


def test_first_page_is_a_plain_form_post() -> None:
    engine = make_engine("duckduckgo")
    request = engine.build_request(SearchRequest(query="rust async", site="docs.rs", freshness="month"))
    assert request.method == "POST"
    assert str(request.url) == "https://html.duckduckgo.com/html/"
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    sent = form(request)
    assert sent == {"q": "rust async site:docs.rs", "kl": "wt-wt", "kp": "-1", "df": "m", "b": ""}
    assert "df=m" in request.headers["cookie"]


def test_later_pages_carry_the_vqd_and_searxng_offsets() -> None:
    engine = make_engine("duckduckgo")
    second = form(engine.build_request(SearchRequest(query="q", page=2), {"vqd": CELINA_VQD}))
    assert second["vqd"] == CELINA_VQD
    assert (second["s"], second["dc"]) == ("10", "11")
    assert (second["api"], second["o"], second["v"], second["nextParams"]) == ("d.js", "json", "l", "")
    assert "b" not in second
    third = form(engine.build_request(SearchRequest(query="q", page=3), {"vqd": CELINA_VQD}))
    assert (third["s"], third["dc"]) == ("25", "26")


def test_later_pages_without_a_vqd_are_refused_before_anything_is_sent() -> None:
    engine = make_engine("duckduckgo")
    with pytest.raises(UnavailableError, match="vqd"):
        engine.build_request(SearchRequest(query="q", page=2))
    with pytest.raises(UnavailableError):
        engine.build_request(SearchRequest(query="q", page=2), {})


def test_warm_up_is_the_first_page_and_only_for_later_pages() -> None:
    engine = make_engine("duckduckgo")
    assert engine.warm_up(SearchRequest(query="q")) is None
    warm_up = engine.warm_up(SearchRequest(query="q", page=3, region="de"))
    assert warm_up is not None
    assert form(warm_up) == form(engine.build_request(SearchRequest(query="q", region="de")))


def test_warm_up_key_holds_query_and_region() -> None:
    engine = make_engine("duckduckgo")
    keys = {
        engine.warm_up_key(SearchRequest(query="a", page=2)),
        engine.warm_up_key(SearchRequest(query="b", page=2)),
        engine.warm_up_key(SearchRequest(query="a", page=2, region="de")),
    }
    assert len(keys) == 3
    assert engine.warm_up_key(SearchRequest(query="a", page=2)) == engine.warm_up_key(SearchRequest(query="a", page=5))


@pytest.mark.parametrize(
    ("region", "language", "kl"),
    [
        ("us", None, "us-en"),
        ("gb", None, "uk-en"),
        ("de", None, "de-de"),
        ("ca", "fr", "ca-fr"),
        ("ca", None, "ca-en"),
        ("tw", "zh", "tw-tzh"),
        ("es", None, "es-es"),
        ("zz", None, "wt-wt"),
        (None, "fr", "wt-wt"),
    ],
)
def test_region_maps_to_duckduckgo_kl(region: str | None, language: str | None, kl: str) -> None:
    engine = make_engine("duckduckgo")
    request = engine.build_request(SearchRequest(query="q", region=region, language=language))
    assert form(request)["kl"] == kl


def test_safesearch_and_unsupported_language() -> None:
    engine = make_engine("duckduckgo")
    assert form(engine.build_request(SearchRequest(query="q", safesearch="off")))["kp"] == "-2"
    assert form(engine.build_request(SearchRequest(query="q", safesearch="strict")))["kp"] == "1"
    assert engine.unsupported(SearchRequest(query="q", language="fr", region="fr")) == ("language",)
