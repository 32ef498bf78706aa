"""Images through the Gateway: tokens from messages, crops as new <obs_i>, image search over the fake web."""

from __future__ import annotations

import base64
import io
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from secret_keys import TEST_KEY
from webreach import EngineSettings, Gateway, Settings
from webreach.config import StateSettings
from webreach.errors import (
    AllEnginesFailedError,
    AuthFailedError,
    BlockedError,
    InvalidInputError,
    SuspendedError,
    UnknownImageTokenError,
    UrlNotAllowedError,
)
from webreach.models import SearchRequest
from webreach.testing import FakeWeb

pytestmark = pytest.mark.network
KEYED = {name: EngineSettings(api_key=TEST_KEY) for name in ("brave_api", "serpapi", "google_cse")}


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


def settings_for(web: FakeWeb | None, tmp_path: Path, **overrides: Any) -> Settings:
    fields: dict[str, Any] = {"state": StateSettings(path=tmp_path / "state.sqlite3")}
    if web is not None:
        fields["fake_web"] = web.url
    fields.update(overrides)
    return Settings(**fields)


def picture() -> Image.Image:
    image = Image.new("RGB", (120, 80))
    image.putdata([(x * 2, y * 3, (x + y) % 256) for y in range(80) for x in range(120)])
    return image


def data_url(image: Image.Image) -> str:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def messages(url: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": "<image_1>"},
                                         {"type": "image_url", "image_url": {"url": url}}]}]  # fmt: skip


async def test_crop_a_token_from_messages(tmp_path: Path) -> None:
    source = picture()
    async with Gateway.from_settings(settings_for(None, tmp_path)) as gateway:
        stored = await gateway.images.register("s1", messages(data_url(source)))
        assert [(image.token, image.width, image.height) for image in stored] == [("<image_1>", 120, 80)]
        first, bad = await gateway.images.crop("s1", {"<image_1>": [10, 5, 70, 45], "<image_9>": [0, 0, 10, 10]})
        assert first.image is not None and first.image.token == "<obs_1>"
        cropped = Image.open(io.BytesIO(first.image.data)).convert("RGB")
        assert ImageChops.difference(cropped, source.crop((10, 5, 70, 45))).getbbox() is None
        assert isinstance(bad.error, UnknownImageTokenError)
        (again,) = await gateway.images.crop("s1", {"<obs_1>": [0, 0, 0.5, 0.5]})
        assert again.image is not None and (again.image.token, again.image.width) == ("<obs_2>", 30)
    # the store is the state file: a new gateway (another process) sees the same tokens
    async with Gateway.from_settings(settings_for(None, tmp_path)) as gateway:
        assert (await gateway.images.image("s1", "<obs_2>")).height == 20
        with pytest.raises(UnknownImageTokenError):
            await gateway.images.image("another session", "<obs_2>")


async def test_images_open_on_first_use_and_once(tmp_path: Path) -> None:
    """A gateway opens its images (the service and the image-token store) on first use, once; one that never used
    them closes cleanly (a search never does: tests/test_lazy_imports.py checks it loads no image module), and the
    tokens a later gateway registers are in the same state file as ever."""
    async with Gateway.from_settings(settings_for(None, tmp_path)):
        pass
    async with Gateway.from_settings(settings_for(None, tmp_path)) as gateway:
        images = gateway.images
        assert gateway.images is images
        stored = await images.register("s1", messages(data_url(picture())))
        assert [image.token for image in stored] == ["<image_1>"]
    async with Gateway.from_settings(settings_for(None, tmp_path)) as gateway:
        assert (await gateway.images.image("s1", "<image_1>")).width == 120


async def test_image_urls_go_through_the_guard(tmp_path: Path) -> None:
    async with Gateway.from_settings(settings_for(None, tmp_path)) as gateway:
        with pytest.raises(UrlNotAllowedError):
            await gateway.images.register("s1", messages("http://127.0.0.1:9/secret.png"))


