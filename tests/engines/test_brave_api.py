"""Brave Search API against its real captures (api/brave) and its request dialect."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from webreach import engines
from webreach.config import EngineSettings
from webreach.errors import NotConfiguredError, ParseError, WebreachError
from webreach.models import SearchRequest

from .capture import TEST_KEY, assert_good_hits, make_engine, parse_capture


def answer(status: int, body: object, headers: dict[str, str] | None = None) -> httpx.Response:
    engine = make_engine("brave_api")
    request = engine.build_request(SearchRequest(query="q"))
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.Response(
        status, headers={"content-type": "application/json", **(headers or {})}, content=content, request=request
    )


def brave_error(status: int, code: str, **meta: int) -> dict[str, object]:
    return {"type": "ErrorResponse", "error": {"status": status, "code": code, "detail": "...", "meta": meta}}


@pytest.mark.parametrize(
    ("file", "count", "first_url", "first_title", "source"),
    [
        (
            "brave-py-client__web.json",
            20,
            "https://en.wikipedia.org/wiki/%22Hello,_World!%22_program",
            '"Hello, World!" program - Wikipedia',
            "Wikipedia",
        ),
        (
            "sk__brave_what_is_the_semantic_kernel.json",
            10,
            "https://learn.microsoft.com/en-us/semantic-kernel/overview/",
            "Introduction to Semantic Kernel | Microsoft Learn",
            "Microsoft",
        ),
        (
            "sk__brave_site_filter_what_is_the_semantic_kernel.json",
            5,
            "https://learn.microsoft.com/en-us/semantic-kernel/overview/",
            "Introduction to Semantic Kernel | Microsoft Learn",
            "Microsoft",
        ),
    ],
)
def test_real_web_answers_parse_to_their_results(
    shared_data: Path, file: str, count: int, first_url: str, first_title: str, source: str
) -> None:
    hits = parse_capture("brave_api", shared_data / "api/brave" / file)
    assert_good_hits(hits)
    assert len(hits) == count
    assert (hits[0].url, hits[0].title) == (first_url, first_title)
    assert hits[0].source == source


def test_highlighting_and_entities_are_stripped_from_snippets(shared_data: Path) -> None:
    hits = parse_capture("brave_api", shared_data / "api/brave/brave-py-client__web.json")
    assert hits[0].snippet.startswith('A "Hello, World!" program is usually a simple computer program')
    assert "language's basic syntax" in hits[0].snippet
    assert all("<strong>" not in h.snippet and "&quot;" not in h.snippet for h in hits)
    assert hits[0].date == "2024-12-27T15:49:55"
    assert hits[-1].url == "https://gobyexample.com/hello-world"


@pytest.mark.parametrize(
    ("file", "first_url", "first_date"),
    [
        ("brave-py-client__news.json", "https://www.npr.org/sections/world/", "2024-12-31T17:09:03"),
        ("brave-py-client__videos.json", "https://www.youtube.com/watch?v=Yw6u6YkTgQ4", "2018-03-30T17:57:36"),
    ],
)
def test_news_and_videos_answers_share_the_page_item_shape(
    shared_data: Path, file: str, first_url: str, first_date: str
) -> None:
    """The news and videos endpoints' results[] carry title/url/description/page_age like web results."""
    hits = parse_capture("brave_api", shared_data / "api/brave" / file)
    assert_good_hits(hits)
    assert len(hits) == 20
    assert (hits[0].url, hits[0].date) == (first_url, first_date)


def test_image_answers_are_out_of_scope_for_web_search(shared_data: Path) -> None:
    """brave-py-client__images.json is the images endpoint: its items are pictures (image URL in properties.url,
    no description), not pages with snippets, so the web engine refuses it instead of inventing page hits."""
    with pytest.raises(ParseError, match="images"):
        parse_capture("brave_api", shared_data / "api/brave/brave-py-client__images.json")


def test_a_search_answer_without_a_web_block_is_no_results() -> None:
    engine = make_engine("brave_api")
    assert engine.handle(answer(200, {"type": "search", "query": {"original": "x"}, "mixed": {"main": []}})) == []
    with pytest.raises(ParseError):
        engine.handle(answer(200, {"unexpected": True}))
    with pytest.raises(ParseError):
        engine.handle(answer(200, b"<html>not json</html>"))


