"""Tavily against its real captures (api/tavily) and its request dialect."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from webreach.errors import WebreachError
from webreach.models import SearchRequest

from .capture import TEST_KEY, assert_good_hits, make_engine, parse_capture


def answer(status: int, body: object, headers: dict[str, str] | None = None) -> httpx.Response:
    request = make_engine("tavily").build_request(SearchRequest(query="q"))
    headers = {"content-type": "application/json", **(headers or {})}
    return httpx.Response(status, headers=headers, content=json.dumps(body).encode(), request=request)


def test_real_answer_with_answer_and_images_parses_to_its_four_results(shared_data: Path) -> None:
    hits = parse_capture("tavily", shared_data / "api/tavily/sk__tavily_what_is_the_semantic_kernel.json")
    assert_good_hits(hits)
    assert len(hits) == 4
    assert hits[0].url == "https://learn.microsoft.com/en-us/dotnet/ai/semantic-kernel-dotnet-overview"
    assert hits[0].title == "Semantic Kernel overview for .NET - .NET | Microsoft Learn"
    assert hits[0].snippet.startswith(
        "Semantic Kernel is an open-source SDK that integrates and orchestrates AI models"
    )
    assert hits[0].source == "learn.microsoft.com"
    assert hits[1].url == "https://learn.microsoft.com/en-us/semantic-kernel/overview/"


def test_real_site_filtered_answer_keeps_to_the_site(shared_data: Path) -> None:
    hits = parse_capture("tavily", shared_data / "api/tavily/sk__tavily_site_filter_devblogs_microsoft.com.json")
    assert_good_hits(hits)
    assert len(hits) == 4
    assert hits[0].url == "https://devblogs.microsoft.com/semantic-kernel/hello-world/"
    assert hits[0].title == "Hello, Semantic Kernel! | Semantic Kernel - devblogs.microsoft.com"
    assert all(h.source == "devblogs.microsoft.com" for h in hits)


def test_request_body_maps_site_and_freshness_and_reports_the_rest() -> None:
    engine = make_engine("tavily")
    request = SearchRequest(query="vector db", limit=40, page=2, site="python.org", freshness="month", language="en")
    built = engine.build_request(request)
    body = json.loads(built.content)
    assert (built.method, str(built.url)) == ("POST", "https://api.tavily.com/search")
    assert built.headers["Authorization"] == f"Bearer {TEST_KEY}"
    assert body["query"] == "vector db"
    assert body["max_results"] == 20  # Tavily's cap; there is no offset
    assert body["include_domains"] == ["python.org"]
    assert body["time_range"] == "month"
    assert body["include_raw_content"] is False
    assert set(engine.unsupported(request)) == {"page", "language"}


def test_empty_results_are_no_results_and_a_missing_list_is_a_parse_error() -> None:
    engine = make_engine("tavily")
    assert engine.handle(answer(200, {"query": "x", "results": []})) == []
    with pytest.raises(WebreachError) as caught:
        engine.handle(answer(200, {"query": "x"}))
    assert caught.value.code == "parse_error"


def test_news_dates_become_iso() -> None:
    body = {
        "results": [
            {
                "title": "T",
                "url": "https://a.example/x",
                "content": "c",
                "published_date": "Thu, 07 Mar 2024 14:00:00 GMT",
            }
        ]
    }
    (hit,) = make_engine("tavily").handle(answer(200, body))
    assert hit.date == "2024-03-07T14:00:00+00:00"


@pytest.mark.parametrize(
    ("status", "code"), [(432, "quota_exhausted"), (433, "quota_exhausted"), (401, "auth_failed"), (500, "unavailable")]
)
def test_status_codes_map_to_error_classes(status: int, code: str) -> None:
    with pytest.raises(WebreachError) as caught:
        make_engine("tavily").handle(answer(status, {"detail": {"error": "nope"}}))
    assert caught.value.code == code


def test_rate_limit_honours_the_header_then_the_keyless_envelope() -> None:
    engine = make_engine("tavily")
    with pytest.raises(WebreachError) as caught:
        engine.handle(answer(429, {"detail": {"error": "Your request has been blocked"}}, {"retry-after": "30"}))
    assert (caught.value.code, caught.value.retry_after) == ("rate_limited", 30.0)
    with pytest.raises(WebreachError) as caught:
        engine.handle(answer(429, {"error": {"code": "rate_limited", "retry_after_seconds": 60}}))
    assert caught.value.retry_after == 60.0


def test_a_wait_no_number_holds_counts_as_not_given() -> None:
    """A 400-digit Retry-After is infinite as a float, and a JSON body may say NaN: JSON output has no spelling
    for either (strict parsers reject Infinity), so the error carries no retry_after."""
    engine = make_engine("tavily")
    with pytest.raises(WebreachError) as caught:
        engine.handle(answer(429, {"detail": {"error": "blocked"}}, {"retry-after": "9" * 400}))
    assert (caught.value.code, caught.value.retry_after) == ("rate_limited", None)
    with pytest.raises(WebreachError) as caught:
        engine.handle(answer(429, {"error": {"code": "rate_limited", "retry_after_seconds": float("nan")}}))
    assert caught.value.retry_after is None
    assert json.loads(json.dumps(caught.value.to_dict(), allow_nan=False))["retry_after"] is None


@pytest.mark.parametrize("status", [401, 403, 429, 432, 433, 500])
def test_the_key_never_appears_in_an_error(status: int) -> None:
    with pytest.raises(WebreachError) as caught:
        make_engine("tavily").handle(answer(status, {"detail": {"error": f"Invalid API key: {TEST_KEY}"}}))
    assert TEST_KEY not in str(caught.value)
