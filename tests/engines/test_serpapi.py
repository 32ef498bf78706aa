"""SerpApi against its real captures (api/serpapi and the MetaGPT cache in api/_mixed) and its three dialects."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from webreach import engines
from webreach.engines.serpapi import SerpApi
from webreach.errors import NotConfiguredError, WebreachError
from webreach.models import SearchRequest
from webreach.testing import FakeClock

from .capture import TEST_KEY, assert_good_hits, make_engine, parse_capture


def serpapi(engine: str) -> engines.Engine:
    return make_engine("serpapi", {"engine": engine}, clock=FakeClock(1_700_000_000))  # day 19675 since the epoch


def answer(status: int, body: object) -> httpx.Response:
    request = make_engine("serpapi").build_request(SearchRequest(query="q"))
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.Response(status, headers={"content-type": "application/json"}, content=content, request=request)


def cached_serpapi_answers(shared_data: Path) -> dict[int, bytes]:
    """The SerpApi entries of MetaGPT's response cache, keyed by the `num` MetaGPT asked for."""
    cache = json.loads((shared_data / "api/_mixed/metagpt__search_rsp_cache.json").read_text(encoding="utf-8"))
    return {
        json.loads(key.split("-", 3)[3])["params"]["num"]: json.dumps(value).encode()
        for key, value in cache.items()
        if "serpapi.com" in key
    }


@pytest.mark.parametrize(
    ("file", "count"), [("metagpt__serpapi-metagpt-4.json", 4), ("metagpt__serpapi-metagpt-8.json", 7)]
)
def test_real_google_answers_parse_to_their_organic_results(shared_data: Path, file: str, count: int) -> None:
    hits = parse_capture("serpapi", shared_data / "api/serpapi" / file)
    assert_good_hits(hits)
    assert len(hits) == count
    first, second = hits[0], hits[1]
    assert (first.url, first.title) == (
        "https://github.com/geekan/MetaGPT",
        "geekan/MetaGPT: 🌟 The Multi-Agent Framework",
    )
    assert first.display_url == "https://github.com › geekan › MetaGPT"
    assert (second.url, second.source, second.date) == ("https://arxiv.org/abs/2308.00352", "arXiv", "2023")
    assert hits[3].date == "2023-09-11"  # shown as "Sep 11, 2023"


@pytest.mark.parametrize(("num", "count"), [(8, 6), (4, 3)])
def test_real_cached_answers_parse(shared_data: Path, num: int, count: int) -> None:
    hits = make_engine("serpapi").handle(answer(200, cached_serpapi_answers(shared_data)[num]))
    assert_good_hits(hits)
    assert len(hits) == count
    assert hits[0].url == "https://github.com/geekan/MetaGPT"


def test_google_dialect_maps_every_parameter_and_puts_the_key_in_the_query() -> None:
    engine = serpapi("google")
    request = SearchRequest(
        query="metagpt",
        limit=8,
        page=3,
        site="github.com",
        freshness="week",
        language="en",
        region="us",
        safesearch="strict",
    )
    built = engine.build_request(request)
    assert str(built.url).startswith("https://serpapi.com/search.json?")
    assert dict(built.url.params) == {
        "engine": "google",
        "api_key": TEST_KEY,
        "q": "metagpt site:github.com",
        "num": "8",
        "start": "16",
        "hl": "en",
        "gl": "us",
        "tbs": "qdr:w",
        "safe": "active",
    }
    assert engine.unsupported(request) == ()


def test_bing_dialect_uses_count_first_and_a_market() -> None:
    engine = serpapi("bing")
    built = engine.build_request(SearchRequest(query="q", limit=10, page=2, site="a.org", language="de", region="at"))
    params = built.url.params
    assert (params["engine"], params["q"], params["count"], params["first"]) == ("bing", "q site:a.org", "10", "11")
    assert (params["mkt"], params["safeSearch"]) == ("de-AT", "Moderate")
    assert "cc" not in params
    assert engine.build_request(SearchRequest(query="q", region="gb")).url.params["cc"] == "gb"
    # a language alone cannot form a market, so it is reported
    assert engine.unsupported(SearchRequest(query="q", language="de", freshness="day")) == ("language",)


