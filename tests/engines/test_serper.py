"""Serper against its real captures (api/serper and the MetaGPT cache in api/_mixed) and its request dialect."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from webreach.errors import WebreachError
from webreach.models import SearchRequest

from .capture import TEST_KEY, assert_good_hits, make_engine, parse_capture


def answer(status: int, content: bytes) -> httpx.Response:
    request = make_engine("serper").build_request(SearchRequest(query="q"))
    return httpx.Response(status, headers={"content-type": "application/json"}, content=content, request=request)


def cached_serper_answers(shared_data: Path) -> dict[str, bytes]:
    """The Serper entries of MetaGPT's response cache, keyed by the query body MetaGPT sent."""
    cache = json.loads((shared_data / "api/_mixed/metagpt__search_rsp_cache.json").read_text(encoding="utf-8"))
    return {
        json.loads(key.split("-", 3)[3])["data"]: json.dumps(value).encode()
        for key, value in cache.items()
        if "google.serper.dev" in key
    }


def test_real_answer_parses_to_its_nine_results_with_iso_dates(shared_data: Path) -> None:
    """haystack__test_serperdev.py is Python; its response dict was dumped verbatim to the .derived.json used here."""
    hits = parse_capture("serper", shared_data / "api/serper/haystack__EXAMPLE_SERPERDEV_RESPONSE.derived.json")
    assert_good_hits(hits)
    assert len(hits) == 9
    assert hits[0].url == (
        "https://pagesix.com/2023/01/29/olivia-wilde-hugs-it-out-with-jason-sudeikis-after-harry-styles-split/"
    )
    assert hits[0].title == "Olivia Wilde embraces Jason Sudeikis amid custody battle, Harry Styles split - Page Six"
    assert hits[0].date == "2023-01-29"  # shown as "Jan 29, 2023"
    assert hits[1].date == "2023-02-10"


@pytest.mark.parametrize(
    ("file", "count"), [("metagpt__serper-metagpt-6.json", 6), ("metagpt__serper-metagpt-8.json", 8)]
)
def test_real_batch_answers_parse_their_single_answer(shared_data: Path, file: str, count: int) -> None:
    """These are Serper's batch form: a top-level JSON list holding one answer per query sent."""
    hits = parse_capture("serper", shared_data / "api/serper" / file)
    assert_good_hits(hits)
    assert len(hits) == count
    assert hits[0].url == "https://github.com/geekan/MetaGPT"
    assert hits[1].url == "https://arxiv.org/abs/2308.00352"
    assert hits[1].date == "2023-08-01"


@pytest.mark.parametrize(
    ("sent", "count", "first_url"),
    [
        ('[{"num": 8, "page": 1, "q": "metagpt"}]', 8, "https://github.com/geekan/MetaGPT"),
        ('[{"num": 6, "page": 1, "q": "metagpt"}]', 6, "https://github.com/geekan/MetaGPT"),
        ('[{"num": 6, "page": 1, "q": "ai agent"}]', 5, "https://aiagent.app/"),
    ],
)
def test_real_cached_answers_parse(shared_data: Path, sent: str, count: int, first_url: str) -> None:
    hits = make_engine("serper").handle(answer(200, cached_serper_answers(shared_data)[sent]))
    assert_good_hits(hits)
    assert len(hits) == count
    assert hits[0].url == first_url


def test_request_body_maps_every_google_parameter_and_the_key_header() -> None:
    engine = make_engine("serper")
    request = SearchRequest(
        query="metagpt", limit=8, page=2, site="github.com", freshness="year", language="en", region="us"
    )
    built = engine.build_request(request)
    assert (built.method, str(built.url)) == ("POST", "https://google.serper.dev/search")
    assert built.headers["X-API-KEY"] == TEST_KEY
    assert json.loads(built.content) == {
        "q": "metagpt site:github.com",
        "num": 8,
        "page": 2,
        "gl": "us",
        "hl": "en",
        "tbs": "qdr:y",
    }
    assert engine.unsupported(SearchRequest(query="q", safesearch="off")) == ("safesearch",)


def test_results_follow_position_and_a_missing_organic_block_is_no_results() -> None:
    body = {
        "searchParameters": {"q": "x"},
        "organic": [
            {"title": "Second", "link": "https://b.example/", "position": 2},
            {"title": "First", "link": "https://a.example/", "position": 1},
        ],
    }
    hits = make_engine("serper").handle(answer(200, json.dumps(body).encode()))
    assert [(h.rank, h.title) for h in hits] == [(1, "First"), (2, "Second")]
    assert make_engine("serper").handle(answer(200, b'{"searchParameters": {"q": "x"}, "credits": 1}')) == []
    with pytest.raises(WebreachError) as caught:
        make_engine("serper").handle(answer(200, b'{"message": "weird"}'))
    assert caught.value.code == "parse_error"


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (403, b'{"message": "Unauthorized.", "statusCode": 403}', "auth_failed"),
        (400, b'{"message": "Not enough credits", "statusCode": 400}', "quota_exhausted"),
        (400, b'{"message": "Invalid tbs", "statusCode": 400}', "bad_request"),
        (429, b'{"message": "Too many requests"}', "rate_limited"),
        (500, b"oops", "unavailable"),
    ],
)
def test_errors_map_to_their_classes_without_the_key(status: int, body: bytes, code: str) -> None:
    with pytest.raises(WebreachError) as caught:
        make_engine("serper").handle(answer(status, body.replace(b"}", f', "key": "{TEST_KEY}"}}'.encode())))
    assert caught.value.code == code
    assert TEST_KEY not in str(caught.value)
