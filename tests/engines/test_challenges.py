"""Challenge pages in front of any engine are CAPTCHAs, checked before statuses are read as key or quota problems.

A 403 from a Cloudflare or reCAPTCHA wall in front of an API says nothing about the key: reading it as
auth_failed would suspend a correctly keyed engine until it is reconfigured. Also here: engine messages never
carry the key (as written or URL-encoded) or the userinfo of a redirect target.
"""

from __future__ import annotations

import json

import httpx
import pytest

from webreach import engines
from webreach.config import EngineSettings
from webreach.errors import AuthFailedError, BlockedError
from webreach.models import SearchRequest
from webreach.testing.scenarios import challenge_page

from .capture import TEST_KEY, make_engine

OPTIONS: dict[str, dict[str, str]] = {"google_cse": {"cx": "0123456789abcdef0"}}
RECAPTCHA = (
    b'<html><head><script src="https://www.google.com/recaptcha/api.js" async defer></script></head>'
    b'<body><form id="captcha-form"><div class="g-recaptcha" data-sitekey="site-key"></div></form></body></html>'
)
API_ENGINES = [name for name in engines.names() if engines.engine_class(name).kind == "api"]


def answer(name: str, status: int, body: bytes, headers: list[tuple[str, str]]) -> httpx.Response:
    engine = make_engine(name, OPTIONS.get(name))
    request = engine.build_request(SearchRequest(query="python asyncio"))
    return httpx.Response(status, headers=headers, content=body, request=request)


@pytest.mark.parametrize("status", [403, 429, 503])
@pytest.mark.parametrize("name", engines.names())
def test_a_cloudflare_challenge_is_a_captcha_for_every_engine(name: str, status: int) -> None:
    wall = challenge_page()
    with pytest.raises(BlockedError) as caught:
        make_engine(name, OPTIONS.get(name)).handle(answer(name, status, wall.body, list(wall.headers)))
    assert caught.value.code == "captcha"
    assert caught.value.engine == name


@pytest.mark.parametrize("status", [403, 429, 503])
@pytest.mark.parametrize("name", API_ENGINES)
def test_a_recaptcha_wall_in_front_of_an_api_is_a_captcha(name: str, status: int) -> None:
    response = answer(name, status, RECAPTCHA, [("content-type", "text/html")])
    with pytest.raises(BlockedError) as caught:
        make_engine(name, OPTIONS.get(name)).handle(response)
    assert caught.value.code == "captcha"


def test_a_plain_403_from_an_api_still_means_the_key_was_rejected() -> None:
    body = json.dumps({"detail": {"error": "Unauthorized: missing or invalid API key."}}).encode()
    response = answer("tavily", 403, body, [("content-type", "application/json"), ("server", "cloudflare")])
    with pytest.raises(AuthFailedError):
        make_engine("tavily").handle(response)


def test_api_results_that_quote_challenge_markers_are_still_results() -> None:
    # a search about Cloudflare Turnstile: the snippets name its markers, and the API sits behind Cloudflare
    results = {
        "type": "search",
        "web": {
            "results": [
                {
                    "title": "Turnstile widget",
                    "url": "https://developers.cloudflare.com/turnstile/",
                    "description": 'Add <div class="cf-turnstile"> and /cdn-cgi/challenge-platform/ loads it.',
                }
            ]
        },
    }
    headers = [("content-type", "application/json"), ("server", "cloudflare")]
    hits = make_engine("brave_api").handle(answer("brave_api", 200, json.dumps(results).encode(), headers))
    assert [hit.url for hit in hits] == ["https://developers.cloudflare.com/turnstile/"]


def test_a_redirect_message_names_the_host_or_path_only() -> None:
    location = f"https://admin:hunter2@login.example:8443/sso?api_key={TEST_KEY}"
    response = answer("mojeek", 302, b"", [("location", location)])
    with pytest.raises(BlockedError) as caught:
        make_engine("mojeek").handle(response)
    message = str(caught.value)
    assert "login.example:8443" in message
    assert "hunter2" not in message and "admin" not in message and TEST_KEY not in message
    relative = answer("mojeek", 302, b"", [("location", f"/verify?next=%2F&api_key={TEST_KEY}")])
    with pytest.raises(BlockedError) as caught:
        make_engine("mojeek").handle(relative)
    assert "redirected to /verify (HTTP 302)" in str(caught.value)
    assert TEST_KEY not in str(caught.value)


@pytest.mark.parametrize("key", ["k+ey/with=odd&chars 1", TEST_KEY])
def test_redact_masks_the_key_as_written_and_url_encoded(key: str) -> None:
    engine = engines.create("serpapi", EngineSettings(api_key=key))  # type: ignore[arg-type]
    sent = engine.build_request(SearchRequest(query="q"))
    on_the_wire = str(sent.url).split("api_key=")[1].split("&")[0]
    redacted = engine.redact(f"GET {sent.url} failed; the key was {key}")
    assert key not in redacted
    assert on_the_wire not in redacted
    assert redacted.count("***") == 2