async def test_image_search_auto_falls_back(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("images_brave_api", case="auth_failed")
    settings = settings_for(web, tmp_path, engines=KEYED, images={"engines": ["brave_api", "serpapi"]})
    async with Gateway.from_settings(settings) as gateway:
        response = await gateway.images.search(SearchRequest(query="red panda", limit=10))
    assert (response.mode, response.engines_used) == ("auto", ("serpapi",))
    assert [(a.engine, a.status, a.code) for a in response.attempts] == [
        ("brave_api", "error", "auth_failed"),
        ("serpapi", "ok", None),
    ]
    # the recording holds one image twice: listed once
    assert [hit.image_url for hit in response.results] == [
        "https://wildlife.example.org/img/red-panda.jpg",
        "https://zoo.example.com/media/panda-bamboo.png",
    ]
    assert web.count("images_brave_api") == 1 and web.count("images_serpapi") == 1
    (asked,) = web.requests("images_serpapi")
    assert "engine=google_images" in asked.query and "api_key=***" in asked.query  # the key went (masked in logs)


ENGINES = ["bing", "duckduckgo", "baidu", "sogou", "brave_api", "serpapi", "serper", "google_cse", "searxng", "tavily"]
EVERY = {
    **KEYED,
    "google_cse": EngineSettings(api_key=TEST_KEY, options={"cx": "0123456789abcdef0"}),
    "serper": EngineSettings(api_key=TEST_KEY),
    "tavily": EngineSettings(api_key=TEST_KEY),
}


@pytest.mark.parametrize("engine", ENGINES)
async def test_each_image_engine_answers_from_the_fake_web(web: FakeWeb, tmp_path: Path, engine: str) -> None:
    async with Gateway.from_settings(settings_for(web, tmp_path, engines=EVERY)) as gateway:
        response = await gateway.images.search(SearchRequest(query="red panda"), engine=engine)
    assert len(response.results) == 2 and {hit.engine for hit in response.results} == {engine}
    assert response.results[0].image_url == "https://wildlife.example.org/img/red-panda.jpg"


async def test_duckduckgo_runs_both_steps_and_reuses_its_token(web: FakeWeb, tmp_path: Path) -> None:
    # its rate limit is the web engine's (8 a minute): the configuration of duckduckgo reaches its image engine
    fast = {"duckduckgo": EngineSettings(rate_per_minute=1000)}
    settings = settings_for(web, tmp_path, cache={"backend": "none"}, engines=fast)
    async with Gateway.from_settings(settings) as gateway:
        for _ in range(2):
            response = await gateway.images.search(SearchRequest(query="red panda"), engine="duckduckgo")
            assert len(response.results) == 2
    steps = [(r.path, r.query) for r in web.requests("images_duckduckgo")]
    assert [path for path, _ in steps] == ["/images_duckduckgo/", "/images_duckduckgo/i.js", "/images_duckduckgo/i.js"]
    assert "iax=images" in steps[0][1] and "vqd=4-211287413212871233221872138711" in steps[1][1]


async def test_multi_merges_by_image_and_by_page(web: FakeWeb, tmp_path: Path) -> None:
    async with Gateway.from_settings(settings_for(web, tmp_path, engines=EVERY)) as gateway:
        response = await gateway.images.search(
            SearchRequest(query="red panda"), engine="multi", engines=["bing", "sogou", "tavily"]
        )
    # bing, sogou and tavily each find the same two images (tavily names no page: its hits dedupe by image URL)
    assert response.mode == "multi" and response.engines_used == ("bing", "sogou", "tavily")
    assert [hit.image_url for hit in response.results] == [
        "https://wildlife.example.org/img/red-panda.jpg",
        "https://zoo.example.com/media/panda-bamboo.png",
    ]
    assert response.results[0].engines == ("bing", "sogou", "tavily")
    assert [(a.engine, a.status, a.count) for a in response.attempts] == [
        ("bing", "ok", 2),
        ("sogou", "ok", 2),
        ("tavily", "ok", 2),
    ]


async def test_the_same_page_under_another_image_url_is_one_hit(web: FakeWeb, tmp_path: Path) -> None:
    # bing and serper name the same two pages; serper's recording links the same images, the merge keeps two hits
    async with Gateway.from_settings(settings_for(web, tmp_path, engines=EVERY)) as gateway:
        response = await gateway.images.search(
            SearchRequest(query="red panda"), engine="multi", engines=["bing", "duckduckgo"]
        )
    assert len(response.results) == 2


@pytest.mark.slow
async def test_image_search_has_the_cache_breaker_and_filters_of_web_search(web: FakeWeb, tmp_path: Path) -> None:
    request = SearchRequest(query="red panda", size="large", licence="public")
    async with Gateway.from_settings(settings_for(web, tmp_path, engines=EVERY)) as gateway:
        first = await gateway.images.search(request, engine="bing")
        again = await gateway.images.search(request, engine="bing")
        assert web.count("images_bing") == 1 and again.attempts[0].cached
        assert "qft=%2Bfilterui%3Aimagesize-large" in web.requests("images_bing")[0].query
        assert first.attempts[0].unsupported == ()
        sogou = await gateway.images.search(request, engine="sogou")
        assert sogou.attempts[0].unsupported == ("size", "licence")
        web.set_scenario("images_sogou", fault="captcha")
        with pytest.raises(BlockedError):
            await gateway.images.search(SearchRequest(query="another"), engine="sogou")
        # the breaker rests sogou after its CAPTCHA: the next search does not reach the fake web
        before = web.count("images_sogou")
        with pytest.raises(SuspendedError):
            await gateway.images.search(SearchRequest(query="a third"), engine="sogou")
        assert web.count("images_sogou") == before
        # and auto moves past it, saying why
        auto = await gateway.images.search(SearchRequest(query="a fourth"), engines=["sogou", "bing"])
        assert [(a.engine, a.code) for a in auto.attempts] == [("sogou", "suspended"), ("bing", None)]


async def test_named_engine_errors_are_raised_and_auto_reports_all(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("images_brave_api", case="auth_failed")
    settings = settings_for(web, tmp_path, engines=KEYED, images={"engines": ["brave_api"]})
    async with Gateway.from_settings(settings) as gateway:
        with pytest.raises(AuthFailedError) as named:
            await gateway.images.search(SearchRequest(query="red panda"), engine="brave_api")
        with pytest.raises(AllEnginesFailedError) as every:
            await gateway.images.search(SearchRequest(query="red panda"))
    # engines are named as callers name them, not by their registry names (images_brave_api)
    assert named.value.engine == "brave_api" and str(named.value).startswith("brave_api: ")
    assert "(brave_api: " in every.value.message and "images_" not in str(every.value.to_dict())
    assert [attempt.engine for attempt in every.value.attempts] == ["brave_api"]
    async with Gateway.from_settings(settings) as gateway:
        with pytest.raises(InvalidInputError):
            await gateway.images.search(SearchRequest(query="red panda"), engine="altavista")
