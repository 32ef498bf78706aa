"""The shared JSON API steps of engines/_json.py: the keyed JSON POST, the Google-style body, listed results."""

from __future__ import annotations

import json

import httpx
import pytest

from webreach.engines._json import bearer, google_body, json_post, listed_results
from webreach.errors import ParseError
from webreach.models import SearchRequest


def test_json_post_sends_the_body_as_json_with_the_key_headers() -> None:
    built = json_post("https://api.test/search", {"q": "rust"}, {**bearer("k-1"), "X-Extra": "yes"})
    assert built.method == "POST"
    assert json.loads(built.content) == {"q": "rust"}
    assert built.headers["Authorization"] == "Bearer k-1"
    assert built.headers["X-Extra"] == "yes"
    assert built.headers["Accept"] == "application/json"
    assert built.headers["Content-Type"] == "application/json"


def test_google_body_sets_page_region_and_language_only_when_asked() -> None:
    assert google_body(SearchRequest(query="q"), 10) == {"q": "q", "num": 10}
    asked = SearchRequest(query="q", site="docs.rs", page=2, region="de", language="de")
    assert google_body(asked, 5) == {"q": "q site:docs.rs", "num": 5, "page": 2, "gl": "de", "hl": "de"}


def answer(body: object) -> httpx.Response:
    return httpx.Response(200, content=json.dumps(body).encode(), request=httpx.Request("POST", "https://api.test/"))


def test_listed_results_keeps_the_objects_that_carry_a_url() -> None:
    body = {"results": [{"url": "https://a.test/"}, {"url": ""}, "junk", {"title": "no url"}, {"link": "x"}]}
    assert listed_results(answer(body), "engine", "results") == [{"url": "https://a.test/"}]
    assert listed_results(answer(body), "engine", "results", url_key="link") == [{"link": "x"}]


@pytest.mark.parametrize("body", [{"data": []}, {"results": {"url": "x"}}, ["results"]])
def test_listed_results_without_the_list_is_a_parse_error(body: object) -> None:
    with pytest.raises(ParseError):
        listed_results(answer(body), "engine", "results")
