"""Reverse image search offline against the fake web: every backend, auto fallback, and the storage modes'
round trips, where the fake web's backend fetches the image's URL back over a real socket (a presigned URL from
a local S3-compatible server, or `webreach serve`'s own /i/<id>). The Python door, REST and an MCP client each
reverse-search a token named in a message list."""

from __future__ import annotations

import base64
import io
import json
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from PIL import Image

from secret_keys import TEST_KEY
from webreach import EngineSettings, Gateway, Settings
from webreach.config import StateSettings
from webreach.errors import AllEnginesFailedError, BlockedError, EngineError, NotConfiguredError, SuspendedError
from webreach.testing import FakeWeb
from webreach.tools import Toolbox

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontends"))
from serving import http_server

pytestmark = pytest.mark.network
KEYED = {"serpapi": EngineSettings(api_key=TEST_KEY)}
WILDLIFE = "https://wildlife.example.org/img/red-panda.jpg"


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


def settings_for(web: FakeWeb, tmp_path: Path, images: dict[str, Any], **fields: Any) -> Settings:
    return Settings(fake_web=web.url, state=StateSettings(path=tmp_path / "state.sqlite3"), engines=KEYED,
                    images=images, **fields)  # fmt: skip


def photo() -> bytes:
    image = Image.new("RGB", (300, 200))
    image.putdata([(x % 256, y % 256, (x * y) % 256) for y in range(200) for x in range(300)])
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def messages() -> list[dict[str, Any]]:
    url = "data:image/png;base64," + base64.b64encode(photo()).decode()
    return [{"role": "user", "content": [{"type": "text", "text": "Where is this from? <image_1>"},
                                         {"type": "image_url", "image_url": {"url": url}}]}]  # fmt: skip


@pytest.mark.parametrize("backend", ["serpapi_lens", "serpapi_google_reverse", "serpapi_yandex", "bing_visual",
                                     "yandex", "tineye", "searxng_tineye"])  # fmt: skip
async def test_each_backend_answers_from_the_fake_web(web: FakeWeb, tmp_path: Path, backend: str) -> None:
    # URL backends get a public link; the fake web only fetches loopback URLs, so a link to nowhere is fine here
    images = {"storage": "public_url", "public_base_url": "https://webreach.example"}
    async with Gateway.from_settings(settings_for(web, tmp_path, images)) as gateway:
        await gateway.images.register("s1", messages())
        response = await gateway.images.reverse_search("s1", "<image_1>", backend=backend)
    assert response.backend == backend and response.token == "<image_1>"
    assert response.results and {hit.backend for hit in response.results} == {backend}
    first = response.results[0]
    assert (first.match, first.page_url) == ("exact", "https://wildlife.example.org/red-panda")
    (asked,) = {r.engine for r in web.requests()} - {"_sites"}
    assert asked == f"reverse_{backend}"


async def test_python_door_falls_back_to_an_upload_backend(web: FakeWeb, tmp_path: Path) -> None:
    # inline storage: the URL-only backend cannot be asked, tineye takes the upload
    images = {"reverse_backends": ["serpapi_lens", "tineye"]}
    async with Gateway.from_settings(settings_for(web, tmp_path, images)) as gateway:
        result = await Toolbox.over(gateway).call(
            "reverse_image_search", {"image": "<image_1>", "messages": messages()}, output="json", session="s1"
        )
    body = json.loads(result.text)
    assert body["backend"] == "tineye" and body["attempts"] == ["serpapi_lens: not_configured"]
    assert body["results"][0]["similarity"] == pytest.approx(0.975)
    (upload,) = web.requests("reverse_tineye")
    assert b'name="image"' in upload.body and b"\x89PNG" in upload.body  # the image itself went up


