"""The Gateway end to end in-process: real HTTP over loopback to the fake web, real policies and routing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from secret_keys import GATEWAY_KEY
from webreach import (
    AllEnginesFailedError,
    BlockedError,
    EngineSettings,
    Gateway,
    InvalidInputError,
    NotConfiguredError,
    ReadRequest,
    SearchRequest,
    Settings,
    Toolbox,
)
from webreach.config import CacheSettings
from webreach.errors import WebreachError
from webreach.gateway import ReadOverrides
from webreach.testing import FakeWeb

pytestmark = pytest.mark.network
SECRET = GATEWAY_KEY


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


def settings_for(web: FakeWeb, **overrides: Any) -> Settings:
    fields: dict[str, Any] = {"fake_web": web.url, "hedge_delay": 0.5, "request_deadline": 10.0}
    fields.update(overrides)
    return Settings(**fields)


async def test_named_engine_answers_from_the_fake_web(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings_for(web)) as gateway:
        response = await gateway.search(SearchRequest(query="python asyncio", limit=3), engine="bing")
    assert 0 < len(response.results) <= 3
    assert {hit.engine for hit in response.results} == {"bing"}
    assert response.meta.mode == "engine"
    assert web.count("bing") == 1


async def test_second_identical_search_is_served_from_cache(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings_for(web)) as gateway:
        request = SearchRequest(query="python asyncio")
        await gateway.search(request, engine="mojeek")
        again = await gateway.search(SearchRequest(query="  Python   asyncio "), engine="mojeek")
    assert again.meta.attempts[0].cached is True
    assert web.count("mojeek") == 1


async def test_multi_merges_and_dedupes_across_engines(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings_for(web)) as gateway:
        response = await gateway.search(
            SearchRequest(query="python asyncio", limit=20), engine="multi", engines=["bing", "mojeek", "brave"]
        )
    urls = [hit.url.rstrip("/") for hit in response.results]
    assert len(urls) == len(set(urls)), "no URL twice"
    shared = [hit for hit in response.results if len(hit.engines) > 1]
    assert shared, "a page several engines found is listed once, naming every engine"
    assert shared[0].rank < response.results[-1].rank, "agreement ranks higher"
    assert set(response.meta.engines_used) == {"bing", "mojeek", "brave"}


async def test_auto_moves_past_a_blocked_engine_and_suspends_it(web: FakeWeb) -> None:
    web.set_scenario("duckduckgo", fault="captcha")
    async with Gateway.from_settings(settings_for(web, auto_order=["duckduckgo", "mojeek"])) as gateway:
        first = await gateway.search(SearchRequest(query="python asyncio"))
        second = await gateway.search(SearchRequest(query="asyncio event loop"))
    assert [a.code for a in first.meta.attempts] == ["captcha", None]
    assert second.meta.attempts[0].status == "skipped"
    assert second.meta.attempts[0].code == "suspended"
    assert second.meta.attempts[0].retry_after and second.meta.attempts[0].retry_after > 60
    assert web.count("duckduckgo") == 1, "a suspended engine gets no request"


async def test_single_engine_error_is_the_engines_own_typed_error(web: FakeWeb) -> None:
    web.set_scenario("bing", fault="captcha")
    async with Gateway.from_settings(settings_for(web)) as gateway:
        with pytest.raises(BlockedError) as caught:
            await gateway.search(SearchRequest(query="python asyncio"), engine="bing")
    assert caught.value.code == "captcha"
    assert caught.value.engine == "bing"


async def test_stale_cache_answers_when_every_engine_fails(web: FakeWeb) -> None:
    cache = CacheSettings(ttl_seconds=0.0001)
    async with Gateway.from_settings(settings_for(web, cache=cache, auto_order=["mojeek"])) as gateway:
        await gateway.search(SearchRequest(query="python asyncio"))
        web.set_scenario("mojeek", status=503)
        stale = await gateway.search(SearchRequest(query="python asyncio"))
    assert stale.meta.stale is True
    assert stale.results
    assert stale.meta.attempts[0].code == "unavailable"


async def test_all_engines_failing_lists_every_reason(web: FakeWeb) -> None:
    web.set_scenario("mojeek", status=503)
    web.set_scenario("bing", fault="captcha")
    async with Gateway.from_settings(settings_for(web, auto_order=["bing", "mojeek"])) as gateway:
        with pytest.raises(AllEnginesFailedError) as caught:
            await gateway.search(SearchRequest(query="python asyncio"))
    body = caught.value.to_dict()
    assert body["code"] == "all_engines_failed"
    assert [e["code"] for e in body["errors"]] == ["captcha", "unavailable"]
    assert [a["engine"] for a in body["attempts"]] == ["bing", "mojeek"]


async def test_unknown_engine_lists_valid_ones(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings_for(web)) as gateway:
        with pytest.raises(InvalidInputError) as caught:
            await gateway.search(SearchRequest(query="q"), engine="altavista")
    assert "duckduckgo" in str(caught.value)


async def test_api_engine_without_key_is_not_configured_and_left_out_of_auto(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings_for(web)) as gateway:
        with pytest.raises(NotConfiguredError):
            await gateway.search(SearchRequest(query="q"), engine="tavily")
        assert "tavily" not in gateway.engines.auto_order("python asyncio")
        assert gateway.engines.auto_order("异步编程 教程")[0] in ("baidu", "sogou")
    assert web.count("tavily") == 0


async def test_api_key_reaches_the_provider_but_never_output_or_reprs() -> None:
    engines = {"tavily": EngineSettings(api_key=SECRET)}  # type: ignore[arg-type]
    async with FakeWeb(log_secrets=True) as web:  # the log keeps the key only because this test asks it to
        settings = settings_for(web, engines=engines)
        async with Gateway.from_settings(settings) as gateway:
            response = await gateway.search(SearchRequest(query="python asyncio"), engine="tavily")
            statuses = gateway.engines.statuses()
    sent = web.requests("tavily")[0]
    assert SECRET in str(sent.headers) + str(sent.body)
    for text in (response.model_dump_json(), repr(settings), str(settings.model_dump()), repr(statuses)):
        assert SECRET not in text


async def test_chinese_query_is_searched_as_zh_cn_without_reporting_unasked_parameters(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings_for(web)) as gateway:
        response = await gateway.search(SearchRequest(query="异步编程 教程"), engine="bing")
        assert gateway.engines.auto_order("异步编程 教程")[:2] == ["baidu", "sogou"]
    sent = web.requests("bing")[0]
    assert "zh" in sent.query.lower() and "cn" in sent.query.lower(), sent.query
    assert response.meta.attempts[0].unsupported == ()


async def test_repeated_tool_calls_over_one_gateway_keep_refs_per_session(web: FakeWeb) -> None:
    text = '{"query": "python asyncio", "engine": "mojeek"}'

    def shown(result: Any) -> dict[str, int]:
        assert not result.is_error
        return {hit["url"]: hit["ref"] for hit in result.data["results"]}

    async with Gateway.from_settings(settings_for(web, state={"backend": "memory"})) as gateway:
        tools = Toolbox.over(gateway)
        first = shown(await tools.call("web_search", text, session="a", output="json"))
        bing = '{"query": "x", "engine": "bing"}'
        earlier_in_b = shown(await tools.call("web_search", bing, session="b", output="json"))
        in_b = shown(await tools.call("web_search", text, session="b", output="json"))
        again = await tools.call("web_search", text, session="a", output="json")
    assert list(first.values()) == list(range(1, len(first) + 1))
    assert shown(again) == first and again.data["meta"]["attempts"][0]["cached"] is True
    # session b numbers on from its own earlier search: the cached results are shared, refs are not
    expected = dict(earlier_in_b)
    for url in first:
        expected.setdefault(url, len(expected) + 1)
    assert in_b == {url: expected[url] for url in first}
    assert set(earlier_in_b) != set(first)


async def test_read_overrides_are_given_at_construction(web: FakeWeb) -> None:
    """The operator's --resolve/--allow-cidr (CLI fetch) are part of the gateway's network seam from the start:
    a name only the override table knows reaches the loopback page, and without the overrides it is refused."""
    port = web.url.rsplit(":", 1)[1]
    url = f"http://pages.override.test:{port}/_pages/article?title=Overridden"
    overrides = ReadOverrides(resolve=["pages.override.test:127.0.0.1"], allow_cidrs=["127.0.0.0/8"], timeout=5.0)
    plain = Settings(state={"backend": "memory"}, cache=CacheSettings(backend="none"))
    async with Gateway.from_settings(plain, read_overrides=overrides) as gateway:
        page = await gateway.read(ReadRequest.create(url=url))
    assert "Overridden" in page.content
    async with Gateway.from_settings(plain) as gateway:
        with pytest.raises(WebreachError):
            await gateway.read(ReadRequest.create(url=url))


def test_a_malformed_resolve_override_is_a_typed_error() -> None:
    with pytest.raises(InvalidInputError):
        Gateway.from_settings(Settings(state={"backend": "memory"}), read_overrides=ReadOverrides(resolve=["bad"]))


def test_the_gateway_offers_tools_a_small_surface() -> None:
    """Search, read and images for the tools; the control plane on its own objects (issue 36). engine_settings is
    the tools' read of the providers' current settings (the desktop-agent profile's default provider, issue 39);
    check_engines, the doors' start-up check of configured engine names against the registry (issue 38);
    answers_at_once, whether a search is answered by the in-process cache (metering charges it in one transaction)."""
    public = {name for name in vars(Gateway) if not name.startswith("_")}
    assert public == {"from_settings", "aclose", "follow_shared_state", "search", "engine_names", "read"} | {
        "images",  # a property: the images open on first use (issue 38, start-up)
        "count_tokens",
        "extract_file",
        "engine_settings",
        "check_engines",
        "answers_at_once",
    }
    assert not hasattr(Gateway, "override_reading") and not hasattr(Gateway, "engine_statuses")
