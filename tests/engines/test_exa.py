"""Exa: request dialect and answer parsing (no real capture exists in shared/data; the recordings are ours)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
import pytest

from webreach.engines.exa import published_since
from webreach.errors import WebreachError
from webreach.models import SearchRequest
from webreach.testing import FakeClock
from webreach.testing.recordings import engine_recordings

from .capture import TEST_KEY, assert_good_hits, make_engine


def answer(status: int, body: object) -> httpx.Response:
    request = make_engine("exa").build_request(SearchRequest(query="q"))
    return httpx.Response(
        status, headers={"content-type": "application/json"}, content=json.dumps(body).encode(), request=request
    )


def test_request_uses_camel_case_fields_and_the_key_header() -> None:
    engine = make_engine("exa")
    request = SearchRequest(query="llm agents", limit=25, site="arxiv.org", region="de", safesearch="strict", page=2)
    built = engine.build_request(request)
    body = json.loads(built.content)
    assert (built.method, str(built.url)) == ("POST", "https://api.exa.ai/search")
    assert built.headers["x-api-key"] == TEST_KEY
    assert body["query"] == "llm agents"
    assert body["numResults"] == 25
    assert body["includeDomains"] == ["arxiv.org"]
    assert body["userLocation"] == "DE"
    assert body["moderation"] is True
    assert body["contents"] == {"highlights": {"maxCharacters": 500}}
    assert engine.unsupported(request) == ("page",)


def test_freshness_becomes_an_absolute_start_date_by_the_engine_clock() -> None:
    assert published_since("week", datetime(2025, 3, 10, 15, 0, tzinfo=UTC).timestamp()) == "2025-03-03T00:00:00.000Z"
    assert published_since("day", datetime(2025, 1, 1, 0, 5, tzinfo=UTC).timestamp()) == "2024-12-31T00:00:00.000Z"
    engine = make_engine("exa", clock=FakeClock(1_700_000_000))  # 2023-11-14 22:13 UTC
    body = json.loads(engine.build_request(SearchRequest(query="q", freshness="year")).content)
    assert body["startPublishedDate"] == "2022-11-14T00:00:00.000Z"


def test_results_take_highlights_as_snippets_and_fall_back_for_empty_titles() -> None:
    body = {
        "results": [
            {
                "url": "https://a.example/1",
                "title": "",
                "highlights": ["one", "two"],
                "publishedDate": "2024-01-02T00:00:00.000Z",
            },
            {"url": "https://b.example/2", "title": "B", "text": "x" * 900, "author": "Jane Doe"},
            {"title": "no url, skipped"},
        ]
    }
    hits = make_engine("exa").handle(answer(200, body))
    assert_good_hits(hits)
    assert hits[0].title == "https://a.example/1"
    assert hits[0].snippet == "one … two"
    assert (hits[0].date, hits[0].source) == ("2024-01-02", "a.example")  # a midnight is the day (issue 41)
    assert (len(hits[1].snippet), hits[1].source) == (500, "Jane Doe")


def test_recorded_results_parse() -> None:
    hits = make_engine("exa").handle(engine_recordings("exa")["results"].to_response())
    assert [h.url for h in hits][:2] == [
        "https://docs.python.org/3/library/asyncio.html",
        "https://realpython.com/async-io-python/",
    ]


def test_empty_list_is_no_results_and_a_missing_one_is_a_parse_error() -> None:
    engine = make_engine("exa")
    assert engine.handle(answer(200, {"requestId": "r", "results": []})) == []
    with pytest.raises(WebreachError) as caught:
        engine.handle(answer(200, {"requestId": "r"}))
    assert caught.value.code == "parse_error"


@pytest.mark.parametrize(
    ("status", "code"), [(401, "auth_failed"), (402, "quota_exhausted"), (429, "rate_limited"), (502, "unavailable")]
)
def test_status_codes_map_to_error_classes_without_the_key(status: int, code: str) -> None:
    with pytest.raises(WebreachError) as caught:
        make_engine("exa").handle(answer(status, {"requestId": "r", "error": f"key {TEST_KEY} rejected"}))
    assert caught.value.code == code
    assert TEST_KEY not in str(caught.value)
