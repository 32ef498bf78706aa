"""Google Custom Search JSON API against its real captures (api/google_cse and the MetaGPT cache) and dialect."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from webreach import engines
from webreach.config import EngineSettings
from webreach.errors import NotConfiguredError, WebreachError
from webreach.models import SearchRequest

from .capture import TEST_KEY, assert_good_hits, make_engine, parse_capture

CX = "0123456789abcdef0"


def configured() -> engines.Engine:
    return make_engine("google_cse", {"cx": CX})


def answer(status: int, body: object, headers: dict[str, str] | None = None) -> httpx.Response:
    request = configured().build_request(SearchRequest(query="q"))
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"content-type": "application/json", **(headers or {})}
    return httpx.Response(status, headers=headers, content=content, request=request)


def google_error(code: int, message: str, reason: str, status: str, *details: dict[str, str]) -> dict[str, object]:
    errors = [{"message": message, "domain": "global", "reason": reason}]
    return {"error": {"code": code, "message": message, "errors": errors, "status": status, "details": list(details)}}


def cached_cse_answers(shared_data: Path) -> dict[str, bytes]:
    """The Custom Search entries of MetaGPT's response cache (stored as JSON strings), keyed by `num`."""
    cache = json.loads((shared_data / "api/_mixed/metagpt__search_rsp_cache.json").read_text(encoding="utf-8"))
    return {
        json.loads(key.split("-", 3)[3])["params"]["num"]: value.encode()
        for key, value in cache.items()
        if "customsearch" in key
    }


def test_real_answer_parses_with_dates_from_the_snippet_prefix(shared_data: Path) -> None:
    hits = parse_capture("google_cse", shared_data / "api/google_cse/sk__google_what_is_the_semantic_kernel.json")
    assert_good_hits(hits)
    assert len(hits) == 4
    assert hits[0].url == "https://learn.microsoft.com/en-us/semantic-kernel/overview/"
    assert hits[0].title == "Introduction to Semantic Kernel | Microsoft Learn"
    assert hits[0].date == "2024-06-24"  # from "Jun 24, 2024 ... "
    assert hits[0].snippet.startswith("In this article ... Semantic Kernel is a lightweight")
    assert (hits[1].url, hits[1].source) == ("https://github.com/microsoft/semantic-kernel", "github.com")


def test_real_site_filtered_answer_with_a_byte_order_mark_parses(shared_data: Path) -> None:
    path = shared_data / "api/google_cse/sk__google_site_filter_devblogs_microsoft.com.json"
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    hits = parse_capture("google_cse", path)
    assert_good_hits(hits)
    assert len(hits) == 4
    assert hits[0].url == "https://devblogs.microsoft.com/semantic-kernel/hello-world/"
    assert hits[0].date == "2023-03-17T13:00:23+00:00"  # the page's own article:published_time wins
    assert not hits[0].snippet.startswith("Mar 17, 2023")
    assert all(h.source == "devblogs.microsoft.com" for h in hits)


@pytest.mark.parametrize(("num", "count"), [("8", 8), ("6", 6)])
def test_real_cached_answers_stored_as_strings_parse(shared_data: Path, num: str, count: int) -> None:
    hits = configured().handle(answer(200, cached_cse_answers(shared_data)[num]))
    assert_good_hits(hits)
    assert len(hits) == count
    assert hits[0].url == "https://github.com/geekan/MetaGPT"
    assert (hits[1].url, hits[1].date) == ("https://arxiv.org/abs/2308.00352", "2023-08-01")