async def test_auto_reports_every_failure(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("reverse_tineye", case=None, fault="captcha")
    images = {"reverse_backends": ["serpapi_lens", "tineye"]}
    async with Gateway.from_settings(settings_for(web, tmp_path, images)) as gateway:
        await gateway.images.register("s1", messages())
        with pytest.raises(AllEnginesFailedError) as failed:
            await gateway.images.reverse_search("s1", "<image_1>")
        with pytest.raises(NotConfiguredError):
            await gateway.images.reverse_search("s1", "<image_1>", backend="serpapi_lens")
    assert [error.code for error in failed.value.errors] == ["not_configured", "captcha"]


async def test_large_rotated_images_are_upright_and_downscaled_before_upload(web: FakeWeb, tmp_path: Path) -> None:
    image = Image.new("RGB", (4000, 1000), (200, 10, 10))
    exif = image.getexif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to view
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif)
    data = "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode()
    images = {"reverse_backends": ["tineye"], "upload_max_side": 1000}
    async with Gateway.from_settings(settings_for(web, tmp_path, images)) as gateway:
        response = await gateway.images.reverse_search("s1", data)
    assert response.token == "<obs_1>"  # base64 data becomes a token of the session
    (upload,) = web.requests("reverse_tineye")
    start = upload.body.index(b"\xff\xd8")
    sent = Image.open(io.BytesIO(upload.body[start:]))
    assert sent.size == (250, 1000)  # upright (portrait) and at most 1000 px a side


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.slow
def test_s3_storage_round_trip_through_a_local_s3_server(tmp_path: Path) -> None:
    boto3 = pytest.importorskip("boto3")
    server_module = pytest.importorskip("moto.server")
    port = free_port()
    s3 = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    s3.start()
    try:
        endpoint = f"http://127.0.0.1:{port}"
        client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test",
                              aws_secret_access_key="test")  # fmt: skip
        client.create_bucket(Bucket="webreach-test")
        s3_settings = {"bucket": "webreach-test", "endpoint_url": endpoint, "access_key_id": "test",
                       "secret_access_key": "test"}  # fmt: skip
        images = {"storage": "s3", "s3": s3_settings, "reverse_backends": ["serpapi_lens"]}
        with FakeWeb.in_thread() as web:
            import asyncio

            async def run() -> Any:
                async with Gateway.from_settings(settings_for(web, tmp_path, images)) as gateway:
                    await gateway.images.register("s1", messages())
                    return await gateway.images.reverse_search("s1", "<image_1>")

            response = asyncio.run(run())
            (fetched,) = web.reverse.fetched()
        assert response.backend == "serpapi_lens" and response.results
        assert fetched.ok and fetched.url.startswith(f"{endpoint}/webreach-test/webreach/images/")
        # presigned with SigV4 (issue 41), expiring with url_ttl_seconds (900 by default), and it read the object
        assert "X-Amz-Algorithm=AWS4-HMAC-SHA256" in fetched.url and "X-Amz-Signature=" in fetched.url
        assert "X-Amz-Expires=900" in fetched.url
    finally:
        s3.stop()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[FakeWeb, str]]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        "WEBREACH_IMAGES__STORAGE": "public_url",
        "WEBREACH_IMAGES__PUBLIC_BASE_URL": base,
        "WEBREACH_IMAGES__REVERSE_BACKENDS": '["serpapi_lens"]',
        "WEBREACH_ENGINES__SERPAPI__API_KEY": TEST_KEY,
    }
    with FakeWeb.in_thread() as web, http_server(web, tmp_path, "--port", str(port), **env) as server:  # fmt: skip
        assert server.url.rstrip("/") == base
        yield web, base


