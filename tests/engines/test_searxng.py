"""SearXNG (JSON API of a configured instance): configuration, request dialect and response mapping.

No real capture exists; the recordings (contract test) and the small bodies here follow the documented shape.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from webreach import engines
from webreach.config import EngineSettings
from webreach.errors import BlockedError, NotConfiguredError, ParseError, UnavailableError
from webreach.models import SearchRequest

INSTANCE = "http://127.0.0.1:8888/searx"


def configured() -> engines.Engine:
    return engines.create("searxng", EngineSettings(base_url=INSTANCE))


def _respond(status: int, body: Any, content_type: str = "application/json") -> httpx.Response:
    engine = configured()
    content = json.dumps(body).encode() if not isinstance(body, str) else body.encode()
    request = engine.build_request(SearchRequest(query="x"))
    return httpx.Response(status, headers={"content-type": content_type}, content=content, request=request)


def test_without_an_instance_url_the_engine_is_not_configured() -> None:
    engine = engines.create("searxng")
    assert engine.kind == "api"
    assert engine.needs_key is False
    with pytest.raises(NotConfiguredError) as caught:
        engine.ensure_configured()
    assert "BASE_URL" in caught.value.message
    configured().ensure_configured()  # an instance URL is all it needs


def test_disabled_instance_is_not_configured_either() -> None:
    engine = engines.create("searxng", EngineSettings(base_url=INSTANCE, enabled=False))
    with pytest.raises(NotConfiguredError):
        engine.ensure_configured()


def test_request_maps_every_parameter_to_the_json_api() -> None:
    request = SearchRequest(
        query="rust async", page=2, site="docs.rs", freshness="week", language="de", region="at", safesearch="strict"
    )
    sent = configured().build_request(request)
    assert str(sent.url).startswith(f"{INSTANCE}/search?")
    assert dict(sent.url.params) == {
        "q": "rust async site:docs.rs",
        "format": "json",
        "pageno": "2",
        "safesearch": "2",
        "time_range": "week",
        "language": "de-AT",
    }
    # the instance's limiter lets only browser-like clients through
    assert "text/html" in sent.headers["accept"]
    assert sent.headers["accept-language"]
    assert configured().unsupported(request) == ()


def test_defaults_and_a_region_without_language() -> None:
    engine = configured()
    request = SearchRequest(query="x", region="us")
    sent = engine.build_request(request)
    assert sent.url.params["safesearch"] == "1"
    assert sent.url.params["pageno"] == "1"
    assert "language" not in sent.url.params
    assert "time_range" not in sent.url.params
    assert engine.unsupported(request) == ("region",)


def test_results_map_to_hits_with_plain_text() -> None:
    body = {
        "query": "x",
        "results": [
            {
                "url": "https://example.org/a",
                "title": "A &amp; <b>B</b>",
                "content": "Some <em>snippet</em> text",
                "engine": "bing",
                "engines": ["bing", "google"],
                "publishedDate": "2024-05-01T00:00:00",
            },
            {"url": "magnet:?xt=urn:btih:abc", "title": "not a web page", "content": "", "engine": "torrent"},
            {"url": "https://example.org/b", "title": "B", "content": None, "engine": "google", "publishedDate": None},
        ],
        "unresponsive_engines": [],
    }
    hits = configured().handle(_respond(200, body))
    assert [(hit.rank, hit.url) for hit in hits] == [(1, "https://example.org/a"), (2, "https://example.org/b")]
    assert hits[0].title == "A & B"
    assert hits[0].snippet == "Some snippet text"
    assert hits[0].date == "2024-05-01"  # a bare midnight is the day, as every engine gives it (issue 41)
    assert hits[0].source == "bing"
    assert hits[1].date is None


def test_empty_results_are_no_results_unless_every_engine_failed() -> None:
    assert configured().handle(_respond(200, {"results": [], "unresponsive_engines": []})) == []
    failed = {"results": [], "unresponsive_engines": [["google", "CAPTCHA"], ["brave", "timeout"]]}
    with pytest.raises(UnavailableError) as caught:
        configured().handle(_respond(200, failed))
    assert "google (CAPTCHA)" in caught.value.message


WERKZEUG_FORBIDDEN = (
    "<!doctype html>\n<html lang=en>\n<title>403 Forbidden</title>\n<h1>Forbidden</h1>\n<p>You don&#39;t have "
    "the permission to access the requested resource. It is either read-protected or not readable by the server.</p>"
)


def test_json_disabled_on_the_instance_says_what_to_change() -> None:
    with pytest.raises(NotConfiguredError) as caught:
        configured().handle(_respond(403, WERKZEUG_FORBIDDEN, "text/html"))
    assert caught.value.code == "not_configured"
    assert caught.value.engine == "searxng"
    assert "search.formats" in (caught.value.hint or "")


@pytest.mark.parametrize(
    "body",
    [
        '<html><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script></html>',
        '<form id="challenge-form"><div class="cf-turnstile" data-sitekey="x"></div></form>',
        '<script src="https://www.google.com/recaptcha/api.js"></script><div class="g-recaptcha"></div>',
    ],
    ids=["cloudflare", "turnstile", "recaptcha"],
)
def test_a_challenge_in_front_of_the_instance_is_a_captcha_not_a_configuration_problem(body: str) -> None:
    with pytest.raises(BlockedError) as caught:
        configured().handle(_respond(403, body, "text/html"))
    assert caught.value.code == "captcha"


def test_another_403_is_a_proxy_refusing_us_not_the_json_setting() -> None:
    nginx = "<html><head><title>403 Forbidden</title></head><body><center><h1>403 Forbidden</h1></center></body>"
    with pytest.raises(BlockedError) as caught:
        configured().handle(_respond(403, nginx, "text/html"))
    assert caught.value.code == "blocked"
    assert "proxy or firewall" in caught.value.message


@pytest.mark.parametrize("body", ["<html>login</html>", [1, 2], {"answers": []}])
def test_an_answer_that_is_not_searxng_json_is_a_parse_error(body: Any) -> None:
    with pytest.raises(ParseError):
        configured().handle(_respond(200, body))