def test_every_parameter_maps_to_brave_names_and_the_key_goes_in_a_header() -> None:
    engine = make_engine("brave_api")
    request = SearchRequest(
        query="rust async",
        limit=50,
        page=3,
        site="docs.rs",
        freshness="week",
        language="zh",
        region="cn",
        safesearch="off",
    )
    built = engine.build_request(request)
    params = built.url.params
    assert built.method == "GET"
    assert str(built.url).startswith("https://api.search.brave.com/res/v1/web/search?")
    assert params["q"] == "rust async site:docs.rs"
    assert params["count"] == "20"  # Brave's cap
    assert params["offset"] == "2"  # a page index, not an item offset
    assert params["freshness"] == "pw"
    assert params["search_lang"] == "zh-hans"
    assert params["country"] == "CN"
    assert params["safesearch"] == "off"
    assert built.headers["X-Subscription-Token"] == TEST_KEY
    assert TEST_KEY not in str(built.url)
    assert engine.unsupported(request) == ()


def test_first_page_sends_no_offset_and_languages_map_to_brave_codes() -> None:
    engine = make_engine("brave_api")
    assert "offset" not in engine.build_request(SearchRequest(query="q")).url.params
    for language, expected in [("en", "en"), ("en-gb", "en-gb"), ("ja", "jp"), ("zh-tw", "zh-hant"), ("de-at", "de")]:
        params = engine.build_request(SearchRequest(query="q", language=language)).url.params
        assert params["search_lang"] == expected


def test_missing_key_is_not_configured() -> None:
    engine = engines.create("brave_api", EngineSettings())
    with pytest.raises(NotConfiguredError):
        engine.ensure_configured()
    with pytest.raises(NotConfiguredError):
        engine.build_request(SearchRequest(query="q"))


def test_unknown_subscription_token_is_auth_failed_but_validation_is_not() -> None:
    engine = make_engine("brave_api")
    with pytest.raises(WebreachError) as caught:
        engine.handle(answer(422, brave_error(422, "SUBSCRIPTION_TOKEN_INVALID")))
    assert caught.value.code == "auth_failed"
    with pytest.raises(WebreachError) as caught:
        engine.handle(answer(422, brave_error(422, "VALIDATION")))
    assert caught.value.code == "bad_request"
    assert not caught.value.retryable


def test_rate_limit_waits_for_the_exhausted_window_and_spent_quota_is_not_retried() -> None:
    engine = make_engine("brave_api")
    headers = {"x-ratelimit-remaining": "0, 1500", "x-ratelimit-reset": "1, 1419704"}
    with pytest.raises(WebreachError) as caught:
        engine.handle(answer(429, brave_error(429, "RATE_LIMITED", quota_limit=2000, quota_current=500), headers))
    assert (caught.value.code, caught.value.retry_after) == ("rate_limited", 1.0)

    monthly = {"x-ratelimit-remaining": "1, 0", "x-ratelimit-reset": "1, 1419704"}
    with pytest.raises(WebreachError) as caught:
        engine.handle(answer(429, brave_error(429, "RATE_LIMITED", quota_limit=2000, quota_current=2000), monthly))
    assert caught.value.code == "quota_exhausted"
    assert not caught.value.retryable

    with pytest.raises(WebreachError) as caught:
        engine.handle(answer(429, brave_error(429, "RATE_LIMITED"), {"retry-after": "7", **headers}))
    assert caught.value.retry_after == 7.0  # an explicit Retry-After wins


@pytest.mark.parametrize("status", [401, 402, 403, 422, 429, 500])
def test_the_key_never_appears_in_an_error(status: int) -> None:
    body = {"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID", "detail": f"bad token {TEST_KEY}"}}
    with pytest.raises(WebreachError) as caught:
        make_engine("brave_api").handle(answer(status, body))
    assert TEST_KEY not in str(caught.value)
    assert TEST_KEY not in json.dumps(caught.value.to_dict())