@pytest.mark.slow
def test_rest_and_mcp_reverse_search_a_token_through_the_public_url_round_trip(served: tuple[FakeWeb, str]) -> None:
    web, base = served
    arguments = {"image": "<image_1>", "messages": messages(), "limit": 5}
    answer = httpx.post(f"{base}/v1/reverse_image_search", json=arguments, headers={"X-Webreach-Session": "r1"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["backend"] == "serpapi_lens" and body["token"] == "<image_1>"
    assert [hit["match"] for hit in body["results"]] == ["exact", "visual"]  # the repeated image dropped
    (fetched,) = web.reverse.fetched()
    # the backend fetched webreach's own public link on loopback, and got the image
    assert fetched.ok and fetched.url.startswith(f"{base}/i/")
    assert httpx.get(f"{base}/i/not-a-real-link-id-0000").status_code == 404

    import asyncio

    async def over_mcp() -> Any:
        async with Client(f"{base}/mcp", raise_exceptions=True) as mcp:
            tools = [tool.name for tool in (await mcp.list_tools()).tools]
            result = await mcp.call_tool("reverse_image_search", {"image": "<image_1>", "messages": messages()})
            return tools, result

    tools, result = asyncio.run(over_mcp())
    # the default surface offers models the web tools only (the image tools are opt-in, image_upload hidden), yet
    # the call by name above is served, as REST's was
    assert tools == ["web_search", "web_search_multi", "web_fetch"]
    assert not result.is_error
    assert "serpapi_lens" in result.content[0].text and WILDLIFE in result.content[0].text
    assert len(web.reverse.fetched()) == 2 and web.reverse.fetched()[1].ok


@pytest.mark.slow
def test_rest_multipart_upload_returns_a_token_and_a_public_url(served: tuple[FakeWeb, str]) -> None:
    _, base = served
    answer = httpx.post(f"{base}/v1/images", files={"file": ("p.png", photo(), "image/png")},
                        headers={"X-Webreach-Session": "u1"})  # fmt: skip
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["token"] == "<obs_1>" and body["url"].startswith(f"{base}/i/")
    image = httpx.get(body["url"])
    assert image.status_code == 200 and image.content == photo() and image.headers["content-type"] == "image/png"
    refused = httpx.post(f"{base}/v1/images", files={"file": ("x.svg", b"<svg/>", "image/svg+xml")})
    assert refused.status_code == 415 or refused.json()["code"] == "unsupported_image"


async def test_a_blocked_backend_rests_under_the_breaker_of_web_search(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("reverse_tineye", fault="captcha")
    images = {"reverse_backends": ["tineye"]}
    async with Gateway.from_settings(settings_for(web, tmp_path, images)) as gateway:
        await gateway.images.register("s1", messages())
        with pytest.raises(BlockedError):
            await gateway.images.reverse_search("s1", "<image_1>", backend="tineye")
        with pytest.raises(SuspendedError):
            await gateway.images.reverse_search("s1", "<image_1>", backend="tineye")
    # the suspension is in the state file's breaker records: another process skips the backend too
    async with Gateway.from_settings(settings_for(web, tmp_path, images)) as gateway:
        with pytest.raises(SuspendedError):
            await gateway.images.reverse_search("s1", "<image_1>", backend="tineye")
    assert web.count("reverse_tineye") == 1


async def test_a_rested_backend_is_listed_and_reset_like_an_engine(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("reverse_tineye", fault="captcha")
    # paced fast enough for a second request at once: the reset closes the breaker, it does not refill the bucket
    images = {"reverse_backends": ["tineye"], "reverse_settings": {"tineye": {"rate_per_minute": 600}}}
    async with Gateway.from_settings(settings_for(web, tmp_path, images)) as gateway:
        await gateway.images.register("s1", messages())
        with pytest.raises(BlockedError):
            await gateway.images.reverse_search("s1", "<image_1>", backend="tineye")
    web.reset("reverse_tineye")
    async with Gateway.from_settings(settings_for(web, tmp_path, images)) as gateway:
        statuses = {status.name: status for status in gateway.engines.statuses()}
        tineye, lens = statuses["tineye"], statuses["serpapi_lens"]
        assert (tineye.vertical, tineye.breaker, tineye.last_error) == ("reverse", "open", "captcha")
        assert tineye.supports == ("upload", "url") and tineye.usable
        assert (lens.shares_settings_of, lens.key_configured, lens.usable) == ("serpapi", True, True)
        assert statuses["images_bing"].vertical == "images" and statuses["bing"].vertical == "web"
        assert "tineye" in gateway.engines.breaker_names()
        gateway.engines.reset("tineye")
        await gateway.images.register("s1", messages())
        answer = await gateway.images.reverse_search("s1", "<image_1>", backend="tineye")
        assert answer.backend == "tineye" and answer.results
        assert next(s for s in gateway.engines.statuses() if s.name == "tineye").breaker == "closed"
    assert web.count("reverse_tineye") == 2


async def test_a_backend_without_its_key_or_instance_says_which_setting_to_make(tmp_path: Path) -> None:
    settings = Settings(state=StateSettings(path=tmp_path / "state.sqlite3"))
    async with Gateway.from_settings(settings) as gateway:
        statuses = {status.name: status for status in gateway.engines.statuses() if status.vertical == "reverse"}
    assert statuses["serpapi_lens"].reason == (
        "needs the serpapi API key (set WEBREACH_ENGINES__SERPAPI__API_KEY, or enter it in the console)"
    )
    instance = "needs the instance's base_url (set WEBREACH_ENGINES__SEARXNG__BASE_URL)"
    assert statuses["searxng_tineye"].reason == instance
    assert statuses["bing_visual"].usable and statuses["bing_visual"].shares_settings_of == "bing"


@pytest.mark.parametrize(
    ("fault", "code"),
    [("retry_after", "rate_limited"), ("truncate", "unavailable"), ("reset", "unavailable"),
     ("endless", "unavailable")],
)  # fmt: skip
async def test_transport_faults_are_typed_engine_errors(web: FakeWeb, tmp_path: Path, fault: str, code: str) -> None:
    web.set_scenario("reverse_tineye", fault=fault)
    images = {"reverse_backends": ["tineye"]}
    async with Gateway.from_settings(settings_for(web, tmp_path, images, max_body_bytes=200_000)) as gateway:
        await gateway.images.register("s1", messages())
        with pytest.raises(EngineError) as failed:
            await gateway.images.reverse_search("s1", "<image_1>", backend="tineye")
    assert failed.value.code == code and failed.value.engine == "tineye"
    if fault == "retry_after":
        assert failed.value.retry_after is not None


@pytest.mark.parametrize("backend", ["serpapi_lens", "serpapi_google_reverse", "serpapi_yandex", "bing_visual",
                                     "tineye", "searxng_tineye"])  # fmt: skip
@pytest.mark.parametrize(
    "answer",
    [{}, {"matches": "x", "tags": 5, "results": [1, None, "a"], "image_results": {"a": 1}},
     {"visual_matches": [{"link": 5, "image": ["x"], "position": "1"}], "exact_matches": [None],
      "inline_images": [{"source": "javascript:alert(1)"}], "similar_images": [{"link": {"x": 1}}],
      "tags": [{"actions": [{"actionType": "VisualSearch", "data": {"value": [{"hostPageUrl": 7}]}}]}],
      "matches": [{"backlinks": "no", "score": "high"}]}],
)  # fmt: skip
def test_hostile_answers_give_hits_or_typed_errors(backend: str, answer: dict[str, Any]) -> None:
    from webreach.clock import SystemClock
    from webreach.providers import default_registry

    parser = default_registry().reverse_backends()[backend](EngineSettings(), user_agent="test", clock=SystemClock())
    try:
        hits = parser.parse(answer)  # type: ignore[attr-defined]
    except EngineError as exc:
        assert exc.code == "parse_error"
        return
    assert all(hit.page_url or hit.image_url for hit in hits)
    assert all((hit.page_url or "https://").startswith("http") for hit in hits)


@pytest.mark.parametrize(
    "page",
    ["<html><body>nothing here</body></html>", '<div class="Root" id="ImagesApp-1" data-state="{not json"></div>',
     '<div class="Root" id="ImagesApp-1" data-state="[1, 2]"></div>', "<p>Please confirm: SmartCaptcha</p>",
     '<div class="Root" id="ImagesApp-1" data-state="' + "[" * 100_000 + '"></div>'],
)  # fmt: skip
def test_yandex_pages_without_results_are_typed_errors(page: str) -> None:
    from webreach.clock import SystemClock
    from webreach.images.reverse.yandex import Yandex

    backend = Yandex(EngineSettings(), user_agent="test", clock=SystemClock())
    with pytest.raises(EngineError) as failed:
        backend.parse_page(httpx.Response(200, text=page, headers={"content-type": "text/html"}))
    assert failed.value.code in ("parse_error", "captcha")


async def test_agent_urls_go_through_the_guard_and_bad_data_is_invalid_input(tmp_path: Path) -> None:
    settings = Settings(state=StateSettings(path=tmp_path / "state.sqlite3"), images={"reverse_backends": ["tineye"]})
    async with Gateway.from_settings(settings) as gateway:
        tools = Toolbox.over(gateway)
        private = await tools.call("reverse_image_search", {"image": "http://169.254.169.254/latest/meta-data"})
        garbage = await tools.call("reverse_image_search", {"image": "not an image at all"})
        svg = await tools.call("reverse_image_search", {"image": "data:image/svg+xml;base64,PHN2Zy8+"})
    assert private.error is not None and private.error.code == "url_not_allowed"
    assert garbage.error is not None and garbage.error.code == "invalid_input"
    assert svg.error is not None and svg.error.code == "unsupported_image"
