"""Jina search without a key (issue 39 Deliver 6): opt-in with `[engines.jina] options = {keyless = "true"}`, no
Authorization sent, paced at the anonymous tier's 100 a minute, auth_failed with the next step when Jina demands a
key, and never first in the default auto order (a configured order puts it first: the multi-agent contract's)."""

from __future__ import annotations

import json

import httpx
import pytest

from webreach import Gateway, Settings, engines
from webreach.config import EngineSettings
from webreach.engines.jina import Jina
from webreach.errors import NotConfiguredError, WebreachError
from webreach.models import SearchRequest
from webreach.testing import FakeWeb

from .capture import TEST_KEY

KEYLESS = {"options": {"keyless": "true"}}


def jina(**settings: object) -> engines.Engine:
    return engines.create("jina", EngineSettings.model_validate(settings))


def test_keyless_sends_no_key_and_paces_at_the_free_tier() -> None:
    engine = jina(**KEYLESS)
    engine.ensure_configured()  # usable without a key
    built = engine.build_request(SearchRequest(query="rust async"))
    assert "authorization" not in {name.lower() for name in built.headers}
    assert json.loads(built.content)["q"] == "rust async"
    assert engine.settings.rate_per_minute == Jina.keyless_rate == 100
    assert jina(**KEYLESS, rate_per_minute=30).settings.rate_per_minute == 30  # the operator's rate wins


def test_without_the_option_a_key_is_still_needed_and_a_key_wins_over_the_option() -> None:
    with pytest.raises(NotConfiguredError):
        jina().ensure_configured()
    keyed = jina(**KEYLESS, api_key=TEST_KEY)
    assert not keyed.keyless and keyed.settings.rate_per_minute is None
    assert keyed.build_request(SearchRequest(query="q")).headers["Authorization"] == f"Bearer {TEST_KEY}"


def test_a_refused_anonymous_search_says_to_set_a_key() -> None:
    engine = jina(**KEYLESS)
    body = {"code": 401, "status": 40101, "name": "AuthenticationRequiredError", "message": "Authentication required"}
    request = engine.build_request(SearchRequest(query="q"))
    with pytest.raises(WebreachError) as caught:
        engine.handle(httpx.Response(401, json=body, request=request))
    assert caught.value.code == "auth_failed"
    assert "WEBREACH_ENGINES__JINA__API_KEY" in str(caught.value.hint) and "without a key" in caught.value.message


async def test_keyless_jina_over_the_fake_web_first_where_configured_and_last_by_default() -> None:
    async with FakeWeb() as web:
        base = {"fake_web": web.url, "state": {"backend": "memory"}, "engines": {"jina": KEYLESS}}
        async with Gateway.from_settings(Settings(**base, auto_order=["jina", "duckduckgo"])) as gateway:
            assert gateway.engines.auto_order("python asyncio")[0] == "jina"
            found = await gateway.search(SearchRequest(query="python asyncio"))
            assert found.meta.engines_used == ("jina",) and found.results
            sent = [entry for entry in web.requests() if entry.engine == "jina"]
            assert sent and all("authorization" not in entry.headers for entry in sent)
            web.set_scenario("jina", key="a-key-jina-wants")  # the service now demands a key
            moved_on = await gateway.search(SearchRequest(query="rust tokio"))
            refused = next(attempt for attempt in moved_on.meta.attempts if attempt.engine == "jina")
            assert refused.code == "auth_failed" and moved_on.meta.engines_used == ("duckduckgo",)
        async with Gateway.from_settings(Settings(**base)) as gateway:
            order = gateway.engines.auto_order("python asyncio")
            assert order[-1] == "jina" and "duckduckgo" in order  # by default, after every other engine
