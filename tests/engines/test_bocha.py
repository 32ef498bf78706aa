"""Bocha: its request dialect and errors, and its Bing-compatible parser run over real Bing v7 captures."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from webreach.errors import WebreachError
from webreach.models import SearchRequest
from webreach.testing.recordings import engine_recordings

from .capture import TEST_KEY, assert_good_hits, make_engine, parse_capture

BING = "api/bing_web_search_api"


def answer(status: int, body: object) -> httpx.Response:
    request = make_engine("bocha").build_request(SearchRequest(query="q"))
    content = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
    return httpx.Response(status, headers={"content-type": "application/json"}, content=content, request=request)


def bocha_answer(value: list[dict[str, object]]) -> dict[str, object]:
    return {"code": 200, "log_id": "x", "msg": None, "data": {"_type": "SearchResponse", "webPages": {"value": value}}}


def test_real_bing_v7_answer_parses_through_the_bocha_parser(shared_data: Path) -> None:
    """Real Bing Web Search v7 capture, parsed by bocha: Bocha mirrors Bing's shape, and the retired Bing API has
    no engine of its own, so its captures test the shared top-level webPages.value[] reading here."""
    hits = parse_capture("bocha", shared_data / BING / "sk__bing_what_is_the_semantic_kernel.json")
    assert_good_hits(hits)
    assert len(hits) == 10
    assert hits[0].url == "https://learn.microsoft.com/en-us/semantic-kernel/overview/"
    assert hits[0].title == "Introduction to Semantic Kernel | Microsoft Learn"
    assert (hits[0].date, hits[0].source) == (
        "2024-06-24",
        "Microsoft Learn",
    )  # datePublished, 7-digit fraction dropped
    assert hits[0].display_url == "https://learn.microsoft.com/en-us/semantic-kernel/overview"
    assert hits[1].date is None  # Bing's dateLastCrawled is a crawl time, never shown as a publish date


def test_real_bing_v7_answer_with_a_byte_order_mark_parses(shared_data: Path) -> None:
    """Real Bing v7 capture (site filter), parsed by bocha; the file starts with a UTF-8 BOM."""
    path = shared_data / BING / "sk__bing_site_filter_devblogs_microsoft.com.json"
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    hits = parse_capture("bocha", path)
    assert_good_hits(hits)
    assert len(hits) == 4
    assert hits[0].url == "https://devblogs.microsoft.com/semantic-kernel/hello-world/"
    assert (hits[0].title, hits[0].date) == ("Hello, Semantic Kernel! | Semantic Kernel", "2023-03-17")
    assert all(h.url.startswith("https://devblogs.microsoft.com/") for h in hits)


def test_bocha_envelope_parses_and_its_date_last_crawled_is_the_publish_time() -> None:
    hits = make_engine("bocha").handle(engine_recordings("bocha")["results"].to_response())
    assert_good_hits(hits)
    assert hits[0].title == "Python asyncio 异步编程入门教程"
    assert (hits[0].source, hits[0].date) == ("菜鸟教程", "2024-07-22T11:58:00+08:00")
    assert hits[1].date == "2024-03-10"  # only dateLastCrawled (publish time, Bocha says); a UTC midnight is the day


def test_request_body_maps_page_site_and_freshness() -> None:
    engine = make_engine("bocha")
    request = SearchRequest(query="人工智能", limit=50, page=2, site="qq.com", freshness="week", region="cn")
    built = engine.build_request(request)
    body = json.loads(built.content)
    assert (built.method, str(built.url)) == ("POST", "https://api.bochaai.com/v1/web-search")
    assert built.headers["Authorization"] == f"Bearer {TEST_KEY}"
    assert body == {
        "query": "人工智能",
        "count": 50,
        "page": 2,
        "freshness": "oneWeek",
        "summary": False,
        "include": "qq.com",
    }
    assert engine.unsupported(request) == ("region",)
    assert json.loads(engine.build_request(SearchRequest(query="q")).content)["freshness"] == "noLimit"
    assert engine.language_hint == "zh"


def test_no_results_and_unexpected_shapes() -> None:
    engine = make_engine("bocha")
    assert engine.handle(answer(200, bocha_answer([]))) == []
    bare = {"code": 200, "data": {"_type": "SearchResponse", "queryContext": {"originalQuery": "x"}}}
    assert engine.handle(answer(200, bare)) == []
    with pytest.raises(WebreachError) as caught:
        engine.handle(answer(200, {"code": 200, "data": {"something": "else"}}))
    assert caught.value.code == "parse_error"


@pytest.mark.parametrize(
    ("status", "message", "code"),
    [
        (401, "Invalid API KEY", "auth_failed"),
        (400, "The API KEY is missing", "auth_failed"),
        (400, "Missing parameter query", "bad_request"),
        (403, "You do not have enough money", "quota_exhausted"),
        (403, "Forbidden", "auth_failed"),
        (429, "You have reached the request limit", "rate_limited"),
        (500, "Internal Server Error", "unavailable"),
    ],
)
def test_error_table_maps_to_error_classes_without_the_key(status: int, message: str, code: str) -> None:
    body = {"code": str(status), "message": f"{message} ({TEST_KEY})", "log_id": "x"}
    with pytest.raises(WebreachError) as caught:
        make_engine("bocha").handle(answer(status, body))
    assert caught.value.code == code
    assert TEST_KEY not in str(caught.value)


def test_an_error_code_inside_a_200_body_maps_the_same_way() -> None:
    with pytest.raises(WebreachError) as caught:
        make_engine("bocha").handle(answer(200, {"code": 403, "msg": "You do not have enough money", "data": None}))
    assert caught.value.code == "quota_exhausted"
    with pytest.raises(WebreachError) as caught:
        make_engine("bocha").handle(answer(200, {"code": "500", "msg": "busy", "data": None}))
    assert caught.value.code == "unavailable"
    with pytest.raises(WebreachError) as caught:
        make_engine("bocha").handle(answer(200, {"code": 400, "msg": "Missing parameter query", "data": None}))
    assert caught.value.code == "bad_request"
