"""Every real image-search capture of the API engines parses, field by field; errors keep the web engine's codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import httpx
import pytest

from secret_keys import TEST_KEY
from webreach import engines
from webreach.config import EngineSettings
from webreach.errors import AuthFailedError, ParseError, WebreachError
from webreach.images.engines import IMAGE_ENGINES, ImageEngine
from webreach.images.hits import ImageHit, ImageSearchRequest, deduplicated
from webreach.tools.image_tools import ImageEngineName

# capture (under ../shared/data) -> (engine, image results the capture holds, hits with a thumbnail, hits with
# width and height): counted from the captures (PROVENANCE.md), not from the parser
CAPTURES: dict[str, tuple[str, int, int, int]] = {
    "images/brave_images_api/freespoke-brave__images.json": ("brave_api", 50, 50, 0),
    "api/brave/brave-py-client__images.json": ("brave_api", 20, 20, 0),
    "images/serpapi_google_images/weeklymenu__controllers.py.mock.derived.json": ("serpapi", 100, 100, 100),
    "images/google_cse_image/feel-lucky__sample_api_response.rb": ("google_cse", 5, 5, 5),
    # one result (artic) has no thumbnail; four carry their size in img_format ("2420 x 1613 · jpeg")
    "images/searxng_images/swoop__CatsImages.js.derived.json": ("searxng", 7, 6, 4),
}
OPTIONS = {"google_cse": {"cx": "0123456789abcdef0"}, "searxng": {}}


def image_engine(name: str) -> ImageEngine:
    base_url = "http://searx.test" if name == "searxng" else None
    settings = EngineSettings(api_key=TEST_KEY, options=OPTIONS.get(name, {}), base_url=base_url)
    return IMAGE_ENGINES[name](engines.create(name, settings))


def answer(engine: ImageEngine, body: bytes, status: int = 200) -> httpx.Response:
    request = engine.build_request(ImageSearchRequest(query="cats", limit=50))
    return httpx.Response(status, content=body, headers={"content-type": "application/json"}, request=request)


def good(hit: ImageHit) -> bool:
    return (
        hit.image_url.startswith(("http://", "https://"))
        and (hit.page_url or "").startswith(("http://", "https://"))
        and (hit.thumbnail_url or "https://").startswith(("http://", "https://"))
        and bool(hit.source)
    )


@pytest.mark.parametrize("capture", sorted(CAPTURES))
def test_capture_parses(capture: str, shared_data: Path) -> None:
    name, count, thumbnails, sized = CAPTURES[capture]
    engine = image_engine(name)
    hits = engine.handle(answer(engine, (shared_data / capture).read_bytes()))
    assert len(hits) == count
    assert all(good(hit) and hit.engine == name for hit in hits)
    assert sum(1 for hit in hits if hit.thumbnail_url) == thumbnails
    assert sum(1 for hit in hits if hit.width and hit.height) == sized
    assert [hit.rank for hit in hits] == list(range(1, count + 1))


def test_field_mapping_of_first_hits(shared_data: Path) -> None:
    cse = image_engine("google_cse")
    first = cse.handle(
        answer(cse, (shared_data / "images/google_cse_image/feel-lucky__sample_api_response.rb").read_bytes())
    )[0]
    assert (first.title, first.width, first.height) == ("Street View Treks: Petra", 1200, 630)
    assert first.page_url == "https://www.google.com/maps/about/behind-the-scenes/streetview/treks/petra/"
    serp = image_engine("serpapi")
    capture = shared_data / "images/serpapi_google_images/weeklymenu__controllers.py.mock.derived.json"
    hit = serp.handle(answer(serp, capture.read_bytes()))[0]
    assert hit.image_url == "https://www.giallozafferano.it/images/195-19577/Kebab-vegetariano_780x520_wm.jpg"
    assert (hit.width, hit.height, hit.source) == (780, 520, "ricette.giallozafferano.it")


def test_requests_ask_for_images() -> None:
    shapes = {
        "brave_api": ("/res/v1/images/search", {}),
        "serpapi": ("/search.json", {"engine": "google_images"}),
        "google_cse": ("/customsearch/v1", {"searchType": "image", "cx": "0123456789abcdef0"}),
        "searxng": ("/search", {"categories": "images", "format": "json"}),
    }
    for name, (path, params) in shapes.items():
        request = image_engine(name).build_request(ImageSearchRequest(query="red panda", limit=5))
        assert request.url.path == path and request.url.params["q"] == "red panda"
        assert all(request.url.params[key] == value for key, value in params.items())


def test_web_engine_errors_keep_their_codes() -> None:
    engine = image_engine("brave_api")
    body = json.dumps({"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID", "status": 422}})
    with pytest.raises(AuthFailedError):
        engine.handle(answer(engine, body.encode(), 422))


@pytest.mark.parametrize("body", [b"[]", b"not json", b'{"type": "search"}', b'{"type": "images", "results": 5}'])
def test_hostile_answers_are_typed_errors_or_empty(body: bytes) -> None:
    engine = image_engine("brave_api")
    try:
        assert engine.handle(answer(engine, body)) == []
    except WebreachError as exc:
        assert isinstance(exc, ParseError)


def test_dedup_by_image_url() -> None:
    hits = [
        ImageHit(rank=i, title="", image_url=url, engine="x")
        for i, url in enumerate(["http://a/1", "http://a/1#x", "http://a/2"], 1)
    ]
    assert [hit.image_url for hit in deduplicated(hits, 10)] == ["http://a/1", "http://a/2"]
    assert [hit.rank for hit in deduplicated(hits, 1)] == [1]


def test_the_tool_schema_lists_every_image_engine() -> None:
    assert get_args(ImageEngineName) == ("auto", *IMAGE_ENGINES)