def test_request_carries_cx_and_every_parameter_and_the_key_only_in_a_header() -> None:
    request = SearchRequest(
        query="kernel",
        limit=25,
        page=3,
        site="devblogs.microsoft.com",
        freshness="month",
        language="zh-tw",
        region="tw",
        safesearch="strict",
    )
    built = configured().build_request(request)
    assert str(built.url).startswith("https://www.googleapis.com/customsearch/v1?")
    assert dict(built.url.params) == {
        "q": "kernel",
        "num": "10",  # the API's cap
        "cx": CX,
        "start": "21",
        "siteSearch": "devblogs.microsoft.com",
        "siteSearchFilter": "i",
        "dateRestrict": "m1",
        "lr": "lang_zh-TW",
        "hl": "zh-tw",
        "gl": "tw",
        "safe": "active",
    }
    assert built.headers["X-Goog-Api-Key"] == TEST_KEY
    assert TEST_KEY not in str(built.url)  # URLs reach logs, proxies and error texts; headers do not
    assert configured().unsupported(request) == ()


def test_key_and_cx_are_both_required() -> None:
    with pytest.raises(NotConfiguredError, match="cx"):
        make_engine("google_cse").ensure_configured()  # a key but no cx
    with pytest.raises(NotConfiguredError, match="API key"):
        engines.create("google_cse", EngineSettings(options={"cx": CX})).ensure_configured()
    configured().ensure_configured()


def test_missing_items_with_search_information_is_no_results() -> None:
    body = {"kind": "customsearch#search", "searchInformation": {"totalResults": "0", "formattedTotalResults": "0"}}
    assert configured().handle(answer(200, body)) == []
    with pytest.raises(WebreachError) as caught:
        configured().handle(answer(200, {"kind": "customsearch#search"}))
    assert caught.value.code == "parse_error"


def test_snippet_date_prefix_is_split_off() -> None:
    items = [
        {"link": "https://a.example/", "title": "A", "snippet": "Mar 17, 2023 ... Semantic Kernel (SK) is"},
        {"link": "https://b.example/", "title": "B", "snippet": "Overview ... no date"},
    ]
    hits = configured().handle(answer(200, {"items": items}))
    assert [(h.date, h.snippet) for h in hits] == [
        ("2023-03-17", "Semantic Kernel (SK) is"),
        (None, "Overview ... no date"),
    ]


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (
            400,
            google_error(400, "API key not valid. Please pass a valid API key.", "keyInvalid", "INVALID_ARGUMENT"),
            "auth_failed",
        ),
        (400, google_error(400, "Invalid Value", "invalid", "INVALID_ARGUMENT"), "bad_request"),
        (403, google_error(403, "Daily Limit Exceeded", "dailyLimitExceeded", "PERMISSION_DENIED"), "quota_exhausted"),
        (
            403,
            google_error(403, "The caller does not have permission", "forbidden", "PERMISSION_DENIED"),
            "auth_failed",
        ),
        (
            429,
            google_error(
                429,
                "Quota exceeded for quota metric 'Queries' and limit 'Queries per day'",
                "rateLimitExceeded",
                "RESOURCE_EXHAUSTED",
            ),
            "quota_exhausted",
        ),
        (
            429,
            google_error(
                429,
                "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute'",
                "rateLimitExceeded",
                "RESOURCE_EXHAUSTED",
            ),
            "rate_limited",
        ),
        (503, google_error(503, "Backend Error", "backendError", "UNAVAILABLE"), "unavailable"),
    ],
)
def test_google_api_errors_map_to_their_classes(status: int, body: dict[str, object], code: str) -> None:
    with pytest.raises(WebreachError) as caught:
        configured().handle(answer(status, body))
    assert caught.value.code == code


def test_newer_error_info_reason_marks_an_invalid_key() -> None:
    info = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}
    body = google_error(400, "API key not valid. Please pass a valid API key.", "badRequest", "INVALID_ARGUMENT", info)
    with pytest.raises(WebreachError) as caught:
        configured().handle(answer(400, body))
    assert caught.value.code == "auth_failed"


@pytest.mark.parametrize("status", [400, 403, 429, 500])
def test_the_key_never_appears_in_an_error(status: int) -> None:
    body = google_error(status, f"API key {TEST_KEY} not valid", "keyInvalid", "INVALID_ARGUMENT")
    with pytest.raises(WebreachError) as caught:
        configured().handle(answer(status, body))
    assert TEST_KEY not in str(caught.value)
