"""Jina s.jina.ai search: request dialect, SERP parsing, and its civkit errors (no real capture in shared/data)."""

from __future__ import annotations

import json

import httpx
import pytest

from webreach.errors import WebreachError
from webreach.models import SearchRequest

from .capture import TEST_KEY, assert_good_hits, make_engine


def civkit(code: int, status: int, name: str, message: str) -> dict[str, object]:
    return {"data": None, "code": code, "name": name, "status": status, "message": message, "readableMessage": message}


def answer(status: int, body: object, headers: dict[str, str] | None = None) -> httpx.Response:
    request = make_engine("jina").build_request(SearchRequest(query="q"))
    headers = {"content-type": "application/json", **(headers or {})}
    return httpx.Response(status, headers=headers, content=json.dumps(body).encode(), request=request)


def test_request_asks_for_the_serp_only_with_a_bearer_key() -> None:
    engine = make_engine("jina")
    request = SearchRequest(
        query="rust async", limit=30, page=2, site="docs.rs", language="de", region="at", freshness="day"
    )
    built = engine.build_request(request)
    body = json.loads(built.content)
    assert (built.method, str(built.url)) == ("POST", "https://s.jina.ai/")
    assert built.headers["Authorization"] == f"Bearer {TEST_KEY}"
    assert built.headers["Accept"] == "application/json"
    assert built.headers["X-Respond-With"] == "no-content"  # no per-hit crawl: faster and cheaper
    assert body == {"q": "rust async site:docs.rs", "num": 20, "provider": "google", "page": 2, "gl": "at", "hl": "de"}
    assert engine.unsupported(request) == ("freshness",)
    assert "page" not in json.loads(engine.build_request(SearchRequest(query="q")).content)


def test_serp_entries_become_hits_with_iso_dates() -> None:
    body = {
        "code": 200,
        "status": 20000,
        "data": [
            {
                "title": "Tokio",
                "url": "https://tokio.rs/",
                "description": "An asynchronous runtime.",
                "date": "Jan 5, 2024",
            },
            {"title": "", "url": "https://docs.rs/futures", "description": "Futures.", "content": ""},
        ],
    }
    hits = make_engine("jina").handle(answer(200, body))
    assert_good_hits(hits)
    assert (hits[0].title, hits[0].snippet, hits[0].date) == ("Tokio", "An asynchronous runtime.", "2024-01-05")
    assert hits[1].title == "https://docs.rs/futures"


def test_the_no_results_assertion_is_zero_hits_not_an_error() -> None:
    body = civkit(422, 42206, "AssertionFailureError", "No search results available for query xqzvwk")
    assert make_engine("jina").handle(answer(422, body)) == []
    assert make_engine("jina").handle(answer(200, {"code": 200, "status": 20000, "data": []})) == []


def test_a_body_without_data_is_a_parse_error() -> None:
    with pytest.raises(WebreachError) as caught:
        make_engine("jina").handle(answer(200, {"code": 200, "status": 20000}))
    assert caught.value.code == "parse_error"


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (401, civkit(401, 40101, "AuthenticationRequiredError", "Authentication is required"), "auth_failed"),
        (402, civkit(402, 40203, "InsufficientBalanceError", "Account balance not enough"), "quota_exhausted"),
        (400, civkit(400, 40001, "ParamValidationError", "Invalid num"), "bad_request"),
        (503, civkit(503, 50301, "ServiceBadAttemptError", "Try later"), "unavailable"),
    ],
)
def test_civkit_errors_map_by_status(status: int, body: dict[str, object], code: str) -> None:
    with pytest.raises(WebreachError) as caught:
        make_engine("jina").handle(answer(status, body))
    assert caught.value.code == code


def test_rate_limit_carries_retry_after() -> None:
    body = civkit(429, 42903, "RateLimitTriggeredError", "Per UID rate limit exceeded")
    with pytest.raises(WebreachError) as caught:
        make_engine("jina").handle(answer(429, body, {"retry-after": "20"}))
    assert (caught.value.code, caught.value.retry_after) == ("rate_limited", 20.0)


@pytest.mark.parametrize("status", [401, 402, 429, 451, 503])
def test_the_key_never_appears_in_an_error(status: int) -> None:
    with pytest.raises(WebreachError) as caught:
        make_engine("jina").handle(answer(status, civkit(status, status * 100, "Error", f"bad key {TEST_KEY}")))
    assert TEST_KEY not in str(caught.value)