def test_bing_dialect_freshness_is_bings_filters_with_a_year_counted_by_the_clock() -> None:
    engine = serpapi("bing")
    week = engine.build_request(SearchRequest(query="q", freshness="week")).url.params
    year = engine.build_request(SearchRequest(query="q", freshness="year")).url.params
    assert (week["filters"], year["filters"]) == ('ex1:"ez2"', 'ex1:"ez5_19310_19675"')


def test_baidu_dialect_uses_rn_pn_and_q6() -> None:
    engine = serpapi("baidu")
    params = engine.build_request(SearchRequest(query="天气", limit=20, page=2, site="weather.com.cn")).url.params
    assert (params["engine"], params["q"], params["rn"], params["pn"], params["q6"]) == (
        "baidu",
        "天气",
        "20",
        "20",
        "weather.com.cn",
    )
    assert set(engine.unsupported(SearchRequest(query="q", language="zh", region="cn"))) == {"language", "region"}
    day = engine.build_request(SearchRequest(query="q", freshness="day")).url.params
    assert day["gpc"] == "stf=1699913600,1700000000|stftype=1"
    assert engine.unsupported(SearchRequest(query="q", freshness="day")) == ()


def test_the_index_follows_the_engine_option_per_instance() -> None:
    assert [(serpapi(name).index, serpapi(name).language_hint) for name in ("google", "bing", "baidu")] == [
        ("google", None),
        ("bing", None),
        ("baidu", "zh"),
    ]
    assert SerpApi.index == "google"  # the class keeps the default
    assert make_engine("serpapi").index == "google"  # no option: google


def test_an_unknown_engine_option_is_not_configured() -> None:
    engine = serpapi("yandex")
    with pytest.raises(NotConfiguredError, match="yandex"):
        engine.ensure_configured()
    with pytest.raises(NotConfiguredError):
        engine.build_request(SearchRequest(query="q"))


def test_documented_empty_answer_is_no_results() -> None:
    body = {
        "search_metadata": {"status": "Success"},
        "search_information": {"organic_results_state": "Fully empty"},
        "error": "Google hasn't returned any results for this query.",
    }
    assert make_engine("serpapi").handle(answer(200, body)) == []
    assert serpapi("bing").handle(answer(200, {"error": "Bing hasn't returned any results for this query."})) == []


def test_status_error_in_a_200_is_unavailable_and_a_missing_list_a_parse_error() -> None:
    failed = {"search_metadata": {"status": "Error"}, "error": "We couldn't get valid results for this search."}
    with pytest.raises(WebreachError) as caught:
        make_engine("serpapi").handle(answer(200, failed))
    assert caught.value.code == "unavailable"
    with pytest.raises(WebreachError) as caught:
        make_engine("serpapi").handle(answer(200, {"search_metadata": {"status": "Success"}}))
    assert caught.value.code == "parse_error"


@pytest.mark.parametrize(
    ("status", "error", "code"),
    [
        (401, "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key", "auth_failed"),
        (429, "Your account has run out of searches.", "quota_exhausted"),
        (429, "Your account has exceeded the hourly throughput limit.", "rate_limited"),
        (400, "Missing query `q` parameter.", "bad_request"),
        (503, "We couldn't get valid results for this search. Please try again later.", "unavailable"),
    ],
)
def test_errors_map_to_their_classes_without_the_key(status: int, error: str, code: str) -> None:
    with pytest.raises(WebreachError) as caught:
        make_engine("serpapi").handle(answer(status, {"error": f"{error} (api_key={TEST_KEY})"}))
    assert caught.value.code == code
    assert TEST_KEY not in str(caught.value)


def test_an_upstream_error_message_is_redacted_too() -> None:
    with pytest.raises(WebreachError) as caught:
        make_engine("serpapi").handle(answer(200, {"search_metadata": {"status": "Error"}, "error": f"bad {TEST_KEY}"}))
    assert TEST_KEY not in str(caught.value)
