"""Every image engine (engines/images_*.py) against every real capture and every recording: hits field by field,
the promised errors with the web engine's codes, filters asked for or reported as ignored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import httpx
import pytest

from secret_keys import TEST_KEY
from webreach import engines
from webreach.config import EngineSettings
from webreach.engines.images_baidu import decode_url
from webreach.errors import AuthFailedError, BlockedError, ParseError, WebreachError
from webreach.images.hits import ImageHit, short_name
from webreach.models import Hit, SearchRequest
from webreach.testing.recordings import Recording, engine_recordings
from webreach.tools.image_tools import ImageEngineName

NAMES = engines.names("images")
OPTIONS = {"images_google_cse": {"cx": "0123456789abcdef0"}}
TOKENS = {"images_duckduckgo": {"vqd": "4-211287413212871233221872138711"}}

# capture (under ../shared/data) -> (engine, images it holds once each, of them with a thumbnail, with width and
# height, with a page): counted from the captures with a separate reading (PROVENANCE.md; a regex over the HTML
# for Bing and Baidu), not from the parser
CAPTURES: dict[str, tuple[str, int, int, int, int]] = {
    "images/brave_images_api/freespoke-brave__images.json": ("images_brave_api", 50, 50, 0, 50),
    "api/brave/brave-py-client__images.json": ("images_brave_api", 20, 20, 0, 20),
    "images/serpapi_google_images/weeklymenu__controllers.py.mock.derived.json": ("images_serpapi", 100, 100, 100, 100),
    "images/google_cse_image/feel-lucky__sample_api_response.rb": ("images_google_cse", 5, 5, 5, 5),
    # one result (artic) has no thumbnail; four carry their size in img_format ("2420 x 1613 · jpeg")
    "images/searxng_images/swoop__CatsImages.js.derived.json": ("images_searxng", 7, 6, 4, 7),
    # 47 a.iusc, 42 distinct images (murl); 34 of those carry turl and purl; every link has expw/exph
    "images/bing_images_html/retrieval-go__bing_images.html": ("images_bing", 42, 34, 42, 34),
    # the 2020 page form: 60 items in flip.setData('imgData'), fromURL obfuscated (ippr_...), objURL plain
    "images/baidu_images/baiduspider__test_pic_normal.html": ("images_baidu", 60, 60, 60, 60),
}


def image_engine(name: str) -> engines.Engine:
    base_url = "http://searx.test" if name == "images_searxng" else None
    settings = EngineSettings(api_key=TEST_KEY, options=OPTIONS.get(name, {}), base_url=base_url)
    return engines.create(name, settings)


def answer(engine: engines.Engine, body: bytes, status: int = 200, content_type: str = "") -> httpx.Response:
    request = engine.build_request(SearchRequest(query="cats", limit=50), TOKENS.get(engine.name))
    kind = content_type or ("text/html" if body.lstrip()[:1] == b"<" else "application/json")
    return httpx.Response(status, content=body, headers={"content-type": kind}, request=request)


def good(hit: Hit) -> bool:
    image = hit.image
    return (
        image is not None
        and image.image_url.startswith(("http://", "https://"))
        and hit.url.startswith(("http://", "https://"))
        and (image.thumbnail_url or "https://").startswith(("http://", "https://"))
        and bool(hit.source)
    )


@pytest.mark.parametrize("capture", sorted(CAPTURES))
def test_capture_parses(capture: str, shared_data: Path) -> None:
    name, count, thumbnails, sized, pages = CAPTURES[capture]
    engine = image_engine(name)
    hits = engine.handle(answer(engine, (shared_data / capture).read_bytes()))
    images = [hit.image for hit in hits if hit.image is not None]
    assert len(hits) == len(images) == count
    assert all(good(hit) and hit.engine == name for hit in hits)
    assert sum(1 for image in images if image.thumbnail_url) == thumbnails
    assert sum(1 for image in images if image.width and image.height) == sized
    assert sum(1 for hit in hits if hit.image and hit.url != hit.image.image_url) == pages
    assert [hit.rank for hit in hits] == list(range(1, count + 1))
    assert len({image.image_url for image in images}) == count  # each image once


def test_field_mapping_of_first_hits(shared_data: Path) -> None:
    def first(name: str, capture: str) -> ImageHit:
        engine = image_engine(name)
        return ImageHit.of(engine.handle(answer(engine, (shared_data / capture).read_bytes()))[0])

    cse = first("images_google_cse", "images/google_cse_image/feel-lucky__sample_api_response.rb")
    assert (cse.title, cse.width, cse.height) == ("Street View Treks: Petra", 1200, 630)
    assert cse.page_url == "https://www.google.com/maps/about/behind-the-scenes/streetview/treks/petra/"
    serp = first("images_serpapi", "images/serpapi_google_images/weeklymenu__controllers.py.mock.derived.json")
    assert serp.image_url == "https://www.giallozafferano.it/images/195-19577/Kebab-vegetariano_780x520_wm.jpg"
    assert (serp.width, serp.height, serp.source) == (780, 520, "ricette.giallozafferano.it")
    bing = first("images_bing", "images/bing_images_html/retrieval-go__bing_images.html")
    assert bing.image_url == "https://vectorseek.com/wp-content/uploads/2023/03/Golang-Gopher-Logo-Vector.jpg"
    assert bing.page_url == "https://vectorseek.com/vector_logo/golang-gopher-logo-vector/"
    assert bing.thumbnail_url == "https://ts4.mm.bing.net/th?id=OIP.LQQi0et0FFshviPhL18q9QHaHa&pid=15.1"
    assert (bing.width, bing.height, bing.title) == (
        1000,
        1000,
        "Golang Gopher Logo PNG (Transparent) SVG AI – Free Download",
    )
    baidu = first("images_baidu", "images/baidu_images/baiduspider__test_pic_normal.html")
    assert baidu.image_url == "http://img.cwq.com/201611/581c95c35ca62.png"
    assert baidu.page_url == "http://www.cwq.com/weixin/198197.html"  # decoded from ippr_z2C$q...
    assert (baidu.width, baidu.height, baidu.title, baidu.source) == (1024, 1024, "python中文社区", "www.cwq.com")


def test_baidu_url_decoding_leaves_plain_urls() -> None:
    assert decode_url("https://a.example/x.jpg") == "https://a.example/x.jpg"
    assert decode_url("ippr_z2C$qAzdH3FAzdH3Fooo_z&e3Bvoq_z&e3Bv54") == "http://www.cwq.com"


CASES = [
    pytest.param(name, recording, id=f"{name}/{case}")
    for name in NAMES
    for case, recording in engine_recordings(name).items()
    if case != "warm_up"
]


@pytest.mark.parametrize(("name", "recording"), CASES)
def test_engine_honours_its_recording(name: str, recording: Recording) -> None:
    engine = image_engine(name)
    request = engine.build_request(SearchRequest(query="red panda", limit=5), TOKENS.get(name))
    assert str(request.url).startswith(engine.origin)
    response = recording.to_response(request)
    if recording.expected_code is None:
        hits = engine.handle(response)
        assert all(good(hit) and hit.engine == name for hit in hits)
        assert len(hits) == (2 if recording.case.startswith("results") else 0)
        return
    with pytest.raises(WebreachError) as caught:
        engine.handle(response)
    assert caught.value.code == recording.expected_code and caught.value.engine == name
    assert TEST_KEY not in str(caught.value)


@pytest.mark.parametrize("name", NAMES)
def test_every_image_engine_has_results_no_results_and_an_error_recording(name: str) -> None:
    cases = engine_recordings(name)
    assert any(c.startswith("results") for c in cases) and any(c.startswith("no_results") for c in cases)
    assert any(r.expected_code for r in cases.values()), f"add an error or block case for {name}"
    cls = engines.engine_class(name, vertical="images")
    assert cls.vertical == "images" and cls.index and cls.base_url.startswith("https://")


def test_requests_ask_for_images() -> None:
    shapes = {
        "images_brave_api": ("/res/v1/images/search", "q", {}),
        "images_serpapi": ("/search.json", "q", {"engine": "google_images"}),
        "images_google_cse": ("/customsearch/v1", "q", {"searchType": "image", "cx": "0123456789abcdef0"}),
        "images_searxng": ("/search", "q", {"categories": "images", "format": "json"}),
        "images_bing": ("/images/search", "q", {}),
        "images_duckduckgo": ("/i.js", "q", {"o": "json", "vqd": TOKENS["images_duckduckgo"]["vqd"]}),
        "images_baidu": ("/search/acjson", "word", {"tn": "resultjson_com"}),
        "images_sogou": ("/pics", "query", {}),
    }
    for name, (path, query_key, params) in shapes.items():
        request = image_engine(name).build_request(SearchRequest(query="red panda", limit=5), TOKENS.get(name))
        assert request.url.path == path and request.url.params[query_key] == "red panda", name
        assert all(request.url.params[key] == value for key, value in params.items()), name
    for name, path in {"images_serper": "/images", "images_tavily": "/search"}.items():
        request = image_engine(name).build_request(SearchRequest(query="red panda", limit=5))
        body = json.loads(request.content)
        assert request.url.path == path and (body.get("q") or body.get("query")) == "red panda"
    tavily = json.loads(image_engine("images_tavily").build_request(SearchRequest(query="x")).content)
    assert tavily["include_images"] is True


def test_duckduckgo_warms_up_on_its_search_page_and_needs_the_token() -> None:
    engine = image_engine("images_duckduckgo")
    request = SearchRequest(query="red panda")
    warm_up = engine.warm_up(request)
    assert warm_up is not None and warm_up.url.params["iax"] == "images" and warm_up.url.path == "/"
    page = engine_recordings("images_duckduckgo")["warm_up"].to_response(warm_up)
    assert engine.warm_up_tokens(page) == TOKENS["images_duckduckgo"]
    with pytest.raises(ParseError):
        engine.build_request(request, {})


FILTERED = SearchRequest(query="red panda", size="large", type="photo", colour="red", licence="share_commercially")


def test_filters_reach_the_engines_that_take_them() -> None:
    asked = {name: image_engine(name).build_request(FILTERED, TOKENS.get(name)).url.params for name in NAMES}
    assert asked["images_bing"]["qft"] == (
        "+filterui:imagesize-large+filterui:photo-photo+filterui:license-L2_L3_L4+filterui:color2-FGcls_RED"
    )
    assert asked["images_duckduckgo"]["f"] == "size:Large,color:Red,type:photo,,license:ShareCommercially"
    assert (asked["images_serpapi"]["imgsz"], asked["images_serpapi"]["image_color"]) == ("l", "red")
    assert (asked["images_serpapi"]["image_type"], asked["images_serpapi"]["licenses"]) == ("photo", "fc")
    cse = asked["images_google_cse"]
    assert (cse["imgSize"], cse["imgType"], cse["imgDominantColor"]) == ("large", "photo", "red")


@pytest.mark.parametrize("name", NAMES)
def test_filters_an_engine_cannot_take_are_reported_as_ignored(name: str) -> None:
    engine = image_engine(name)
    ignored = set(engine.unsupported(FILTERED))
    assert ignored == {"size", "type", "colour", "licence"} - engine.supports
    takes_filters = {"images_bing", "images_duckduckgo", "images_serpapi", "images_google_cse"}
    assert (not ignored) == (name in takes_filters)


def test_web_engine_errors_keep_their_codes() -> None:
    engine = image_engine("images_brave_api")
    body = json.dumps({"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID", "status": 422}})
    with pytest.raises(AuthFailedError):
        engine.handle(answer(engine, body.encode(), 422))
    bing = image_engine("images_bing")
    redirect = httpx.Response(
        302, headers={"location": "https://www.bing.com/turing/captcha/challenge"}, request=bing.build_request(FILTERED)
    )
    with pytest.raises(BlockedError) as caught:
        bing.handle(redirect)
    assert caught.value.code == "captcha"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "body", [b"[]", b"not json", b'{"type": "search"}', b'{"results": 5, "images": 5, "data": 5}', b"<html></html>"]
)
def test_hostile_answers_are_typed_errors_or_empty(name: str, body: bytes) -> None:
    engine = image_engine(name)
    try:
        assert engine.handle(answer(engine, body)) == []
    except WebreachError as exc:
        assert isinstance(exc, ParseError | BlockedError)


def test_a_hostile_bing_m_attribute_costs_only_its_result() -> None:
    deep = "[" * 100_000
    good_m = json.dumps({"murl": "https://a.example/1.jpg", "purl": "https://a.example/"}).replace('"', "&quot;")
    page = f'<a class="iusc" m="{deep}" href="/x"></a><a class="iusc" m="{good_m}" href="/y"></a>'.encode()
    engine = image_engine("images_bing")
    assert [hit.image.image_url for hit in engine.handle(answer(engine, page)) if hit.image] == [
        "https://a.example/1.jpg"
    ]


def test_the_tool_schema_lists_every_image_engine() -> None:
    assert sorted(get_args(ImageEngineName)) == sorted(short_name(name) for name in NAMES)


def test_a_url_no_store_can_keep_is_no_thumbnail_and_no_page() -> None:
    # found by tests/images/test_image_engine_fuzz.py: a JSON "\ud800" escape in a thumbnail reached the answer
    item = {
        "imageUrl": "https://a.example/1.jpg",
        "thumbnailUrl": "https://a.example/\\ud800",
        "link": "http://\\u0001",
    }
    engine = image_engine("images_serper")
    (hit,) = engine.handle(answer(engine, json.dumps({"images": [item]}).replace("\\\\", "\\").encode()))
    assert hit.image is not None and hit.image.thumbnail_url is None and hit.url == "https://a.example/1.jpg"
