"""Metaso: request dialect and answer parsing (no real capture exists in shared/data; the recordings are ours)."""

from __future__ import annotations

import json

import httpx
import pytest

from webreach.errors import WebreachError
from webreach.models import SearchRequest

from .capture import TEST_KEY, assert_good_hits, make_engine


def answer(status: int, body: object) -> httpx.Response:
    request = make_engine("metaso").build_request(SearchRequest(query="q"))
    content = json.dumps(body, ensure_ascii=False).encode()
    return httpx.Response(status, headers={"content-type": "application/json"}, content=content, request=request)


def page(position: int, link: str, date: str = "") -> dict[str, object]:
    return {
        "title": f"标题 {position}",
        "link": link,
        "score": "high",
        "snippet": "摘要",
        "position": position,
        "date": date,
    }


def test_request_body_and_bearer_key() -> None:
    engine = make_engine("metaso")
    request = SearchRequest(query="大模型", limit=30, page=2, site="zhihu.com", freshness="day")
    built = engine.build_request(request)
    assert (built.method, str(built.url)) == ("POST", "https://metaso.cn/api/v1/search")
    assert built.headers["Authorization"] == f"Bearer {TEST_KEY}"
    assert json.loads(built.content) == {
        "q": "大模型 site:zhihu.com",
        "scope": "webpage",
        "size": 20,
        "page": 2,
        "includeSummary": False,
    }
    assert engine.unsupported(request) == ("freshness",)


def test_webpages_parse_in_position_order_with_iso_dates() -> None:
    body = {
        "credits": 3,
        "webpages": [page(2, "https://b.example/", "2024年3月5日"), page(1, "https://a.example/", "2024-01-02")],
    }
    hits = make_engine("metaso").handle(answer(200, body))
    assert_good_hits(hits)
    assert [(h.url, h.date) for h in hits] == [
        ("https://a.example/", "2024-01-02"),
        ("https://b.example/", "2024-03-05"),
    ]


def test_the_nested_webpage_form_parses_too() -> None:
    body = {"webpages": {"webpage": [page(1, "https://a.example/")]}}
    assert [h.url for h in make_engine("metaso").handle(answer(200, body))] == ["https://a.example/"]


def test_empty_list_is_no_results_and_a_missing_one_is_a_parse_error() -> None:
    assert make_engine("metaso").handle(answer(200, {"credits": 3, "webpages": [], "total": 0})) == []
    with pytest.raises(WebreachError) as caught:
        make_engine("metaso").handle(answer(200, {"credits": 3}))
    assert caught.value.code == "parse_error"


@pytest.mark.parametrize(
    ("status", "code"), [(401, "auth_failed"), (402, "quota_exhausted"), (429, "rate_limited"), (502, "unavailable")]
)
def test_status_codes_map_to_error_classes_without_the_key(status: int, code: str) -> None:
    with pytest.raises(WebreachError) as caught:
        make_engine("metaso").handle(answer(status, {"errCode": status, "errMsg": f"key {TEST_KEY}"}))
    assert caught.value.code == code
    assert TEST_KEY not in str(caught.value)
